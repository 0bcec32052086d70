"""Additions written back into an array: ``y = x.copy(); y[i] = x[i] + b`` (in SSA ``a =
x[i]``, ``t = a + b``, ``y = x`` with ``y[i] = t``; ``x[i] += b`` in code srcad reads, or
the plain form of srcad's own backward code differentiated again: ``dx[0] += v``),
differentiated as one operation: ``y`` is ``x`` with ``b`` added at ``i``, so ``x``'s
gradient is ``y``'s whole (not ``cleared(dy, i)`` plus ``scatter(dy[i], x, i)``, an array of
zeros and a copy that add up to ``dy``), and ``a``, the element read only to be written
back, gets none. ``b``'s gradient is what it was (through ``t``, from ``dy[i]``).

Only where ``a`` and ``t`` are read once each (by ``t`` and by the write), the three
statements are in one block, ``x`` is an array that is not complex (nor is ``t``), ``b``
is not complex, and the index is known to be basic (ints and slices: it reaches each
element once) and is the same atom in the read and the write. Imports: ``srcad.core``.
"""

from __future__ import annotations

import operator
from collections import Counter

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY

_ADD = (operator.add, np.add)


def find(fn, an):
    """``(writes, unread)``: the ids of the :class:`ir.SetItem` statements of ``fn`` that
    are such additions, and the names of the elements read only to be written back."""
    defs, reads, block = {}, Counter(ir.read_counts(fn.body)), {}
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign) and stmt.target is not None and not stmt.effect:
            defs[stmt.target] = stmt
    _blocks(fn.body, block)
    writes, unread = set(), set()
    for stmt in ir.walk(fn.body):
        if not isinstance(stmt, ir.SetItem) or not isinstance(stmt.value, ir.Var):
            continue
        obj, index, t = stmt.obj, stmt.index, defs.get(stmt.value.name)
        if t is None or reads[t.target] != 1 or not _added(t.value) or (
                an.kinds.get(obj.name) != ARRAY or obj.name in an.complex or (
                    t.target in an.complex) or not _basic(index, an)):
            continue
        for k in (0, 1):
            a, b = t.value.args[k], t.value.args[1 - k]
            read = defs.get(a.name) if isinstance(a, ir.Var) else None
            if read is None or reads[a.name] != 1 or not _read_of(read.value, obj, index) or (
                    isinstance(b, ir.Var) and b.name in an.complex) or not (
                    block.get(id(read)) is block.get(id(t)) is block.get(id(stmt))):
                continue
            writes.add(id(stmt))
            unread.add(a.name)
            break
    return writes, unread


def _added(value):
    return isinstance(value, ir.Prim) and not value.kwargs and len(value.args) == 2 and any(
        value.fn is f for f in _ADD)


def _read_of(value, obj, index):
    """Whether ``value`` is ``obj[index]`` (the same atoms)."""
    return isinstance(value, ir.Prim) and value.fn is operator.getitem and not value.kwargs \
        and len(value.args) == 2 and value.args[0] == obj and _same(value.args[1], index)


def _same(i, j):
    """The same index: equal atoms, constants of one type (``0`` is not ``False``)."""
    if isinstance(i, ir.Index) and isinstance(j, ir.Index):
        return len(i.items) == len(j.items) and all(map(_same, i.items, j.items))
    if isinstance(i, ir.Slice) and isinstance(j, ir.Slice):
        return _same(i.lower, j.lower) and _same(i.upper, j.upper) and _same(i.step, j.step)
    if isinstance(i, ir.Const) and isinstance(j, ir.Const):
        return type(i.value) is type(j.value) and (i.value is None or type(i.value) is int) \
            and i.value == j.value
    return i is None and j is None or isinstance(i, ir.Var) and i == j


def _basic(index, an):
    """Whether ``index`` is known to be an int, a slice, or a tuple of them."""
    for item in index.items if isinstance(index, ir.Index) else (index,):
        if isinstance(item, ir.Slice) or isinstance(item, ir.Const) and (
                type(item.value) is int) or isinstance(item, ir.Var) and item.name in an.ints:
            continue
        return False
    return True


def _blocks(body, out):
    """``{id(statement): the list it is in}`` over ``body`` and its blocks."""
    for stmt in body:
        out[id(stmt)] = body
        for inner in ir.blocks_of(stmt):
            _blocks(inner, out)
