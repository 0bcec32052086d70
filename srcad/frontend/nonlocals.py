"""``nonlocal`` in a nested function the enclosing function calls (issue 16).

A nested ``def`` that declares ``nonlocal total`` and changes it is rewritten, before the
checks, into one that takes the names it changes as its first parameters and returns their
new values first, and each call of it into an assignment of them::

    def add(v):                       def add(total, v):
        nonlocal total                    total = total + v
        total = total + v                 return total
    add(x * x)                        total = add(total, x * x)

so the values flow through the calls as arguments and results, which srcad differentiates
like any call (a function that returns a value returns ``(total, value)`` and ``y = add(v)``
is ``total, y = add(total, v)``). A nested function calling such a function changes the same
names and is rewritten the same way. A call inside an expression is taken out first, onto a
line of its own (``y = 2.0 * add(v)``: ``total, t = add(total, v)``, ``y = 2.0 * t``), where
that keeps Python's order of evaluation: the statement reads the names the call changes
nowhere else, calls no other function of the enclosing function, and runs the call always
(not under ``if ... else``, ``and``/``or``, in a lambda, a comprehension, a ``while`` test).

Refused at their line, with what to write: such a function used other than by calling it
(passed on, returned, stored), defined twice, or called where it cannot be taken out. A
``nonlocal`` of a name the enclosing function does not bind is left to
:mod:`.validate` (refused).

Imports gast and :mod:`srcad.errors`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from .blocks import own_blocks

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_CONDITIONAL = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.GeneratorExp,
                gast.DictComp, gast.SetComp)


def _name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def _own_walk(node):
    """The nodes of ``node``'s own scope (not inside its nested functions or lambdas)."""
    todo = list(gast.iter_child_nodes(node))
    while todo:
        sub = todo.pop()
        yield sub
        if not isinstance(sub, _DEFS):
            todo.extend(gast.iter_child_nodes(sub))


def _bound(fdef):
    """The names ``fdef`` binds in its own scope."""
    args = fdef.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    for node in _own_walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            names.add(node.name)
    return names


class _Rewrite:
    def __init__(self, src):
        self.src, self.fdef = src, src.node
        self.count = 0

    def error(self, node, message, hint):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(message, filename=self.src.filename, lineno=line,
                                      construct=self.src.line_text(line), hint=hint)

    def run(self):
        fdef = self.fdef
        defs = [n for n in _own_walk(fdef) if isinstance(n, gast.FunctionDef)]
        bound = _bound(fdef)
        writes = {}  # name of a nested def -> the enclosing function's names it changes
        for d in defs:
            names = [n for s in _own_walk(d) if isinstance(s, gast.Nonlocal) for n in s.names]
            if any(isinstance(s, (gast.Yield, gast.YieldFrom)) for s in _own_walk(d)):
                continue  # a generator: left to the checks (refused)
            if names and all(n in bound for n in names):
                writes[d.name] = list(dict.fromkeys(names))
        if not writes:
            return
        changed = True
        while changed:  # a nested function calling one changes what it changes
            changed = False
            for d in defs:
                called = [c.func.id for c in _own_walk(d) if isinstance(c, gast.Call)
                          and isinstance(c.func, gast.Name) and c.func.id in writes
                          and c.func.id not in _bound(d)]
                names = list(writes.get(d.name, []))
                for c in called:
                    names += [n for n in writes[c] if n not in names]
                if names != writes.get(d.name, []):
                    writes[d.name] = names
                    changed = True
        self.writes = writes
        by_name = {}
        for d in defs:
            if d.name in writes:
                by_name.setdefault(d.name, []).append(d)
        stores = [n for n in _own_walk(fdef) if isinstance(n, gast.Name) and not isinstance(
            n.ctx, gast.Load) and n.id in writes]
        for name, found in by_name.items():
            if len(found) > 1 or any(s.id == name for s in stores):
                raise self.error(found[-1], f"the nested function {name!r}, which changes "
                                 f"{', '.join(writes[name])} of {fdef.name} (nonlocal), defined "
                                 "or bound more than once", "give each function a name of "
                                 "its own")
            declared = {n for s in _own_walk(found[0]) if isinstance(s, gast.Nonlocal)
                        for n in s.names}
            mixed = (_bound(found[0]) & set(writes[name])) - declared
            if mixed:
                raise self.error(found[0], f"the nested function {name!r} binds "
                                 f"{', '.join(sorted(mixed))} of its own and calls a function "
                                 f"that changes {fdef.name}'s {', '.join(sorted(mixed))} "
                                 "(nonlocal)", "give the local another name")
        for d in [fdef] + [found[0] for found in by_name.values()]:
            self.calls_only(d)
        for found in by_name.values():
            found[0].valued = any(isinstance(n, gast.Return) and n.value is not None
                                  for n in _own_walk(found[0]))
        for d in [fdef] + [found[0] for found in by_name.values()]:
            for block in own_blocks(d):
                out = []
                for stmt in block:
                    out.extend(self.statement(stmt))
                block[:] = out
        for found in by_name.values():  # after the calls in it: return add(v) taken out
            self.function(found[0])

    def calls_only(self, scope):
        """Refuse a use of such a function other than calling it, in ``scope``'s own body
        and in the lambdas, comprehensions and other nested functions inside it."""
        calls = {id(n.func) for n in walk_nodes(scope) if isinstance(n, gast.Call)}
        for node in walk_nodes(scope):
            if isinstance(node, gast.Name) and node.id in self.writes and isinstance(
                    node.ctx, gast.Load) and id(node) not in calls:
                raise self.error(
                    node, f"the nested function {node.id!r}, which changes "
                    f"{', '.join(self.writes[node.id])} of {self.fdef.name} (nonlocal), used "
                    "other than by calling it (passed on, returned or stored: srcad passes the "
                    "values it changes at each call)", f"call {node.id}(...) where it is used, "
                    f"or pass the values in and return the new ones: def {node.id}(v, "
                    f"{', '.join(self.writes[node.id])}): ... return "
                    f"{', '.join(self.writes[node.id])}")

    def function(self, d):
        """Take the names first, return their values first; no ``nonlocal`` left."""
        names, valued = self.writes[d.name], d.valued
        params = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                  for n in names]
        if d.args.posonlyargs:
            d.args.posonlyargs[:0] = params
        else:
            d.args.args[:0] = params
        for block in own_blocks(d):
            out = []
            for stmt in block:
                if isinstance(stmt, gast.Nonlocal):
                    continue
                if isinstance(stmt, gast.Return):
                    stmt.value = self.result(names, valued, stmt.value)
                out.append(stmt)
            block[:] = out or [gast.copy_location(gast.Pass(), d)]
        if not isinstance(d.body[-1], gast.Return):
            d.body.append(_located(gast.Return(value=self.result(names, valued, None)),
                                   d.body[-1]))

    def result(self, names, valued, value):
        items = [_name(n) for n in names]
        if valued:
            items.append(value if value is not None else gast.Constant(value=None, kind=None))
        if len(items) == 1:
            return items[0]
        return gast.Tuple(elts=items, ctx=gast.Load())

    # ---------------------------------------------------------------- call sites

    def target(self, fn, result=None):
        names = [_name(n, True) for n in self.writes[fn]]
        if getattr(self.definition(fn), "valued", False):
            names.append(result if result is not None else _name(self.temp(fn), True))
        return names[0] if len(names) == 1 else gast.Tuple(elts=names, ctx=gast.Store())

    def definition(self, fn):
        for n in _own_walk(self.fdef):
            if isinstance(n, gast.FunctionDef) and n.name == fn:
                return n
        return None

    def temp(self, fn):
        """A fresh name for what a call of ``fn`` returns beside the names (``add_result``)."""
        if not hasattr(self, "taken"):
            self.taken = {n.id for n in walk_nodes(self.fdef) if isinstance(n, gast.Name)}
        name, self.count = f"{fn}_result", self.count + 1
        while name in self.taken:
            name = f"{fn}_result_{self.count}"
            self.count += 1
        self.taken.add(name)
        return name

    def passing(self, call):
        call.args[:0] = [_name(n) for n in self.writes[call.func.id]]
        return call

    def is_writer_call(self, node):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id in self.writes

    def statement(self, stmt):
        """``stmt`` with every call of such a function as an assignment of its names."""
        parts = []
        if isinstance(stmt, (gast.Expr, gast.Assign, gast.AugAssign, gast.Return,
                             gast.AnnAssign)):
            parts = [(stmt, "value")]
        elif isinstance(stmt, gast.If):
            parts = [(stmt, "test")]
        elif isinstance(stmt, gast.For):
            parts = [(stmt, "iter")]
        own = [n for n in _shallow(stmt) if self.is_writer_call(n)]
        if not own:
            return [stmt]
        value = getattr(stmt, parts[0][1], None) if parts else None
        if value is None:
            raise self.refusal(own[0], "in a statement of this kind")
        # the whole value: y = add(v), add(v), return add(v)
        if isinstance(stmt, (gast.Expr, gast.Assign)) and len(own) == 1 and own[0] is value:
            fn = value.func.id
            valued = getattr(self.definition(fn), "valued", False)
            if isinstance(stmt, gast.Expr):
                return [_located(gast.Assign(targets=[self.target(fn)], value=self.passing(
                    value), type_comment=None), stmt)]
            if valued and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
                return [_located(gast.Assign(targets=[self.target(fn, stmt.targets[0])],
                                             value=self.passing(value), type_comment=None),
                                 stmt)]
        return self.hoisted(stmt, parts[0][1], own)

    def refusal(self, call, where):
        fn = call.func.id
        return self.error(
            call, f"a call of {fn!r}, which changes {', '.join(self.writes[fn])} of "
            f"{self.fdef.name} (nonlocal), {where}: srcad cannot keep Python's order of "
            f"reads and writes of {', '.join(self.writes[fn])} there",
            f"call {fn}(...) on a line of its own first (t = {fn}(...)) and use t; in a "
            f"comprehension or a lambda, write the loop out")

    def hoisted(self, stmt, field, own):
        value = getattr(stmt, field)
        found = []
        _in_order(value, False, found)
        calls = [n for n, conditional in found if self.is_writer_call(n)]
        for n, conditional in found:
            if self.is_writer_call(n) and conditional:
                raise self.refusal(n, "where it may not run (under if/else, and/or, in a "
                                   "lambda or a comprehension)")
        missing = [n for n in own if all(n is not c for c in calls)]
        if missing:
            raise self.refusal(missing[0], "in a part of the statement evaluated after it "
                               "(an assignment's target, a while test)")
        changed = {n for c in calls for n in self.writes[c.func.id]}
        inside = {id(s) for c in calls for s in walk_nodes(c)}
        reads = [n for n in walk_nodes(value) if id(n) not in inside]
        if isinstance(stmt, gast.AugAssign):
            reads += list(walk_nodes(stmt.target))
        mine = _bound(self.fdef) | set(self.writes)
        for n in reads:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in changed:
                raise self.refusal(calls[0], f"in a statement that also reads {n.id!r}")
            if isinstance(n, gast.Call) and not self.is_writer_call(n) and _root(
                    n.func) in mine:
                raise self.refusal(calls[0], "in a statement that also calls a function "
                                   "the function holds")
        before = []
        for call in calls:  # in Python's order: an inner call first
            fn = call.func.id
            valued = getattr(self.definition(fn), "valued", False)
            result = self.temp(fn) if valued else None
            target = self.target(fn, _name(result, True) if valued else None)
            replacement = _name(result) if valued else gast.Constant(value=None, kind=None)
            _replace(value, stmt, field, call, gast.copy_location(replacement, call))
            before.append(_located(gast.Assign(targets=[target], value=self.passing(call),
                                               type_comment=None), stmt))
        return before + [stmt]


def _root(node):
    while isinstance(node, (gast.Attribute, gast.Subscript, gast.Call)):
        node = node.func if isinstance(node, gast.Call) else node.value
    return node.id if isinstance(node, gast.Name) else None


def _shallow(stmt):
    """The nodes of ``stmt`` not in its nested blocks (those are statements of their own)."""
    todo = [c for c in gast.iter_child_nodes(stmt) if not isinstance(c, gast.stmt)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(c for c in gast.iter_child_nodes(node) if not isinstance(c, gast.stmt))


def _in_order(node, conditional, out):
    """``(node, conditional)`` for the calls under ``node``, in Python's order of
    evaluation (arguments before the call; a dict's keys and values in turn)."""
    inner = conditional or isinstance(node, _CONDITIONAL)
    if isinstance(node, gast.Dict):
        children = [c for kv in zip(node.keys, node.values) for c in kv if c is not None]
    else:
        children = list(gast.iter_child_nodes(node))
    for child in children:
        _in_order(child, inner, out)
    if isinstance(node, gast.Call):
        out.append((node, conditional))


def _replace(value, stmt, field, old, new):
    if value is old:
        setattr(stmt, field, new)
        return
    for parent in walk_nodes(value):
        for name, child in gast.iter_fields(parent):
            if child is old:
                setattr(parent, name, new)
                return
            if isinstance(child, list):
                for i, item in enumerate(child):
                    if item is old:
                        child[i] = new
                        return


def _located(stmt, like):
    for sub in walk_nodes(stmt):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, like)
    return stmt


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    if any(isinstance(n, gast.Nonlocal) for n in walk_nodes(src.node)):
        _Rewrite(src).run()
