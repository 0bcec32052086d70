"""Which arrays certainly have the same shape (a small pass on the SSA form).

An element-wise operation whose array operands all have one shape gives a result of that
shape: ``np.exp(x)``, ``2.0 * x``, ``x + y`` when ``x`` and ``y`` are known alike, a copy.
The pass groups such values into classes; each class is named by its *root*, the value the
others were computed from (an ancestor of every member, so it is always computed before
them); parameters the specialisation was made for with one shape start in one class.
The reverse sweep uses the classes twice:

* an element-wise rule's gradient needs no ``unbroadcast`` back to an operand of the
  result's own shape;
* a gradient that reads a value only for its shape (``np.sum``'s, ``np.mean``'s) reads the
  root instead, so a value the backward sweep has no other use for need not be kept (nor
  computed: in ``np.mean(np.log1p(e))`` the gradient never needs the logarithm).

Imports ``srcad.core`` (and nothing above its layer).
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR

_ELEMENTWISE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                operator.neg, operator.pos, operator.mod, operator.floordiv, abs}


def classes(fn: ir.Function, analysis, alike=()) -> dict:
    """name -> root, for every array value whose shape is that of an earlier one.

    ``alike``: groups of parameters known to have one shape (the arrays a specialisation was
    made for, :func:`srcad.specialise.shape_partition`: a fact of its cache key, checked at
    every call), each group one class rooted at its first parameter."""
    root = {}
    for group in alike:
        group = [p for p in group if p in fn.params and analysis.kinds.get(p) == ARRAY]
        for p in group[1:]:
            root[p] = group[0]

    def find(name):
        while name in root:
            name = root[name]
        return name

    for stmt in ir.walk(fn.body):
        if not (isinstance(stmt, ir.Assign) and stmt.target is not None):
            continue
        if analysis.kinds.get(stmt.target) != ARRAY:
            continue
        value = stmt.value
        if isinstance(value, ir.Var):
            if analysis.kinds.get(value.name) == ARRAY:
                root[stmt.target] = find(value.name)
            continue
        if not (isinstance(value, ir.Prim) and not value.kwargs and (
            value.fn in _ELEMENTWISE or isinstance(value.fn, np.ufunc)
            and value.fn.signature is None  # np.matmul, np.vecdot: not element-wise
        )):
            continue
        arrays = set()
        for a in value.args:
            if isinstance(a, ir.Var) and analysis.kinds.get(a.name) == ARRAY:
                arrays.add(find(a.name))
            elif isinstance(a, ir.Var) and analysis.kinds.get(a.name) == SCALAR:
                continue
            elif isinstance(a, ir.Const) and isinstance(a.value, (int, float)):
                continue
            else:
                arrays.add(None)  # something else: its shape is not known here
        if len(arrays) == 1 and None not in arrays:
            root[stmt.target] = arrays.pop()
    return {name: find(name) for name in root}
