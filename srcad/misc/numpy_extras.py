"""The functions ``autograd.numpy`` has beyond NumPy's own, for programs written against it.

``autograd.numpy`` is NumPy wrapped, plus a few names of its own that user code calls:

* :func:`make_diagonal` ``(D, offset=0, axis1=0, axis2=1)``: the complement of
  ``np.diagonal``, an array of shape ``D.shape + (n,)`` holding ``D`` (last axis of length
  ``n``) on the diagonal of its last two axes and zeros elsewhere. Only that placement is
  taken (``offset=0, axis1=-1, axis2=-2``), as autograd takes it; any other raises
  ``NotImplementedError``. Linear: its gradient is ``np.diagonal(g, 0, -1, -2)`` and its
  tangent ``make_diagonal(t)`` (rules below, so every order and both modes).
* :func:`concatenate_args` ``(axis, *arrays)``: ``np.concatenate(arrays, axis)``.
* :func:`metadata` ``(A)``: ``(shape, ndim, result type, is complex)``, no derivative.

``concatenate_args`` is plain Python that srcad reads (its derivative is
``np.concatenate``'s rule's). autograd's other names beyond NumPy's are its internals
(``array_from_args``, which its ``np.array`` calls with NumPy's keywords in a dict;
``parse_einsum_input``, the boxes and vector spaces): not given.
Written here from the behaviour autograd documents; nothing is copied from it.

Imports NumPy and :mod:`srcad.extend` (the public rule API, as a user's module would).
"""

from __future__ import annotations

import numpy as np

from ..extend import defvjp, nondiff

__all__ = ["concatenate_args", "make_diagonal", "metadata"]


def make_diagonal(D, offset=0, axis1=0, axis2=1):
    """``D`` (shape ``(..., n)``) on the diagonal of the last two axes of a new array of
    shape ``(..., n, n)``, zeros elsewhere. Only ``offset=0, axis1=-1, axis2=-2``."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError("make_diagonal takes offset=0, axis1=-1, axis2=-2 only "
                                  "(autograd's make_diagonal does the same)")
    D = np.asarray(D)
    n = D.shape[-1]
    out = np.zeros(D.shape + (n,), dtype=np.result_type(D.dtype, float))
    index = np.arange(n)
    out[..., index, index] = D
    return out


defvjp(make_diagonal, "D, offset=0, axis1=0, axis2=1", D="np.diagonal(g, 0, -1, -2)",
       zero=("offset", "axis1", "axis2"),
       jvp=dict(D="make_diagonal(t, offset, axis1, axis2)"))


def concatenate_args(axis, *args):
    """``np.concatenate(args, axis)``: the arrays given one by one."""
    return np.concatenate(args, axis)


def metadata(A):
    """``(np.shape(A), np.ndim(A), np.result_type(A), np.iscomplexobj(A))``."""
    return np.shape(A), np.ndim(A), np.result_type(A), np.iscomplexobj(A)


nondiff(metadata)
