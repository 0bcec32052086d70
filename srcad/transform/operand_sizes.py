"""Reverse mode, an operand read for its size or shape alone (``np.mean(e1 + e2)``'s uniform
gradient, ``g / a.size``): where the operand is made at the top level by element-wise
arithmetic over arrays of shapes not known alike (``t = e1 + e2``), its shape is the
broadcast shape of the operands (``shape_of(e1, e2)``: :meth:`.guards.ShapeGuards.
broadcast_shape`), so the rule reads that instead of the operand (``1.0 / np.prod(
shape_of(e1, e2))``, not ``1.0 / (e1 + e2).size``: a whole array made for its size), and
the forward sweep need not compute the operand at all where nothing else reads it.

Imports ``srcad.core`` (the IR's read counts, the node walk), :mod:`.nodes`,
:mod:`.templates`.
"""

from __future__ import annotations

import ast
import copy

from ..core import ir
from ..core.walk import walk_nodes
from . import nodes, templates


def uniform(sweep, rule, names, frame, operand):
    """The uniform gradient of ``rule`` (a reduction over every axis) instantiated with
    ``names`` (``a``: the operand's shape class, ``root``), read through :func:`sized`."""
    tree = templates.instantiate(rule.uniform, names, True, sweep.helper_names)
    return sized(sweep, tree, names["a"].id, frame, operand)


def sized(sweep, tree, root, frame, operand):
    """``tree`` (an instantiated rule) with ``root.size`` and ``root.shape`` read from the
    broadcast shape of ``root``'s operands, where every read of ``root`` in it is one of
    these two, ``root`` is the reduction's ``operand`` and read by nothing else (else it is
    made anyway, and its ``.size`` is cheaper than ``np.prod`` of a shape) and that shape is
    known; else ``tree`` unchanged."""
    counts = getattr(sweep, "read_counts", None)
    if counts is None:
        counts = sweep.read_counts = ir.read_counts(sweep.fn.body)
    if root != operand or counts.get(root, 0) != 1:
        return tree  # read elsewhere too (np.exp(t_1) beside np.mean(...)): made anyway
    reads = [n for n in walk_nodes(tree) if isinstance(n, ast.Name) and n.id == root]
    parts = [n for n in walk_nodes(tree) if isinstance(n, ast.Attribute) and isinstance(
        n.value, ast.Name) and n.value.id == root and n.attr in ("size", "shape")]
    if not reads or len(parts) != len(reads):
        return tree  # root read otherwise (or not at all)
    shape = sweep.broadcast_shape(root, frame)
    if shape is None:
        return tree
    np_ = sweep.helper_names.get("np", "np")
    sweep.used_helpers.add("np")

    class _Sized(ast.NodeTransformer):
        def visit_Attribute(self, node):
            if node in parts:
                made = copy.deepcopy(shape)
                return made if node.attr == "shape" else nodes.call(
                    nodes.attr(np_, "prod"), made)
            return self.generic_visit(node)

    return _Sized().visit(tree)
