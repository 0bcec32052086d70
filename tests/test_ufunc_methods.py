"""``np.subtract.outer(x, y)``, ``np.logaddexp.reduce(a)``, ``np.hypot.accumulate(a)``: the
methods of NumPy's two-input ufuncs that have no rule of their own.

``np.exp(-np.subtract.outer(x, y) ** 2)`` (a kernel's distances, common in Gaussian-process
code) was refused, "no derivative rule for np.subtract.outer"; so were ``outer`` of every
ufunc, and ``reduce``/``accumulate`` of those other than add, multiply, maximum, minimum
(which keep their rules). srcad now reads them as Python (:mod:`srcad.frontend.builtin_code`):
``outer`` is the ufunc of ``a`` given ``b``'s axes and ``b``, ``reduce`` and ``accumulate``
apply the ufunc in turn along the axis, as NumPy does, so the ufunc's own rule
differentiates them.

A generated family: ufuncs x methods x shapes and axes, against central finite differences
and autograd on the same computation written out with broadcasting and loops (autograd's
NumPy has no ufunc methods), value_and_grad, jvp, and Hessians in both modes on a sample;
the values against NumPy's own methods.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

UFUNCS = ["subtract", "add", "multiply", "divide", "power", "maximum", "minimum", "hypot",
          "arctan2", "logaddexp", "logaddexp2"]
X = np.array([[0.3, 1.2, 0.7], [0.9, 0.4, 1.5]])


def _method(kind, name, axis):
    """The function of one array differentiated (NumPy's method) and its autograd twin."""
    uf, au = getattr(np, name), getattr(anp, name)

    def pos(x):  # positive inputs (power, divide), distinct values (maximum, minimum)
        return x * x + np.arange(1.0, 1.0 + x.size).reshape(x.shape) * 0.37

    if kind == "outer":
        def f(x):
            return np.sum(np.sin(uf.outer(pos(x)[0], pos(x)[1, :2])))

        def fa(x):
            p = x * x + anp.arange(1.0, 1.0 + x.size).reshape(x.shape) * 0.37
            return anp.sum(anp.sin(au(anp.reshape(p[0], (3, 1)), p[1, :2])))
    elif kind == "reduce":
        def f(x):
            return np.sum(np.sin(uf.reduce(pos(x), axis=axis)))

        def fa(x):
            p = x * x + anp.arange(1.0, 1.0 + x.size).reshape(x.shape) * 0.37
            a = anp.ravel(p) if axis is None else anp.moveaxis(p, axis, 0)
            value = a[0]
            for i in range(1, len(a)):
                value = au(value, a[i])
            return anp.sum(anp.sin(value))
    else:
        def f(x):
            return np.sum(np.sin(uf.accumulate(pos(x), axis=axis)) * np.arange(x.size).reshape(
                x.shape))

        def fa(x):
            p = x * x + anp.arange(1.0, 1.0 + x.size).reshape(x.shape) * 0.37
            a = anp.moveaxis(p, axis, 0)
            values = [a[0]]
            for i in range(1, len(a)):
                values.append(au(values[-1], a[i]))
            acc = anp.moveaxis(anp.stack(values), 0, axis)
            return anp.sum(anp.sin(acc) * anp.arange(x.size).reshape(x.shape))
    return f, fa


#: the ufuncs whose reduce and accumulate srcad reads as Python (add, multiply, maximum,
#: minimum have rules of their own; the others are refused: see test_other_reductions...)
FOLDED = ["logaddexp", "logaddexp2", "hypot", "fmax", "fmin"]


def _cases():
    for name in UFUNCS + ["fmax", "fmin"]:
        yield "outer", name, None
        if name in FOLDED:
            for axis in (0, 1, None):
                yield "reduce", name, axis
            for axis in (0, 1):
                yield "accumulate", name, axis


@pytest.mark.parametrize("kind,name,axis", list(_cases()))
def test_ufunc_methods_read_as_python(kind, name, axis):
    f, fa = _method(kind, name, axis)
    np.testing.assert_allclose(f(X), fa(X), rtol=1e-12)  # the twin computes NumPy's value
    g = srcad.grad(f)(X)
    np.testing.assert_allclose(g, numerical_grad(f, (X,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(X), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(X)
    assert value == pytest.approx(f(X), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.linspace(-0.5, 0.6, X.size).reshape(X.shape)
    _, tangent = srcad.jvp(f, (X,), (t,))
    assert tangent == pytest.approx(float(np.sum(g * t)), rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("kind,name,axis", [("outer", "subtract", None),
                                            ("reduce", "logaddexp", 1),
                                            ("accumulate", "hypot", 0),
                                            ("reduce", "logaddexp2", None),
                                            ("outer", "power", None)])
def test_hessians_through_ufunc_methods(kind, name, axis):
    f, fa = _method(kind, name, axis)
    x = X[:, :2].copy() if kind != "outer" else X
    want = autograd.hessian(fa)(x) if kind != "outer" else autograd.hessian(fa)(X)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-7,
                                   atol=1e-9)


def test_a_kernel_matrix_by_subtract_outer():
    """A squared-exponential kernel's log-likelihood term, as GP code writes it."""
    y = np.array([0.1, -0.4, 0.8])

    def nll(x, ell):
        d = np.subtract.outer(x, x)
        K = np.exp(-0.5 * d ** 2 / ell ** 2) + 0.1 * np.eye(len(x))
        return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * np.linalg.slogdet(K)[1]

    def nll_a(x, ell):
        d = anp.reshape(x, (3, 1)) - x
        K = anp.exp(-0.5 * d ** 2 / ell ** 2) + 0.1 * anp.eye(len(x))
        return 0.5 * anp.dot(y, anp.linalg.solve(K, y)) + 0.5 * anp.linalg.slogdet(K)[1]

    x0, ell = np.array([0.0, 0.5, 1.3]), 0.8
    got = srcad.grad(nll, wrt=(0, 1))(x0, ell)
    want = autograd.grad(nll_a, (0, 1))(x0, ell)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    assert got[1] == pytest.approx(want[1], rel=1e-10)


@pytest.mark.parametrize("name", ["power", "arctan2", "subtract", "divide"])
def test_other_reductions_are_refused(name):
    """NumPy 2's ``power.reduce`` is not the left fold along the axis (``np.power.reduce(
    [0.46, 2.18, 1.6])`` is ``0.46 ** 1.6``): a loop would differentiate another function.
    Those reductions keep no rule: refused at the line."""
    uf = getattr(np, name)

    def f(x):
        return np.sum(uf.reduce(x * x + 1.0))

    with pytest.raises(srcad.errors.MissingRuleError) as err:
        srcad.grad(f)(X[0])
    assert "no derivative rule for uf.reduce" in str(err.value)  # as written
