"""Which names certainly hold double-precision values (float64 or complex128): a
must-analysis beside :mod:`srcad.analysis.dtypes`.

Python's ``y op= v`` of an array keeps ``y``'s dtype (:mod:`srcad.frontend.augmented_casts`):
where ``y`` is certainly float64 and ``v`` real, ``y op v`` is float64 already, and no cast is
written. The code is made for argument kinds, not sizes (a float32 array and a float64 one
share it), so a parameter is never known here; a name is, when, on every path, it is:

* made by ``np.zeros``, ``np.ones``, ``np.empty``, ``np.eye``, ... without ``dtype=`` (float64
  by default), or a float64/complex128 constant array;
* ``*_like``/``np.copy`` of a double array, or a method keeping its object's dtype (``copy``,
  ``reshape``, ``sum``, ...) of one, or an item or slice of one;
* arithmetic (an operator, ``-a``) with a double operand whose other operand is double or a
  Python number (NumPy's weak scalars: ``2``, ``0.5``, ``1j`` do not widen the dtype);
* ``y op= v`` of a double ``y`` (NumPy, and the cast, keep ``y``'s dtype); a merge of
  doubles.

:func:`settle` drops the casts' marks where the cast cannot matter, and keeps a discarded
``y op= v`` that may raise (``y`` not known to hold floats, or ``v`` complex) from the dead
code pass, for every backend.

Imports ``operator``, NumPy, :mod:`srcad.core`, :mod:`srcad.frontend.augmented_casts` and its
neighbours :mod:`.dtypes` (the makers' tables, the inexact values) and :mod:`.raise_facts`.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import OTHER, SCALAR, SEQ
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

_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.pow, operator.matmul, operator.neg, operator.pos}
_MAKERS = _FLOAT_MAKERS - {float, np.float64}  # (a number: weak in arithmetic, not an array)


def double_constant(value):
    return isinstance(value, np.ndarray) and value.dtype.char in "dD"


def double_values(analysis):
    """The names of ``analysis.fn`` certainly holding float64 or complex128 arrays or NumPy
    numbers (see the module)."""
    fn = analysis.fn
    augmented = dict(getattr(fn, "augmented", {}))
    known = defined_names(fn) - set(fn.params)
    return must_hold(fn, known, lambda stmt: _facts(stmt, known, augmented))


def _facts(stmt, known, augmented):
    def atom(a):
        if isinstance(a, ir.Var):
            return a.name in known
        return isinstance(a, ir.Const) and double_constant(a.value)

    if isinstance(stmt, ir.Assign) and stmt.target is not None:
        value = stmt.value
        if stmt.target in augmented:
            yield stmt.target, atom(ir.Var(augmented[stmt.target]))
        elif isinstance(value, ir.Prim):
            yield stmt.target, _prim(value, atom)
        else:
            yield stmt.target, atom(value)
    elif isinstance(stmt, ir.SetItem):  # y[i] = v keeps y's dtype
        yield stmt.target, stmt.target is not None and atom(stmt.obj)
    for phi in getattr(stmt, "phis", ()):
        yield phi.target, all(atom(s) for s in phi.sources if s is not None and s != ir.UNSET)


def _weak(a):
    """A Python number literal (NumPy does not widen an array's dtype for it)."""
    return isinstance(a, ir.Const) and type(a.value) in (int, float, complex, bool)


def _prim(prim, atom):
    fn, args, kwargs = prim.fn, prim.args, prim.kwargs
    if isinstance(fn, (ir.Method, ir.Attr)):
        return fn.name in _SAME and bool(args) and atom(args[0]) and len(args) == 1 and \
            not kwargs
    if isinstance(fn, ir.Build):
        return False
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
    return False


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
