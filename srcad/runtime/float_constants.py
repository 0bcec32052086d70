"""The float64 constants generated code reads where a number literal meets a float64 array
(``one / (one + np.exp(-x))``: :mod:`srcad.backend.float_literals` writes them): read-only
0-d float64 arrays, one object each, bound as srcad's helpers are
(:data:`srcad.backend.emit.HELPER_OBJECTS`). srcad reading its own code again takes each for
the literal it stands for (:func:`literal_of`). Imports NumPy only."""

from __future__ import annotations

import numpy as np


def _constant(value):
    array = np.array(value, dtype=np.float64)
    array.flags.writeable = False
    return array


#: name -> the read-only 0-d float64 array generated code reads under it
CONSTANTS = {"one": _constant(1.0), "two": _constant(2.0), "half": _constant(0.5)}
_IDS = {id(v): float(v) for v in CONSTANTS.values()}


def literal_of(value, filename):
    """The Python float one of :data:`CONSTANTS` stands for, where ``value`` is one of them
    read in code srcad generated (``filename`` ``<srcad ...>``: there it meets only float64
    arrays, where the literal gives the same result); else None."""
    if type(value) is np.ndarray and id(value) in _IDS and filename.startswith("<srcad "):
        return _IDS[id(value)]
    return None
