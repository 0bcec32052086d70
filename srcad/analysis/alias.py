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

Imports ``srcad.analysis``, ``srcad.core``, ``srcad.errors`` (and nothing above its layer).
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ANY, ARRAY, SEQ
from ..core.walk import walk_nodes
from ..errors import MutationError
from ..rules import registry
from . import item_changes, operand_checks, row_views, written_back
from .memory import Aliases
from .memory_tables import MUTATORS, ir_mutable, log_append, names_of
from .user_calls import user_callee
from .write_names import copy_hint, spelled, user_names
from .write_names import described as described_names


class Liveness:
    """For every write, the names read after it (``after``: id of the statement -> names)."""

    def __init__(self, fn):
        self.fn = fn
        self.after = {}

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
            aux = getattr(self.fn, "aux", None) if isinstance(stmt, ir.Return) else None
            return live | {v.name for v in ir.reads_of(stmt)} | (
                {aux.name} if isinstance(aux, ir.Var) else set())  # has_aux: returned too
        if isinstance(stmt, ir.If):
            arms = set()
            for side, block in ((0, stmt.body), (1, stmt.orelse)):
                out = (live - {p.target for p in stmt.phis}) | names_of(
                    p.sources[side] for p in stmt.phis)
                arms |= self._block(block, out)
            return arms | names_of([stmt.test])
        if isinstance(stmt, ir.Loop):
            targets = {p.target for p in stmt.phis}
            start = set()
            for _ in range(50):
                end = live | start | names_of([stmt.exit])
                body_out = (end - targets) | names_of(p.sources[1] for p in stmt.phis)
                body_in = self._block(stmt.body, body_out)
                if stmt.target:
                    body_in = body_in - {stmt.target}
                head_out = body_in | live | names_of([stmt.test])
                new = self._block(stmt.header, head_out)
                if new == start:
                    break
                start = new
            iter_reads = {v.name for v in stmt.iter.operands()} if isinstance(
                stmt.iter, ir.Prim) else names_of([stmt.iter])
            return ((start | live) - targets) | names_of(p.sources[0] for p in stmt.phis) | (
                iter_reads)
        return live


def check(fn, analysis, callee=False):
    """Raise :class:`MutationError` at the first write srcad cannot make exact. In a
    ``callee`` (a function differentiated as part of its caller), a write into an argument's
    object is allowed: each call of it is checked in the caller as a write into what it passes
    (``analysis.callees.written``), refused there if anything reads that object afterwards."""
    aliases = Aliases(fn, analysis)
    rows = row_views.Rows(fn, analysis, aliases)  # rows a counting loop writes, and views
    after = Liveness(fn).live()
    source = fn.source
    named = {**user_names(fn), **getattr(fn, "spellings", {})}  # (t_2 -> ys[k])

    def refuse(stmt, message, hint):
        line = getattr(stmt, "line", None)
        raise MutationError(message, filename=source.filename if source else None,
                            lineno=line, construct=source.line_text(line) if source and line
                            else None, hint=hint)

    def label(name):
        return named.get(name, name)

    described = described_names(fn, named)
    owned, owned_ids = written_back.owned_params(fn)  # (srcad.written_state: copies)

    def write(stmt, obj, target, what, mine=None, items=False, by=None, fresh=()):
        memory = aliases.mem(obj, aliases.own)
        if items:  # (a callee changing what obj holds, not obj itself)
            memory = aliases.mem(obj, aliases.held) - memory
        mine = mine or (label(target) if target else label(obj.name) if isinstance(
            obj, ir.Var) else "y")
        written_back.refuse_wrt_owned(stmt, memory, owned, analysis, refuse, what)
        outside = sorted((t for t in memory if t[0] in ("arg", "global")
                          and not (callee and t[0] == "arg") and not (
                              t[1] in owned or t[1] in owned_ids)), key=repr)  # ("global", "?")
        # beside ("global", id): the keys of one kind are of several types
        if outside:
            kind, key = outside[0][:2]
            whose = f"the argument {key}" if kind == "arg" else \
                f"the global (or closure) value {aliases.globals_seen.get(outside[0][:2])}"
            if kind == "arg" and mine not in spelled(fn):
                mine = key  # a value srcad named (n[0] += 1): the argument is what to copy
            also = "" if kind == "arg" and mine == key else f" ({mine} is part of it)"
            hint = copy_hint(mine, source, getattr(stmt, "line", None), by)
            item = getattr(fn, "augmented_items", {}).get(target)
            if item is not None and kind == "arg":  # ys[k] -= e: a copy holds the caller's
                hint = _item_hint(stmt, item, key, aliases)
            if what == "setting .shape":
                hint = _shape_hint(stmt, mine, f"the caller's array ({whose})", source)
            refuse(stmt, f"{what} changes {whose} in place{also}: the caller would see a "
                   "change srcad does not make", hint)
        only_itself = not items and _new_here(stmt, obj, aliases, places)
        for other in sorted(after.get(id(stmt), ())):
            if other == target or other in fresh or not aliases.may_alias(other):
                continue  # (fresh: what a call writing into obj leaves, written_back)
            if only_itself and other != obj.name:
                continue  # made just before, seen by nobody: other values hold older ones
            since = _made_since(stmt, ir.Var(other), aliases, places)
            if since is not None and other != obj.name and _bound_as(
                    obj.name, aliases) not in since and not (aliases.held.get(
                    other, frozenset()) - aliases.own.get(other, frozenset())) & memory:
                continue  # other is an object made since obj's was bound, and holds
                # nothing obj may be
            if aliases.taken_out(obj, other) or aliases.only_through(target, other):
                continue  # (ys[i] += v: ys holds the item at place i alone, put back there)
            if aliases.held.get(other, frozenset()) & memory and not (aliases.items_apart(
                    other, memory, _later(stmt, fn.body, places)) or rows(stmt, other)):
                theirs = label(other)
                how = "is the same object as" if other == obj.name else "shares memory with"
                if theirs == mine:  # b = a: one object, two user names, one SSA name
                    theirs = f"another name for {mine} (b = {mine} makes no copy)"
                item = getattr(fn, "augmented_items", {}).get(target)
                if item is not None:  # ys[k] += v with an array at ys[k]
                    op = _SYMBOLS.get(getattr(stmt.value, "fn", None), "+")
                    refuse(stmt, f"{item[2]} {op}= ... (an augmented assignment): the item may "
                           f"be an array, which Python changes in place, and {theirs} may "
                           "hold it too",
                           f"write {item[2]} = {item[2]} {op} ... (a new array), or keep the "
                           "array in a name of its own")
                hint = f"write {mine} = {mine}.copy() before changing it, or build a new " + (
                    f"list ({mine} = {mine} + [v])" if analysis.kind(obj) == SEQ else
                    "array (np.concatenate, np.where)")
                # a view by .T, reshape, ravel (frontend.views): the write into the base
                hint = getattr(source, "view_hints", {}).get((stmt.line, mine), hint)
                if what == "setting .shape":
                    hint = _shape_hint(stmt, mine, theirs.split(" (")[0].replace(
                        "another name", "the other name"), source)
                if what.endswith("in place)") and items:  # what it holds changes
                    refuse(stmt, f"{what}: it changes the objects {mine} holds (ys[i] -= ...), "
                           f"and {theirs} holds one and is read afterwards", "write ys[i] = "
                           f"ys[i] - ... in it (a new array), or give {mine} copies")
                if what.endswith("in place)"):  # a call of a function changing an argument
                    # a nested def (lifted as m_local, shown as m) changing its enclosing's list
                    nested = by is not None and getattr(by[0].fn, "__name__", "").endswith(
                        "_local")
                    refuse(stmt, f"{what}: {mine} is read afterwards (or another name holding "
                           "it is), and Python changes it too", (
                               f"return the new value from the nested function and change "
                               f"{mine} where it is called ({mine}.append(helper(v))), or "
                               "build the list with a comprehension") if nested else
                           written_back.call_hint(stmt, source, f"pass a copy ({mine}.copy()"
                                                  "), or read what the function returns "
                                                  "instead of the object given", label,
                                                  spelled(fn)))
                refuse(stmt, f"{what}: {mine} {how} {theirs}, which is read afterwards, "
                       "and Python changes it too", hint)

    places = {}  # id of a statement -> (its block, its position there)
    _places(fn.body, places)
    loops = {}  # id of a statement -> the for loops over sequences around it
    _enclosing(fn.body, (), loops, getattr(fn, "iterated", {}))
    callees = getattr(analysis, "callees", None)
    for stmt in ir.walk(fn.body):
        obj, target, what = _write_of(stmt, aliases)
        if obj is None and callees is not None and hasattr(callees, "written") and isinstance(
                stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and \
                user_callee(stmt.value.fn):
            prim = stmt.value
            atoms = callees.written(prim.fn, prim.args, prim.kwargs, analysis)
            def called(n, stmt=stmt):  # (the argument as the call spells it: d["a"])
                return written_back.shown_argument(stmt, ir.Var(n), source, lambda m: (
                    described.get(m) or label(m)), getattr(fn, "temps", ()))

            written_back.refuse_shared(stmt, atoms, aliases, refuse, called, owned_ids)
            fresh = written_back.settle(fn.body, stmt, atoms, analysis, refuse, called)
            for atom in atoms:
                items = isinstance(atom, tuple)  # ("items", atom): what atom holds changes
                atom = atom[1] if items else atom
                if isinstance(atom, ir.Var) and aliases.may_alias(atom.name):
                    name = getattr(prim.fn, "__srcad_shown__", None) or prim.fn.__name__
                    what = f"{name}(...) (which changes what it is given in place)"
                    _iterated(stmt, atom, aliases, loops, refuse, what, called)
                    write(stmt, atom, stmt.target, what, called(atom.name), items=items,
                          by=(prim, atom), fresh=fresh)
            continue
        if obj is None:
            continue
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
            stmt.value.fn, ir.Method
        ):
            _method(stmt, obj, analysis, aliases, refuse, _context(fn.body, stmt),
                    lambda n: described.get(n) or label(n))
        elif isinstance(stmt, ir.SetItem) and analysis.kind(obj) == SEQ and isinstance(
            stmt.index, ir.Slice
        ) and (analysis.active(obj) or analysis.active(stmt.value) or analysis.active(
            ir.Var(stmt.target))):
            refuse(stmt, "assigning a slice of a list that carries gradients",
                   "build the new list: ys = ys[:i] + new + ys[j:]")
        if isinstance(obj, ir.Const):
            if ir_mutable(obj.value) and id(obj.value) not in owned_ids:
                refuse(stmt, f"{what} changes the global (or closure) value {obj}",
                       "build the new value in a local name and return it")
            continue
        if not isinstance(obj, ir.Var) or not aliases.may_alias(obj.name):
            continue
        _iterated(stmt, obj, aliases, loops, refuse, what, label, target)
        if isinstance(stmt, ir.Assign) and target is None:
            memory = aliases.mem(obj, aliases.own)  # ys.append(v): the object itself changes
            written_back.refuse_wrt_owned(stmt, memory, owned, analysis, refuse, what)
            outside = [t for t in memory if t[0] in ("arg", "global") and not (
                t[1] in owned or t[1] in owned_ids)]
            if outside and not _recorded(fn, analysis, stmt, outside, callee, refuse):
                write(stmt, obj, target, what)
            item_changes.refuse(fn, stmt, obj, analysis, after.get(id(stmt), ()), refuse, label)
            continue
        write(stmt, obj, target, what)
    operand_checks.insert(fn, analysis)  # m.v * w: not an object of yours, when it runs
    written = {**getattr(fn, "augmented_items", {}), **getattr(fn, "row_writes", {})}
    mine = {written[t][0] for t in getattr(fn, "checked_items", ()) if t in written}
    _drop_unused_checks(fn.body, mine - aliases.checks_used)


def _iterated(stmt, obj, aliases, loops, refuse, what, label, target=None):
    """Refuse a write into the object a ``for`` loop around it iterates over."""
    memory = aliases.mem(obj, aliases.own)
    for seqs, line in loops.get(id(stmt), ()):
        if any(aliases.mem(s, aliases.own) & memory for s in seqs):
            mine = label(target) if target else label(obj.name)
            refuse(stmt, f"{what} changes {mine} while the for loop at "
                   f"line {line} iterates over it", "iterate over a copy "
                   "(for e in list(ys) / ys.copy()), or loop over indices with while")


def _drop_unused_checks(body, unused_items):
    """Remove the run-time checks of ``ys[k] += v`` and ``M[i][j] = v`` (of the items
    ``unused_items``, :mod:`srcad.frontend.item_checks`, :mod:`srcad.frontend.nested_rows`)
    that no write relied on: the places were told apart here, or the item is not shared.
    Only the checks this function's lowering emitted: one read from srcad's own code (a
    derivative differentiated again) is the first derivative's, and stays."""
    def unused(stmt):
        return isinstance(stmt, ir.Assign) and stmt.target is None and isinstance(
            stmt.value, ir.Prim) and getattr(stmt.value.fn, "srcad_item_check", False) and (
            isinstance(stmt.value.args[1], ir.Var) and stmt.value.args[1].name in unused_items)

    body[:] = [s for s in body if not unused(s)]
    for stmt in body:
        for block in ir.blocks_of(stmt):
            _drop_unused_checks(block, unused_items)


def _shape_hint(stmt, mine, other, source):
    """What to write instead of ``y.shape = s`` when ``other`` (another name, a list, the
    caller's array) holds the array too: a reshape bound to the name."""
    line = getattr(stmt, "line", None)
    text = source.line_text(line) if source is not None and line else ""
    _, eq, shape = (text or "").partition("=")
    shape = shape.strip() if eq and ".shape" in text else "new_shape"
    where = other
    return (f"write {mine} = {mine}.reshape({shape}): {mine} is then an array of the new shape "
            f"and {where} keeps its own; if {where} must have the new shape too, reshape it "
            "where you read it")


def _recorded(fn, analysis, stmt, outside, callee, refuse):
    """``history.append(recorded(v))`` into a list the caller passed that the function only
    appends to (``fn.records``, :mod:`srcad.frontend.recorded_lists`): a side effect done
    once, allowed in the function differentiated unless the list is ``wrt``."""
    records = getattr(fn, "records", ())
    if callee or not records or not (isinstance(stmt.value.fn, ir.Method)
                                     and stmt.value.fn.name == "append"):
        return False
    if not all(t[0] == "arg" and t[1] in records for t in outside):
        return False
    wrt = sorted(t[1] for t in outside if t[1] in analysis.wrt)
    if wrt:
        refuse(stmt, f".append() records into the argument {wrt[0]}, which is differentiated "
               "(wrt): its gradient would have another length than the list",
               "differentiate with respect to the other arguments, or record into a list "
               "that is not wrt")
    return True


def _write_of(stmt, aliases):
    """(the value a statement writes into, the name of the result, a description)."""
    if isinstance(stmt, ir.SetItem):
        return stmt.obj, stmt.target, "writing into an array or list"
    if not isinstance(stmt, ir.Assign):
        return None, None, None
    value = stmt.value
    old = ir.Var(aliases.augmented.get(stmt.target, ""))
    if stmt.target in aliases.augmented and (aliases.an.kind(old) in (SEQ, ANY)
                                             or aliases.is_array(old)):
        what = getattr(getattr(value, "fn", None), "srcad_in_place", None) or (  # ys.sort()
            "np.add.at" if isinstance(value, ir.Prim) and getattr(
                value.fn, "__name__", None) == "add_at" else "setting .shape" if isinstance(
                value, ir.Prim) and value.fn is np.reshape else "an augmented assignment "
            "(+=, *=, ...)")
        return ir.Var(aliases.augmented[stmt.target]), stmt.target, what
    if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
        value.fn.name in MUTATORS and value.args
    ) and not log_append(value, aliases.defs):  # self.log.append("x"): changes no value read
        return value.args[0], None, f".{value.fn.name}()"
    return None, None, None


def _item_hint(stmt, item, key, aliases):
    """What to write instead of ``ys[k] += v`` changing the caller's array at ``ys[k]``:
    ``ys[k] = ys[k] + v`` (a new array), in a copy of the container when ``ys`` is the
    argument itself (a dict's copy where the key is a string)."""
    op = _SYMBOLS.get(getattr(stmt.value, "fn", None), "+")
    read = aliases.defs.get(item[0])
    index = read.value.args[1] if isinstance(read, ir.Assign) and isinstance(
        read.value, ir.Prim) and len(read.value.args) == 2 else None
    kind = "dict" if isinstance(index, ir.Const) and isinstance(index.value, str) else "list"
    mine = item[2].split("[")[0]
    return f"write {item[2]} = {item[2]} {op} ... (a new array; {op}= changes the caller's " \
        f"array, which a copy of the {kind} still holds)" + (
            f", with {mine} a {kind} of your own ({key} = {kind}({key}) first)"
            if mine == key else "")


#: the operator of an augmented assignment, for its message
_SYMBOLS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
            operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
            operator.matmul: "@", operator.and_: "&", operator.or_: "|", operator.xor: "^"}


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
    shown = f".{name}()"
    if name == "pop" and len(stmt.value.args) > 1:  # ys.pop(i): srcad's sweeps take pop()
        listlike = False
        hint = "read the item and build the list without it: v = ys[i]; ys = ys[:i] + " \
            "ys[i + 1:]"
        shown = ".pop(i)"
    if not listlike:
        carries = any(isinstance(a, ir.Var) and a.name in analysis.varied
                      for a in [obj, *stmt.value.args[1:]])
        if carries:
            refuse(stmt, f"{shown} changes a value that carries a gradient in place", hint)
    if not isinstance(obj, ir.Var):
        return
    memory = aliases.mem(obj, aliases.own)
    loop, earlier = context
    maybe_array = kind in (ARRAY, ANY) and not listlike
    if loop and maybe_array:
        refuse(stmt, f"{shown} changes an array (or a value srcad cannot tell is not one) "
               "in place inside a loop: the backward sweep would read the changed array", hint)
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
            if not maybe_array and _element_use(other, v):
                continue
            if listlike and _kept_for_reverse(other, v, analysis, name):
                continue
            refuse(stmt, f"{shown} changes {label(obj.name)} in place after line "
                   f"{getattr(other, 'line', None) or '?'} used it: the backward sweep would "
                   "read the changed value", hint)


def _element_use(stmt, var):
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
    # list(ys), ys.copy(): the adjoint adds the copy's gradient into ys's, item by item
    if value.fn is list and len(args) == 1 and not value.kwargs or value.fn == ir.Method(
            "copy") and len(args) == 1:
        return True
    if value.fn in (operator.getitem, len) or registry.is_nondiff(value.fn) or isinstance(
            value.fn, ir.Method) and value.fn.name in ("append", "pop"):
        return True
    return _rule_reads_no_value(value, var)


def _kept_for_reverse(stmt, var, analysis, method):
    """``sum(ys)``, ``np.array(ys)``, ``max(ys)``: a list read whole by a rule, before an
    ``append`` or ``pop`` changes it in place. The rule's adjoint reads the list (its length,
    its items); the reverse sweep runs after the change, so it must read what the list was
    at ``stmt``, and the forward sweep keeps that there: the length (``ys[:n]`` is the list
    again when only appends follow) or, when a ``pop`` may follow, a copy. Recorded on the
    analysis (``kept_lists``: id of the statement -> (the statement, {name: the methods
    that change it})) for :meth:`srcad.transform.reverse_rules.Rules.kept_read`; whether
    it was (a user function's call, a list built from it, are still refused: what they
    keep of the list is not the sweep's to choose)."""
    if not (isinstance(stmt, ir.Assign) and stmt.target is not None and isinstance(
            stmt.value, ir.Prim)):
        return False
    prim = stmt.value
    if isinstance(prim.fn, (ir.Method, ir.Attr, ir.Build, ir.BoolOp)) or prim.fn in (
            operator.getitem, operator.add, operator.mul) or var not in (
            *prim.args, *prim.kwargs.values()):
        return False
    rule, _ = registry.find(prim.fn, list(prim.args), dict(prim.kwargs))
    if rule is None:
        return False
    kept = analysis.__dict__.setdefault("kept_lists", {})
    kept.setdefault(id(stmt), (stmt, {}))[1].setdefault(var.name, set()).add(method)
    return True


def _rule_reads_no_value(prim, var):
    """Whether ``prim`` is a call of a rule whose templates never read the argument ``var``
    is passed as (``cleared(dys, i)``: its adjoint is ``cleared(g, i)``), nor its shape."""
    if isinstance(prim.fn, (ir.Method, ir.Attr, ir.Build, ir.BoolOp)):
        return False
    rule, bound = registry.find(prim.fn, prim.args, prim.kwargs)
    if rule is None or rule.broadcast or rule.uniform is not None:
        return False
    params = {p for p, atom in bound.items() if var in ir.atoms_in(atom)}
    read = {n.id for t in list(rule.templates.values()) + list(rule.jvp.values())
            for n in walk_nodes(t) if isinstance(n, ast.Name)}
    return bool(params) and not params & (read | set(rule.shape_only))


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


def _places(stmts, out, owner=None):
    """id of each statement -> (its block, its position there, the statement owning the
    block: an If or a Loop, None at the top)."""
    for i, stmt in enumerate(stmts):
        out[id(stmt)] = (stmts, i, owner)
        for block in ir.blocks_of(stmt):
            _places(block, out, stmt)


def _later(stmt, body, places):
    """The statements that can run after ``stmt``, when it is one of the function's
    top-level statements (not in a loop or a branch); else None."""
    block, at, _ = places[id(stmt)]
    return block[at + 1:] if block is body else None


def _new_here(stmt, obj, aliases, places):
    """Whether ``obj`` is a new object made earlier in the write's own block and read by
    nothing in between (``y_2 = y_1.copy(); y_2[i] = v``): then no other value can hold
    this very object, even where values hold others made by the same line (a stack of the
    versions of earlier iterations)."""
    return _made_since(stmt, obj, aliases, places) is not None


def _bound_as(name, aliases):
    """The name that first held the object ``name`` holds, through augmented updates
    (``y_2 = y_1 + v`` is ``y_1`` changed in place)."""
    while name in aliases.augmented:
        name = aliases.augmented[name]
    return name


def _made_since(stmt, obj, aliases, places):
    """If ``obj`` is a new object made before ``stmt`` on its way (in its block, or before
    the branches around it; never across a loop's start) and read by nothing in between but
    its own augmented updates: the names defined between the two. Else None."""
    if not isinstance(obj, ir.Var):
        return None
    own = aliases.mem(obj, aliases.own)
    if len(own) != 1 or next(iter(own))[0] != "new" or len(next(iter(own))) != 2:
        return None
    made = next(iter(own))[1]
    names = {obj.name}  # the versions of the object: y_2 = y_1 + v (augmented) is y_1
    since = set()
    here = stmt
    while True:
        block, at, owner = places[id(here)]
        for earlier in reversed(block[:at]):
            defined = set(ir.defined_by(earlier)) & names
            if defined == {made}:
                return since if isinstance(earlier, ir.Assign) else None
            if defined:
                target = next(iter(defined))
                if not isinstance(earlier, ir.Assign) or target not in aliases.augmented:
                    return None
                names.add(aliases.augmented[target])
                since |= set(ir.defined_by(earlier))
                continue
            if any(v.name in names for s in ir.walk([earlier]) for v in ir.reads_of(s)):
                return None
            since |= {n for s in ir.walk([earlier]) for n in ir.defined_by(s)}
        # not made in this block: look before the branch around it (run once per run of
        # the block holding it), never across a loop's start (made by an earlier iteration)
        if not isinstance(owner, ir.If) or names & {v.name for v in ir.atoms_in(owner.test)}:
            return None
        here = owner


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
