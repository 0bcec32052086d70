"""The last rewrite of code made for duck arrays (Dask, CuPy: :func:`srcad.core.kinds.duck_array`).

The code srcad generates for such arrays is the code it generates for NumPy arrays, but for
two calls the sweep writes to spread one number over an array's shape (a gradient holding the
same number for every element), rewritten here on the tree:

* ``np.full(np.shape(x), v)``, which NumPy makes in memory from ``v`` whatever it is (a lazy
  Dask number would be computed on the spot, and the result be a NumPy array as large as
  ``x``), becomes ``np.ones_like(x, dtype=np.float64) * v``, which NumPy's dispatch hands to
  ``x``'s library: a Dask array chunked like ``x``;
* ``np.broadcast_to(v, np.shape(x))`` with a number ``v`` is a NumPy view as large as ``x``;
  in a Dask graph it is one constant, sent whole to the workers. It becomes
  ``np.ones_like(x, dtype=np.result_type(v)) * v`` (the same numbers and type, chunked like
  ``x``).

* ``math.cos(v)`` (and the functions of ``math`` that NumPy has as ufuncs of the same name
  and meaning, :data:`_SAME_AS_NUMPY`): the analysis takes a reduction over every axis for
  a number, but on duck arrays it is a 0-d array, which ``math`` would compute (a Dask one)
  or refuse (a CuPy one); the ufunc keeps it in its library (on a Python number it gives
  ``math``'s value, to rounding).

Code made for NumPy arrays never passes through here.

Imports only NumPy and ``srcad.transform.nodes``.
"""

from __future__ import annotations

import ast

import numpy as np

from ..transform.nodes import attr, call

#: functions of ``math`` that NumPy has as ufuncs of the same name and meaning, with their
#: number of arguments (not ``floor``/``ceil``/``trunc``, which give ints in ``math``;
#: ``remainder``, which is another operation; ``log`` with a base)
_SAME_AS_NUMPY = {
    **dict.fromkeys(("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                     "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2",
                     "log10", "log1p", "sqrt", "cbrt", "fabs"), 1),
    **dict.fromkeys(("atan2", "hypot", "copysign"), 2),
}


def for_duck_arrays(fdef, np_name="np"):
    """``fdef`` with the two calls above written in ``x``'s library."""
    return _Spread(np_name).visit(fdef)


class _Spread(ast.NodeTransformer):
    def __init__(self, np_name):
        self.np_name = np_name

    def _np_call(self, node, name, nargs):
        if not isinstance(node, ast.Call):  # np.shape(x) or a literal shape (2, 3)
            return False
        fn = node.func
        return (isinstance(fn, ast.Attribute)
                and fn.attr == name and isinstance(fn.value, ast.Name)
                and fn.value.id == self.np_name and len(node.args) == nargs
                and not node.keywords
                and not any(isinstance(a, ast.Starred) for a in node.args))

    def _shape_of(self, node):
        """``x`` when ``node`` is ``np.shape(x)`` (a name, or an expression such as
        ``np.shape(t * u)``, which the generated code evaluates for its shape only), else
        None."""
        if self._np_call(node, "shape", 1):
            return node.args[0]
        return None

    def _ones_times(self, like, dtype, value, node):
        ones = call(attr(self.np_name, "ones_like"), like, dtype=dtype)
        return ast.copy_location(ast.BinOp(left=ones, op=ast.Mult(), right=value), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func
        if (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)
                and fn.value.id == "math" and fn.attr in _SAME_AS_NUMPY
                and len(node.args) == _SAME_AS_NUMPY[fn.attr] and not node.keywords
                and isinstance(getattr(np, fn.attr, None), np.ufunc)):
            return ast.copy_location(ast.Call(func=attr(self.np_name, fn.attr), args=node.args,
                                              keywords=node.keywords), node)
        if self._np_call(node, "full", 2):
            shape, value = node.args
            like = self._shape_of(shape)
            if like is not None:
                return self._ones_times(like, attr(self.np_name, "float64"), value, node)
            spread = call(attr(self.np_name, "broadcast_to"), value, shape)
            return ast.copy_location(call(attr(spread, "copy")), node)
        if self._np_call(node, "broadcast_to", 2):
            value, shape = node.args
            like = self._shape_of(shape)
            if like is not None and isinstance(value, (ast.Name, ast.Constant)):
                dtype = call(attr(self.np_name, "result_type"), value)
                return self._ones_times(like, dtype, value, node)
        return node
