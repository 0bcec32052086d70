"""Clean-up passes on the SSA IR.

``common_subexpressions`` computes a repeated pure expression once.

``dead_code`` removes assignments and phis whose values are never read (the jump flags of
:mod:`srcad.frontend.desugar` that nothing tests, the unused loop variables, ...) and whose
computation has no effect and cannot raise (:func:`srcad.rules.raising.may_raise`: where the
function raises, its derivative raises; ``mean = t / n`` unused stays). After it, every
assigned name of the function is read somewhere, except by calls kept for their effects or
for what they may raise.

Imports: NumPy, :mod:`srcad.core` (the IR; which callees are user functions),
:mod:`srcad.runtime` (which calls are srcad's helpers) and :mod:`srcad.rules` (the registry
says which calls are pure, :mod:`~srcad.rules.raising` which may raise); no gast: it works on
the IR.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import functions, ir
from ..rules import raising, registry
from ..runtime import family_of


def dead_code(fn: ir.Function, keep_writes=False, analysis=None) -> ir.Function:
    """Mark what the result, the tests, the effects and what may raise need; sweep the rest.

    ``keep_writes``: keep every write into an array or list (``y[i] = v``, ``y += v``) even
    when the new value is not read, for :mod:`srcad.analysis.alias` to check what else it changes;
    the pipeline sweeps them after that check. ``analysis``: where the analysis has run, what
    it knows of the values (a :class:`srcad.analysis.raise_facts.Facts`: ``t / n`` of an
    array ``n`` cannot raise, of a name of unknown kind it may; ``a + b`` of arrays of shapes
    not known alike may raise)."""
    writes = set()
    if keep_writes:
        writes = {s.target for s in ir.walk(fn.body) if isinstance(s, ir.SetItem)}
        writes |= set(getattr(fn, "augmented", ()))
    writes |= _names([getattr(fn, "aux", None)])  # has_aux=True: what it returns beside
    while _sweep(fn.body, _live(fn.body, writes, analysis), analysis):
        pass
    return fn


def _names(atoms):
    return {v.name for a in atoms for v in ir.atoms_in(a)}


def _live(stmts, keep=(), analysis=None):
    sources = {}  # name -> names its value is computed from
    roots = set(keep)
    for stmt in ir.walk(stmts):
        if isinstance(stmt, ir.Assign):
            value = stmt.value
            reads = {v.name for v in value.operands()} if isinstance(value, ir.Prim) else _names(
                [value])
            if stmt.target is None or stmt.effect or not _droppable(value, analysis):
                roots |= reads
            if stmt.target is not None:
                sources.setdefault(stmt.target, set()).update(reads)
        elif isinstance(stmt, ir.SetItem):
            sources.setdefault(stmt.target, set()).update(
                {v.name for v in ir.reads_of(stmt)})
        elif isinstance(stmt, ir.If):
            roots |= _names([stmt.test])
            for phi in stmt.phis:
                sources.setdefault(phi.target, set()).update(_names(phi.sources))
        elif isinstance(stmt, ir.Loop):
            roots |= {v.name for v in ir.reads_of(stmt)} - _names(p.sources[0] for p in stmt.phis)
            roots |= {v.name for v in (stmt.iter.operands() if isinstance(stmt.iter, ir.Prim)
                                       else ir.atoms_in(stmt.iter))}  # range(n), n a phi's
            # entry too (n rebound in the body): the iterable is read whether the phi lives
            roots |= _names([stmt.test, stmt.exit])
            for phi in stmt.phis:
                sources.setdefault(phi.target, set()).update(_names(phi.sources))
        elif isinstance(stmt, (ir.Return, ir.Raise)):
            roots |= _names([stmt.value])
    return ir.closure(roots, sources)


def _sweep(stmts, used, analysis):
    changed = False
    kept = []
    for stmt in stmts:
        if isinstance(stmt, ir.Assign) and not stmt.effect and stmt.target not in used:
            if _droppable(stmt.value, analysis):
                changed = True
                continue
        if isinstance(stmt, ir.SetItem) and stmt.target not in used:
            changed = True
            continue
        if isinstance(stmt, (ir.If, ir.Loop)):
            before = len(stmt.phis)
            stmt.phis = [p for p in stmt.phis if p.target in used]
            changed |= len(stmt.phis) != before
            for block in ir.blocks_of(stmt):
                changed |= _sweep(block, used, analysis)
            if isinstance(stmt, ir.If) and not (stmt.body or stmt.orelse or stmt.phis):
                changed = True
                continue
        kept.append(stmt)
    stmts[:] = kept
    return changed


def _pure(value):
    """Whether dropping the computation of ``value`` is safe (no effect is lost)."""
    if not isinstance(value, ir.Prim):
        return True
    return registry.is_pure(value)


def _droppable(value, analysis):
    """Whether ``value``, unread, may go uncomputed: pure, and unable to raise for operands
    of the facts ``analysis`` knows (None: anything)."""
    if not _pure(value):
        return False
    if not isinstance(value, ir.Prim) or isinstance(value.fn, (ir.Attr, ir.Build, ir.BoolOp)):
        return True
    facts = [raising.Known(a.value) if isinstance(a, ir.Const) else analysis.get(
        a.name, raising.UNKNOWN) if isinstance(a, ir.Var) and analysis is not None
        else raising.UNKNOWN for a in list(value.args) + list(value.kwargs.values())]
    fn = value.fn
    if isinstance(fn, ir.Method):
        fn = ("method", fn.name)
    elif family_of(fn) == "runtime":
        fn = fn.__name__
    return not raising.may_raise(fn, facts)


# ---------------------------------------------------------------- common subexpressions

_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
               operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul}


def common_subexpressions(fn: ir.Function) -> ir.Function:
    """``t = x ** 2`` computed twice (the user wrote it twice) is computed once: the second
    name becomes a copy of the first, which the sweeps and tidy fold away. Only arithmetic,
    NumPy ufuncs and ``math`` functions of names and literals, and only in functions that
    change nothing in place (two names for one array would then differ from two arrays; an
    augmented assignment ``y += v`` or ``ys.sort()`` changes its object too)."""
    if not _effect_free(fn.body) or getattr(fn, "augmented", None):
        return fn  # y += v, ys.sort(): Python changes the object, and the merged name with it
    _cse_block(fn.body, {})
    return fn


def _cse_block(stmts, seen):
    for stmt in stmts:
        if isinstance(stmt, ir.Assign) and stmt.target is not None and isinstance(
            stmt.value, ir.Prim
        ):
            key = _cse_key(stmt.value)
            if key is not None:
                if key in seen:
                    stmt.value = ir.Var(seen[key])
                else:
                    seen[key] = stmt.target
        for block in ir.blocks_of(stmt):
            _cse_block(block, dict(seen))  # a value computed inside is not seen after it


def _cse_key(prim):
    fn = prim.fn
    if prim.kwargs or not (fn in _ARITHMETIC or isinstance(fn, np.ufunc)
                           or getattr(fn, "__module__", None) == "math"):
        return None
    key = [fn]
    for a in prim.args:
        if isinstance(a, ir.Var):
            key.append(("var", a.name))
        elif isinstance(a, ir.Const) and a.spelling:
            key.append(("name", a.spelling))  # a global, read when the code runs
        elif isinstance(a, ir.Const) and type(a.value) in (int, float, bool):
            key.append(("const", type(a.value), a.value))
        else:
            return None
    return tuple(key)  # functions and numbers: hashable


def _effect_free(stmts):
    for stmt in ir.walk(stmts):
        if isinstance(stmt, ir.Assign):
            if stmt.effect or stmt.target is None:
                return False
            value = stmt.value
            if isinstance(value, ir.Prim) and (
                isinstance(value.fn, ir.Method) or functions.is_user_function(value.fn)
                or not _pure(value)
            ):
                return False
        elif isinstance(stmt, ir.SetItem):
            return False
    return True
