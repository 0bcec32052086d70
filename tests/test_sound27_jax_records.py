"""Classes found by JAX's test records (tools/jax_records_suite.py), round 27.

* np.logaddexp / np.logaddexp2 at an infinite argument: the gradient was exp(a - ans) =
  exp(inf - inf) = nan where the limit is 1 (the dominant argument) -- checked here against
  the limit (central differences with the infinity replaced by +-40 and +-80), and at finite
  points against central differences and autograd, in both modes and to second order.
* np.polyval with coefficients of rank > 1 (each p[i] broadcasting with x): crashed in both
  modes -- checked against central differences and autograd for a family of shapes.

Imports: itertools, numpy, pytest, srcad, autograd (optional).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import srcad

try:
    import autograd
    import autograd.numpy as anp
except ImportError:  # pragma: no cover - autograd is a test dependency
    autograd = anp = None

INF = np.inf
LOGS = {"logaddexp": (np.logaddexp, np.exp), "logaddexp2": (np.logaddexp2, np.exp2)}


def two(a, b):
    return np.logaddexp(a, b)


def two2(a, b):
    return np.logaddexp2(a, b)


FUNS = {"logaddexp": two, "logaddexp2": two2}


def central(f, xs, i, h=1e-6):
    up = list(xs)
    down = list(xs)
    up[i] = xs[i] + h
    down[i] = xs[i] - h
    return (f(*up) - f(*down)) / (2 * h)


def limit(f, xs, i):
    """The derivative's limit as each infinite input goes to infinity (one sign each)."""
    found = []
    for big in (40.0, 80.0):
        ys = [np.sign(x) * big if np.isinf(x) else x for x in xs]
        found.append(central(f, ys, i, 1e-5))
    assert found[0] == pytest.approx(found[1], rel=1e-6, abs=1e-9)
    return found[1]


# every pair of an infinity and a finite value, and the two infinities of opposite signs
INF_PAIRS = [(a, b) for a, b in itertools.product([INF, -INF, 0.7, -2.5], repeat=2)
             if (np.isinf(a) or np.isinf(b)) and not (np.isinf(a) and a == b)]


@pytest.mark.parametrize("name", sorted(FUNS))
@pytest.mark.parametrize("a, b", INF_PAIRS)
def test_logaddexp_at_infinity_is_the_limit(name, a, b):
    f = FUNS[name]
    ga, gb = srcad.grad(f, wrt=(0, 1))(a, b)
    assert ga == pytest.approx(limit(f, (a, b), 0), abs=1e-9)
    assert gb == pytest.approx(limit(f, (a, b), 1), abs=1e-9)
    _, tangent = srcad.jvp(f, (a, b), (1.0, 0.0))
    assert tangent == pytest.approx(ga, abs=1e-12)


@pytest.mark.parametrize("name", sorted(FUNS))
def test_logaddexp_same_infinity_has_no_limit(name):
    """logaddexp(inf, inf): the partial derivatives depend on the direction: nan, not a number
    that would be right along one direction only."""
    f = FUNS[name]
    with np.errstate(invalid="ignore"):
        ga, gb = srcad.grad(f, wrt=(0, 1))(INF, INF)
    assert np.isnan(ga) and np.isnan(gb)


def weighted(a, b):
    return np.sum(np.logaddexp(a, b) * np.array([[0.3], [-1.2], [2.0]]))


def weighted2(a, b):
    return np.sum(np.logaddexp2(a, b) * np.array([[0.3], [-1.2], [2.0]]))


@pytest.mark.parametrize("f, af", [(weighted, "logaddexp"), (weighted2, "logaddexp2")])
def test_logaddexp_finite_broadcast_against_autograd(f, af):
    rng = np.random.default_rng(27)
    a = rng.standard_normal((3, 1)) * 3
    b = rng.standard_normal(4) * 3
    ga, gb = srcad.grad(f, wrt=(0, 1))(a, b)
    if autograd is not None:
        w = np.array([[0.3], [-1.2], [2.0]])

        def ref(a, b):
            return anp.sum(getattr(anp, af)(a, b) * w)
        ra, rb = autograd.grad(ref, (0, 1))(a, b)
        np.testing.assert_allclose(ga, ra, rtol=1e-10)
        np.testing.assert_allclose(gb, rb, rtol=1e-10)
    e = np.zeros(4)
    e[2] = 1.0
    fd = (f(a, b + 1e-6 * e) - f(a, b - 1e-6 * e)) / 2e-6
    assert gb[2] == pytest.approx(fd, rel=1e-6)
    v = rng.standard_normal((3, 1))
    hv = srcad.hvp(f, (a, b), v, wrt=0)
    gp = srcad.grad(f, wrt=0)(a + 1e-5 * v, b)
    gm = srcad.grad(f, wrt=0)(a - 1e-5 * v, b)
    np.testing.assert_allclose(hv, (gp - gm) / 2e-5, rtol=1e-5, atol=1e-8)


def poly(p, x, w):
    return np.sum(np.polyval(p, x) * w)


# (coefficients' shape, x's shape): p[i] broadcasting with x in every way
POLY_SHAPES = [((4,), ()), ((4,), (3,)), ((3, 4), (4,)), ((3, 4), (2, 4)), ((3, 1), (1, 4)),
               ((2, 3, 1), (3, 4)), ((1, 4), (2, 4)), ((3, 2, 1), (5,)), ((2, 1), (3, 1))]


def _weights(shape):
    return np.cos(np.arange(1.0, 1.0 + int(np.prod(shape)))).reshape(shape)


@pytest.mark.parametrize("pshape, xshape", POLY_SHAPES)
def test_polyval_coefficient_arrays(pshape, xshape):
    rng = np.random.default_rng(len(pshape) * 10 + len(xshape))
    p = rng.standard_normal(pshape)
    x = rng.standard_normal(xshape) if xshape else 0.7
    w = _weights(np.shape(np.polyval(p, x)))
    gp, gx = srcad.grad(poly, wrt=(0, 1))(p, x, w)
    assert np.shape(gp) == pshape and np.shape(gx) == np.shape(x)
    if autograd is not None:

        def ref(p, x):
            y = anp.zeros(np.shape(np.polyval(p, x)))
            for c in p:  # Horner, as np.polyval computes it
                y = y * x + c
            return anp.sum(y * w)
        rp, rx = autograd.grad(ref, (0, 1))(p, x)
        np.testing.assert_allclose(gp, rp, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(gx, rx, rtol=1e-9, atol=1e-12)
    vp = rng.standard_normal(pshape)
    vx = rng.standard_normal(xshape) if xshape else 1.0
    fd = (poly(p + 1e-6 * vp, x + 1e-6 * vx, w) - poly(p - 1e-6 * vp, x - 1e-6 * vx, w)) / 2e-6
    _, tangent = srcad.jvp(poly, (p, x, w), (vp, vx, np.zeros_like(w)))
    assert tangent == pytest.approx(fd, rel=1e-6, abs=1e-9)
    assert np.sum(gp * vp) + np.sum(gx * vx) == pytest.approx(fd, rel=1e-6, abs=1e-9)
