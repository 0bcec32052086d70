"""What the code :mod:`.views` writes calls when it runs: the index of a view into its base,
and of an element of the view into the base (issue 16).

:func:`view_at` evaluates a view's index once, where the view is taken, to one nonnegative
integer or slice per axis of the base, after checking that the base is an array and the index
basic (integers, slices, ``...``) and not one that makes a number; :func:`check_view` makes
the same checks for a view whose index is read again as written; :func:`view_within` gives
the index into the base of ``view[index]``: basic items compose axis by axis through Python's
``range`` (which slices exactly as NumPy does, negative steps too), an index array, a mask or
``None`` pick the places the view's elements have in the base (``np.unravel_index``). Each is
registered as having no derivative (an index).

Imports NumPy, :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..errors import MutationError
from ..rules.registry import registry as _registry


def _refuse(where, what, hint):
    view, base, filename, lineno, text = where
    raise MutationError(what, filename=filename, lineno=lineno, construct=text, hint=hint)


def _integer(item):
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _basic(item):
    if item is Ellipsis or _integer(item):
        return True
    return isinstance(item, slice) and all(
        b is None or _integer(b) for b in (item.start, item.stop, item.step))


def _items(index):
    return index if type(index) is tuple else (index,)


def _as_slice(r):
    """The slice of a ``range`` of nonnegative positions (a negative step's end is None)."""
    stop = r.stop if r.stop >= 0 else None
    return slice(r.start, stop, r.step)


def _as_range(s):
    return range(s.start, -1 if s.stop is None else s.stop, s.step)


def _expand(items, ndim, where, name):
    """``items`` (basic, or ``None``: a new axis) with its ``...`` spread to full slices over
    ``ndim`` axes."""
    ellipses = sum(1 for i in items if i is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    given = len(items) - ellipses - sum(1 for i in items if i is None)
    if given > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{given} were indexed")
    out = []
    for i in items:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - given))
        else:
            out.append(i)
    out.extend([slice(None)] * (ndim - sum(1 for i in out if i is not None)))
    return out


def _compose(ranges, items):
    """The index into the base of ``view[items]`` (basic items), the view's axes being the
    positions ``ranges`` (one ``range`` per axis of the view) of the base's axes."""
    out = []
    for r, item in zip(ranges, items):
        if isinstance(item, slice):
            out.append(r[item])
        else:
            out.append(r[operator.index(item)])  # IndexError past the end, as NumPy
    return out


def view_at(base, index, where):
    """The index ``base[index]`` takes, one integer or slice per axis of ``base`` (each
    nonnegative, evaluated now), for a name srcad reads as a view of ``base``; refused when
    ``base`` is not an array or ``index`` not basic (then Python's value is a copy, or not an
    array's, and the writes through it were read as writes into ``base``). ``where``: (view,
    base, file, line, text)."""
    view, name = where[0], where[1]
    if not isinstance(base, np.ndarray):
        _refuse(where, f"{view} = {name}[...] is read as a view of the array {name}, "
                f"but {name} is a {type(base).__name__} when the code runs",
                f"write {view} = {name}[...] where {name} is an array, or change a copy "
                f"({view} = list({name}[...]))")
    items = _items(index)
    if not all(_basic(i) or i is None for i in items):
        _refuse(where, f"{view} = {name}[...] is written through, but its index is not "
                "integers and slices when the code runs (an index array or mask makes a "
                "copy, not a view)", f"write {view} = {name}[...].copy() if a copy is meant, "
                f"or write into {name} at those places")
    if not any(i is Ellipsis or i is None for i in items) and \
            sum(1 for i in items if _integer(i)) >= base.ndim:
        _refuse(where, f"{view} = {name}[...] is one number (the index takes every axis of "
                f"{name}), not a view, yet it is written by item",
                f"index {name} itself: {name}[...] = ...")
    out, sizes = [], iter(base.shape)
    for item in _expand(items, base.ndim, where, view):
        if item is None:  # a new axis: None in the index into the base too
            out.append(None)
            continue
        r = range(next(sizes))
        out.append(_as_slice(r[item]) if isinstance(item, slice) else r[operator.index(item)])
    return tuple(out)


def check_view(base, index, where):
    """:func:`view_at`'s checks, for a view read again with its index as written."""
    view_at(base, index, where)


def view_within(base, at, index, where, view=False):
    """The index into ``base`` of the elements ``index`` picks of the view ``base[at]``
    (``at`` from :func:`view_at`): integers and slices composed axis by axis; an index array,
    a mask or ``None`` pick the positions those elements have in ``base``
    (``np.unravel_index``). ``view``: the result is bound as a view itself (``w = v[J]``),
    so the index must be basic."""
    items = _items(index)
    new_axes = any(a is None for a in at) or any(i is None for i in items)
    found = _compose_new_axes(at, _expand(items, sum(
        1 for a in at if not _integer(a)), where, where[0])) if new_axes and all(
            _basic(i) or i is None for i in items) else None
    if found is not None:
        return found
    ranges = [_as_range(a) for a in at if isinstance(a, slice)]
    if not new_axes and all(_basic(i) for i in items):
        return _compose_at(at, _compose(ranges, _expand(items, len(ranges), where, where[0])))
    if view:
        _refuse(where, f"{where[0]} = ...[...] is read as a view, but its index is not "
                "integers and slices when the code runs", "write ... .copy() if a copy is "
                "meant")
    positions = np.arange(base.size).reshape(base.shape)[at]
    return np.unravel_index(positions[index], base.shape)


def _compose_new_axes(at, items):
    """The index into the base of ``view[items]`` (``items`` basic or ``None``, ``...``
    spread), the view ``base[at]`` with new axes (``None`` in ``at``): a view axis that is
    a new one takes ``0``/``-1`` (gone) or a slice keeping its one place (``None`` again);
    ``None`` in ``items`` is ``None`` before the next axis. None when a slice empties a new
    axis (then the places are picked, as for an index array)."""
    axes = [k for k, a in enumerate(at) if not _integer(a)]
    parts, pending, j = {}, [], 0
    for item in items:
        if item is None:
            pending.append(None)
            continue
        k = axes[j]
        j += 1
        a = at[k]
        r = _as_range(a) if isinstance(a, slice) else range(1)
        c = r[item] if isinstance(item, slice) else r[operator.index(item)]
        if a is None:
            if isinstance(c, range) and len(c) != 1:
                return None
            c = [None] if isinstance(c, range) else []
        else:
            c = [_as_slice(c) if isinstance(c, range) else c]
        parts[k], pending = pending + c, []
    out = []
    for k, a in enumerate(at):
        out.extend(parts.get(k, [a]))
    return tuple(out + pending)


def _compose_at(at, composed):
    """``at`` with its slices replaced by ``composed`` (ranges or integers) in turn."""
    out, k = [], 0
    for a in at:
        if isinstance(a, slice):
            c = composed[k]
            k += 1
            out.append(_as_slice(c) if isinstance(c, range) else c)
        else:
            out.append(a)
    return tuple(out)


for _check in (view_at, view_within, check_view):
    _registry.nondiff.add(_check)  # indices: no derivative
