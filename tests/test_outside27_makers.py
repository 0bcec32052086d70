"""A function of the user's that makes a derivative of its parameter (``def hessian(f): return
jacfwd(jacrev(f))``, JAX's habit), its result called inside differentiated code (issue 16,
outside27; ``srcad/frontend/derivative_makers.py``). Refused before as "calling the result of
an expression, a function that hessian(...) returned". Generated family (maker x function x
use) against central differences and autograd; a maker doing anything else stays refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")
SR = "import numpy as np\nfrom srcad import jacfwd, jacrev, grad\n"
AG = ("import autograd.numpy as np\nfrom autograd import jacobian as jacfwd\n"
      "from autograd import jacobian as jacrev\nfrom autograd import grad\n")
X = np.array([0.3, -0.7, 1.1])

MAKERS = {
    "hessian": 'def make(f):\n    """A Hessian."""\n    return jacfwd(jacrev(f))\n',
    "jacobian of grad": "def make(f):\n    return jacrev(grad(f))\n",
    "grad": "def make(f):\n    return grad(f)\n",
}
FUNCTIONS = {
    "sin": "def inner(x):\n    return np.sum(np.sin(x) * x ** 2)\n",
    "product": "def inner(x):\n    return np.prod(x) + np.sum(np.exp(0.3 * x))\n",
}
USES = {
    "direct": "def f(x):\n    return np.sum(make(inner)(x) ** 2)\n",
    "named": "def f(x):\n    h = make(inner)\n    return np.sum(h(x) * np.cos(x))\n",
    "helper": "def use(x):\n    return np.sum(make(inner)(2.0 * x))\n\n"
              "def f(x):\n    return use(x) * x[0]\n",
}
CASES = list(itertools.product(MAKERS, FUNCTIONS, USES))
# (a Hessian differentiated is a third derivative: seconds a case; the long run takes all)
SOME = CASES if LONG else [("grad", "product", "helper")]


def _fd(f, x):
    return np.array([(f(x + 1e-5 * e) - f(x - 1e-5 * e)) / 2e-5 for e in np.eye(len(x))])


@pytest.mark.parametrize("maker,inner,use", SOME)
def test_a_maker_of_derivatives_called_in_code(maker, inner, use, tmp_path):
    text = MAKERS[maker] + FUNCTIONS[inner] + USES[use]
    m = load_module(tmp_path, SR + text)
    g = srcad.grad(m.f)(X)
    np.testing.assert_allclose(g, _fd(m.f, X), rtol=1e-5, atol=1e-7)
    a = load_module(tmp_path, AG + text)
    np.testing.assert_allclose(g, autograd.grad(a.f)(X), rtol=1e-9, atol=1e-11)


@pytest.mark.skipif(not LONG, reason="a third derivative: seconds (SRCAD_LONG_PROPERTIES=1)")
def test_argnums_and_the_derivative_given_to_srcad(tmp_path):
    m = load_module(tmp_path, SR + "def both(f):\n    return grad(f, argnums=(0, 1))\n\n"
                    "def two(a, b):\n    return a * np.sin(b)\n\n"
                    "def f(a, b):\n    da, db = both(two)(a, b)\n    return da * db\n"
                    + MAKERS["hessian"] + FUNCTIONS["sin"])
    g = srcad.grad(m.f, argnums=(0, 1))(0.3, 0.5)
    # d/da (sin b * a cos b) = sin b cos b; d/db = a (cos^2 b - sin^2 b)
    np.testing.assert_allclose(g, (np.sin(0.5) * np.cos(0.5), 0.3 * np.cos(1.0)), rtol=1e-12)
    third = srcad.jacobian(m.make(m.inner))(X)  # the Hessian's Jacobian: a third derivative
    h = m.make(m.inner)
    fd = np.stack([(h(X + 1e-5 * e) - h(X - 1e-5 * e)) / 2e-5 for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(third, fd, rtol=1e-5, atol=1e-6)


def test_a_maker_doing_more_stays_refused(tmp_path):
    m = load_module(tmp_path, SR + "LOG = []\n\ndef make(f):\n    LOG.append(f)\n"
                    "    return grad(f)\n\n" + FUNCTIONS["sin"]
                    + "def f(x):\n    return np.sum(make(inner)(x))\n")
    with pytest.raises(SrcadError, match="make"):
        srcad.grad(m.f)(X)
    assert m.LOG == []  # not called while srcad read it
