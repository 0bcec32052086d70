"""``np.apply_along_axis(f, axis, a)`` of differentiated values.

It was refused ("no derivative rule for np.apply_along_axis"). srcad now reads it as Python
(:mod:`srcad.frontend.builtin_code`): ``f`` of each 1-D slice along the axis, the results
stacked with their own axes where the axis was, NumPy's layout, so ``f`` (a lambda, a function
of yours, a NumPy function) is differentiated like any callee.

A generated family: slice functions (element-wise, a reduction to a number, one making a
matrix, a function of yours, a lambda reading a value of the function) x axes x ranks, the
value against NumPy's own, the gradient against central finite differences and autograd on
the same computation written as a loop over the slices, with jvp and Hessians in both modes
on a sample.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import sample_by
from srcad.check import numerical_grad

import srcad

#: the slice function (``r`` the slice; ``c`` a number the function computed)
SLICES = {
    "elementwise": "lambda r: r ** 2 * r[0]",
    "reduction": "lambda r: np.sum(np.sin(r) * r)",
    "matrix": "lambda r: np.outer(r, r[:2])",
    "yours": "scaled",
    "closure": "lambda r: np.tanh(c * r)",
    "numpy": "np.cumsum",
}
SHAPES = {"2d": (2, 3), "3d": (2, 3, 2)}
TEXT = """
def scaled(r):
    return np.exp(0.3 * r) / len(r)


def f(x):
    c = np.sum(x) * 0.1
    out = np.apply_along_axis({fn}, {axis}, x)
    return np.sum(np.sin(out) * np.arange(out.size).reshape(out.shape))
"""
LOOPED = """
def scaled(r):
    return np.exp(0.3 * r) / len(r)


def f(x):
    c = np.sum(x) * 0.1
    fn = {fn}
    a = np.moveaxis(x, {axis}, -1)
    outs = [fn(a[at]) for at in np.ndindex(*a.shape[:-1])]
    res = np.reshape(np.stack(outs), a.shape[:-1] + np.shape(outs[0]))
    k = np.ndim(outs[0])
    axis = {axis} % x.ndim
    out = np.moveaxis(res, list(range(res.ndim - k, res.ndim)), list(range(axis, axis + k)))
    return np.sum(np.sin(out) * np.arange(out.size).reshape(out.shape))
"""


def _cases():
    for name in SLICES:
        for rank in SHAPES:
            for axis in (0, 1, -1):
                yield name, rank, axis


@pytest.mark.parametrize("name,rank,axis", sample_by(list(_cases()), lambda c: c[0], 2))
def test_apply_along_axis(tmp_path, name, rank, axis):
    shape = SHAPES[rank]
    x = np.linspace(-0.8, 1.1, int(np.prod(shape))).reshape(shape)
    stem = f"aaa_{name}_{rank}_{axis + 1}"
    f = load(tmp_path, stem, TEXT.format(fn=SLICES[name], axis=axis), modules=(np,))
    fa = load(tmp_path, stem + "_loop", LOOPED.format(fn=SLICES[name], axis=axis),
              modules=(anp,))
    assert f(x) == pytest.approx(fa(x), rel=1e-12)  # the loop computes NumPy's value
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    t = np.cos(np.arange(x.size)).reshape(shape)
    _, tangent = srcad.jvp(f, (x,), (t,))
    assert tangent == pytest.approx(float(np.sum(g * t)), rel=1e-8, abs=1e-10)
    if rank == "2d" and axis == 1:
        want = autograd.hessian(fa)(x)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-7,
                                       atol=1e-9)
