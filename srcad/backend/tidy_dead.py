"""Tidy, dead code: values nothing reads, when computing them cannot fail or act
(:func:`_safe`: :func:`srcad.rules.raising.may_raise`, the predicate the SSA's dead-code pass
uses, of what the literals and the analysis' facts of names tell), or can fail only where a
later statement does, with nothing between that acts (a discarded mean ``total / n``
beside the gradient's ``1.0 / n``); and names read only by one another's assignments (a
loop's ``s_1 = s``, ``s_1 = s_1 + t``, ``s = s_1`` in a function returning gradients only),
dead together.

Imports: NumPy, :mod:`srcad.rules.raising` (what may raise), :mod:`srcad.transform.nodes`
(the comment node), :mod:`.tidy_bounds` (item reads in range), :mod:`.tidy_broadcasts`,
:mod:`.tidy_values`, :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..rules import raising
from ..transform.nodes import Comment
from .tidy_bounds import idle_tests, in_bounds, item_fact, mark_in_bounds
from .tidy_broadcasts import covered_broadcasts
from .tidy_values import _assigns_only_name, _binds_names, _is_number
from .tidy_walk import _blocks, _header, _loads, _nodes, _stores, _walk, counts_changed

_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
              ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.USub: operator.neg,
              ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Eq: operator.eq,
              ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
              ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
              ast.IsNot: operator.is_not}


def _fact(node, arrays):
    """What is known of an operand: a number literal's value, a name's fact in ``arrays``
    (:class:`srcad.analysis.raise_facts.Facts`: the forward sweep's names are the SSA's; a
    name the analysis does not hold is srcad's own; without facts every name is), else
    nothing; of an operation, what :func:`srcad.rules.raising.result` says of its result."""
    if _is_number(node):
        return raising.Known(-node.operand.value if isinstance(node, ast.UnaryOp)
                             else node.value)
    cls = node.__class__
    if cls is ast.Name:
        return arrays.get(node.id) if arrays else raising.OWN
    if cls is ast.BinOp:  # (the parts of an expression: _safe asks of each)
        return raising.result(_OPERATORS.get(type(node.op)), [_fact(node.left, arrays), _fact(
            node.right, arrays)])
    if cls is ast.UnaryOp:
        return raising.result(_OPERATORS.get(type(node.op)), [_fact(node.operand, arrays)])
    if cls is ast.Compare and len(node.ops) == 1:
        return raising.result(_OPERATORS.get(type(node.ops[0])), [_fact(node.left, arrays), _fact(
            node.comparators[0], arrays)])
    if cls is ast.Subscript and in_bounds(node):  # (.tidy_bounds)
        return item_fact(node, arrays)
    if cls is ast.Call:
        fn = _called(node)
        facts = [_fact(a, arrays) for a in node.args]
        return raising.OWN if isinstance(fn, str) else raising.result(fn, (
            [_fact(node.func.value, arrays)] if isinstance(fn, tuple) else []) + facts)
    return raising.UNKNOWN


def _safe(node, divisors=(), arrays=()):
    """Whether evaluating ``node`` cannot fail or act (:func:`srcad.rules.raising.may_raise`
    of each operation, its operands known by their literals and ``arrays``, the facts of
    names: :func:`_fact`); with ``divisors``, but for dividing by those names. ``a.sum()`` is of an
    array (srcad writes it for ``np.sum(a)`` of one)."""
    for sub in _walk(node):
        if isinstance(sub, ast.BinOp) and not (isinstance(sub.op, ast.Div) and isinstance(
                sub.right, ast.Name) and sub.right.id in divisors):
            fn = _OPERATORS.get(type(sub.op))
            facts = [_fact(sub.left, arrays), _fact(sub.right, arrays)]
        elif isinstance(sub, ast.UnaryOp):
            fn, facts = _OPERATORS.get(type(sub.op)), [_fact(sub.operand, arrays)]
        elif isinstance(sub, ast.Compare):
            facts = [_fact(o, arrays) for o in [sub.left] + sub.comparators]
            if any(raising.may_raise(_OPERATORS.get(type(op)), facts[k:k + 2])
                   for k, op in enumerate(sub.ops)):
                return False
            continue
        elif isinstance(sub, ast.Call):
            fn, facts = _called(sub), [_fact(a, arrays) for a in sub.args + sub.keywords]
            if isinstance(fn, tuple):  # (srcad writes a.sum() of arrays: of numbers unless known)
                own = _fact(sub.func.value, arrays)
                facts = [own if isinstance(own, raising.Alike) else raising.ARRAY] + facts
        elif isinstance(sub, (ast.Subscript, ast.Await, ast.Yield, ast.NamedExpr)):
            if not in_bounds(sub):  # (.tidy_bounds: x[i] in range)
                return False
            continue
        else:
            continue
        if raising.may_raise(fn, facts):
            return False
    return True


def _called(call):
    """What :func:`srcad.rules.raising.may_raise` takes for the function ``call`` calls: a
    helper's name, ``("method", "sum")``, a NumPy function, else None (anything)."""
    func = call.func
    if func.__class__ is ast.Name:
        return func.id
    if func.__class__ is ast.Attribute and func.attr == "sum" and not call.args:
        return ("method", "sum")
    if func.__class__ is ast.Attribute and func.value.__class__ is ast.Name and (
            func.value.id == "np"):
        return getattr(np, func.attr, None)
    return None


def _dead_code(fdef, arrays=()):
    """Drop assignments nothing reads whose evaluation cannot fail or act (the forward values
    only the discarded output needed, in a function that returns gradients only), or whose
    only way to fail a later statement fails the same way (:func:`_covered_divisions`)."""
    changed = _dead_counters(fdef)
    if changed:
        counts_changed(fdef)
    return _dead_values(fdef, arrays) or changed


def _dead_counters(fdef):
    """A counter read only by its own steps (``n_iter = 0``, ``n_iter += 1``: a loop's count)
    and by emptied loops (``for _ in range(n_iter): pass``, a backward loop whose body was
    all tidied away) goes, with those loops: every binding of it an int, ``n = 0`` or ``n +=
    1`` (an int: nothing else holds the object, ``range`` of it cannot fail, the loop does
    nothing)."""
    steps, counts, names, idle, targets = {}, {}, {}, {}, {}
    for node in _nodes(fdef):  # (counts: the list walk, no generator)
        cls = node.__class__
        if cls is ast.Name:
            names[node.id] = names.get(node.id, 0) + 1
        elif cls is ast.AugAssign and node.target.__class__ is ast.Name and _int(node.value):
            steps[node.target.id] = steps.get(node.target.id, 0) + 1
        elif cls is ast.Assign and _assigns_only_name(node) and _int(node.value):
            counts[node.targets[0].id] = counts.get(node.targets[0].id, 0) + 1
        elif cls is ast.For and _idle_count(node):
            n = node.iter.args[0].id
            idle[n] = idle.get(n, 0) + 1
            targets[node.target.id] = targets.get(node.target.id, 0) + 1
    params = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs}
    # (each step, each ``n = 0`` and each idle loop holds the name once; any other place
    # reads or binds it)
    dead = {n for n, k in steps.items() if names.get(n) == k + counts.get(n, 0) + idle.get(
        n, 0) and n not in params}
    if not dead or any(names.get(t) != k for t, k in targets.items()):
        return False  # (a loop's variable read elsewhere keeps its last value: left alone)
    for block, _ in list(_blocks(fdef)):
        kept = [s for s in block if not (
            s.__class__ is ast.AugAssign and s.target.__class__ is ast.Name
            and s.target.id in dead or _assigns_only_name(s) and s.targets[0].id in dead
            or s.__class__ is ast.For and _idle_count(s) and s.iter.args[0].id in dead)]
        if len(kept) != len(block):
            block[:] = kept or [ast.Pass()]
    return True


def _int(node):
    return node.__class__ is ast.Constant and type(node.value) is int


def _idle_count(loop):
    """``for _ in range(n): pass`` (comments aside), ``n`` a name."""
    it = loop.iter
    return (not loop.orelse and loop.target.__class__ is ast.Name
            and it.__class__ is ast.Call and it.func.__class__ is ast.Name
            and it.func.id == "range" and len(it.args) == 1 and not it.keywords
            and it.args[0].__class__ is ast.Name
            and all(s.__class__ in (ast.Pass, Comment) for s in loop.body))


def _dead_values(fdef, arrays):
    mark_in_bounds(fdef, arrays)
    idle = idle_tests(fdef, arrays, _safe, _fact)
    loads = _loads(fdef)
    dead, readers = _self_updates_only(fdef, loads)
    covered = _covered_divisions(fdef, loads, arrays) | covered_broadcasts(
        fdef.body, loads, arrays, _safe)
    for block, _ in _blocks(fdef):  # all of a name's assignments go, or none
        for stmt in block:
            if _assigns_only_name(stmt) and stmt.targets[0].id in dead and not _safe(
                stmt.value, (), arrays
            ) and id(stmt) not in covered and not getattr(stmt, "srcad_again", False):
                dead.discard(stmt.targets[0].id)
            elif not _assigns_only_name(stmt) and not isinstance(stmt, ast.Expr):
                dead -= set(_stores(stmt) if not isinstance(stmt, (ast.If, ast.For,
                                                                    ast.While)) else ())
    dead = _closed(dead, readers)  # a name kept keeps the names it reads
    loads = dict(loads)  # counted down below as statements go
    changed, dropped = False, True
    while dropped:  # a dropped statement's reads may leave another value unread: go again
        dropped = False
        for block, _ in list(_blocks(fdef)):
            kept = []
            for stmt in block:
                if (_assigns_only_name(stmt) and (not loads.get(stmt.targets[0].id)
                                                  or stmt.targets[0].id in dead)
                        and (_safe(stmt.value, (), arrays) or id(stmt) in covered
                             or getattr(stmt, "srcad_again", False))):  # (.reads_again)
                    for name, n in _loads(stmt.value).items():
                        loads[name] -= n
                    dropped = True
                else:
                    kept.append(stmt)
            if len(kept) != len(block):
                block[:] = kept or [ast.Pass()]
        changed |= dropped
    return changed or idle


def _covered_divisions(fdef, loads, arrays=()):
    """The ids of the function's top-level assignments of an unread name whose value could
    fail only by dividing by a name ``d`` (``y = -total / count``, the discarded mean of a
    loss) where a later top-level statement divides a number literal by the same ``d``
    (the gradient's ``dt = -(1.0 / count)``) and could fail only there, and every statement
    between binds names to values that cannot fail or act but by dividing by ``d``: wherever
    the first raises ``ZeroDivisionError`` (``d`` is a Python zero), that one raises it, with
    nothing done between that the first would not have done, so the value need not be
    computed, nor the loop's ``total`` that only it reads. A call other than srcad's pure
    helpers and NumPy's (an ``append``, a user's function), an item written, ``x += g``, a
    branch, a loop, a ``return`` or a ``raise`` between: the value stays."""
    body = fdef.body
    covered = set()
    for i, stmt in enumerate(body):
        if not (_assigns_only_name(stmt) and not loads.get(stmt.targets[0].id)):
            continue
        divisors = set()
        for sub in _walk(stmt.value):
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div) and isinstance(
                    sub.right, ast.Name):
                divisors.add(sub.right.id)
        if not divisors or not _safe(stmt.value, divisors, arrays):
            continue
        allowed = frozenset(divisors)
        for later in body[i + 1:]:
            if later.__class__ is Comment:
                continue
            if not (_binds_names(later) and later.__class__ is ast.Assign and _safe(
                    later.value, allowed, arrays)) or divisors.intersection(_stores(later)):
                break  # it may act or fail first, or the divisor is rebound
            divisors -= _literal_divisors(later.value)
            if not divisors:
                covered.add(id(stmt))
                break
    return covered


def _literal_divisors(node):
    """The names ``d`` of ``c / d`` (``c`` a number literal) that evaluating ``node`` always
    evaluates: through arithmetic and signs only, not the arms of ``a if t else b``."""
    if isinstance(node, ast.UnaryOp):
        return _literal_divisors(node.operand)
    if not isinstance(node, ast.BinOp):
        return set()
    found = _literal_divisors(node.left) | _literal_divisors(node.right)
    if isinstance(node.op, ast.Div) and _is_number(node.left) and isinstance(
            node.right, ast.Name):
        found.add(node.right.id)
    return found


def _self_updates_only(fdef, loads):
    """Names read only to compute themselves or one another (``total = total + t``; a loop's
    ``s_1 = s``, ``s_1 = s_1 + t``, ``s = s_1``, nothing else reading ``s`` or ``s_1``):
    every assignment of them is dead. Returns them and, for each name read, the names
    assigned from it (``None`` for a read by anything else)."""
    readers = {}
    for block, _ in _blocks(fdef):
        for stmt in block:
            if isinstance(stmt, (ast.If, ast.For, ast.While)):
                for name in _loads(_header(stmt)):
                    readers.setdefault(name, set()).add(None)
                continue
            target = stmt.targets[0].id if _assigns_only_name(stmt) else None
            for name in _loads(stmt.value if target else stmt):
                readers.setdefault(name, set()).add(target)
    return _closed({name for name, targets in readers.items() if None not in targets},
                   readers), readers


def _closed(dead, readers):
    """The largest part of ``dead`` whose names are read only by assignments to its names."""
    dead = set(dead)
    shrunk = True
    while shrunk:
        shrunk = False
        for name in list(dead):
            if not readers.get(name, set()) <= dead:
                dead.discard(name)
                shrunk = True
    return dead
