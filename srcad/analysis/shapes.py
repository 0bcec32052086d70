"""Which arrays certainly have the same shape (a small pass on the SSA form).

An element-wise operation whose array operands all have one shape gives a result of that
shape: ``np.exp(x)``, ``2.0 * x``, ``x + y`` when ``x`` and ``y`` are known alike, a copy.
The pass groups such values into classes; each class is named by its *root*, the value the
others were computed from (an ancestor of every member, so it is always computed before
them); parameters the specialisation was made for with one shape start in one class; a
functional write ``x[i] = v`` keeps ``x``'s class; a merge of values of one class is in it
(a branch's; a loop's when, taken to keep its entry value's shape through the body, every
value it merges is of that class: an induction over the iterations, checked and dropped
where it fails, the pass then run again without it).
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
    made for, :func:`srcad.backend.keys.shape_partition`: a fact of its cache key, checked at
    every call), each group one class rooted at its first parameter."""
    blocked = set()  # loop merges found not to keep their entry's shape
    while True:
        root, kept = _classes(fn, analysis, alike, blocked)
        if not kept:
            return {name: _find(root, name) for name in root}
        blocked |= kept


def _find(root, name):
    while name in root:
        name = root[name]
    return name


def _classes(fn, analysis, alike, blocked):
    """One pass: the classes when every loop merge not in ``blocked`` keeps the shape of its
    entry value (assumed at the loop's head, as for an induction); returns them and the merges
    where that did not hold (their sources in another class)."""
    root = {}
    for group in alike:
        group = [p for p in group if p in fn.params and analysis.kinds.get(p) == ARRAY]
        for p in group[1:]:
            root[p] = group[0]
    assumed = []  # loop merges taken to keep their entry's shape

    def array(atom):
        return isinstance(atom, ir.Var) and analysis.kinds.get(atom.name) == ARRAY

    def one_class(sources):
        found = {_find(root, a.name) if array(a) else None for a in sources}
        return found.pop() if len(found) == 1 and None not in found else None

    def visit(stmts):
        for stmt in stmts:
            if isinstance(stmt, ir.If):
                visit(stmt.body)
                visit(stmt.orelse)
                for phi in stmt.phis:  # a merge of values of one class is in it
                    cls = one_class(phi.sources)
                    if cls is not None and analysis.kinds.get(phi.target) == ARRAY:
                        root[phi.target] = cls
            elif isinstance(stmt, ir.Loop):
                for phi in stmt.phis:
                    if (phi.target not in blocked and array(phi.sources[0])
                            and analysis.kinds.get(phi.target) == ARRAY):
                        root[phi.target] = _find(root, phi.sources[0].name)
                        assumed.append(phi)
                visit(stmt.header)
                visit(stmt.body)
            elif isinstance(stmt, ir.SetItem):  # x[i] = v: x keeps its shape
                if analysis.kinds.get(stmt.target) == ARRAY and array(stmt.obj):
                    root[stmt.target] = _find(root, stmt.obj.name)
            elif isinstance(stmt, ir.Assign) and stmt.target is not None:
                cls = _assigned(stmt, analysis, root)
                if cls is not None:
                    root[stmt.target] = cls

    visit(fn.body)
    kept = {phi.target for phi in assumed
            if one_class(phi.sources) != _find(root, phi.target)}
    return root, kept


def _assigned(stmt, analysis, root):
    """The class of the array ``stmt`` assigns: a copy's, or an element-wise operation's
    over arrays of one class (and numbers)."""
    if analysis.kinds.get(stmt.target) != ARRAY:
        return None
    value = stmt.value
    if isinstance(value, ir.Var):
        return _find(root, value.name) if analysis.kinds.get(value.name) == ARRAY else None
    if not (isinstance(value, ir.Prim) and not value.kwargs and (
        value.fn in _ELEMENTWISE or isinstance(value.fn, np.ufunc)
        and value.fn.signature is None  # np.matmul, np.vecdot: not element-wise
    )):
        return None
    arrays = set()
    for a in value.args:
        if isinstance(a, ir.Var) and analysis.kinds.get(a.name) == ARRAY:
            arrays.add(_find(root, a.name))
        elif isinstance(a, ir.Var) and analysis.kinds.get(a.name) == SCALAR:
            continue
        elif isinstance(a, ir.Const) and isinstance(a.value, (int, float)):
            continue
        else:
            arrays.add(None)  # something else: its shape is not known here
    return arrays.pop() if len(arrays) == 1 and None not in arrays else None
