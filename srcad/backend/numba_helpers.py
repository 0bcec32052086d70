"""The runtime helpers the Numba backend compiles, for the cases it covers.

srcad's helpers (:mod:`srcad.runtime`) are Python functions handling every kind of value.
Under Numba the adjoint of a loop over floats and a 1-D array reads ``check_scalar``, ``add``,
``unbroadcast``, ``unbroadcast_to``, ``sign``, ``where``, ``np.shape``, ``np.sum``,
``np.zeros_like`` and ``scatter`` with numbers; this module gives each a Numba implementation
chosen by type when Numba compiles (``numba.extending.overload``) and refuses, with a typing
error that :func:`srcad.backend.numba_backend.jit` reports as a SrcadError, every case it does
not implement exactly. The ``math`` functions that raise in Python where Numba returns nan or
inf (``math.sin(math.inf)``, say), ``math.floor`` and ``math.ceil`` (an int64 under
Numba, exact in Python), and ``**``, get checked versions that raise as Python does (or refuse
where Python gives an integer past int64).
``X += scatter(v, like, i)`` becomes ``scatter_add(X, v, i)``: ``X[i] += v`` for an index
``i`` made of ints and slices, any rank (``+=`` on an array changes it in place in Python too);
``grad_sum`` is implemented for a sum over every axis and along one, ``unbroadcast`` for
gradients NumPy broadcast (both in :mod:`.numba_axes`, as ``scatter`` at an index holding
``None`` is in :mod:`.numba_arrays`), ``grad_dot_a`` and ``grad_dot_b`` for
the dot product of two vectors; ``zeros_like``, and forward mode's ``like`` and
``copy_tangent``, for numbers and arrays; ``cleared`` at an int, a slice or a tuple of them;
the gradients of lists and tuples (``zeros_like`` of a list, ``mutable``, ``items_at_<indices>``)
in :mod:`.numba_lists`.

Imports ``numba``, :mod:`.numba_axes`, :mod:`.numba_arrays`, :mod:`.numba_lists`,
:mod:`.numba_numbers` (optional numbers), :mod:`.numba_cache` (its cache on disk, saved under a
lock), :mod:`.numba_special` (the digamma family), :mod:`.numba_constants` (only
:mod:`srcad.backend.numba_backend` imports this module, when it compiles).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from . import (
    numba_arrays,
    numba_axes,
    numba_batched_helpers,
    numba_cache,
    numba_constants,
    numba_fuse,
    numba_lists,
    numba_special,
)
from .numba_numbers import _SCALAR, _numbers


def unbroadcast_to(value, shape):
    """Stub (Numba compiles the overload below)."""
    raise NotImplementedError


def shape_of(value):
    """Stub: ``np.shape(value)``."""
    raise NotImplementedError


def sum_of(value):
    """Stub: ``np.sum(value)``."""
    raise NotImplementedError


def zeros_float(like):
    """Stub: ``np.zeros_like(like, dtype=float)``."""
    raise NotImplementedError


def scatter_add(out, value, index):
    """Stub: ``out += scatter(value, out, index)``."""
    raise NotImplementedError


def sign(x):
    """Stub: srcad's ``sign`` of a number."""
    raise NotImplementedError


def where(c, a, b):
    """Stub: srcad's ``where`` of a scalar condition."""
    raise NotImplementedError


def log_base(a, by=None):
    """Stub: srcad's ``log_base`` (the log in ``d/db a ** b``)."""
    raise NotImplementedError


def power_of(a, b, below=-1.0):
    """Stub: srcad's ``power_of`` (``a ** b`` in a derivative, inf where Python raises)."""
    raise NotImplementedError


def check_scalar(y, where=None):
    """Stub: srcad's ``check_scalar``."""
    raise NotImplementedError


def unbroadcast(value, like):
    """Stub: srcad's ``unbroadcast``."""
    raise NotImplementedError


def add(a, b):
    """Stub: srcad's ``add`` of two gradients."""
    raise NotImplementedError


@_numbers(unbroadcast)
def _unbroadcast(value, like):
    if isinstance(value, _SCALAR) and isinstance(like, _SCALAR):
        return lambda value, like: value
    if isinstance(value, types.Array) and isinstance(like, _SCALAR):
        return lambda value, like: np.sum(value)
    if isinstance(value, types.Array) and isinstance(like, types.Array):
        return numba_axes.unbroadcast(value, like)
    raise TypingError(f"srcad's numba backend does not unbroadcast {value} to {like}")


@_numbers(add)
def _add(a, b):
    if isinstance(a, (types.Number, types.Array)) and isinstance(b, (types.Number,
                                                                     types.Array)):
        return lambda a, b: a + b
    return numba_lists.added(a, b, add)  # two lists' gradients, or refused


@_numbers(check_scalar)
def _check_scalar(y, where=None):
    if isinstance(y, (types.Integer, types.Float, types.Boolean)):
        return lambda y, where=None: None
    raise TypingError(f"grad needs a scalar output, got {y}")


@_numbers(sign)
def _sign(x):
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: 1.0 if x > 0 else -1.0 if x < 0 else 0.0
    raise TypingError(f"srcad's numba backend takes the sign of a number, not {x}")


@_numbers(where)
def _where(c, a, b):
    if isinstance(c, (types.Number, types.Boolean)):
        return lambda c, a, b: a if c else b
    raise TypingError(f"srcad's numba backend chooses on a scalar condition, not {c}")


@_numbers(log_base)
def _log_base(a, by=None):  # as the Python backend's: 0 at a < 0 where by is 0, else nan
    scaled = isinstance(by, (types.Float, types.Integer))
    if isinstance(a, types.Array):  # NumPy's log: nan at a negative base, as in NumPy
        if scaled:
            return lambda a, by=None: np.log(np.where((a == 0) | (a < 0) & (by == 0), 1.0, a))
        return lambda a, by=None: np.log(np.where(a == 0, 1.0, a))
    if isinstance(a, (types.Float, types.Integer)) and scaled:
        return lambda a, by=None: math.log(a) if a > 0 else 0.0 if a == 0 or by == 0 else math.nan
    if isinstance(a, (types.Float, types.Integer)):
        return lambda a, by=None: math.log(a) if a > 0 else 0.0 if a == 0 else math.nan
    raise TypingError(f"srcad's numba backend takes log_base of a real number, not {a}")


@_numbers(power_of)
def _power_of(a, b, below=-1.0):  # as the Python backend's; its complex value a ValueError
    if isinstance(a, (types.Float, types.Integer)) and isinstance(b, (types.Float,
                                                                      types.Integer)):
        def impl(a, b, below=-1.0):
            if a < 0 and b != math.floor(b):
                raise ValueError("a negative number to a fractional power is complex")
            if a == 0 and b < below:
                raise ZeroDivisionError("0.0 cannot be raised to a negative power")
            if a == 0 and b < 0:
                return math.inf if b != math.floor(b) or b % 2 == 0 else math.copysign(
                    math.inf, a)
            return float(a) ** b
        return impl
    raise TypingError(f"srcad's numba backend takes power_of of numbers, not {a} and {b}")


@_numbers(unbroadcast_to)
def _unbroadcast_to(value, shape):
    if isinstance(value, types.Number) and isinstance(shape, types.BaseTuple) and (
            len(shape) == 0):
        return lambda value, shape: value
    if isinstance(value, types.Array) and isinstance(shape, types.BaseTuple) and (
            len(shape) == 0):  # an array's gradient broadcast from a number: summed
        return lambda value, shape: np.sum(value)
    if isinstance(value, types.Array) and isinstance(shape, types.BaseTuple) and (
            len(shape) == value.ndim):
        def same(value, shape):
            if value.shape != shape:
                raise ValueError("srcad (numba backend): a broadcast gradient")
            return value
        return same
    raise TypingError(f"srcad's numba backend does not unbroadcast {value} to {shape}")


@_numbers(shape_of)
def _shape_of(value):
    if isinstance(value, (types.Number, types.Boolean)):
        return lambda value: ()
    if isinstance(value, types.Array):
        return lambda value: value.shape
    raise TypingError(f"srcad's numba backend takes no shape of {value}")


@_numbers(sum_of)
def _sum_of(value):
    if isinstance(value, types.Number):
        return lambda value: value
    if isinstance(value, types.Array):
        return lambda value: np.sum(value)
    raise TypingError(f"srcad's numba backend does not sum {value}")


@overload(zeros_float)
def _zeros_float(like):
    if isinstance(like, types.Array):
        return lambda like: np.zeros(like.shape)
    raise TypingError(f"srcad's numba backend makes no zeros like {like}")


def _basic(index):
    """An int, a slice, or a tuple of them: each element reached once (srcad's ``scatter``
    writes the value there; other indices sum with ``np.add.at``, which this does not do)."""
    members = index.types if isinstance(index, types.BaseTuple) else (index,)
    return all(isinstance(t, (types.Integer, types.SliceType)) for t in members)


@overload(scatter_add)
def _scatter_add(out, value, index):
    if isinstance(index, types.BaseTuple) and types.none in index.types:
        return numba_arrays.without_none(value, out, index, add=True)
    if (isinstance(out, types.Array) and isinstance(value, (types.Number, types.Array))
            and _basic(index)):
        def add(out, value, index):
            out[index] += value
        return add
    raise TypingError(f"srcad's numba backend scatters a number or an array at an int, a "
                      f"slice or a tuple of them (got {value} at {index} of {out})")


def scatter(value, like, index):
    """Stub: srcad's ``scatter``, the gradient of ``like[index]``."""
    raise NotImplementedError


def _real(t):
    return isinstance(t, (types.Integer, types.Float, types.Boolean)) or (
        isinstance(t, types.Array) and isinstance(t.dtype, (types.Integer, types.Float)))


@_numbers(scatter)
def _scatter(value, like, index):
    if isinstance(index, types.BaseTuple) and types.none in index.types:
        return numba_arrays.without_none(value, like, index)
    if isinstance(like, types.Array) and _real(value) and _basic(index):
        def scattered(value, like, index):
            out = np.zeros(like.shape)
            out[index] = value  # basic indexing reaches each element once
            return out
        return scattered
    raise TypingError(f"srcad's numba backend scatters a real number or array at an int, a "
                      f"slice or a tuple of them (got {value} at {index} of {like})")


def grad_concatenate(g, arrays, axis=0):
    """Stub: srcad's ``grad_concatenate``, the gradient of ``np.concatenate(arrays)``."""
    raise NotImplementedError


@overload(grad_concatenate)
def _grad_concatenate(g, arrays, axis=0):
    first = isinstance(axis, (types.Omitted, types.NoneType)) or (
        isinstance(axis, types.IntegerLiteral) and axis.literal_value == 0)
    if isinstance(axis, types.Omitted):
        first = axis.value == 0
    if not (first and isinstance(g, types.Array) and isinstance(arrays, types.BaseTuple)
            and all(isinstance(t, types.Array) and t.ndim == g.ndim for t in arrays)):
        raise TypingError(f"srcad's numba backend has the gradient of np.concatenate of a "
                          f"tuple of arrays along axis 0 only (got {arrays}, axis {axis})")
    count = len(arrays)
    # one piece of g per array, along axis 0: a tuple of views of g (as the Python helper's
    # list holds views), written out for this many arrays
    lines = ["def pieces(g, arrays, axis=0):", "    start = 0"]
    for k in range(count):
        lines += [f"    stop = start + arrays[{k}].shape[0]",
                  f"    p{k} = g[start:stop]", "    start = stop"]
    lines += ["    if start != g.shape[0]:",
              "        raise ValueError('srcad (numba backend): a gradient shaped unlike its "
              "value')",
              "    return (" + "".join(f"p{k}, " for k in range(count)) + ")"]
    scope = {}
    exec("\n".join(lines), scope)  # noqa: S102 - code made here, from this count only
    return scope["pieces"]


def grad_array(g, obj):
    """Stub: srcad's ``grad_array``, the gradient of ``np.array(obj)``."""
    raise NotImplementedError


def _rows_of_numbers(obj, depth):
    """A list or tuple (of lists or tuples, ``depth`` deep) of numbers."""
    if depth == 0:
        return isinstance(obj, (types.Integer, types.Float, types.Boolean))
    if isinstance(obj, types.List):
        return _rows_of_numbers(obj.dtype, depth - 1)
    if isinstance(obj, types.BaseTuple):
        return all(_rows_of_numbers(t, depth - 1) for t in obj.types)
    return False


@overload(grad_array)
def _grad_array(g, obj):
    if (isinstance(g, types.Array) and isinstance(g.dtype, types.Float)
            and g.ndim in (1, 2) and _rows_of_numbers(obj, g.ndim)):
        # the gradient of each number at its place: one new array (the Python helper's
        # nested list of floats, indexed the same way; its rows share no memory with g)
        def copied(g, obj):
            if len(obj) != g.shape[0]:
                raise ValueError("srcad (numba backend): a gradient shaped unlike its value")
            return g.copy()
        return copied
    return numba_arrays.grad_array_of(g, obj)  # np.array of an array's, or refused


def grad_sum(g, a, axis=None, keepdims=False):
    """Stub: srcad's ``grad_sum``, the gradient of ``np.sum(a)`` (all of it)."""
    raise NotImplementedError


@_numbers(grad_sum)
def _grad_sum(g, a, axis=None, keepdims=False):
    whole = axis is None or isinstance(axis, (types.NoneType, types.Omitted))
    if whole and isinstance(g, types.Number) and isinstance(a, types.Array):
        return lambda g, a, axis=None, keepdims=False: np.full(a.shape, g)
    if whole and isinstance(g, types.Number) and isinstance(a, types.Number):
        return lambda g, a, axis=None, keepdims=False: g
    if not whole:
        return numba_axes.grad_along(g, a, axis, keepdims)
    raise TypingError(f"srcad's numba backend has the gradient of a whole sum only (got "
                      f"axis {axis})")


def grad_dot_a(g, a, b):
    """Stub: srcad's ``grad_dot_a``, the gradient of ``np.dot(a, b)`` into ``a``."""
    raise NotImplementedError


def grad_dot_b(g, a, b):
    """Stub: srcad's ``grad_dot_b``, into ``b``."""
    raise NotImplementedError


def _vectors(g, a, b):
    return (isinstance(g, types.Number) and isinstance(a, types.Array) and a.ndim == 1
            and isinstance(b, types.Array) and b.ndim == 1)


@overload(grad_dot_a)
def _grad_dot_a(g, a, b):
    if _vectors(g, a, b):
        return lambda g, a, b: g * b
    raise TypingError(f"srcad's numba backend has the gradient of np.dot of two vectors only "
                      f"(got {a} and {b})")


@overload(grad_dot_b)
def _grad_dot_b(g, a, b):
    if _vectors(g, a, b):
        return lambda g, a, b: g * a
    raise TypingError(f"srcad's numba backend has the gradient of np.dot of two vectors only "
                      f"(got {a} and {b})")


def zeros_like(x):
    """Stub: srcad's ``zeros_like`` (a zero gradient)."""
    raise NotImplementedError


@_numbers(zeros_like)
def _zeros_like(x):
    if isinstance(x, types.Array):
        return lambda x: np.zeros(x.shape)
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: 0.0
    if isinstance(x, types.UniTuple) and isinstance(x.dtype, (types.Number, types.Boolean)):
        # the gradient of a tuple of numbers (a callee's result), item by item: an array
        # (srcad's Python helper gives a list; the backward code indexes it the same way)
        size = x.count
        return lambda x: np.zeros(size)
    return numba_lists.zeros_like(x, zeros_like)  # a list, or a tuple of arrays (or refused)


def like(grad, value):
    """Stub: srcad's ``like`` (forward mode's tangent of the result)."""
    raise NotImplementedError


@_numbers(like)
def _like(grad, value):
    if isinstance(value, types.Array) and isinstance(grad, types.Number):
        return lambda grad, value: np.full(value.shape, grad)
    if isinstance(value, types.Array) and isinstance(grad, types.Array):
        def same(grad, value):
            if grad.shape != value.shape:
                raise ValueError("srcad (numba backend): a tangent shaped unlike its value")
            return grad
        return same
    if isinstance(value, (types.Number, types.Boolean)) and isinstance(grad, types.Number):
        return lambda grad, value: grad
    raise TypingError(f"srcad's numba backend gives tangents of numbers and arrays, not "
                      f"{value}")


def copy_tangent(tangent, value):
    """Stub: srcad's ``copy_tangent`` (a writable tangent for ``y[i] = v``)."""
    raise NotImplementedError


@overload(copy_tangent)
def _copy_tangent(tangent, value):
    if isinstance(value, types.Array) and isinstance(tangent, types.Array):
        def copied(tangent, value):
            if tangent.shape != value.shape:
                raise ValueError("srcad (numba backend): a tangent shaped unlike its value")
            return tangent.astype(np.float64)  # a copy
        return copied
    if isinstance(value, types.Array) and isinstance(tangent, types.Number):
        return lambda tangent, value: np.full(value.shape, float(tangent))
    raise TypingError(f"srcad's numba backend copies tangents of arrays, not {value}")


def cleared(value, index):
    """Stub: srcad's ``cleared`` (the gradient past ``y[index] = v`` to the old ``y``)."""
    raise NotImplementedError


@overload(cleared)
def _cleared(value, index):
    if isinstance(value, types.Array) and _basic(index):
        def zeroed(value, index):
            out = value.astype(np.float64)  # a copy
            out[index] = 0.0
            return out
        return zeroed
    return numba_lists.cleared(value, index)  # a list's, or refused


# ---------------------------------------------------------------- Python's float errors
# Python's math functions raise where Numba's return nan or inf (math.sqrt(-1.0) is a
# ValueError in Python, nan under Numba; math.exp(1000.0) an OverflowError, inf): the checked
# versions raise as Python does, so that no input Python refuses gets a number here.

_DOMAIN = {  # function -> the test of an argument outside its domain
    "sqrt": lambda x: x < 0.0,
    "log": lambda x: x <= 0.0,
    "log2": lambda x: x <= 0.0,
    "log10": lambda x: x <= 0.0,
    "log1p": lambda x: x <= -1.0,
    "acos": lambda x: abs(x) > 1.0,
    "asin": lambda x: abs(x) > 1.0,
    "acosh": lambda x: x < 1.0,
    "atanh": lambda x: abs(x) >= 1.0,
    "sin": lambda x: math.isinf(x),
    "cos": lambda x: math.isinf(x),
    "tan": lambda x: math.isinf(x),
}
_RANGE = ("exp", "expm1", "cosh", "sinh")  # overflow to inf from a finite argument
#: to an integer: Python's is exact at any size, Numba's an int64 (garbage past 2**63)
_INTEGRAL = ("floor", "ceil")


@functools.cache  # one dispatcher per function: compiled once a process
def _checked(fname):
    import math

    import numba

    if fname == "cos_apart":
        def checked(x):
            if math.isinf(x):
                raise ValueError("math domain error")
            # x + 0.0 is x, but -0.0 becomes 0.0 (and cos is even): the same number, on a
            # value LLVM does not know equals x, so it is not fused with a sine of x into
            # one sincos that the sine's users would wait for
            return math.cos(x + 0.0)
        return numba_cache.njit(checked, f"checked_{fname}")
    fn = getattr(math, fname)
    if fname in ("lgamma", "gamma"):  # a pole (0, -1, ..; gamma: -inf) is a domain error;
        def checked(x):  # an overflow (lgamma past ~2.5e305) a range one
            if x <= 0.0 and x == math.floor(x) or fname == "gamma" and x == -math.inf:
                raise ValueError("math domain error")
            r = fn(x)
            if math.isinf(r) and not math.isinf(x):
                raise OverflowError("math range error")
            return r
    elif fname in _INTEGRAL:
        def checked(x):
            if math.isnan(x):
                raise ValueError("cannot convert float NaN to integer")
            if not -9.223372036854775808e18 <= x < 9.223372036854775808e18:
                raise OverflowError("srcad's numba backend: math.floor or math.ceil of a "
                                    "number past the int64 range (exact in Python)")
            return fn(x)
    elif fname in _DOMAIN:
        outside = numba.njit(numba_cache.renamed(_DOMAIN[fname], f"outside_{fname}"))

        def checked(x):
            if outside(x):
                raise ValueError("math domain error")
            return fn(x)
    else:
        def checked(x):
            r = fn(x)
            if math.isinf(r) and not math.isinf(x):
                raise OverflowError("math range error")
            return r
    return numba_cache.njit(checked, f"checked_{fname}")  # (a name each: see renamed)


def power(a, b):
    """Stub: ``a ** b``."""
    raise NotImplementedError


@_numbers(power)
def _power(a, b):
    if isinstance(a, types.Float) or isinstance(b, types.Float):
        def checked(a, b):
            if a == 0.0 and b < 0.0:
                raise ZeroDivisionError("0.0 cannot be raised to a negative power")
            if a < 0.0 and b != math.floor(b):
                raise ValueError("a negative number to a fractional power is complex in "
                                 "Python")
            r = a ** b
            if math.isinf(r) and not math.isinf(a) and not math.isinf(b):
                raise OverflowError("numerical result out of range")
            return r
        return checked
    if isinstance(a, types.Integer) and isinstance(b, types.Integer):
        def ints(a, b):
            if b < 0:
                raise ValueError("srcad's numba backend: an int to a negative int power "
                                 "(a float in Python): write a float")
            return a ** b
        return ints
    if isinstance(a, types.Array) or isinstance(b, types.Array):
        return lambda a, b: a ** b  # NumPy's power, as in Python (nan, not an error)
    raise TypingError(f"srcad's numba backend raises numbers to powers, not {a} ** {b}")


CHECKED_MATH = tuple(_DOMAIN) + _RANGE + _INTEGRAL + ("lgamma", "gamma")

HELPERS = {
    "check_scalar": check_scalar, "add": add, "unbroadcast": unbroadcast,
    "unbroadcast_to": unbroadcast_to, "sign": sign, "where": where, "log_base": log_base,
    "power_of": power_of,
    "polygamma_real": numba_special.polygamma_real,
    "shape_of": shape_of,
    "sum_of": sum_of, "zeros_float": zeros_float, "scatter_add": scatter_add, "power": power,
    "grad_sum": grad_sum, "grad_dot_a": grad_dot_a, "grad_dot_b": grad_dot_b,
    "zeros_like": zeros_like, "like": like, "copy_tangent": copy_tangent, "cleared": cleared,
    "reuse_tangent": numba_batched_helpers.reuse_tangent,
    "layout": numba_arrays.layout,
    "scatter": scatter, "mutable": numba_lists.mutable, "grad_concatenate": grad_concatenate,
    "grad_array": grad_array, "array_list": numba_lists.array_list,
    "array_of": numba_arrays.array_of, "grad_list": numba_lists.grad_list, "fill": numba_lists.fill,
    "stack": numba_lists.stack, "grad_stack": numba_lists.grad_stack,
    "reduce": numba_axes.reduce, "grad_extremum": numba_axes.grad_extremum,
    "grad_reshape": numba_arrays.grad_reshape, "transpose_grad": numba_arrays.transpose_grad,
    "matmul": numba_arrays.matmul, "broadcast_as": numba_arrays.broadcast_as,
    **{f"{n}{k}": getattr(numba_arrays, f"{n}{k}") for n in ("einsum", "grad_einsum")
       for k in (1, 2, 3)},
}


def helper(name):
    """The Numba version of ``name`` (a key of HELPERS, or ``math.<f>`` of CHECKED_MATH, or
    ``math.cos_apart``: the cosine of a hoisted value, see :func:`_checked`)."""
    if name.startswith("items_at_"):  # items_at_1_0: see numba_lists.items_at
        found = numba_lists.items_at(tuple(int(i) for i in name.split("_")[2:]),
                                     zeros_like, add)
    elif name.startswith("stack_"):  # stack_1: np.stack(arrays, axis=1), see numba_batched_helpers
        found = numba_batched_helpers.stack_along(int(name[6:]))
    elif name == "broadcast_copy":  # np.broadcast_to made contiguous: numba_batched
        found = numba_batched_helpers.broadcast_copy
    elif name.startswith(numba_constants.PREFIX):  # constant_<hex>: see numba_constants
        found = numba_constants.helper(name)
    elif name.startswith("fused_"):  # fused_vu_m_0_1: see numba_fuse
        found = numba_fuse.helper(name, unbroadcast, unbroadcast_to, scatter, add)
    else:
        found = _checked(name[5:]) if name.startswith("math.") else HELPERS[name]
    found.__srcad_numba_helper__ = name  # what the cache on disk keys it by (numba_cache)
    return found
