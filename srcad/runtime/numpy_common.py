"""Pieces shared by the NumPy gradient helpers (:mod:`srcad.runtime.numpy_helpers` says the
conventions): axes normalised, a reduction's axes restored, a gradient shaped like its
argument, the transpose of a batch of matrices. Generated code never calls these; the helper
modules import them under their private names.

Imports only NumPy.
"""

from __future__ import annotations

import numpy as np


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative ints, in the given order (``None``: every axis)."""
    if axis is None:
        return tuple(range(ndim))
    if np.ndim(axis) == 0:
        axis = (axis,)
    return tuple(int(a) % ndim for a in axis) if ndim else ()


def _restore(value, shape, axis, keepdims):
    """A reduction's result (or its gradient) with the reduced axes put back as size 1."""
    value = np.asarray(value)
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
        grad = np.asarray(grad)
        return [_match(grad[i], v) for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return np.broadcast_to(grad, x.shape) if np.shape(grad) != x.shape else grad
    if np.ndim(grad) == 0:
        return complex(grad) if np.iscomplexobj(grad) else float(grad)
    return np.reshape(grad, np.shape(x))


def _swap(a):
    """The transpose of the last two axes (a batch of matrices stays a batch)."""
    return np.swapaxes(a, -1, -2)
