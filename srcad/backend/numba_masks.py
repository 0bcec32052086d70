"""Writes at an index array under the Numba backend: ``y[mask] = v`` (a 1-d boolean mask) and
``y[idx] = v`` (a 1-d array of ints, which may repeat), into an array.

The backward code of such a write reads srcad's ``last_writes(g[idx], y, idx)`` (only the
write NumPy kept of a repeated index gets a gradient) and ``cleared(g, idx)`` (the gradient
of ``y`` with the overwritten places zero). Here both get Numba versions for these indices
(``cleared`` an overload added beside :mod:`.numba_helpers`' own, which takes ints, slices
and tuples of them; Numba tries each). A mask picks each place once, so ``last_writes`` gives
the block as it is; for ints, the last write to a place is the one kept, as Numba's own
``y[idx] = v`` (a loop in order) and NumPy's do: earlier writes to the same place get 0.
Negative ints count from the end; an index out of range has already raised in the forward
code (the derivative indexes the user's arrays with bounds checks); a mask whose length is not
the array's raises NumPy's IndexError here (Numba's indexing does not check it). Other
indices (a mask of more than one dimension, several index arrays) stay refused by type, at the
user's line.

Imports ``numpy``, ``numba``, :mod:`.numba_names`, :mod:`.numba_index_checks`,
:mod:`.numba_index_overload` (the check's overload, registered on import) and
:mod:`.numba_helpers` (whose ``HELPERS`` gets ``last_writes`` and ``checked_index``);
imported by :mod:`.numba_reductions`.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload, register_jitable

from . import numba_helpers, numba_index_checks, numba_index_overload  # noqa: F401
from .numba_names import INSTEAD


def last_writes(block, like, index):
    """Stub: srcad's ``last_writes`` (the gradient read at ``y[index]``, 0 where a later
    write to the same place replaced this one)."""
    raise NotImplementedError


@register_jitable
def _check_mask(size, index):
    """NumPy's IndexError for a mask whose length is not the array's (Numba's own indexing
    by such a mask reads and writes other places silently: its forward write has then run,
    and this raises before any gradient is returned)."""
    if len(index) != size:
        raise IndexError("boolean index did not match indexed array along axis 0")


def _vector_index(like, index, kind):
    return (isinstance(like, types.Array) and isinstance(index, types.Array)
            and index.ndim == 1 and isinstance(index.dtype, kind))


@overload(last_writes)
def _last_writes(block, like, index):
    if _vector_index(like, index, types.Boolean) and like.ndim == 1:
        def once(block, like, index):  # a mask writes each place once
            _check_mask(like.shape[0], index)
            return block
        return once
    if _vector_index(like, index, types.Integer) and isinstance(block, types.Array):
        def kept_last(block, like, index):
            n = like.shape[0]
            last = np.full(n, -1, dtype=np.intp)
            for k in range(len(index)):
                at = index[k] + n if index[k] < 0 else index[k]
                last[at] = k
            out = block.copy()
            for k in range(len(index)):
                at = index[k] + n if index[k] < 0 else index[k]
                if last[at] != k:
                    out[k] = 0.0
            return out
        return kept_last
    raise TypingError(f"srcad's numba backend has the gradient of y[idx] = v for a 1-d mask "
                      f"of a 1-d array, or a 1-d array of ints (got {index} of {like}); "
                      f"{INSTEAD['last_writes']}")


@overload(numba_helpers.cleared)
def _cleared_at_array(value, index):
    if isinstance(value, types.Array) and (
            _vector_index(value, index, types.Boolean) and value.ndim == 1
            or _vector_index(value, index, types.Integer)):
        mask = isinstance(index.dtype, types.Boolean)

        def zeroed(value, index):
            if mask:
                _check_mask(value.shape[0], index)
            out = value.astype(np.float64)  # a copy
            out[index] = 0.0
            return out
        return zeroed
    return None  # (numba_helpers' own overload takes the other indices)


numba_helpers.HELPERS["last_writes"] = last_writes
numba_helpers.HELPERS["checked_index"] = numba_index_checks.checked_index
