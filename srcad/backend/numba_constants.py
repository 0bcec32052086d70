"""Constant arrays made once, and tuples' tangents kept tuples (the Numba backend).

``np.array([1.0, 0.0])`` passed to a callee (``jvp(potential, (x, w), (np.array([1.0, 0.0]),))``
in a function the outer derivative runs: a seed) is a new array at every call, an allocation
a step where the call is inside a loop. :func:`hoist` writes such a display, every item a float
literal, as a call of a helper returning one array made when the helper is compiled
(``numba_constant_<bytes>()``: its float64 items' bytes in hexadecimal, so that the name says
the value, for the cache on disk too). Numba types an array it holds as a constant
**read-only**: srcad's code copies an array before writing into it (``v_1 = v.copy()``), and
a write into the constant itself would be a typing error, reported as a SrcadError when
Numba compiles, never a changed constant. Only an
argument of a call of a user function's derivative is hoisted, whose value a callee reads:
a display bound to a name, an operand or anything the code itself may write into stays
a new array.

Forward mode writes the tangent of a tuple ``(y, dy)`` as a list display ``[d_y, ddy]``
(:mod:`srcad.transform.forward` marks it ``srcad_of_tuple``); a Numba list is a new object
on the heap, and a list of items of one type only. :func:`rewrite` makes it a tuple display:
the tangent of a tuple is never grown or written into (an item store or ``append`` on it
would be a typing error, reported as a SrcadError, not another value).

:func:`global_ints`: a global (or closure) int or bool a callee's part reads
(``cam[ROT:ROT + 3]`` with ``ROT = 0`` at module level, ADBench's ``ba``) is written as that
constant. srcad records every free name it resolves with a fingerprint that holds an int's
value (``srcad.core.env``): rebinding ``ROT`` makes the code again, as for the Python backend.
A float, read live by Python, stays refused in a callee (the function differentiated gets its
own global numbers as arguments at each call).

Imports ``numpy``; ``numba`` when a helper is made.
"""

from __future__ import annotations

import ast

import numpy as np

PREFIX = "constant_"
MAX_ITEMS = 16


def rewrite(fdef, is_numpy, numba_helper, callees):
    """Rewrite, in ``fdef``, each float-literal display ``np.array([...])`` given as an
    argument of a call of one of ``callees`` (the names the code calls user functions'
    derivatives by) as a call of a constant helper, and each tuple's tangent as a tuple
    display (see the module docstring)."""
    callees = set(callees)
    for node in ast.walk(fdef):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [_tuple(v) for v in value]
            else:
                setattr(node, field, _tuple(value))
        if node.__class__ is ast.Call and node.func.__class__ is ast.Name and (
                node.func.id in callees):
            node.args = [_constant_call(a, is_numpy, numba_helper) or a for a in node.args]


def _tuple(node):
    if node.__class__ is ast.List and getattr(node, "srcad_of_tuple", False):
        return ast.Tuple(elts=node.elts, ctx=node.ctx)
    return node


def _constant_call(node, is_numpy, numba_helper):
    values = _floats(node, is_numpy)
    if values is None:
        return None
    text = np.array(values, dtype=np.float64).tobytes().hex()
    return ast.Call(func=numba_helper(PREFIX + text), args=[], keywords=[])


def _floats(node, is_numpy):
    """The items of ``np.array([f, ...])`` (float literals, a minus sign allowed), or None."""
    if not (node.__class__ is ast.Call and not node.keywords and len(node.args) == 1
            and node.func.__class__ is ast.Attribute and node.func.attr == "array"
            and node.func.value.__class__ is ast.Name and is_numpy(node.func.value.id)
            and node.args[0].__class__ is ast.List and 0 < len(node.args[0].elts) <= MAX_ITEMS):
        return None
    values = []
    for item in node.args[0].elts:
        sign = 1.0
        if item.__class__ is ast.UnaryOp and item.op.__class__ is ast.USub:
            item, sign = item.operand, -1.0
        if item.__class__ is not ast.Constant or type(item.value) is not float:
            return None
        values.append(sign * item.value)
    return values


def helper(name):
    """The compiled helper ``constant_<hex>``: returns the array of those float64 bytes."""
    import numba

    value = np.frombuffer(bytes.fromhex(name[len(PREFIX):]), dtype=np.float64).copy()
    value.setflags(write=False)
    space = {"value": value}
    exec(f"def {name}():\n    return value\n", space)  # noqa: S102 - a name made here
    return numba.njit(space[name])


def global_ints(fdef, value_of):
    """In place: each name ``fdef`` reads that ``value_of`` (name -> the global's or closure
    cell's value, or None for a name of the code's own) finds holding a Python int or bool,
    as that constant (see the module docstring)."""
    for node in ast.walk(fdef):
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, item in enumerate(items):
                if item.__class__ is ast.Name and item.ctx.__class__ is ast.Load and type(
                        value_of(item.id)) in (int, bool):
                    made = ast.copy_location(ast.Constant(value=value_of(item.id)), item)
                    if isinstance(value, list):
                        value[k] = made
                    else:
                        setattr(node, field, made)
