"""Arithmetic on numbers computed once: ``t_5 = i + 1`` after ``t_2 = i + 1`` (the user wrote
``state[i + 1]`` and ``main[i + 1]``) becomes the copy ``t_5 = t_2``, which the sweeps and tidy
fold away. Numbers cannot change in place, so this holds in any function, also one that
changes arrays or lists in place (where the frontend's
:func:`srcad.frontend.optimise.common_subexpressions` merges nothing: two names for one array
would differ from two arrays there).

After it: in each block, no two of Python's arithmetic operators on the same operands whose
operands and result the analysis knows to be numbers (``SCALAR``) carrying no gradient (index
arithmetic: a differentiated value keeps its own name and gradient); a value computed inside a
branch or a loop is not reused after it (SSA: names are assigned once, so equal operands are
equal values wherever both are defined). Imports: ``srcad.core``, ``srcad.frontend.optimise``'s
table of operators.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import SCALAR

#: operators whose result on two numbers depends on nothing but the numbers
_PURE = frozenset((operator.add, operator.sub, operator.mul, operator.truediv,
                   operator.floordiv, operator.mod, operator.pow, operator.neg, operator.pos))


def merge(fn, analysis):
    """Merge repeated arithmetic on numbers in ``fn`` (changed in place; see the module)."""
    renamed = {}
    _block(fn.body, {}, analysis, renamed)
    if renamed:
        for stmt in ir.walk(fn.body):
            _rename(stmt, renamed)


def _block(stmts, seen, an, renamed):
    kept = []
    for stmt in stmts:
        if isinstance(stmt, ir.Assign) and stmt.target is not None and not stmt.effect and (
                isinstance(stmt.value, ir.Prim)):
            _rename(stmt, renamed)  # operands merged before this one: their first names
            key = _key(stmt.value, stmt.target, an)
            if key is not None and key in seen:
                renamed[stmt.target] = seen[key]  # dropped: its reads read the first name
                continue
            if key is not None:
                seen[key] = stmt.target
        for block in ir.blocks_of(stmt):
            _block(block, dict(seen), an, renamed)  # a value computed inside: not seen after
        kept.append(stmt)
    stmts[:] = kept


def _key(prim, target, an):
    if prim.kwargs or prim.fn not in _PURE or an.kinds.get(target) != SCALAR or (
            target in an.complex) or target in an.varied:
        return None  # (a differentiated value merged would add two gradients into one name,
        # ``dt += ...``, which a derivative of the code reads as a write in place)
    key = [prim.fn]
    for a in prim.args:
        if isinstance(a, ir.Var) and an.kinds.get(a.name) == SCALAR:
            key.append(("var", a.name))
        elif isinstance(a, ir.Const) and not a.spelling and type(a.value) in (int, float):
            key.append(("const", type(a.value), a.value))
        else:
            return None
    return tuple(key)


def _rename(stmt, renamed):
    """``stmt`` reading the first name of each merged one (its own level)."""
    if isinstance(stmt, ir.Assign):
        if isinstance(stmt.value, ir.Prim):
            stmt.value.args = [_atom(a, renamed) for a in stmt.value.args]
            stmt.value.kwargs = {k: _atom(a, renamed) for k, a in stmt.value.kwargs.items()}
        else:
            stmt.value = _atom(stmt.value, renamed)
    elif isinstance(stmt, ir.SetItem):
        stmt.obj = _atom(stmt.obj, renamed)
        stmt.index, stmt.value = _atom(stmt.index, renamed), _atom(stmt.value, renamed)
    elif isinstance(stmt, ir.If):
        stmt.test = _atom(stmt.test, renamed)
    elif isinstance(stmt, ir.Loop):
        if isinstance(stmt.iter, ir.Prim):
            stmt.iter.args = [_atom(a, renamed) for a in stmt.iter.args]
            stmt.iter.kwargs = {k: _atom(a, renamed) for k, a in stmt.iter.kwargs.items()}
        else:
            stmt.iter = _atom(stmt.iter, renamed)
        stmt.test, stmt.exit = _atom(stmt.test, renamed), _atom(stmt.exit, renamed)
    elif isinstance(stmt, (ir.Return, ir.Raise)):
        stmt.value = _atom(stmt.value, renamed)
    for phi in getattr(stmt, "phis", ()):
        phi.sources = [_atom(s, renamed) for s in phi.sources]


def _atom(atom, renamed):
    if isinstance(atom, ir.Var):
        return ir.Var(renamed[atom.name]) if atom.name in renamed else atom
    if isinstance(atom, ir.Slice):
        return ir.Slice(*(_atom(a, renamed) for a in (atom.lower, atom.upper, atom.step)))
    if isinstance(atom, ir.Index):
        return ir.Index(tuple(_atom(a, renamed) for a in atom.items))
    return atom
