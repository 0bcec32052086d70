"""A list of functions a helper makes, called in a loop: ``fs = [make(w[i]) for i in
range(3)]`` then ``sum(f(x) for f in fs)`` (issue 16).

Closure conversion (:mod:`.closures`) reads ``h = make(w); h(x)`` as ``h_local(*env, x)``; a
list of such functions holds one environment per item. Before desugaring, such a list is
rewritten in place into the list of the values each function is called with first:

* ``fs = [make(a) for ...]`` -> ``fs = [make_all(a) for ...]``, ``make_all`` returning the
  tuple ``(v_0, ..., v_k)`` the function made is called with first (:func:`listed`);
* each call ``f(x)``, ``f`` the target of a ``for`` loop or a comprehension over ``fs``, and
  ``fs[i](x)`` -> ``target(f[0], ..., f[k], x)``.

So the gradient flows through each item's values into what ``make`` read, and a second
derivative too. Applied when ``fs`` is assigned once and every use is such a loop whose
target is only called, ``fs[i](...)``, or ``len(fs)``; otherwise the function is left as it is
(and calling an item is refused at its line). The two functions enter ``src.closure`` under
names of srcad's (``srcad_made_all_1``, ``srcad_made_fn_2``): constants of the code, bound
through cells (``src.bound``, read by the lowerer as lifted functions) where the generated
code calls them.

A choice between two functions ``make`` makes, ``h = make(x) if c else make(y)`` (or the
same as an ``if``/``else`` statement of those two assignments alone), is the same call with
the values chosen, ``make(x if c else y)`` (:class:`_Choices`).

Imports gast, the standard library, :mod:`srcad.core` and :mod:`.closures`, :mod:`.source`.
"""

from __future__ import annotations

import builtins
import copy
import itertools
import weakref

import gast

from ..core.functions import is_user_function
from ..core.walk import walk_nodes
from . import closures, lower_next
from . import source as source_module

_names = itertools.count(1)


def listed(fn):
    """For a list of the functions ``make`` returns (``[make(w[i]) for i in ...]``):
    ``(make_all, target, count)``, ``make_all`` taking ``make``'s parameters and returning the
    ``count`` values the function it makes is called with first (``target(*those, x)``);
    None when ``make`` is not converted to one function without fixed keywords."""
    conv = closures.conversion(fn)
    if conv is None or not isinstance(conv.target, closures.Conversion) or conv.target.keywords or \
            isinstance(conv.target.target, tuple):
        return None
    made = _LISTED.get(fn)
    if made is not None and made[0] is conv:
        return made[1]
    src = source_module.read(fn)
    args = copy.deepcopy(src.node.args)
    names = [a.id for a in args.posonlyargs + args.args]
    keywords = [a.id for a in args.kwonlyargs]

    def load(name):
        return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)

    body = []
    if conv.env_fn is not None:
        body.append(gast.Assign(targets=[gast.Name(id="srcad_env", ctx=gast.Store(),
                                                   annotation=None, type_comment=None)],
                                value=gast.Call(func=load("srcad_make_env"), args=[
                                    load(n) for n in names], keywords=[gast.keyword(
                                        arg=k, value=load(k)) for k in keywords]),
                                type_comment=None))
    items = [gast.Subscript(value=load("srcad_env"), slice=gast.Constant(value=key, kind=None),
                            ctx=gast.Load()) if kind == "env" else load(key)
             for kind, key in conv.target.lead]
    body.append(gast.Return(value=gast.Tuple(elts=items, ctx=gast.Load())))
    fdef = gast.FunctionDef(name=f"{fn.__name__}_all", args=args, body=body,
                            decorator_list=[], returns=None, type_comment=None, type_params=[])
    for node in walk_nodes(fdef):
        if "lineno" in node._attributes:
            gast.copy_location(node, src.node)
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    filename = (f"<srcad: {fn.__name__} of {src.filename}:{src.first_line} returning the "
                f"values each function it makes is called with #{next(closures._count)}>")
    cells = {"srcad_make_env": conv.env_fn} if conv.env_fn is not None else None
    make_all = closures._run_def(tree, filename, src, defaults_of=fn, cells=cells)
    out = (make_all, conv.target.target, len(conv.target.lead))
    _LISTED[fn] = (conv, out)
    return out


_LISTED = weakref.WeakKeyDictionary()


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _make_of(src, call):
    """The converted ``make`` a call ``make(...)`` calls (positional and keyword arguments, no
    ``*``/``**``), or None."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)) or any(
            isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
        return None
    try:
        fn = src.lookup(call.func.id)
    except (KeyError, AttributeError):
        return None
    if not is_user_function(fn) or listed(fn) is None:
        return None
    return fn


def _made_lists(src, fdef):
    """``{name: (assign, make, calls, appends)}`` for each list of functions one ``make``
    returns: ``name = [make(...) for ...]``, ``name = [make(a), make(b)]`` or ``name = []``,
    and ``name.append(make(...))`` statements (``calls``: the calls of ``make``; ``appends``:
    the ids of the names read by those appends)."""
    found, appends = {}, {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name):
            value = node.value
            calls = [value.elt] if isinstance(value, gast.ListComp) else list(
                value.elts) if isinstance(value, gast.List) else None
            if calls is not None:
                found.setdefault(node.targets[0].id, []).append((node, calls))
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) and isinstance(
                node.value.func, gast.Attribute) and node.value.func.attr == "append" and \
                isinstance(node.value.func.value, gast.Name) and len(node.value.args) == 1 \
                and not node.value.keywords:
            appends.setdefault(node.value.func.value.id, []).append(node.value)
    out = {}
    for name, assigns in found.items():
        if len(assigns) != 1:
            continue
        assign, calls = assigns[0]
        calls = calls + [a.args[0] for a in appends.get(name, [])]
        fns = {_make_of(src, c) for c in calls}
        if len(fns) == 1 and None not in fns:
            out[name] = (assign, fns.pop(), calls, {id(a.func.value) for a in appends.get(
                name, [])})
    return out


class _Choices(gast.NodeTransformer):
    """``make(x) if c else make(y)`` -> ``make(x if c else y)`` (keywords alike), ``make`` a
    helper closure conversion takes, ``c`` free of calls (it is evaluated once per argument):
    the same call of ``make``, with the chosen values."""

    def __init__(self, src):
        self.src = src

    def visit_If(self, node):
        """``if c: h = make(x)`` ``else: h = make(y)``, nothing else in the branches: read as
        ``h = make(x) if c else make(y)``."""
        self.generic_visit(node)
        a, b = node.body, node.orelse
        if not (len(a) == len(b) == 1 and all(isinstance(s, gast.Assign) and len(
                s.targets) == 1 and isinstance(s.targets[0], gast.Name) and isinstance(
                    s.value, gast.Call) for s in (a[0], b[0])) and
                a[0].targets[0].id == b[0].targets[0].id):
            return node
        choice = gast.copy_location(gast.IfExp(test=node.test, body=a[0].value,
                                               orelse=b[0].value), node)
        made = self.visit_IfExp(choice)
        if made is choice:
            return node
        return gast.copy_location(gast.Assign(targets=a[0].targets, value=made,
                                              type_comment=None), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        a, b = node.body, node.orelse
        if not (isinstance(a, gast.Call) and isinstance(b, gast.Call) and isinstance(
                a.func, gast.Name) and isinstance(b.func, gast.Name) and a.func.id == b.func.id
                and len(a.args) == len(b.args) and [k.arg for k in a.keywords] == [
                    k.arg for k in b.keywords]) or any(
                    isinstance(n, (gast.Call, gast.Yield, gast.YieldFrom, gast.Await,
                                   gast.NamedExpr, gast.Lambda)) for n in walk_nodes(node.test)) \
                or any(isinstance(v, gast.Starred) or k is None for call in (a, b)
                       for v, k in [(v, "") for v in call.args] + [
                           (kw.value, kw.arg) for kw in call.keywords]):
            return node
        try:
            fn = self.src.lookup(a.func.id)
        except (KeyError, AttributeError):
            return node
        if not is_user_function(fn) or closures.conversion(fn) is None:
            return node

        def choose(u, v):
            return gast.copy_location(gast.IfExp(test=copy.deepcopy(node.test), body=u,
                                                 orelse=v), node)

        return gast.copy_location(gast.Call(func=a.func, args=[
            choose(u, v) for u, v in zip(a.args, b.args)], keywords=[
                gast.keyword(arg=k.arg, value=choose(k.value, m.value))
                for k, m in zip(a.keywords, b.keywords)]), node)


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    _Choices(src).visit(fdef)
    _made_names(src, fdef)
    found = _made_lists(src, fdef)
    if not found:
        return
    stores = {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            stores.update((n, 2) for n in node.names)
    nested = {n.id for node in walk_nodes(fdef) if isinstance(node, (
        gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)) and node is not fdef
        for n in walk_nodes(node) if isinstance(n, gast.Name)}
    for name, (_, fn, made, appends) in found.items():
        if stores.get(name) != 1 or getattr(builtins, name, None) is not None or \
                name in nested:  # a nested function reading the list: left as it is
            continue
        calls = _calls(src, fdef, name, stores, appends)
        if calls is None:
            continue
        make_all, target, count = listed(fn)
        all_name, fn_name = f"srcad_made_all_{next(_names)}", f"srcad_made_fn_{next(_names)}"
        src.closure[all_name], src.closure[fn_name] = make_all, target
        # bound through cells, like a lifted function: a call of make_all given constants
        # only stays a call of it in the generated code (it raised NameError there)
        src.bound = {**getattr(src, "bound", {}), all_name: make_all, fn_name: target}
        for call in made:
            call.func = gast.copy_location(_load(all_name), call.func)
        for call, holder in calls:
            _call_with_items(call, copy.deepcopy(holder), count, fn_name)


def _made_names(src, fdef):
    """A name bound more than once, each time to a function one ``make`` returns (``if c: h =
    make(x); k = 2`` ``else: h = make(y); k = 1``, or in a loop), and read only by calls
    ``h(...)``: each binding ``h = make_all(...)`` (the values the function is called with
    first, made where ``make`` ran) and each call ``target(h[0], ..., h[k - 1], ...)``."""
    stores, loads, nested = {}, {}, set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name):
            (loads if isinstance(node.ctx, gast.Load) else stores).setdefault(
                node.id, []).append(node)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            nested.update(node.names)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)) and \
                node is not fdef:
            nested.update(n.id for n in walk_nodes(node) if isinstance(n, gast.Name))
    binds, calls = {}, {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name):
            binds.setdefault(node.targets[0].id, []).append(node)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            calls.setdefault(node.func.id, []).append(node)
    for name, assigns in binds.items():
        if len(assigns) < 2 or len(stores[name]) != len(assigns) or name in nested or \
                getattr(builtins, name, None) is not None or len(
                    calls.get(name, ())) != len(loads.get(name, ())):
            continue
        fns = {_make_of(src, a.value) for a in assigns}
        if len(fns) != 1 or None in fns:
            continue
        make_all, target, count = listed(fns.pop())
        all_name, fn_name = f"srcad_made_all_{next(_names)}", f"srcad_made_fn_{next(_names)}"
        src.closure[all_name], src.closure[fn_name] = make_all, target
        for assign in assigns:
            assign.value.func = gast.copy_location(_load(all_name), assign.value.func)
        for call in calls.get(name, ()):
            _call_with_items(call, _load(name), count, fn_name)


def _item_target(src, gen, name):
    """The name a loop (or comprehension) ``gen`` binds to each item of the list ``name``,
    with the name read in its ``iter``: ``for h in fs``, ``for h in reversed(fs)``, ``for i, h
    in enumerate(fs)``, ``for h, w in zip(fs, ws)``, nested; ``(None, None)`` when it does not
    read the list; None when it reads it otherwise."""
    if not any(isinstance(n, gast.Name) and n.id == name for n in walk_nodes(gen.iter)):
        return None, None
    return _through(src, gen.iter, gen.target, name)


def _through(src, it, target, name):
    if isinstance(it, gast.Name):
        return (target.id, it) if it.id == name and isinstance(target, gast.Name) else None
    if not isinstance(it, gast.Call) or any(isinstance(a, gast.Starred) for a in it.args):
        return None
    held = [i for i, a in enumerate(it.args) if any(
        isinstance(n, gast.Name) and n.id == name for n in walk_nodes(a))]
    if len(held) != 1 or any(isinstance(n, gast.Name) and n.id == name
                             for k in it.keywords for n in walk_nodes(k.value)):
        return None
    at = held[0]
    if lower_next._builtin(src, it.func, "reversed") and len(it.args) == 1:
        return _through(src, it.args[0], target, name)
    if not (isinstance(target, gast.Tuple) and not any(
            isinstance(e, gast.Starred) for e in target.elts)):
        return None
    if lower_next._builtin(src, it.func, "enumerate") and at == 0 and len(target.elts) == 2:
        return _through(src, it.args[0], target.elts[1], name)
    if lower_next._builtin(src, it.func, "zip") and not it.keywords and len(
            target.elts) == len(it.args):
        return _through(src, it.args[at], target.elts[at], name)
    return None


def _calls(src, fdef, name, stores, appends):
    """``[(call, holder)]``: each call of an item of the list ``name`` and the expression
    holding the item (the loop's target, or ``name[i]``); None when ``name`` is used
    otherwise (then nothing is rewritten). ``appends``: the ids of its reads appending."""
    loops, out, allowed = {}, [], set(appends)
    for node in walk_nodes(fdef):
        gens = [node] if isinstance(node, gast.For) else node.generators if isinstance(
            node, (gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)) else []
        for gen in gens:
            found = _item_target(src, gen, name)
            if found is None:
                return None
            if found[0] is not None:
                loops[found[0]] = loops.get(found[0], 0) + 1
                allowed.add(id(found[1]))
    if any(stores.get(target) != count for target, count in loops.items()):
        return None  # a loop's target bound otherwise too
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id == "len" and len(node.args) == 1 and isinstance(
                    node.args[0], gast.Name) and node.args[0].id == name:
            allowed.add(id(node.args[0]))
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Subscript) and \
                isinstance(node.func.value, gast.Name) and node.func.value.id == name:
            allowed.add(id(node.func.value))
            out.append((node, node.func))
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in loops:
            allowed.add(id(node.func))
            out.append((node, node.func))
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and (
                node.id == name or node.id in loops) and id(node) not in allowed:
            return None  # the list or an item used otherwise
    return [(call, _load(holder.id) if isinstance(holder, gast.Name) else holder)
            for call, holder in out]


def _call_with_items(call, holder, count, fn_name):
    """``h(...)`` becomes ``fn_name(holder[0], ..., holder[count - 1], ...)`` (the values the
    made function reads first), at the call's place."""
    items = [gast.Subscript(value=copy.deepcopy(holder), slice=gast.Constant(
        value=k, kind=None), ctx=gast.Load()) for k in range(count)]
    for item in items:
        for sub in walk_nodes(item):
            if "lineno" in sub._attributes:
                gast.copy_location(sub, call)
    call.func = gast.copy_location(_load(fn_name), call.func)
    call.args = items + call.args
