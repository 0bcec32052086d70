"""Which values may share memory, and which writes are therefore refused.

srcad's SSA treats a write ``y[i] = v`` as a new value (``y_1 = y.copy(); y_1[i] = v``) and
``y += v`` as ``y_1 = y + v``. Python changes the object itself, so the two agree only when
nothing else can see the old object afterwards. This pass works out, for every array or
list value, the objects it may be part of (its *memory*: the allocations, arguments and
globals it may be, or be a view of) and the objects it may hold (lists hold arrays), then
checks every write:

* a write into an argument, a global or a closure value (or a view of one) is refused:
  the caller would see the change srcad does not make;
* a write into a value that may share memory with another value still read afterwards
  (a view ``b = a[:2]``, ``a.T``, ``a.reshape(...)``, ``np.asarray(a)``, a second name
  ``b = a``, a list holding it) is refused: Python would change that value too;
* a write into the container a ``for`` loop iterates, inside the loop, is refused;
* a method that changes its object in place (``sort``, ``fill``, ``insert``, ...) is
  refused when the object or the arguments carry a gradient (``append`` and ``pop`` on a
  local list are differentiated), and always on an argument or a global.

What remains after the pass are writes into values nobody else can observe: srcad's
functional reading of them is exactly Python's.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ANY, ARRAY, OTHER, SCALAR, SEQ
from ..errors import MutationError
from ..rules import registry
from ..runtime import family_of

#: methods that change their object: the hint for each (None: differentiated on local lists)
MUTATORS = {
    "append": None, "pop": None,
    "insert": "build a new list: ys = ys[:i] + [v] + ys[i:]",
    "extend": "build a new list: ys = ys + list(more)",
    "remove": "build a new list without the item (a comprehension)",
    "reverse": "ys = ys[::-1]",
    "sort": "use ys = sorted(ys) for a list, y = np.sort(y) for an array",
    "clear": "start a new list: ys = []",
    "fill": "y = np.full_like(y, v)",
    "resize": "y = np.resize(y, shape)",
    "put": "flat = y.ravel().copy(); flat[ind] = v; y = flat.reshape(y.shape)",
    "itemset": "y[i] = v",
    "partition": "y = np.partition(y, k)",
    "update": "build a new dict: d = {**d, **other} outside, or pass the values in",
    "setdefault": "read with d.get(k, default) and build the new dict outside",
    "popitem": "read the items you need and build the new dict outside",
    "add": "build a new set", "discard": "build a new set",
    "byteswap": "y = y.byteswap()", "setflags": "leave the array's flags alone",
}

#: methods and attributes whose result may be (a view of) the object's own memory
VIEW_METHODS = {"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze", "diagonal",
                "conj", "conjugate", "getfield"}
VIEW_ATTRS = {"T", "mT", "real", "imag", "flat", "base", "data"}
#: methods and attributes whose result is new (or holds no memory that can be written)
FRESH_METHODS = {"copy", "astype", "flatten", "tolist", "sum", "mean", "prod", "max", "min",
                 "std", "var", "dot", "cumsum", "cumprod", "round", "clip", "any", "all",
                 "argmax", "argmin", "argsort", "nonzero", "count", "index", "item",
                 "trace", "format", "keys", "values", "items", "get", "__len__"}
FRESH_ATTRS = {"shape", "ndim", "size", "dtype", "nbytes", "itemsize", "strides"}
#: functions whose result may be (a view of) an argument's memory
VIEW_FUNCS = {np.asarray, np.asanyarray, np.reshape, np.ravel, np.transpose, np.swapaxes,
              np.moveaxis, np.rollaxis, np.squeeze, np.expand_dims, np.atleast_1d,
              np.atleast_2d, np.atleast_3d, np.broadcast_to, np.broadcast_arrays,
              np.diagonal, np.diag, np.real, np.imag, np.flip, np.fliplr, np.flipud,
              np.rot90, np.ascontiguousarray, np.asfortranarray, np.require, np.split,
              np.array_split, np.hsplit, np.vsplit, np.dsplit, np.conjugate,
              np.lib.stride_tricks.as_strided}


def _safe_in(fn, collection):
    try:
        return fn in collection
    except TypeError:
        return False


class Aliases:
    """``own[v]``: the objects value ``v`` may be or be a view of; ``held[v]``: those and
    the objects it may hold. Objects are tokens: ("new", name), ("arg", name),
    ("global", id)."""

    def __init__(self, fn, analysis):
        self.fn = fn
        self.an = analysis
        self.augmented = getattr(fn, "augmented", {})
        self.fresh_copies = getattr(fn, "fresh_copies", set())
        self.own = {}
        self.held = {}
        self.after = {}  # id(write statement) -> names live after it
        self.globals_seen = {}  # token -> spelling of the global
        self.arrays = set()  # names of kind ANY certainly holding an array (a[1:], a.T)
        self.lists = set()  # names certainly holding a list or dict: what .append/.pop change
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
        for p in fn.params:
            if self.may_alias(p):
                self.own[p] = frozenset({("arg", p)})
                self.held[p] = self.own[p] | {("arg", p, "items")}  # what a list or dict holds
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
        """What an item read out of ``atom`` may be: what it holds besides itself."""
        if self.an.kind(atom) == SEQ or isinstance(atom, ir.Var) and atom.name in self.lists:
            return self.mem(atom, self.held) - self.mem(atom, self.own)
        return self.mem(atom, self.held)

    def _solve(self):
        for _ in range(50):
            before = (dict(self.own), dict(self.held))
            for stmt in ir.walk(self.fn.body):
                if isinstance(stmt, ir.Assign):
                    self._assign(stmt)
                elif isinstance(stmt, ir.SetItem):
                    self._set(stmt.target, self.mem(stmt.obj, self.own),
                              self.mem(stmt.obj, self.held) | self.mem(stmt.value, self.held))
                for phi in getattr(stmt, "phis", ()):
                    sources = [s for s in phi.sources if s is not None]
                    self._set(phi.target, _union(self.mem(s, self.own) for s in sources),
                              _union(self.mem(s, self.held) for s in sources))
            if (self.own, self.held) == before:
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
                if extra and self.may_alias(obj):
                    self.held[obj] = self.held.get(obj, frozenset()) | extra
            return
        fresh = frozenset({("new", target)})
        if target in self.fresh_copies:
            self._set(target, fresh, fresh | self.mem(value, self.held))
            return
        if not isinstance(value, ir.Prim):
            self._set(target, self.mem(value, self.own), self.mem(value, self.held))
            return
        if target in self.augmented:  # y += v: the same object as y
            old = ir.Var(self.augmented[target])
            operands = _union(self.mem(a, self.held) for a in value.operands())
            self._set(target, self.mem(old, self.own), self.mem(old, self.held) | operands)
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
                    items = index.items if isinstance(index, ir.Index) else (index,)
                    if any(isinstance(i, ir.Slice) or isinstance(i, ir.Const) and (
                            i.value is Ellipsis or i.value is None) for i in items):
                        self.arrays.add(target)
            elif self.an.kind(base) == SEQ and isinstance(index, ir.Slice):
                self._set(target, fresh, fresh | self._contents(base))
            else:
                self._set(target, self._contents(base), self._contents(base))
            return
        if isinstance(fn, ir.Attr):
            if fn.name in FRESH_ATTRS:
                return
            base = args[0]
            own = self.mem(base, self.own) if fn.name in VIEW_ATTRS else self.mem(
                base, self.held)
            self._set(target, own, self.mem(base, self.held))
            return
        if isinstance(fn, ir.Method):
            base = args[0]
            if fn.name in FRESH_METHODS:
                items = self.mem(base, self.held) - self.mem(base, self.own)
                if fn.name == "get":
                    items = self._contents(base)
                self._set(target, fresh, fresh | (items if fn.name in (
                    "copy", "get", "values", "items", "tolist") else frozenset()))
            elif fn.name in VIEW_METHODS:
                self._set(target, self.mem(base, self.own), self.mem(base, self.held))
                if self.is_array(base):
                    self.arrays.add(target)
            elif fn.name == "pop":  # arrays have no pop: an item of a list (or dict)
                items = self.mem(base, self.held) - self.mem(base, self.own)
                self._set(target, items, items)
            else:
                self._set(target, every, every)
            return
        if isinstance(fn, ir.Build) or fn in (list, tuple, sorted, dict):
            contents = _union(self._contents(a) if fn in (list, tuple, sorted, dict) else
                              self.mem(a, self.held) for a in args)
            self._set(target, fresh, fresh | contents)
            return
        if _safe_in(fn, VIEW_FUNCS) or fn is np.array and "copy" in value.kwargs:
            self._set(target, every, every)
            return
        if fn in (operator.add, operator.mul) and self.an.kinds.get(target) == SEQ:
            contents = _union(self._contents(a) for a in args)  # ys + zs holds their items
            self._set(target, fresh, fresh | contents)
            return
        if _fresh_result(fn):
            self._set(target, fresh, fresh)
            return
        self._set(target, every, every)  # a function of yours may return its argument

    def _advanced(self, index):
        """Whether an array index is advanced (an integer or boolean array): a copy."""
        items = index.items if isinstance(index, ir.Index) else (index,)
        for item in items:
            if isinstance(item, ir.Const) and isinstance(item.value, (list, np.ndarray)):
                return True
            if isinstance(item, ir.Var) and self.an.kinds.get(item.name) in (ARRAY, SEQ):
                return True
        return False

    # ---------------------------------------------------------------- liveness

    def live(self):
        self._block(self.fn.body, set())
        return self.after

    def _note(self, stmt, live):
        self.after.setdefault(id(stmt), set()).update(live)

    def _block(self, stmts, live):
        live = set(live)
        for stmt in reversed(stmts):
            live = self._stmt(stmt, live)
        return live

    def _stmt(self, stmt, live):
        if isinstance(stmt, (ir.Assign, ir.SetItem)):
            self._note(stmt, live)
            defs = set(ir.defined_by(stmt))
            return (live - defs) | {v.name for v in ir.reads_of(stmt)}
        if isinstance(stmt, (ir.Return, ir.Raise)):
            return live | {v.name for v in ir.reads_of(stmt)}
        if isinstance(stmt, ir.If):
            arms = set()
            for side, block in ((0, stmt.body), (1, stmt.orelse)):
                out = (live - {p.target for p in stmt.phis}) | _names(
                    p.sources[side] for p in stmt.phis)
                arms |= self._block(block, out)
            return arms | _names([stmt.test])
        if isinstance(stmt, ir.Loop):
            targets = {p.target for p in stmt.phis}
            start = set()
            for _ in range(50):
                end = live | start | _names([stmt.exit])
                body_out = (end - targets) | _names(p.sources[1] for p in stmt.phis)
                body_in = self._block(stmt.body, body_out)
                if stmt.target:
                    body_in = body_in - {stmt.target}
                head_out = body_in | live | _names([stmt.test])
                new = self._block(stmt.header, head_out)
                if new == start:
                    break
                start = new
            iter_reads = {v.name for v in stmt.iter.operands()} if isinstance(
                stmt.iter, ir.Prim) else _names([stmt.iter])
            return ((start | live) - targets) | _names(p.sources[0] for p in stmt.phis) | (
                iter_reads)
        return live


def ir_mutable(value):
    return isinstance(value, (list, dict, set, np.ndarray, bytearray))


def _union(sets):
    out = frozenset()
    for s in sets:
        out = out | s
    return out


def _names(atoms):
    return {v.name for a in atoms if a is not None for v in ir.atoms_in(a)}


_ARITH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul, abs,
          operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
          operator.not_, operator.contains, operator.invert, operator.and_, operator.or_,
          operator.xor, len, range, float, int, round, min, max, sum, np.copy}


#: srcad's own runtime helpers that build a new value (generated code differentiated again)
_FRESH_HELPERS = {"fill", "zeros_like", "scatter", "cleared", "total", "copy_tangent", "add"}


def _fresh_result(fn):
    """Whether ``fn`` certainly returns a new object (or a number)."""
    if family_of(fn) == "runtime" and fn.__name__ in _FRESH_HELPERS:
        return True
    if _safe_in(fn, _ARITH) or isinstance(fn, (np.ufunc, ir.BoolOp)):
        return fn not in (min, max)  # max(a, b) is one of its arguments
    if getattr(fn, "__module__", None) == "math":
        return True
    return registry.has_rule(fn) or registry.is_nondiff(fn)


# ---------------------------------------------------------------- the checks


def check(fn, analysis):
    """Raise :class:`MutationError` at the first write srcad cannot make exact."""
    aliases = Aliases(fn, analysis)
    after = aliases.live()
    source = fn.source
    named = _user_names(fn)

    def refuse(stmt, message, hint):
        line = getattr(stmt, "line", None)
        raise MutationError(message, filename=source.filename if source else None,
                            lineno=line, construct=source.line_text(line) if source and line
                            else None, hint=hint)

    def label(name):
        return named.get(name, name)

    def write(stmt, obj, target, what):
        memory = aliases.mem(obj, aliases.own)
        mine = label(target) if target else label(obj.name) if isinstance(obj, ir.Var) else "y"
        outside = sorted(t for t in memory if t[0] in ("arg", "global"))
        if outside:
            kind, key = outside[0][:2]
            whose = f"the argument {key}" if kind == "arg" else \
                f"the global (or closure) value {aliases.globals_seen.get(outside[0][:2])}"
            also = "" if kind == "arg" and mine == key else f" ({mine} is part of it)"
            refuse(stmt, f"{what} changes {whose} in place{also}: the caller would see a "
                   "change srcad does not make", f"work on a copy: write {mine} = "
                   f"{mine}.copy() first, and return what you compute")
        only_itself = _new_here(stmt, obj, aliases, places)
        for other in sorted(after.get(id(stmt), ())):
            if other == target or not aliases.may_alias(other):
                continue
            if only_itself and other != obj.name:
                continue  # made just before, seen by nobody: other values hold older ones
            if aliases.held.get(other, frozenset()) & memory:
                theirs = label(other)
                how = "is the same object as" if other == obj.name else "shares memory with"
                refuse(stmt, f"{what}: {mine} {how} {theirs}, which is read afterwards, "
                       f"and Python changes {theirs} too", f"write {mine} = {mine}.copy() "
                       "before changing it, or build a new array (np.concatenate, np.where)")

    places = {}  # id of a statement -> (its block, its position there)
    _places(fn.body, places)
    loops = {}  # id of a statement -> the for loops over sequences around it
    _enclosing(fn.body, (), loops, getattr(fn, "iterated", {}))
    for stmt in ir.walk(fn.body):
        obj, target, what = _write_of(stmt, aliases)
        if obj is None:
            continue
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
            stmt.value.fn, ir.Method
        ):
            _method(stmt, obj, analysis, aliases, refuse, _context(fn.body, stmt), label)
        elif isinstance(stmt, ir.SetItem) and analysis.kind(obj) == SEQ and isinstance(
            stmt.index, ir.Slice
        ) and (analysis.active(obj) or analysis.active(stmt.value) or analysis.active(
            ir.Var(stmt.target))):
            refuse(stmt, "assigning a slice of a list that carries gradients",
                   "build the new list: ys = ys[:i] + new + ys[j:]")
        if isinstance(obj, ir.Const):
            if ir_mutable(obj.value):
                refuse(stmt, f"{what} changes the global (or closure) value {obj}",
                       "build the new value in a local name and return it")
            continue
        if not isinstance(obj, ir.Var) or not aliases.may_alias(obj.name):
            continue
        memory = aliases.mem(obj, aliases.own)
        for seqs, line in loops.get(id(stmt), ()):
            if any(aliases.mem(s, aliases.own) & memory for s in seqs):
                mine = label(target) if target else label(obj.name)
                refuse(stmt, f"{what} changes {mine} while the for loop at "
                       f"line {line} iterates over it", "iterate over a copy "
                       "(for e in list(ys) / ys.copy()), or loop over indices with while")
        if isinstance(stmt, ir.Assign) and target is None:
            memory = aliases.mem(obj, aliases.own)  # ys.append(v): the object itself changes
            outside = [t for t in memory if t[0] in ("arg", "global")]
            if outside:
                write(stmt, obj, target, what)
            continue
        write(stmt, obj, target, what)


def _write_of(stmt, aliases):
    """(the value a statement writes into, the name of the result, a description)."""
    if isinstance(stmt, ir.SetItem):
        return stmt.obj, stmt.target, "writing into an array or list"
    if not isinstance(stmt, ir.Assign):
        return None, None, None
    value = stmt.value
    old = ir.Var(aliases.augmented.get(stmt.target, ""))
    if stmt.target in aliases.augmented and (aliases.an.kind(old) == SEQ
                                             or aliases.is_array(old)):
        what = "np.add.at" if isinstance(value, ir.Prim) and getattr(
            value.fn, "__name__", None) == "add_at" else "an augmented assignment (+=, *=, ...)"
        return ir.Var(aliases.augmented[stmt.target]), stmt.target, what
    if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
        value.fn.name in MUTATORS and value.args
    ):
        return value.args[0], None, f".{value.fn.name}()"
    return None, None, None


#: a hint for one kind of value only (the method's name alone does not say which)
_BY_KIND = {("sort", ARRAY): "write y = np.sort(y), a new array",
            ("sort", SEQ): "write ys = sorted(ys), a new list",
            ("reverse", SEQ): "write ys = ys[::-1], a new list"}


def _method(stmt, obj, analysis, aliases, refuse, context, label):
    """An in-place method: refused where it would need a derivative srcad does not have, or
    where the backward sweep may read the object it changes (an array read before, or in a
    loop; a list sorted, reversed, ... after being used whole, by np.array(ys) or sum(ys),
    before or in the same loop)."""
    name = stmt.value.fn.name
    kind = analysis.kind(obj)
    listlike = MUTATORS[name] is None and kind != ARRAY  # append and pop: lists only
    hint = MUTATORS[name] or ("build a new list after using the old one whole: v = ys[-1]; "
                              "ys = ys[:-1]" if name == "pop" else "build a new list after "
                              "using the old one whole: ys = ys + [v]")
    hint = _BY_KIND.get((name, kind), hint)
    if not listlike:
        carries = any(isinstance(a, ir.Var) and a.name in analysis.varied
                      for a in [obj, *stmt.value.args[1:]])
        if carries:
            refuse(stmt, f".{name}() changes a value that carries a gradient in place", hint)
    if not isinstance(obj, ir.Var):
        return
    memory = aliases.mem(obj, aliases.own)
    loop, earlier = context
    maybe_array = kind in (ARRAY, ANY) and not listlike
    if loop and maybe_array:
        refuse(stmt, f".{name}() changes an array in place inside a loop: the backward sweep "
               "would read the changed array", hint)
    seen = list(earlier)
    for around in loop:  # a loop the object outlives: its later statements come before too
        inside = {n for st in ir.walk(around.header + around.body) for n in ir.defined_by(st)}
        inside |= {p.target for p in around.phis}
        if any(t[0] != "new" or t[1] not in inside for t in memory):
            seen += list(ir.walk(around.header + around.body))
    for other in seen:
        if other is stmt or isinstance(other, (ir.If, ir.Loop)):
            continue
        for v in ir.reads_of(other):
            seen_as = aliases.own if listlike else aliases.held  # an item is not its list
            if not seen_as.get(v.name, frozenset()) & memory:
                continue
            if not maybe_array and _element_use(other, v, appending=name == "append"):
                continue
            refuse(stmt, f".{name}() changes {label(obj.name)} in place after line "
                   f"{getattr(other, 'line', None) or '?'} used it: the backward sweep would "
                   "read the changed value", hint)


def _element_use(stmt, var, appending=False):
    """Whether ``stmt`` reads only an item or the length of ``var``, or appends to or pops
    it: uses the backward sweep does not read again."""
    if isinstance(stmt, ir.SetItem):  # ys[i] = v: its adjoint reads no item of ys
        return stmt.obj == var and var not in set(ir.atoms_in(stmt.index)) | set(
            ir.atoms_in(stmt.value))
    if not isinstance(stmt, ir.Assign) or not isinstance(stmt.value, ir.Prim):
        return False
    value = stmt.value
    args = value.args
    if not (args and isinstance(args[0], ir.Var) and args[0].name == var.name):
        return False
    if any(isinstance(a, ir.Var) and a.name == var.name for a in args[1:]):
        return False
    # sum(ys) then ys.append(v): the adjoint's longer list of gradients is cut to the
    # items there were (add zips); a pop would cut it too short
    if value.fn is sum:
        return appending
    return value.fn in (operator.getitem, len) or isinstance(
        value.fn, ir.Method) and value.fn.name in ("append", "pop")


def _context(body, target):
    """(the loops around ``target``, the statements before it)."""
    before = []

    def visit(stmts, loops):
        for stmt in stmts:
            if stmt is target:
                return loops
            before.append(stmt)
            for block in ir.blocks_of(stmt):
                found = visit(block, loops + [stmt] if isinstance(stmt, ir.Loop) else loops)
                if found is not None:
                    return found
        return None

    return visit(body, []) or [], before


def _places(stmts, out):
    for i, stmt in enumerate(stmts):
        out[id(stmt)] = (stmts, i)
        for block in ir.blocks_of(stmt):
            _places(block, out)


def _new_here(stmt, obj, aliases, places):
    """Whether ``obj`` is a new object made earlier in the write's own block and read by
    nothing in between (``y_2 = y_1.copy(); y_2[i] = v``): then no other value can hold
    this very object, even where values hold others made by the same line (a stack of the
    versions of earlier iterations)."""
    if not isinstance(obj, ir.Var) or aliases.mem(obj, aliases.own) != {("new", obj.name)}:
        return False
    block, at = places[id(stmt)]
    for earlier in reversed(block[:at]):
        if obj.name in ir.defined_by(earlier):
            return isinstance(earlier, ir.Assign)
        if any(v.name == obj.name for s in ir.walk([earlier]) for v in ir.reads_of(s)):
            return False
    return False


def _enclosing(stmts, loops, out, iterated):
    for stmt in stmts:
        out[id(stmt)] = loops
        if isinstance(stmt, ir.If):
            _enclosing(stmt.body, loops, out, iterated)
            _enclosing(stmt.orelse, loops, out, iterated)
        elif isinstance(stmt, ir.Loop):
            inner = loops
            if stmt.target in iterated:
                inner = loops + (iterated[stmt.target],)
            _enclosing(stmt.header, inner, out, iterated)
            _enclosing(stmt.body, inner, out, iterated)


def _user_names(fn):
    """SSA name -> the user's name it is a version of (``a_2`` -> ``a``), where known."""
    names = {}
    user = getattr(fn.source, "node", None)
    spelled = set()
    if user is not None:
        import gast

        spelled = {n.id for n in gast.walk(user) if isinstance(n, gast.Name)}
    for stmt in ir.walk(fn.body):
        for name in ir.defined_by(stmt):
            base = name.rstrip("0123456789")
            if base.endswith("_") and base[:-1] in spelled:
                names[name] = base[:-1]
    return names
