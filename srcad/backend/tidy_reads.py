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
    saves = _Saves(fdef)
    for name, n in saves.unpacked.items():  # a save's unpacking is not a second value
        stores[name] -= n
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
                if key in seen and name in temps and name not in returned and (
                        saves.merge(seen[key][0], name)):
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


class _Saves:
    """The stacks of ``fdef`` that only a loop's saves use: ``stack = []``, appends of tuples
    of one width (``stack.append((i, t, t_3))``), unpackings of the same width (``for i, t,
    t_3 in reversed(stack):``, ``i, t, t_3 = stack.pop()``) and ``while stack:`` tests.
    Two positions holding the same value in every append become one (:meth:`merge`)."""

    def __init__(self, fdef):
        uses, self.appends, self.unpacks, other = {}, {}, {}, {}
        for node in _walk(fdef):
            cls = node.__class__
            if cls is ast.Name:
                uses[node.id] = uses.get(node.id, 0) + 1
            elif cls is ast.Call and _method(node, "append", 1) and (
                    node.args[0].__class__ is ast.Tuple):
                self.appends.setdefault(node.func.value.id, []).append(node.args[0].elts)
            elif cls is ast.For and node.target.__class__ is ast.Tuple and _reversed(node.iter):
                self.unpacks.setdefault(node.iter.args[0].id, []).append(node.target.elts)
            elif cls is ast.Assign and len(node.targets) == 1 and (
                    node.targets[0].__class__ is ast.Tuple) and _method(node.value, "pop", 0):
                self.unpacks.setdefault(node.value.func.value.id, []).append(
                    node.targets[0].elts)
            elif cls is ast.Assign and len(node.targets) == 1 and (
                    node.targets[0].__class__ is ast.Name and node.value.__class__ is ast.List
                    and not node.value.elts):
                other[node.targets[0].id] = other.get(node.targets[0].id, 0) + 1
            elif cls is ast.While and node.test.__class__ is ast.Name:
                other[node.test.id] = other.get(node.test.id, 0) + 1
        self.stacks = {s for s in self.appends if s in self.unpacks and other.get(s) and (
            uses[s] == len(self.appends[s]) + len(self.unpacks[s]) + other[s]) and len({
                len(e) for e in self.appends[s] + self.unpacks[s]}) == 1 and all(
                    e.__class__ is ast.Name for u in self.unpacks[s] for e in u)}
        self.unpacked = {}
        for stack in self.unpacks:
            for elts in self.unpacks[stack]:
                for e in elts:
                    if e.__class__ is ast.Name:
                        self.unpacked[e.id] = self.unpacked.get(e.id, 0) + 1

    def merge(self, kept, name):
        """Whether ``name`` may be renamed ``kept`` (both hold one value): yes when neither is
        unpacked, or when every unpacking of either is of one stack whose appends all hold
        ``kept`` and ``name`` at the positions the unpackings name them; ``name``'s position
        then leaves the appends and unpackings."""
        if not self.unpacked.get(kept) and not self.unpacked.get(name):
            return True
        for stack in self.stacks:
            spots = {tuple(_at(u, kept) + _at(u, name)) for u in self.unpacks[stack]}
            if len(spots) != 1:
                continue
            spot = spots.pop()
            if len(spot) != 2 or self.unpacked.get(kept) != len(self.unpacks[stack]) or (
                    self.unpacked.get(name) != len(self.unpacks[stack])):
                continue
            k1, k2 = spot
            if not all(e[k1].__class__ is ast.Name and e[k1].id == kept
                       and e[k2].__class__ is ast.Name and e[k2].id == name
                       for e in self.appends[stack]):
                return False
            for elts in self.appends[stack] + self.unpacks[stack]:
                del elts[k2]
            self.unpacked[name] = 0
            return True
        return False


def _at(elts, name):
    return [k for k, e in enumerate(elts) if e.__class__ is ast.Name and e.id == name]


def _method(call, attr, n):
    """Whether ``call`` is ``s.attr(...)`` of a name ``s`` with ``n`` arguments."""
    return (call.__class__ is ast.Call and call.func.__class__ is ast.Attribute
            and call.func.attr == attr and call.func.value.__class__ is ast.Name
            and len(call.args) == n and not call.keywords)


def _reversed(node):
    return (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id == "reversed" and len(node.args) == 1 and not node.keywords
            and node.args[0].__class__ is ast.Name)


def _item_read(stmt):
    """The names ``name = base[index]`` reads (``base`` a name, ``index`` an int constant or
    a name), or ``name = shape_of(t)`` (a pure helper of srcad's on names), else ``None``."""
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name):
        return None
    value = stmt.value
    if value.__class__ is ast.Call and value.func.__class__ is ast.Name and (
            value.func.id in _SHARED_HELPERS) and not value.keywords and all(
                a.__class__ is ast.Name for a in value.args):
        return {a.id for a in value.args}
    if value.__class__ is not ast.Subscript or value.value.__class__ is not ast.Name:
        return None
    index = value.slice
    if index.__class__ is ast.Constant and type(index.value) is int:
        return {value.value.id}
    if index.__class__ is ast.Name:
        return {value.value.id, index.id}
    return None


#: srcad's helpers whose value depends on their arguments only, read once each
_SHARED_HELPERS = ("shape_of",)
