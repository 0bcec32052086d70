"""What batched forward mode (:mod:`srcad.transform.forward_batched`) writes, rewritten for
Numba where the per-direction code has no such form (called by
:func:`srcad.backend.numba_backend.check` for each call node):

- ``np.stack(arrays, axis=a)``, ``a`` a positive constant: the helper ``stack_<a>``
  (:func:`srcad.backend.numba_batched_helpers.stack_along`);
- ``np.einsum(..., optimize=True)``: the keyword dropped (this backend's einsum is a loop
  nest; NumPy's contraction order differs in the last bits only);
- ``np.broadcast_to(v, s).reshape(t)``: the broadcast made as a new contiguous array first,
  ``broadcast_copy(v, s)`` (Numba reshapes contiguous arrays only; NumPy copies there too,
  and the result of ``broadcast_to`` is read-only, so no write can tell a copy from a view;
  :func:`srcad.backend.numba_batched_helpers.broadcast_copy`: loops, where Numba's
  ``broadcast_to`` compiles its error message's formatting, 5-7 s).

Imports nothing of srcad's; no ``numba``.
"""

from __future__ import annotations

import ast

import numpy as np


def _constant(node, default=None):
    return node.value if node.__class__ is ast.Constant else default


def _of_numpy(func, module_of, attr):
    return (func.__class__ is ast.Attribute and func.attr == attr
            and func.value.__class__ is ast.Name and module_of(func.value.id) is np)


def stack_axis(node):
    """The axis of ``np.stack(a, axis=c)`` or ``np.stack(a, c)``, ``c`` a positive int
    constant, else None."""
    if len(node.args) == 1 and len(node.keywords) == 1 and node.keywords[0].arg == "axis":
        axis = _constant(node.keywords[0].value)
    elif len(node.args) == 2 and not node.keywords:
        axis = _constant(node.args[1])
    else:
        return None
    return axis if type(axis) is int and axis > 0 else None


def rewrite(node, module_of, numba_helper):
    """The call ``node`` rewritten as above (in place), or None where none applies."""
    func = node.func
    if _of_numpy(func, module_of, "stack") and stack_axis(node) is not None:
        node.func = numba_helper(f"stack_{stack_axis(node)}")
        node.args, node.keywords = node.args[:1], []
        return node
    if _of_numpy(func, module_of, "einsum") and [
            (k.arg, _constant(k.value, "")) for k in node.keywords] in (
            [("optimize", True)], [("optimize", False)]):
        node.keywords = []
        return node
    if (func.__class__ is ast.Attribute and func.attr == "reshape"
            and func.value.__class__ is ast.Call and len(func.value.args) == 2
            and not func.value.keywords
            and _of_numpy(func.value.func, module_of, "broadcast_to")):
        func.value.func = numba_helper("broadcast_copy")
        return node
    return None
