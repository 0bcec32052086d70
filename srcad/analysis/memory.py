"""The memory model of one function: which objects each value may be, or be a view of (its
*own* memory), and which it may hold (lists hold arrays): :class:`Aliases`, solved once per
function from its SSA form. :mod:`srcad.analysis.alias` asks it about every write.

Objects are tokens: ``("new", name)`` for what the statement defining ``name`` makes,
``("arg", p)`` and ``("global", id)`` for what the caller and the module own, with
``("arg", p, "items")`` for what an argument list holds and ``("new", name, "item", k)`` for
the object at place ``k`` of a list srcad made itself (``zeros_like``'s gradients).

Imports only ``srcad.core``, ``srcad.runtime``, :mod:`srcad.analysis.memory_tables` and
:mod:`srcad.analysis.user_calls`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, OTHER, SCALAR, SEQ
from ..runtime import family_of
from .memory_tables import (
    _ARITH,
    _COPIES,
    _FRESH_ITEMS,
    _SHARED_ITEMS,
    FRESH_ATTRS,
    FRESH_METHODS,
    MUTATORS,
    VIEW_ATTRS,
    VIEW_FUNCS,
    VIEW_METHODS,
    _einsum_view,
    _fresh_result,
    _generated,
    _may_keep,
    _union,
    ir_mutable,
    nested_items,
    safe_in,
)
from .user_calls import bind_call, default_atom, is_user_call, user_callee


class _Places:
    """A mixin of :class:`Aliases`: the places of lists whose places are told apart
    (srcad's ``zeros_like``, a list literal of new objects), which items two places may
    share, and which values are opaque."""

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
        return not any(self._item(ir.Var(name), ir.Const(k)) & memory for k in indices)

    def _single_new(self, atom):
        """Whether ``atom`` names a new object (not a view, not an argument) read only once."""
        return isinstance(atom, ir.Var) and self.uses.get(atom.name) == 1 and (
            self.own.get(atom.name) == frozenset({("new", atom.name)}))

    def _opaque_if(self, target, *sources):
        """``target`` is :attr:`opaque` when one of ``sources`` is."""
        if any(isinstance(a, ir.Var) and a.name in self.opaque for a in sources):
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

    def _put_in(self, obj, index, memory):
        """Record ``memory`` entering the lists ``obj`` may be (at ``index``, None: anywhere)."""
        own = self.mem(obj, self.own)
        at = index.value if isinstance(index, ir.Const) and type(index.value) is int and (
            index.value >= 0) and own <= self.fresh_items else None
        for alloc in own & self.fresh_items:
            key, table = ((alloc, at), self.slots) if at is not None else (alloc, self.loose)
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


class _Calls:
    """A mixin of :class:`Aliases`: what a call of your function returns (read from the
    function, :func:`result_memory`), and whether an index makes a copy."""

    def _callee_memory(self, prim):
        """``(own, held)`` of a user function's result, in its own tokens, or None."""
        callees = self.an.callees
        if callees is None or not is_user_call(prim) or _generated(prim.fn):
            return None
        call = bind_call(prim, self.an.kind)
        if call is None or any(isinstance(a, (ir.Slice, ir.Index)) for a in
                               call.arguments.values()):
            return None  # (a default's value stands for itself: default_atom)
        self._arguments, self._callee = call.arguments, getattr(prim.fn, "__name__", "f")
        return callees.result_memory(prim.fn, call.kinds, call.arity)

    def _token(self, token, target, table, result):
        """A token of a callee's result as the caller's objects: what the callee made is
        made by the call (the result itself ``("new", target)``, what it holds apart)."""
        if token[0] == "new":
            return frozenset({("new", target) if token in result else (
                "new", target, "in", *token[1:])})
        if token[0] == "arg":
            atom = default_atom(self._arguments.get(token[1]),
                                f"{self._callee}()'s default for {token[1]}")
            if atom is None:
                return frozenset({("global", "?")})
            return self.mem(atom, self.held if len(token) > 2 else table)
        if token[0] == "global":
            self.globals_seen.setdefault(token[:2], "a global your function returns" if (
                token[1] != "?") else "that a function srcad does not follow may return")
        return frozenset({token})

    def _advanced(self, index):
        """Whether an array index is advanced (an integer or boolean array): a copy."""
        items = index.items if isinstance(index, ir.Index) else (index,)
        for item in items:
            if isinstance(item, ir.Const) and isinstance(item.value, (list, np.ndarray)):
                return True
            if isinstance(item, ir.Var) and (self.an.kinds.get(item.name) == ARRAY or (
                    item.name in self.list_displays)):
                return True  # (a name of kind SEQ may hold a tuple of slices: a view)
        return False


class Aliases(_Places, _Calls):
    """``own[v]``: the objects value ``v`` may be or be a view of; ``held[v]``: those and
    the objects it may hold. Objects are tokens: ("new", name), ("arg", name),
    ("global", id)."""

    def __init__(self, fn, analysis):
        self.fn = fn
        self.an = analysis
        self.augmented = dict(getattr(fn, "augmented", {}))
        self.defs = defs = _definitions(fn)
        self.list_displays = _list_displays(defs)
        for after, (item, container, _) in getattr(fn, "augmented_items", {}).items():
            if _may_be_list(container, analysis, defs):
                # ys[k] += v on a list or dict (or a container of a kind not known that may
                # be one: a helper's result, a copy of one): an array item changes in place
                self.augmented[after] = item
        self.fresh_copies = getattr(fn, "fresh_copies", set())
        self.own, self.held = {}, {}
        self.after = {}  # id(write statement) -> names live after it
        self.globals_seen = {}  # token -> spelling of the global
        self.arrays = set()  # names of kind ANY certainly holding an array (a[1:], a.T)
        self.lists = set()  # names certainly holding a list or dict: what .append/.pop change
        #: names whose items may be any object they hold, their own memory included: the
        #: result of a call srcad does not follow (``p, q = halves(b)``: two views of b),
        #: a list of views (``np.split(b, 2)``), an item or attribute of such a value
        self.opaque = set()
        for stmt in ir.walk(fn.body):
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
                stmt.value.fn, ir.Method
            ) and stmt.value.fn.name in ("append", "pop") and isinstance(
                stmt.value.args[0], ir.Var
            ):
                self.lists.add(stmt.value.args[0].name)
        links = [(s.obj.name, s.target) for s in ir.walk(fn.body) if isinstance(s, ir.SetItem)]
        links += [(v.name, p.target) for s in ir.walk(fn.body) for p in getattr(s, "phis", ())
                  for v in p.sources if isinstance(v, ir.Var)]
        grown = True
        while grown:  # versions of a list (ys[i] = v, merges) are lists too, both ways
            grown = False
            for a, b in links:
                if (a in self.lists) != (b in self.lists):
                    self.lists |= {a, b}
                    grown = True
        #: the constant indices >= 0 read or written anywhere ("?": any other index)
        self.uses = _uses(fn.body)
        self.popped = {}  # name -> the lists it was taken out of by .pop() (or an item of that)
        self.fresh_items = set()  # lists srcad made with a new object at every index
        self.slots = {}  # (such a list, constant index) -> what was stored there
        self.loose = {}  # such a list -> what was put in it otherwise (anywhere)
        self.indices = {"?"} | {
            i.value for s in ir.walk(fn.body) for i in _const_indices(s)}
        self.mixed = set()  # list literals whose places are not told apart after all
        start = (dict(self.own), dict(self.held))
        for p in fn.params:
            if self.may_alias(p):
                start[0][p] = frozenset({("arg", p)})
                start[1][p] = start[0][p] | {("arg", p, "items")}  # what a list holds
        for _ in range(20):
            self.own, self.held = dict(start[0]), dict(start[1])
            self.slots, self.loose, self.fresh_items = {}, {}, set()
            self.opaque, self.popped, self.arrays = set(), {}, set(self.arrays)
            self._solve()
            mixed = {s.target for s in ir.walk(fn.body) if isinstance(s, ir.Assign)
                     and isinstance(s.value, ir.Prim) and s.value.fn is ir.BUILD_LIST
                     and ("new", s.target) in self.fresh_items
                     and not all(self._single_new(a) for a in s.value.args)}
            if not mixed:
                break
            self.mixed |= mixed  # an item turned out to be more than a new object: again

    # ---------------------------------------------------------------- memory of each value

    def is_array(self, atom):
        return isinstance(atom, ir.Var) and (self.an.kinds.get(atom.name) == ARRAY
                                             or atom.name in self.arrays)

    def may_alias(self, name):
        return self.an.kinds.get(name) not in (SCALAR, OTHER)

    def mem(self, atom, table):
        if isinstance(atom, ir.Var):
            return table.get(atom.name, frozenset())
        if isinstance(atom, ir.Const) and ir_mutable(atom.value):
            token = ("global", id(atom.value))
            self.globals_seen[token] = atom.spelling or repr(atom.value)[:40]
            if table is self.held:
                return frozenset({token, ("global", id(atom.value), "items")})
            return frozenset({token})
        return frozenset()

    def _contents(self, atom):
        """What an item read out of ``atom`` may be: what it holds besides itself (anything
        it holds, when it is :attr:`opaque`)."""
        if isinstance(atom, ir.Var) and atom.name in self.opaque:
            return self.mem(atom, self.held)
        if self.an.kind(atom) == SEQ or isinstance(atom, ir.Var) and atom.name in self.lists:
            own = self.mem(atom, self.own)
            return (self.mem(atom, self.held) - own) | nested_items(own, self.fn)
        return self.mem(atom, self.held)

    def _item(self, base, index):
        """What ``base[index]`` may be. In a list whose items srcad made itself, each a new
        object (:data:`_FRESH_ITEMS`: ``zeros_like``'s gradients), an item at a constant
        index ``k >= 0`` is told apart from those at other constant indices: it is the
        object made there, what was stored at ``k``, or what was put in any other way
        (:attr:`loose`). Any other index, or any other list, may give any item."""
        contents = self._contents(base)
        own = self.mem(base, self.own)
        if not (isinstance(index, ir.Const) and type(index.value) is int and index.value >= 0
                and own and own <= self.fresh_items):
            return contents
        k = index.value
        return _union({(*alloc, "item", k)} | self.slots.get((alloc, k), frozenset())
                      | self.loose.get(alloc, frozenset()) for alloc in own)

    def _solve(self):
        for _ in range(50):
            before = (dict(self.own), dict(self.held), dict(self.slots), dict(self.loose))
            opaque = len(self.opaque)
            for stmt in ir.walk(self.fn.body):
                if isinstance(stmt, ir.Assign):
                    self._assign(stmt)
                elif isinstance(stmt, ir.SetItem):  # (y[i] = v of an array copies v's numbers)
                    stored = self.mem(stmt.value, self.held) if _may_be_list(
                        stmt.obj.name, self.an, self.defs) else frozenset()
                    self._put_in(stmt.obj, stmt.index, self._stored(stmt) if stored else stored)
                    self._set(stmt.target, self.mem(stmt.obj, self.own),
                              self.mem(stmt.obj, self.held) | stored)
                    self._opaque_if(stmt.target, stmt.obj)
                for phi in getattr(stmt, "phis", ()):
                    sources = [s for s in phi.sources if s is not None]
                    self._set(phi.target, _union(self.mem(s, self.own) for s in sources),
                              _union(self.mem(s, self.held) for s in sources))
                    self._opaque_if(phi.target, *sources)
            if (self.own, self.held, self.slots, self.loose) == before and len(
                    self.opaque) == opaque:
                return

    def _set(self, name, own, held):
        if not self.may_alias(name):
            return
        self.own[name] = frozenset(own) | self.own.get(name, frozenset())
        self.held[name] = frozenset(held) | self.own[name] | self.held.get(name, frozenset())

    def _assign(self, stmt):
        value, target = stmt.value, stmt.target
        if target is None:
            if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name in MUTATORS and value.args and isinstance(value.args[0], ir.Var)
            ):
                obj = value.args[0].name  # ys.append(v): ys now holds v
                extra = _union(self.mem(a, self.held) for a in value.args[1:])
                if value.fn.name not in ("append", "pop") or len(value.args) > 1 and (
                        value.fn.name == "pop"):  # ys.sort(), ys.insert(0, v): items move
                    extra = extra | self._contents(value.args[0])
                self._put_in(value.args[0], None, extra)
                if extra and self.may_alias(obj):
                    self.held[obj] = self.held.get(obj, frozenset()) | extra
            return
        fresh = frozenset({("new", target)})
        if target in self.fresh_copies:
            self._set(target, fresh, fresh | self.mem(value, self.held))
            return
        if not isinstance(value, ir.Prim):
            self._set(target, self.mem(value, self.own), self.mem(value, self.held))
            self._opaque_if(target, value)
            return
        if target in self.augmented:  # y += v: the same object as y
            old = ir.Var(self.augmented[target])
            operands = _union(self.mem(a, self.held) for a in value.operands())
            if not _may_be_list(old.name, self.an, self.defs):  # (ARRAY, SCALAR kinds: no)
                operands = frozenset()  # an array holds numbers, not what is added to it
            self._put_in(old, None, operands)  # ys += zs: a list holds zs' items too
            self._set(target, self.mem(old, self.own), self.mem(old, self.held) | operands)
            self._opaque_if(target, old)
            return
        fn, args = value.fn, value.args
        every = _union(self.mem(a, self.held) for a in list(args) + list(value.kwargs.values()))
        if fn is operator.getitem:
            base, index = args
            if self.an.kind(base) == ARRAY:
                if self._advanced(index):
                    self._set(target, fresh, fresh)
                else:
                    self._set(target, self.mem(base, self.own), self.mem(base, self.held))
                    self._opaque_if(target, base)
                    items = index.items if isinstance(index, ir.Index) else (index,)
                    if any(isinstance(i, ir.Slice) or isinstance(i, ir.Const) and (
                            i.value is Ellipsis or i.value is None) for i in items):
                        self.arrays.add(target)
            elif self.an.kind(base) == SEQ and isinstance(index, ir.Slice):
                self._set(target, fresh, fresh | self._contents(base))
            else:
                item = self._item(base, index)
                self._set(target, item, item)
                self._opaque_if(target, base)
                if isinstance(base, ir.Var) and base.name in self.popped:
                    self.popped[target] = self.popped[base.name]  # ys.pop()[1]
            return
        if isinstance(fn, ir.Attr):
            if fn.name in FRESH_ATTRS:
                return
            base = args[0]
            own = self.mem(base, self.own) if fn.name in VIEW_ATTRS else self.mem(
                base, self.held)
            self._set(target, own, self.mem(base, self.held))
            if fn.name not in VIEW_ATTRS:
                self.opaque.add(target)  # obj.items: a list of what obj holds
            self._opaque_if(target, base)
            return
        if isinstance(fn, ir.Method):
            base = args[0]
            if fn.name in FRESH_METHODS and not _may_keep(value):
                items = self._contents(base) if isinstance(base, ir.Var) and (
                    base.name in self.opaque) else (
                    self.mem(base, self.held) - self.mem(base, self.own))
                if fn.name == "get":  # d.get(k): the item itself (or the default)
                    item = self._contents(base) | _union(self.mem(a, self.held)
                                                         for a in args[2:])
                    self._set(target, item, item)
                    self._opaque_if(target, base)
                    return
                self._set(target, fresh, fresh | (items if fn.name in (
                    "copy", "values", "items", "tolist") else frozenset()))
                if fn.name in ("values", "items"):
                    self._opaque_if(target, base)
            elif fn.name in VIEW_METHODS or fn.name == "astype":  # astype(.., copy=False)
                self._set(target, self.mem(base, self.own), self.mem(base, self.held))
                self._opaque_if(target, base)
                if self.is_array(base):
                    self.arrays.add(target)
            elif fn.name == "pop":  # arrays have no pop: an item of a list (or dict)
                items = self._contents(base)
                self._set(target, items, items)
                self._opaque_if(target, base)
                if len(args) == 1 and isinstance(base, ir.Var):
                    self.popped[target] = self.mem(base, self.own)
            else:
                self._set(target, every, every)
                self.opaque.add(target)
            return
        if isinstance(fn, ir.Build) or fn in _COPIES:
            contents = _union(self._contents(a) if fn in _COPIES else
                              self.mem(a, self.held) for a in args)
            if fn is ir.BUILD_LIST and target not in self.mixed and args and all(
                    self._single_new(a) for a in args):
                # [a * 1.0, b ** 2]: each place holds an object of its own, seen nowhere
                # else; told apart like zeros_like's places (what ys[k] += v changes)
                alloc = ("new", target)
                self.fresh_items.add(alloc)
                contents |= {(*alloc, "item", k) for k in range(len(args))}
                for k, a in enumerate(args):
                    key = (alloc, k)
                    self.slots[key] = self.slots.get(key, frozenset()) | (
                        self.mem(a, self.held) - {("new", a.name)})
            self._set(target, fresh, fresh | contents)
            return
        copied = value.kwargs.get("copy")  # np.array(y, copy=True) always copies
        if safe_in(fn, VIEW_FUNCS) or fn is np.array and copied is not None and not (
                isinstance(copied, ir.Const) and copied.value is True) or _einsum_view(value):
            self._set(target, every | fresh, every | fresh)  # np.asarray(ys): new
            self.opaque.add(target)  # np.split(b, 2): a list of views of b
            return
        if fn in (operator.add, operator.mul) and self.an.kinds.get(target) == SEQ:
            contents = _union(self._contents(a) for a in args)  # ys + zs holds their items
            self._set(target, fresh, fresh | contents)
            return
        if family_of(fn) == "runtime" and fn.__name__ in _SHARED_ITEMS and args:
            # a new list whose items are objects of its arguments': fill(v, ys) is [v] * n,
            # cleared(g, i) and added_at(g, i, v) copy g's other items, not the items
            held = self.mem(args[0], self.held)  # a copy of a list holds its items only
            if fn.__name__ != "fill":
                held = held - self.mem(args[0], self.own)
            self._set(target, fresh, fresh | held)
            return
        if _fresh_result(fn):
            items = frozenset()
            if family_of(fn) and fn.__name__ in _FRESH_ITEMS and (
                    self.an.kinds.get(target) == SEQ):
                items = frozenset(("new", target, "item", k) for k in self.indices)
                self.fresh_items.add(("new", target))
            self._set(target, fresh, fresh | items)
            return
        facts = self._callee_memory(value)
        if facts is not None:  # what your function returns, read from it
            own, held = (_union(self._token(t, target, table, facts[0]) for t in side)
                         for side, table in zip(facts, (self.own, self.held)))
            self._set(target, own, held)
            if held - own:
                self.opaque.add(target)
            return
        # a function srcad does not read may return its argument, a new object
        # (np.arange(3.0)), or, when it is a function of yours, a global
        unknown = frozenset({("global", "?")}) if self.an.callees is not None and (
            user_callee(fn)) and not _generated(fn) else frozenset()
        if unknown:
            self.globals_seen[("global", "?")] = f"that {getattr(fn, '__name__', fn)}() returns"
        self._set(target, every | fresh | unknown, every | fresh | unknown)
        if not _generated(fn):
            self.opaque.add(target)  # ... or a tuple of views of it

    # ---------------------------------------------------------------- liveness


def _definitions(fn):
    """name -> the statement (or merge) defining it."""
    defs = {}
    for stmt in ir.walk(fn.body):
        for name in ir.defined_by(stmt):
            defs.setdefault(name, stmt)
        for phi in getattr(stmt, "phis", ()):
            defs[phi.target] = phi
    return defs


def _list_displays(defs):
    """The names bound to a list display (``t = [0, 0, 2]``): as an array index, a list is an
    integer array to NumPy (>= 1.23), so ``x[t]`` is a copy, never a view."""
    return {name for name, stmt in defs.items() if isinstance(stmt, ir.Assign) and isinstance(
        stmt.value, ir.Prim) and isinstance(stmt.value.fn, ir.Build) and
        stmt.value.fn.kind == "list"}


def _may_be_list(name, analysis, defs, seen=None):
    """Whether ``name`` may hold a list or dict (not only an array or a number): its kind
    says so, or is not known and its definition does not rule it out (a NumPy function's
    result, arithmetic of arrays and numbers, an item of an array are arrays or numbers)."""
    kind = analysis.kinds.get(name)
    if kind == SEQ:
        return True
    if kind in (ARRAY, SCALAR, OTHER):
        return False
    seen = set() if seen is None else seen
    if name in seen:
        return False  # a loop's merge: decided by its other sources
    seen.add(name)
    stmt = defs.get(name)
    if isinstance(stmt, ir.Phi):
        return any(isinstance(s, ir.Var) and _may_be_list(s.name, analysis, defs, seen)
                   for s in stmt.sources)
    if isinstance(stmt, ir.SetItem):
        return _may_be_list(stmt.obj.name, analysis, defs, seen)
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim)):
        return True
    fn, args = stmt.value.fn, stmt.value.args
    if isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith(
            "numpy") and not isinstance(fn, (ir.Method, ir.Attr, ir.Build)):
        return False
    if fn is operator.getitem:
        return analysis.kinds.get(getattr(args[0], "name", None)) != ARRAY
    if safe_in(fn, _ARITH) and fn is not sum and not (
            fn in (min, max) and (len(args) < 2 or stmt.value.kwargs)):
        # ys + zs, ys * 2: lists; max(a, b) is one of its arguments (max(ys): an item);
        # a sum is a list only where its left operand is one (0.0 + ys raises TypeError)
        if fn in (operator.add, operator.iadd):
            args = args[:1]
        return any(_may_be_list(a.name, analysis, defs, seen) if isinstance(a, ir.Var)
                   else isinstance(a, ir.Const) and isinstance(a.value, (list, tuple))
                   for a in args)
    return True



def _uses(body):
    """name -> how many places read it (merges and loop tests included)."""
    uses = {}
    for stmt in ir.walk(body):
        atoms = list(ir.reads_of(stmt))
        atoms += [v for p in getattr(stmt, "phis", ()) for s in p.sources if s is not None
                  for v in ir.atoms_in(s)]
        atoms += [v for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None))
                  if part is not None for v in ir.atoms_in(part)]
        for v in atoms:
            if isinstance(v, ir.Var):
                uses[v.name] = uses.get(v.name, 0) + 1
    return uses


def _const_indices(stmt):
    """The constant integer indices ``>= 0`` a statement reads or writes at."""
    if isinstance(stmt, ir.SetItem):
        index = stmt.index
    elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
            stmt.value.fn is operator.getitem and len(stmt.value.args) == 2):
        index = stmt.value.args[1]
    else:
        return ()
    ok = isinstance(index, ir.Const) and type(index.value) is int and index.value >= 0
    return (index,) if ok else ()


def result_memory(fn, analysis):
    """``(own, held)``: the objects ``fn``'s result may be (or be a view of) and may hold, as
    tokens of ``fn``'s own (:class:`Aliases`): ``("arg", p)``, ``("arg", p, "items")``,
    ``("global", id)``, ``("new", name, ...)``. What a caller reads for a write into the result
    of a call (``z = helper(y); z[0] = v``): a write into ``y`` itself, into a global, or into
    a new array."""
    aliases = Aliases(fn, analysis)
    own, held = frozenset(), frozenset()
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Return) and stmt.value is not None:
            own = own | aliases.mem(stmt.value, aliases.own)
            held = held | aliases.mem(stmt.value, aliases.held)
    return own, held
