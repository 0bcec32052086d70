"""The last rewrite of code made for duck arrays (Dask, CuPy: :func:`srcad.core.kinds.duck_array`).

The code srcad generates for such arrays is the code it generates for NumPy arrays, with one
difference, made here on the tree: ``np.full(shape, v)``, which NumPy computes from ``v``
whatever it is (a lazy Dask number would be computed on the spot), becomes
``np.broadcast_to(v, shape).copy()``, which NumPy's dispatch hands to ``v``'s library. The
sweep writes ``np.full`` where a gradient holding one number for every element is handed to
the user. Code made for NumPy arrays never passes through here.

Imports only ``srcad.transform.nodes``.
"""

from __future__ import annotations

import ast

from ..transform.nodes import attr, call


def for_duck_arrays(fdef, np_name="np"):
    """``fdef`` with every ``np.full(shape, v)`` written ``np.broadcast_to(v, shape).copy()``."""
    return _Full(np_name).visit(fdef)


class _Full(ast.NodeTransformer):
    def __init__(self, np_name):
        self.np_name = np_name

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func
        if (isinstance(fn, ast.Attribute) and fn.attr == "full" and isinstance(fn.value, ast.Name)
                and fn.value.id == self.np_name and len(node.args) == 2 and not node.keywords
                and not any(isinstance(a, ast.Starred) for a in node.args)):
            shape, value = node.args
            spread = call(attr(self.np_name, "broadcast_to"), value, shape)
            return ast.copy_location(call(attr(spread, "copy")), node)
        return node
