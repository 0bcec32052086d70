"""Tidy, dead code: a value nothing reads whose only way to fail is a broadcast of arrays
whose shapes are not known alike (``sum_2 = (Y * log_probs).sum()``, the discarded output
of a loss: ``ValueError`` where ``Y``'s shape does not broadcast with ``log_probs``'s) need
not be computed where a later statement of the function's top level broadcasts the same
arrays (the gradient's ``np.broadcast_to(dt, shape_of(Y, log_probs))``): where the value
raises, that one raises the same ``ValueError``. What runs between may act or raise first:
the derivative still raises where the function does, never returns.

:func:`covered_broadcasts` finds them; :mod:`.tidy_dead` drops them with the values nothing
reads that cannot fail.

Imports NumPy, :mod:`srcad.rules.raising` (what may raise), :mod:`.tidy_walk` (the walk).
"""

from __future__ import annotations

import ast

import numpy as np

from ..rules import raising
from .tidy_walk import _stores, _walk

#: (may be complex, certainly floats, certainly numbers) -> one class for every array (not
#: ints: a boolean array's ``-`` raises, raising._typed_out; not strings: ``o + 1`` raises)
_JOINT = {(c, f, n): raising.Alike("every array", c, f, n) for c in (False, True)
          for f in (False, True) for n in (False, True)}
#: the NumPy reductions and methods whose result is a number: what broadcasts inside them
#: is apart from what broadcasts outside
_REDUCERS = frozenset({"sum", "mean", "prod", "all", "any"})
#: places where a part of an expression is not always evaluated
_CONDITIONAL = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                ast.GeneratorExp)


class _Joint:
    """Facts that take every array to be of one class (what fails but by a broadcast)."""

    __slots__ = ("facts",)

    def __init__(self, facts):
        self.facts = facts

    def get(self, name, default=raising.OWN):
        fact = self.facts.get(name, default)
        return _JOINT[fact.complex, fact.floats, fact.numbers] if isinstance(
            fact, raising.Alike) else fact


def covered_broadcasts(body, loads, arrays, safe):
    """The ids of the statements of ``body`` (the function's top level) assigning a name no
    statement reads (``loads``) a value that may fail only by broadcasting arrays (``safe``,
    :func:`srcad.backend.tidy_dead._safe`, says it cannot fail but there, every array taken
    alike), each set of arrays broadcast together (by their shape classes, ``arrays``:
    :class:`srcad.analysis.raise_facts.Facts`) broadcast by a later top-level statement
    (``shape_of(a, b)``, ``a * b``) evaluated unconditionally, with no ``return`` between
    and none of the names it reads bound again before."""
    if not arrays:
        return set()
    joint, covered = _Joint(arrays), set()
    later = None  # per statement position: the sets of classes it broadcasts
    for i, stmt in enumerate(body):
        if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and stmt.targets[
                0].__class__ is ast.Name and not loads.get(stmt.targets[0].id)):
            continue
        if safe(stmt.value, (), arrays) or not safe(stmt.value, (), joint):
            continue
        groups = []
        if _roots(stmt.value, arrays, groups) is None or not groups:
            continue
        if later is None:
            later = [_broadcast_by(s, arrays) for s in body]
        done, read = [], {n.id for n in _walk(stmt.value) if n.__class__ is ast.Name}
        for s, found in zip(body[i + 1:], later[i + 1:]):
            if s.__class__ is ast.Return:
                break
            done.extend(found)
            if read.intersection(_stores(s)):
                break  # (a name it read bound again: what follows broadcasts another value)
        if all(any(g <= d for d in done) for g in groups):
            covered.add(id(stmt))
    return covered


def _roots(node, arrays, groups):
    """The shape classes whose broadcast is the shape of ``node``'s value (empty: a number or
    srcad's value), adding to ``groups`` each set of two or more classes an element-wise
    operation in it broadcasts together; None where that is not known."""
    cls = node.__class__
    if cls is ast.Constant:
        return frozenset()
    if cls is ast.Name:
        fact = arrays.get(node.id)
        return frozenset({fact.root}) if isinstance(fact, raising.Alike) else (
            frozenset() if fact in (raising.NUMBER, raising.FLOAT, raising.CNUMBER,
                                    raising.OWN) else None)
    if cls in (ast.BinOp, ast.UnaryOp, ast.Compare):
        parts = [node.left, node.right] if cls is ast.BinOp else [node.operand] if (
            cls is ast.UnaryOp) else [node.left] + node.comparators
        return _together([_roots(p, arrays, groups) for p in parts], groups)
    if cls is ast.Call and not node.keywords:
        func = node.func
        if func.__class__ is ast.Attribute and func.attr in _REDUCERS and not node.args:
            return None if _roots(func.value, arrays, groups) is None else frozenset()
        if func.__class__ is ast.Attribute and func.value.__class__ is ast.Name and (
                func.value.id == "np"):
            found = [_roots(a, arrays, groups) for a in node.args]
            if func.attr in _REDUCERS and len(found) == 1:
                return None if found[0] is None else frozenset()
            fn = getattr(np, func.attr, None)
            if isinstance(fn, np.ufunc) and fn.signature is None or fn in raising.SAME_SHAPE:
                return _together(found, groups)  # (np.ravel: another shape)
        if func.__class__ is ast.Name:  # (srcad's pure helpers: its own values)
            return None if any(_roots(a, arrays, groups) is None for a in node.args) else (
                frozenset())
    return None


def _together(found, groups):
    if any(f is None for f in found):
        return None
    union = frozenset().union(*found)
    if len(union) > 1:
        groups.append(union)
    return union


def _broadcast_by(stmt, arrays):
    """The sets of shape classes ``stmt`` certainly broadcasts together: a ``shape_of`` of
    names, an element-wise operation of two names, outside any conditional part."""
    found, skipped = [], set()
    spelled = getattr(arrays, "shape_of", None)  # (a user's name may take shape_of)
    if stmt.__class__ not in (ast.Assign, ast.Expr, ast.AugAssign):
        return found  # (a branch's, a loop's body may not run)
    for sub in _walk(stmt):
        if id(sub) in skipped or isinstance(sub, _CONDITIONAL):
            skipped.update(id(n) for n in ast.walk(sub))
            continue
        if sub.__class__ is ast.Call and sub.func.__class__ is ast.Name and (
                sub.func.id == spelled) and not sub.keywords:
            names = sub.args
        elif sub.__class__ is ast.BinOp:
            names = [sub.left, sub.right]
        else:
            continue
        facts = [arrays.get(n.id) if n.__class__ is ast.Name else None for n in names]
        if len(facts) > 1 and all(isinstance(f, raising.Alike) for f in facts):
            found.append(frozenset(f.root for f in facts))
    return found
