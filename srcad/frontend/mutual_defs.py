"""Nested ``def``s calling each other (issue 16, outside26)::

    def f(x):
        def even(n, y):
            return y if n == 0 else odd(n - 1, y * x)
        def odd(n, y):
            return -y if n == 0 else even(n - 1, np.sin(y) + x)
        return even(4, x)

A nested function calling another nested function is refused when it is lifted (each is
lifted on its own, :meth:`.lower_calls.Calls.local_function`). A group of such functions
calling each other (a cycle of calls among the function's own ``def`` statements) is, after
this pass, one nested function calling itself, which :mod:`.recursive_defs` lifts::

    def even_odd(which, p0, p1):
        if which == 0:
            n = p0; y = p1
            return y if n == 0 else even_odd(1, n - 1, y * x)
        else:
            n = p0; y = p1
            return -y if n == 0 else even_odd(0, n - 1, np.sin(y) + x)

and each call ``even(a, b)`` is ``even_odd(0, a, b)`` (a function with fewer parameters given
``None`` for the rest). Exact: the body that runs is the one called, with the same values.
Only when each function of the group is a plain ``def`` at the function's top level (no
decorator, default, ``*args``, keyword-only parameter, ``yield``), bound once, used only by
calls giving its parameters by position (no ``*``), none of them before the last ``def`` of the
group in the function's own statements; else the refusal stays.

Imports gast, :mod:`srcad.core` and :mod:`.recursive_defs`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from .recursive_defs import bound_once


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _plain(fdef):
    args = fdef.args
    return isinstance(fdef, gast.FunctionDef) and not fdef.decorator_list and not (
        args.defaults or args.kwonlyargs or args.vararg or args.kwarg or args.posonlyargs
    ) and not any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await))
                  for n in walk_nodes(fdef))


def _groups(defs):
    """The cycles of calls among ``defs`` (name -> FunctionDef): lists of two or more names
    each of which reaches every other by calls (strongly connected)."""
    calls = {name: {n.func.id for n in walk_nodes(d) if isinstance(n, gast.Call) and
                    isinstance(n.func, gast.Name) and n.func.id in defs}
             for name, d in defs.items()}

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in calls[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {name: reach(name) for name in defs}
    out, placed = [], set()
    for name in defs:
        if name in placed or name not in reached[name]:
            continue
        group = [n for n in defs if n in reached[name] and name in reached[n]]
        if len(group) >= 2:
            out.append(group)
            placed.update(group)
    return out


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    body = fdef.body
    defs = {s.name: s for s in body if isinstance(s, gast.FunctionDef)}
    if len(defs) < 2:
        return
    defs = {name: d for name, d in defs.items() if _plain(d) and bound_once(fdef, name)}
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | {
        n.name for n in walk_nodes(fdef) if isinstance(n, gast.FunctionDef)}
    for group in _groups(defs):
        _merge(fdef, body, [defs[n] for n in group], taken)


def _merge(fdef, body, members, taken):
    names = [m.name for m in members]
    sizes = {m.name: len(m.args.args) for m in members}
    last = max(body.index(m) for m in members)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    calls = []
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id in names):
            continue
        call = parents.get(node)
        if not (isinstance(node.ctx, gast.Load) and isinstance(call, gast.Call) and
                call.func is node and not call.keywords and len(call.args) == sizes[
                    node.id] and not any(isinstance(a, gast.Starred) for a in call.args)):
            return  # used otherwise than called by position
        top = call
        while parents.get(top) is not None and parents[top] is not fdef:
            top = parents[top]
        if top in body and body.index(top) < last and top not in members:
            return  # called before the group is defined
        calls.append(call)
    merged = "_".join(names)
    while merged in taken:
        merged += "_"
    taken.add(merged)
    which = "which"
    while which in taken:
        which += "_"
    width = max(sizes.values())
    params = []
    for k in range(width):
        p = f"p{k}"
        while p in taken:
            p += "_"
        taken.add(p)
        params.append(p)
    for call in calls:  # even(a, b) -> even_odd(0, a, b, None...)
        k = names.index(call.func.id)
        pad = [gast.copy_location(gast.Constant(value=None, kind=None), call)
               for _ in range(width - len(call.args))]
        call.args = [gast.copy_location(gast.Constant(value=k, kind=None), call),
                     *call.args, *pad]
        call.func = gast.copy_location(_name(merged), call.func)
    branch = None
    for k in reversed(range(len(members))):
        m = members[k]
        binds = [gast.copy_location(gast.Assign(targets=[_name(a.id, gast.Store())],
                                                value=_name(params[i]), type_comment=None),
                                    m) for i, a in enumerate(m.args.args)]
        for node in binds:
            for sub in walk_nodes(node):
                gast.copy_location(sub, m)
        block = binds + m.body
        if branch is None:
            branch = block
            continue
        test = gast.Compare(left=_name(which), ops=[gast.Eq()], comparators=[
            gast.Constant(value=k, kind=None)])
        for sub in walk_nodes(test):
            gast.copy_location(sub, m)
        branch = [gast.copy_location(gast.If(test=test, body=block, orelse=branch), m)]
    args = gast.arguments(args=[_name(which, gast.Param())] + [
        _name(p, gast.Param()) for p in params], posonlyargs=[], vararg=None, kwonlyargs=[],
        kw_defaults=[], kwarg=None, defaults=[])
    new = gast.FunctionDef(name=merged, args=args, body=branch, decorator_list=[],
                           returns=None, type_comment=None, type_params=[])
    gast.copy_location(new, members[0])
    for sub in walk_nodes(new.args):
        gast.copy_location(sub, members[0])
    body[last] = new
    body[:] = [s for s in body if not any(s is m for m in members)]
