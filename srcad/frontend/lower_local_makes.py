"""A helper that makes functions, defined inside the function differentiated (issue 16).

``def f(x): def make(a): return lambda t: a * t`` ... ``fs = [make(w) for w in x]``: a
``make`` defined in the function's own body (at its top level, bound once, no decorator)
that reads none of the function's locals (only its own parameters and locals, globals and
builtins) computes what it would compute at module level. Before desugaring it is taken out
of the body and compiled on its own (:func:`.lower_calls._lift`, its lines mapped to the
user's file), the name becoming a constant of the code (``src.closure``), so every form closure
conversion and :mod:`.lower_made_lists` read for a module-level ``make`` holds for it (lists of
made functions, choices, calls). One reading locals that each hold one value (parameters never
rebound, names bound once by a statement of the function's own body, not in a loop), and only
called, is taken out with them as its first parameters (``make(a)`` -> ``srcad_local_make(s,
a)``: what the functions it makes read of ``s`` is the one value ``s`` has). Any other ``make``
stays where it is: lifted when lowered (:meth:`.lower_calls.Calls.local_function`, its calls
converted one by one).

Applied only to a def that itself defines a function (a def or lambda in its body): a plain
nested def keeps the lowering of nested defs.

Imports gast and :mod:`.lower_calls`.
"""

from __future__ import annotations

import builtins

import gast

from ..core.walk import walk_nodes
from .lower_calls import _lift, enclosing_locals, nested_reads


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    candidates = [s for s in fdef.body if isinstance(s, gast.FunctionDef) and not
                  s.decorator_list and any(isinstance(n, (gast.FunctionDef, gast.Lambda))
                                           for b in s.body for n in walk_nodes(b))]
    if not candidates:
        return
    bound = {}
    for node in walk_nodes(fdef):
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
                   for n in walk_nodes(d) if isinstance(n, gast.Name)]
        reads = [n for n in dict.fromkeys(loaded) if n in outer and n not in own and
                 n not in assigned]
        if make.name in reads or not all(_fixed(fdef, n, bound) for n in reads):
            continue  # itself, or a local bound more than once: lifted when lowered
        calls = [n for n in walk_nodes(fdef) if isinstance(n, gast.Call) and isinstance(
            n.func, gast.Name) and n.func.id == make.name]
        if reads and sum(isinstance(n, gast.Name) and n.id == make.name and isinstance(
                n.ctx, gast.Load) for n in walk_nodes(fdef)) != len(calls):
            continue  # used other than by calls: the values it reads could not be passed
        fdef.body = [s for s in fdef.body if s is not make] or [gast.Pass()]
        lifted = _lift(make, make.name, reads, src, make)
        if not reads:
            src.closure[make.name] = lifted
            continue
        name = f"srcad_local_{make.name}"
        src.closure[name] = lifted
        for call in calls:  # make(a) -> srcad_local_make(s, a): the values it reads first
            call.func.id = name
            call.args = [gast.copy_location(gast.Name(id=n, ctx=gast.Load(), annotation=None,
                                                      type_comment=None), call)
                         for n in reads] + call.args


def _fixed(fdef, name, bound):
    """Whether ``name`` holds one value wherever a function ``make`` makes may read it: a
    parameter of ``fdef`` never rebound, or bound once, by an assignment among its own
    statements (not in a loop: each iteration would bind it again)."""
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    if name in params:
        return name not in bound
    return bound.get(name) == 1 and any(
        isinstance(s, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name
                                           for t in s.targets) for s in fdef.body)
