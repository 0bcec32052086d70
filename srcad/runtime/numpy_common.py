"""Pieces shared by the NumPy gradient helpers (:mod:`srcad.runtime.numpy_helpers` says the
conventions): axes normalised, a reduction's axes restored, a gradient shaped like its
argument, the transpose of a batch of matrices. Generated code never calls these; the helper
modules import them under their private names.

Imports only NumPy, ``srcad.errors``, ``srcad.core.kinds`` and ``srcad.runtime.arrays`` (a
Dask or CuPy array stays one: :func:`_asarray`, :func:`_spread`).
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import PLAIN, duck_array
from ..errors import MissingRuleError
from . import arrays


def _asarray(x, dtype=None):
    """``np.asarray(x, dtype)``, except that a duck array (Dask, CuPy) stays in its library:
    NumPy's own ``asarray`` would compute a lazy Dask array into memory, or refuse a GPU one."""
    if type(x) is np.ndarray or type(x) in PLAIN or not duck_array(x):
        return np.asarray(x, dtype=dtype)
    return x if dtype is None or x.dtype == dtype else x.astype(dtype)


def _in_library(value, *likes):
    """``value`` (a NumPy constant a helper made: an identity, a 0/1 matrix, a range) as an
    array of the library of the first duck array among ``likes`` (CuPy: copied to its device;
    Dask: one chunk), so that it combines with that array; ``value`` itself when there is
    none (the NumPy path is unchanged)."""
    if type(value) is not np.ndarray:  # already in a library, or a number
        return value
    for like in likes:
        if type(like) is not np.ndarray and type(like) not in PLAIN and duck_array(like):
            return arrays.to_library(value, like)
    return arrays.constant(value)  # none among likes: the running duck call's (CuPy), or as is


def _on_device(idx, like):
    """NumPy indices a helper made, for taking from ``like``: on ``like``'s device for CuPy
    (a NumPy array beside a device array is refused); kept in NumPy for Dask (indices known
    before anything is computed) and for NumPy."""
    if type(like) is np.ndarray or type(like) in PLAIN or not duck_array(like) or \
            arrays.library(like) == "dask":
        return idx
    return arrays.to_library(np.asarray(idx), like)


def _zeros(shape, like, dtype=float):
    """``np.zeros(shape, dtype)`` in ``like``'s library (NumPy's for a NumPy array or a
    number)."""
    if type(like) is np.ndarray or type(like) in PLAIN or not duck_array(like):
        return np.zeros(shape, dtype=dtype)
    return np.zeros_like(like, dtype=dtype, shape=shape)


def _ones(shape, like, dtype=float):
    """``np.ones(shape, dtype)`` in ``like``'s library (NumPy's for a NumPy array or a
    number)."""
    if type(like) is np.ndarray or type(like) in PLAIN or not duck_array(like):
        return np.ones(shape, dtype=dtype)
    return np.ones_like(like, dtype=dtype, shape=shape)


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative ints, in the given order (``None``: every axis)."""
    if axis is None:
        return tuple(range(ndim))
    if np.ndim(axis) == 0:
        axis = (axis,)
    return tuple(int(a) % ndim for a in axis) if ndim else ()


def _spread(value, a):
    """``value`` broadcast to the shape of ``a``. For a duck array ``a``, in ``a``'s library
    and chunked like it (a NumPy view as large as ``a`` in a Dask graph is sent whole)."""
    if type(a) is np.ndarray or not duck_array(a):
        return np.broadcast_to(value, np.shape(a))
    return arrays.spread(value, a)


def _restore(value, shape, axis, keepdims):
    """A reduction's result (or its gradient) with the reduced axes put back as size 1."""
    value = _asarray(value)
    if keepdims or not shape or value.ndim == 0:  # a 0-d value broadcasts as it is
        return value
    return np.reshape(value, tuple(1 if i in _axes(axis, len(shape)) else n
                                   for i, n in enumerate(shape)))


def _count(shape, axis):
    """How many elements a reduction over ``axis`` combines."""
    return int(np.prod([shape[i] for i in _axes(axis, len(shape))], dtype=np.int64))


def _match(grad, x):
    """``grad`` shaped for the argument ``x``: a list for a list, a float for a number."""
    if isinstance(x, (list, tuple)):
        grad = _asarray(grad)
        return [_match(grad[i], v) for i, v in enumerate(x)]
    if isinstance(x, np.ndarray) or type(x) not in PLAIN and duck_array(x):
        return np.broadcast_to(grad, x.shape) if np.shape(grad) != x.shape else grad
    if type(grad) not in PLAIN and duck_array(grad):  # from a Dask or CuPy array: kept lazy
        return np.reshape(grad, ())
    if np.ndim(grad) == 0 or np.shape(x) == ():  # (grad_cumsum's (1,) for a number, sound29:
        grad = np.reshape(grad, ())  # a 0-d array, changed in place by dL[i] += g)
        return complex(grad) if np.iscomplexobj(grad) else float(grad)
    return np.reshape(grad, np.shape(x))


def _swap(a):
    """The transpose of the last two axes (a batch of matrices stays a batch)."""
    return np.swapaxes(a, -1, -2)


def _no_norm_rule(ord, what):  # noqa: A002
    """The refusal for a matrix ``np.linalg.norm`` order without a derivative (a SrcadError,
    raised when the derivative runs: the order is a value)."""
    return MissingRuleError(
        f"no {what} of np.linalg.norm of a matrix with ord={ord!r}",
        construct=f"np.linalg.norm(..., ord={ord!r})",
        hint="use ord None/'fro', 'nuc', 1, -1, 2, -2, inf or -inf, or register a rule with "
        "srcad.defvjp")


def _real_point(x, name):
    """``x`` as a float array, refused if complex: a helper whose derivative is written for a
    real point (its gradient argument may be complex) never drops an imaginary part."""
    if np.iscomplexobj(x):
        raise MissingRuleError(
            f"srcad's helper {name} is written for a real point and was given a complex one",
            construct=name, hint="take np.abs(...) or np.real(...) of the value first")
    return _asarray(x, dtype=float)
