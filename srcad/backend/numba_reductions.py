"""``np.cumsum``'s gradient under the Numba backend.

Numba compiles ``np.mean(a)`` and ``np.cumsum(a)`` of a whole array (``np.cumsum`` of an
n-d array runs over it flattened, as NumPy's without ``axis``); neither takes ``axis``,
``dtype`` or ``out`` there, forms :data:`srcad.backend.numba_names.WHOLE` refuses before
compiling. ``np.mean``'s gradient is plain arithmetic (``1.0 / a.size``); ``np.cumsum``'s is
srcad's ``grad_cumsum``, given here a Numba version (:func:`grad_cumsum`: the reversed
running sum, added in the order NumPy adds ``np.cumsum(g[::-1])[::-1]``, so the numbers are
NumPy's), put among :data:`.numba_helpers.HELPERS` when this module is imported
(:mod:`.numba_backend` imports it with :mod:`.numba_helpers`, when it compiles).

Imports ``numpy``, ``numba``, :mod:`.numba_helpers` and :mod:`.numba_masks` (writes at an
index array: imported here for its helpers).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from . import numba_helpers, numba_masks  # noqa: F401  (its helpers, in HELPERS)


def grad_cumsum(g, a, axis=None):
    """Stub: srcad's ``grad_cumsum`` (the gradient of ``np.cumsum(a)``), ``a``'s shape."""
    raise NotImplementedError


@overload(grad_cumsum)
def _grad_cumsum(g, a, axis=None):
    if not ((axis is None or isinstance(axis, (types.NoneType, types.Omitted)))
            and isinstance(g, types.Array) and isinstance(g.dtype, types.Float)
            and isinstance(a, types.Array)):
        raise TypingError(f"srcad's numba backend has the gradient of np.cumsum of a whole "
                          f"float array only (got {g} for {a}, axis {axis})")

    def reversed_running_sum(g, a, axis=None):
        flat = np.ascontiguousarray(g).reshape(g.size)
        out = np.empty(g.size)
        total = 0.0
        for k in range(g.size - 1, -1, -1):
            total += flat[k]
            out[k] = total
        return out.reshape(a.shape)
    return reversed_running_sum


numba_helpers.HELPERS["grad_cumsum"] = grad_cumsum
