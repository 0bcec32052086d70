"""The front end's passes in order: a function's source to checked SSA (:func:`to_ssa`),
each function's lowered form kept (:data:`LOWERED`).

    source.read      read and parse the function (gast), keep file and line numbers
    (lowered early)  local imports, ``match``, frozen distributions, ``nonlocal``
    validate         reject unsupported constructs with a precise error
    rewrites         ``xp.sum(...)``, ``p.x``, ``next(it)``, ``[make(w) for ...]``
    desugar          jumps -> flags, augmented assignment -> plain assignment
    lower            flatten to one operation per statement, SSA names, resolve callees
    optimise         common subexpressions, dead-code elimination on the SSA form
    truths           an ``if`` on a list that ``append``/``pop`` change: its truth kept
    ir.check         assert the SSA invariants

Imports ``gast``, ``srcad.analysis.truths``, ``srcad.backend.emit`` (the helpers' names),
``srcad.core``, ``srcad.frontend`` and its neighbour :mod:`.switches`.
"""

from __future__ import annotations

import ast

import gast

from ..analysis import truths
from ..backend import emit
from ..core import env, ir
from ..core.naming import Namer
from ..core.walk import walk_nodes
from ..frontend import frozen_dists, local_imports, matches, nonlocals, optimise, rewrites, source
from ..frontend.desugar import Desugar
from ..frontend.lower import Lowerer
from ..frontend.lower_callees import refuse_unhashable
from ..frontend.lowered import Lowered, facts_of
from ..frontend.validate import validate
from . import switches
from .switches import debug, serialised


@serialised
def read(func):
    """Read and parse ``func`` (done when a gradient is made, to fail early)."""
    return source.read(func)


#: each function's lowered form, kept per (function, arity, fixed): see srcad.frontend.lowered
LOWERED = Lowered()


@serialised
def to_ssa(func, parsed=None, arity=None, fixed=None):
    """Parse ``func`` (or take ``parsed``, a fresh :func:`read` of it: the tree is changed)
    and lower it to checked SSA; ``fixed``: parameters whose class the specialisation knows
    (see :func:`srcad.core.functions.specialised`). Returns (ir.Function, Namer), a copy kept
    while what it read is unchanged (:data:`LOWERED`; not of a tree srcad.pytrees rewrote)."""
    key = None if getattr(parsed, "records", None) else LOWERED.key(func, arity, fixed)
    known = LOWERED.get(key, func)
    if known is not None:
        return known
    facts = facts_of(func)
    with env.collecting() as reads:
        fn, namer = _lower(func, parsed, arity, fixed)
    LOWERED.put(key, func, fn, namer, reads.values(), facts)
    return fn, namer


def _lower(func, parsed, arity, fixed):
    src = parsed or source.read(func)
    local_imports.lower(src)  # import numpy as np in the body: a constant np
    matches.lower(src)  # match mode: case "a": ...: if/elif on the subject (frontend.matches)
    frozen_dists.lower(src)  # norm(mu, s).logpdf(x): norm.logpdf(x, mu, s)
    nonlocals.lower(src)  # def add(v): nonlocal total ...: total = add(total, v)
    validate(src)
    rewrites.rewrite(src)  # xp.sum(...), p.x, next(it), [make(w) for ...]: frontend.rewrites
    names = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)}
    namer = Namer(names)
    namer.user_names = set(names)
    namer.free = _free_names(src.node)
    for helper in emit.HELPER_OBJECTS:  # generated temporaries never take a helper's name
        namer.reserve(helper)
    desugar = Desugar(namer)
    fdef = desugar.function(src.node)
    if switches.DEBUG:
        debug("desugar", ast.unparse(gast.gast_to_ast(fdef)))
    fn = Lowerer(src, namer, desugar.flags, fixed).function(fdef, arity)
    refuse_unhashable(fn, src)
    optimise.common_subexpressions(fn)
    optimise.dead_code(fn, keep_writes=True)
    truths.keep_truths(fn, namer)
    ir.check(fn)
    debug("lower (SSA)", ir.to_source(fn))
    return fn, namer


_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)


def _free_names(fdef):
    """Names the function reads that are not its own variables (globals, builtins, closure
    values): a generated variable must never take one of them bare. A comprehension's
    variable is its own (Python scopes it to the comprehension), but srcad writes the loop
    out in the function: a global of that name read elsewhere is free too."""
    args = fdef.args
    own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    own |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    outside, inside, targets = set(), set(), set()

    def visit(node, in_comp):
        if isinstance(node, _COMPREHENSIONS):
            for sub in walk_nodes(node):
                if isinstance(sub, gast.Name):
                    (inside if isinstance(sub.ctx, gast.Load) else targets).add(sub.id)
            return
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):  # a nested function: its
            if isinstance(node, gast.FunctionDef):  # variables are its own, its name ours
                own.add(node.name)
            outside.update(sub.id for sub in walk_nodes(node) if isinstance(sub, gast.Name)
                           and isinstance(sub.ctx, gast.Load))
            return
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                outside.add(node.id)
            elif not in_comp:
                own.add(node.id)
        for child in gast.iter_child_nodes(node):
            visit(child, in_comp)

    for stmt in fdef.body:
        visit(stmt, False)
    return (outside - own) | (inside - own - targets)
