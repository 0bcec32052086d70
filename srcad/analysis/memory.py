"""The memory model of one function: which objects each value may be, or be a view of (its
*own* memory), and which it may hold (lists hold arrays): :class:`Aliases`, solved once per
function from its SSA form. :mod:`srcad.analysis.alias` asks it about every write.

Objects are tokens: ``("new", name)`` for what the statement defining ``name`` makes,
``("arg", p)`` and ``("global", id)`` for what the caller and the module own, with
``("arg", p, "items")`` for what an argument list holds and ``("new", name, "item", k)`` for
the object at place ``k`` of a list whose places are told apart (``zeros_like``'s gradients, a
list display).

Imports only ``srcad.core``, ``srcad.rules`` (the names of array methods), ``srcad.runtime``,
:mod:`srcad.analysis.memory_tables`,
:mod:`srcad.analysis.memory_places`, :mod:`srcad.analysis.user_calls`,
:mod:`srcad.analysis.written_back` and :mod:`srcad.analysis.written_places` (what an item
read at a constant place is, through the writes at constant places).
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, OTHER, SCALAR, SEQ
from ..rules import registry
from ..runtime import family_of
from .memory_places import _const_indices, _Places, _put_backs, place_key
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
from .written_back import given_back
from .written_places import _Items


def _calls_itself(fn):
    """Whether ``fn`` names itself (a backward part srcad made of a recursive function of
    yours, read for a second derivative): its result is read to a fixed point
    (``transform/calls._memory_fixed_point``); srcad's other parts are read as their
    arguments or new objects."""
    code, name = getattr(fn, "__code__", None), getattr(fn, "__name__", None)
    return code is not None and name in code.co_names + code.co_freevars


class _Calls:
    """A mixin of :class:`Aliases`: what a call of your function returns (read from the
    function, :func:`result_memory`), and whether an index makes a copy."""

    def _callee_memory(self, prim):
        """``(own, held)`` of a user function's result, in its own tokens, or None."""
        callees = self.an.callees
        if callees is None or not is_user_call(prim) or (
                _generated(prim.fn) and not _calls_itself(prim.fn)):
            return None  # srcad's own parts: their arguments or new objects (below)
        call = bind_call(prim, self.an.kind)
        if call is None or any(isinstance(a, (ir.Slice, ir.Index)) for a in
                               call.arguments.values()):
            return None  # (a default's value stands for itself: default_atom)
        self._arguments, self._callee = call.arguments, getattr(
            prim.fn, "__srcad_shown__", None) or getattr(prim.fn, "__name__", "f")
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


def _element(an, base, index, target):
    """Whether ``base[index]`` is a number srcad knows of, or indexes every axis of an array
    of known rank with a number each (``x[i, y[i]]``): NumPy gives a number (an int index)
    or a copy (a bool one, or an error for a float), never a view."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    return an.kinds.get(target) == SCALAR or an.rank(base) == len(items) and all(
        isinstance(i, ir.Const) and type(i.value) is int
        or isinstance(i, ir.Var) and an.kinds.get(i.name) == SCALAR for i in items)


def _added_to(aliases, old, fresh):
    """What ``old += v`` may be: ``old`` (the object changed in place), and ``fresh`` (a new
    object) while ``old`` may hold a number and no object srcad knows of (``k = 0``, then
    ``k += x * i`` in a loop: an array made at the first step, changed in place after; with
    no object at all, writes through its rows would be seen nowhere)."""
    own = aliases.mem(old, aliases.own)
    number = not own and aliases.an.kind(old) not in (ARRAY, SEQ) and not (
        old.name in aliases.arrays or old.name in aliases.lists)
    return own | fresh if number else own


class Aliases(_Items, _Places, _Calls):
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
        #: id of ``ys_1[i] = t_1`` ending ``ys[i] += v`` -> ``t = ys[i]``, put back where it was
        self.put_backs = _put_backs(fn, defs)
        self.checks_used = set()  # items of ys[k] += v whose run-time check is relied on
        self.own, self.held = {}, {}
        self.after = {}  # id(write statement) -> names live after it
        self.globals_seen = {}  # token -> spelling of the global
        self.arrays = set()  # names of kind ANY certainly holding an array (a[1:], a.T)
        self.lists = _appended(fn)  # names certainly holding a list or dict: .append/.pop's
        #: names whose items may be any object they hold, their own memory included: the
        #: result of a call srcad does not follow (``p, q = halves(b)``: two views of b),
        #: a list of views (``np.split(b, 2)``), an item or attribute of such a value
        self.opaque = set()
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
        self.sole = {}  # (list, index or None) -> new objects stored there alone (.items_apart)
        self.indices = {"?"} | {
            i.value for s in ir.walk(fn.body) for i in _const_indices(s)}
        for p in fn.params:
            if self.may_alias(p):
                self.own[p] = frozenset({("arg", p)})
                self.held[p] = self.own[p] | _param_items(p, analysis)  # what a list holds
        self._solve()

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
                    put = self._stored(stmt) if stored else stored
                    if stored and id(stmt) in self.put_backs:  # ys[i] += v: the item put back
                        put = stored - self.mem(ir.Var(self.put_backs[id(stmt)]), self.own)
                    self._put_in(stmt.obj, stmt.index, put)
                    self._put_in(stmt.obj, stmt.index, stored - put, self.sole)
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
            operands = _union(self.mem(a, self.held) for a in value.operands()
                              if self.an.rank(a) != 1)  # (ys += v of a vector: numbers)
            if not _may_be_list(old.name, self.an, self.defs) or value.fn not in (
                    operator.add, operator.or_):  # (ys *= 2 repeats ys' own items)
                operands = frozenset()  # an array holds numbers, not what is added to it
            self._put_in(old, None, operands)  # ys += zs: a list holds zs' items too
            self._set(target, _added_to(self, old, fresh), self.mem(old, self.held) | operands)
            self._opaque_if(target, old)
            return
        fn, args = value.fn, value.args
        every = _union(self.mem(a, self.held) for a in list(args) + list(value.kwargs.values()))
        if fn is operator.getitem:
            base, index = args
            given = given_back(self.defs, base, index)  # a_1 = update_1[1]: a (written_back)
            if given is not None:
                self._set(target, self.mem(given, self.own), self.mem(given, self.held))
            elif self.an.kind(base) == ARRAY:
                if self._advanced(index) or _element(self.an, base, index, target):
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
                self._item_of_container(target)
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
                items = self._copy_holds(base)  # (an array's copy holds numbers)
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
            places = list(enumerate(args)) if fn is ir.BUILD_LIST else [
                (place_key(k), a) for k, a in zip(args[::2], args[1::2])
            ] if fn is ir.BUILD_DICT else []
            if places and all(k is not None for k, _ in places):
                # [x, a * 1.0, b], {"a": x, "b": a * 1.0}: places told apart like
                # zeros_like's (what ys[k] += v changes): place k holds what its item may
                # be; a new object read only here (a * 1.0) is the object made at place k,
                # seen nowhere else
                alloc = ("new", target)
                self.fresh_items.add(alloc)
                contents |= {(*alloc, "item", k) for k, _ in places}
                for k, a in places:
                    key = (alloc, k)
                    self.slots[key] = self.slots.get(key, frozenset()) | (
                        self.mem(a, self.held) - ({("new", a.name)} if self._single_new(a)
                                                  else frozenset()))
            self._set(target, fresh, fresh | contents)
            return
        copied = value.kwargs.get("copy")  # np.array(y, copy=True) always copies
        # np.diag of a vector: a new matrix (of a matrix, or of a rank not known: a view)
        made = fn is np.diag and bool(args) and self.an.rank(args[0]) == 1
        if safe_in(fn, VIEW_FUNCS) and not made or fn is np.array and copied is not None and not (
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


def _appended(fn):
    """The names ``.append`` or ``.pop`` is called on (lists or dicts, certainly)."""
    return {stmt.value.args[0].name for stmt in ir.walk(fn.body) if isinstance(
        stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
        stmt.value.fn, ir.Method) and stmt.value.fn.name in ("append", "pop") and isinstance(
        stmt.value.args[0], ir.Var)}


class _Definitions(dict):
    """name -> the statement (or merge) defining it; ``only_indexed``: the names read only as
    ``name[k]``, ``len(name)`` or the list a write ``name_1[k] = v`` copies (no method, call,
    merge or container sees the object: its places hold what was written there)."""

    only_indexed = frozenset()


def _definitions(fn):
    """name -> the statement (or merge) defining it (a :class:`_Definitions`)."""
    defs, other = _Definitions(), set()
    for stmt in ir.walk(fn.body):
        for name in ir.defined_by(stmt):
            defs.setdefault(name, stmt)
        for phi in getattr(stmt, "phis", ()):
            defs[phi.target] = phi
            other |= {v.name for v in phi.sources if isinstance(v, ir.Var)}
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim):
            prim = stmt.value
            other |= {a.name for i, a in enumerate(prim.args) if isinstance(a, ir.Var) and not (
                prim.fn is operator.getitem and i == 0 or prim.fn is len)}
            other |= {a.name for a in prim.kwargs.values() if isinstance(a, ir.Var)}
        elif isinstance(stmt, ir.SetItem):
            other |= {a.name for a in (*ir.atoms_in(stmt.index), stmt.value)
                      if isinstance(a, ir.Var)}
        else:
            other |= {a.name for a in ir.reads_of(stmt) if isinstance(a, ir.Var)}
        for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None)):
            if part is not None:
                other |= {a.name for a in ir.atoms_in(part) if isinstance(a, ir.Var)}
    defs.only_indexed = frozenset(defs) - other
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
    if isinstance(fn, ir.Method) and fn.name == "copy" and isinstance(args[0], ir.Var):
        return _may_be_list(args[0].name, analysis, defs, seen)  # a list's copy is a list
    if isinstance(fn, ir.Method) and fn.name in registry.methods and fn.name not in (
            "get", "pop", "tolist", "item"):
        return False  # a.dot(b), a.reshape(...), a.sum(): no list or dict has them
    if is_user_call(stmt.value) and getattr(analysis, "callees", None) is not None:
        call = bind_call(stmt.value, analysis.kind)  # y = softmax(x): read from softmax
        return call is None or analysis.callees.result_memory(
            stmt.value.fn, call.kinds, call.arity, result_may_be_list, True)
    if isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith(
            "numpy") and not isinstance(fn, (ir.Method, ir.Attr, ir.Build)):
        return False
    if fn is operator.getitem:
        base = defs.get(getattr(args[0], "name", None))
        if getattr(args[0], "name", None) in getattr(defs, "only_indexed", ()) and isinstance(
                base, ir.Assign) and isinstance(base.value, ir.Prim) and (
                base.value.fn is ir.BUILD_LIST) and isinstance(args[1], ir.Const) and type(
                args[1].value) is int and -len(base.value.args) <= args[1].value < len(
                base.value.args):  # [t * t, x][0]: what was written at that place
            item = base.value.args[args[1].value]
            return isinstance(item, ir.Var) and _may_be_list(item.name, analysis, defs, seen) \
                or isinstance(item, ir.Const) and isinstance(item.value, (list, dict))
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


def result_may_be_list(fn, analysis):
    """Whether a value ``fn`` returns may be a list or dict (:func:`_may_be_list` of each
    ``return``'s value, a parameter of a kind not known counted as one)."""
    defs = _definitions(fn)
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Return) and stmt.value is not None:
            value = stmt.value
            if isinstance(value, ir.Var) and _may_be_list(value.name, analysis, defs) or (
                    isinstance(value, ir.Const) and isinstance(value.value, (list, dict))):
                return True
    return False


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


def _param_items(p, analysis):
    """The objects the parameter ``p`` may hold: a token for them, none for a differentiated
    array (its items are numbers: srcad refuses other dtypes there)."""
    if p in getattr(analysis, "wrt", ()) and analysis.kinds.get(p) == ARRAY:
        return frozenset()
    return frozenset({("arg", p, "items")})
