"""Gradient helpers of NumPy's shape functions and of assembling arrays (``reshape``,
``concatenate``, ``stack``, ``split``, ``np.array``, ``tile``, ``repeat``, ``roll``, ``pad``,
``sort``, ``diag``, ``linspace``), their forward-mode tangents where a template is not enough,
and the functions srcad lowers in-place writes to (``add_at``, ``last_writes``); conventions
in :mod:`srcad.runtime.numpy_helpers`.

Imports only ``srcad.runtime.helpers``, ``srcad.runtime.arrays``, ``srcad.runtime.registry``,
``srcad.runtime.numpy_common`` and ``srcad.core.kinds``.
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import duck_array
from . import arrays
from . import helpers as _runtime
from .numpy_common import _asarray, _in_library, _match
from .registry import helper

# ---------------------------------------------------------------- shape and assembly


@helper("numpy")
def grad_reshape(g, a, order=None):
    """Gradient of any reshaping (``reshape``, ``ravel``, ``squeeze``, ``expand_dims``, ...):
    ``g`` reshaped back to ``a``'s shape, in the same memory order (``None`` means "C")."""
    if order is None or order == "C":  # other array libraries' reshape takes no order=
        return _match(np.reshape(g, np.shape(a)), a)
    return _match(np.reshape(g, np.shape(a), order=order), a)


def _split_along(g, sizes, axis):
    """``g`` cut along ``axis`` into pieces of ``sizes``: views, as ``np.split`` gives, by
    basic slicing (``np.split`` costs several microseconds a piece)."""
    g = _asarray(g)
    index = [slice(None)] * g.ndim
    pieces, start = [], 0
    for size in sizes:
        index[axis] = slice(start, start + int(size))
        pieces.append(g[tuple(index)])
        start += int(size)
    return pieces


@helper("numpy")
def grad_concatenate(g, arrays, axis=0):
    """Gradient of ``np.concatenate(arrays, axis)``: a list, one piece of ``g`` per array."""
    if type(g) is np.ndarray and type(arrays) in (tuple, list) and type(axis) is int:
        pieces = _cut(g, arrays, axis)
        if pieces is not None:
            return pieces
    if axis is None:
        pieces = _split_along(np.ravel(g), [np.size(x) for x in arrays], 0)
    else:
        pieces = _split_along(g, [np.shape(x)[axis] for x in arrays], axis)
    return _pieces([p if type(x) is np.ndarray and p.shape == x.shape  # the common case
                    else _match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, arrays)],
                   arrays)


def _cut(g, arrays, axis):
    """The common case of :func:`grad_concatenate`: NumPy arrays of ``g``'s rank and
    ``g``'s dtype class, cut by basic slicing (views; ``None`` for anything else)."""
    ndim = g.ndim
    if axis < 0:
        axis += ndim
    if not 0 <= axis < ndim:
        return None
    lead = (slice(None),) * axis
    complex_g = g.dtype.kind == "c"
    pieces, start = [], 0
    for x in arrays:
        if type(x) is not np.ndarray or x.ndim != ndim or (x.dtype.kind == "c") is not complex_g:
            return None
        stop = start + x.shape[axis]
        pieces.append(g[lead + (slice(start, stop),)] if axis else g[start:stop])
        start = stop
    return pieces


def _pieces(grads, arrays):
    """The gradients of the pieces of a joined sequence ``arrays``: a list for a list, but
    one array for an array (``np.vstack(A)`` with ``A`` a matrix joins the rows of ``A``)."""
    if isinstance(arrays, np.ndarray):
        return np.reshape(np.array(grads, dtype=np.result_type(*grads, float)), arrays.shape)
    if type(arrays) not in (list, tuple) and duck_array(arrays):  # Dask, CuPy: stacked there
        return np.reshape(np.stack([_in_library(np.asarray(v, np.result_type(v, float)), arrays)
                                    if type(v) in (float, complex, int) else v for v in grads]),
                          arrays.shape)
    return grads


@helper("numpy")
def grad_stack(g, arrays, axis=0):
    """Gradient of ``np.stack(arrays, axis)``: a list of the slices of ``g`` along ``axis``."""
    moved = np.moveaxis(g, axis, 0)
    return _pieces([_match(moved[i], x) for i, x in enumerate(arrays)], arrays)


@helper("numpy")
def grad_hstack(g, tup):
    """Gradient of ``np.hstack``: along axis 0 for 1-d (and 0-d) arrays, else axis 1."""
    promoted = [np.atleast_1d(x) for x in tup]
    axis = 0 if promoted[0].ndim == 1 else 1
    pieces = _split_along(g, [x.shape[axis] for x in promoted], axis)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, tup)], tup)


@helper("numpy")
def grad_vstack(g, tup):
    """Gradient of ``np.vstack``: the arrays, made at least 2-d, are stacked along axis 0."""
    pieces = _split_along(g, [np.atleast_2d(x).shape[0] for x in tup], 0)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, tup)], tup)


@helper("numpy")
def grad_split(g, ary, ans, axis=0):
    """Gradient of ``np.split``/``np.array_split``: the pieces' gradients joined again.

    ``g`` is a list with one gradient per piece (a zero where a piece is unused).
    """
    pieces = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(g, ans)]
    return _match(np.concatenate(pieces, axis=axis), ary)


@helper("numpy")
def grad_array(g, obj):
    """Gradient of ``np.array(obj)``/``np.asarray(obj)``: for a (nested) list of numbers or
    arrays, a (nested) list of gradients; for an array, ``g`` itself."""
    if type(g) is np.ndarray and g.ndim == 1 and g.dtype.kind in "fc" and type(obj) in (
            list, tuple) and len(obj) == len(g) and all(
                type(v) is float or type(v) is np.float64 for v in obj):
        return g.tolist()  # numbers: what float(g[i]) (complex(g[i])) gives, in one call
    if isinstance(obj, (list, tuple)):
        g = _asarray(g)  # each item a new object: no two share memory, nor with g
        return [grad_array(g[i] if g.ndim == 1 else g[i].copy(), v) for i, v in enumerate(obj)]
    return _match(g, obj)


@helper("numpy")
def grad_tile(g, a, reps):
    """Gradient of ``np.tile(a, reps)``: the copies of ``g`` summed."""
    x_shape = np.shape(a)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    d = max(len(reps), len(x_shape))
    shape = (1,) * (d - len(x_shape)) + tuple(x_shape)
    reps = (1,) * (d - len(reps)) + reps
    interleaved = [n for pair in zip(reps, shape) for n in pair]
    summed = np.reshape(g, interleaved).sum(axis=tuple(range(0, 2 * d, 2)))
    return _match(np.reshape(summed, x_shape), a)


@helper("numpy")
def c_piece(x):
    """An item of ``np.c_[...]`` as NumPy joins it: a number as a 1x1 matrix, a vector as a
    column, an array of two or more axes as it is."""
    nd = np.ndim(x)
    if nd >= 2:
        return x
    return np.reshape(x, (1, 1)) if nd == 0 else np.reshape(x, (-1, 1))


@helper("numpy")
def grad_repeat(g, a, repeats, axis=None):
    """Gradient of ``np.repeat(a, repeats, axis)``: the repeated copies summed (with one
    count for every element, a reshape and a sum, which every array library has)."""
    x = _asarray(a)
    if axis is None:
        x, axis = x.ravel(), 0
    axis = axis % x.ndim
    n = x.shape[axis]
    moved = np.moveaxis(_asarray(g, dtype=float), axis, -1)
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:
        r = int(np.reshape(repeats, -1)[0]) if np.ndim(repeats) else int(repeats)
        out = np.sum(np.reshape(moved, moved.shape[:-1] + (n, r)), axis=-1)
    else:
        owner = np.repeat(np.arange(n), repeats)
        out = np.zeros(moved.shape[:-1] + (n,))
        np.add.at(np.moveaxis(out, -1, 0), owner, np.moveaxis(moved, -1, 0))
    return _match(np.reshape(np.moveaxis(out, -1, axis), np.shape(a)), a)


@helper("numpy")
def grad_roll(g, shift, axis=None):
    """Gradient of ``np.roll(a, shift, axis)``: ``g`` rolled back."""
    back = -shift if np.ndim(shift) == 0 else tuple(-int(s) for s in shift)
    return np.roll(g, back, axis)


def _pad_widths(pad_width, ndim):
    return np.broadcast_to(_asarray(pad_width, dtype=int), (ndim, 2))


#: ``np.pad`` modes whose padding copies elements of the array: each output element is one
#: input element, and the gradient sums ``g`` over the copies of each element
_COPYING_PADS = ("edge", "reflect", "symmetric", "wrap")


def _refuse_pad(mode, what):
    from ..errors import MissingRuleError

    return MissingRuleError(
        f"no {what} of np.pad with mode={mode!r}", construct=f"np.pad(..., mode={mode!r})",
        hint="use mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap' (their derivatives "
        "are exact), or register a rule with srcad.defvjp")


@helper("numpy")
def grad_pad(g, array, pad_width, mode=None):
    """Gradient of ``np.pad(array, pad_width, mode)``: in ``constant`` mode (the default,
    ``None``) the middle of ``g``; in a mode that copies elements (``edge``, ``reflect``,
    ``symmetric``, ``wrap``) ``g`` summed over every copy of each element, found by padding
    the elements' flat indices the same way."""
    shape = np.shape(array)
    if mode in (None, "constant"):
        widths = _pad_widths(pad_width, len(shape))
        index = tuple(slice(int(lo), int(lo) + n) for (lo, _), n in zip(widths, shape))
        return _match(_asarray(g)[index], array)
    if mode not in _COPYING_PADS:
        raise _refuse_pad(mode, "gradient")
    n = int(np.prod(shape))
    source = np.pad(np.arange(n).reshape(shape), pad_width, mode=mode)
    if arrays.is_duck(g):  # Dask, CuPy: the copies summed in g's library (no bincount)
        out = arrays.scatter_add(np.zeros_like(g, dtype=float, shape=(n,)), (source.ravel(),),
                                 np.reshape(g, (-1,)), f"np.pad(..., mode={mode!r})",
                                 "compute the array first (x.compute() for Dask)")
        return _match(np.reshape(out, shape), array)
    out = np.bincount(source.ravel(), weights=np.ravel(g), minlength=n)
    return _match(out.reshape(shape), array)


@helper("numpy")
def grad_pad_value(g, array, pad_width):
    """Gradient of ``np.pad(array, pad_width, constant_values=c)`` into a scalar ``c``."""
    out = np.sum(g) - np.sum(grad_pad(g, array, pad_width))
    return out if arrays.is_duck(out) else float(out)  # Dask: lazy


@helper("numpy")
def grad_sort(g, a, axis=-1):
    """Gradient of ``np.sort(a, axis)``: ``g`` sent back to where each value came from."""
    x = _asarray(a)
    if axis is None:
        x, axis = x.ravel(), 0
    order = np.argsort(x, axis=axis, kind="stable")
    out = np.zeros(x.shape)
    np.put_along_axis(out, order, _asarray(g, dtype=float).reshape(x.shape), axis=axis)
    return _match(out.reshape(np.shape(a)), a)


@helper("numpy")
def grad_diag(g, v, k=0):
    """Gradient of ``np.diag(v, k)``: extract the diagonal (1-d ``v``) or place ``g`` on it
    (2-d ``v``)."""
    if np.ndim(v) == 1:
        return _match(np.diag(g, k).copy(), v)
    if arrays.is_duck(g):
        return _on_diagonal(g, *np.shape(v), k)
    out = np.zeros(np.shape(v))
    n = len(g)
    out[np.arange(n) + max(-k, 0), np.arange(n) + max(k, 0)] = g
    return out


def _on_diagonal(g, rows, cols, offset):
    """For a duck array ``g`` (..., n): ``g`` on the ``offset`` diagonal of (..., rows, cols)
    matrices of zeros, made by products with two NumPy matrices of zeros and ones (a write
    at two index arrays, which Dask has not, would compute ``g``)."""
    n = g.shape[-1]
    on = np.arange(n)
    to_rows = (np.arange(rows)[:, None] == on + max(-offset, 0)).astype(float)
    to_cols = (np.arange(cols)[None, :] == (on + max(offset, 0))[:, None]).astype(float)
    return (g[..., None, :] * _in_library(to_rows, g)) @ _in_library(to_cols, g)


@helper("numpy")
def grad_diagonal(g, a, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.diagonal(a, offset, axis1, axis2)``: ``g`` placed on that diagonal."""
    shape = np.shape(a)
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    g = _asarray(g, dtype=float)
    if arrays.is_duck(g):
        full = _on_diagonal(g, shape[axis1], shape[axis2], offset)
        return _match(np.moveaxis(full, (-2, -1), (axis1, axis2)), a)
    full = np.zeros(g.shape[:-1] + (shape[axis1], shape[axis2]))
    n = g.shape[-1]
    full[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = g
    return _match(np.moveaxis(full, (-2, -1), (axis1, axis2)), a)


@helper("numpy")
def grad_linspace(g, num, endpoint, axis, end):
    """Gradient of ``np.linspace`` flowing into ``start`` (``end`` false) or ``stop`` (true):
    element ``k`` is ``start + (stop - start) t_k``, so the weights are ``1 - t`` and ``t``."""
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    return np.moveaxis(_asarray(g, dtype=float), axis, -1) @ _in_library(t if end else 1.0 - t, g)


# ---------------------------------------------------------------- forward-mode tangents


#: ``np.pad`` modes that copy elements of the array (or average them): linear in the array
_LINEAR_PADS = (None, "constant", "edge", "reflect", "symmetric", "wrap", "mean")


@helper("numpy")
def tangent_pad(t, pad_width, mode=None):
    """Tangent of ``np.pad(array, pad_width, mode)`` along ``t`` (the array's tangent): the
    tangent padded the same way, with zeros in ``constant`` mode."""
    if mode not in _LINEAR_PADS:
        raise _refuse_pad(mode, "tangent")
    if mode in (None, "constant"):
        return np.pad(_asarray(t, dtype=float), pad_width)
    return np.pad(_asarray(t, dtype=float), pad_width, mode=mode)


@helper("numpy")
def tangent_sort(t, a, axis=-1):
    """Tangent of ``np.sort(a, axis)`` along ``t``: ``t`` in the order ``a`` is sorted into
    (ties in a stable order, as :func:`grad_sort` routes them)."""
    x = _asarray(a)
    tt = np.broadcast_to(_asarray(t, dtype=float), x.shape)
    if axis is None:
        x, tt, axis = x.ravel(), tt.ravel(), 0
    return np.take_along_axis(tt, np.argsort(x, axis=axis, kind="stable"), axis=axis)


# ---------------------------------------------------------------- writes (srcad.writes)


@helper("numpy")
def diagonal_positions(a, val):
    """The positions ``np.fill_diagonal(a, val)`` writes (``wrap=False``): ``(i, i, ...)``
    with ``i = arange(min(a.shape))`` (srcad lowers the call to ``a[positions] = val``).
    NumPy repeats a ``val`` shorter than the diagonal; that is refused here (a SrcadError:
    ``a[i, i] = np.resize(val, len(i))`` writes it), as are arrays of unequal sides above
    two dimensions (NumPy's ValueError)."""
    shape = np.shape(a)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ValueError("All dimensions of input must be of equal length")
    i = np.arange(min(shape))
    if np.size(val) not in (1, len(i)):
        from ..errors import SrcadError
        raise SrcadError(f"np.fill_diagonal of {np.size(val)} values along a diagonal of "
                         f"{len(i)}: NumPy repeats them, which srcad does not",
                         hint="write a[i, i] = np.resize(val, len(i)) with "
                         "i = np.arange(min(a.shape))")
    return (i,) * len(shape)


@helper("numpy")
def add_at(a, indices, b):
    """``np.add.at(a, indices, b)`` as a function: a new array, every repeat of an index
    accumulated (srcad lowers the in-place call to ``a = add_at(a, indices, b)``)."""
    if type(a) is not np.ndarray and duck_array(a):
        return arrays.add_at(a, indices, b)
    if not isinstance(a, np.ndarray):  # a list: NumPy raises (it adds into an array only)
        raise TypeError(f"np.add.at: first operand must be array, not {type(a).__name__}")
    out = np.array(a, copy=True)
    np.add.at(out, indices, b)
    return out


@helper("numpy")
def grad_add_at(value, indices, b):
    """Gradient of ``add_at(a, indices, b)`` flowing into ``b``: ``value`` (the gradient of the
    result) read at every index, repeats included, summed down to ``b``'s shape."""
    return _runtime.unbroadcast(_asarray(value)[indices], b)


@helper("numpy")
def last_writes(block, like, index):
    """For ``y[index] = v``: ``block`` (the gradient read at ``y[index]``) with 0.0 where a
    later write to the same element (a repeated integer index) replaced this one, so only
    the write NumPy kept gets a gradient. NumPy itself is asked: it writes each position's
    number and the winners are read back, whatever order NumPy writes repeats in. ``block``
    is returned as it is when ``like`` is not an array (a list has no repeated writes)."""
    if not isinstance(like, np.ndarray):
        if not duck_array(like):
            return block
        # a Dask or CuPy array: which writes NumPy keeps depends on the shape alone
        return block * arrays.to_library(last_writes(np.ones(np.shape(block)), np.broadcast_to(
            0.0, like.shape), index), like)
    shape = np.shape(like[index])
    probe = np.full(like.shape, -1, dtype=np.intp)
    probe[index] = np.arange(int(np.prod(shape, dtype=np.intp))).reshape(shape)
    kept = np.zeros(shape, dtype=float)
    kept.reshape(-1)[probe[probe >= 0]] = 1.0
    return block * kept
