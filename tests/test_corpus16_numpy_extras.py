"""autograd.numpy's functions beyond NumPy's (round 16): ``srcad.misc.numpy_extras``.

rgiordan/paragami and LinearResponseVariationalBayes.py call ``np.make_diagonal`` with
``import autograd.numpy as np``: NumPy has no such function, so with srcad in autograd's place
those programs stopped with an AttributeError. srcad now gives ``make_diagonal`` (``D`` on the
diagonal of the last two axes of a new array; only ``offset=0, axis1=-1, axis2=-2``, as
autograd takes it) with rules (its gradient ``np.diagonal(g, 0, -1, -2)``, its tangent
itself), ``concatenate_args`` and ``metadata``; ``tools/example_shim.py`` adds them to the
``autograd.numpy`` it gives a program.

The family: ``make_diagonal`` of vectors, matrices and a 3-D array, inside expressions,
against finite differences and autograd's own ``make_diagonal``; value_and_grad; jvp;
Hessians in both modes; ``concatenate_args`` likewise; the placements autograd refuses.
"""

from __future__ import annotations

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.misc.numpy_extras import concatenate_args, make_diagonal, metadata

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def _loss(xp, diag):
    def loss(x):
        M = diag(xp.tanh(x) * x, axis1=-1, axis2=-2)
        weights = np.arange(1.0, 1.0 + M.size).reshape(M.shape) / M.size
        return xp.sum(xp.sin(M + 0.3) * weights) + xp.sum(M ** 2)
    return loss


def _inverse_loss(xp, diag):
    def loss(x):  # a covariance built from its diagonal, as paragami's patterns do
        d = xp.exp(x)
        S = diag(d, axis1=-1, axis2=-2) + 0.1
        return xp.sum(xp.linalg.solve(S, xp.ones(x.shape[-1])))
    return loss


SHAPES = {"vector": (3,), "matrix": (2, 3), "three_d": (2, 1, 3)}
LOSSES = {"elementwise": _loss, "solve": _inverse_loss}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_make_diagonal(shape, loss):
    if loss == "solve" and shape != "vector":
        pytest.skip("one matrix")
    f = LOSSES[loss](np, make_diagonal)
    ref = LOSSES[loss](anp, anp.make_diagonal)
    x = np.linspace(-0.8, 0.9, int(np.prod(SHAPES[shape]))).reshape(SHAPES[shape])
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(ref)(x), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(ref(x), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    t = np.cos(np.arange(x.size)).reshape(x.shape)
    assert srcad.jvp(f, (x,), (t,))[1] == pytest.approx(float(np.sum(g * t)), rel=1e-9)
    expected = autograd.hessian(ref)(x)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), expected, rtol=1e-8,
                                   atol=1e-10)


def test_make_diagonal_values():
    D = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(make_diagonal(D, axis1=-1, axis2=-2),
                                  anp.make_diagonal(D, axis1=-1, axis2=-2))
    assert make_diagonal(np.array([1, 2]), 0, -1, -2).dtype == np.float64


@pytest.mark.parametrize("placement", [{}, {"offset": 1, "axis1": -1, "axis2": -2},
                                       {"axis1": 0, "axis2": 1}])
def test_other_placements_raise_as_autograds_does(placement):
    with pytest.raises(NotImplementedError, match="offset=0, axis1=-1, axis2=-2"):
        make_diagonal(np.ones(3), **placement)
    with pytest.raises(NotImplementedError):
        anp.make_diagonal(np.ones(3), **placement)


def test_concatenate_args_and_metadata():
    def f(a, b):
        joined = concatenate_args(0, a, b * 2.0, a * b)
        assert metadata(joined)[:2] == ((6,), 1)
        return np.sum(joined ** 3)

    def ref(a, b):
        return anp.sum(anp.concatenate_args(0, a, b * 2.0, a * b) ** 3)

    a, b = np.array([0.5, -1.0]), np.array([0.25, 1.5])
    g = srcad.grad(f, wrt=(0, 1))(a, b)
    for i in range(2):
        np.testing.assert_allclose(g[i], autograd.grad(ref, i)(a, b), rtol=1e-12)
        np.testing.assert_allclose(g[i], numerical_grad(f, (a, b), i), rtol=1e-6)
    expected = autograd.hessian(ref)(a, b)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(a, b), expected, rtol=1e-10)
    assert metadata(np.ones((2, 2), complex)) == ((2, 2), 2, np.dtype(complex), True)
