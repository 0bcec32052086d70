"""srcad.linearize (JAX's name): ``(f(*primals), f_jvp)`` with ``f_jvp(*tangents)`` the
derivative along the tangents, checked against central differences along the tangent and
against autograd's ``make_jvp``; a family of functions (numbers, vectors, tuples out, ``wrt``)."""

import autograd.numpy as anp
import numpy as np
import pytest
from autograd import make_jvp as autograd_make_jvp

import srcad
from srcad.errors import SrcadError


def one(x, y):
    return np.sin(x) * y + x ** 2


def one_twin(x, y):
    return anp.sin(x) * y + x ** 2


def two(x, y):
    return np.sum(np.exp(x) * y), np.tanh(x)


def two_twin(x, y):
    return anp.sum(anp.exp(x) * y), anp.tanh(x)


def loop(x, y):
    s = x * 0.0
    for k in range(3):
        s = s + np.cos(x * k) * y
    return s


def loop_twin(x, y):
    s = x * 0.0
    for k in range(3):
        s = s + anp.cos(x * k) * y
    return s


FUNCTIONS = [(one, one_twin), (two, two_twin), (loop, loop_twin)]
SHAPES = [(), (3,)]


def _along(f, primals, tangents, h=1e-6):
    up = f(*[p + h * t for p, t in zip(primals, tangents)])
    down = f(*[p - h * t for p, t in zip(primals, tangents)])
    if isinstance(up, tuple):
        return tuple((u - d) / (2 * h) for u, d in zip(up, down))
    return (up - down) / (2 * h)


def _close(a, b, tol=1e-6):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_close(p, q, tol) for p, q in zip(a, b))
    return np.allclose(a, b, rtol=tol, atol=tol)


def _autograd_along(twin, primals, tangents, several):
    """autograd's forward mode along each argument's tangent, summed (each output alone)."""
    outs = range(len(twin(*primals))) if several else [None]
    got = []
    for i in outs:
        part = twin if i is None else (lambda *a, i=i: twin(*a)[i])
        got.append(sum(autograd_make_jvp(part, k)(*primals)(t)[1]
                       for k, t in enumerate(tangents)))
    return tuple(got) if several else got[0]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("pair", FUNCTIONS, ids=lambda p: p[0].__name__)
def test_linearize_against_differences_and_autograd(pair, shape):
    f, twin = pair
    rng = np.random.default_rng(len(shape) + 7 * FUNCTIONS.index(pair))
    x = rng.normal(size=shape) if shape else float(rng.normal())
    y = float(rng.normal())
    value, f_jvp = srcad.linearize(f, x, y)
    assert _close(value, f(x, y), 1e-12)
    for _ in range(2):  # the same f_jvp along two tangents: the code made once, run again
        tx = rng.normal(size=shape) if shape else float(rng.normal())
        ty = float(rng.normal())
        got = f_jvp(tx, ty)
        assert _close(got, _along(f, (x, y), (tx, ty)), 1e-5)
        assert _close(got, _autograd_along(twin, (x, y), (tx, ty), isinstance(got, tuple)))


def test_linearize_wrt_takes_one_tangent_per_argument_named():
    x, y = np.array([0.3, -1.2]), 0.7
    _, f_jvp = srcad.linearize(one, x, y, wrt=("x",))
    t = np.array([1.0, 2.0])
    assert _close(f_jvp(t), _along(lambda a: one(a, y), (x,), (t,)), 1e-5)
    with pytest.raises(SrcadError):
        f_jvp(t, 1.0)


def test_linearize_inside_differentiated_code_is_refused():
    def g(x):
        value, _ = srcad.linearize(np.sin, x)
        return value * 2.0

    with pytest.raises(SrcadError, match="linearize"):
        srcad.grad(g)(0.3)
