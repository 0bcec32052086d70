"""``srcad.jvp(f, primals, tangents)`` inside differentiated code with the primals or tangents a
name holding a tuple made elsewhere (issue 16, outside28; JAX's "Jacobian-vector products"
page: ``hvp = jvp(grad(f), primals, tangents)[1]``, and ``hvp_revfwd``'s
``lambda primals: jvp(f, primals, tangents)[1]`` under ``grad``). Refused before ("the
primals and tangents tuples written in the call"). The items are read by position when ``f``
fixes its argument count, after a run-time check of the length (a wrong length is refused
where Python raises, also in code differentiated again).

Against central differences and autograd (its ``make_jvp`` of ``grad``)."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")
SR = "import numpy as np\nfrom srcad import grad, jvp\n"
AG = """import autograd.numpy as np
from autograd import grad
from autograd.differential_operators import make_jvp

def jvp(f, primals, tangents):  # one argument at a time, the tangents summed
    primals, out = tuple(primals), 0.0
    for i in range(len(primals)):
        def fi(a, i=i):
            return f(*primals[:i], a, *primals[i + 1:])
        value, t = make_jvp(fi)(primals[i])(tangents[i])
        out = out + t
    return value, out
"""
BODY = """
V = np.array([0.3, -0.1, 0.7])
C = np.array([1.0, 2.0, -0.5])

def curved(x):
    return np.sum(np.tanh(x) ** 2 * x[0])
"""
FORMS = {  # each f(x) a number
    "forward over reverse: jvp(grad(f), primals, tangents)": """
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]

def f(x):
    return np.dot(hvp(curved, (x,), (V,)), C)
""",
    "reverse over forward: grad(lambda primals: jvp(f, primals, tangents)[1])": """
def hvp_revfwd(f, primals, tangents):
    g = lambda primals: jvp(f, primals, tangents)[1]
    return grad(g)(primals)

def f(x):
    return np.dot(hvp_revfwd(curved, (x,), (V,))[0], C)
""",
    "two primals, a list, the tangents a name": """
def both(a, b):
    return np.sum(np.sin(a) * b)

def push(f, primals, tangents):
    return jvp(f, primals, tangents)[1]

def f(x):
    t = (V, x)
    return push(both, [x, x ** 2], t) * 2.0
""",
}
X = np.array([0.2, -0.4, 0.9])


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("form", list(FORMS) if LONG else list(FORMS)[2:])
def test_jvp_of_tuples_made_elsewhere(form, tmp_path):
    m = load_module(tmp_path, SR + BODY + FORMS[form])
    g = srcad.grad(m.f)(X)
    np.testing.assert_allclose(g, _fd(m.f, X), rtol=1e-6, atol=1e-8)
    if "lambda" not in form:  # (autograd's grad of a tuple argument is a tuple too)
        a = load_module(tmp_path, AG + BODY + FORMS[form])
        np.testing.assert_allclose(g, autograd.grad(a.f)(X), rtol=1e-9, atol=1e-11)
    if LONG:
        t = np.array([srcad.jvp(m.f, (X,), (e,))[1] for e in np.eye(3)])
        np.testing.assert_allclose(t, g, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("order", [1, 2] if LONG else [1])
def test_a_wrong_length_is_refused(order, tmp_path):
    m = load_module(tmp_path, SR + BODY + """
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]

def f(x):
    return np.dot(hvp(curved, (x, x), (V,)), C)
""")
    fn = srcad.grad(m.f) if order == 1 else srcad.grad(lambda x: np.sum(srcad.grad(m.f)(x)))
    with pytest.raises(SrcadError, match=r"line \d+: jvp given 2 primals where the function "
                       "takes 1"):
        fn(X)
