"""Helpers for the gradients of containers read item by item: :func:`items_at` (the gradient
of a list, tuple or dict whose items were read, ``a, b = f(x)``) and :func:`picked` (its own
gradient, for generated code differentiated again) and :func:`filled` (a sparse list gradient
made whole); :func:`add_row` (a gradient added into a row of an array's) and :func:`add_into`
(added in place at an index known only when the code runs). Imports only :mod:`.helpers` and
:mod:`.registry`."""

from __future__ import annotations

import numpy as np

from .helpers import add, zeros_like
from .registry import helper

_ARRAY = np.ndarray
_FLOAT64 = np.dtype(np.float64)
_COMPLEX128 = np.dtype(np.complex128)


@helper("runtime")
def items_at(like, indices, values):
    """``zeros_like(like)`` with ``values[k]`` added at ``indices[k]``: the gradient of a
    list, tuple or dict whose items were read (``a, b = f(x)``), made at once instead of
    zeros then an ``add`` per item. A float64 array or a number is placed as it is (the
    backward sweep adds into an array in place only where it made the array itself), a list
    or dict as a new one (a callee's backward part pops from its lists)."""
    kind = type(like)
    if (kind is tuple or kind is list or kind is dict) and len(indices) == len(like):
        # the common case first (every item of a callee's result read once, lstm's cells, a
        # dict of parameters): each item's gradient placed, no zeros to make, no pass over
        # the rest (a dict's keys in its order: ``fromkeys``)
        out = [None] * len(like) if kind is not dict else dict.fromkeys(like)
        for i, v in zip(indices, values):
            if out[i] is not None:
                break  # an item read twice (another one is then not): the general way
            item = like[i]
            kind_v = type(v)
            if kind_v is float and item.__class__ is float:
                out[i] = v  # (as _placed: a float's gradient as it is)
            elif kind_v is _ARRAY:
                out[i] = v if type(item) is _ARRAY and v.dtype is _FLOAT64 and (
                    v.shape == item.shape) else _placed(v, item)
            elif kind_v is list and type(item) is list and len(v) == len(item):
                # a list's gradient (a callee's backward part's filled list): as _placed
                out[i] = [u if type(u) is _ARRAY and type(w) is _ARRAY and (
                    u.dtype is _FLOAT64 and u.shape == w.shape) else _placed(u, w)
                    for u, w in zip(v, item)]
            else:
                out[i] = _placed(v, item)
        else:
            return out
    if kind is dict:
        out = dict.fromkeys(like)
    else:
        out = [None] * len(like)
    for i, v in zip(indices, values):
        out[i] = _placed(v, like[i]) if out[i] is None else add(out[i], v)
    for i, v in (out.items() if type(out) is dict else enumerate(out)):
        if v is None:
            out[i] = zeros_like(like[i])
    return out


def _placed(value, item):
    """``add(zeros_like(item), value)`` sharing ``value``'s arrays where that adds nothing."""
    kind = type(value)
    if kind is _ARRAY:
        if type(item) is _ARRAY and value.shape == item.shape and value.dtype.char in "dD":
            return value
    elif kind is float or kind is np.float64:
        if isinstance(item, (int, float, np.number)):
            return value
    elif (kind is list or kind is tuple) and type(item) in (list, tuple) and (
            len(value) == len(item)):
        return [v if type(v) is _ARRAY and type(u) is _ARRAY and v.dtype is _FLOAT64 and (
            v.shape == u.shape) else _placed(v, u) for v, u in zip(value, item)]
    return add(zeros_like(item), value)


@helper("runtime")
def picked(grad, indices):
    """The items of ``grad`` at ``indices`` (the gradient of :func:`items_at`'s values)."""
    return [grad[i] for i in indices]


@helper("runtime")
def filled(grad, value):
    """A sparse list gradient made whole (``srcad.transform.sparse``): a new list with, for
    each array of the list ``value``, its gradient as the dense sweep would have made it
    (zeros plus what was added: a new float64 or complex128 array of the item's shape) where
    the entry is ``None`` or is not such an array already (a number, another dtype, a
    read-only view, an array an earlier entry is: one callee's gradient may reach two
    items), and the entry itself where it is."""
    out = list(grad)
    # the ids of the arrays kept so far: a list for a few items (no set to make), a set else
    kept = [] if len(out) <= 8 else set()
    keep = kept.append if type(kept) is list else kept.add
    for i, v in enumerate(out):
        item = value[i]
        if type(v) is _ARRAY and type(item) is _ARRAY:
            dtype = v.dtype
            if (dtype is _FLOAT64 or dtype is _COMPLEX128) and v.shape == item.shape and (
                    v.flags.writeable):
                key = id(v)
                if key not in kept:
                    keep(key)
                    continue
        zero = np.zeros(item.shape) if type(item) is _ARRAY else zeros_like(item)
        out[i] = zero if v is None else zero + v
    return out


@helper("runtime")
def add_row(grad, index, value):
    """``grad[index] += value`` for a gradient array ``grad`` of rank 2 or more and an int
    ``index`` (``srcad.transform.partition.added``): the row is a view of ``grad``, added
    into in place, and not written back onto itself (NumPy's ``grad[index] += value`` copies
    the row's sum onto the row: a third of the statement's time on a small row)."""
    row = grad[index]
    row += value


@helper("runtime")
def add_into(grad, index, value):
    """``grad[index] += value`` for a gradient array ``grad`` the backward sweep made (nothing
    else holds it) and an index whose form is known only when the code runs (an item of a
    list, ``A[rows[0], cols[j]]``): added in place where the index is basic (ints and
    slices reach each element once), by ``np.add.at`` else (a repeated element adds each
    time). No array of zeros per read, as ``grad += scatter(value, like, index)`` made."""
    kind = type(index)
    if kind is int or kind is slice or kind is tuple and all(
            type(i) is int or type(i) is slice for i in index):
        grad[index] += value
    else:
        np.add.at(grad, index, value)
