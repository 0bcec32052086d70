"""Tidy, item reads that cannot fail: ``x[i]`` inside ``for i in range(len(x)):`` (or
``reversed(range(n))`` with ``n = len(x)`` bound once at the top level) of an array ``x``
whose length nothing changes. ``0 <= i < len(x)``, so reading the item raises nothing, and a
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
from .tidy_sizes import _len_call, _range_of_one, _size_stmt, _unchanged
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
    sizes = {}  # n -> p of a top-level n = len(p) bound once
    for stmt in fdef.body:
        size = _size_stmt(stmt)
        if size is not None and stores.get(size[0]) == 1:
            sizes[size[0]] = size[1]
    fixed = None
    for loop in (n for n in _walk(fdef) if n.__class__ is ast.For):
        array = _ranged(loop.iter, sizes)
        if array is None or loop.target.__class__ is not ast.Name or not isinstance(
                arrays.get(array), raising.Alike):
            continue
        index = loop.target.id
        body = [n for s in loop.body for n in _walk(s)]
        if any(n.__class__ is ast.Name and n.id == index and n.ctx.__class__ is not ast.Load
               for n in body):
            continue
        if fixed is None:
            fixed = _unchanged(fdef, stores)
        if array not in fixed:
            continue
        for n in body:
            if n.__class__ is ast.Subscript and n.ctx.__class__ is ast.Load and (
                    n.value.__class__ is ast.Name and n.value.id == array) and (
                    n.slice.__class__ is ast.Name and n.slice.id == index):
                n.srcad_in_bounds = (array, index)


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
    return mark is not None and node.value.__class__ is ast.Name and (
        node.slice.__class__ is ast.Name) and mark == (node.value.id, node.slice.id)


def item_fact(node, arrays):
    """The fact of an item read marked by :func:`mark_in_bounds`, else None."""
    alike = arrays.get(node.value.id)
    if not isinstance(alike, raising.Alike):
        return raising.UNKNOWN
    ranks = getattr(getattr(arrays, "analysis", None), "ranks", {})
    if ranks.get(node.value.id) != 1:
        return raising.ARRAY
    if alike.complex:
        return raising.CNUMBER
    if alike.floats:
        return raising.FLOAT
    return raising.NUMBER if alike.numbers else raising.UNKNOWN


def _ranged(node, sizes):
    """``p`` of ``range(len(p))``, ``range(n)`` with ``n = len(p)`` in ``sizes``, or either
    reversed; else None."""
    if node.__class__ is ast.Call and node.func.__class__ is ast.Name and (
            node.func.id == "reversed") and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if not _range_of_one(node):
        return None
    size = node.args[0]
    if size.__class__ is ast.Name:
        return sizes.get(size.id)
    return _len_call(size)
