"""Tidy, item reads that cannot fail: ``x[i]`` inside ``for i in range(len(x)):`` (or
``reversed(range(n))`` with ``n = len(x)`` bound once at the top level), ``x[i, j]`` inside
loops over ``range(x.shape[0])`` and ``range(x.shape[1])``, of an array ``x`` whose length
nothing changes. ``0 <= i < len(x)``, so reading the item raises nothing, and a
value made of it that nothing reads goes like any other (:mod:`.tidy_dead`): the forward loop
of a function whose backward sweep reads its items again (:mod:`srcad.transform.reads_again`)
keeps no ``np.sin(x[i])`` of the value the gradient does not return.

``x`` is a name bound once (a parameter or one assignment) that nothing may change the
length of (:func:`.tidy_sizes._unchanged`), an array by the analysis' facts
(:class:`srcad.analysis.raise_facts.Facts`); ``i`` is bound by that loop alone (no
assignment to it in the loop's body). The item is a number of the array's fact (a float of
an array certainly of floats) when the array is of rank one, else an array.

An ``if`` whose arms were emptied and whose test is such a read compared (``if x[i] > 0.5:
pass``) goes too (:func:`idle_tests`): its test cannot fail, and a number's truth cannot
raise.

Imports: :mod:`srcad.rules.raising` (the facts), :mod:`srcad.transform.nodes` (the comment
node), :mod:`.tidy_sizes` (what nothing changes), :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from ..rules import raising
from ..transform.nodes import Comment
from .tidy_sizes import _len_call, _range_of_one, _unchanged
from .tidy_walk import _blocks, _count_names, _walk

_NUMBERS = (raising.NUMBER, raising.FLOAT, raising.INT, raising.CNUMBER)


def mark_in_bounds(fdef, arrays):
    """Mark (``srcad_in_bounds``) the item reads of ``fdef`` that cannot fail (see the
    module docstring). ``arrays``: the facts :mod:`.tidy_dead` is given."""
    for node in _walk(fdef):  # (marks of an earlier round: the tree may have changed since)
        if node.__class__ is ast.Subscript and getattr(node, "srcad_in_bounds", None):
            node.srcad_in_bounds = None
    if not arrays or not any(s.__class__ is ast.For for s in fdef.body):
        return
    stores = _count_names(fdef)[0]
    sizes = {}  # n -> (p, axis) of a top-level n = len(p) or n = p.shape[axis] bound once
    for stmt in fdef.body:
        size = _axis_size(stmt)
        if size is not None and stores.get(size[0]) == 1:
            sizes[size[0]] = size[1]
    _mark(fdef.body, {}, sizes, arrays, [None, stores, fdef])


def _mark(stmts, ranged, sizes, arrays, known):
    """Mark the reads in ``stmts``; ``ranged``: loop target -> (array, axis) of the loops
    around; ``known``: [the names nothing changes the length of (made once), the counts, the
    function]."""
    for stmt in stmts:
        if stmt.__class__ is ast.For:
            inner = ranged
            size = _ranged(stmt.iter, sizes)
            if size is not None and stmt.target.__class__ is ast.Name and isinstance(
                    arrays.get(size[0]), raising.Alike) and not any(
                    n.__class__ is ast.Name and n.id == stmt.target.id and (
                        n.ctx.__class__ is not ast.Load) for s in stmt.body for n in _walk(s)):
                if known[0] is None:
                    known[0] = _unchanged(known[2], known[1])
                if size[0] in known[0]:
                    inner = dict(ranged)
                    inner[stmt.target.id] = size
            if inner:
                for n in (n for s in stmt.body for n in _walk(s)):
                    if n.__class__ is ast.Subscript and n.ctx.__class__ is ast.Load and (
                            n.value.__class__ is ast.Name) and _within(n, inner):
                        n.srcad_in_bounds = (n.value.id, ast.dump(n.slice))
            _mark(stmt.body, inner, sizes, arrays, known)
        elif stmt.__class__ in (ast.If, ast.While, ast.With, ast.Try):
            for field in ("body", "orelse", "finalbody"):
                _mark(getattr(stmt, field, ()), ranged, sizes, arrays, known)


def _within(node, ranged):
    """Whether every index of ``node`` (``x[i]``, ``x[i, j]``) is a loop target walking the
    axis of ``x`` it indexes."""
    parts = node.slice.elts if node.slice.__class__ is ast.Tuple else [node.slice]
    return all(p.__class__ is ast.Name and ranged.get(p.id) == (node.value.id, k)
               for k, p in enumerate(parts))


def idle_tests(fdef, arrays, safe, fact):
    """Drop ``if x[i] > 0.5: pass`` (both arms emptied by the other rewrites; ``else: pass``
    too) whose test cannot fail (``safe``: :func:`.tidy_dead._safe`) and is a number
    (``fact``: :func:`.tidy_dead._fact`), so its truth cannot raise either (an array's
    would); whether anything changed."""
    changed = False
    for block, _ in list(_blocks(fdef)):
        kept = [s for s in block if not (s.__class__ is ast.If and all(
            b.__class__ in (ast.Pass, Comment) for b in s.body + s.orelse) and safe(
            s.test, (), arrays) and (fact(s.test, arrays) in _NUMBERS))]
        if len(kept) != len(block):
            block[:] = kept or [ast.Pass()]
            changed = True
    return changed


def in_bounds(node):
    """Whether the ``ast.Subscript`` ``node`` is marked by :func:`mark_in_bounds` (and still
    reads what it read then)."""
    mark = getattr(node, "srcad_in_bounds", None)
    return mark is not None and node.value.__class__ is ast.Name and mark == (
        node.value.id, ast.dump(node.slice))


def item_fact(node, arrays):
    """The fact of an item read marked by :func:`mark_in_bounds`, else None."""
    alike = arrays.get(node.value.id)
    if not isinstance(alike, raising.Alike):
        return raising.UNKNOWN
    ranks = getattr(getattr(arrays, "analysis", None), "ranks", {})
    parts = node.slice.elts if node.slice.__class__ is ast.Tuple else [node.slice]
    if ranks.get(node.value.id) != len(parts):
        return raising.ARRAY
    if alike.complex:
        return raising.CNUMBER
    if alike.floats:
        return raising.FLOAT
    return raising.NUMBER if alike.numbers else raising.UNKNOWN


def _ranged(node, sizes):
    """``(p, axis)`` of ``range(len(p))``, ``range(p.shape[axis])``, ``range(n)`` with ``n``
    such a size in ``sizes``, or either reversed; else None."""
    if node.__class__ is ast.Call and node.func.__class__ is ast.Name and (
            node.func.id == "reversed") and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if not _range_of_one(node):
        return None
    size = node.args[0]
    if size.__class__ is ast.Name:
        return sizes.get(size.id)
    return _size_of(size)


def _size_of(node):
    """``(p, 0)`` of ``len(p)``, ``(p, k)`` of ``p.shape[k]``, else None."""
    p = _len_call(node)
    if p is not None:
        return p, 0
    if node.__class__ is ast.Subscript and node.value.__class__ is ast.Attribute and (
            node.value.attr == "shape") and node.value.value.__class__ is ast.Name and (
            node.slice.__class__ is ast.Constant) and type(node.slice.value) is int and (
            node.slice.value >= 0):
        return node.value.value.id, node.slice.value
    return None


def _axis_size(stmt):
    """``(n, (p, axis))`` of ``n = len(p)`` or ``n = p.shape[axis]``, else None."""
    if stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and (
            stmt.targets[0].__class__ is ast.Name):
        size = _size_of(stmt.value)
        return None if size is None else (stmt.targets[0].id, size)
    return None
