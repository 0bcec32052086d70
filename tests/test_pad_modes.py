"""``np.pad`` in every mode: exact derivatives where the padding copies or averages elements,
a SrcadError (not another exception) where srcad has none.

A family over modes, pad widths (one number, a pair, per axis) and ranks, each checked against
central finite differences (reverse mode) and by the dot-product test (forward mode)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]
WIDTHS = {1: [2, (1, 3), ((0, 2),)], 2: [1, (2, 1), ((1, 0), (2, 3))]}
CASES = [(mode, ndim, width) for mode, ndim in itertools.product(MODES, (1, 2))
         for width in WIDTHS[ndim]]


def _weights(shape):
    return np.cos(np.arange(np.prod(shape), dtype=float)).reshape(shape)


@pytest.mark.parametrize(("mode", "ndim", "width"), CASES)
def test_pad_gradient_and_tangent(mode, ndim, width):
    rng = np.random.default_rng(len(mode) + ndim)
    x = rng.normal(size=(4,) if ndim == 1 else (3, 4))
    w = _weights(np.pad(x, width, mode=mode).shape)

    def f(x):
        return np.sum(np.pad(x, width, mode=mode) * w)

    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    u = rng.normal(size=x.shape)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-10)


@pytest.mark.parametrize("mode", ["maximum", "minimum", "median", "linear_ramp"])
def test_pad_modes_without_a_derivative_are_refused(mode):
    def f(x):
        return np.sum(np.pad(x, 2, mode=mode) ** 2)

    with pytest.raises(srcad.SrcadError, match="np.pad"):
        srcad.grad(f)(np.arange(1.0, 5.0))


def test_matrix_norm_order_without_a_derivative_is_refused():
    def f(a):
        return np.linalg.norm(a, ord=3)

    with pytest.raises((srcad.SrcadError, ValueError)):  # NumPy refuses ord=3 for matrices
        srcad.grad(f)(np.eye(3) + 1.0)


@pytest.mark.parametrize(("mode", "ndim", "width"), CASES)
def test_pad_second_derivative(mode, ndim, width):
    """The Hessian (reverse over reverse, and forward over reverse) of a cubic of the padded
    array against finite differences of srcad's gradient."""
    rng = np.random.default_rng(7 + len(mode))
    x = rng.normal(size=(4,) if ndim == 1 else (2, 3))
    w = _weights(np.pad(x, width, mode=mode).shape)

    def f(x):
        return np.sum(np.pad(x, width, mode=mode) ** 3 * w)

    grad = srcad.grad(f)
    u = rng.normal(size=x.shape)
    eps = 1e-6
    want = (grad(x + eps * u) - grad(x - eps * u)) / (2 * eps)
    np.testing.assert_allclose(srcad.hvp(f, (x,), u), want, rtol=1e-5, atol=1e-6)
    def directional(x):  # reverse over reverse: the gradient of <grad f(x), u>
        return np.sum(grad(x) * u)

    np.testing.assert_allclose(srcad.grad(directional)(x), want, rtol=1e-5, atol=1e-6)
    hess = srcad.hessian(f)(x)
    np.testing.assert_allclose(np.tensordot(hess, u, axes=u.ndim), want, rtol=1e-5, atol=1e-6)
