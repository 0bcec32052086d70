"""Tidy, flags: ``if c: v = True else: v = False`` is ``v = c`` when ``v`` is read only
for its truth (the operand of ``not``, the test of an ``if``, a
``while`` or a conditional expression, or copied into a name read only so: a loop's early
return flag, ``returned = returned_1``, then ``if not returned:`` after the loop). The
desugared ``continue`` writes such a flag (``skip_1``) and then ``t_2 = not skip_1``: after
this, ``t_2 = not t_1``. The truth of ``c``
is taken where ``v`` is read instead of at the ``if``: ``c`` is a comparison srcad made and
stored once, so it is the same then, and an ambiguous truth (an array) still raises, at the
read. ``if c: v = False else: v = True`` is ``v = not c``; the arms may do more
(``if c: result_1 = x; v = True else: result_1 = r; v = False``), the flag's assignment
then stands before the ``if``. A loop's break flag, ``False`` at the top of every iteration,
is read as ``False`` there (:func:`_false_in_loops`): the forward sweep of a ``break`` is
then ``if t: break``.

Imports: :mod:`srcad.transform.nodes` (the comment node), :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast
import copy

from ..transform.nodes import Comment
from .tidy_walk import _blocks, _count_names, _walk


def flag_copies(fdef):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    changed = _false_in_loops(fdef)
    candidates = []
    for block, _ in _blocks(fdef):
        for stmt in block:
            chosen = _chosen_flag(stmt)
            if chosen is not None:
                candidates.append((block, stmt, *chosen))
    if not candidates:
        return changed
    loads = _count_names(fdef)[1]
    truth = _truth_reads(fdef)
    copied = _truth_copies(fdef, loads, truth)
    outer = _enclosing(fdef)
    for block, stmt, name, negated in candidates:
        if loads.get(name, 0) != truth.get(name, 0) + copied.get(
                name, 0) or not _tested_after(block, stmt, name, outer):
            continue
        test = stmt.test
        test_copy = copy.deepcopy(test)  # never one node in two places: a rewrite of one
        value = ast.UnaryOp(op=ast.Not(), operand=test_copy) if negated else test_copy
        flag = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value,
                          lineno=getattr(stmt, "lineno", 0))
        for arm in (stmt.body, stmt.orelse):
            arm[:] = [s for s in arm if not _sets(s, name)] or [ast.Pass()]
        if test.__class__ is not ast.Name:  # the test evaluated once, into the flag
            stmt.test = ast.Name(id=name, ctx=ast.Load())
            if negated:
                stmt.body, stmt.orelse = stmt.orelse, stmt.body
        k = next(k for k, s in enumerate(block) if s is stmt)
        block[k:k + 1] = [flag] + ([] if _empty(stmt) else [stmt])
        changed = True
    return changed


def _chosen_flag(stmt):
    """``(v, negated)`` when ``stmt`` is ``if c: ...; v = True else: ...; v = False`` (``c``
    reading no name the arms bind; the arms the other way round: negated), else ``None``.
    An ``if`` left with other work tests ``v`` then (``c`` evaluated once, as before)."""
    if stmt.__class__ is not ast.If or not stmt.orelse:
        return None
    found = []
    for arm in (stmt.body, stmt.orelse):
        flags = [(s.targets[0].id, s.value.value) for s in arm if s.__class__ is ast.Assign
                 and len(s.targets) == 1 and s.targets[0].__class__ is ast.Name
                 and s.value.__class__ is ast.Constant and type(s.value.value) is bool]
        found.append(dict(flags) if len(flags) == len({n for n, _ in flags}) else {})
    common = sorted(n for n in found[0] if n in found[1] and found[0][n] != found[1][n])
    if not common:  # (asked first: the arms' bindings, at every ``if`` nested in an arm,
        return None  # made this quadratic in the depth)
    # v named before its flag in an arm (an ``if`` nested in it sets v = False before the
    # arm's v = True: the second order's guards): v = c before the ``if`` would be changed
    # there, or read there as c
    common = [n for n in common if not any(_named_before(arm, n) for arm in (
        stmt.body, stmt.orelse))]
    if not common:
        return None
    reads = {n.id for n in _walk(stmt.test) if n.__class__ is ast.Name}
    if any(reads & _bound(s) for s in stmt.body + stmt.orelse):
        return None
    return common[0], not found[0][common[0]]


def _enclosing(fdef):
    """``id(block) -> (the block holding it, the statement holding it)`` for the blocks
    that are an ``if``'s arm (the end of a loop's body goes back to its top, not on)."""
    outer = {}
    for block, _ in _blocks(fdef):
        for s in block:
            if s.__class__ is ast.If:
                for arm in (s.body, s.orelse):
                    outer[id(arm)] = (block, s)
    return outer


def _tested_after(block, stmt, name, outer):
    """Whether a statement after ``stmt`` in ``block`` surely takes ``name``'s truth once
    ``stmt`` ran (``t_2 = not v``, ``if v:``, ``if not v:``, ``while v:``; no ``break``,
    ``continue``, ``return`` or ``raise`` before it, and nothing binding ``name``): then so
    is ``c``'s, where the ``if c`` took it, and an ambiguous truth (an array) still raises.
    The end of an ``if``'s arm goes on after that ``if`` (a ``break`` flag set in the arm
    a ``continue`` left, tested after the ``if``), when ``c`` is a comparison or a ``not``:
    a new value, whose truth nothing between changes (not a list a later ``append`` fills)."""
    fresh = stmt.test.__class__ is ast.Compare or (
        stmt.test.__class__ is ast.UnaryOp and stmt.test.op.__class__ is ast.Not)
    while True:
        found = _tested_in(block, stmt, name)
        if found is not None:
            return found
        if id(block) not in outer or not fresh:
            return False
        block, stmt = outer[id(block)]


def _tested_in(block, stmt, name):
    """:func:`_tested_after` in ``block`` alone: ``None`` when its end is reached."""
    k = next(k for k, s in enumerate(block) if s is stmt)
    for s in block[k + 1:]:
        test = s.value.operand if (
            s.__class__ is ast.Assign and s.value.__class__ is ast.UnaryOp
            and s.value.op.__class__ is ast.Not) else getattr(s, "test", None) if (
            s.__class__ in (ast.If, ast.While)) else None
        if test.__class__ is ast.UnaryOp and test.op.__class__ is ast.Not:
            test = test.operand  # if not v:
        if test.__class__ is ast.Name and test.id == name:
            return True
        if name in _bound(s) or any(n.__class__ in _LEAVES for n in _walk(s)):
            return False
    return None


_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Raise)


def _sets(stmt, name):
    return (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and stmt.targets[0].id == name)


def _bound(stmt):
    return {n.id for n in _walk(stmt) if n.__class__ is ast.Name
            and n.ctx.__class__ is ast.Store}


def _named_before(arm, name):
    """Whether a statement of ``arm`` before its ``name = True`` (or ``False``) names
    ``name`` (binds or reads it, nested statements too)."""
    for s in arm:
        if _sets(s, name) and s.value.__class__ is ast.Constant:
            return False
        if any(n.__class__ is ast.Name and n.id == name for n in _walk(s)):
            return True
    return False


def _empty(stmt):
    return all(s.__class__ in (ast.Pass, Comment) for s in stmt.body + stmt.orelse)


def _false_in_loops(fdef):
    """A loop's break flag is ``False`` wherever its body reads it before setting it: ``f =
    False`` before the loop (in the loop's block) and ``f = g`` in the body, then ``if g:
    break`` with ``g`` not bound between, are ``f``'s only assignments; an iteration that
    goes on leaves ``f`` as it found it, ``False``. Those reads become ``False`` (a desugared
    ``break``'s ``else: broke_1 = broke``), and :func:`flag_copies` then takes ``broke_1``
    as the test's copy."""
    stores = _count_names(fdef)[0]
    changed = False
    for block, _ in _blocks(fdef):
        falses = {}
        for stmt in block:
            if (_sets(stmt, getattr(getattr(stmt, "targets", [None])[0], "id", None))
                    and stmt.value.__class__ is ast.Constant and stmt.value.value is False):
                falses[stmt.targets[0].id] = stmt
            elif stmt.__class__ in (ast.For, ast.While) and not stmt.orelse:
                for name in list(falses):
                    if stores.get(name) == 2 and _reset_reads(stmt.body, name):
                        changed = True
    return changed


def _reset_reads(body, name):
    """Replace ``name``'s reads before its ``name = g; ...; if g: break`` in ``body`` with
    ``False``; whether any was replaced."""
    at = next((k for k, s in enumerate(body) if _sets(s, name)
               and s.value.__class__ is ast.Name), None)
    if at is None:
        return False
    g = body[at].value.id
    for s in body[at + 1:]:
        if (s.__class__ is ast.If and s.test.__class__ is ast.Name and s.test.id == g
                and not s.orelse and [b.__class__ for b in s.body] == [ast.Break]):
            break
        if g in _bound(s) or name in _bound(s) or s.__class__ is not ast.Assign:
            return False
    else:
        return False
    if any(name in {n.id for n in _walk(s) if n.__class__ is ast.Name} for s in body[at + 1:]):
        return False
    replaced = False
    for s in body[:at]:
        for node in _walk(s):
            for field, value in ast.iter_fields(node):
                if value.__class__ is ast.Name and value.id == name \
                        and value.ctx.__class__ is ast.Load:
                    setattr(node, field, ast.Constant(value=False))
                    replaced = True
    return replaced


def _truth_copies(fdef, loads, truth):
    """How many times each name ``v`` is copied, ``w = v``, into a name ``w`` read only for
    its truth (a loop's ``returned = returned_1``, ``if not returned:`` after the loop): such
    a copy reads ``v`` for its truth too."""
    counts = {}
    for node in _walk(fdef):
        if node.__class__ is ast.Assign and len(node.targets) == 1 and (
                node.targets[0].__class__ is ast.Name and node.value.__class__ is ast.Name):
            w = node.targets[0].id
            if loads.get(w, 0) == truth.get(w, 0):
                counts[node.value.id] = counts.get(node.value.id, 0) + 1
    return counts


def _truth_reads(fdef):
    """How many times each name is read only for its truth."""
    counts = {}
    for node in _walk(fdef):
        if node.__class__ is ast.UnaryOp and node.op.__class__ is ast.Not:
            tested = node.operand
        elif node.__class__ in (ast.If, ast.While, ast.IfExp):
            tested = node.test
        else:
            continue
        if tested.__class__ is ast.Name:
            counts[tested.id] = counts.get(tested.id, 0) + 1
    return counts
