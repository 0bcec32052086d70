"""A float argument's gradient is a float, even where its code computes an int.

The gradient of ``x * n`` with respect to ``x`` is ``n``: written as a person would write it
(``dx = n``), it is the int ``4`` when ``n`` is the int ``4``. The value is right, its type
is not: JAX and autograd give a float for a float argument. This pass finds the gradients of
Python ``float`` parameters that may be a Python int and writes the return as ``float(dx)``.

It converts only where that is certainly an int or a float, never an array, a complex
number or anything unknown (``float()`` of those would raise or lose a value): a name may be
an int only if an int reaches it (an int parameter of this specialisation, an int literal,
``len``, a ``range`` loop's counter, int arithmetic), and every value the name can hold is a
Python number (literals, the specialisation's float and int parameters, arithmetic that
never makes a complex number, ``int``/``float``/``len`` and ``math`` calls). Anything else
(a NumPy call, a saved value popped from a stack) leaves the return as it is.

Imports nothing from srcad but :func:`.floats.assignments`.
"""

from __future__ import annotations

import ast

from ..core.walk import walk_nodes
from .floats import assignments

#: operations of two Python numbers (int or float) that never give a complex number or an
#: array; ``**`` may give a complex number ((-8) ** 0.5) and is left out
_REAL_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
#: of those, the ones whose result is an int when both operands are ints
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
#: ``math`` functions return a float or an int, never a complex number or an array
_NUMBER_CALLS = {"int", "float", "len", "abs", "round"}
_INT_CALLS = {"int", "len", "round"}


def float_gradients(fdef, float_grads, float_params, int_params):
    """Rewrite ``fdef``'s final return in place; ``float_grads`` is a callable taking the
    returned expression and giving the list of (container, index) places holding the
    gradients of float parameters (see :func:`srcad.pipeline.adjoint`)."""
    if not int_params or not fdef.body or not isinstance(fdef.body[-1], ast.Return):
        return
    numbers, ints = _number_names(fdef, set(float_params), set(int_params))
    for holder, index in float_grads(fdef.body[-1]):
        expr = holder[index] if isinstance(holder, list) else getattr(holder, index)
        if not (_is_number(expr, numbers) and _may_be_int(expr, ints)):
            continue
        once = _assigned_once(fdef, expr)
        if once is not None:  # dx = n; return dx: dx = float(n)
            holder, index = once, "value"
            expr = once.value
        new = ast.Call(func=ast.Name(id="float", ctx=ast.Load()), args=[expr], keywords=[])
        if isinstance(holder, list):
            holder[index] = new
        else:
            setattr(holder, index, new)


def _assigned_once(fdef, expr):
    """The one assignment of the name ``expr``, when it is a statement of the function's own
    body (no loop, no branch) and the name is bound nowhere else."""
    if not isinstance(expr, ast.Name):
        return None
    top = [s for s in fdef.body if isinstance(s, ast.Assign) and len(s.targets) == 1
           and isinstance(s.targets[0], ast.Name) and s.targets[0].id == expr.id]
    stores = [n for n in walk_nodes(fdef) if isinstance(n, ast.Name) and n.id == expr.id
              and not isinstance(n.ctx, ast.Load)]
    return top[0] if len(top) == 1 and len(stores) == 1 else None


def _number_names(fdef, float_params, int_params):
    """(names that certainly hold a Python int or float, names that may hold an int)."""
    assigned, excluded, counters = assignments(fdef, float_params | int_params, _counts)
    # a counter also assigned otherwise is left out (its other values are not known)
    excluded |= counters & set(assigned)
    counters -= excluded
    numbers = (float_params | int_params | counters | set(assigned)) - excluded
    changed = True
    while changed:  # greatest fixed point: drop a name as soon as one value may be other
        changed = False
        for name, values in assigned.items():
            if name in numbers and not all(_is_number(v, numbers) for v in values):
                numbers.discard(name)
                changed = True
    ints = (int_params | counters) & numbers
    changed = True
    while changed:  # least fixed point: a name may be an int once one value may be
        changed = False
        for name, values in assigned.items():
            if name in numbers and name not in ints and any(_may_be_int(v, ints)
                                                            for v in values):
                ints.add(name)
                changed = True
    return numbers, ints


def _counts(node):
    """``range(...)`` or ``reversed(range(...))``: a loop over ints."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "range":
            return True
        if node.func.id == "reversed" and len(node.args) == 1:
            return _counts(node.args[0])
    return False


def _call_name(node):
    func = node.func
    if isinstance(func, ast.Name):
        return func.id, None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr, func.value.id
    return None, None


def _is_number(node, numbers):
    """Whether ``node`` certainly gives a Python int or float (bools count as ints)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool)
    if isinstance(node, ast.Name):
        return node.id in numbers
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_number(node.operand, numbers)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _REAL_OPS) and _is_number(
            node.left, numbers) and _is_number(node.right, numbers)
    if isinstance(node, ast.IfExp):
        return _is_number(node.body, numbers) and _is_number(node.orelse, numbers)
    if isinstance(node, ast.Call) and not node.keywords:
        name, module = _call_name(node)
        if module == "math":
            return all(_is_number(a, numbers) for a in node.args)
        if module is None and name in _NUMBER_CALLS:
            return name == "len" or all(_is_number(a, numbers) for a in node.args)
    return False


def _may_be_int(node, ints):
    """Whether ``node`` (a Python number) may give an int."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, bool)
    if isinstance(node, ast.Name):
        return node.id in ints
    if isinstance(node, ast.UnaryOp):
        return _may_be_int(node.operand, ints)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _INT_OPS) and _may_be_int(
            node.left, ints) and _may_be_int(node.right, ints)
    if isinstance(node, ast.IfExp):
        return _may_be_int(node.body, ints) or _may_be_int(node.orelse, ints)
    if isinstance(node, ast.Call):
        name, module = _call_name(node)
        if module == "math":
            return name in ("floor", "ceil", "trunc", "factorial", "comb", "perm", "gcd",
                            "lcm", "isqrt", "prod")
        if module is None and name in _INT_CALLS:
            return True
        if module is None and name == "abs":
            return all(_may_be_int(a, ints) for a in node.args)
    return False
