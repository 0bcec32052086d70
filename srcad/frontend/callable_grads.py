"""``srcad.grad(obj)`` of a callable object the function builds: ``grad(lambda p: obj(p))``.

A derivative maker (``srcad.grad``, ``value_and_grad``, a Jacobian's, or a wrapper declaring
itself one) given, inside the function differentiated, a name bound to an object of a class of
the user's with a ``__call__`` (``obj = Inner(x * w[0]); g = srcad.grad(obj)``) differentiates
``obj.__call__`` with respect to its first parameter after ``self``. The record pass
(:mod:`.lower_records`) follows an object built from differentiated values field by field
through its attribute reads, method calls and calls, not into a derivative maker, so such a
``grad(obj)`` was refused. It is rewritten, before that pass, as the same maker of the lambda
calling the object with ``__call__``'s parameters (``grad(lambda p: obj(p), ...)``), which the
pass follows and the lowering differentiates as any lambda holding local values (the outer
derivative seeing through the inner one). Taken when the name is bound once in the function,
to a call of that class; ``__call__`` a plain function whose parameters after ``self`` are
positional without defaults; the maker given the object first. Otherwise left as written.

Imports gast, the standard library, :mod:`srcad.core` and :mod:`.built_records`.
"""

from __future__ import annotations

import inspect

import gast

from ..core import functions
from ..core.walk import walk_nodes
from .built_records import resolve_any


def lower(src):
    """Rewrite ``src.node``'s derivatives of callable objects in place, see above."""
    fdef = src.node
    calls = [n for n in walk_nodes(fdef) if isinstance(n, gast.Call) and n.args and isinstance(
        n.args[0], gast.Name)]
    if not calls:
        return
    bound = _bound_once(fdef)
    calls = [c for c in calls if c.args[0].id in bound]
    if not calls:
        return
    local = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name) and not isinstance(
        n.ctx, gast.Load)} | {a.id for a in fdef.args.posonlyargs + fdef.args.args
                              + fdef.args.kwonlyargs}
    for call in calls:
        name = call.args[0].id
        if not functions.is_derivative_maker(resolve_any(src, call.func, local)):
            continue
        cls = resolve_any(src, bound[name].func, local)
        method = inspect.getattr_static(cls, "__call__", None) if isinstance(cls, type) and (
            functions.user_class(cls)) else None
        if not inspect.isfunction(method):
            continue
        params = list(inspect.signature(method).parameters.values())[1:]
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty
               for p in params):
            continue
        names = [f"srcad_arg{i}" for i in range(len(params))]
        body = gast.Call(gast.Name(name, gast.Load(), None, None),
                         [gast.Name(n, gast.Load(), None, None) for n in names], [])
        made = gast.Lambda(gast.arguments([gast.Name(n, gast.Param(), None, None)
                                           for n in names], [], None, [], [], None, []), body)
        for part in walk_nodes(made):
            gast.copy_location(part, call.args[0])
        call.args[0] = made


def _bound_once(fdef):
    """name -> the call it is bound to, for the names of ``fdef`` bound once, by a plain
    assignment of a call, and never otherwise (no parameter, loop, ``with`` or walrus
    target, not bound in a nested function)."""
    counts, calls = {}, {}
    args = fdef.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            counts[a.id] = 2
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, gast.Call):
            calls[node.targets[0].id] = node.value
    return {n: c for n, c in calls.items() if counts.get(n) == 1}
