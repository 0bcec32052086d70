"""The places of lists in the memory model (:class:`srcad.analysis.memory.Aliases`): which
lists have their places told apart (srcad's ``zeros_like``, every list display), which objects
two places may share, and the writes ``ys_1[i] = t_1`` ending ``ys[i] += v`` that put an item
back where it was.

Imports only ``srcad.core``.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import ARRAY


class _Places:
    """A mixin of :class:`Aliases`: the places of lists whose places are told apart
    (srcad's ``zeros_like``, a list display), which items two places may share, and which
    values are opaque."""

    def items_apart(self, name, memory, later):
        """Whether the statements ``later`` (None: not known) read the list ``name`` only
        at constant indices, none of whose items may be ``memory`` (a write into an object
        some item of the list may be, not into the list)."""
        if later is None or self.own.get(name, frozenset()) & memory:
            return False  # a write into the list itself: what name[k] reads changes
        indices = set()
        for stmt in ir.walk(later):
            reads = [v for v in ir.reads_of(stmt) if v.name == name]
            reads += [v for p in getattr(stmt, "phis", ()) for src in p.sources
                      if src is not None for v in ir.atoms_in(src) if v.name == name]
            reads += [v for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None))
                      if part is not None for v in ir.atoms_in(part) if v.name == name]
            if not reads:
                continue
            found = _const_indices(stmt)
            if found and isinstance(stmt, ir.SetItem) and len(reads) == 1 and (
                    self.only_at(name, found[0].value, memory)):
                continue  # ys[k] = t, t the object changed in place: no other place holds it
            if not (found and isinstance(stmt, ir.Assign) and len(reads) == 1
                    and stmt.value.args[0] == ir.Var(name)):
                return False
            indices.add(found[0].value)
        own = self.own.get(name, frozenset())  # (what _stored left out of the places: a copy
        alone = frozenset().union(*(v for (a, _), v in self.sole.items() if a in own))  # too)
        return not any((self._item(ir.Var(name), ir.Const(k)) | alone) & memory
                       for k in indices)

    def _single_new(self, atom):
        """Whether ``atom`` names a new object (not a view, not an argument) read only once."""
        return isinstance(atom, ir.Var) and self.uses.get(atom.name) == 1 and (
            self.own.get(atom.name) == frozenset({("new", atom.name)}))

    def _opaque_if(self, target, *sources):
        """``target`` is :attr:`opaque` when one of ``sources`` is."""
        if any(isinstance(a, ir.Var) and a.name in self.opaque for a in sources):
            self.opaque.add(target)

    def _item_of_container(self, target):
        """``target``, an item read out of a list, tuple or dict, may itself be a container
        (``ts`` of ``for ts in ((b, b),)``): its own and held memory are one flat set, so
        what it holds is any of that (:attr:`opaque`); else ``t[0] = v`` of ``for t in ts``
        reached ``b`` unseen (sound24)."""
        if self.an.kinds.get(target) != ARRAY and target not in self.arrays:
            self.opaque.add(target)

    def only_at(self, name, k, memory):
        """Whether no place of the list ``name`` but ``k`` may hold ``memory``: every object
        the list may be has its places told apart (:attr:`fresh_items`)."""
        own = self.own.get(name, frozenset())
        if not own or not own <= self.fresh_items:
            return False
        for alloc in own:
            if self.loose.get(alloc, frozenset()) & memory or any(
                    token[:len(alloc) + 1] == (*alloc, "item") and token[-1] != k
                    for token in memory):
                return False
            if any(a == alloc and j != k and held & memory
                   for (a, j), held in self.slots.items()):
                return False
        return True

    def places_distinct(self, name):
        """Whether no two places of the list ``name`` may hold one object: every object it
        may be has its places told apart, nothing put in at places not known, and what each
        place may hold is held by no other place (``[2.0 * x, y]``, written only by
        ``ys[i] += v``: then the object at ``ys[i]`` is reachable through place ``i`` alone)."""
        own = self.own.get(name, frozenset())
        if not own or not own <= self.fresh_items:
            return False
        for alloc in own:
            if self.loose.get(alloc):
                return False
            seen = frozenset()
            for (a, k), held in self.slots.items():
                if a != alloc:
                    continue
                if held & seen or any(t[:len(alloc) + 1] == (*alloc, "item") and t[-1] != k
                                      for t in held):
                    return False  # (ys[0] = ys[1]: the object made at place 1 is at 0 too)
                seen |= held
        return True

    def only_through(self, target, other):
        """Whether ``target`` is ``t_1 = t + v`` of ``ys[i] += v`` (``t = ys[i]`` changed in
        place, then put back at place ``i``), ``other`` is that list ``ys``, and no two
        places of ``ys`` may hold one object: ``ys`` sees the change at place ``i`` only,
        where srcad's functional write puts ``t_1``. Or, for a list whose places are not
        told apart, when the code checks that when it runs (``fn.checked_items``): the
        check is then recorded as needed (:attr:`checks_used`, the item's name)."""
        found = getattr(self.fn, "augmented_items", {}).get(target) or getattr(
            self.fn, "row_writes", {}).get(target)  # (M[i][j] = v: frontend.nested_rows)
        if found is None or found[1] != other or found[0] not in self.put_backs.values():
            return False
        if self.places_distinct(other):
            return True
        if target in getattr(self.fn, "checked_items", ()):  # checked when the code runs
            self.checks_used.add(found[0])  # (frontend.item_checks)
            return True
        return False

    def taken_out(self, obj, other):
        """Whether ``obj`` (or the object it is an item of) was taken out of the list
        ``other`` by ``.pop()``, where every place of that list holds an object of its own
        (zeros_like's, or a new object stored there alone): the list no longer holds it, nor
        anything a write into it changes."""
        lists = self.popped.get(obj.name) if isinstance(obj, ir.Var) else None
        own = self.own.get(other, frozenset())
        return bool(lists and own and own <= lists <= self.fresh_items and not any(
            self.loose.get(a) or any(self.slots.get((a, k)) for k in self.indices)
            for a in lists))

    def _put_in(self, obj, index, memory, sole=None):
        """Record ``memory`` entering the lists ``obj`` may be (at ``index``, None: anywhere;
        ``sole``: into that table, keyed by (list, place), instead)."""
        own = self.mem(obj, self.own)
        at = place_key(index) if own <= self.fresh_items else None
        for alloc in own & self.fresh_items:
            key, table = ((alloc, at), self.slots) if at is not None else (alloc, self.loose)
            if sole is not None:
                key, table = (alloc, at), sole
            table[key] = table.get(key, frozenset()) | memory

    def _stored(self, stmt):
        """What the write ``stmt`` puts into a list, as far as its places go: a new object
        made for this write alone (its name read nowhere else) is one object per run of
        the statement, reachable only through the list: it adds no object two places of
        the list could share, only what it holds."""
        value = stmt.value
        held = self.mem(value, self.held)
        if isinstance(value, ir.Var) and self.uses.get(value.name) == 1 and self.mem(
                value, self.own) == {("new", value.name)}:
            return held - {("new", value.name)}
        return held


def place_key(index):
    """The place an index names in a list or dict whose places are told apart: a constant
    integer ``>= 0`` (a list's place, or a dict's key) or a constant string (a dict's key);
    None for any other index (``ys[-1]``, ``ys[i]``: any place)."""
    if isinstance(index, ir.Const) and (type(index.value) is int and index.value >= 0 or type(
            index.value) is str):
        return index.value
    return None


def _const_indices(stmt):
    """The constant indices (integers ``>= 0``, strings: :func:`place_key`) a statement
    reads or writes at."""
    if isinstance(stmt, ir.SetItem):
        index = stmt.index
    elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
            stmt.value.fn is operator.getitem and len(stmt.value.args) == 2):
        index = stmt.value.args[1]
    else:
        return ()
    return (index,) if place_key(index) is not None else ()


def _put_backs(fn, defs):
    """id of each write ``ys_1[i] = t_1`` that ends ``ys[i] += v`` (``t = ys[i]; t_1 = t + v``,
    read at the same index of the same list) -> the item's name ``t``."""
    out = {}
    written = {**getattr(fn, "augmented_items", {}), **getattr(fn, "row_writes", {})}
    for stmt in ir.walk(fn.body):
        found = written.get(getattr(stmt.value, "name", None)) if (
            isinstance(stmt, ir.SetItem)) else None
        if found is None or stmt.obj != ir.Var(found[1]):
            continue
        read = defs.get(found[0])
        if isinstance(read, ir.Assign) and isinstance(read.value, ir.Prim) and (
                read.value.fn is operator.getitem and read.value.args[0] == stmt.obj
                and _same_index(read.value.args[1], stmt.index)):
            out[id(stmt)] = found[0]
    return out


def _same_index(a, b):
    """Whether two index atoms are one name or one constant place (:func:`place_key`)."""
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return place_key(a) is not None and type(a.value) is type(b.value) and a.value == b.value
    return isinstance(a, ir.Var) and a == b
