"""Gradient helpers of the NumPy functions of :mod:`srcad.rules.numpy_more`: ``np.take``,
``np.take_along_axis``, ``np.quantile`` (``np.median``, ``np.percentile``), ``np.interp``,
``np.convolve``/``np.correlate``, ``np.dstack``, ``np.average``'s weights, and the running
extremum of ``np.maximum.accumulate``; conventions in :mod:`srcad.runtime.numpy_helpers`.

Each ``grad_*``/``tangent_*`` helper is linear in its first argument (``value``); the one it
pairs with is its adjoint, which is how its own rule (second derivatives) is written. The
indices they read (a sort order, an interval of ``xp``) are piecewise constant in the point.

Imports only ``srcad.errors``, ``srcad.runtime.registry``, ``srcad.runtime.arrays`` and
``srcad.runtime.numpy_common``.
"""

from __future__ import annotations

import numpy as np

from ..errors import MissingRuleError
from .arrays import is_duck, library, placed, refuse, scatter_add
from .numpy_common import _asarray, _in_library, _zeros
from .registry import helper


# ---------------------------------------------------------------- np.take, np.take_along_axis
@helper("numpy")
def grad_take(value, a, indices, axis=None):
    """Gradient of ``np.take(a, indices, axis)``: ``value`` added back where it was taken
    from (an index taken twice gets both)."""
    shape = np.shape(a)
    if is_duck(value) or is_duck(a):  # Dask, CuPy: the sum of repeats by takes (lazy)
        like = value if is_duck(value) else a
        if is_duck(indices) and library(indices) == "dask":
            raise refuse(like, "np.take with indices in a lazy array",
                         "give the indices as a NumPy array or a list")
        zeros = np.zeros_like(like, dtype=float, shape=(int(np.prod(shape)),) if axis is None
                              else shape)
        at = (slice(None),) * (0 if axis is None else int(axis) % len(shape))
        # (indices on a device, CuPy's: its add.at takes them there)
        idx = indices if is_duck(indices) else np.asarray(indices)
        out = scatter_add(zeros, at + (idx,), value, "np.take",
                          "compute the array first (x.compute() for Dask)")
        return np.reshape(out, shape)
    out = np.zeros(int(np.prod(shape)) if axis is None else shape, dtype=np.result_type(
        value, float))
    idx = np.asarray(indices)
    if axis is None:
        np.add.at(out, idx, value)
        return out.reshape(shape)
    axis = int(axis) % len(shape)
    moved = np.moveaxis(out, axis, 0)  # a view: writes reach out
    g = np.asarray(value)
    g = np.moveaxis(g, tuple(range(axis, axis + idx.ndim)), tuple(range(idx.ndim)))
    np.add.at(moved, idx, g)
    return out


def _along(indices, shape, axis):
    """The fancy index that ``np.take_along_axis(x, indices, axis)`` reads ``x`` (of
    ``shape``) with: ``indices`` and ``x`` broadcast against each other off ``axis``, so a
    length-1 axis of ``x`` is read at 0 for every position of the result there."""
    idx = np.asarray(indices)
    ndim = len(shape)
    index = []
    for d in range(ndim):
        if d == axis:
            index.append(idx)
        else:
            size = max(idx.shape[d], shape[d])
            at = np.arange(size) if shape[d] == size else np.zeros(size, dtype=np.intp)
            index.append(at.reshape([size if k == d else 1 for k in range(ndim)]))
    return tuple(index)


@helper("numpy")
def grad_take_along_axis(value, arr, indices, axis=-1):
    """Gradient of ``np.take_along_axis(arr, indices, axis)`` (``axis=None``: of the flat
    ``arr``)."""
    shape = np.shape(arr)
    if axis is None:
        out = np.zeros(int(np.prod(shape)), dtype=np.result_type(value, float))
        np.add.at(out, np.asarray(indices), value)
        return out.reshape(shape)
    out = np.zeros(shape, dtype=np.result_type(value, float))
    axis = int(axis) % len(shape)
    np.add.at(out, _along(indices, shape, axis), value)
    return out


# ---------------------------------------------------------------- running extremum
@helper("numpy")
def running_source(a, ans, axis=0):
    """For ``ans = np.maximum.accumulate(a, axis)`` (or minimum): the index along ``axis`` of
    the element each running extremum is, ties to the earlier one (as ``max(a, b)``)."""
    x = _asarray(a)
    axis = int(axis) % x.ndim
    y = _asarray(ans)
    first = np.ones_like(np.take(y, [0], axis), dtype=bool)
    new = np.concatenate([first, np.delete(y, 0, axis) != np.delete(y, -1, axis)], axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    positions = _in_library(np.arange(x.shape[axis]).reshape(shape), x)
    return np.maximum.accumulate(np.where(new, positions, 0), axis)


# ---------------------------------------------------------------- np.quantile (linear method)
def _quantile_plan(a, q, axis, method, nan=False):
    """The sorted order of ``a`` along the axis and, per slice, the weights of each quantile
    on the sorted values (``nan``: the NaNs, sorted last, are left out, so each slice has its
    own count; a slice of NaNs only has no weights)."""
    if method not in (None, "linear"):
        raise placed(MissingRuleError(
            f"no derivative rule for np.quantile/np.percentile/np.median with method={method!r}",
            construct="np.quantile", hint="use method='linear' (the default), or register a "
            "rule with srcad.extend.defvjp"))
    if is_duck(a):  # the sort order of a lazy array: known only once computed
        raise refuse(a, "np.quantile/np.percentile/np.median (and their nan forms)",
                     "the derivative reads the order of the values: compute the array first "
                     "(.compute()), or differentiate on a NumPy array")
    x = np.asarray(a)
    if axis is None:
        x, axis = x.reshape(-1), 0
    elif np.ndim(axis) != 0:
        raise placed(MissingRuleError(
            "no derivative rule for np.quantile/np.percentile/np.median over a tuple of axes",
            construct="np.quantile", hint="move the axes together and reshape them into one"))
    axis = int(axis) % x.ndim
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    qs = np.asarray(q, dtype=float).reshape(-1)
    if not nan:
        pos = qs * (n - 1)
        lo = np.clip(np.floor(pos).astype(int), 0, n - 1)
        hi = np.minimum(lo + 1, n - 1)
        frac = pos - lo
        weights = np.zeros((pos.size, n))  # one row of weights on the sorted values per q
        np.add.at(weights, (np.arange(pos.size), lo), 1.0 - frac)
        np.add.at(weights, (np.arange(pos.size), hi), frac)
        return x.shape, axis, order, weights
    last = np.maximum(np.sum(~np.isnan(x), axis=-1, keepdims=True) - 1, 0)  # (..., 1)
    pos = qs * last  # (..., nq)
    lo = np.minimum(np.floor(pos).astype(int), last)
    hi = np.minimum(lo + 1, last)
    frac = pos - lo
    ranks = np.arange(n)
    weights = ((1.0 - frac)[..., None] * (ranks == lo[..., None])
               + frac[..., None] * (ranks == hi[..., None]))  # (..., nq, n)
    weights = np.where(np.all(np.isnan(x), axis=-1)[..., None, None], 0.0, weights)
    return x.shape, axis, order, weights


def _result_shape(a, q, axis, keepdims):
    shape = list(np.shape(a))
    if axis is None:
        kept = [1] * len(shape) if keepdims else []
    else:
        axis = int(axis) % len(shape)
        kept = shape[:axis] + ([1] if keepdims else []) + shape[axis + 1:]
    return tuple(np.shape(q)) + tuple(kept)


@helper("numpy")
def tangent_quantile(value, a, q, axis=None, keepdims=False, method=None, nan=False):
    """The tangent of ``np.quantile(a, q, axis, keepdims=keepdims)`` (``nan``: of
    ``np.nanquantile``) for a tangent ``value`` of ``a``: the same interpolation of the same
    order statistics of ``value``."""
    moved, ax, order, weights = _quantile_plan(a, q, axis, method, nan)
    t = np.asarray(value, dtype=float)
    t = t.reshape(-1) if axis is None else np.moveaxis(t, ax, -1)
    ranked = np.take_along_axis(t, order, -1)  # (..., n)
    if nan:
        ranked = np.where(np.isnan(ranked), 0.0, ranked)
    out = np.moveaxis(np.einsum("...qn,...n->...q", weights, ranked), -1, 0)  # (nq, ...)
    return out.reshape(_result_shape(a, q, axis, keepdims))


@helper("numpy")
def grad_quantile(value, a, q, axis=None, keepdims=False, method=None, nan=False):
    """Gradient of ``np.quantile(a, q, axis, keepdims=keepdims)`` (``nan``: of
    ``np.nanquantile``; the adjoint of :func:`tangent_quantile`): to the one or two order
    statistics each quantile reads."""
    moved, ax, order, weights = _quantile_plan(a, q, axis, method, nan)
    nq = np.size(q)
    g = np.broadcast_to(np.asarray(value, dtype=float), _result_shape(a, q, axis, keepdims))
    g = g.reshape((nq,) + moved[:-1])
    ranked = np.einsum("...q,...qn->...n", np.moveaxis(g, 0, -1), weights)  # sorted values
    out = np.zeros(moved)
    np.put_along_axis(out, order, ranked, -1)
    if axis is None:
        return out.reshape(np.shape(a))
    return np.moveaxis(out, -1, ax)


# ---------------------------------------------------------------- np.interp
@helper("numpy")
def interp_segment(x, xp):
    """The interval ``[xp[i], xp[i + 1]]`` each ``x`` lies in (right-continuous at a knot),
    clipped to the first and the last."""
    i = np.searchsorted(np.asarray(xp), x, side="right") - 1
    return np.clip(i, 0, max(np.size(xp) - 2, 0))


@helper("numpy")
def grad_interp_fp(value, x, xp, left=None, right=None):
    """Gradient of ``np.interp(x, xp, fp, left, right)`` in ``fp``: each value goes to the two
    knots its ``x`` lies between (to ``fp[0]``/``fp[-1]`` outside ``xp`` where ``left``/
    ``right`` is None)."""
    xs = np.asarray(x, dtype=float).reshape(-1)
    g = np.broadcast_to(np.asarray(value, dtype=float), np.shape(x)).reshape(-1)
    m = np.size(xp)
    lo0 = None if left is None else 0.0
    hi0 = None if right is None else 0.0
    columns = [np.interp(xs, xp, np.eye(m)[j], lo0, hi0) for j in range(m)]
    return np.stack(columns, axis=-1).T @ g if m else np.zeros(0)


@helper("numpy")
def grad_interp_slope(value, x, xp):
    """The adjoint of ``fp -> d/dx np.interp(x, xp, fp)`` (the slope of the interval each
    ``x`` lies in, 0 outside ``xp``): ``value / (xp[i + 1] - xp[i])`` to ``fp[i + 1]``, its
    negative to ``fp[i]``."""
    xs = np.asarray(x, dtype=float).reshape(-1)
    knots = np.asarray(xp, dtype=float)
    g = np.broadcast_to(np.asarray(value, dtype=float), np.shape(x)).reshape(-1)
    inside = (xs >= knots[0]) & (xs <= knots[-1])
    seg = interp_segment(xs, knots)
    share = np.where(inside, g, 0.0) / (knots[seg + 1] - knots[seg])
    out = np.zeros(knots.size)
    np.add.at(out, seg + 1, share)
    np.add.at(out, seg, -share)
    return out


# ---------------------------------------------------------------- np.convolve, np.correlate
def _window(n, m, mode, corr):
    """Where ``np.convolve(a, v, mode)`` (``corr``: ``np.correlate``; ``len(a) == n``,
    ``len(v) == m``) sits in the full result: its first index and its length."""
    mode = ("valid" if corr else "full") if mode is None else mode  # NumPy's defaults
    if mode == "full":
        return 0, n + m - 1
    if mode == "same":
        if corr:
            return ((m - 1) // 2 if n >= m else n // 2), max(n, m)
        return (min(n, m) - 1) // 2, max(n, m)
    if mode == "valid":
        return min(n, m) - 1, max(n, m) - min(n, m) + 1
    raise ValueError(f"mode must be 'full', 'same' or 'valid', not {mode!r}")


@helper("numpy")
def conv_embed(value, n, m, mode=None, corr=False):
    """The gradient of a ``mode`` convolution's result, placed in the full convolution."""
    start, length = _window(n, m, mode, corr)
    out = _zeros(n + m - 1, value, dtype=np.result_type(value, float))
    out[start:start + length] = value
    return out


@helper("numpy")
def conv_crop(value, n, m, mode=None, corr=False):
    """The part of a full convolution a ``mode`` convolution keeps (adjoint of
    :func:`conv_embed`)."""
    start, length = _window(n, m, mode, corr)
    return _asarray(value)[start:start + length]


# ---------------------------------------------------------------- np.dstack, np.average
@helper("numpy")
def grad_dstack(value, tup):
    """Gradient of ``np.dstack(tup)``: the result split along axis 2, each piece shaped like
    its array."""
    g = _asarray(value)
    out, start = [], 0
    for x in tup:
        shape = np.shape(x)
        depth = np.shape(np.atleast_3d(np.empty(shape)))[2]
        out.append(np.reshape(g[:, :, start:start + depth], shape))
        start += depth
    return out


@helper("numpy")
def average_shape(weights, a, axis=None):
    """The shape ``np.average(a, axis, weights)`` reads ``weights`` in: ``a``'s shape, or ones
    but along ``axis`` for one-dimensional weights."""
    if np.shape(weights) == np.shape(a) or axis is None:
        return np.shape(a)
    shape = [1] * np.ndim(a)
    shape[int(axis) % np.ndim(a)] = int(np.prod(np.shape(weights)))
    return tuple(shape)


@helper("numpy")
def mesh_axes(k, n, indexing=None):
    """The axes of ``np.meshgrid``'s ``k``-th result (of ``n``) that its input does not run
    along (``indexing='xy'`` swaps the first two)."""
    own = k
    if indexing in (None, "xy") and n > 1 and k < 2:
        own = 1 - k
    return tuple(d for d in range(n) if d != own)


@helper("numpy")
def cond_two(p):
    """1 for the 2-norm condition number (``p`` None or 2), the one srcad differentiates; a
    ``MissingRuleError`` for another ``p``."""
    if p is None or (not isinstance(p, str) and p == 2):
        return 1.0
    raise MissingRuleError(f"no derivative rule for np.linalg.cond with p={p!r}",
                           construct="np.linalg.cond",
                           hint="use p=None or 2 (the ratio of the extreme singular values)")


@helper("numpy")
def trapezoid_x(x):
    """``x`` of ``np.trapezoid(y, x)`` for its gradient: one-dimensional (or None); a
    ``MissingRuleError`` for sample points of several dimensions."""
    if x is not None and np.ndim(x) != 1:
        raise MissingRuleError(
            "no derivative of np.trapezoid(y, x) in reverse mode for an x of "
            f"{np.ndim(x)} dimensions: srcad's rule takes x one-dimensional",
            construct="np.trapezoid", hint="give x as the 1-d sample points along the axis, "
            "or write the sum: np.sum(np.diff(x, axis=axis) * (y[1:] + y[:-1]) / 2, axis)")
    return x


@helper("numpy")
def one_axis(axis):
    """``axis`` as one int, for ``np.linalg.vector_norm`` over one axis; a
    ``MissingRuleError`` for several (move them together and reshape them into one)."""
    if np.ndim(axis) == 0:
        return int(axis)
    if len(axis) == 1:
        return int(axis[0])
    raise MissingRuleError("no derivative rule for np.linalg.vector_norm over several axes",
                           construct="np.linalg.vector_norm",
                           hint="move the axes together and reshape them into one axis")


@helper("numpy")
def bessel_i1(x):
    """``scipy.special.i1(x)``: the derivative of ``np.i0`` (NumPy has no ``i1``); a
    ``MissingRuleError`` when SciPy is not installed."""
    try:
        from scipy import special
    except ImportError:
        raise MissingRuleError(
            "the derivative of np.i0 is the modified Bessel function I1, which NumPy does not "
            "have: srcad computes it with scipy.special.i1, and SciPy is not installed",
            construct="np.i0", hint="pip install scipy (or srcad[scipy]); or write "
            "scipy.special.i0(x) yourself") from None
    return special.i1(x)
