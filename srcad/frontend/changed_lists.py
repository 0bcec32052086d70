"""A function of the user's that changes a list it is given, called on a list the
differentiated function built (issue 16, outside26)::

    def sgd(ps, gs, lr):
        for i in range(len(ps)):
            ps[i] = ps[i] - lr * gs[i]

    def f(w):
        ps = [w, 2.0 * w]
        sgd(ps, [3.0 * w, np.sin(w)], 0.1)
        return ps[0] * ps[1]

The call is, after this pass, ``sgd_result, ps = sgd_fields(ps, [...], 0.1)``: a copy of
``sgd`` (:func:`.returned_records._copy_returning`) whose first statement is ``ps =
list(ps)`` and whose every ``return e`` is ``return e, ps`` (``return None, ps`` at its end):
it changes a list of its own, made from the one given, and returns it; the caller takes it
in place of its list. Exact when nothing else can see the list given: a list built in the
call itself (``grow([x], x)``, a display, a comprehension, ``list(...)``: the copy's list,
returned, goes to a name no one reads), or the caller's name for it is bound only to lists
it builds there (a display, a comprehension, ``list(...)``) and is
used only by item reads and writes, ``len``, ``for`` (not around such a call: the loop would
go on over the list it started with), its own methods, NumPy's and Python's eager functions
(``np.stack(ps)``, ``sum(ps)``, ...), ``return`` and such calls (where it is given once, to a
parameter the function changes: an item written, ``del``, ``append``, ``extend``, ``insert``,
``pop``, ``remove``, ``clear``, ``sort``, ``reverse``; the parameter never rebound, read
in no nested function). Anything else (an alias, a list held elsewhere, the function's own
argument, which its caller would see changed) keeps the refusal (analysis/alias.py) and its
rewrite.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.built_records`,
:mod:`.passed_calls`, :mod:`.passed_records`, :mod:`.returned_records` and :mod:`.source`.
"""

from __future__ import annotations

import builtins

import gast

from ..core.walk import walk_nodes
from . import passed_calls, passed_records, returned_records
from . import source as source_module
from .built_records import resolve_any
from .source import fresh_names

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                       "reverse"})
_READING = frozenset({"index", "count", "copy"})
#: Python's functions that read a list at once and keep no reference to it
_EAGER = frozenset({len, sum, list, tuple, max, min, sorted, any, all})


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _own(top):
    out, todo = [], list(gast.iter_child_nodes(top))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(gast.iter_child_nodes(node))
    return out


def changed_params(fn):
    """The parameters ``fn`` changes in place (see above), as a tuple, else ()."""
    try:
        src = source_module.read(fn)
    except Exception:  # noqa: BLE001 - no source: not copied
        return ()
    fdef = src.node
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or fn.__globals__.get(
            "list", list) is not list or "list" in passed_calls.bound_names(fdef):
        return ()  # (the copy's list(ps) must be Python's)
    params = [a.id for a in args.posonlyargs + args.args]
    nodes = _own(fdef)
    if any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in nodes):
        return ()
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    nested = {n.id for s in nodes if isinstance(s, _SCOPES) for n in walk_nodes(s)
              if isinstance(n, gast.Name)}
    declared = {x for n in walk_nodes(fdef) if isinstance(n, (gast.Global, gast.Nonlocal))
                for x in n.names}
    out = []
    for param in params:
        if param in nested or param in declared or any(
                isinstance(n, gast.Name) and n.id == param and not isinstance(
                    n.ctx, gast.Load) and n not in (args.posonlyargs + args.args)
                for n in nodes):
            continue  # rebound, or read where a closure keeps it
        changes = False
        for node in nodes:
            if not (isinstance(node, gast.Name) and node.id == param):
                continue
            parent = parents.get(node)
            if isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                    parent.ctx, (gast.Store, gast.Del)):
                changes = True
            elif isinstance(parent, gast.Attribute) and parent.attr in _CHANGING and \
                    isinstance(parents.get(parent), gast.Call):
                changes = True
        if changes:
            out.append(param)
    return tuple(out)


def _maker(fn, changed):
    """The entry of the copy of ``fn`` returning the lists ``changed`` too (see above)."""

    def rewrite(fdef, taken):
        first = [gast.Assign(targets=[_name(p, gast.Store())], value=gast.Call(
            func=_name("list"), args=[_name(p)], keywords=[]), type_comment=None)
            for p in changed]
        for node in _own(fdef):
            if isinstance(node, gast.Return):
                node.value = gast.Tuple(elts=[node.value or gast.Constant(
                    value=None, kind=None)] + [_name(p) for p in changed], ctx=gast.Load())
        body = fdef.body
        if not isinstance(body[-1], (gast.Return, gast.Raise)):
            body.append(gast.Return(value=gast.Tuple(elts=[gast.Constant(
                value=None, kind=None)] + [_name(p) for p in changed], ctx=gast.Load())))
        fdef.body = first + body
        for node in walk_nodes(fdef):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, fdef.body[len(first)] if len(fdef.body) > len(
                    first) else fdef)
        return {}

    return returned_records._copy_returning(fn, (fn.__code__, "changed lists", changed),
                                            rewrite)


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    nodes = _own(fdef)
    local = passed_calls.bound_names(fdef)
    calls = [n for n in nodes if isinstance(n, gast.Call) and any(
        isinstance(a, gast.Name) or _builds_list(src, a, local)
        for a in [*n.args, *(k.value for k in n.keywords)]) and
        passed_calls.callee_function(resolve_any(src, n.func, local))]
    if not calls:
        return
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    found = []  # (statement, call, fn, {parameter: list name})
    for call in calls:
        stmt = parents.get(call)
        if not (isinstance(stmt, gast.Expr) or isinstance(stmt, gast.Assign) and len(
                stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)) or \
                stmt.value is not call:
            continue
        fn = resolve_any(src, call.func, local)
        if not passed_calls.callee_function(fn) or any(
                isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            continue
        changed = changed_params(fn)
        if not changed:
            continue
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        given = dict(zip(params, call.args))
        given.update({k.arg: k.value for k in call.keywords})
        lists = {p: given[p].id for p in changed if isinstance(given.get(p), gast.Name)
                 and given[p].id in local}  # (a global list: refused, alias.check)
        made = [p for p in changed if p in given and _builds_list(src, given[p], local)]
        if lists or made:  # (a list built in the call, grow([x], x): no one else sees it)
            found.append((stmt, call, fn, lists, made))
    if not found:
        return
    fresh = _fresh_lists(src, fdef, nodes, parents, local, found)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    new_name = fresh_names(taken)
    bind = None
    for stmt, call, fn, lists, made in found:
        lists = {p: name for p, name in lists.items() if name in fresh}
        lists.update({p: new_name(f"{fn.__name__}_{p}") for p in made})  # (read by no one)
        if not lists:
            continue
        changed = tuple(p for p in changed_params(fn) if p in lists)
        bind = bind or passed_records.binder(src, fdef)
        call.func = gast.copy_location(_name(bind(_maker(fn, changed))), call.func)
        first = stmt.targets[0] if isinstance(stmt, gast.Assign) else _name(
            new_name(f"{fn.__name__}_result"), gast.Store())
        target = gast.Tuple(elts=[first] + [_name(lists[p], gast.Store()) for p in changed],
                            ctx=gast.Store())
        assign = gast.Assign(targets=[target], value=call, type_comment=None)
        for node in walk_nodes(assign):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, stmt)
        gast.copy_location(assign, stmt)
        _replace(fdef, stmt, assign)


def _replace(fdef, old, new):
    for node in walk_nodes(fdef):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and any(s is old for s in body):
                k = [i for i, s in enumerate(body) if s is old][0]
                body[k:k + 1] = new if isinstance(new, list) else [new]
                return


def _fresh_lists(src, fdef, nodes, parents, local, found):
    """The list names of ``found`` that only the function itself can see (see above)."""
    names = {name for *_, lists, _ in found for name in lists.values()}
    declared = {x for n in walk_nodes(fdef) if isinstance(n, (gast.Global, gast.Nonlocal))
                for x in n.names}
    own = set(map(id, nodes))
    given = {}  # id of a Name given to a rewritten call -> the call
    for _, call, _, lists, _ in found:
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, gast.Name) and arg.id in lists.values():
                given[id(arg)] = call
    out = set()
    for name in names - declared:
        ok = True
        for node in walk_nodes(fdef):
            if not (isinstance(node, gast.Name) and node.id == name):
                continue
            if id(node) not in own:
                ok = False  # read or bound in a nested function
                break
            parent = parents.get(node)
            if not isinstance(node.ctx, gast.Load):
                ok = isinstance(parent, gast.Assign) and parent.targets == [node] and \
                    _builds_list(src, parent.value, local)
            elif id(node) in given:
                call = given[id(node)]
                ok = sum(isinstance(a, gast.Name) and a.id == name for a in walk_nodes(
                    call)) == 1 and not _inside_loop_over(call, name, parents)
            else:
                ok = _reads_only(src, node, parent, parents, local)
            if not ok:
                break
        if ok:
            out.add(name)
    return out


def _builds_list(src, value, local):
    if isinstance(value, (gast.List, gast.ListComp)):
        return True
    return isinstance(value, gast.Call) and resolve_any(src, value.func, local) is list


def _inside_loop_over(node, name, parents):
    """Whether ``node`` is inside a ``for`` loop over the list ``name`` (the loop goes on
    over the list it started with)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, (gast.For, gast.comprehension)) and any(
                isinstance(n, gast.Name) and n.id == name for n in walk_nodes(node.iter)):
            return True
    return False


def _reads_only(src, node, parent, parents, local, returns=True, depth=0):
    """Whether this use of the list reads it (or changes it, as its own) and keeps no
    reference to it (``returns``: ``return`` it too; ``depth``: of a function of the user's
    given it, which only reads it so in turn)."""
    if isinstance(parent, gast.Subscript) and parent.value is node:
        return True
    if isinstance(parent, gast.For) and parent.iter is node:
        return True
    if isinstance(parent, gast.comprehension) and parent.iter is node:
        return not isinstance(parents.get(parent), gast.GeneratorExp)  # (that one is lazy)
    if isinstance(parent, gast.Return):
        return returns
    if isinstance(parent, gast.Attribute) and parent.value is node and parent.attr in (
            _CHANGING | _READING):
        call = parents.get(parent)
        return isinstance(call, gast.Call) and call.func is parent
    if isinstance(parent, gast.Call) and node in parent.args:
        fn = resolve_any(src, parent.func, local)
        module = getattr(fn, "__module__", None) or ""
        eager = any(fn is f for f in _EAGER) and getattr(builtins, fn.__name__, None) is fn
        if eager or module.split(".")[0] == "numpy" and callable(fn) and not any(
                isinstance(a, gast.Lambda) for a in parent.args):
            return True
        return depth == 0 and passed_calls.callee_function(fn) and not parent.keywords and \
            not any(isinstance(a, gast.Starred) for a in parent.args) and _only_read(
                fn, parent.args.index(node))
    return False


def _only_read(fn, position):
    """Whether the function of the user's ``fn`` only reads (see :func:`_reads_only`) its
    parameter at ``position`` and does not return it."""
    try:
        src = source_module.read(fn)
    except Exception:  # noqa: BLE001 - no source: not known
        return False
    fdef = src.node
    params = [a.id for a in fdef.args.posonlyargs + fdef.args.args]
    if fdef.args.vararg or position >= len(params):
        return False
    param, nodes = params[position], _own(fdef)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    local = passed_calls.bound_names(fdef)
    own = set(map(id, nodes))
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id == param) or isinstance(
                node.ctx, gast.Param):
            continue
        if id(node) not in own or not isinstance(node.ctx, gast.Load) or not _reads_only(
                src, node, parents.get(node), parents, local, returns=False, depth=1):
            return False
        parent = parents.get(node)
        if isinstance(parent, gast.Attribute) and parent.attr in _CHANGING:
            return False
        if isinstance(parent, gast.Subscript) and not isinstance(parent.ctx, gast.Load):
            return False
    return True
