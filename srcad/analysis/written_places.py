"""What an item read at a constant place of a list or dict may be, through the writes made
at constant places (a mixin of :class:`srcad.analysis.memory.Aliases`, session 35).

The memory model keeps one set of objects per list: what any place of it may hold. A shallow
copy of an argument (``e = dict(d)``, ``list(xs)``, ``d.copy()``, ``copy.copy(d)``) holds
the caller's items at every place, so an item read from it was the caller's array, even
where the function had put a new array at that place first::

    e = dict(d)
    e["w"] = e["w"] * 1.0      # a new array at "w"
    e["w"] += x                # changes that new array: d["w"] is not touched

In SSA every write ``e[k] = v`` makes a new version of the list (``e_1 = e.copy(); e_1[k] =
v``), so the version says which writes it has seen: ``e_1["w"]`` is ``v`` itself, and
``e_1["b"]`` is what ``e["b"]`` was. :meth:`_Items._item` follows the versions back through
the writes at other constant places (:func:`.memory_places.place_key`: an integer ``>= 0``
or a string) and the merges of branches and loops, and stops at the write at that place,
or falls back to the whole list's items at anything else (a write at a place not known, a
version made by a call or an operator, ``e |= other``). The versions are those of an object
nobody else changes:

* no method changing its object in place (:data:`.memory_tables.MUTATORS`: ``e.update(o)``,
  ``e.pop(k)``, ``ys.insert(0, v)``; ``append`` and ``extend`` add places after the last, and
  change none it has) is called on anything that may be the object, nor a
  function whose effect srcad does not know given it, nor a call with ``out=`` (these make
  no new version, so the version would not say what changed);
* a write through another name of the object while a version of it is read afterwards (``f =
  e; f["w"] = g``), or by a function of the user's given it, is refused by
  :mod:`srcad.analysis.alias` itself, before the version is read;
* the versions are lists or dicts certainly (never an array, whose ``a[0] = v`` copies numbers
  and whose ``a[0]`` is a view of the array's own memory).

And (:meth:`_Items._copy_holds`) a copy of an item of the caller's that is certainly an array
(``{k: v.copy() for k, v in d.items()}`` over a dict of arrays, the argument's items being
arrays as the code is specialised on them) holds numbers, not the caller's objects: the model
already reads an array's item as a number (``_element``).

Imports only ``srcad.core``, ``srcad.rules``, :mod:`.memory_places`,
:mod:`.memory_tables` and :mod:`.user_calls`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SEQ
from ..rules import registry
from .memory_places import place_key
from .memory_tables import (
    _ARITH,
    _COPIES,
    MUTATORS,
    VIEW_FUNCS,
    _fresh_result,
    _union,
    log_append,
    safe_in,
)
from .user_calls import is_user_call


class _Items:
    """A mixin of :class:`srcad.analysis.memory.Aliases`: what ``base[index]`` may be."""

    def _item(self, base, index):
        """What ``base[index]`` may be: what was written at that constant place of this
        version (:meth:`_written_at`), else any item of the list. In a list whose items srcad
        made itself, each a new object (``zeros_like``'s gradients, a list display), an item
        at a constant index ``k >= 0`` is told apart from those at other constant indices: it
        is the object made there, what was stored at ``k``, or what was put in any other way
        (:attr:`loose`). Any other index, or any other list, may give any item."""
        k = place_key(index)
        if k is not None:
            written = self._written_at(base, index, set())
            if written is not None:
                return written
        contents = self._contents(base)
        own = self.mem(base, self.own)
        if k is None or not (own and own <= self.fresh_items):
            return contents
        return _union({(*alloc, "item", k)} | self.slots.get((alloc, k), frozenset())
                      | self.loose.get(alloc, frozenset()) for alloc in own)

    def _written_at(self, base, index, seen):
        """What the writes at the constant place ``index`` made the item there of the version
        ``base`` (see the module's docstring); None where they do not say."""
        if not isinstance(base, ir.Var) or not self._plain_list(base.name):
            return None
        if base.name in seen:
            return frozenset()  # a loop's way back: the other ways say what it may be
        seen.add(base.name)
        stmt = self.defs.get(base.name)
        if isinstance(stmt, ir.Phi):
            found = [self._written_at(s, index, seen) for s in stmt.sources if s is not None]
            return None if any(f is None for f in found) else _union(found)
        if not isinstance(stmt, ir.SetItem) or place_key(stmt.index) is None:
            return None
        if type(stmt.index.value) is type(index.value) and stmt.index.value == index.value:
            return self.mem(stmt.value, self.held)  # the object written there, itself
        return self._written_at(stmt.obj, index, seen)  # another place: as it was before

    def _plain_list(self, name):
        """Whether ``name`` is certainly a list or dict that nothing changes in place."""
        if self.an.kinds.get(name) != SEQ and name not in self.lists:
            return False
        own = self.own.get(name, frozenset())
        return bool(own) and not own & self._changed()

    def _changed(self):
        """The objects a statement may change in place without making a new version: the
        object of a method of :data:`MUTATORS`, an ``out=`` array, what a function whose
        effect srcad does not know is given (a user function's writes are checked by
        :mod:`.alias`)."""
        atoms = getattr(self, "_changers", None)
        if atoms is None:
            atoms = self._changers = list(_changers(self.fn, self.defs))
        return _union(self.mem(a, self.own) | self.mem(a, self.held) for a in atoms)

    def _copy_holds(self, base):
        """What ``base.copy()`` (or another method making a new object of ``base``) holds
        besides itself: nothing when ``base`` is certainly an array (its items are numbers,
        as :func:`._element` reads them), else what ``base`` holds."""
        if self.is_array(base) or self._certain_array(base):
            return self.mem(base, self.held) - self.mem(base, self.own)
        if isinstance(base, ir.Var) and base.name in self.opaque:
            return self._contents(base)
        return self.mem(base, self.held) - self.mem(base, self.own)

    def _certain_array(self, atom):
        """Whether every object ``atom`` may be is an array: an item of an argument whose
        items are all arrays (the code is made for their kinds), or a new array."""
        own = self.mem(atom, self.own)
        if not own:
            return False
        for token in own:
            if token[0] == "arg" and token[2:] == ("items",):
                items = self.an.items.get(token[1]) or {}
                if not items or any(k != ARRAY for k in items.values()):
                    return False
            elif not (token[0] == "new" and len(token) == 2 and (
                    self.an.kinds.get(token[1]) == ARRAY or token[1] in self.arrays)):
                return False
        return True


#: methods that add items after the last one only: no place the list has changes
_AT_THE_END = frozenset({"append", "extend"})


def _changers(fn, defs):
    """The atoms statements of ``fn`` may change in place (see :meth:`_Items._changed`)."""
    for stmt in ir.walk(fn.body):
        if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim)):
            continue
        prim = stmt.value
        out = prim.kwargs.get("out")
        if out is not None:
            yield out
        if isinstance(prim.fn, ir.Method):
            if prim.fn.name in MUTATORS and prim.fn.name not in _AT_THE_END and prim.args \
                    and not log_append(prim, defs):
                yield prim.args[0]
        elif not _leaves_alone(prim):
            yield from prim.operands()


def _leaves_alone(prim):
    """Whether a call (not a method) changes none of what it is given in place (``out=``
    aside), or is a user function's (checked by :mod:`.alias`)."""
    fn = prim.fn
    if isinstance(fn, (ir.Attr, ir.Build, ir.BoolOp)) or is_user_call(prim):
        return True
    if fn in (operator.getitem, isinstance) or safe_in(fn, _COPIES) or safe_in(
            fn, _ARITH) or safe_in(fn, VIEW_FUNCS) or isinstance(fn, np.ufunc):
        return True
    if getattr(fn, "__module__", None) == "math" or _fresh_result(fn):
        return True
    if safe_in(fn, registry.impure):
        return False
    return registry.has_rule(fn) or registry.is_nondiff(fn)
