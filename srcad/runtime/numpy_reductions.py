"""Gradient helpers of NumPy reductions (``np.sum``, ``np.prod``, ``np.var``, ``np.max``,
``np.linalg.norm``, running sums and products, ``np.trace``) and of the element-wise functions
whose gradient is more than an expression (``np.clip``, ``astype``); conventions in
:mod:`srcad.runtime.numpy_helpers`.

Imports only ``srcad.runtime.registry``, ``srcad.runtime.numpy_common`` and
``srcad.core.kinds``.
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import duck_array
from .numpy_common import (
    _asarray,
    _axes,
    _count,
    _in_library,
    _match,
    _no_norm_rule,
    _ones,
    _real_point,
    _restore,
    _spread,
    _zeros,
)
from .registry import helper

# ---------------------------------------------------------------- reductions

_NUMBERS = (float, np.float64, complex, np.complex128)  # a reduction's gradient, a number
_FULL = 4096  # the most elements a number's gradient spreads over as a new array


def _filled(shape, g):
    """``np.full(shape, g)`` for a number ``g`` of :data:`_NUMBERS` (float64 or complex128,
    as ``np.full`` gives), without its Python layer (half its cost on small arrays)."""
    out = np.empty(shape, float if type(g) is float or type(g) is np.float64 else complex)
    out.fill(g)
    return out


@helper("numpy")
def grad_sum(g, a, axis=None, keepdims=False):
    """Gradient of ``np.sum(a, axis, keepdims)``: ``g`` broadcast back over the summed axes.
    A number spread over a small array is a new array of it (``np.full``: a fifth of the
    cost of a broadcast view, whose fixed cost dominates below a few thousand elements)."""
    if axis is None and type(a) is np.ndarray and type(g) in _NUMBERS and a.size <= _FULL:
        return _filled(a.shape, g)
    shape = np.shape(a)
    if type(a) is not np.ndarray and duck_array(a):
        return _spread(_restore(g, shape, axis, keepdims), a)
    return _match(np.broadcast_to(_restore(g, shape, axis, keepdims), shape), a)


@helper("numpy")
def tangent_sum(a, axis=None):
    """``np.sum(a, axis)`` of a tangent (forward mode's ``np.sum(a)`` of an array, batched
    forward mode's over the value's axes): for a NumPy array exactly the reduction
    ``np.sum`` ends in (``np.add.reduce``, the same numbers), without its Python layer (two
    thirds of a small array's sum); anything else (a number, a list given as a tangent, a
    subclass) by ``np.sum`` itself."""
    if type(a) is np.ndarray:
        return _ADD_REDUCE(a, axis)
    return np.sum(a, axis=axis)


_ADD_REDUCE = np.add.reduce


@helper("numpy")
def tangent_dot(a, v):
    """``np.sum(a * v, axis=1)``: batched forward mode's tangent of ``np.sum(x * v)`` of
    vectors, ``a`` the tangent of ``x`` (the directions first). Where ``a`` is a float64
    matrix of rows as long as the float64 vector ``v``, one matrix-vector product (no
    ``k`` x ``n`` product made, then summed); else the product's sum, broadcasting as the
    product does."""
    if type(a) is np.ndarray and type(v) is np.ndarray and a.ndim == 2 and (
            a.shape[1:] == v.shape and a.dtype.char == "d" and v.dtype.char == "d"):
        return a.dot(v)
    return _ADD_REDUCE(a * v, 1)


@helper("numpy")
def grad_mean(g, a, axis=None, keepdims=False):
    """Gradient of ``np.mean``: the sum's gradient divided by the number of elements."""
    if axis is None and type(a) is np.ndarray and type(g) in _NUMBERS and 0 < a.size <= _FULL:
        return _filled(a.shape, g / a.size)
    shape = np.shape(a)
    scaled = _restore(g, shape, axis, keepdims) / _count(shape, axis)
    if type(a) is not np.ndarray and duck_array(a):
        return _spread(scaled, a)
    return _match(np.broadcast_to(scaled, shape), a)  # a view: no array of ones is built


@helper("numpy")
def grad_prod(g, a, axis=None, keepdims=False):
    """Gradient of ``np.prod``: the product of the *other* elements, exact with zeros.

    The product of the others is the exclusive running product from the left times the one
    from the right, so no division by an element ever happens.
    """
    x = _asarray(a, dtype=complex if np.iscomplexobj(a) else float)
    if x.ndim == 0:
        return _match(g * np.ones(()), a)
    if x.size == 0:  # nothing multiplied: no element, no gradient
        return _match(np.zeros_like(x), a)
    axes = _axes(axis, x.ndim)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, last)
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,)) if type(x) is np.ndarray else \
        np.ones_like(flat[..., :1])  # Dask, CuPy: in their library (and chunks)
    left = np.concatenate([ones, np.cumprod(flat[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    others = np.moveaxis((left * right).reshape(moved.shape), last, axes)
    return _match(_restore(g, x.shape, axis, keepdims) * others, a)


@helper("numpy")
def grad_var(g, a, axis=None, ddof=0, keepdims=False):
    """Gradient of ``np.var``: ``2 (a - mean) / (n - ddof)``."""
    x = _asarray(a, dtype=float)
    centred = x - np.mean(x, axis=_axes(axis, x.ndim), keepdims=True)
    n = _count(x.shape, axis)
    return _match(_restore(g, x.shape, axis, keepdims) * 2.0 * centred / (n - ddof), a)


@helper("numpy")
def grad_std(g, a, ans, axis=None, ddof=0, keepdims=False):
    """Gradient of ``np.std``: the variance's gradient times ``1 / (2 std)``; where the
    standard deviation is 0 (one element, or all equal: flat or a kink) the gradient is 0,
    as for ``abs`` at 0."""
    g, ans = _asarray(g, dtype=float), _asarray(ans, dtype=float)
    if duck_array(g) or duck_array(ans):
        return grad_var(safe_div(g, 2.0 * ans), a, axis, ddof, keepdims)
    scale = np.divide(g, 2.0 * ans, out=np.zeros(np.broadcast_shapes(g.shape, ans.shape)),
                      where=ans != 0)
    return grad_var(scale, a, axis, ddof, keepdims)


@helper("numpy")
def grad_extremum(g, a, ans, axis=None, keepdims=False):
    """Gradient of ``np.max``/``np.min``/``np.amax``/``np.amin``.

    The gradient goes to the elements equal to the result; when several are equal (a tie) each
    gets an equal share, as in autograd (PyTorch gives it all to one of them).
    """
    x = _asarray(a)
    hit = x == _restore(ans, x.shape, axis, keepdims)
    g = _restore(g, x.shape, axis, keepdims)
    if type(hit) is np.ndarray and type(g) is np.ndarray and g.dtype == _FLOAT64 and (
            g.ndim in (0, hit.ndim)) and _no_ties(hit, ans):
        # each share is 1.0 and g * 1.0 is g: g times the mask, the same numbers with one
        # array made instead of two (a broadcast number: the mask as floats, times it)
        if not any(g.strides) and g.size:
            out = hit.astype(np.float64)
            v = g.reshape(-1)[0]
            if v != 1.0:
                out *= v
            return _match(out, a)
        return _match(np.multiply(g, hit), a)
    return _match(g * (hit / np.sum(hit, axis=_axes(axis, x.ndim), keepdims=True)), a)


def _no_ties(hit, ans):
    """Whether every result of a max or min equals exactly one element of its group: each
    result that is not NaN equals at least one (it is one of them), so with no NaN among them
    and as many equal elements in all as results, each has exactly one."""
    ans = np.asarray(ans)
    return np.count_nonzero(hit) == ans.size and not (
        ans.dtype.kind in "fc" and np.isnan(ans).any())


_FLOAT64 = np.dtype(np.float64)


def _extremum_ties(a, ans, axis, keepdims, initial, where):
    """For ``np.max(a, axis, keepdims=..., initial=..., where=...)`` (or min) and its result
    ``ans``: the elements ``where`` marks that equal their result, how many share each result
    (with ``initial`` when it equals the result too: a tie), ``initial``'s ties."""
    x = _asarray(a)
    result = _restore(ans, x.shape, axis, keepdims)  # the reduced axes back, size 1
    hit = (x == result) & _in_library(_asarray(where, dtype=bool), x)  # of x's shape
    count = np.sum(hit, axis=_axes(axis, x.ndim), keepdims=True)
    own = _zeros(np.shape(result), x, dtype=bool) if initial is None else np.broadcast_to(
        np.asarray(initial) == result, np.shape(result))
    return x, hit, np.maximum(count + own, 1), own


@helper("numpy")
def extremum_weights(a, ans, axis=None, keepdims=False, initial=None, where=True):
    """The share of each element of ``a`` in the gradient of ``np.max``/``np.min`` with
    ``initial=``/``where=`` (an element ``where`` leaves out, or that is not the result, gets
    none; ties share equally, ``initial`` among them). Piecewise constant: no derivative."""
    x, hit, count, _ = _extremum_ties(a, ans, axis, keepdims, initial, where)
    return hit / count


@helper("numpy")
def extremum_initial_weight(a, ans, axis=None, keepdims=False, initial=None, where=True):
    """The share of ``initial`` in each result of ``np.max``/``np.min`` (1 where it is the
    result alone, 1/k in a tie of k, else 0), shaped like the result."""
    _, _, count, own = _extremum_ties(a, ans, axis, keepdims, initial, where)
    return np.reshape(own / count, np.shape(ans))


@helper("numpy")
def grad_norm(g, x, ans, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """Gradient of ``np.linalg.norm`` for vector norms (any ``ord``) and the matrix norms
    ``None``/``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``, ``inf`` and ``-inf``.

    At a point where the norm is not differentiable it returns a subgradient: 0 at the zero
    vector (as PyTorch, and ``abs`` at 0), ties in an ``inf`` norm share equally (as
    autograd). ``x`` is real (the complex form of the norm's rule passes ``abs(x)``); ``g``
    may be complex.
    """
    v = _real_point(x, "grad_norm")
    if axis is None and ord is None:
        axes = tuple(range(v.ndim))
    else:
        axes = _axes(tuple(range(v.ndim)) if axis is None else axis, v.ndim)
    gb = _restore(g, v.shape, axes, keepdims)
    nb = _restore(ans, v.shape, axes, keepdims)
    matrix = len(axes) == 2 and ord is not None
    if ord is None or (matrix and ord == "fro") or (
            not matrix and isinstance(ord, (int, float)) and 1 < ord < np.inf):
        # at the zero vector (nb 0, v 0 along the axes): 0, the subgradient of least size, as
        # abs(0)'s and PyTorch's (JAX's is nan); v / nb is 0 there, not 0 / 0
        nb = np.where(nb == 0, 1.0, nb)
        if ord is None or ord == "fro" or ord == 2:
            return _match(gb * v / nb, x)
    if not matrix:
        return _match(_grad_vector_norm(gb, v, nb, ord, axes), x)
    return _match(_grad_matrix_norm(gb, v, nb, ord, axes), x)


def _grad_vector_norm(gb, v, nb, ord, axes):  # noqa: A002
    if ord == 0:
        return np.zeros_like(v)
    if ord in (np.inf, -np.inf):
        hit = np.abs(v) == nb
        return gb * np.sign(v) * hit / np.sum(hit, axis=axes, keepdims=True)
    if ord == 1:
        return gb * np.sign(v)
    return gb * np.sign(v) * np.abs(v) ** (ord - 1) / nb ** (ord - 1)


def _grad_matrix_norm(gb, v, nb, ord, axes):  # noqa: A002
    rows, cols = axes
    if ord in (1, -1, np.inf, -np.inf):
        summed = rows if ord in (1, -1) else cols  # column sums for 1, row sums for inf
        sums = np.sum(np.abs(v), axis=summed, keepdims=True)
        hit = sums == nb
        share = hit / np.sum(hit, axis=cols if summed == rows else rows, keepdims=True)
        return gb * np.sign(v) * share
    moved = np.moveaxis(v, axes, (-2, -1))
    u, s, vt = np.linalg.svd(moved, full_matrices=False)
    if ord == "nuc":
        inner = u @ vt
    elif ord in (2, -2):
        k = 0 if ord == 2 else -1
        inner = u[..., :, k, None] * vt[..., None, k, :]
    else:
        raise _no_norm_rule(ord, "gradient")
    return gb * np.moveaxis(inner, (-2, -1), axes)


@helper("numpy")
def norm_axes(x, axis=None):
    """The two axes ``np.linalg.norm(x, ord, axis)`` takes as a matrix's, non-negative (the
    last two of a 2-d ``x`` when ``axis`` is None)."""
    nd = np.ndim(x)
    return _axes(tuple(range(nd)) if axis is None else axis, nd)


@helper("numpy")
def norm_by_svd(x, ord=None, axis=None):  # noqa: A002 (NumPy's name)
    """Whether ``np.linalg.norm(x, ord, axis)`` is a sum or extreme of singular values (the
    nuclear norm, the spectral norms ``2`` and ``-2`` of matrices)."""
    matrix = (np.ndim(x) == 2 if axis is None else np.ndim(axis) == 1 and len(axis) == 2)
    return bool(matrix and isinstance(ord, (str, int, float)) and ord in ("nuc", 2, -2))


@helper("numpy")
def grad_cumsum(g, a, axis=None):
    """Gradient of ``np.cumsum``: the reversed running sum of ``g``."""
    shape = np.shape(a)
    if axis is None:
        return _match(np.cumsum(_asarray(g)[::-1])[::-1].reshape(shape), a)
    return _match(np.flip(np.cumsum(np.flip(g, axis), axis), axis), a)


@helper("numpy")
def grad_cumprod(g, a, axis=None):
    """Gradient of ``np.cumprod``, exact with zeros (no division by an element).

    With ``p`` the exclusive running product from the left, the gradient of element ``i`` is
    ``p[i] * r[i]`` where ``r[i] = g[i] + a[i+1] * r[i+1]``: one backward scan.
    """
    x = _asarray(a, dtype=float)
    shape = x.shape
    if axis is None or not shape:  # (NumPy reads a number's axis 0 as that of its ravel)
        x, axis = x.ravel(), 0
    xs = np.moveaxis(x, axis, -1)
    gs = np.moveaxis(_asarray(g, dtype=float).reshape(x.shape), axis, -1)
    n = xs.shape[-1]
    left = np.concatenate([_ones(xs.shape[:-1] + (1,), xs),
                           np.cumprod(xs[..., :-1], axis=-1)], axis=-1)
    r = np.empty_like(gs)
    if n:
        r[..., n - 1] = gs[..., n - 1]
    for i in range(n - 2, -1, -1):
        r[..., i] = gs[..., i] + xs[..., i + 1] * r[..., i + 1]
    return _match(np.moveaxis(left * r, -1, axis).reshape(shape), a)


@helper("numpy")
def grad_trace(g, a, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.trace``: ``g`` placed on the ``offset`` diagonal of each matrix."""
    shape = np.shape(a)
    eye = _in_library(np.eye(shape[axis1], shape[axis2], k=offset), g, a)
    full = _in_library(_asarray(g, dtype=float)[..., None, None], a) * eye
    return _match(np.moveaxis(full, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


# ---------------------------------------------------------------- element-wise helpers


def _clip_parts(a, a_min, a_max):
    """Where ``np.clip(a, a_min, a_max)`` takes ``a``, ``a_min`` and ``a_max``, as masks.

    NumPy computes ``minimum(maximum(a, a_min), a_max)``: crossed bounds (``a_min > a_max``)
    give ``a_max`` everywhere, and equal bounds a constant. A tie of ``a`` with one bound
    goes to ``a`` (bounds included, as in PyTorch).
    """
    a = _asarray(a)
    inside = _ones(np.shape(a), a, dtype=bool)
    low = _zeros(np.shape(a), a, dtype=bool)
    if a_min is not None:
        inside = inside & (a >= a_min)
        low = ~inside
    if a_max is not None:
        inside = inside & (a <= a_max)
        if a_min is not None:
            apart = _asarray(a_min) < a_max
            inside, low = inside & apart, low & apart
    return inside, low, ~(inside | low)


@helper("numpy")
def grad_clip(g, a, a_min, a_max):
    """Gradient of ``np.clip`` into ``a``: ``g`` where the result is ``a`` (see
    :func:`_clip_parts`), zero where the value was clipped."""
    return g * _clip_parts(a, a_min, a_max)[0]


@helper("numpy")
def grad_clip_bound(g, a, a_min, a_max, upper):
    """Gradient of ``np.clip`` into its lower (``upper=False``) or upper bound: ``g`` where the
    result is that bound, crossed bounds included."""
    return g * _clip_parts(a, a_min, a_max)[2 if upper else 1]


@helper("numpy")
def grad_astype(g, a, dtype):
    """Gradient of ``a.astype(dtype)``: ``g`` for a floating type, zero for an integer one."""
    if np.issubdtype(np.dtype(dtype), np.inexact):
        return _match(_asarray(g, dtype=float), a)
    return _match(np.zeros(np.shape(a)), a)


@helper("numpy")
def safe_div(a, b):
    """``a / b``, and 0 where ``b`` is 0 (the derivatives of ``np.std`` where it is 0)."""
    a, b = _asarray(a, dtype=float), _asarray(b, dtype=float)
    if duck_array(a) or duck_array(b):  # no out= into a Dask or CuPy array
        nonzero = b != 0
        return np.where(nonzero, a / np.where(nonzero, b, 1.0), 0.0)
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape))
    return np.divide(a, b, out=out, where=b != 0)[()]


# ---------------------------------------------------------------- forward-mode tangents


@helper("numpy")
def tangent_cumprod(t, a, axis=None):
    """Tangent of ``np.cumprod(a, axis)`` along ``t``, by the recurrence
    ``dc[i] = dc[i-1] a[i] + c[i-1] t[i]`` (exact with zeros: nothing is divided)."""
    x = _asarray(a, dtype=float)
    tt = np.broadcast_to(_asarray(t, dtype=float), x.shape)
    if axis is None or not x.shape:  # (a number's axis 0: that of its ravel, as NumPy's)
        x, tt, axis = x.ravel(), tt.ravel(), 0
    x, tt = np.moveaxis(x, axis, 0), np.moveaxis(tt, axis, 0)
    if duck_array(x) or duck_array(tt):  # Dask, CuPy: the rows stacked, not written
        rows = []
        if len(x):
            rows.append(tt[0])
            c = x[0]
            for i in range(1, len(x)):
                rows.append(rows[-1] * x[i] + c * tt[i])
                c = c * x[i]
        out = np.stack(rows) if rows else np.zeros_like(x, dtype=float)
        return np.moveaxis(out, 0, axis)
    out = np.empty(x.shape)
    if len(x):
        out[0], c = tt[0], x[0]
        for i in range(1, len(x)):
            out[i] = out[i - 1] * x[i] + c * tt[i]
            c = c * x[i]
    return np.moveaxis(out, 0, axis)
