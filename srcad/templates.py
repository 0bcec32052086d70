"""Instantiate rule templates: substitute operands, pick scalar or array spellings, simplify.

Works on stdlib ``ast`` expressions. The simplifier removes what a person would not write:
``1.0 * e``, ``e * 1``, ``e / 1``, ``--e``, ``e ** 1``, and folds arithmetic on literals, so a
seed gradient of ``1.0`` disappears from the generated code.
"""

from __future__ import annotations

import ast
import copy
import operator

from .rules import GENERIC

_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.Div: operator.truediv, ast.Pow: operator.pow}


def parse(text):
    return ast.parse(text, mode="eval").body


def instantiate(template, names, scalar, helpers):
    """``template`` with ``names`` (name -> expression text) substituted.

    ``scalar`` selects ``math.f`` over ``np.f`` for generic names; ``helpers`` maps helper
    names to the spelling generated code uses for them (hygiene).
    """
    node = copy.deepcopy(template)
    node = _Substitute(names, scalar, helpers).visit(node)
    return simplify(node)


class _Substitute(ast.NodeTransformer):
    def __init__(self, names, scalar, helpers):
        self.names = names
        self.scalar = scalar
        self.helpers = helpers

    def visit_Name(self, node):
        if node.id in self.names:
            return parse(self.names[node.id])
        if node.id in GENERIC:
            spelling = GENERIC[node.id][0 if self.scalar else 1]
            return parse(self._hygienic(spelling))
        if node.id in self.helpers:
            return ast.Name(id=self.helpers[node.id], ctx=ast.Load())
        return node

    def _hygienic(self, spelling):
        head, _, rest = spelling.partition(".")
        head = self.helpers.get(head, head)
        return f"{head}.{rest}" if rest else head


def _is_num(node, value=None):
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return False
    if not isinstance(node.value, (int, float)):
        return False
    return value is None or node.value == value


def simplify(node):
    node = _Simplify().visit(node)
    return ast.fix_missing_locations(node)


class _Simplify(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right, op = node.left, node.right, type(node.op)
        if _is_num(left) and _is_num(right) and op in _FOLD:
            try:
                value = _FOLD[op](left.value, right.value)
            except (ArithmeticError, ValueError):
                return node
            if isinstance(value, (int, float)) and abs(value) < 1e15:
                return ast.Constant(value=value) if value >= 0 else ast.UnaryOp(
                    op=ast.USub(), operand=ast.Constant(value=-value))
        if op is ast.Mult:
            if _is_num(left, 1):
                return right
            if _is_num(right, 1):
                return left
            if _is_num(left, -1):
                return self.visit_UnaryOp(ast.UnaryOp(op=ast.USub(), operand=right))
            if _is_num(right, -1):
                return self.visit_UnaryOp(ast.UnaryOp(op=ast.USub(), operand=left))
            if isinstance(left, ast.UnaryOp) and isinstance(left.op, ast.USub):
                # (-a) * b  ->  -(a * b): keeps the sign in front, where a reader looks for it
                inner = self.visit_BinOp(ast.BinOp(left=left.operand, op=ast.Mult(), right=right))
                return ast.UnaryOp(op=ast.USub(), operand=inner)
        if op is ast.Div and _is_num(right, 1):
            return left
        if op is ast.Pow and _is_num(right, 1):
            return left
        if op is ast.Pow and _is_num(right, 0):
            return ast.Constant(value=1.0)
        if op is ast.Add and _is_num(right, 0):
            return left
        if op is ast.Add and _is_num(left, 0):
            return right
        if op is ast.Sub and _is_num(right, 0):
            return left
        if op is ast.Div and isinstance(left, ast.UnaryOp) and isinstance(left.op, ast.USub):
            inner = ast.BinOp(left=left.operand, op=ast.Div(), right=right)
            return ast.UnaryOp(op=ast.USub(), operand=inner)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        inner = node.operand
        if isinstance(node.op, ast.USub):
            if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub):
                return inner.operand
            if _is_num(inner) and isinstance(inner.value, float) and inner.value == 0:
                return inner
        if isinstance(node.op, ast.UAdd):
            return inner
        return node


def text(node):
    return ast.unparse(node)
