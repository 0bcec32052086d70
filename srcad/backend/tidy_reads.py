"""Tidy, reads: an item read twice in one block is read once. ``t = x[0]``, then ``t_3 =
x[0]`` (srcad's own name, assigned once) with nothing between that may change ``x`` or the
index, is ``t``: ``x[0] * x[1] + np.sin(x[0])`` reads ``x[0]`` into one name, as a person
would. Between the two only assignments to names whose values call nothing but NumPy, ``math``
and srcad's pure helpers (``tidy_values._safe``) may stand: any other statement (a call that
may change ``x`` in place, an item or attribute written, a branch or loop) ends the search.
A name returned (a forward part's context, ``return y, (t, t_3)``) stays: its backward part
unpacks it by position, and one value twice there reads worse than two names.

Imports: :mod:`.tidy_walk`, :mod:`.tidy_values` (what is pure).
"""

from __future__ import annotations

import ast

from ..transform.nodes import Comment
from .tidy_values import _safe
from .tidy_walk import _blocks, _count_names, _rename, _stores, _walk


def shared_reads(fdef, temps):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    stores = _count_names(fdef)[0]
    returned = {n.id for stmt in _walk(fdef) if stmt.__class__ is ast.Return
                for n in _walk(stmt) if n.__class__ is ast.Name}
    changed = False
    for block, _ in list(_blocks(fdef)):
        seen = {}  # the dump of an item read -> (the name holding it, the names it reads)
        for stmt in list(block):
            if stmt.__class__ is Comment:
                continue
            reads = _item_read(stmt)
            if reads is not None and stores.get(stmt.targets[0].id) == 1:
                name, key = stmt.targets[0].id, ast.dump(stmt.value)
                if key in seen and name in temps and name not in returned:
                    block.remove(stmt)
                    _rename(fdef, name, seen[key][0])
                    changed = True
                    continue
                seen = {k: (v, r) for k, (v, r) in seen.items() if name != v and name not in r}
                seen.setdefault(key, (name, reads))
                continue
            if not (stmt.__class__ is ast.Assign and all(
                    t.__class__ is ast.Name for t in stmt.targets) and _safe(stmt.value)):
                seen = {}
                continue
            bound = set(_stores(stmt))
            seen = {k: (v, r) for k, (v, r) in seen.items() if v not in bound and not (
                bound & r)}
    return changed


def _item_read(stmt):
    """The names ``name = base[index]`` reads (``base`` a name, ``index`` an int constant or
    a name), else ``None``."""
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name
            and stmt.value.__class__ is ast.Subscript
            and stmt.value.value.__class__ is ast.Name):
        return None
    index = stmt.value.slice
    if index.__class__ is ast.Constant and type(index.value) is int:
        return {stmt.value.value.id}
    if index.__class__ is ast.Name:
        return {stmt.value.value.id, index.id}
    return None
