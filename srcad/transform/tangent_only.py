"""Forward mode for a Jacobian of ``grad``'s code (a Hessian): the tangent alone.

A Hessian of a function of a container (``jacfwd(grad(f))``) runs the forward mode of
``grad``'s code once per number of the argument and reads the tangents only; the value,
the gradient, is computed beside each tangent and dropped. :class:`TangentOnly` is the
forward sweep whose code returns ``None`` for the value when the value is a gradient in
its parameter's structure, ``like(g, p)`` with ``p`` a parameter (what ``grad``'s code of
a container returns): the tidy pass then drops what only the value needed (never a
computation that may fail: ``math.log`` of a negative number still raises). The tangent
is returned as the sweep computes it, ``like(dg, p)``, already in ``p``'s structure (the
general code's ``like(dy, y)`` reads ``y``: the value again). Any other result (a number,
a value of another kind, a complex one) is returned as the general sweep's: the caller
(:mod:`srcad.tree_jacobians`) tests each call's tangent as it tests the general code's.
:class:`NumbersOnly` also returns ``None`` for a number or a tuple of numbers by the kinds
(the Hessian and ``jacfwd`` of numbers: :mod:`srcad.number_columns`), the tuple's tangent
a tuple display of its items' tangents (no ``like(dresult, result)``).

Imports ``srcad.core``, ``srcad.runtime`` and :mod:`.forward`.
"""

from __future__ import annotations

import ast
import collections
import operator

from ..analysis import raise_facts
from ..core import ir
from ..core.kinds import ANY, SCALAR, DictItems, SeqItems
from ..rules import raising
from ..runtime import helpers as runtime
from ..runtime import items
from . import nodes
from .forward import Forward

#: the operations on numbers :func:`cannot_fail` asks :func:`srcad.rules.raising.may_raise`
_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.neg, operator.pos)


class TangentOnly(Forward):
    """:class:`.forward.Forward`, its code returning ``(None, tangent)`` where the value is
    ``like(g, p)`` of a parameter ``p``, real; the gradient's dict or list then built for
    the value alone, and what only it read, dropped (:func:`drop_unread`)."""

    numbers = False  # (NumbersOnly: a number or a tuple of numbers out too)

    def run(self):
        body = self.fn.body
        ret = body[-1].value if body and isinstance(body[-1], ir.Return) else None
        items = numbers_out(self.fn, self.an, ret) if self.numbers else None
        if items is not None:  # a tuple of numbers (the gradient of numbers): its tangents'
            droppable, _ = cannot_fail(self.fn, self.an)  # tuple, the value's dropped
            code, result, _ = super().run()
            tangent = nodes.tuple_([self.tangent_or_zero(a) for a in items])
            droppable.add(self.tangent_of(result) or result.name)  # (its list of tangents)
            return drop_unread(code, droppable, tangent), ir.Const(None), tangent
        if self.numbers and isinstance(ret, ir.Var) and self.an.kind(ret) == SCALAR and not (
                self.an.is_complex(ret)):  # a number (jacfwd's passes): its tangent alone
            droppable, _ = cannot_fail(self.fn, self.an)
            code, result, tangent = super().run()
            return drop_unread(code, droppable, tangent), ir.Const(None), tangent
        if not gradient_like_param(self.fn, ret) or self.an.is_complex(ret):
            return super().run()
        droppable, numbers = cannot_fail(self.fn, self.an)
        for n in numbers:  # (their tangents added with +, not srcad's add of any two values)
            if self.an.kinds.get(n, ANY) == ANY:
                self.an.kinds[n] = SCALAR
        code, result, tangent = super().run()
        return drop_unread(code, droppable, tangent), ir.Const(None), tangent


class NumbersOnly(TangentOnly):
    """:class:`TangentOnly`, and ``None`` for the value where it is a number or a tuple
    display of numbers by the kinds (``SCALAR``, real), its tangent (a tuple of its items'
    tangents) returned alone: the passes of a Jacobian of numbers
    (:mod:`srcad.number_columns`, which tests each call's tangents)."""

    numbers = True


def cannot_fail(fn, an):
    """``(names, numbers)``: the names of ``fn``'s top block whose statement cannot fail or
    act, and those of them certainly real numbers (an item of such a gradient, a sum of
    them; the analysis had no kind for an item of a dict the code made). The gradient of
    a parameter's container of numbers built for the value (``items_at(p, keys, numbers)``
    over every key of ``p`` once, its items written with numbers at those keys, read at
    them, and ``like`` of it and ``p``), tuples and lists built, and arithmetic that
    :func:`srcad.rules.raising.may_raise` says never raises on numbers (``+``, ``-``,
    ``*``: not a division, a power, nor a ``math`` call: those stay, and what they read),
    and items of such a parameter read at its keys."""
    facts = raise_facts.Facts(fn, an)
    numbers, chains, tuples, out = set(), {}, {}, set()

    def fact(atom):
        if isinstance(atom, ir.Const):
            return raising.Known(atom.value)
        return raising.NUMBER if atom.name in numbers else facts.get(atom.name, raising.UNKNOWN)

    def number(atom):
        return fact(atom) in (raising.NUMBER, raising.FLOAT, raising.INT) or isinstance(
            atom, ir.Const) and type(atom.value) in (int, float)

    for stmt in fn.body:
        if isinstance(stmt, ir.SetItem):
            keys = chains.get(stmt.obj.name)
            if keys is not None and isinstance(stmt.index, ir.Const) and (
                    stmt.index.value in keys) and number(stmt.value):
                chains[stmt.target] = keys
                out.add(stmt.target)
            continue
        if not isinstance(stmt, ir.Assign) or stmt.target is None or stmt.effect or not (
                isinstance(stmt.value, ir.Prim)) or stmt.value.kwargs:
            continue
        target, value = stmt.target, stmt.value
        f, args = value.fn, value.args
        if f is ir.BUILD_TUPLE or f is ir.BUILD_LIST:
            tuples[target] = args
            out.add(target)
        elif f is operator.getitem and isinstance(args[0], ir.Var) and (
                args[0].name in chains) and isinstance(args[1], ir.Const) and (
                args[1].value in chains[args[0].name]):
            numbers.add(target)
            out.add(target)
        elif f is operator.getitem and isinstance(args[0], ir.Var) and isinstance(
                args[1], ir.Const) and args[1].value in (_number_items(an, args[0].name) or ()):
            numbers.add(target)  # (a parameter's item: its key is in the code's cache key)
            out.add(target)
        elif f in _ARITHMETIC and all(number(a) for a in args) and not raising.may_raise(
                f, [fact(a) for a in args]):
            numbers.add(target)
            out.add(target)
        elif f is items.items_at:
            keys = _all_keys(an, args, tuples, number)
            if keys is not None:
                chains[target] = keys
                out.add(target)
        elif f is runtime.like and isinstance(args[0], ir.Var) and args[0].name in chains and (
                isinstance(args[1], ir.Var)) and _number_items(an, args[1].name) == chains[
                args[0].name]:
            out.add(target)
    return out, numbers


def _number_items(an, name):
    """The keys (indices) of the parameter ``name``'s dict (list, tuple) whose items are all
    real numbers (the analysis' item kinds, from the arguments the code is made for), else
    None."""
    found = an.items.get(name)
    if not isinstance(found, (DictItems, SeqItems)) or not found or any(
            kind != SCALAR for kind in found.values()) or an.complex:
        return None
    return frozenset(found)


def _all_keys(an, args, tuples, number):
    """The keys of ``items_at(like, indices, values)`` when ``like`` is a parameter's dict of
    real numbers, ``indices`` every one of its keys once (constants) and ``values`` numbers;
    else None."""
    like, indices, values = args
    if not (isinstance(like, ir.Var) and isinstance(indices, ir.Var) and isinstance(
            values, ir.Var)):
        return None
    keys = _number_items(an, like.name)
    at, put = tuples.get(indices.name), tuples.get(values.name)
    if keys is None or at is None or put is None or len(at) != len(put) or not all(
            isinstance(i, ir.Const) for i in at):
        return None
    if len({i.value for i in at}) != len(at) or {i.value for i in at} != keys or not all(
            map(number, put)):
        return None
    return keys


def drop_unread(code, droppable, tangent):
    """``code`` (the sweep's top block) without the assignments of ``droppable`` names that
    nothing else reads (an item write ``y[k] = v`` into one is not a read of it): one pass
    from the end, a dropped statement's reads taken off (what reads a value of the top
    block comes after it there; a nested block's reads are all counted and kept)."""
    reads = collections.Counter()
    loads = [_loads(node) for node in code]
    for found in loads + [_loads(tangent)]:
        reads.update(found)
    kept = []
    for node, found in zip(reversed(code), reversed(loads)):
        name_ = _assigned(node)
        if name_ is not None and name_[0] in droppable and reads[name_[0]] == name_[1]:
            reads.subtract(found)
            continue
        kept.append(node)
    return kept[::-1]


def _loads(node):
    return collections.Counter(sub.id for sub in ast.walk(node) if isinstance(
        sub, ast.Name) and isinstance(sub.ctx, ast.Load))


def _assigned(node):
    """``(name, reads of it by node itself)`` of ``name = v`` (0) or ``name[k] = v``
    (1, and none in ``k`` or ``v``), else None."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0]
    if isinstance(target, ast.Name):
        return target.id, 0
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        own = target.value.id
        inner = [n for part in (target.slice, node.value) for n in ast.walk(part)
                 if isinstance(n, ast.Name) and n.id == own]
        return (own, 1) if not inner else None
    return None


def numbers_out(fn, an, result):
    """The items of the tuple display ``result`` (an atom) is assigned in ``fn``'s top block
    when each is certainly a real number (``SCALAR``, not complex), else None: its tangent is
    the tuple of theirs (``like(dresult, result)``, the general code's, gives it so)."""
    if not isinstance(result, ir.Var) or an.is_complex(result):
        return None
    for stmt in fn.body:
        if isinstance(stmt, ir.Assign) and stmt.target == result.name:
            value = stmt.value
            if not (isinstance(value, ir.Prim) and value.fn is ir.BUILD_TUPLE) or value.kwargs:
                return None
            items = value.args
            return items if items and all(an.kind(a) == SCALAR and not an.is_complex(a) and (
                isinstance(a, ir.Var) or type(a.value) in (int, float)) for a in items) else None
    return None


def gradient_like_param(fn, result):
    """Whether ``result`` (an atom) is assigned ``like(g, p)``, ``p`` a parameter of ``fn``
    (in the function's top block: whatever path the code takes)."""
    if not isinstance(result, ir.Var):
        return False
    for stmt in fn.body:
        if isinstance(stmt, ir.Assign) and stmt.target == result.name:
            value = stmt.value
            return isinstance(value, ir.Prim) and value.fn is runtime.like and not (
                value.kwargs) and len(value.args) == 2 and isinstance(
                value.args[1], ir.Var) and value.args[1].name in fn.params
    return False
