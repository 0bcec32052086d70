"""What calls, methods and attributes do to memory, as tables and small tests: which
change their object (:data:`MUTATORS`), which return a view of it or a new object, and
which runtime helpers of srcad's build new values. Read by :mod:`srcad.analysis.memory`
(the memory model) and :mod:`srcad.analysis.alias` (the checks).

Imports only ``srcad.core``, ``srcad.rules``, ``srcad.runtime`` and
:mod:`srcad.analysis.user_calls`.
"""

from __future__ import annotations

import copy
import operator

import numpy as np

from ..core import ir
from ..rules import registry
from ..runtime import containers, family_of
from .user_calls import user_callee

#: constants a message log may hold (``self.errors.append("overflow")``)
_LOGGED = (str, bytes, int, float, bool, type(None))


def log_append(prim, defs):
    """Whether ``prim`` is ``obj.attr.append(c)``: an immutable constant (a message, a
    number) appended to a list read from an attribute (``self.errormsg.append('an f_w goes
    to inf.')`` in a branch that warns). srcad reads every attribute as a constant and an
    append leaves the items before it as they were, so no value a gradient flows through can
    change: the forward sweep appends as Python does, and the statement is not counted as a
    write into the object (:mod:`.effects`, :mod:`.alias`). ``defs``: name -> the statement
    defining it."""
    if not (isinstance(prim, ir.Prim) and isinstance(prim.fn, ir.Method)
            and prim.fn.name == "append" and len(prim.args) == 2 and not prim.kwargs):
        return False
    lst, item = prim.args
    if not _logged(item, defs) or not isinstance(lst, ir.Var):
        return False
    made = defs.get(lst.name)
    return isinstance(made, ir.Assign) and isinstance(made.value, ir.Prim) and isinstance(
        made.value.fn, ir.Attr)


def _logged(atom, defs, depth=0):
    """A literal: a constant of :data:`_LOGGED`, or a tuple display of them."""
    if isinstance(atom, ir.Const):
        return type(atom.value) in _LOGGED or isinstance(atom.value, tuple) and all(
            _logged(ir.Const(v), defs, depth + 1) for v in atom.value)
    made = defs.get(atom.name) if isinstance(atom, ir.Var) and depth < 4 else None
    return isinstance(made, ir.Assign) and isinstance(made.value, ir.Prim) and \
        made.value.fn is ir.BUILD_TUPLE and all(_logged(a, defs, depth + 1)
                                                for a in made.value.args)


#: methods that change their object: the hint for each (None: differentiated on local lists)
MUTATORS = {
    "append": None, "pop": None,
    "insert": "build a new list: ys = ys[:i] + [v] + ys[i:]",
    "extend": "build a new list: ys = ys + list(more)",
    "remove": "build a new list without the item (a comprehension)",
    "reverse": "ys = ys[::-1]",
    "sort": "use ys = sorted(ys) for a list, y = np.sort(y) for an array",
    "clear": "start a new list: ys = []",
    "fill": "y = np.full_like(y, v)",
    "resize": "y = np.resize(y, shape)",
    "put": "flat = y.ravel().copy(); flat[ind] = v; y = flat.reshape(y.shape)",
    "itemset": "y[i] = v",
    "partition": "y = np.partition(y, k)",
    "update": "build a new dict: e = {**d, 'k': v} (or e = dict(d); then e[k] = other[k] "
              "for k in other), or pass the values in",
    "setdefault": "read with d.get(k, default) and build the new dict outside",
    "popitem": "read the items you need and build the new dict outside",
    "add": "hold the values in a list: seen = seen + [k] (k in seen reads it too)",
    "discard": "hold the values in a list: seen = [v for v in seen if v != k]",
    "byteswap": "y = y.byteswap()", "setflags": "leave the array's flags alone",
}

#: methods and attributes whose result may be (a view of) the object's own memory
VIEW_METHODS = {"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze", "diagonal",
                "conj", "conjugate", "getfield"}
VIEW_ATTRS = {"T", "mT", "real", "imag", "flat", "base", "data"}
#: methods and attributes whose result is new (or holds no memory that can be written)
FRESH_METHODS = {"copy", "astype", "flatten", "tolist", "sum", "mean", "prod", "max", "min",
                 "std", "var", "dot", "cumsum", "cumprod", "round", "clip", "any", "all",
                 "argmax", "argmin", "argsort", "nonzero", "count", "index", "item",
                 "trace", "format", "keys", "values", "items", "get", "__len__"}
FRESH_ATTRS = {"shape", "ndim", "size", "dtype", "nbytes", "itemsize", "strides"}
#: functions whose result may be (a view of) an argument's memory
VIEW_FUNCS = {np.asarray, np.asanyarray, np.reshape, np.ravel, np.transpose, np.swapaxes,
              np.moveaxis, np.rollaxis, np.squeeze, np.expand_dims, np.atleast_1d,
              np.atleast_2d, np.atleast_3d, np.broadcast_to, np.broadcast_arrays,
              np.diagonal, np.diag, np.real, np.imag, np.flip, np.fliplr, np.flipud,
              np.rot90, np.ascontiguousarray, np.asfortranarray, np.require, np.split,
              np.array_split, np.hsplit, np.vsplit, np.dsplit, np.conjugate, np.float64,
              np.lib.stride_tricks.as_strided}


def safe_in(fn, collection):
    try:
        return fn in collection
    except TypeError:
        return False


def _generated(fn):
    """Whether ``fn`` is code srcad generated (a callee's backward part, differentiated again):
    what it returns in a tuple are gradients it made, not views of its arguments."""
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename.startswith("<srcad ")


def nested_items(own, fn):
    """What an item of a value that is itself an item of the caller's (an argument's or a
    global's) holds: the caller's items too (``w = p[0]["w"]; w *= 2`` writes into the
    argument). Not in code srcad generated (a callee's backward part differentiated again),
    whose cotangent containers are its own: its writes into their items were always allowed,
    and the third- to fifth-order tests hold them to finite differences."""
    source = getattr(fn, "source", None)
    if source is not None and str(source.filename).startswith("<srcad "):
        return frozenset()
    return frozenset(t for t in own if t[0] in ("arg", "global") and t[-1] == "items")


def _may_keep(prim):
    """Whether ``y.astype(dtype, ..., copy=False)`` may return ``y`` itself."""
    if prim.fn.name != "astype":
        return False
    copy = prim.kwargs.get("copy", prim.args[5] if len(prim.args) > 5 else None)
    return copy is not None and not (isinstance(copy, ir.Const) and copy.value is True)


def _einsum_view(prim):
    """Whether ``prim`` is ``np.einsum`` of one array (``'ii->i'``, ``'ij->ji'``): NumPy
    returns a writeable view of it where no label is summed."""
    if prim.fn is not np.einsum:
        return False
    arrays = [a for a in prim.args if not (isinstance(a, ir.Const) and isinstance(
        a.value, (str, list, tuple)))]
    return len(arrays) <= 1


def ir_mutable(value):
    return isinstance(value, (list, dict, set, np.ndarray, bytearray))


def _union(sets):
    out = frozenset()
    for s in sets:
        out = out | s
    return out


def names_of(atoms):
    return {v.name for a in atoms if a is not None for v in ir.atoms_in(a)}


_ARITH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul, abs,
          operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
          operator.not_, operator.contains, operator.invert, operator.and_, operator.or_,
          operator.xor, len, range, float, int, round, min, max, sum, np.copy}


#: srcad's own runtime helpers that build a new value (generated code differentiated again)
_FRESH_HELPERS = {"fill", "zeros_like", "zeros_array", "scatter", "cleared", "total",
                  "copy_tangent", "add", "added_at"}
#: ... and those among them whose list result holds its arguments' objects (see _assign)
_SHARED_ITEMS = {"fill", "cleared", "added_at"}
#: ... and those among them whose list result holds a new object at every index
_FRESH_ITEMS = {"zeros_like", "grad_array"}


def _fresh_result(fn):
    """Whether ``fn`` certainly returns a new object (or a number)."""
    if family_of(fn) == "runtime" and fn.__name__ in _FRESH_HELPERS:
        return True
    if family_of(fn) and getattr(fn, "__name__", None) == "where":
        return False  # srcad's scalar where(c, a, b) is a or b itself
    if safe_in(fn, _ARITH) or isinstance(fn, (np.ufunc, ir.BoolOp)):
        return fn not in (min, max)  # max(a, b) is one of its arguments
    if getattr(fn, "__module__", None) == "math":
        return True
    if registry.has_rule(fn):  # a rule of yours says nothing of what the function returns:
        # it may be its argument or a view of it (srcad's own rules' functions return new
        # objects, views aside: VIEW_FUNCS)
        return not any(rule.user for rule in registry.rules_for(fn))
    # a function of yours declared constant is read like your others (_callee_memory)
    return registry.is_nondiff(fn) and not user_callee(fn)


# ---------------------------------------------------------------- the checks


#: calls making a new list or dict of what their argument holds
_COPIES = (list, tuple, sorted, dict, containers.dict_values, containers.dict_items,
           containers.dict_keys, copy.copy)
