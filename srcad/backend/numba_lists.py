"""Gradients of lists and tuples under the Numba backend.

srcad's Python helpers give the gradient of any list or tuple as a Python list (a tuple's
too), whose items may differ in type; Numba types a list by one item type. Here:

* a list's gradient is a list (Numba's) of its items' gradients, of one type, as a list of
  arrays of one rank is (``zeros_like`` of a list, and ``mutable``, a new list holding the
  same items, for the gradient of a list a callee's backward part hands its caller; of a
  tuple of gradients, the same tuple with its lists new);
* a tuple's gradient whose items the backward code assigns (``d[1] = add(d[1], v)``) is a
  list, which needs the items' gradients to be of one type (a tuple of arrays of one rank, or
  of numbers: an array); another tuple is refused, naming its type;
* ``items_at(like, (1, 0), (a, b))``, the gradient of a list or tuple whose items were read,
  is written ``items_at_1_0(like, a, b)`` (:func:`items_at`, one helper per pattern of
  indices): for a tuple ``like``, a tuple of its items' gradients, each of its own type, so
  a callee returning ``(array, list)`` hands back ``(darray, dlist)``; for a list, a list;
* the gradient of ``np.array(L)`` as a list where the code pops it (:func:`grad_list`);
* ``sum(L)`` of a list of numbers: its gradient ``fill`` (:func:`fill`), and ``add`` of two
  lists' gradients (:func:`added`);
* ``cleared`` of a list of numbers (:func:`cleared`: an item written, ``xs[i] = v``); of a
  list of arrays refused, saying what to write;
* a list display whose items are all arrays (:func:`array_list`, of one type), ``np.stack``
  of a list or tuple of arrays (:func:`stack`) and its gradient (:func:`grad_stack`), along
  axis 0.

Imports ``numba`` (only :mod:`.numba_helpers` imports this module, when it compiles).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

_NUMBER = (types.Number, types.Boolean)


def listed(x):
    """Whether ``x`` (a Numba type) is a list of one item type, or a tuple whose gradient is
    a list of one item type (a tuple of arrays of one type)."""
    if isinstance(x, (types.List, types.ListType)):
        return True
    return isinstance(x, types.UniTuple) and isinstance(x.dtype, types.Array)


def zeros_like(x, zeros):
    """The implementation of ``zeros_like`` for a list (or a tuple of arrays of one type):
    a list of zeros like its items, each made by ``zeros`` (the helper itself)."""
    if not listed(x):
        raise TypingError(f"srcad's numba backend makes zero gradients of lists and of tuples "
                          f"of arrays of one type, not of {x}")

    def zero_list(x):
        return [zeros(x[i]) for i in range(len(x))]

    return zero_list


def cleared(value, index):
    """The implementation of ``cleared`` (the gradient past ``xs[i] = v`` to the old ``xs``)
    for a list: of numbers, a new list with the item ``i`` 0.0, as srcad's Python helper
    makes it. Of arrays, refused: Python's helper puts 0.0 there, whose sum with the old
    item's gradient takes that item's shape, and a list of arrays holds arrays only (zeros
    shaped like the new item would give the old one the new one's shape where ``v``
    broadcasts it)."""
    if isinstance(value, (types.List, types.ListType)) and isinstance(
            value.dtype, types.Float) and isinstance(index, types.Integer):
        def zeroed(value, index):
            out = [value[i] for i in range(len(value))]
            out[index] = 0.0
            return out
        return zeroed
    if isinstance(value, (types.List, types.ListType)) and isinstance(value.dtype, types.Array):
        raise TypingError("srcad's numba backend writes no item of a list of arrays "
                          "(xs[i] = v): make a new list (xs = [v, xs[1]]) or hold the items "
                          "as the rows of one array (X = np.stack(xs), then X[i] = v)")
    raise TypingError(f"srcad's numba backend clears an int, a slice or a tuple of them in an "
                      f"array, or an int in a list of floats (got {index} of {value})")


def grad_list(g):
    """Stub: the gradient of ``np.array(L)`` (``grad_array``, a 1-d array here) as the list
    srcad's Python helper gives, for code that pops it (``L`` built by ``append`` in a loop:
    :func:`srcad.backend.numba_displays.popped_gradients`)."""
    raise NotImplementedError


@overload(grad_list)
def _grad_list(g):
    if isinstance(g, types.Array) and g.ndim == 1 and isinstance(g.dtype, types.Float):
        return lambda g: [g[i] for i in range(len(g))]
    raise TypingError(f"srcad's numba backend pops the gradient of np.array of a list of "
                      f"numbers only (got {g})")


def added(a, b, add):
    """The implementation of ``add`` for two lists' gradients: a new list of the items'
    sums (``add``, the helper itself), of equal lengths (else ValueError, where srcad's
    Python helper raises too); anything else refused."""
    if isinstance(a, (types.List, types.ListType)) and isinstance(b, (types.List,
                                                                      types.ListType)):
        def summed(a, b):
            if len(a) != len(b):
                raise ValueError("srcad (numba backend): two gradients of one list differ "
                                 "in length")
            return [add(a[i], b[i]) for i in range(len(a))]
        return summed
    if {isinstance(a, types.Array), isinstance(b, types.Array)} == {True, False} and any(
            isinstance(t, (types.List, types.ListType)) for t in (a, b)):
        raise TypingError("srcad's numba backend: a list read both item by item and as an "
                          "array (L[i] and np.array(L)) has a gradient of two types: read the "
                          "items from the array, A = np.array(L) then A[i]")
    raise TypingError(f"srcad's numba backend adds numbers, arrays and lists, not {a} and {b}")


def fill(value, like):
    """Stub: srcad's ``fill``, the gradient of ``sum(like)``: ``value`` for every item."""
    raise NotImplementedError


@overload(fill)
def _fill(value, like):
    if isinstance(value, _NUMBER) and isinstance(like, (types.List, types.ListType)) and (
            isinstance(like.dtype, _NUMBER)):
        return lambda value, like: [float(value) for _ in range(len(like))]
    if isinstance(value, _NUMBER) and isinstance(like, types.Array):
        return lambda value, like: np.full(like.shape, float(value))
    raise TypingError(f"srcad's numba backend has the gradient of sum() of a list of numbers "
                      f"or of an array only (got {value} for {like})")


def mutable(grad):
    """Stub: srcad's ``mutable`` (the gradient a callee's backward part hands its caller)."""
    raise NotImplementedError


@overload(mutable)
def _mutable(grad):
    if isinstance(grad, (types.List, types.ListType)):
        def copied(grad):
            out = [grad[i] for i in range(len(grad))]
            return out
        return copied
    if isinstance(grad, (types.Array,) + _NUMBER):
        return lambda grad: grad
    if isinstance(grad, types.BaseTuple):  # a tuple of gradients (items_at): its lists new
        items = ", ".join(f"mutable(grad[{j}])" for j in range(len(grad.types)))
        scope = {"mutable": mutable}
        exec(f"def made(grad):\n    return ({items},)\n", scope)  # noqa: S102 - ints only
        return scope["made"]
    raise TypingError(f"srcad's numba backend hands a caller the gradient of a list, not of "
                      f"{grad}")


def placed(value, item):
    """Stub: ``add(zeros_like(item), value)``, ``value`` itself where that adds nothing (an
    array of the item's shape, a number), a new list for a list (a callee's backward part
    pops from the lists it is handed)."""
    raise NotImplementedError


@overload(placed)
def _placed(value, item):
    if isinstance(value, types.Array) and isinstance(item, types.Array) and (
            value.ndim == item.ndim):
        def same(value, item):
            if value.shape != item.shape:
                raise ValueError("srcad (numba backend): a gradient shaped unlike its value")
            return value
        return same
    if isinstance(value, types.Float) and isinstance(item, _NUMBER):
        return lambda value, item: value
    if isinstance(value, types.Number) and isinstance(item, _NUMBER):
        return lambda value, item: float(value)
    if isinstance(value, (types.List, types.ListType)):
        return lambda value, item: [value[i] for i in range(len(value))]
    raise TypingError(f"srcad's numba backend places gradients of arrays, numbers and "
                      f"lists, not {value} for {item}")


@functools.cache
def items_at(indices, zeros, add):
    """The helper ``items_at_<indices>(like, *values)``: ``zeros_like(like)`` with
    ``values[k]`` added at ``indices[k]`` (a tuple of ints, known when the code is made). One
    stub and its overload per pattern, made here (cached). ``zeros`` and ``add``: the
    helpers ``zeros_like`` and ``add`` of :mod:`.numba_helpers`, handed down."""
    count = len(indices)
    params = ", ".join(f"v{k}" for k in range(count))

    def typing(like, *values):
        if isinstance(like, types.BaseTuple) and not listed(like) and not (
                isinstance(like, types.UniTuple) and isinstance(like.dtype, _NUMBER)):
            # items of types of their own: a tuple of gradients, each placed as it is
            size = len(like.types)
            if any(i >= size for i in indices):
                raise TypingError(f"srcad's numba backend: an index past the end of {like}")
            items = []
            for j in range(size):
                given = [f"v{k}" for k, i in enumerate(indices) if i == j]
                item = f"placed({given[0]}, like[{j}])" if given else f"zeros(like[{j}])"
                for other in given[1:]:
                    item = f"add({item}, {other})"
                items.append(item)
            text = f"def made(like, {params}):\n    return ({', '.join(items)},)\n"
        else:  # zeros_like's list (or array, for a tuple of numbers), added into
            lines = [f"def made(like, {params}):", "    out = zeros(like)"]
            lines += [f"    out[{i}] = add(out[{i}], v{k})" for k, i in enumerate(indices)]
            lines.append("    return out")
            text = "\n".join(lines) + "\n"
        scope = {"zeros": zeros, "add": add, "placed": placed}
        exec(text, scope)  # noqa: S102 - made here from ints and the names above
        return scope["made"]

    # Numba's overload matches the stub's signature: spell the parameters out
    text = (f"def stub(like, {params}):\n    raise NotImplementedError\n"
            f"def typing(like, {params}):\n    return inner(like, {params})\n")
    scope = {"inner": typing}
    exec(text, scope)  # noqa: S102 - parameter names made here
    stub = scope["stub"]
    stub.__name__ = stub.__qualname__ = "items_at_" + "_".join(map(str, indices))
    overload(stub)(scope["typing"])
    return stub


# ---------------------------------------------------------------- lists of arrays, stacked


def array_list(*items):
    """Stub: the list display ``[a, b, ...]`` of arrays or numbers
    (:func:`srcad.backend.numba_backend.check` writes a display so). Its items must have one
    Numba type: a list Numba would otherwise make of items of different types (an int among
    floats, an int array among float arrays) is refused."""
    raise NotImplementedError


@overload(array_list)
def _array_list(*items):
    if len(items) == 1 and isinstance(items[0], types.StarArgTuple):
        items = items[0].types
    first = items[0] if items else None
    if isinstance(first, types.Array) and all(
            isinstance(t, types.Array) and (t.dtype, t.ndim) == (first.dtype, first.ndim)
            for t in items) and any(t != first for t in items):
        # arrays differing in layout only (a slice among new arrays, batched forward mode's
        # tangents): a list of the one that is not C-ordered (any layout), the first item in
        # its place
        text = "\n".join(
            ["def made(*items):",
             f"    out = [items[{next(k for k, t in enumerate(items) if t.layout != 'C')}]]",
             "    out[0] = items[0]"]
            + [f"    out.append(items[{k}])" for k in range(1, len(items))]
            + ["    return out"])
        scope = {}
        exec(text, scope)  # noqa: S102 - made here from ints
        return scope["made"]
    if not (isinstance(first, (types.Array, types.Number, types.Boolean))
            and all(t == first for t in items)):
        raise TypingError(f"srcad's numba backend makes a list display of arrays (or numbers) "
                          f"of one type only (got {', '.join(map(str, items))}): write "
                          f"np.array(...) or a tuple")

    def made(*items):
        out = [items[0]]
        for k in range(1, len(items)):
            out.append(items[k])
        return out

    return made


def _axis_zero(axis):
    """Whether the Numba type ``axis`` is an omitted axis or the constant 0."""
    if isinstance(axis, types.Omitted):
        return axis.value == 0
    if type(axis) is int:  # the stub's default, the argument left out
        return axis == 0
    return isinstance(axis, types.IntegerLiteral) and axis.literal_value == 0


def _arrays_of_one_type(arrays):
    return (isinstance(arrays, (types.List, types.ListType))
            and isinstance(arrays.dtype, types.Array)) or (
        isinstance(arrays, types.UniTuple) and isinstance(arrays.dtype, types.Array))


def stack(arrays, axis=0):
    """Stub: ``np.stack(arrays)`` of a list (or a tuple) of arrays of one type, along axis 0
    (Numba's ``np.stack`` takes a tuple only)."""
    raise NotImplementedError


@overload(stack)
def _stack(arrays, axis=0):
    if not (_arrays_of_one_type(arrays) and _axis_zero(axis)):
        raise TypingError(f"srcad's numba backend stacks a list or tuple of arrays of one type "
                          f"along axis 0 only (got {arrays}, axis {axis})")

    def stacked(arrays, axis=0):
        n = len(arrays)
        if n == 0:
            raise ValueError("need at least one array to stack")
        shape = arrays[0].shape
        out = np.empty((n,) + shape, dtype=arrays[0].dtype)
        rows = out.reshape((n, out.size // n))
        for i in range(n):
            if arrays[i].shape != shape:
                raise ValueError("all input arrays must have the same shape")
            row, j = rows[i], 0
            for v in arrays[i].flat:  # (not out[i] = arrays[i]: Numba compiles its error
                row[j] = v            # message's formatting, 5-6 s)
                j += 1
        return out

    return stacked


def grad_stack(g, arrays, axis=0):
    """Stub: srcad's ``grad_stack`` along axis 0: a list of ``g``'s items (views, as the
    Python helper's)."""
    raise NotImplementedError


@overload(grad_stack)
def _grad_stack(g, arrays, axis=0):
    if not (_arrays_of_one_type(arrays) and _axis_zero(axis) and isinstance(g, types.Array)
            and g.ndim == arrays.dtype.ndim + 1):
        raise TypingError(f"srcad's numba backend has the gradient of np.stack of a list or "
                          f"tuple of arrays of one type along axis 0 only (got {arrays}, "
                          f"axis {axis})")

    def pieces(g, arrays, axis=0):
        if g.shape[0] != len(arrays):
            raise ValueError("srcad (numba backend): a gradient shaped unlike its value")
        return [g[i] for i in range(len(arrays))]

    return pieces
