"""Lowering loops: ``while``, ``for`` and comprehensions, with their header phis.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares). A
``for`` loop runs over ``range(...)``: a loop over a sequence (``enumerate``, ``zip``,
``reversed`` of sequences too) counts an index and reads the elements
(:attr:`Lowerer.iterated` remembers which). Every name the body may change gets a header phi;
a phi whose value comes back unchanged is dropped and its reads replaced by the entry value.
A comprehension is a loop appending to a fresh list.

Imports: gast, :mod:`srcad.core` and the sibling lowering modules :mod:`.lower_exprs`
and :mod:`.lower_stmts` (for their atom helpers).
"""

from __future__ import annotations

import copy
import operator

import gast
import numpy as np

from ..core import ir
from ..core.ir import Const, Var
from ..core.kinds import duck_array
from ..core.walk import walk_nodes
from ..errors import SrcadError
from ..rules.registry import registry as _registry
from ..runtime import containers
from . import generators, rebinding, writes
from .lower_exprs import root_name
from .lower_stmts import same

#: what a loop indexes by position as Python iterates it (the lowering reads ``xs[i]``)
POSITIONAL = (list, tuple, np.ndarray, str, range)


def check_positional(seq):
    """Raise unless a ``for`` loop over ``seq`` reads what indexing it by position reads:
    srcad lowers ``for v in seq`` to ``for i in range(len(seq)): v = seq[i]``, which for a
    dict (or a set, a generator, an object of one's own) would read something else. The
    analysis drops the check where it knows the kind (an array, a list argument) and turns
    it into the dict's keys for a dict argument (:mod:`srcad.analysis.orders`)."""
    if isinstance(seq, POSITIONAL) or duck_array(seq) or (
            isinstance(seq, (dict, set, frozenset)) and not seq):  # empty: nothing is read
        return
    what = "dict" if isinstance(seq, dict) else type(seq).__name__
    raise SrcadError(f"a for loop over a {what}: srcad made this loop's code for a list, "
                     "tuple or array, read by position",
                     hint="loop over list(d) or d.items() for a dict, or over list(xs)")


_registry.nondiff.add(check_positional)  # a check: no derivative


#: builtins whose iterators read their arguments as the loop runs
_LAZY = (reversed, map, filter, iter, zip, enumerate)


class Loops:
    """``stmt_While``, ``stmt_For``, comprehensions, and the phis of a loop header."""

    def stmt_While(self, node):
        if any(isinstance(n, gast.NamedExpr) for n in walk_nodes(node.test)):  # (desugar moves
            raise self.error(node, "an assignment expression (:=) in the test of a while loop "
                             "with an else", hint="assign before the loop and at the end of "
                             "its body, or move the else part after the loop with a flag")
        self.loop("while", node.lineno, _assigned_names(node.body),
                  body=lambda: self.loop_body(node.body), header=lambda: self.expr(node.test),
                  rebound=_assigned_names(node.body, subscripts=False),
                  deleted=_deleted_names(node.body))
        for stmt in node.orelse:  # no break in the body (desugar took those): else always runs
            self.stmt(stmt)

    def stmt_For(self, node):
        generators.refuse_changing_source(self, node)  # a generator reading what it changes
        self.leaves_early = bool(node.body) and _is_exit(node.body[-1])  # break, return
        self.for_loop(node.target, node.iter, node, lambda: self.loop_body(node.body))
        for stmt in node.orelse:
            self.stmt(stmt)

    def loop_body(self, stmts):
        """Lower a desugared loop body; return the exit test of its final ``if ...: break``."""
        if stmts and _is_exit(stmts[-1]):
            for s in stmts[:-1]:
                self.stmt(s)
            return self.expr(stmts[-1].test)
        for s in stmts:
            self.stmt(s)
        return None

    def for_loop(self, target, iter_node, node, body_fn, extra=()):
        """Lower ``for target in iter`` to ``for i in range(...)`` plus element reads
        (``extra``: names, beside those the body assigns, the body may change)."""
        kind, parts, pattern, start = self.iteration(iter_node)
        if kind == "range":
            rng = ir.Prim(range, [self.expr(a) for a in parts], spelling="range")
            elements = None
        else:
            elements = parts
            n = self.assign(ir.Prim(len, [parts[0]], spelling="len"), "n", node)
            for seq in parts[1:]:
                m = self.assign(ir.Prim(len, [seq], spelling="len"), "n", node)
                n = self.assign(ir.Prim(min, [n, m], spelling="min"), "n", node)
            if kind == "reversed":
                top = self.assign(ir.Prim(operator.sub, [n, Const(1)]), "last", node)
                rng = ir.Prim(range, [top, Const(-1), Const(-1)], spelling="range")
            else:
                rng = ir.Prim(range, [n], spelling="range")
        index_name = None
        if kind == "range" and isinstance(target, gast.Name):
            index_name = target.id
        elif pattern is not None and pattern[0] == "tuple" and pattern[1][0][0] == "index" \
                and start is None and isinstance(target, (gast.Tuple, gast.List)) and len(
                    target.elts) == len(pattern[1]) and isinstance(target.elts[0], gast.Name):
            index_name = target.elts[0].id  # for i, v in enumerate(xs): the counter is i
        counter = self.namer.version(index_name) if index_name else self.namer.temp("i")
        if elements is not None:
            lazy = _lazy_sources(self, iter_node) if kind == "seq" else []
            self.iterated[counter] = (list(elements) + lazy, node.lineno)

        def body():
            if index_name:
                self.env[index_name] = Var(counter)
            if elements is not None:
                reads = [
                    self.assign(ir.Prim(operator.getitem, [seq, Var(counter)]), None, node)
                    for seq in elements
                ]
                index = Var(counter) if start is None else self.assign(
                    ir.Prim(operator.add, [Var(counter), start]), "index", node)
                self.bind_pattern(target, pattern, reads, index, node,
                                  skip_index=index_name is not None)
            elif not index_name:
                self.bind_atom(target, Var(counter), node)
            return body_fn()

        body_names = _assigned_names(node.body) if isinstance(node, gast.For) else set()
        assigned = body_names | _store_names(target) | set(extra)
        rebound = _store_names(target) | (_assigned_names(node.body, subscripts=False)
                                          if isinstance(node, gast.For) else set())
        self.loop("for", node.lineno, assigned, body=body, target=counter, iterable=rng,
                  rebound=rebound, deleted=_deleted_names(getattr(node, "body", ())))

    def iteration(self, iter_node):
        """Classify an iterable: ``("range", args, None, None)``, or ``(kind, sequences,
        pattern, start)`` with ``kind`` "seq" or "reversed", ``sequences`` the atoms a step
        indexes by position, ``pattern`` what a step yields (:meth:`bind_pattern`) and
        ``start`` the atom an ``enumerate`` counts from (``None`` for 0). ``zip`` and
        ``enumerate`` nest (``enumerate(zip(xs, ys), 1)``): they walk their sequences in step."""
        iter_node = self.undefer(iter_node)  # it = zip(xs, ys); for a, b in it
        early = self.__dict__.pop("leaves_early", False)  # the for statement's (stmt_For)
        fn, args = self.builtin_call(iter_node)
        if fn is range and not iter_node.keywords:
            return "range", args, None, None
        if fn is reversed and len(args) == 1 and not iter_node.keywords:
            return "reversed", [self.sequence(args[0])], ("item", 0), None
        elements, starts = [], []
        self.zip_leaves_early = early  # read by a zip(..., strict=True) of this loop only
        try:
            pattern = self.step_pattern(iter_node, elements, starts, (fn, args))
        finally:
            self.zip_leaves_early = False
        return "seq", elements, pattern, (starts[0] if starts else None)

    def sequence(self, node):
        node = self.consumed(node)  # map(f, xs), filter(p, xs): a list comprehension
        atom = self.expr(node)
        node = getattr(node, "origin", node)  # an argument of a kept iterator: what it was
        if isinstance(atom, Var) and atom.name in self.dicts_built:  # for k in d: its keys
            keys = containers.dict_keys
            return self.assign(ir.Prim(keys, [atom], spelling=writes.callee_name(
                self, keys, "keys_of")), "keys", node)
        if isinstance(atom, Const) and isinstance(atom.value, dict):  # a global dict: keys
            keys = containers.dict_keys
            return self.assign(ir.Prim(keys, [atom], spelling=writes.callee_name(
                self, keys, "keys_of")), "keys", node)
        if isinstance(atom, Const) and not isinstance(atom.value, POSITIONAL) and not \
                duck_array(atom.value):  # a set, a generator...: its items, in order
            return self.assign(ir.Prim(list, [atom], spelling="list"), "seq", node)
        if isinstance(atom, Var) and isinstance(node, (gast.Name, gast.Subscript,
                                                       gast.Attribute)) and not (
                self.known_positional(atom)):
            check = ir.Prim(check_positional, [atom], spelling=writes.callee_name(
                self, check_positional, "check_positional"))
            keys = self.namer.temp("keys")  # the dict's keys, if the analysis finds a dict
            writes.callee_name(self, containers.dict_keys, "keys_of")  # a spelling for them
            self.emit(ir.Assign(keys, check, node.lineno, effect=True))
            self.orders[keys] = atom.name
        if isinstance(node, (gast.Name, gast.List, gast.Tuple)) or isinstance(atom, Const):
            return atom
        if isinstance(node, gast.Call) and not (isinstance(atom, Var)
                                                 and atom.name in self.lists_made):
            return self.assign(ir.Prim(list, [atom], spelling="list"), "seq", node)
        return atom

    def known_positional(self, atom):
        """Whether the Var ``atom`` is a list or tuple lowering made (a display, a copy)."""
        return atom.name in self.tuples or atom.name in self.lists or \
            atom.name in self.lists_made or atom.name in self.positional

    def loop(self, kind, line, assigned, body, header=None, target=None, iterable=None,
             rebound=(), deleted=()):
        """Emit a Loop with a header phi for every name the body may change (``rebound``:
        those it may bind to another object, not only write into; ``deleted``: those a
        ``del name`` in it may leave unset for the next iteration and after the loop)."""
        # a name only written into (g[i] = v, g.sort()) that is not a local is a global or a
        # closure value: no phi, so the write meets it as such (and is refused there)
        assigned = sorted(n for n in assigned if n in self.env or n in rebound
                          or n.startswith("\0"))
        phis, flags = [], {}
        for name in assigned:
            phi = ir.Phi(self.namer.version(name), [self.env.get(name), None])
            phis.append(phi)
            rebinding.note_merge(self, phi.target, phi.sources)
            # unset before the loop, or (a name the body may delete) on a later iteration:
            # a flag phi says whether it is set (its latch once the body is lowered)
            flag = self.note_unbound(phi.target, name, phi.sources[:1] if name not in deleted
                                     else (phi.sources[0], None))
            if flag is not None:
                flag.sources.append(None)
                flags[phi.target] = flag
            self.env[name] = Var(phi.target)
            entry = phi.sources[0]
            if name not in rebound and isinstance(entry, Var) and entry.name in self.dicts_built:
                self.dicts_built.add(phi.target)  # only written into: still that dict
        saved, self.out = self.out, []
        test = header() if header is not None else None
        header_block, self.out = self.out, []
        exit_test = body()
        block, self.out = self.out, saved
        kept = []
        for phi, name in zip(phis, assigned):
            phi.sources[1] = self.env.get(name)
        replaced = {}
        for phi, name in zip(phis, assigned):
            latch = phi.sources[1]
            for old, new in replaced.items():
                latch = _subst(latch, old, new)
            phi.sources[1] = latch
            if latch is None and name in deleted:
                pass  # del name at the end of the body: unset on the next iteration
            elif latch is None or same(latch, Var(phi.target)):
                # The body leaves the name as it found it: no merge needed.
                entry = phi.sources[0]
                if entry is not None:
                    _replace_everywhere(block + header_block, phi.target, entry)
                    test = _subst(test, phi.target, entry)
                    exit_test = _subst(exit_test, phi.target, entry)
                    replaced[phi.target] = entry
                    for other in kept:
                        other.sources[1] = _subst(other.sources[1], phi.target, entry)
                self.env[name] = entry
                if entry is None:
                    self.env.pop(name, None)
                continue
            kept.append(phi)
            self.env[name] = Var(phi.target)
            if all(isinstance(a, Var) and a.name in self.dicts_built for a in phi.sources):
                self.dicts_built.add(phi.target)  # a dict built here, written in the loop
        kept += self._set_flags(flags, kept, block + header_block)
        self.emit(ir.Loop(kind, block, kept, target=target, iter=iterable, header=header_block,
                          test=test, exit=exit_test, line=line))

    def _set_flags(self, flags, kept, stmts):
        """The flag phis (``note_unbound``) of the loop's kept phis, their latches the flags
        of what the body leaves; a flag the body leaves as it found it is its entry flag."""
        out = []
        for phi in kept:
            flag = flags.pop(phi.target, None)
            if flag is None:
                continue
            flag.sources[1] = self.set_flag(phi.sources[1])
            if same(flag.sources[1], Var(flag.target)):
                flags[phi.target] = flag  # not changed by the body: replaced below
            else:
                out.append(flag)
        for flag in flags.values():  # of phis dropped (the body leaves the name alone)
            entry = flag.sources[0]
            _replace_everywhere(stmts, flag.target, entry)
            for other in out + kept:
                other.sources[1] = _subst(other.sources[1], flag.target, entry)
            for name, value in self.maybe_unbound.items():
                if same(value, Var(flag.target)):
                    self.maybe_unbound[name] = entry
        return out

    # ---------------------------------------------------------------- comprehensions

    def expr_ListComp(self, node, hint=None):
        return self.comprehension(node, hint)

    def expr_GeneratorExp(self, node, hint=None):
        return self.comprehension(node, hint)

    def comprehension(self, node, hint=None):
        """``[elt for x in xs if c]`` becomes a loop that appends to a fresh list; over a
        constant tuple of strings it becomes the display of its items (:func:`unrolled`)."""
        items = unrolled(self, node)
        if items is not None:
            return self.assign(ir.Prim(ir.BUILD_LIST, [self.expr(e) for e in items]),
                               self.namer.temp(hint or "items"), node)
        acc = self.assign(ir.Prim(ir.BUILD_LIST, []), self.namer.temp(hint or "items"), node)
        saved_env = dict(self.env)
        self._comp(node.generators, node.elt, acc, node)
        self.env = saved_env
        return acc

    def expr_DictComp(self, node, hint=None):
        """``{k: v for x in xs if c}``: a loop writing into a fresh dict (each write a new
        version of it, as ``d[k] = v`` is)."""
        key = f"\0dict{id(node)}"
        saved_env = dict(self.env)
        self.env[key] = self.assign(ir.Prim(ir.BUILD_DICT, []), hint or "d", node)
        self._comp(node.generators, node, key, node)
        result = self.env.pop(key)
        self.env = saved_env
        return result

    def _comp(self, generators, elt, acc, node):
        gen, rest = generators[0], generators[1:]
        if gen.is_async:
            raise self.error(node, "async comprehensions")

        def body():
            self._comp_conds(list(gen.ifs), rest, elt, acc, node)
            return None

        self.for_loop(gen.target, gen.iter, node, body,
                      extra=(acc,) if isinstance(acc, str) else ())

    def _comp_conds(self, conds, rest, elt, acc, node):
        if conds:
            test = self.expr(conds[0])

            def then():
                saved, self.out = self.out, []
                self._comp_conds(conds[1:], rest, elt, acc, node)
                block, self.out = self.out, saved
                return block

            self.branch(test, [], [], node, emit_body=then)
            return
        self._comp_tail(rest, elt, acc, node)

    def _comp_tail(self, rest, elt, acc, node):
        if rest:
            self._comp(rest, elt, acc, node)
            return
        if isinstance(acc, str):  # a dict comprehension: d[k] = v
            k, v = self.expr(elt.key), self.expr(elt.value)
            name = self.namer.version("d")
            self.emit(ir.SetItem(name, self.env[acc], k, v, node.lineno))
            self.env[acc] = Var(name)
            self.dicts_built.add(name)
            return
        value = self.expr(elt)
        self.emit(ir.Assign(None, ir.Prim(ir.Method("append"), [acc, value]), node.lineno,
                            effect=True))


def _is_exit(stmt):
    return (
        isinstance(stmt, gast.If)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], gast.Break)
        and not stmt.orelse
    )


def _store_names(target):
    return {n.id for n in walk_nodes(target) if isinstance(n, gast.Name)}


#: dict methods lowered as writes making a new version of the dict (lower_dicts.py)
_DICT_WRITES = ("setdefault", "update")


def _assigned_names(stmts, subscripts=True):
    """User names assigned anywhere in ``stmts`` (comprehension variables excluded); with
    ``subscripts``, also those written into (``d[k] = v``, ``ys.sort()``)."""
    names = set()
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names.add(node.id)  # del name: unset, a new state of the name
        if subscripts and isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            root = root_name(node.value)
            if root:
                names.add(root)
            inner = node.value  # M[i][j] = v: a new version of M (frontend.nested_rows)
            if isinstance(inner, gast.Subscript) and isinstance(inner.value, gast.Name):
                names.add(inner.value.id)
        if subscripts and isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) \
                and isinstance(node.value.func, gast.Attribute) and isinstance(
                    node.value.func.value, gast.Name) and node.value.func.attr in writes.COPIED:
            names.add(node.value.func.value.id)  # ys.sort(): a new version (writes.py)
        if subscripts and isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and isinstance(node.func.value, gast.Name) and node.func.attr in _DICT_WRITES:
            names.add(node.func.value.id)  # d.setdefault(k, v) anywhere: a new version of d
        if subscripts and isinstance(node, gast.Call):  # np.f(..., out=y), np.copyto(y, v),
            names.update(_written_by_call(node))  # np.add.at(y, i, v): y[...] = ... (writes)
        todo.extend(gast.iter_child_nodes(node))
    return names


def _written_by_call(call):
    """The names a NumPy call writes into as :mod:`.writes` lowers it (a new version of each,
    which a loop around it carries): ``out=y`` (or ``out=(y,)``), the first argument of
    ``copyto``, ``fill_diagonal`` and ``add.at``; by the text (a name not one is only carried
    needlessly)."""
    out = []
    for k in call.keywords:
        value = k.value.elts[0] if k.arg == "out" and isinstance(k.value, gast.Tuple) and len(
            k.value.elts) == 1 else k.value
        if k.arg == "out" and isinstance(value, gast.Name):
            out.append(value.id)
    func = call.func
    if isinstance(func, gast.Attribute) and call.args and isinstance(call.args[0], gast.Name) \
            and (func.attr in ("copyto", "fill_diagonal") or func.attr == "at" and isinstance(
                func.value, gast.Attribute) and func.value.attr == "add"):
        out.append(call.args[0].id)
    return out


def _deleted_names(stmts):
    """The names a ``del name`` anywhere in ``stmts`` deletes."""
    return {t.id for s in stmts for n in walk_nodes(s) if isinstance(n, gast.Delete)
            for t in n.targets if isinstance(t, gast.Name)}


def _subst(atom, name, new):
    if isinstance(atom, Var) and atom.name == name:
        return new
    return atom


def _replace_everywhere(stmts, name, atom):
    """Replace reads of ``name`` by ``atom`` in ``stmts`` (a phi found to be trivial)."""
    def sub(a):
        if isinstance(a, Var) and a.name == name:
            return atom
        if isinstance(a, ir.Slice):
            return ir.Slice(sub(a.lower), sub(a.upper), sub(a.step))
        if isinstance(a, ir.Index):
            return ir.Index(tuple(sub(i) for i in a.items))
        return a

    for stmt in ir.walk(stmts):
        if isinstance(stmt, ir.Assign):
            if isinstance(stmt.value, ir.Prim):
                stmt.value.args = [sub(a) for a in stmt.value.args]
                stmt.value.kwargs = {k: sub(v) for k, v in stmt.value.kwargs.items()}
            else:
                stmt.value = sub(stmt.value)
        elif isinstance(stmt, ir.SetItem):
            stmt.obj, stmt.index, stmt.value = sub(stmt.obj), sub(stmt.index), sub(stmt.value)
        elif isinstance(stmt, ir.If):
            stmt.test = sub(stmt.test)
            for phi in stmt.phis:
                phi.sources = [sub(s) for s in phi.sources]
        elif isinstance(stmt, ir.Loop):
            stmt.test, stmt.exit = sub(stmt.test), sub(stmt.exit)
            if isinstance(stmt.iter, ir.Prim):
                stmt.iter.args = [sub(a) for a in stmt.iter.args]
            for phi in stmt.phis:
                phi.sources = [sub(s) for s in phi.sources]
        elif isinstance(stmt, (ir.Return, ir.Raise)):
            stmt.value = sub(stmt.value)


#: at most this many items: a comprehension over a longer tuple stays a loop
UNROLLED = 32

#: what the item expression of an unrolled comprehension may not hold: a scope of its own,
#: which would read the target late (``[lambda z: z * n for n in NAMES]`` calls each with
#: the last ``n``), or a binding of the enclosing scope's name
_SCOPES = (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.SetComp, gast.DictComp,
           gast.GeneratorExp, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def unrolled(lw, node):
    """The item expressions of ``[elt for n in NAMES]`` written out, ``elt`` with each string of
    ``NAMES`` in place of ``n``, when ``NAMES`` is a tuple of strings the lowering knows (a
    global, closure or default tuple, whose items the guard on the name holds, or a tuple
    display of this function), one ``for`` without ``if``, a plain name its target and
    ``elt`` no scope of its own: ``[ACTS[n] for n in NAMES]`` is then ``[ACTS["tanh"],
    ACTS["sin"]]``, a display whose functions the code is made for (a table of functions
    selected by name). Else ``None`` (the comprehension is a loop)."""
    if len(node.generators) != 1:
        return None
    gen = node.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, gast.Name) or not isinstance(
            gen.iter, gast.Name) or any(isinstance(n, _SCOPES) for n in walk_nodes(node.elt)):
        return None
    name = gen.iter.id
    if name in lw.env:
        atom = lw.env[name]
        items = lw.tuples.get(atom.name) if isinstance(atom, Var) else None
        values = [a.value for a in items] if items is not None and all(
            isinstance(a, Const) for a in items) else None
    elif name in lw.dicts or name in lw.local_functions:
        return None
    else:
        try:
            values = lw.source.lookup(name)
        except KeyError:
            return None
        values = values if type(values) is tuple else None
    if values is None or not 0 < len(values) <= UNROLLED or not all(
            type(v) is str for v in values):
        return None
    return [_with_constant(node.elt, gen.target.id, v) for v in values]


def _with_constant(elt, target, value):
    """A copy of ``elt`` reading ``value`` where it reads ``target``."""
    if isinstance(elt, gast.Name) and elt.id == target:
        return gast.copy_location(gast.Constant(value, None), elt)
    out = copy.deepcopy(elt)
    for parent in walk_nodes(out):
        for field, child in gast.iter_fields(parent):
            if isinstance(child, gast.Name) and child.id == target:
                setattr(parent, field, gast.copy_location(gast.Constant(value, None), child))
            elif isinstance(child, list):
                child[:] = [gast.copy_location(gast.Constant(value, None), c) if isinstance(
                    c, gast.Name) and c.id == target else c for c in child]
    return out


def _lazy_sources(lw, node):
    """The names a lazy iterator in ``node`` reads as the loop runs (``xs`` of
    ``enumerate(reversed(xs))``, ``zip(range(3), map(f, xs))``): lowering takes such an
    iterator's items at once (``list(reversed(xs))``), which is Python's only while the
    body writes nothing into ``xs`` (or ``a`` of ``reversed(a[1:])``, a view); the alias
    analysis refuses such a write as it does one into a sequence walked by position
    (sound24: it read the items before the writes, a wrong gradient)."""
    node = lw.undefer(node)
    fn, args = lw.builtin_call(node)
    if fn not in _LAZY or args is None:
        return []
    found = []
    for arg in args:
        arg = lw.undefer(arg)
        if fn in (enumerate, zip):  # (their sequences are walked by position already)
            found += _lazy_sources(lw, arg)
            continue
        while isinstance(arg, (gast.Subscript, gast.Attribute)):
            arg = arg.value  # reversed(a[1:]): a view of a, read as the loop runs
        if isinstance(arg, gast.Name) and arg.id in lw.env:
            found.append(lw.env[arg.id])
        elif isinstance(arg, gast.Name):
            found.append(lw.expr(arg))
        found += _lazy_sources(lw, arg)
    return found
