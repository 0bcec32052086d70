"""``np.fill_diagonal(y, v)`` on a local array: lowered to ``y[i, i] = v``.

It was refused as a write in place ("index the diagonal"). :mod:`srcad.frontend.writes` now
lowers it to an item write at the positions NumPy writes (``wrap=False``:
``i = arange(min(y.shape))``), which srcad differentiates like ``y[i, i] = v`` written by hand
(and checks like any write: into an argument or a view it is refused). A ``v`` NumPy would
repeat along the diagonal is refused when the code runs. A generated family against central
finite differences and autograd (on the same matrix built with ``np.where`` of the diagonal
mask), with jvp and Hessians in both modes.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

#: (shape, the value written: an expression of w, 3 numbers; the same for autograd)
SHAPES = [(3, 3), (4, 3), (3, 5), (2, 2, 2)]
VALUES = {"vector": "w[:{n}]", "scalar": "w[0] * w[1]", "number": "0.25"}
#: the matrix before the write
STARTS = {"zeros": "np.zeros({s})", "outer": "np.ones({s}) * w[2]"}


def _functions(tmp_path, shape, value, start):
    n = min(shape)
    v = VALUES[value].format(n=n)
    base = STARTS[start].format(s=shape)
    weights = f"np.arange(1.0, {1 + int(np.prod(shape))}.0).reshape({shape}) / 7.0"
    text = (f"def f(w):\n    y = {base}\n    np.fill_diagonal(y, {v})\n"
            f"    return np.sum(np.sin(y) * {weights}) + np.sum(y ** 2)\n")
    f = load(tmp_path, f"fd_{len(shape)}_{shape[-1]}_{value}_{start}", text, modules=(np,))
    mask = np.zeros(shape, dtype=bool)
    mask[(np.arange(n),) * len(shape)] = True
    corners = [np.where(np.arange(mask.size).reshape(shape) == np.ravel_multi_index(
        (k,) * len(shape), shape), 1.0, 0.0) for k in range(n)]
    w_values = eval(f"lambda w: {v}", {"np": anp})  # noqa: S307
    w_base = eval(f"lambda w: {base}", {"np": anp})  # noqa: S307
    scale = eval(weights, {"np": np})  # noqa: S307

    def fa(w):  # the same matrix, built with the diagonal's mask
        y, val = w_base(w), w_values(w)
        if anp.ndim(val) == 1:  # the values along the diagonal, in order
            full = sum(c * val[k] for k, c in enumerate(corners))
        else:
            full = mask * val
        y = anp.where(mask, full, y)
        return anp.sum(anp.sin(y) * scale) + anp.sum(y ** 2)

    return f, fa


W = np.array([0.7, -1.2, 0.4, 0.9])


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("start", STARTS)
def test_fill_diagonal_on_a_local_array(tmp_path, shape, value, start):
    if value == "vector" and min(shape) > 3:
        pytest.skip("three values")
    f, fa = _functions(tmp_path, shape, value, start)
    assert f(W) == pytest.approx(fa(W), rel=1e-12)
    g = srcad.grad(f)(W)
    np.testing.assert_allclose(g, numerical_grad(f, (W,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(W), rtol=1e-10, atol=1e-12)
    t = np.array([0.3, 0.1, -0.5, 0.2])
    _, tangent = srcad.jvp(f, (W,), (t,))
    assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)
    if shape == (3, 3):
        want = autograd.hessian(fa)(W)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(W), want, rtol=1e-8,
                                       atol=1e-10)


def short_values(w):
    y = np.zeros((3, 3))
    np.fill_diagonal(y, w[:2])
    return np.sum(y)


def into_argument(w, y):
    np.fill_diagonal(y, w[0])  # refused
    return np.sum(y * w[1])


def test_values_numpy_would_repeat_are_refused_when_the_code_runs():
    with pytest.raises(SrcadError) as err:
        srcad.grad(short_values)(W)
    assert "NumPy repeats them" in str(err.value)
    assert "np.resize" in err.value.hint


def test_fill_diagonal_into_an_argument_is_differentiated():
    """(state36) the caller's y filled as the plain run fills it; the gradient by central
    differences on copies."""
    y, plain = np.zeros((2, 2)), np.zeros((2, 2))
    g = srcad.grad(into_argument)(W, y)
    into_argument(W, plain)
    np.testing.assert_array_equal(y, plain)
    want = [(into_argument(W + e, np.zeros((2, 2))) - into_argument(W - e, np.zeros((2, 2))))
            / 2e-6 for e in np.eye(W.size).reshape((W.size,) + W.shape) * 1e-6]
    np.testing.assert_allclose(g, np.reshape(want, W.shape), rtol=1e-6, atol=1e-6)
