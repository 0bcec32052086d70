"""Draws from a random generator made inside the differentiated code (issue 16, outside28;
JAX's advi example under tools/jax_shim.py: ``np.random.default_rng(key).standard_normal(shape)``
in a helper, reached through ``vmap(partial(elbo, logprob))(*params)``).

* A draw is never dropped as dead code: ``a = rng.normal(); b = rng.normal()`` with ``a``
  unused gave ``b`` the first call's numbers on main (value and gradient wrong).
* A draw from a generator the call made from a seed (``default_rng(seed)``,
  ``RandomState(seed)``, directly or by a helper returning one) is a constant of the
  function, also through ``f(*xs)`` of a length known only at run time (refused before:
  "it may change what it is given").
* Still refused: a draw whose parameters carry a gradient; a generator passed in through
  ``f(*xs)`` with differentiated values (its state is the caller's).

Against central differences and autograd (the same source with ``autograd.numpy``)."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")
SR = "import numpy as np\nimport functools\n"
AG = "import autograd.numpy as np\nimport functools\n"

FORMS = {
    "a draw unused before a used one": """
def f(mu):
    rng = np.random.default_rng(3)
    a = rng.normal(size=3)
    b = rng.normal(size=3)
    return np.sum(np.sin(mu * b))
""",
    "a helper makes the generator, f(*xs) of a partial": """
def _rng(key):
    return np.random.default_rng([int(k) for k in np.ravel(key)])

def sample(key, mean):
    return mean + np.exp(mean) * _rng(key).standard_normal(mean.shape)

def elbo(scale, key, mean):
    return scale * np.sum(np.tanh(sample(key, mean)))

def mapped(*args):
    return np.stack([functools.partial(elbo, 0.7)(*[args[0][i], args[1]]) for i in range(3)])

def f(mu):
    return np.mean(mapped(np.arange(6).reshape(3, 2), mu))
""",
    "draws in a loop, one branch skipping": """
def f(mu):
    rng = np.random.default_rng(1)
    s = 0.0
    for i in range(3):
        e = rng.normal(size=3)
        u = rng.uniform(-1.0, 1.0, size=3)
        if i != 1:
            s = s + np.sum(np.sin(mu * e) * u)
    return s
""",
    "RandomState made inside, randn": """
def f(mu):
    rs = np.random.RandomState(0)
    rs.rand(2)
    return np.sum(mu ** 2 * rs.randn(3))
""",
}
MU = np.array([0.3, -0.2, 0.5])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("form", list(FORMS) if LONG else list(FORMS)[:1])
def test_draws_from_a_generator_made_here(form, tmp_path):
    m = load_module(tmp_path, SR + FORMS[form])
    value, g = srcad.value_and_grad(m.f)(MU)
    assert value == m.f(MU)  # no draw dropped: the very numbers of the plain call
    np.testing.assert_allclose(g, _fd(m.f, MU), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + FORMS[form])
    np.testing.assert_allclose(g, autograd.grad(a.f)(MU), rtol=1e-10, atol=1e-12)
    if LONG:  # forward mode and second order draw the same numbers
        t = np.array([srcad.jvp(m.f, (MU,), (e,))[1] for e in np.eye(3)])
        np.testing.assert_allclose(t, g, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(srcad.hessian(m.f)(MU), autograd.hessian(a.f)(MU),
                                   rtol=1e-8, atol=1e-10)


REFUSED = {
    "a draw whose mean carries a gradient": ("""
def f(mu):
    rng = np.random.default_rng(0)
    return np.sum(rng.normal(mu, 1.0))
""", r"\.normal\(\)"),
    "a generator passed in, through f(*xs)": ("""
RNG = np.random.default_rng(0)

def g(mu, rng):
    return np.sum(mu * rng.normal(size=3))

def f(mu):
    args = [mu, RNG] if mu.shape[0] > 1 else [mu]
    return g(*args)
""", r"\.normal\(\)|f\(\*xs\)"),
}


@pytest.mark.parametrize("case", list(REFUSED) if LONG else list(REFUSED)[1:2])
def test_draws_that_stay_refused(case, tmp_path):
    text, word = REFUSED[case]
    m = load_module(tmp_path, SR + text)
    with pytest.raises(SrcadError, match=r"(?s)line \d+: .*(" + word + ")"):
        srcad.grad(m.f)(MU)
