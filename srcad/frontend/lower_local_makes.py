"""A helper that makes functions, defined inside the function differentiated (issue 16).

``def f(x): def make(a): return lambda t: a * t`` ... ``fs = [make(w) for w in x]``: a
``make`` defined in the function's own body (at its top level, bound once, no decorator)
that reads none of the function's locals (only its own parameters and locals, globals and
builtins) computes what it would compute at module level. Before desugaring it is taken out
of the body and compiled on its own (:func:`.lower_calls._lift`, its lines mapped to the
user's file), the name becoming a constant of the code (``src.closure``), so every form closure
conversion and :mod:`.lower_made_lists` read for a module-level ``make`` holds for it (lists of
made functions, choices, calls). A ``make`` reading the function's locals stays where it is:
lifted when lowered (:meth:`.lower_calls.Calls.local_function`, its calls converted one by one).

Applied only to a def that itself defines a function (a def or lambda in its body): a plain
nested def keeps the lowering of nested defs.

Imports gast and :mod:`.lower_calls`.
"""

from __future__ import annotations

import builtins

import gast

from .lower_calls import _lift, enclosing_locals, nested_reads


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    candidates = [s for s in fdef.body if isinstance(s, gast.FunctionDef) and not
                  s.decorator_list and any(isinstance(n, (gast.FunctionDef, gast.Lambda))
                                           for b in s.body for n in gast.walk(b))]
    if not candidates:
        return
    bound = {}
    for node in gast.walk(fdef):
        if isinstance(node, gast.FunctionDef) and node is not fdef:
            bound[node.name] = bound.get(node.name, 0) + 1
        elif isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            bound.update((n, 2) for n in node.names)
    outer = enclosing_locals(fdef, defs=True)
    for make in candidates:
        args = make.args
        if args.vararg or args.kwarg or bound.get(make.name) != 1 or \
                make.name in src.closure or hasattr(builtins, make.name):
            continue
        own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        assigned, loaded, _ = nested_reads(make.body)
        loaded += [n.id for d in args.defaults + [k for k in args.kw_defaults if k]
                   for n in gast.walk(d) if isinstance(n, gast.Name)]
        if any(n in outer and n not in own and n not in assigned or n == make.name
               for n in loaded):
            continue  # it reads the function's locals (or itself): lifted when lowered
        fdef.body = [s for s in fdef.body if s is not make] or [gast.Pass()]
        src.closure[make.name] = _lift(make, make.name, [], src, make)
