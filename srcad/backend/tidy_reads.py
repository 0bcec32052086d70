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
from .tidy_walk import _blocks, _count_names, _nodes, _rename, _stores, _walk, bound_names


def shared_reads(fdef, temps):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    nodes = _nodes(fdef)  # (one walk for the counts, the saves and the names returned)
    stores = _count_names(fdef, nodes)[0]
    saves = _Saves(fdef, nodes)
    for name, n in saves.unpacked.items():  # a save's unpacking is not a second value
        stores[name] -= n
    returned = {n.id for stmt in nodes if stmt.__class__ is ast.Return
                for n in _nodes(stmt) if n.__class__ is ast.Name}  # (a set: any order)
    changed = False
    known = {}  # the names each statement binds (:func:`.bound_names`); forgotten on a rename
    for block, _ in list(_blocks(fdef)):
        seen = {}  # the dump of an item read -> (the name holding it, the names it reads)
        made = set()  # the names assigned once, by an earlier statement of this block
        for stmt in list(block):
            if stmt.__class__ is Comment:
                continue
            copy = _copy(stmt, made, stores, temps, returned)
            if copy is not None and copy[0] != stmt.value.id and any(  # a read before its copy
                    n.__class__ is ast.Name and n.id == copy[0] for s in block[
                        :block.index(stmt)] for n in _walk(s)):
                copy = None
            if copy is not None and saves.merge(*copy):
                block.remove(stmt)
                _rename(fdef, copy[1], copy[0])
                known.clear()
                made.discard(copy[1])
                changed = True
                continue
            made.update(n for n in bound_names(stmt, known) if stores.get(n) == 1)
            reads = _item_read(stmt)
            if reads is not None and stores.get(stmt.targets[0].id) == 1:
                name, key = stmt.targets[0].id, ast.dump(stmt.value)
                if key in seen and (name in temps or _helper_call(stmt.value)) and (
                        name not in returned) and saves.merge(seen[key][0], name):
                    block.remove(stmt)
                    _rename(fdef, name, seen[key][0])
                    known.clear()
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


def _copy(stmt, made, stores, temps, returned):
    """``(kept, gone)`` when ``stmt`` is ``a = b``, both assigned once, ``b`` by an earlier
    statement of the block, and one of them srcad's own name, not returned: ``a`` is ``b``
    (``returned_1 = t_1``, then both saved, read and tested): the copy goes and srcad's
    name takes the other's (``a``'s, when ``a`` is read nowhere before the copy in the
    block: then ``b``'s assignment assigns ``a``)."""
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and stmt.value.__class__ is ast.Name):
        return None
    a, b = stmt.targets[0].id, stmt.value.id
    if a == b or stores.get(a) != 1 or b not in made:
        return None
    if a in temps and a not in returned:
        return b, a
    if b in temps and b not in returned:
        return a, b
    return None


class _Saves:
    """The stacks of ``fdef`` that only a loop's saves use: ``stack = []``, appends
    (``stack.append((i, t, t_3))``), unpackings (``for i, t, t_3 in reversed(stack):``,
    ``i, t, t_3 = stack.pop()``, ``t = stack.pop()``) and ``while stack:`` tests; either all
    of one width (each position then pairs with itself) or naming, over all appends and all
    unpackings, the same names once each (as the sweep writes them: a value is unpacked into
    the name it was saved from; such a stack, :attr:`paired`, is paired by name even when
    its saves are all of one width). Two names saved together, holding one value, become one
    (:meth:`merge`)."""

    def __init__(self, fdef, nodes=None):
        uses, self.appends, self.unpacks, other = {}, {}, {}, {}
        for node in _nodes(fdef) if nodes is None else nodes:  # (:func:`_walk`'s order)
            cls = node.__class__
            if cls is ast.Name:
                uses[node.id] = uses.get(node.id, 0) + 1
            elif cls is ast.Call and _method(node, "append", 1):
                self.appends.setdefault(node.func.value.id, []).append((node.args, 0))
            elif cls is ast.For and _reversed(node.iter):
                self.unpacks.setdefault(node.iter.args[0].id, []).append((node, "target"))
            elif cls is ast.Assign and len(node.targets) == 1 and _method(node.value, "pop", 0):
                self.unpacks.setdefault(node.value.func.value.id, []).append((node.targets, 0))
            elif cls is ast.Assign and len(node.targets) == 1 and (
                    node.targets[0].__class__ is ast.Name and node.value.__class__ is ast.List
                    and not node.value.elts):
                other[node.targets[0].id] = other.get(node.targets[0].id, 0) + 1
            elif cls is ast.While and node.test.__class__ is ast.Name:
                other[node.test.id] = other.get(node.test.id, 0) + 1
        self.stacks = {s for s in self.appends if s in self.unpacks and other.get(s) and (
            uses[s] == len(self.appends[s]) + len(self.unpacks[s]) + other[s]) and all(
                e.__class__ is ast.Name for site in self.unpacks[s] for e in _elts(site))
            and (len({len(_elts(site)) for site in self.appends[s] + self.unpacks[s]}) == 1
                 or _names(self.appends[s]) == _names(self.unpacks[s]))}
        self.paired = {s for s in self.stacks if _distinct(self.appends[s]) and (
            _names(self.appends[s]) == _names(self.unpacks[s]))}
        self.unpacked = {}
        for stack in self.unpacks:
            for site in self.unpacks[stack]:
                for e in _elts(site):
                    if e.__class__ is ast.Name:
                        self.unpacked[e.id] = self.unpacked.get(e.id, 0) + 1

    def merge(self, kept, name):
        """Whether ``name`` may be renamed ``kept`` (both hold one value): yes when neither is
        unpacked, or when they are saved and unpacked together only, on one stack, at the
        same two positions everywhere (in every append of a stack of one width); ``name``'s
        position then leaves those appends and unpackings."""
        if not self.unpacked.get(kept) and not self.unpacked.get(name):
            return True
        for stack in self.stacks:
            sites = [site for site in self.appends[stack] + self.unpacks[stack]
                     if _at(_elts(site), kept) or _at(_elts(site), name)]
            unpacks = [site for site in sites if site in self.unpacks[stack]]
            if not unpacks:
                continue
            if len(unpacks) != self.unpacked.get(kept) or len(unpacks) != self.unpacked.get(
                    name):
                return False  # unpacked elsewhere too
            if stack not in self.paired and len(set(map(len, map(
                    _elts, self.appends[stack] + self.unpacks[stack])))) == 1:
                sites = self.appends[stack] + unpacks  # one width: every append pairs
            layouts = {(len(_elts(site)), tuple(_at(_elts(site), kept)),
                        tuple(_at(_elts(site), name))) for site in sites}
            if len(layouts) != 1:
                return False
            _, k1, k2 = layouts.pop()
            if len(k1) != 1 or len(k2) != 1:
                return False
            for site in sites:
                _drop(site, k2[0])
            self.unpacked[name] = 0
            return True
        return False


    def drop(self, name):
        """Whether ``name``, bound once outside every loop, left the saves: each unpacking
        would bind it to the value it has. Taken on a stack of one width where every append
        and unpacking names it at one position, or on a stack paired by name; never the
        last item of a save (the loop still runs once per saved iteration)."""
        for stack in self.stacks:
            sites = [site for site in self.appends[stack] + self.unpacks[stack]
                     if _at(_elts(site), name)]
            if not any(site in self.unpacks[stack] for site in sites):
                continue
            if stack not in self.paired and len(set(map(len, map(
                    _elts, self.appends[stack] + self.unpacks[stack])))) == 1:
                if len(sites) != len(self.appends[stack]) + len(self.unpacks[stack]):
                    return False
            places = {tuple(_at(_elts(site), name)) for site in sites}
            if len(places) != 1 or any(len(_elts(site)) < 2 for site in sites):
                return False
            (k,), = places  # (one position, the same in every save)
            for site in sites:
                _drop(site, k)
            self.unpacked[name] = 0
            return True
        return False


def _elts(site):
    """The items of a save's tuple, or the one value saved or unpacked alone."""
    holder, field = site
    node = holder[field] if field == 0 else getattr(holder, field)
    return node.elts if node.__class__ is ast.Tuple else [node]


def _drop(site, k):
    holder, field = site
    node = holder[field] if field == 0 else getattr(holder, field)
    del node.elts[k]
    if len(node.elts) == 1:  # one value left: saved and unpacked alone
        if field == 0:
            holder[field] = node.elts[0]
        else:
            setattr(holder, field, node.elts[0])


def _names(sites):
    return sorted(e.id if e.__class__ is ast.Name else "" for site in sites
                  for e in _elts(site))


def _distinct(sites):
    """Whether the items of ``sites`` are names, each once: a stack whose appends and
    unpackings name the same names so is paired by name (a value is unpacked into the name
    it was saved from), whatever the widths: ``stack.append((t_3, t_4))`` in a branch and
    ``stack.append((i, skip_1))`` after it pair with their own unpackings, not by position."""
    names = _names(sites)
    return "" not in names and len(set(names)) == len(names)


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


def _helper_call(value):
    """Whether ``value`` is a call of one of :data:`_SHARED_HELPERS`: its name is srcad's
    (``t_2_shape``; not a temporary, which tidy would inline into the save)."""
    return value.__class__ is ast.Call and value.func.__class__ is ast.Name and (
        value.func.id in _SHARED_HELPERS)


#: srcad's helpers whose value depends on their arguments only, read once each
_SHARED_HELPERS = ("shape_of",)
