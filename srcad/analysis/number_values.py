"""Which names certainly hold numbers (booleans, integers, floats, complex numbers) or arrays
of them: a must-analysis beside :mod:`srcad.analysis.dtypes`, for what may raise
(:mod:`srcad.analysis.raise_facts`).

The code is made for the kinds of values, not their dtypes: an array of strings or of Python
objects made in the function (``np.array(['a', 'b'], dtype=object)``, ``np.array([None])``,
``np.full(2, 'a')``) is of the array kind, and so is an item of it. NumPy raises for ``o + 1``,
``o * o``, ``np.add(o, 1.0)`` of such arrays (``TypeError``: ``str + int``, ``None * None``),
so an operation whose result nothing reads may be dropped (the dead-code passes) only where
its arrays hold numbers. (An argument of dtype object is a value of no number kind,
:func:`srcad.core.kinds.kind_of_value`; one of strings is of the array kind, and a parameter
not differentiated nor given floats is not known here to hold numbers.)

After :func:`number_values`, a name in the set it returns holds, whenever the function runs
with arguments of the kinds it was made for, a number or an array of numbers (a list or a
tuple: only such items). It is the greatest solution of these facts:

* a parameter differentiated or given floats (a callee's other parameters may be given an
  array of strings its caller made); a name :func:`srcad.analysis.dtypes.inexact_values`
  shows to hold floats; a constant number, numeric array, or list or tuple of them;
* a comparison (its result is of booleans), ``not``, ``len``, an attribute (``a.shape``, ``a.T``
  of an array of numbers; a method's result of one: ``a.sum()``, ``a.astype(float)`` with a
  numeric ``dtype``);
* an operation (an operator, a ufunc, a rule of NumPy's, ``np.array``, ``np.zeros``,
  ``np.arange``, ...) none of whose arrays, lists and positional operands is a name not
  known to hold numbers or a constant that is not a number (``np.full(2, None)``), with no
  ``dtype=`` of another kind; a call of a function of yours whose result is of the number or
  array kind (a known gap: a callee returning an item of an array of strings);
* an item of an array or list of numbers; a write ``y[i] = v`` into an array keeps ``y``'s
  dtype (into a list or dict, ``v`` must hold numbers); ``y op= v`` needs both; a loop's
  target, of what it walks; a merge, of every source.

Imports NumPy, :mod:`srcad.core` and its neighbours :mod:`.dtypes` and :mod:`.user_calls`.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from .dtypes import _DTYPE_AT, _in, augmented_operands, defined_names, must_hold
from .user_calls import is_user_call

#: comparisons: their results are booleans (or NumPy raises)
_ORDERS = frozenset({operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
                     operator.ge, operator.not_, operator.is_, operator.is_not, operator.contains,
                     len, np.shape, np.ndim, np.size, isinstance, range})
#: keyword arguments whose value is put into the array made (``np.full(2, fill_value='a')``)
_FILLS = frozenset({"fill_value", "object", "a", "x", "b", "y"})


def number_constant(value, depth=0):
    """Whether the constant ``value`` is a number, an array of numbers, or a list or tuple of
    them."""
    if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biufc"
    if isinstance(value, (list, tuple)) and depth < 8:
        return all(number_constant(v, depth + 1) for v in value)
    return False


def number_values(analysis, floats=()):
    """The names of ``analysis.fn`` certainly holding numbers or arrays of them (see the
    module); ``floats``, the names certainly of floats, are among them."""
    fn = analysis.fn
    augmented = dict(getattr(fn, "augmented", {}))
    targets = {s.target for s in ir.walk(fn.body) if isinstance(s, ir.Loop) and s.target}
    params = set(analysis.wrt) | set(getattr(analysis, "inexact_params", ()))
    known = defined_names(fn) | targets | params | set(floats)
    return must_hold(fn, known, lambda stmt: _facts(stmt, known, analysis, augmented, floats))


def _facts(stmt, known, analysis, augmented, floats):
    """(name, whether this statement shows it holds numbers) for what ``stmt`` defines."""

    def atom(a):
        if isinstance(a, ir.Var):
            return a.name in known
        return not isinstance(a, ir.Const) or number_constant(a.value)

    if isinstance(stmt, ir.Assign) and stmt.target is not None:
        value = stmt.value
        if stmt.target in floats:
            return
        if stmt.target in augmented:  # y op= v: y's dtype kept, v converted to it or raising
            ok = atom(ir.Var(augmented[stmt.target]))
            yield stmt.target, ok and isinstance(value, ir.Prim) and all(
                atom(a) for a in augmented_operands(value, augmented[stmt.target]))
        elif isinstance(value, ir.Prim):
            yield stmt.target, _prim(value, atom, analysis, stmt.target)
        else:
            yield stmt.target, atom(value)
    elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and isinstance(
            stmt.value.fn, ir.Method) and stmt.value.fn.name in ("append", "insert", "extend"):
        lst = stmt.value.args[0]  # a list given a string is not a list of numbers
        if isinstance(lst, ir.Var) and not all(atom(a) for a in stmt.value.args[1:]):
            yield lst.name, False
    elif isinstance(stmt, ir.SetItem):
        ok = atom(stmt.obj)
        if analysis.kind(stmt.obj) != ARRAY:
            ok = ok and atom(stmt.value)
        yield stmt.target, ok
    elif isinstance(stmt, ir.Loop) and stmt.target:
        yield stmt.target, stmt.iter is not None and atom(stmt.iter)
    for phi in getattr(stmt, "phis", ()):
        yield phi.target, all(atom(s) for s in phi.sources if s is not None and s != ir.UNSET)


def _prim(prim, atom, analysis, target):
    fn, args, kwargs = prim.fn, prim.args, prim.kwargs
    if _in(fn, _ORDERS):
        return True
    if isinstance(fn, ir.Attr):
        return fn.name in ("shape", "ndim", "size", "dtype") or bool(args) and atom(args[0])
    if isinstance(fn, ir.Build) and fn is ir.BUILD_DICT:
        return all(atom(a) for a in args[1::2])
    dtype = kwargs.get("dtype")
    at = _DTYPE_AT.get(fn) if _in(fn, _DTYPE_AT) else None
    if dtype is None and at is not None and len(args) > at:
        dtype = args[at]
    if isinstance(fn, ir.Method) and fn.name == "astype":
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if dtype is None:
            return False
    if dtype is not None and not (isinstance(dtype, ir.Const) and (
            dtype.value is None or _number_type(dtype.value))):
        return False
    if is_user_call(prim):  # (a known gap: a callee's item of an array of strings)
        return analysis.kinds.get(target) in (SCALAR, ARRAY)
    if fn is operator.getitem:  # (an item of what holds numbers, whatever the key)
        return atom(args[0])
    method = isinstance(fn, ir.Method)
    if method or isinstance(fn, ir.Build) or analysis.kinds.get(target) in (SCALAR, ARRAY, SEQ):
        parts = [a for k, a in enumerate(args[1:] if fn is np.einsum else args)
                 if not _index(a) and not _named(a, method and k > 0)] + [
            v for k, v in kwargs.items() if k != "dtype" and not (k not in _FILLS and isinstance(
                v, ir.Const) and (v.value is None or isinstance(v.value, str)))]
        return all(atom(a) for a in parts)
    return False


def _index(a):
    """Whether ``a`` is an index or slice (its parts are read as positions)."""
    return isinstance(a, (ir.Slice, ir.Index))


def _named(a, keys):
    """Whether ``a`` is a constant naming a type (``np.zeros(3, float)``, ``a.astype(int)``:
    a numeric one, or the call was answered above) or, with ``keys``, a method's string
    (``d.get('w')``)."""
    return isinstance(a, ir.Const) and (isinstance(a.value, (type, np.dtype)) or keys and (
        isinstance(a.value, str)))


def _number_type(value):
    try:
        return np.dtype(value).kind in "biufc"
    except TypeError:
        return False
