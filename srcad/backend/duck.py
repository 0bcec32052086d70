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

* a call of NumPy's makers of constants (``np.eye(n)``, ``np.zeros(shape)``, ``np.arange(n)``:
  :data:`srcad.runtime.routes.CONSTANTS`) in a rule's template or the user's code is called
  through :func:`srcad.runtime.routes.constant_form` (bound as ``library_eye``): the constant
  is made by NumPy and moved to the library of the running code's arguments where that
  library refuses a NumPy array beside its own (CuPy), and read as the call itself when the
  code is differentiated again.

* a call of a function ``f`` that NumPy's dispatch does not hand to the array's library
  (:func:`srcad.runtime.routes.routed`: ``np.sort``, which Dask lacks and computes; SciPy's
  functions but its ufuncs, which convert their arguments to NumPy arrays; the gradient
  helpers of ``np.sort``) calls ``f``'s form in the library of its arguments instead
  (:func:`srcad.runtime.routes.library_form`), bound to a name of the generated function
  (``library_sort``, ``library_solve``): the library's own form where it has one (lazy on
  Dask), a :class:`srcad.BackendError` naming the library and the function where it has
  none. srcad reads a call of the form as a call of ``f`` (the same numbers:
  :func:`srcad.runtime.routes.original`), so the code can be differentiated again. The
  callee is found by its spelling (a dotted name that no local of the generated function
  rebinds, read in the helpers, the user's closure and globals, through modules and
  SciPy's objects only), forward sweep and templates alike.

Code made for NumPy arrays never passes through here.

Imports NumPy, ``srcad.runtime.routes`` and ``srcad.transform.nodes``.
"""

from __future__ import annotations

import ast
import types

import numpy as np

from ..core.walk import walk_nodes
from ..runtime import routes
from ..transform.nodes import attr, call, name

#: functions of ``math`` that NumPy has as ufuncs of the same name and meaning, with their
#: number of arguments (not ``floor``/``ceil``/``trunc``, which give ints in ``math``;
#: ``remainder``, which is another operation; ``log`` with a base)
_SAME_AS_NUMPY = {
    **dict.fromkeys(("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                     "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2",
                     "log10", "log1p", "sqrt", "cbrt", "fabs"), 1),
    **dict.fromkeys(("atan2", "hypot", "copysign"), 2),
}


def for_duck_arrays(fdef, spelled, helper_objects, visible, fresh):
    """``(fdef, cells)``: ``fdef`` with the calls above written in ``x``'s library, and the
    cells it reads the routed functions' forms from, by name (``spelled``: each helper's
    spelling in ``fdef``; ``helper_objects``: helper name -> object; ``visible``: the user's
    globals and closure values, name -> value; ``fresh``: a new name from a stem)."""
    names = dict(visible)
    names.update((spelled.get(h, h), obj) for h, obj in helper_objects.items())
    local = {a.arg for a in walk_nodes(fdef.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in walk_nodes(fdef) if isinstance(n, ast.Name)
              and not isinstance(n.ctx, ast.Load)}
    modules = tuple({type(obj) for obj in helper_objects.values()
                     if type(obj).__name__ == "_LazyModule"}) + (types.ModuleType,)
    spread = _Spread(spelled.get("np", "np"), fresh, names, local, modules,
                     spelled.get("shape_of", "shape_of"))
    fdef = spread.visit(fdef)
    return fdef, {n: types.CellType(form) for n, form in spread.forms.values()}


class _Spread(ast.NodeTransformer):
    def __init__(self, np_name, fresh, names, local, modules, shape_of):
        self.np_name = np_name
        self.shape_of = shape_of  # the helper's spelling: shape_of(a, b) is read as a * b
        self.fresh = fresh
        self.forms = {}  # routed function -> (name, its form)
        self.names = names  # spelling -> object, for the names no local rebinds
        self.local = local
        self.modules = modules  # the objects whose attributes a callee is looked up in

    def _callee(self, node):
        """The object a callee's spelling (``np.sort``, ``scipy.linalg.solve``, ``solve``)
        names, or None."""
        path = []
        while isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.local or node.id not in self.names:
            return None
        obj = self.names[node.id]
        for part in reversed(path):  # through modules, and SciPy's objects (scipy.stats.norm)
            if not isinstance(obj, self.modules) and not (
                    getattr(type(obj), "__module__", None) or "").startswith("scipy."):
                return None
            obj = getattr(obj, part, None)
        return obj

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
        ``np.shape(t * u)``, which the generated code evaluates for its shape only), ``a * b``
        for ``shape_of(a, b)`` (the shape the arrays broadcast to: on Dask, ``a * b`` is one
        more lazy array, chunked like them), else None."""
        if self._np_call(node, "shape", 1):
            return node.args[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == self.shape_of) and node.args and not node.keywords and not any(
                isinstance(a, ast.Starred) for a in node.args):
            like = node.args[0]
            for more in node.args[1:]:
                like = ast.BinOp(left=like, op=ast.Mult(), right=more)
            return like
        return None

    def _ones_times(self, like, dtype, value, node):
        ones = call(attr(self.np_name, "ones_like"), like, dtype=dtype)
        return ast.copy_location(ast.BinOp(left=ones, op=ast.Mult(), right=value), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func
        callee = self._callee(fn)
        if routes.routed(callee):
            if callee not in self.forms:
                form = routes.library_form(callee)
                self.forms[callee] = (self.fresh(f"library_{callee.__name__}"), form)
            node.func = name(self.forms[callee][0])
            return node
        if routes.makes_constant(callee) and not any(k.arg == "like" for k in node.keywords):
            if callee not in self.forms:
                form = routes.constant_form(callee)
                self.forms[callee] = (self.fresh(f"library_{callee.__name__}"), form)
            node.func = name(self.forms[callee][0])
            return node
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
