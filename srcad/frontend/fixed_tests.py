"""The way an ``if`` goes where the specialisation fixes its test, so that the other way is
not read (a mixin's helpers for :class:`srcad.frontend.lower_stmts.Statements`).

A specialisation fixes a parameter given ``None`` or a bool (``functions.Flag``) and one given
a function (the copy made for it): ``if ax:``, ``if ax is None:``, ``if f is not None:``,
``not`` of them, and (outside27) ``a and b``/``a or b`` whose leading operands are such tests
(``if is_leaf is not None and is_leaf(t):`` with ``is_leaf`` given None: the call is never
made, so srcad does not read it; JAX's pytree helpers are written so). Only where the name
holds the parameter's value (never rebound, or not before the test).

``len(p) == k`` of a list or tuple parameter whose length the specialisation fixes:
:mod:`.fixed_lengths` (closures29).

Imports the standard library, gast, NumPy, :mod:`srcad.core` and :mod:`.fixed_lengths`.
"""

from __future__ import annotations

import functools
import types

import gast
import numpy as np

from ..core import functions
from ..core.ir import Const
from . import fixed_lengths


def fixed_ways(lw, test, node):
    """``(way, None)`` when ``if test:`` goes one way the specialisation fixes (see
    :meth:`fixed_way`), also for ``a and b`` / ``a or b`` whose first operands it fixes
    (``if is_leaf is not None and is_leaf(t):`` with ``is_leaf`` given None: the call
    is never made, so not read); else ``(None, test)``, the test with its fixed leading
    operands dropped (outside27)."""
    if not isinstance(test, gast.BoolOp):
        return fixed_way(lw, test, node), test
    stop = isinstance(test.op, gast.Or)  # the value that decides: True for or
    values = list(test.values)
    while values:
        way = fixed_way(lw, values[0], node)
        if way is None:
            break
        if way == stop:
            return way, None
        values.pop(0)
    if not values:
        return not stop, None
    if len(values) == len(test.values):
        return None, test
    rest = values[0] if len(values) == 1 else gast.copy_location(
        gast.BoolOp(op=test.op, values=values), test)
    return fixed_ways(lw, rest, node) if len(values) == 1 else (None, rest)


def fixed_way(lw, test, node=None):
    """The way ``if test:`` goes when ``test`` is a parameter the specialisation fixed to
    ``None`` or a bool, ``not`` it, or it ``is (not) None``; else None. The name holds the
    parameter's value there: it is never rebound, or ``node`` (the ``if``, the ternary) is
    where no statement before binds it (:func:`unrebound_tests`: ``if y is None: y = X``,
    ``y = X if y is None else y`` at the top of the body)."""
    negate = isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)
    if negate:
        test = test.operand
    compare = None
    length = fixed_lengths.length_way(lw, test, node)  # if len(acts) == 1: (closures29)
    if length is None:
        length = constant_way(lw, test)  # if scale == 'log': (closures29)
    if length is not None:
        return not length if negate else length
    if isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (gast.Is, gast.IsNot)) and isinstance(
            test.comparators[0], gast.Constant) and test.comparators[0].value is None:
        compare, test = isinstance(test.ops[0], gast.IsNot), test.left
    if not isinstance(test, gast.Name):
        return None
    value = lw.fixed.get(test.id)
    if isinstance(value, functions.Flag):
        value = value.value
    elif not (_truthy(value) or compare is not None and functions.is_function_value(
            value)):  # (outside27) a function the specialisation fixes: not None
        return None
    before = lw.unrebound.get(id(node)) if node is not None else None
    if lw.stores.get(test.id, 0) != 1 and (before is None or test.id in before):
        return None
    way = bool(value) if compare is None else (value is not None) == compare
    return not way if negate else way


def _truthy(value):
    """Whether ``value`` is a function whose truth Python takes as True without asking it
    (a def, a builtin, a ufunc, a partial: none defines ``__bool__`` or ``__len__``)."""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc,
                              functools.partial))


_EQUALITY = (gast.Eq, gast.NotEq, gast.Is, gast.IsNot)
_FOLDED = (str, int, bool, type(None))


def constant_way(lw, test):
    """The value of ``a == b`` (``!=``, ``is``, ``is not``) when both operands are constants
    written in the code or names holding one (a parameter the specialisation gives a string,
    None or a bool: ``if scale == 'log':``; ``y = 'sum'`` before ``if y == 'sum':``); ``is``
    between strings only for identifiers (interned: ``is`` is ``==`` there); else None."""
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], _EQUALITY)):
        return None
    values = [_constant(lw, e) for e in (test.left, test.comparators[0])]
    if any(v is _UNKNOWN for v in values):
        return None
    a, b = values
    op = test.ops[0]
    if isinstance(op, (gast.Is, gast.IsNot)):
        if any(type(v) is int or type(v) is str and not v.isidentifier() for v in values):
            return None  # (ints: a large one is another object; so may a string be)
        same = a == b if type(a) is str and type(b) is str else a is b
        return same if isinstance(op, gast.Is) else not same
    same = a == b
    return same if isinstance(op, gast.Eq) else not same


_UNKNOWN = object()


def _constant(lw, node):
    if isinstance(node, gast.Constant):
        value = node.value
    elif isinstance(node, gast.Name) and isinstance(lw.env.get(node.id), Const) and (
            lw.env[node.id].spelling is None):
        value = lw.env[node.id].value
    else:
        return _UNKNOWN
    return value if type(value) in _FOLDED else _UNKNOWN
