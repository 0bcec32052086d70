"""Reverse mode: a rule's template reads what the forward sweep already computed.

Two rewrites of an instantiated template (a tree), made where it is instantiated
(:meth:`Reuse.reused`, which then notes the names it reads, as ``ref_names`` does):

* **a NumPy function of the same operands, computed already**: ``np.cos(theta)`` in the
  gradient of ``np.sin(theta)`` reads ``cos_1`` where the forward sweep assigned ``cos_1 =
  np.cos(theta)`` (the user wrote both: Rodrigues' rotation); only for a ufunc (its value
  depends on its operands alone) whose value is a number (``SCALAR``: one more number kept,
  where NumPy's call on a number costs ~0.5 µs; an array would be kept alive for it), assigned
  in the block the gradient is computed in or in one around it, no loop between (SSA: the
  name holds that value wherever the backward code of that block runs);
* **NumPy's operator where an operand is NumPy's value** (code that only runs: the Python
  backend on NumPy values, not code srcad reads again): ``np.divide(g, 2 * sqrt)`` is ``g /
  (2 * sqrt)`` and ``np.power(a, 2)`` is ``a ** 2`` when an operand is certainly a NumPy number
  or array (a name a ufunc assigned, or a sum of an array of floats, ``np.sum(exp) + 2.0``:
  :func:`numpy_results`; arithmetic with one, a ufunc's call): Python's operator
  on it is NumPy's, with NumPy's semantics (inf and nan, a warning, never
  ``ZeroDivisionError``), without the ~2 µs a ufunc call on numbers costs.
  (:mod:`.templates` writes NumPy's function where the operands may both be Python floats.)

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``,
:mod:`srcad.analysis.dtypes`, :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..analysis.dtypes import inexact_values
from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from .nodes import name

_OPERATORS = {"divide": ast.Div, "true_divide": ast.Div, "power": ast.Pow}


class Reuse:
    """Templates reading forward values (see the module docstring)."""

    def reused(self, tree, frame):
        """``tree`` (an instantiated template for the block ``frame``) rewritten as the
        module docstring says, the names it reads noted for the saves."""
        if _calls_numpy(tree, self.helper_names.get("np", "np")):
            tree = _Rewrite(self, frame).visit(tree)
        self.ref_names(tree, frame)
        return tree

    def computed(self):
        """(ufunc, operands) -> [(name, block)] of the forward sweep's numbers; block ->
        (the block around it, whether a loop is between)."""
        if getattr(self, "_computed", None) is None:
            self._computed, self._around = {}, {}
            self._index(self.fn.body)
        return self._computed

    def _index(self, block):
        for stmt in block:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
                    isinstance(stmt.value.fn, np.ufunc) and not stmt.value.kwargs
                    and not stmt.effect and self.an.kinds.get(stmt.target) == SCALAR):
                key = _key(stmt.value.fn, stmt.value.args)
                if key is not None:
                    self._computed.setdefault(key, []).append((stmt.target, id(block)))
            for inner in ir.blocks_of(stmt):
                self._around[id(inner)] = (id(block), isinstance(stmt, ir.Loop))
                self._index(inner)

    def reachable(self, block, frame):
        """Whether ``block``'s values are read as they are in ``frame``'s backward code."""
        while frame != block:
            around = self._around.get(frame)
            if around is None or around[1]:
                return False
            frame = around[0]
        return True

    def numpy_value(self, tree):
        """Whether ``tree`` certainly evaluates to a NumPy number or array."""
        if isinstance(tree, ast.Name):
            return tree.id in self._ufunc_results()
        if isinstance(tree, ast.Call):
            return isinstance(_ufunc(tree, self.helper_names.get("np", "np")), np.ufunc)
        if isinstance(tree, ast.BinOp) and isinstance(tree.op, (ast.Add, ast.Sub, ast.Mult,
                                                                ast.Div, ast.Pow)):
            return self.numpy_value(tree.left) or self.numpy_value(tree.right)
        if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, (ast.USub, ast.UAdd)):
            return self.numpy_value(tree.operand)
        return False

    def _ufunc_results(self):
        if getattr(self, "_results", None) is None:
            self._results = numpy_results(self.fn, self.an)
        return self._results


def numpy_results(fn, an):
    """The names of ``fn`` (IR) certainly holding a NumPy number or array: a ufunc's result;
    a sum, mean, product, max or min (``np.sum(a)``, ``a.sum()``) of an array of floating or
    complex numbers (:func:`srcad.analysis.dtypes.inexact_values`: an object array's sum
    may be Python's number); arithmetic (``+ - * /``, ``-x``) with such a value and a real
    number or array (NumPy's number is a subclass of Python's float, so its operator is tried
    first and answers; a Python complex's is not: ``1j + np.float64(2.0)`` is Python's)."""
    assigns = [s for s in ir.walk(fn.body) if isinstance(s, ir.Assign) and s.target and (
        isinstance(s.value, ir.Prim)) and not s.value.kwargs]
    found = {s.target for s in assigns if isinstance(s.value.fn, np.ufunc)}
    inexact = None
    for s in assigns:
        if s.value.fn in _REDUCTIONS and len(s.value.args) == 1:
            if inexact is None:
                inexact = inexact_values(an)
            a = s.value.args[0]
            if isinstance(a, ir.Var) and an.kinds.get(a.name) == ARRAY and a.name in inexact:
                found.add(s.target)
    changed = True
    while changed:  # arithmetic with a found value, to a fixed point (loops' phis: not)
        changed = False
        for s in assigns:
            if s.target in found or s.value.fn not in _ARITHMETIC or (
                    s.target in an.complex or an.is_complex(s.value)):
                continue
            if any(isinstance(a, ir.Var) and a.name in found for a in s.value.args):
                found.add(s.target)
                changed = True
    return found


_REDUCTIONS = (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin) + tuple(
    ir.Method(m) for m in ("sum", "mean", "prod", "max", "min"))
_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
               operator.pos)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, sweep, frame):
        self.sweep = sweep
        self.frame = frame
        self.np = sweep.helper_names.get("np", "np")

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = _ufunc(node, self.np)
        if not isinstance(fn, np.ufunc) or node.keywords:
            return node
        key = _key(fn, [_atom(a) for a in node.args])
        found = [target for target, block in self.sweep.computed().get(key, ()) if key
                 and self.sweep.reachable(block, self.frame)]
        if found:  # one the backward code reads already, else the first
            read = self.sweep.refs.get(self.frame, ())
            return name(next((t for t in found if t in read), found[0]))
        op = _OPERATORS.get(node.func.attr)
        if op is not None and len(node.args) == 2 and self.sweep.runs_only and any(
                self.sweep.numpy_value(a) for a in node.args):
            self.sweep.operators_written = True  # a derivative reads the plain form
            return ast.BinOp(left=node.args[0], op=op(), right=node.args[1])
        return node


def _calls_numpy(tree, np_name):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(
        n.func.value, ast.Name) and n.func.value.id == np_name for n in ast.walk(tree))


def _ufunc(call, np_name):
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
            func.value.id == np_name):
        return getattr(np, func.attr, None)
    return None


def _atom(node):
    if isinstance(node, ast.Name):
        return ir.Var(node.id)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return ir.Const(node.value)
    return None


def _key(fn, args):
    if len(args) != fn.nin:
        return None
    key = [fn]
    for a in args:
        if isinstance(a, ir.Var):
            key.append(("v", a.name))
        elif isinstance(a, ir.Const) and type(a.value) in (int, float):
            key.append(("c", type(a.value), a.value))
        else:
            return None
    return tuple(key)
