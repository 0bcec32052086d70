"""Float arithmetic for float arguments: ``5 - 3 * a`` becomes ``5.0 - 3.0 * a``.

A specialisation is made for the exact classes of its arguments (``float``, not a subclass).
Inside it, some names certainly hold a Python float: the float parameters, and every name
whose assignments all compute a float from floats and number literals. Where an integer
literal meets such a float in arithmetic or a comparison, this pass writes the literal as a
float. Python would convert it anyway (``3 * a`` computes ``3.0 * a``: same value, same
rounding, for integers below 2**53), but float-and-float is the case the interpreter
specialises, and int-and-float takes the generic path: about 20 ns an operation, a fifth
of a small scalar gradient.

The rewrite never changes a value: it runs only where both sides are known, and only for
operations whose result Python computes in floating point either way.

Imports nothing from srcad.
"""

from __future__ import annotations

import ast

from ..core.walk import walk_nodes

#: operations on a float and a float-or-int whose result is a float computed from the two
#: operands converted to float: exactly what writing the int as a float computes
_FLOAT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
_COMPARE_OPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def specialise(fdef, float_params):
    """Rewrite ``fdef`` (an ``ast.FunctionDef``) in place; ``float_params``: the parameters
    whose argument is exactly a ``float`` in this specialisation."""
    floats = _float_names(fdef, set(float_params))
    if floats:
        _Literals(floats).visit(fdef)


def _float_names(fdef, float_params):
    """The names that hold a float whenever they hold anything: a greatest fixed point (start
    from every candidate, drop a name as soon as one assignment may give something else)."""
    assigned, excluded, _ = assignments(fdef, set(float_params))
    floats = (set(float_params) | set(assigned)) - excluded
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in floats and not all(_is_float(v, floats) for v in values):
                floats.discard(name)
                changed = True
    return floats


def assignments(fdef, kept, counts=None):
    """``(assigned, excluded, counters)`` of ``fdef``: each name's assigned expressions (one
    ``Name = e`` each; an ``AugAssign`` as its ``BinOp``), the names bound any other way or
    parameters not in ``kept``, and the targets of ``for`` loops whose iterable ``counts``
    accepts (excluded instead when ``counts`` is None)."""
    assigned = {}
    excluded = set()
    counters = set()
    args = fdef.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        if arg.arg not in kept:
            excluded.add(arg.arg)
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            excluded.add(extra.arg)
    for node in walk_nodes(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            value = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op,
                              right=node.value)
            assigned.setdefault(name, []).append(value)
        elif (counts is not None and isinstance(node, ast.For)
              and isinstance(node.target, ast.Name) and counts(node.iter)):
            counters.add(node.target.id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                excluded |= _names_stored(target)
        elif isinstance(node, (ast.For, ast.With, ast.AnnAssign, ast.NamedExpr,
                               ast.comprehension, ast.ExceptHandler, ast.Delete,
                               ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
                               ast.FunctionDef, ast.Lambda, ast.ClassDef)) and node is not fdef:
            excluded |= _names_stored(node)
    return assigned, excluded, counters


def _names_stored(node):
    """Every name ``node`` may bind (conservative: any Name in a store or del position, and
    the names of definitions, imports, handlers and declarations)."""
    names = set()
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            names.update(sub.names)
        elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.arg):
            names.add(sub.arg)
    return names


def _is_int_literal(node):
    """An integer literal, ``3`` or ``-3``, that a float holds exactly."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return (isinstance(node, ast.Constant) and type(node.value) is int
            and abs(node.value) < 2**53)


def _as_float(node):
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(op=node.op, operand=_as_float(node.operand))
    return ast.Constant(value=float(node.value))


def _is_float(node, floats):
    """Whether ``node`` certainly evaluates to a ``float`` when every name in ``floats``
    holds one."""
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.Name):
        return node.id in floats
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_float(node.operand, floats)
    if isinstance(node, ast.BinOp):
        left, right = node.left, node.right
        if isinstance(node.op, _FLOAT_OPS):
            return (_is_float(left, floats) and (_is_float(right, floats)
                                                 or _is_int_literal(right))
                    or _is_int_literal(left) and _is_float(right, floats))
        if isinstance(node.op, ast.Pow):
            # float ** int is a float; float ** float may be complex ((-8.0) ** (1 / 3))
            return _is_float(left, floats) and _is_int_literal(right)
        return False
    if isinstance(node, ast.IfExp):
        return _is_float(node.body, floats) and _is_float(node.orelse, floats)
    return False


class _Literals(ast.NodeTransformer):
    def __init__(self, floats):
        self.floats = floats

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, _FLOAT_OPS):  # not **: ``x ** 2`` gains nothing as ``x ** 2.0``
            if _is_int_literal(node.right) and _is_float(node.left, self.floats):
                node.right = _as_float(node.right)
            elif _is_int_literal(node.left) and _is_float(node.right, self.floats):
                node.left = _as_float(node.left)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if (isinstance(node.op, _FLOAT_OPS) and _is_int_literal(node.value)
                and isinstance(node.target, ast.Name) and node.target.id in self.floats):
            node.value = _as_float(node.value)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        operands = [node.left] + node.comparators
        for i, op in enumerate(node.ops):
            if not isinstance(op, _COMPARE_OPS):
                continue
            a, b = operands[i], operands[i + 1]
            if _is_int_literal(b) and _is_float(a, self.floats):
                operands[i + 1] = _as_float(b)
            elif _is_int_literal(a) and _is_float(b, self.floats):
                operands[i] = _as_float(a)
        node.left, node.comparators = operands[0], operands[1:]
        return node
