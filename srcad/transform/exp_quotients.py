"""Quotients ``y = a / (c + exp(u))`` (or ``a / (exp(u) + c)``) whose numerator ``a`` and
added constant ``c`` are number literals (``a`` not 0), differentiated as one operation:
``u``'s gradient is ``-g * y * (1 - (c / a) * y)``, read from the quotient alone (since
``exp(u) = a / y - c``), so the sweep keeps neither ``exp(u)`` nor the divisor. The logistic
function ``1.0 / (1.0 + np.exp(-x))`` is one: ``-g * y * (1.0 - y)`` for ``-x``.

Only where ``exp(u)`` and the divisor are read once each (by the divisor and the quotient):
a value read elsewhere needs its own gradient. Numbers only (``np.exp``, ``math.exp``;
Python's or NumPy's ``+`` and ``/``), not complex values. Imports: ``srcad.core``,
:mod:`.nodes`, :mod:`.templates`.
"""

from __future__ import annotations

import ast
import math
import operator
from collections import Counter

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from . import nodes, templates

_EXP = (np.exp, math.exp)
_ADD = (operator.add, np.add)
_DIV = (operator.truediv, np.divide)


def find(fn, an):
    """``{quotient: (u, template)}`` for each such quotient of ``fn`` (see the module):
    ``template`` is ``u``'s gradient in ``g`` (the quotient's gradient) and ``ans``."""
    defs, reads = {}, Counter(ir.read_counts(fn.body))
    block = _blocks(fn.body, {})  # a target -> the block assigning it
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign) and stmt.target is not None:
            defs[stmt.target] = stmt
    found = {}
    for target, stmt in defs.items():
        value = stmt.value
        if not _op(value, _DIV, 2) or not _number(value.args[0]) or value.args[0].value == 0:
            continue
        divisor = _once(value.args[1], defs, reads, an)
        if divisor is None or not _op(divisor.value, _ADD, 2):
            continue
        c, e = divisor.value.args
        if not _number(c):
            c, e = e, c
        exp = _once(e, defs, reads, an)
        if not _number(c) or exp is None or not _op(exp.value, _EXP, 1) or (
                target in an.complex or an.kinds.get(target) not in (ARRAY, SCALAR)):
            continue
        u = exp.value.args[0]
        if not isinstance(u, ir.Var) or u.name in an.complex or not (
                block[target] is block[divisor.target] is block[exp.target]):
            continue  # (a quotient in a loop of a divisor made before it: u's gradient
            # would be made in the loop's body, where u's own gradient is not carried)
        found[target] = (u, _template(c.value / value.args[0].value))
    return found


def differentiate(sweep, stmt, gname, code, frame):
    """``u``'s gradient where ``stmt`` assigns such a quotient (found by :func:`find` as
    ``sweep.exp_quotients``); whether it does."""
    if stmt.target not in sweep.exp_quotients:
        return False
    sweep.materialise(gname, code, frame)
    u, template = sweep.exp_quotients[stmt.target]
    tree = templates.instantiate(template, {"g": nodes.name(gname),
                                            "ans": nodes.name(stmt.target)},
                                 sweep.an.kind(u) == SCALAR, sweep.helper_names)
    sweep.ref_names(tree, frame)
    sweep.accumulate(u, tree, code, frame)
    return True


def _op(value, fns, arity):
    return isinstance(value, ir.Prim) and not value.kwargs and len(value.args) == arity and (
        any(value.fn is f for f in fns))


def _number(atom):
    return isinstance(atom, ir.Const) and type(atom.value) in (int, float) and (
        math.isfinite(atom.value))


def _once(atom, defs, reads, an):
    """The assignment of ``atom`` where it is a name read once, of a number or an array
    that is not complex; else None."""
    if not isinstance(atom, ir.Var) or reads[atom.name] != 1 or atom.name in an.complex:
        return None
    stmt = defs.get(atom.name)
    if stmt is None or stmt.effect or an.kinds.get(atom.name) not in (ARRAY, SCALAR):
        return None
    return stmt


def _template(k):
    """``-g * ans * (1 - k * ans)``, written as plainly as ``k`` allows (a tree)."""
    if k == 0:
        text = "-g * ans"
    elif k == 1:
        text = "-g * ans * (1.0 - ans)"
    elif k < 0:
        text = f"-g * ans * (1.0 + {-k!r} * ans)"
    else:
        text = f"-g * ans * (1.0 - {k!r} * ans)"
    return ast.parse(text, mode="eval").body


def _blocks(body, out):
    """``{target: the list of statements assigning it}`` over ``body`` and its blocks."""
    for stmt in body:
        if isinstance(stmt, ir.Assign) and stmt.target is not None:
            out[stmt.target] = body
        for inner in ir.blocks_of(stmt):
            _blocks(inner, out)
    return out
