"""The Numba backend on reductions along an axis (``np.sum``, ``np.max``, ``np.min``,
``np.amax`` with ``axis=`` and ``keepdims=``), new axes (``x[:, None]``), broadcasting, ``.T``,
``np.einsum`` and ``math.lgamma``: each gradient compared with the Python backend (to 1e-12)
and with central finite differences (``srcad.tools.check``), and the value with the
function's own; ties, and lgamma's poles. Skipped where numba is not installed. Few functions,
each holding several cases: Numba's compile time (a few seconds a function) is what these
tests cost."""

from __future__ import annotations

import math

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend
from srcad.tools.check import numerical_grad

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

def _reductions(x, w):
    r = np.amax(x * w, axis=-1)  # a new axis put back, and its gradient scattered at None
    d = x - r[:, None]
    centred = x - np.sum(x * x, axis=0, keepdims=True)
    count = np.sum(x > 0.5, axis=1)  # a sum of bools: an int64 array, as NumPy's
    return np.sum(d * centred * w) * count[1] + np.sum(r * r) + np.min(x)


def _einsum(a, b):
    e = np.einsum("ijk,mik->mij", a, b)  # gmm's
    return np.sum(e * e) + np.sum(a[0].T * a[1])


def _check(f, args):
    wrt = tuple(range(len(args)))
    value, grads = srcad.value_and_grad(f, wrt=wrt, backend="numba")(*args)
    ref = srcad.grad(f, wrt=wrt)(*args)
    assert math.isclose(value, f(*args), rel_tol=1e-13, abs_tol=1e-13)
    for got, want, fd in zip(grads, ref, numerical_grad(f, args, wrt=wrt)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6)


@needs_numba
@pytest.mark.parametrize("f,shapes", [(_reductions, ((3, 4), (3, 4))),
                                      (_einsum, ((2, 3, 3), (4, 2, 3)))])
def test_reductions_new_axes_and_einsum(f, shapes):
    rng = np.random.default_rng(len(shapes[0]))
    _check(f, tuple(rng.normal(size=s) for s in shapes))


@needs_numba
def test_ties_share_the_gradient_as_the_python_backend():
    x = np.array([[1.0, 2.0, 2.0], [1.0, 0.5, 1.0], [0.0, -1.0, -1.0]])  # ties in each row,
    w = np.ones((3, 3))  # and of the smallest
    got = srcad.grad(_reductions, wrt=(0, 1), backend="numba")(x, w)
    for g, want in zip(got, srcad.grad(_reductions, wrt=(0, 1))(x, w)):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


def _lgamma(x, c):
    return math.lgamma(c) * x  # lgamma of a value not differentiated (gmm's prior)


@needs_numba
def test_lgamma_at_a_pole_raises_as_python():
    g = srcad.grad(_lgamma, backend="numba")
    assert math.isclose(g(1.5, 2.5), srcad.grad(_lgamma)(1.5, 2.5), rel_tol=1e-13)
    for c in (0.0, -2.0):
        with pytest.raises(ValueError):
            g(1.5, c)
