"""Which names certainly hold double-precision values (float64 or complex128): a
must-analysis beside :mod:`srcad.analysis.dtypes`.

Python's ``y op= v`` of an array keeps ``y``'s dtype (:mod:`srcad.frontend.augmented_casts`):
where ``y`` is certainly float64 and ``v`` real, ``y op v`` is float64 already, and no cast is
written. The code is made for argument kinds, and the key tells float64 arrays from other
floats' (``srcad.backend.keys``): a parameter given float64 arrays, ``np.float64`` numbers
or lists and tuples of them (:data:`srcad.core.kinds.DOUBLE`) is known; any other name is,
when, on every path, it is:

* made by ``np.zeros``, ``np.ones``, ``np.empty``, ``np.eye``, ... without ``dtype=`` (float64
  by default), or a float64/complex128 constant array;
* ``*_like``/``np.copy`` of a double array, or a method keeping its object's dtype (``copy``,
  ``reshape``, ``sum``, ...) of one, or an item or slice of one;
* arithmetic (an operator, ``-a``) with a double operand whose other operand is double or a
  Python number (NumPy's weak scalars: ``2``, ``0.5``, ``1j`` do not widen the dtype); a
  ufunc whose float64 loop gives float64 of such operands; a join (``np.concatenate``,
  ``np.array``, ...) of a double list or tuple; a reduction of a double array;
* a list or tuple built of doubles, an item of one, a loop's target over a double value:
  lists only while no statement may put into a list (any: names share them) an item not
  certainly double (:func:`_fills_lists`);
* a callee's result, read from the callee given its double arguments
  (``Callees.result_double``); a callee's double arguments go into its kinds
  (:func:`with_doubles`);
* ``y op= v`` of a double ``y`` (NumPy, and the cast, keep ``y``'s dtype); a merge of
  doubles.

:func:`double_arrays`: those of kind ARRAY, real, not known to be 0-d, where
:mod:`srcad.backend.float_literals` writes a literal as a float64 constant.

:func:`settle` drops the casts' marks where the cast cannot matter, and keeps a discarded
``y op= v`` that may raise (``y`` not known to hold floats, or ``v`` complex) from the dead
code pass, for every backend.

Imports ``operator``, NumPy, :mod:`srcad.core`, :mod:`srcad.frontend.augmented_casts` and its
neighbours :mod:`.dtypes` (the makers' tables, the inexact values), :mod:`.raise_facts` and
:mod:`.user_calls`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, DOUBLE, OTHER, SCALAR, SEQ
from ..frontend.augmented_casts import left_operand
from . import raise_facts
from .dtypes import (
    _DTYPE_AT,
    _FLOAT_MAKERS,
    _LIKE,
    _SAME,
    _in,
    defined_names,
    inexact_values,
    must_hold,
)
from .user_calls import bind_call, is_user_call

_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.matmul, operator.neg, operator.pos}
_MAKERS = _FLOAT_MAKERS - {float, np.float64}  # (a number: weak in arithmetic, not an array)


def double_constant(value):
    return isinstance(value, np.ndarray) and value.dtype.char in "dD"


def double_values(analysis):
    """The names of ``analysis.fn`` certainly holding float64 or complex128 arrays or NumPy
    numbers, or lists and tuples of only such values (see the module)."""
    fn = analysis.fn
    if getattr(analysis, "_solving", False):
        return set()  # (kinds not known yet: asked again once they are)
    found = analysis.__dict__.get("_double_known")
    if found is not None:
        return found
    augmented = dict(getattr(fn, "augmented", {}))
    given = set(getattr(analysis, "double_params", ())) & set(fn.params)
    targets = {s.target for s in ir.walk(fn.body) if isinstance(s, ir.Loop) and s.target}
    known = (defined_names(fn) - set(fn.params)) | given | targets
    seqs = {n for n in known if analysis.kinds.get(n) == SEQ}
    found = must_hold(fn, known, lambda stmt: _facts(stmt, known, augmented, analysis, seqs))
    analysis._double_known = found
    return found


def double_arrays(analysis):
    """The names of ``analysis.fn`` certainly holding float64 arrays (real, of kind ARRAY,
    not known to be of rank 0): where a number literal meeting one in arithmetic may be a
    float64 0-d array (:mod:`srcad.backend.float_literals`) with no change to any result
    (a 0-d array or a NumPy number it may still be gives the same NumPy number either way:
    only slower, so a name known to be of rank 0 is left out)."""
    return {n for n in double_values(analysis) if analysis.kinds.get(n) == ARRAY
            and analysis.ranks.get(n) != 0 and not analysis.is_complex(ir.Var(n))}


def with_doubles(an, kinds, arguments):
    """``kinds`` of a call's arguments with :data:`~srcad.core.kinds.DOUBLE` for those
    certainly of float64 (arrays, NumPy numbers, lists of them), if any."""
    known = double_values(an)
    names = tuple(sorted(p for p, a in arguments.items() if isinstance(a, ir.Var)
                         and a.name in known and not an.is_complex(a)))
    return {**kinds, DOUBLE: names} if names else kinds


def double_result(analysis):
    """Whether every ``return`` of ``analysis.fn`` gives a value :func:`double_values` holds."""
    known = double_values(analysis)
    values = [s.value for s in ir.walk(analysis.fn.body) if isinstance(s, ir.Return)]
    return bool(values) and all(
        isinstance(v, ir.Var) and v.name in known and not analysis.is_complex(v)
        or isinstance(v, ir.Const) and double_constant(v.value) for v in values)


def _facts(stmt, known, augmented, analysis=None, seqs=()):
    def atom(a):
        if isinstance(a, ir.Var):
            return a.name in known
        return isinstance(a, ir.Const) and double_constant(a.value)

    if analysis is not None and _fills_lists(stmt, atom, augmented, analysis):
        for name in seqs:  # a list may take an item not of float64: no list is known
            yield name, False  # (another name may hold the same list)
    if isinstance(stmt, ir.Assign) and stmt.target is not None:
        value = stmt.value
        if stmt.target in augmented:
            yield stmt.target, atom(ir.Var(augmented[stmt.target])) and (
                analysis is None or analysis.kinds.get(stmt.target) != SEQ)
        elif isinstance(value, ir.Prim):
            yield stmt.target, _prim(value, atom, analysis)
        else:
            yield stmt.target, atom(value)
    elif isinstance(stmt, ir.SetItem):  # y[i] = v keeps y's dtype
        yield stmt.target, stmt.target is not None and atom(stmt.obj) and (
            analysis is None or analysis.kinds.get(stmt.obj.name) != SEQ or atom(stmt.value))
    elif isinstance(stmt, ir.Loop) and stmt.target:  # the rows or items of a double value
        yield stmt.target, isinstance(stmt.iter, ir.Var) and atom(stmt.iter)
    for phi in getattr(stmt, "phis", ()):
        yield phi.target, all(atom(s) for s in phi.sources if s is not None and s != ir.UNSET)


#: list methods that put no new item in
_KEEPS_ITEMS = {"pop", "copy", "index", "count", "get", "keys", "values", "items", "clear",
                "remove", "reverse"}
#: functions that never write into a list they are given
_READS_ONLY = {len, operator.getitem, list, tuple, sorted, reversed, enumerate, zip, range,
               isinstance, min, max, sum, id, iter}


def _fills_lists(stmt, atom, augmented, analysis):
    """Whether ``stmt`` may put into a list (any list: names may share one) an item not
    certainly of float64, or hand a list to code that may."""
    if isinstance(stmt, ir.SetItem):
        return analysis.kinds.get(stmt.obj.name) == SEQ and not atom(stmt.value)
    value = getattr(stmt, "value", None)
    if not isinstance(value, ir.Prim):
        return False
    operands = list(value.args) + list(value.kwargs.values())
    lists = [a for a in operands if isinstance(a, ir.Var) and analysis.kinds.get(a.name) == SEQ]
    target = getattr(stmt, "target", None)
    if target in augmented and analysis.kinds.get(target) == SEQ:
        return not all(atom(a) for a in operands)  # ys += [v]: extends the list in place
    if not lists:
        return False
    fn = value.fn
    if isinstance(fn, ir.Method):
        if fn.name in ("append", "insert", "extend"):
            return not atom(value.args[-1])
        return fn.name not in _KEEPS_ITEMS
    if isinstance(fn, (ir.Build, ir.Attr)) or _in(fn, _READS_ONLY) or _in(fn, _OPERATORS):
        return False
    if getattr(fn, "__module__", None) and str(fn.__module__).startswith("numpy") or (
            isinstance(fn, np.ufunc)):
        return False  # (NumPy writes into out= arrays only)
    call = analysis._user_call(value) if is_user_call(value) else None
    callees = analysis.callees
    return call is None or not (hasattr(callees, "writes_nothing")
                                and callees.writes_nothing(*call[:3]))


def _weak(a):
    """A Python number literal (NumPy does not widen an array's dtype for it)."""
    return isinstance(a, ir.Const) and type(a.value) in (int, float, complex, bool)


def _prim(prim, atom, analysis=None):
    fn, args, kwargs = prim.fn, prim.args, prim.kwargs
    if isinstance(fn, (ir.Method, ir.Attr)):
        return fn.name in _SAME and bool(args) and atom(args[0]) and len(args) == 1 and \
            not kwargs
    if isinstance(fn, ir.Build):  # a list or tuple of double values (a dict: not known)
        return analysis is not None and fn in (ir.BUILD_LIST, ir.BUILD_TUPLE) and all(
            atom(a) for a in args)
    at = _DTYPE_AT.get(fn) if _in(fn, _DTYPE_AT) else None
    if "dtype" in kwargs or at is not None and len(args) > at:
        return False
    if fn is operator.getitem:
        return atom(args[0])
    if _in(fn, _MAKERS):
        return True
    if _in(fn, _LIKE):
        return bool(args) and atom(args[0]) and len(args) == 1 and not kwargs
    if _in(fn, _OPERATORS) and not kwargs:
        return any(atom(a) for a in args) and all(atom(a) or _weak(a) for a in args)
    if analysis is None:
        return False
    if isinstance(fn, np.ufunc):  # exp, tanh, add, ...: float64 of float64 (no dtype=)
        return not kwargs and _keeps_double(fn) and any(atom(a) for a in args) and all(
            atom(a) or _weak(a) and not isinstance(a.value, complex) for a in args)
    if _in(fn, _JOINS):  # of a list or tuple of double arrays
        return bool(args) and atom(args[0]) and len(args) <= 2 and set(kwargs) <= {"axis"}
    if _in(fn, _REDUCES):
        return bool(args) and atom(args[0]) and len(args) == 1 and set(kwargs) <= {"axis"}
    if is_user_call(prim) and analysis.callees is not None and hasattr(
            analysis.callees, "result_double"):
        call = bind_call(prim, analysis.kind)
        if call is None or not all(isinstance(a, (ir.Var, ir.Const))
                                   for a in call.arguments.values()):
            return False
        given = [p for p, a in call.arguments.items() if atom(a)]
        return analysis.callees.result_double(prim.fn, call.kinds, call.arity, given)
    return False


#: functions making a float64 array of a list or tuple of float64 arrays (no dtype=)
_JOINS = {np.concatenate, np.stack, np.hstack, np.vstack, np.array, np.asarray,
          np.atleast_1d, np.atleast_2d}
#: functions giving float64 of one float64 array
_REDUCES = {np.sum, np.mean, np.prod, np.max, np.min, np.cumsum, np.ravel, np.transpose,
            np.squeeze, np.copy}


def _keeps_double(ufunc):
    """Whether ``ufunc``'s loop for float64 arguments gives float64 results only."""
    loop = "d" * ufunc.nin + "->"
    return any(t.startswith(loop) for t in ufunc.types) and all(
        set(t[len(loop):]) <= {"d"} for t in ufunc.types if t.startswith(loop))


def settled(fn, analysis, alike=()):
    """:func:`settle` the casts of ``fn``, then the facts of its values the dead code pass
    reads after ``alias.check``'s writes (:func:`srcad.analysis.raise_facts.made`)."""
    settle(fn, analysis)
    return raise_facts.made(fn, analysis, alike)


def settle(fn, analysis):
    """Drop the marks (:func:`srcad.frontend.augmented_casts.mark`) of ``fn`` where the
    cast cannot matter (see the module), for every backend (the Numba backend compiles the
    cast, :mod:`srcad.backend.numba_casts`; Dask, CuPy and array-API arrays take it as
    :func:`srcad.frontend.augmented_casts.kept_dtype` says)."""
    marked = [s for s in ir.walk(fn.body) if getattr(s, "kept_dtype", None)]
    if not marked:
        return
    doubles = double_values(analysis)
    floats = inexact_values(analysis)
    for stmt in marked:
        before = left_operand(stmt)
        real = not analysis.any_complex(stmt.value)
        if before is None or analysis.kind(before) in (SCALAR, SEQ, OTHER) or real and (
                before.name in doubles or before.name in floats and _weak(stmt.value.args[1])):
            stmt.kept_dtype = None  # (y * 0.5 of a float32 y is float32: NumPy's weak scalars)
        elif not (before.name in floats and real):  # may raise: kept where discarded
            stmt.effect = True
