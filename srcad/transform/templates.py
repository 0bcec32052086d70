"""Instantiate rule templates: substitute operands, pick scalar or array spellings, simplify.

Works on stdlib ``ast`` expressions. The simplifier removes what a person would not write:
``1.0 * e``, ``e * 1``, ``e / 1``, ``--e``, ``e ** 1``, and folds arithmetic on literals, so a
seed gradient of ``1.0`` disappears from the generated code; a test on literals
(``1 is not None``, ``'T' in (1, 'T', 'C')``, ``0 == 1``) picks its arm.

Imports ``srcad.rules``, ``srcad.transform`` (and nothing above its layer).
"""

from __future__ import annotations

import ast
import operator

from ..rules import GENERIC
from .nodes import copy_tree, dotted

#: comparisons of two literals that the simplifier decides (``is`` is handled apart)
_TESTS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b,
          ast.NotIn: lambda a, b: a not in b}
_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.Div: operator.truediv, ast.Pow: operator.pow}


def instantiate(template, names, scalar, helpers, rule=None):
    """``template`` with ``names`` (name -> expression tree, copied at each use) substituted.

    ``scalar`` selects ``math.f`` over ``np.f`` for generic names; ``helpers`` maps helper
    names to the spelling generated code uses for them (hygiene).

    ``rule``: the rule the template is of. Where its ``numpy_numbers``, the operands are
    numbers given to a function with NumPy's floating-point semantics (``np.log(0.0)`` is
    ``-inf``, ``np.sinh(800.0)`` is ``inf``: a warning, never an exception). The derivative
    must keep them: Python's ``math.cos(inf)``, ``1.0 / 0.0`` and
    ``1e200 ** 2`` raise where NumPy gives inf or nan, so the generic names are NumPy's and the
    template's ``/``, ``**``, ``//`` and ``%`` are NumPy's (:class:`_NumpyOperators`).
    """
    numpy_numbers = rule is not None and rule.numpy_numbers
    fixed = getattr(rule, "fixed", None)
    fixed = fixed and [p for p in fixed if p in names]  # (written in the call: most are not)
    given = names
    if fixed:  # (a template never reads them: ``where`` there is the generic name)
        names = {k: v for k, v in names.items() if k not in fixed}
    tree = copy_tree(template)
    tree = _Substitute(names, scalar, helpers, numpy_numbers).visit(tree)
    tree = simplify(tree)
    if fixed:
        tree = fixed_guard(tree, rule, given, helpers)
    if scalar:
        tree = _NumpyOperators(helpers, numpy_numbers).visit(tree)
        tree = ast.fix_missing_locations(tree)
    return tree


def fixed_guard(tree, rule, names, helpers):
    """``tree`` (a gradient or tangent of ``rule``'s call), checked when it runs for each of
    the rule's ``fixed`` parameters (:mod:`srcad.rules.registry`) whose argument ``names``
    gives as something other than a literal: ``fixed_check(tree, value, accepted, call)``
    (a literal was checked where the call is, :mod:`srcad.analysis.soundness`)."""
    for param, accepted in rule.fixed.items():
        given = names.get(param)
        if given is None or isinstance(given, ast.Constant):
            continue
        tree = ast.Call(func=ast.Name(id=helpers.get("fixed_check", "fixed_check"),
                                      ctx=ast.Load()),
                        args=[tree, copy_tree(given),
                              ast.Tuple(elts=[ast.Constant(v) for v in accepted],
                                        ctx=ast.Load()),
                              ast.Constant(f"{rule.name}(..., {param}=")], keywords=[])
    return ast.fix_missing_locations(tree)


#: Python operators on two floats that raise where NumPy's give inf or nan, and NumPy's spelling
_NUMPY_OPERATORS = {ast.Div: "divide", ast.Pow: "power", ast.FloorDiv: "floor_divide",
                    ast.Mod: "mod"}


class _NumpyOperators(ast.NodeTransformer):
    """``a / b`` -> ``np.divide(a, b)`` (and ``**``, ``//``, ``%``) where Python's operator could
    raise on two Python floats; not ``/`` by a nonzero literal. Also where an operand is a NumPy
    number (``ans``): the derivative of this code (second order) then reads NumPy's operator,
    whose rule keeps NumPy's semantics, not Python's.

    For a function with Python's semantics (``numpy_numbers`` false: ``x ** 0.5``, ``math.pow``)
    only a power to an exponent below 0 or not a literal, as ``power_of`` (srcad.runtime): the
    primal ``0.0 ** 0.5`` is 0, but its derivative's ``0.0 ** -0.5`` raises (``power_of``
    gives inf, the derivative, and Python's complex value where Python gives one); to a literal
    exponent of 0 or more it raises only where the primal did (``x ** 2`` stays)."""

    def __init__(self, helpers, numpy_numbers):
        self.helpers = helpers
        self.np = helpers.get("np", "np")
        self.numpy_numbers = numpy_numbers

    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = _NUMPY_OPERATORS.get(type(node.op))
        if name is None or (not self.numpy_numbers and (
                name != "power" or _nonnegative_literal(node.right))):
            return node
        if name != "power" and _is_num(node.right) and node.right.value != 0:
            return node
        if not self.numpy_numbers:  # Python's value (maybe complex), never its exception
            func = ast.Name(id=self.helpers.get("power_of", "power_of"), ctx=ast.Load())
        else:
            func = ast.Attribute(value=ast.Name(id=self.np, ctx=ast.Load()), attr=name,
                                 ctx=ast.Load())
        return ast.Call(func=func, args=[node.left, node.right], keywords=[])


class _Substitute(ast.NodeTransformer):
    def __init__(self, names, scalar, helpers, numpy_numbers=False):
        self.names = names
        self.scalar = scalar
        self.helpers = helpers
        self.numpy_numbers = numpy_numbers

    def visit_Name(self, node):
        if node.id in self.names:
            return copy_tree(self.names[node.id])
        if node.id in GENERIC:
            spelling = GENERIC[node.id][0 if self.scalar else 1]
            if self.numpy_numbers and spelling.startswith("math."):  # math.cos(inf) raises
                spelling = GENERIC[node.id][1]
            return dotted(self._hygienic(spelling))
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


def _number(node):
    """The value of a number literal, ``-2.5`` included (a minus and a constant), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_num(
            node.operand):
        return -node.operand.value
    return node.value if _is_num(node) else None


def _nonnegative_literal(node):
    return _is_num(node) and node.value >= 0


def _literal(node):
    """Whether ``node`` is a literal: a constant, ``-1``, a tuple of literals (``(0, 1)``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    return isinstance(node, ast.Tuple) and all(_literal(e) for e in node.elts)


def simplify(node):
    node = _Simplify().visit(node)
    return ast.fix_missing_locations(node)


def _is_where(node):
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "where") or (
        isinstance(func, ast.Attribute) and func.attr == "where"
        and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy"))


class _Simplify(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        if _is_where(node) and len(node.args) == 3 and _number(node.args[0]) is not None:
            return node.args[1] if _number(node.args[0]) else node.args[2]  # a known condition
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        left, ops, right = node.left, node.ops, node.comparators
        if len(ops) == 1 and isinstance(ops[0], (ast.Is, ast.IsNot)) and all(
            _literal(n) for n in (left, right[0])
        ):  # ``axis is not None`` once a value is in: Python warns on ``-1 is not None``
            none = [isinstance(n, ast.Constant) and n.value is None for n in (left, right[0])]
            if not any(none):
                return node  # two literals, neither None: left as written
            same = all(none)
            return ast.Constant(value=same if isinstance(ops[0], ast.Is) else not same)
        if len(ops) == 1 and type(ops[0]) in _TESTS and all(_literal(n) for n in (left,
                                                                                 right[0])):
            # ``trans in (1, 'T', 'C')`` once the option is in: a known test
            return ast.Constant(value=bool(_TESTS[type(ops[0])](ast.literal_eval(left),
                                                                ast.literal_eval(right[0]))))
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
            return node.body if node.test.value else node.orelse
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if getattr(node, "copies", False):
            return node  # ``v * 1.0`` written to copy an array (tidy_values._unaliased)
        left, right, op = node.left, node.right, type(node.op)
        exact = getattr(node, "exact", False)  # the user's own operation: nodes._exact
        if exact and not (_is_num(left) and _is_num(right)):
            return node
        if _number(left) is not None and _number(right) is not None and op in _FOLD:
            try:
                value = _FOLD[op](_number(left), _number(right))
            except (ArithmeticError, ValueError):
                return node
            if isinstance(value, (int, float)) and abs(value) < 1e15:
                return ast.Constant(value=value) if value >= 0 else ast.UnaryOp(
                    op=ast.USub(), operand=ast.Constant(value=-value))
        if op is ast.Mult:
            folded = _fold_product(node)
            if folded is not None:
                return folded
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
        if op in (ast.Add, ast.Sub):
            factored = _common_factor(left, right, node.op)
            if factored is not None:
                return factored
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
        if getattr(node, "exact", False):
            return node  # the user's own operation: nodes._exact
        inner = node.operand
        if isinstance(node.op, ast.USub):
            if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.USub):
                return inner.operand
            if _is_num(inner) and isinstance(inner.value, float) and inner.value == 0:
                return inner
        if isinstance(node.op, ast.UAdd):
            return inner
        return node


def _factors(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _product(factors):
    out = factors[0]
    for f in factors[1:]:
        out = ast.BinOp(left=out, op=ast.Mult(), right=f)
    return out


def _negated(node):
    """``(a, True)`` for ``-a``, else ``(node, False)``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not getattr(
            node, "exact", False):
        return node.operand, True
    return node, False


def _common_factor(left, right, op):
    """``g * a + g * b`` -> ``g * (a + b)`` when both products start with the same name:
    one multiplication fewer (a whole array's worth when ``g`` is an array gradient). A
    product negated on either side keeps its sign inside: ``-(g * a) + g * b`` ->
    ``g * (b - a)``, ``g * a - -(g * b)`` -> ``g * (a + b)`` (forward mode's tangent of
    ``(-x) * x``: ``-dx * x + dx * t``)."""
    left, left_neg = _negated(left)
    right, right_neg = _negated(right)
    if left_neg or right_neg:  # (the right one's sign as the sum sees it)
        return _signed_common_factor(left, left_neg, right, right_neg ^ (op.__class__ is ast.Sub))
    split = _split_first_name(left, right)
    if split is None:
        return None
    head, a, b = split
    inner = ast.BinOp(left=a, op=op, right=b)
    return ast.BinOp(left=ast.Name(id=head.id, ctx=ast.Load()), op=ast.Mult(), right=inner)


def _split_first_name(left, right):
    """``(g, a, b)`` for the products ``g * a`` and ``g * b`` (``a``, ``b`` the rest of each
    product), or None when they do not start with the same name."""
    lf, rf = _factors(left), _factors(right)
    if len(lf) < 2 or len(rf) < 2:
        return None
    head = lf[0]
    if not (isinstance(head, ast.Name) and isinstance(rf[0], ast.Name) and rf[0].id == head.id):
        return None
    return head, _product(lf[1:]), _product(rf[1:])


def _signed_common_factor(left, left_neg, right, right_neg):
    """``(±g * a) + (±g * b)`` as ``g * (...)``, or None (no common first name)."""
    split = _split_first_name(left, right)
    if split is None:
        return None
    head, a, b = split
    if left_neg and right_neg:  # -(g a) - g b: -(g * (a + b))
        inner = ast.BinOp(left=ast.Name(id=head.id, ctx=ast.Load()), op=ast.Mult(),
                          right=ast.BinOp(left=a, op=ast.Add(), right=b))
        return ast.UnaryOp(op=ast.USub(), operand=inner)
    if left_neg:  # -(g a) + g b
        inner = ast.BinOp(left=b, op=ast.Sub(), right=a)
    elif right_neg:  # g a - g b
        inner = ast.BinOp(left=a, op=ast.Sub(), right=b)
    else:  # g a - -(g b)
        inner = ast.BinOp(left=a, op=ast.Add(), right=b)
    return ast.BinOp(left=ast.Name(id=head.id, ctx=ast.Load()), op=ast.Mult(), right=inner)


def _fold_product(node):
    """A product with several literal factors: multiply them, put the literal first."""
    factors = _factors(node)
    numbers = [f for f in factors if _is_num(f)]
    if len(numbers) < 2:
        return None
    value = 1
    for f in numbers:
        value *= f.value
    rest = [f for f in factors if not _is_num(f)]
    if not rest:
        return ast.Constant(value=value)
    product = rest[0]
    for f in rest[1:]:
        product = ast.BinOp(left=product, op=ast.Mult(), right=f)
    if value == 1:
        return product
    if value == -1:
        return ast.UnaryOp(op=ast.USub(), operand=product)
    constant = ast.Constant(value=abs(value))
    out = ast.BinOp(left=constant, op=ast.Mult(), right=product)
    return out if value > 0 else ast.UnaryOp(op=ast.USub(), operand=out)

