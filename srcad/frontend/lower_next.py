"""``it = iter(xs)`` read by ``next(it)``: the sequence and a position (issue 16).

``it = iter(xs)`` (a list, a tuple, an array, a comprehension; assigned once) whose every other
use is a statement ``v = next(it)``, ``v = next(it, d)`` or ``next(it)`` is rewritten in place:

* ``it = iter(xs)`` -> ``it = tuple(xs)``, ``it_srcad_pos = 0``;
* ``v = next(it)`` -> ``if it_srcad_pos >= len(it): raise StopIteration``, ``v =
  it[it_srcad_pos]``, ``it_srcad_pos += 1`` (Python's ``StopIteration`` past the end);
* ``v = next(it, d)`` -> ``v = d`` past the end, else the same.

so each ``next`` is an item read by position, whose gradient goes to that item (in loops and
branches too: the position is a plain counter); a ``for`` over it, ``list(it)``, ``sum(f(v)
for v in it)`` read what is left (:class:`_Form`). The same holds for ``g = (f(v) for v in
xs)`` (its names checked not to change before it is read: Python reads them lazily), and for a
parameter the caller gave an iterator (:mod:`.iterators_passed`: its position starts at 0).
``it`` passed to a function of yours as its last read (``rest(it)``) passes what is left,
``srcad_iterator(it[pos:])``, read as an iterator there. Another use of ``it`` leaves the
function as it is (``iter`` then has no rule: refused at its line); for a parameter given an
iterator, or a generator expression kept in a name, it is refused here (read as a tuple, a
second loop would see every item again). Run on the parsed function before desugaring, like
:mod:`.lower_records`.

Imports gast, :mod:`srcad.core`, :mod:`.folds` and :mod:`.iterators_passed`.
"""

from __future__ import annotations

import builtins
import copy

import gast

from ..core import functions
from ..core.walk import walk_nodes
from . import folds
from . import iterators_passed as passed
from .blocks import own_blocks as _blocks


def _name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def _builtin(src, node, name):
    """Whether ``node`` is the name ``name`` meaning the builtin."""
    return isinstance(node, gast.Name) and node.id == name and \
        src.closure.get(name, src.globals.get(name, getattr(builtins, name))) is \
        getattr(builtins, name)


def _next_of(src, node, names):
    """``(name, default or None)`` when ``node`` is ``next(name)`` or ``next(name, d)``."""
    if isinstance(node, gast.Call) and _builtin(src, node.func, "next") and \
            not node.keywords and 1 <= len(node.args) <= 2 and \
            isinstance(node.args[0], gast.Name) and node.args[0].id in names:
        return node.args[0].id, (node.args[1] if len(node.args) == 2 else None)
    return None


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    folds.itertools_calls(src)  # itertools.accumulate, itertools.starmap: Python srcad reads
    passed.mark_arguments(src)  # f(iter(xs)), f(v * x for v in xs): srcad_iterator(...)
    passed.check_reads(src)  # a parameter given [np.sin, g]: only read
    params = [p for p, v in functions.fixed_of(src.func).items() if v is passed.ITERATED]
    if not params and not any(_builtin(src, n, "iter") or isinstance(n, gast.GeneratorExp)
                              for n in walk_nodes(fdef)):
        return
    made, stores = {}, {}
    for block in _blocks(fdef):
        for stmt in block:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], gast.Name) and (isinstance(
                        stmt.value, gast.GeneratorExp) or isinstance(stmt.value, gast.Call) and
                    _builtin(src, stmt.value.func, "iter") and len(stmt.value.args) == 1 and
                    not stmt.value.keywords and not isinstance(stmt.value.args[0],
                                                               gast.Starred)):
                made[stmt.targets[0].id] = stmt
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            for n in node.names:
                stores[n] = 2
    names = {n for n in made if stores.get(n) == 1 and not _changed_later(src, fdef, made[n])
             and (not isinstance(made[n].value, gast.GeneratorExp)
                  or passed.lazy_reads_fixed(fdef, made[n].value, stores))}
    names |= {p for p in params if stores.get(p) == 1}
    taken = _consumers(src, fdef, names)  # for v in it, zip(it, it), list(it), ...
    accepted = {id(n) for _, form, _ in taken.values() for n in form.reads}
    passes = _passed_on(src, fdef, names, made)  # consume(it), the last read of it
    accepted |= set(passes)
    for node in walk_nodes(fdef):  # read by a nested function: its calls could advance it
        if isinstance(node, (gast.FunctionDef, gast.Lambda) + _CONDITIONAL[3:]) and \
                node is not fdef:
            names -= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name) and
                      id(n) not in accepted}
    if not names:
        return _refuse_left(src, fdef, made, params, names, stores)
    for block in _blocks(fdef):  # next(it) inside an expression: a statement of its own first
        out = []
        for stmt in block:
            out.extend(_hoisted(src, stmt, names))
        block[:] = out
    nexts = {}  # id(call) of an accepted next(...)
    for block in _blocks(fdef):
        for stmt in block:
            value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
            if _next_of(src, value, names) is not None:
                nexts[id(value)] = value
    for node in walk_nodes(fdef):  # every other read of such a name: not rewritten
        if isinstance(node, gast.Call) and id(node) in nexts:
            continue
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load) and \
                    child.id in names and id(child) not in accepted and not (
                        isinstance(node, gast.Call) and id(node) in nexts):
                names.discard(child.id)
    _refuse_left(src, fdef, made, params, names, stores)
    if not names:
        return
    for stmt, form, _ in taken.values():
        if form.name in names:
            form.rewrite(stmt)
    for load, (holder, field, index) in passes.items():
        name = holder_value(holder, field, index).id
        if name in names:  # what is left of it, to a callee reading it as an iterator
            load = holder_value(holder, field, index)
            made_at = _located([gast.Call(func=_name(passed.MARK), args=[_Form(
                name, None, [], 1).sliced()], keywords=[])], load)[0]
            if index is None:
                setattr(holder, field, made_at)
            else:
                getattr(holder, field)[index] = made_at
            passed.bind(src)
    for p in params:
        if p in names:
            fdef.body.insert(0, _located([gast.Assign(
                targets=[_name(f"{p}_srcad_pos", True)], value=gast.Constant(value=0, kind=None),
                type_comment=None)], fdef.body[0])[0])
    for block in _blocks(fdef):
        out = []
        for stmt in block:
            out.extend(_rewritten(src, stmt, names))
            found = taken.get(id(stmt))
            if found is not None and found[1].name in names and found[2]:
                out.extend(_located([_at_end(found[1].name)], stmt))
        block[:] = out


class _Form:
    """An iterator ``it`` consumed by ``it`` itself, ``enumerate(it, ...)`` or ``zip(it, it,
    ...)`` (``k`` copies: Python's ``zip(*[it] * k)`` of ``k``-tuples): read from the items
    left, ``it[pos:]`` (``zip(it[pos::k], it[pos + 1::k], ...)``, which stops where Python's
    zip does)."""

    def __init__(self, name, node, reads, k):
        self.name, self.node, self.reads, self.k = name, node, reads, k

    def sliced(self, j=0, step=None):
        start = _name(f"{self.name}_srcad_pos")
        if j:
            start = gast.BinOp(left=start, op=gast.Add(), right=gast.Constant(value=j,
                                                                              kind=None))
        step = None if step is None else gast.Constant(value=step, kind=None)
        return gast.Subscript(value=_name(self.name), slice=gast.Slice(
            lower=start, upper=None, step=step), ctx=gast.Load())

    def replace(self):
        """Rewrite ``self.node`` in place into its read of the items left."""
        node = self.node
        if isinstance(node, gast.Name):
            return self.sliced()
        if self.k == 1:  # enumerate(it, ...)
            node.args[0] = _located([self.sliced()], node)[0]
            return node
        node.args = [self.sliced(j, self.k) for j in range(self.k)]
        return node

    def rewrite(self, stmt):
        """In ``stmt``: the loop over what is left, its position kept by each step (a ``for``);
        or the expression reading them all."""
        if isinstance(stmt, gast.For) and stmt.iter is self.node:
            stmt.iter = gast.copy_location(self.replace(), self.node)
            _located([stmt.iter], stmt)
            pos = _name(f"{self.name}_srcad_pos", True)
            stmt.body.insert(0, _located([gast.AugAssign(target=pos, op=gast.Add(), value=(
                gast.Constant(value=self.k, kind=None)))], stmt)[0])
            stmt.orelse.insert(0, _located([_at_end(self.name)], stmt)[0])
            return
        for parent in walk_nodes(stmt):
            for field, value in gast.iter_fields(parent):
                if value is self.node:
                    setattr(parent, field, _located([self.replace()], stmt)[0])
                elif isinstance(value, list) and any(v is self.node for v in value):
                    value[[id(v) for v in value].index(id(self.node))] = _located(
                        [self.replace()], stmt)[0]


def _at_end(name):
    return gast.Assign(targets=[_name(f"{name}_srcad_pos", True)], value=gast.Call(
        func=_name("len"), args=[_name(name)], keywords=[]), type_comment=None)


#: calls that take every value of the iterator they are given, then return
_TAKERS = ("list", "tuple", "sum", "dict", "sorted", "min", "max")


def _form_of(src, node, names):
    if isinstance(node, gast.Name) and node.id in names:
        return _Form(node.id, node, [node], 1)
    if not isinstance(node, gast.Call) or node.keywords and not _builtin(
            src, node.func, "enumerate") or any(isinstance(a, gast.Starred) for a in node.args):
        return None
    args = node.args
    if _builtin(src, node.func, "enumerate") and args and isinstance(args[0], gast.Name) and \
            args[0].id in names and not any(
                isinstance(n, gast.Name) and n.id in names for a in args[1:] + [
                    k.value for k in node.keywords] for n in walk_nodes(a)):
        return _Form(args[0].id, node, [args[0]], 1)
    if _builtin(src, node.func, "zip") and len(args) >= 2 and all(
            isinstance(a, gast.Name) and a.id == args[0].id for a in args) and \
            args[0].id in names:
        return _Form(args[0].id, node, list(args), len(args))
    return None


def _consumers(src, fdef, names):
    """``{id(stmt): (stmt, form, after)}``: the statements consuming an iterator ``it`` of
    ``names`` whole, in a form :class:`_Form` reads (``after``: the position is set to the end
    after the statement), and reading ``it`` nowhere else: a ``for`` over it, the first
    ``for`` of a list, set or dict comprehension, or the argument of a call taking every value
    (``list``, ``sum``, ``dict``, ...), where it always runs."""
    out = {}
    for block in _blocks(fdef):
        for stmt in block:
            if isinstance(stmt, gast.For):
                form = _form_of(src, stmt.iter, names)
                if form is not None and not any(
                        isinstance(n, gast.Name) and n.id == form.name
                        for s in stmt.body for n in walk_nodes(s)):
                    out[id(stmt)] = (stmt, form, False)
                continue
            if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)) or \
                    stmt.value is None:
                continue
            found = []
            _visit(src, stmt.value, names, False, found)
            if len(found) == 1 and sum(isinstance(n, gast.Name) and n.id == found[0].name
                                       for n in walk_nodes(stmt)) == len(found[0].reads):
                out[id(stmt)] = (stmt, found[0], not isinstance(stmt, gast.Return))
    return out


_count = [0]
_CONDITIONAL = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.GeneratorExp,
                gast.DictComp, gast.SetComp)


def _hoisted(src, stmt, names):
    """``y = f(next(it)) * next(it)`` as ``t1 = next(it)``, ``t2 = next(it)``, ``y = f(t1) *
    t2`` (Python's order of evaluation); a ``next`` where it may not run (under ``if ...
    else``, ``and``/``or``, a lambda, a comprehension) is left, and its name not rewritten."""
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return,
                             gast.AnnAssign)) or stmt.value is None:
        return [stmt]
    if _next_of(src, stmt.value, names) is not None and isinstance(stmt, (gast.Assign,
                                                                          gast.Expr)):
        return [stmt]  # already a statement of its own
    before = []

    def visit(node, parent, field, index, conditional):
        found = _next_of(src, node, names)
        if found is not None and not conditional and not any(
                _next_of(src, n, names) for a in node.args[1:] for n in walk_nodes(a)):
            _count[0] += 1
            temp = f"{found[0]}_srcad_next{_count[0]}"
            before.append(gast.Assign(targets=[_name(temp, True)], value=node,
                                      type_comment=None))
            replacement = gast.copy_location(_name(temp), node)
            if index is None:
                setattr(parent, field, replacement)
            else:
                getattr(parent, field)[index] = replacement
            return
        for name, value in gast.iter_fields(node):
            inner = conditional or isinstance(node, _CONDITIONAL)
            if isinstance(value, gast.AST):
                visit(value, node, name, None, inner)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, gast.AST):
                        visit(item, node, name, i, inner)

    visit(stmt.value, stmt, "value", None, False)
    return _located(before, stmt) + [stmt]


#: calls that never change their arguments: reading a name in them keeps the rewrite exact
_READERS = ("len", "sum", "min", "max", "sorted", "list", "tuple", "iter", "enumerate",
            "zip", "range", "abs", "float", "int", "reversed", "print", "isinstance")


def _changed_later(src, fdef, assign):
    """Whether a name the ``iter(...)`` of ``assign`` reads may be changed in place in the
    function (Python's iterator would see the change; the rewrite takes the items where
    ``iter`` is called): a method called on it, an item or slice written, ``+=``, ``del``,
    passed to a call other than a builtin that only reads, read by a nested function."""
    read = {n.id for n in walk_nodes(assign.value) if isinstance(n, gast.Name)} - {"iter"}
    inside = {id(n) for n in walk_nodes(assign.value)}
    parents = {}
    for node in walk_nodes(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id in read) or id(node) in inside:
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Param) or isinstance(node.ctx, gast.Store) and \
                isinstance(parent, gast.Assign):
            continue  # a new object bound to the name: the iterator keeps the old one
        if isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                parent.ctx, gast.Load) and not isinstance(parents.get(id(parent)),
                                                          (gast.AugAssign, gast.Attribute)):
            continue  # xs[i] read
        if isinstance(parent, gast.Call) and node in parent.args and any(
                _builtin(src, parent.func, r) for r in _READERS):
            continue
        if isinstance(parent, (gast.BinOp, gast.Compare, gast.UnaryOp, gast.Return,
                               gast.comprehension, gast.For)) and isinstance(
                                   node.ctx, gast.Load):
            continue  # read (a for loop or comprehension reads it)
        return True
    return any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not fdef and any(
        isinstance(m, gast.Name) and m.id in read for m in walk_nodes(n))
        for n in walk_nodes(fdef))


def _rewritten(src, stmt, names):
    pos = None
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and \
            stmt.targets[0].id in names and (isinstance(stmt.value, gast.GeneratorExp) or
                                             isinstance(stmt.value, gast.Call) and
                                             _builtin(src, stmt.value.func, "iter")):
        name = stmt.targets[0].id
        stmt.value = gast.copy_location(gast.Call(func=_name("tuple"), args=(
            [stmt.value] if isinstance(stmt.value, gast.GeneratorExp) else stmt.value.args),
            keywords=[]), stmt.value)
        start = gast.Assign(targets=[_name(f"{name}_srcad_pos", True)],
                            value=gast.Constant(value=0, kind=None), type_comment=None)
        return [stmt] + _located([start], stmt)
    value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
    found = _next_of(src, value, names)
    if found is None:
        return [stmt]
    name, default = found
    pos = f"{name}_srcad_pos"
    item = gast.Subscript(value=_name(name), slice=_name(pos), ctx=gast.Load())
    take = [gast.Assign(targets=stmt.targets, value=item, type_comment=None)
            if isinstance(stmt, gast.Assign) else gast.Expr(value=item),
            gast.AugAssign(target=_name(pos, True), op=gast.Add(),
                           value=gast.Constant(value=1, kind=None))]
    more = gast.Compare(left=_name(pos), ops=[gast.Lt()], comparators=[gast.Call(
        func=_name("len"), args=[_name(name)], keywords=[])])
    if default is None:
        end = [gast.Raise(exc=_name("StopIteration"), cause=None)]
    elif isinstance(stmt, gast.Assign):
        end = [gast.Assign(targets=copy.deepcopy(stmt.targets), value=default,
                           type_comment=None)]
    else:
        end = [gast.Expr(value=default)]
    return _located([gast.If(test=more, body=take, orelse=end)], stmt)


def _located(stmts, like):
    for stmt in stmts:
        for sub in walk_nodes(stmt):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                gast.copy_location(sub, like)
    return stmts


def _visit(src, node, names, conditional, found):
    """Append to ``found`` the forms of :func:`_form_of` that ``node`` consumes whole where it
    always runs (``conditional``: it may not run)."""
    if not conditional:
        inner = None
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp)):
            inner = node.generators[0].iter
        elif isinstance(node, gast.Call) and len(node.args) == 1 and any(
                _builtin(src, node.func, t) for t in _TAKERS):
            inner = node.args[0]
            if isinstance(inner, gast.GeneratorExp):  # sum(v * v for v in it): all taken
                inner = inner.generators[0].iter
        form = _form_of(src, inner, names) if inner is not None else None
        if form is not None:
            found.append(form)
    first = node.generators[0].iter if isinstance(node, (
        gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)) else None
    for child in gast.iter_child_nodes(node):
        _visit(src, child, names, conditional or isinstance(node, _CONDITIONAL), found)
    if first is not None:  # evaluated once, where the comprehension runs
        _visit(src, first, names, conditional, found)


def holder_value(holder, field, index):
    value = getattr(holder, field)
    return value if index is None else value[index]


def _unconditional_calls(node, conditional=False):
    """The calls in the expression ``node`` that run whenever it does."""
    if isinstance(node, gast.Call) and not conditional:
        yield node
    inner = conditional or isinstance(node, _CONDITIONAL)
    for child in gast.iter_child_nodes(node):
        yield from _unconditional_calls(child, inner)


def _loads(node, name):
    return [n for n in walk_nodes(node) if isinstance(n, gast.Name) and n.id == name
            and isinstance(n.ctx, gast.Load)]


def _passed_on(src, fdef, names, made):
    """``{id(load): (holder, field, index)}``: an iterator ``it`` of ``names`` passed as an
    argument to a function of yours (``consume(it)``) where it always runs, in the block
    that makes it (the body, for a parameter), as its last read: every other read of ``it``
    is in the statements before (their reads keep the position; the callee takes the rest)."""
    own = passed.own_names(fdef)
    out = {}
    for block in _blocks(fdef):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)) or \
                    stmt.value is None:
                continue
            for call in _unconditional_calls(stmt.value):
                if not passed.may_be_users(src, call, own):
                    continue
                for holder, field, index in passed.arguments(call):
                    arg = holder_value(holder, field, index)
                    if not (isinstance(arg, gast.Name) and arg.id in names):
                        continue
                    home = fdef.body if arg.id not in made else next(
                        (b for b in _blocks(fdef) if any(s is made[arg.id] for s in b)), None)
                    if block is not home or len(_loads(stmt, arg.id)) != 1 or \
                            len(_loads(fdef, arg.id)) != sum(
                                len(_loads(s, arg.id)) for s in block[:i + 1]):
                        continue
                    out[id(arg)] = (holder, field, index)
    return out


def _refuse_left(src, fdef, made, params, names, stores):
    """Refuse an iterator srcad cannot read item by item where reading it as a list would be
    wrong: a parameter given one (:mod:`.iterators_passed`), a generator expression kept in a
    name and read (a second read must see nothing left)."""
    for p in params:
        if p not in names:
            loads = _loads(fdef, p)
            raise passed.error(
                src, loads[0] if loads else fdef, f"the parameter {p!r} of {fdef.name}, "
                "given an iterator by the caller, used where srcad does not read it item by "
                "item (as an iterator, a second loop over it sees nothing left)",
                f"read it with next({p}), next({p}, d), a for loop over it whose body does not "
                f"read {p}, list({p}), sum({p}), enumerate({p}), zip({p}, {p}), or pass it on "
                f"to a function of yours as its last use; or pass a list from the caller and "
                f"index it")
    for name, stmt in made.items():
        if isinstance(stmt.value, gast.GeneratorExp) and name not in names and _loads(
                fdef, name):
            raise passed.error(
                src, stmt, f"a generator expression kept in {name!r} and read where srcad "
                "cannot follow what is left of it (read twice, in a loop or a nested function, "
                "after a name it reads is rebound or changed)",
                f"take its values where it is made: {name} = [...] (a list), or read {name} "
                "once, in a for loop or a call like sum(...), list(...)")
