"""``y op= v`` keeps ``y``'s dtype, or raises where NumPy raises: a cast emitted with the line.

Python's ``y op= v`` of a NumPy array computes in place (``y.__iadd__(v)``): the result is
cast back to ``y``'s dtype under NumPy's ``same_kind`` rule, and NumPy raises
(``UFuncTypeError``) where that cast is not allowed (a float into an integer or boolean array,
any true division into one, a complex value into a real one). srcad lowers the line to a new
value, ``y_1 = y op v``, which NumPy computes in the wider dtype: a float32 array times a
float64 scalar is float64, an int array plus a float a float array where Python raises. The
statement is marked here (:func:`mark`: a name, an item of a list or dict ``ys[k] op= v``, a
nested item ``M[i][j] op= v``), and its forward copy (:func:`srcad.transform.nodes.statement`
reads the mark) is written ``y_1 = kept_dtype(y op v, y, 'op')``: the value cast back to
``y``'s dtype, or NumPy's own error of the in-place operation.

:func:`srcad.analysis.doubles.settle`, after the analysis, drops the mark where the cast
cannot matter: ``y`` is not an array (a number, a list: Python rebinds or extends), or ``y``
certainly holds float64 values (:func:`srcad.analysis.doubles.double_values`) and ``v`` is
real, or ``y`` certainly holds floats and ``v`` is a Python number (NumPy's weak scalars keep
a float32 ``y * 0.5`` float32). The cast has derivative one in ``y op v`` (as srcad's rule
for ``astype``: gradients and tangents stay float64), zero in ``y``; it is registered as a
rule, so code srcad made is differentiated again (``hessian``). It is the one mechanism for
``y op= v``'s dtype, in every transform and backend (``analysis.soundness`` refuses only
writes in place that carry no cast, ``np.add.at``): under the Numba backend it is compiled
(:mod:`srcad.backend.numba_casts`: the cast, or a refusal when Numba compiles where NumPy
raises); another library's array is cast as its in-place operation would leave it
(:func:`_other`: a Dask array is rebound, an array of the array API standard keeps its dtype
or raises as its library does).

Imports NumPy, :mod:`srcad.core` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import numpy as np

from ..core import ir
from ..rules.registry import defvjp

#: the operator of ``op=`` -> NumPy's ufunc (its error names it)
_UFUNCS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide,
           "//": np.floor_divide, "%": np.remainder, "**": np.power, "@": np.matmul,
           "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor,
           "<<": np.left_shift, ">>": np.right_shift}
#: the operator of ``op=`` -> the in-place method Python calls
_METHODS = {"+": "__iadd__", "-": "__isub__", "*": "__imul__", "/": "__itruediv__",
            "//": "__ifloordiv__", "%": "__imod__", "**": "__ipow__", "@": "__imatmul__",
            "&": "__iand__", "|": "__ior__", "^": "__ixor__", "<<": "__ilshift__",
            ">>": "__irshift__"}
_SIGNS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%",
          "Pow": "**", "MatMult": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^",
          "LShift": "<<", "RShift": ">>"}


def kept_dtype(new, old, op):
    """``new`` (``old op v`` computed as a new value) as Python's ``old op= v`` leaves it:
    cast to ``old``'s dtype where ``old`` is a NumPy array, or NumPy's error where the cast
    is not ``same_kind`` (what the in-place operation raises); another library's array as
    :func:`_other` says."""
    if type(old) is np.ndarray:
        if type(new) is np.ndarray and new.dtype is old.dtype:
            return new  # (the dtype kept: one check)
        return _cast(new, old.dtype, op)
    if isinstance(old, np.ndarray):  # (a subclass: NumPy's in-place operation too)
        return _cast(new, old.dtype, op)
    return _other(new, old, op)


def _other(new, old, op):
    """``old op= v`` where ``old`` is not a NumPy array: Python rebinds ``old`` where its class
    has no in-place method (a number, a Dask array: ``new`` as it is); an array of the array
    API standard (``__array_namespace__``) keeps its dtype or raises as its library's
    in-place operation does on arrays of those two dtypes (array-api-strict raises where the
    dtype would change); any other array (CuPy's) as NumPy's."""
    method = _METHODS.get(op)
    dtype = getattr(old, "dtype", None)
    if method is None or dtype is None or getattr(type(old), method, None) is None or \
            getattr(new, "dtype", dtype) == dtype:
        return new
    space = getattr(old, "__array_namespace__", None)
    if space is None:
        return _cast(new, dtype, op)
    xp = space()
    probe = xp.zeros((), dtype=dtype)  # the library's own rule (and error) for the dtypes
    getattr(probe, method)(xp.zeros((), dtype=new.dtype))
    astype = getattr(xp, "astype", None)  # (the standard's function; an older CuPy: a method)
    return astype(new, dtype) if astype is not None else new.astype(dtype)


def _cast(new, dtype, op):
    got = getattr(new, "dtype", None)
    if got is None or got == dtype:
        return new
    if not np.can_cast(got, dtype, "same_kind"):
        ufunc = _UFUNCS.get(op)
        if ufunc is not None:  # NumPy's own error, naming the ufunc (matmul: of matrices)
            shape = () if ufunc.signature is None else (1, 1)
            ufunc(np.zeros(shape, dtype), np.zeros(shape, got), out=np.zeros(shape, dtype))
        raise TypeError(f"Cannot cast the result of {op}= from {got} to {dtype} with "
                        "casting rule 'same_kind'")
    return new.astype(dtype)


#: compiled with the code calling it under the Numba backend (its Numba form, chosen by type:
#: srcad.backend.numba_casts)
kept_dtype.__srcad_numba_part__ = True
kept_dtype.__srcad_numba_helper__ = "kept_dtype"  # (what Numba's cache on disk keys it by)
#: runs as it is on the array API's arrays (:func:`_other`: their namespace's own functions)
kept_dtype.any_namespace = True

# the cast's derivative is one (as astype's rule: the gradient stays float64), zero in old
defvjp(kept_dtype, "new, old, op", new="g", zero=("old", "op"), jvp=dict(new="t"),
       complex_ok=True)


def sign(node):
    """The operator of an augmented assignment's value (``y + v``), as written."""
    return _SIGNS.get(type(getattr(getattr(node, "value", None), "op", None)).__name__)


def mark(lowerer, after, before, node):
    """Mark the statement that made ``after`` (``before op v``, the last emitted) for the
    cast back to ``before``'s dtype (``before`` None: that statement's left operand)."""
    op = sign(node)
    out = lowerer.out
    if op is None or not out:
        return
    stmt = out[-1]
    if not (isinstance(stmt, ir.Assign) and stmt.target == after and isinstance(
            stmt.value, ir.Prim)) or len(stmt.value.args) != 2:
        return
    before = stmt.value.args[0] if before is None else before  # (M[i][j]: the item read)
    if isinstance(before, ir.Var) and stmt.value.args[0] == before:
        stmt.kept_dtype = (lowerer.bound_name(kept_dtype, "kept_dtype"), op)


def left_operand(stmt):
    """The marked statement's ``y`` (its value's left operand, as passes left it), or None."""
    value = stmt.value
    if isinstance(value, ir.Prim) and len(value.args) == 2 and isinstance(
            value.args[0], ir.Var) and not value.kwargs:
        return value.args[0]
    return None
