"""The rules of srcad/rules/numpy_more.py over families of shapes, axes and modes: srcad's
gradient against central finite differences, forward mode against the same, the Hessian
(forward over reverse, every argument) against finite differences of srcad's gradient, and,
where PyTorch has the same function, against PyTorch's gradient. Refusals are checked too.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

NAN = np.array([[False, True, False, False], [False, False, False, False],
                [True, False, False, True]])  # where the nan* families put a NaN


def _grads(f, args):
    return tuple(np.asarray(numerical_grad(f, args, k)) for k in range(len(args)))


def _check(f, args, torch_f=None):
    wrt = tuple(range(len(args)))
    got = srcad.grad(f, wrt=wrt)(*args)
    want = _grads(f, args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    rng = np.random.default_rng(1)
    u = tuple(rng.normal(size=np.shape(a)) for a in args)
    _, tangent = srcad.jvp(f, args, u)
    assert tangent == pytest.approx(sum(float(np.sum(g * d)) for g, d in zip(want, u)),
                                    rel=1e-5, abs=1e-6)
    # second order, every argument: hvp against differences of srcad's own gradient
    grad = srcad.grad(f, wrt=wrt)
    w = tuple(rng.normal(size=np.shape(a)) for a in args)

    def along(s):
        shifted = tuple(a + s * d for a, d in zip(args, u))
        return sum(float(np.sum(g * v)) for g, v in zip(grad(*shifted), w))

    _, hv = srcad.jvp(grad, args, u)  # forward over reverse
    assert sum(float(np.sum(h * v)) for h, v in zip(hv, w)) == pytest.approx(
        numerical_grad(along, (0.0,), 0), rel=1e-5, abs=1e-6)
    if torch_f is not None and torch is not None:
        targs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
        torch_f(*targs).backward()
        for g, t in zip(got, targs):
            np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-9, atol=1e-12)


def _arr(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


# ---------------------------------------------------------------- taking
@pytest.mark.parametrize(("indices", "axis"), [([0, 2, 2], 1), ([[1, 0], [1, 1]], 0),
                                               ([5, 0, 5, 11], None), (2, 1), ([-1], 0)])
def test_take(indices, axis):
    def f(a):
        return np.sum(np.sin(np.take(a, indices, axis=axis)))

    _check(f, (_arr(3, 4),))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis_of_a_sort_order(axis):
    a0 = _arr(3, 4, seed=2)

    def f(a):
        order = np.argsort(a, axis=axis)
        return np.sum(np.take_along_axis(a, order, axis) * np.arange(order.shape[-1]))

    tf = None
    if axis is not None:
        def tf(a):
            order = torch.argsort(a, dim=axis)
            return torch.sum(torch.take_along_dim(a, order, axis) *
                             torch.arange(order.shape[-1]))
    _check(f, (a0,), tf)


# ---------------------------------------------------------------- reductions
@pytest.mark.parametrize(("axis", "keepdims"), [(None, False), (0, False), (1, True),
                                                ((0, 1), False)])
def test_ptp(axis, keepdims):
    def f(a):
        return np.sum(np.sin(np.ptp(a, axis=axis, keepdims=keepdims)))

    _check(f, (_arr(3, 4),))


@pytest.mark.parametrize(("axis", "wshape"), [(None, None), (0, None), (1, (4,)), (0, (3,)),
                                              (None, (3, 4)), (1, (3, 4))])
def test_average(axis, wshape):
    a0 = _arr(3, 4)
    if wshape is None:
        def f(a):
            return np.sum(np.sin(np.average(a, axis=axis)))

        _check(f, (a0,))
        return

    def g(a, w):
        return np.sum(np.sin(np.average(a, axis=axis, weights=w)))

    _check(g, (a0, _arr(*wshape, low=0.5, high=2.0)))


QUANTILES = [("median", None, None), ("median", 0, None), ("median", 1, None),
             ("quantile", None, 0.3), ("quantile", 1, [0.0, 0.25, 1.0]),
             ("quantile", 0, np.array([[0.1], [0.9]])), ("percentile", 1, 62.5),
             ("percentile", None, [10.0, 50.0])]


@pytest.mark.parametrize(("name", "axis", "q"), QUANTILES)
@pytest.mark.parametrize("shape", [(5, 4), (4, 5)])
def test_quantiles(name, axis, q, shape):
    a0 = _arr(*shape, seed=3)
    fn = getattr(np, name)

    if q is None:
        def f(a):
            return np.sum(np.sin(fn(a, axis=axis)))
    else:
        def f(a):
            return np.sum(np.sin(fn(a, q, axis=axis)))

    tf = None
    if name != "percentile" and np.ndim(q) < 2:
        qq = 0.5 if q is None else q

        def tf(a):
            return torch.sum(torch.sin(torch.quantile(
                a, torch.tensor(qq, dtype=torch.float64), dim=axis)))
    _check(f, (a0,), tf)


def test_quantile_keepdims_and_a_tie_goes_to_one_element():
    def f(a):
        return np.sum(np.sin(np.median(a, axis=1, keepdims=True)))

    _check(f, (_arr(3, 5),))
    a = np.array([1.0, 2.0, 2.0, 3.0, 5.0])
    g = srcad.grad(lambda x: np.median(x))(a)
    assert g.sum() == pytest.approx(1.0) and np.count_nonzero(g) == 1


NAN_FUNCS = ["nansum", "nanmean", "nanprod", "nanmax", "nanmin", "nanvar", "nanstd"]


@pytest.mark.parametrize("name", NAN_FUNCS)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions(name, axis):
    fn = getattr(np, name)

    def f(a):
        return np.sum(np.sin(fn(np.where(NAN, np.nan, a), axis=axis)))

    a0 = _arr(3, 4, seed=4)
    _check(f, (a0,))
    grad = srcad.grad(f)(a0)
    assert np.all(grad[NAN] == 0.0) and np.all(np.isfinite(grad))
    tf = None
    if name in ("nansum", "nanmean"):
        def tf(a):
            masked = torch.where(torch.tensor(NAN), torch.nan, a)
            return torch.sum(torch.sin(getattr(torch, name)(masked, dim=axis)))
        _check(f, (a0,), tf)


@pytest.mark.parametrize("ddof", [0, 1])
def test_nanvar_nanstd_ddof(ddof):
    def f(a):
        b = np.where(NAN, np.nan, a)
        return np.sum(np.nanvar(b, axis=1, ddof=ddof) + np.nanstd(b, axis=1, ddof=ddof))

    _check(f, (_arr(3, 4, seed=5),))


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_running(name, axis):
    fn = getattr(np, name)

    def f(a):
        return np.sum(np.sin(fn(np.where(NAN, np.nan, a), axis=axis)))

    _check(f, (_arr(3, 4, seed=6),))


# ---------------------------------------------------------------- np.interp
XP = [-1.0, -0.3, 0.2, 0.5, 1.0]


@pytest.mark.parametrize("bounds", [None, "left", "both"])
def test_interp_in_x_fp_left_right(bounds):
    x0 = np.linspace(-1.6, 1.7, 9)  # inside and outside xp, never on a knot

    def f(x, fp, lo, hi):
        if bounds is None:
            y = np.interp(x, XP, fp)
        elif bounds == "left":
            y = np.interp(x, XP, fp, left=lo)
        else:
            y = np.interp(x, XP, fp, lo, hi * fp[2])
        return np.sum(np.sin(y * fp[1]))

    _check(f, (x0, _arr(5, seed=7), 0.3, 1.2))


def test_interp_refuses_a_gradient_into_xp():
    def f(xp):
        return np.sum(np.interp(np.array([0.1, 0.4]), xp, np.array([1.0, 2.0, 0.0])))

    with pytest.raises(srcad.SrcadError, match="xp"):
        srcad.grad(f)(np.array([0.0, 0.5, 1.0]))


# ---------------------------------------------------------------- convolution
@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", [None, "full", "same", "valid"])
@pytest.mark.parametrize(("n", "m"), [(5, 3), (3, 5), (4, 4), (2, 5), (6, 1)])
def test_convolve_correlate(name, mode, n, m):
    fn = getattr(np, name)

    def f(a, v):
        y = fn(a, v) if mode is None else fn(a, v, mode)
        return np.sum(np.sin(y))

    _check(f, (_arr(n, seed=8), _arr(m, seed=9)))


# ---------------------------------------------------------------- element-wise, shapes
def test_copysign_ldexp_diagflat_dstack_ediff1d():
    b0 = np.array([-1.0, 2.0, -0.5, 3.0])

    def f(a):
        return np.sum(np.sin(np.copysign(a, b0) * np.ldexp(a, np.array([1, 0, -1, 2]))))

    _check(f, (_arr(3, 4),), lambda a: torch.sum(torch.sin(
        torch.copysign(a, torch.tensor(b0)) * a * torch.tensor([2.0, 1.0, 0.5, 4.0],
                                                               dtype=torch.float64))))

    for k, n in ((-2, 14.0), (0, 12.0), (1, 13.0)):
        def d(a, k=k, n=n):
            return np.sum(np.sin(np.diagflat(a, k) @ np.arange(n)))

        _check(d, (_arr(3, 4),))

    def s(a, b):
        return np.sum(np.sin(np.dstack([a, b, a[:, :, None] * b[:, :, None]])))

    _check(s, (_arr(3, 4), _arr(3, 4, seed=1)), lambda a, b: torch.sum(torch.sin(
        torch.dstack([a, b, a[:, :, None] * b[:, :, None]]))))

    def e(a):
        return np.sum(np.sin(np.ediff1d(a)))

    _check(e, (_arr(3, 4),), lambda a: torch.sum(torch.sin(torch.diff(a.reshape(-1)))))


# ---------------------------------------------------------------- ufunc methods
UFUNCS = ["add", "multiply", "maximum", "minimum"]


@pytest.mark.parametrize(("name", "axis"), list(itertools.product(UFUNCS, [0, 1, None])))
def test_ufunc_reduce(name, axis):
    u = getattr(np, name)

    def f(a):
        return np.sum(np.sin(u.reduce(a, axis=axis)))

    _check(f, (_arr(3, 4, seed=10),))


@pytest.mark.parametrize(("name", "axis"), list(itertools.product(UFUNCS, [0, 1])))
def test_ufunc_accumulate(name, axis):
    u = getattr(np, name)

    def f(a):
        return np.sum(np.sin(u.accumulate(a, axis)))

    tf = None
    if name in ("maximum", "minimum"):
        def tf(a):
            running = torch.cummax if name == "maximum" else torch.cummin
            return torch.sum(torch.sin(running(a, dim=axis).values))
    _check(f, (_arr(4, 5, seed=11),), tf)


def test_running_maximum_tie_goes_to_the_earlier_element():
    a = np.array([1.0, 3.0, 3.0, 2.0, 4.0])
    g = srcad.grad(lambda x: np.sum(np.maximum.accumulate(x) * np.arange(1.0, 6.0)))(a)
    np.testing.assert_array_equal(g, [1.0, 2.0 + 3.0 + 4.0, 0.0, 0.0, 5.0])


# ---------------------------------------------------------------- refusals
def test_refusals():
    a0 = _arr(3, 4)
    with pytest.raises(srcad.SrcadError, match="method"):
        srcad.grad(lambda a: np.sum(np.quantile(a, 0.3, method="nearest")))(a0)
    with pytest.raises(srcad.SrcadError, match="'q'"):
        srcad.grad(lambda q: np.sum(np.quantile(a0, q)), wrt=0)(0.3)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(lambda a: np.sum(np.take(a, [7, 1], mode="wrap")))(a0)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(lambda a: np.sum(np.average(a, 0, None, True)[0]))(a0)


# ---------------------------------------------------------------- polynomials, integrals
@pytest.mark.parametrize("xshape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("degree", [0, 1, 3])
def test_polyval(xshape, degree):
    def f(p, x):
        return np.sum(np.sin(np.polyval(p, x)))

    x0 = 0.7 if xshape == () else _arr(*xshape)
    _check(f, (_arr(degree + 1, seed=12), x0))


@pytest.mark.parametrize(("n", "increasing"), [(None, False), (2, False), (5, True)])
def test_vander(n, increasing):
    def f(x):
        return np.sum(np.sin(np.vander(x, n, increasing)))

    x0 = np.array([0.0, -0.5, 0.8, 1.3])  # a zero: x ** 0 and x ** -1 never meet
    _check(f, (x0,), lambda x: torch.sum(torch.sin(torch.linalg.vander(
        x, N=4 if n is None else n) if increasing else torch.flip(
        torch.linalg.vander(x, N=4 if n is None else n), (-1,)))))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_trapezoid(axis):
    if not hasattr(np, "trapezoid"):
        pytest.skip("NumPy < 2.0")

    def f(y, x):
        return np.sum(np.sin(np.trapezoid(y, x, axis=axis)))

    def h(y, d):
        return np.sum(np.sin(np.trapezoid(y, dx=d, axis=axis)))

    y0 = _arr(3, 3, seed=13)
    x0 = np.cumsum(_arr(3, low=0.2, high=1.0))
    _check(f, (y0, x0), lambda y, x: torch.sum(torch.sin(torch.trapezoid(y, x, dim=axis))))
    _check(h, (y0, 0.3))


# ---------------------------------------------------------------- selecting, grids
def test_selections():
    a0 = _arr(3, 4, seed=14)
    for call in (lambda a: np.compress([True, False, True], a, axis=0),
                 lambda a: np.compress([False, True], a),
                 lambda a: np.extract(a0 > 0, a),
                 lambda a: np.delete(a, [0, 2], axis=1),
                 lambda a: np.delete(a, slice(1, 3)),
                 lambda a: np.resize(a, (5, 3)) * np.arange(15.0).reshape(5, 3),
                 lambda a: np.unwrap(5.0 * a, axis=0) * np.arange(4.0)):
        def f(a, call=call):
            return np.sum(np.sin(call(a)))

        _check(f, (a0,))

    def b(w):
        return np.sum(np.sin(np.bincount(np.array([0, 3, 3, 1]), w, minlength=5)))

    _check(b, (_arr(4),))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(indexing, sparse):
    def f(a, b, c):
        x, y = np.meshgrid(a, b, indexing=indexing, sparse=sparse)
        p, q, r = np.meshgrid(a, b, c, indexing=indexing, sparse=sparse)
        return np.sum(np.sin(x * y + 2.0 * y)) + np.sum(np.sin(p * q * r + r))

    _check(f, (_arr(3), _arr(2, seed=1), _arr(4, seed=2)))


# ---------------------------------------------------------------- NumPy 2 names, np.linalg
def test_array_api_names():
    if not hasattr(np.linalg, "vecdot"):
        pytest.skip("NumPy < 2.0")
    c0 = _arr(2, 3, 3, seed=15)

    def f(a, b):
        return (np.sum(np.sin(np.linalg.trace(a, offset=1) * np.linalg.diagonal(a).T))
                + np.sum(np.sin(np.linalg.matmul(a, b)))
                + np.sum(np.sin(np.linalg.vecdot(a, b[0])))
                + np.sum(np.sin(np.linalg.cross(a, b, axis=-1)))
                + np.sum(np.sin(np.linalg.outer(a[0, 0], b[1, 1])))
                + np.sum(np.sin(np.linalg.tensordot(a, b[0], axes=2))))

    _check(f, (c0, _arr(2, 3, 3, seed=16)))
    if hasattr(np, "cumulative_sum"):
        def g(a):
            return np.sum(np.sin(np.cumulative_sum(a, axis=1) * np.cumulative_prod(a, axis=0)))

        _check(g, (_arr(3, 4),), lambda a: torch.sum(torch.sin(
            torch.cumsum(a, 1) * torch.cumprod(a, 0))))
    if isinstance(getattr(np, "matvec", None), np.ufunc):
        def m(a, v):
            return np.sum(np.sin(np.matvec(a, v))) + np.sum(np.sin(np.vecmat(v, a)))

        _check(m, (c0, _arr(3, seed=17)))


def test_linalg_spectral():
    s0 = _arr(3, 3, seed=18)
    s0 = s0 + s0.T + 3.0 * np.eye(3)

    def e(a):
        return np.sum(np.sin(np.linalg.eigvalsh(a)) * np.arange(1.0, 4.0))

    # NumPy reads the lower triangle: so does srcad's gradient (PyTorch's is symmetrised, so
    # it is given the matrix NumPy reads)
    _check(e, (s0,), lambda a: torch.sum(torch.sin(torch.linalg.eigvalsh(
        torch.tril(a) + torch.tril(a, -1).T)) * torch.arange(1.0, 4.0, dtype=torch.float64)))
    a0 = _arr(2, 4, 3, seed=19)

    def c(a):
        return np.sum(np.sin(np.linalg.cond(a)))

    _check(c, (a0,), lambda a: torch.sum(torch.sin(torch.linalg.cond(a))))
    if hasattr(np.linalg, "svdvals"):
        def s(a):
            return (np.sum(np.sin(np.linalg.svdvals(a)))
                    + np.sum(np.linalg.vector_norm(a, axis=1, ord=3))
                    + np.sin(np.linalg.vector_norm(a))
                    + np.sum(np.linalg.matrix_norm(a, ord="nuc"))
                    + np.sum(np.linalg.matrix_norm(a)))

        _check(s, (a0,), lambda a: (
            torch.sum(torch.sin(torch.linalg.svdvals(a)))
            + torch.sum(torch.linalg.vector_norm(a, dim=1, ord=3))
            + torch.sin(torch.linalg.vector_norm(a))
            + torch.sum(torch.linalg.matrix_norm(a, ord="nuc"))
            + torch.sum(torch.linalg.matrix_norm(a))))


def test_linalg_refusals_when_run():
    a0 = _arr(3, 3)
    with pytest.raises(srcad.SrcadError, match="p='fro'"):
        srcad.grad(lambda a: np.linalg.cond(a, "fro"))(a0)
    if hasattr(np.linalg, "vector_norm"):
        with pytest.raises(srcad.SrcadError, match="several axes"):
            srcad.grad(lambda a: np.linalg.vector_norm(a, axis=(0, 1)))(a0)


@pytest.mark.parametrize("uplo", ["U", "u", "L", "l"])
def test_eigh_and_eigvalsh_read_the_triangle_numpy_reads(uplo):
    """NumPy upper-cases UPLO: 'u' reads the upper triangle (a rule testing UPLO == 'U' alone
    gave the lower triangle's gradient: wrong)."""
    a0 = _arr(3, 3, seed=20)

    def f(a):
        return (np.sum(np.sin(np.linalg.eigvalsh(a, uplo)) * np.arange(3.0))
                + np.sum(np.cos(np.linalg.eigh(a, uplo)[0])))

    _check(f, (a0,))
