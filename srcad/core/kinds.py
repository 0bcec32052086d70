"""The kinds of values srcad tells apart, and how to read them off a value.

``SCALAR`` (a Python or NumPy number), ``ARRAY``, ``SEQ`` (list, tuple or dict), ``OTHER`` (a
value that cannot carry a gradient: ranges, strings, None, functions) or ``ANY`` (not known
until run time). Imports nothing from srcad: every layer reads kinds.
"""

from __future__ import annotations

import numbers

import numpy as np

SCALAR, ARRAY, SEQ, OTHER, ANY = "scalar", "array", "seq", "other", "any"


def kind_of_value(value):
    if isinstance(value, bool):
        return SCALAR
    if isinstance(value, (complex, np.complexfloating)):
        return ANY  # not differentiated: grad's output check refuses it
    if isinstance(value, (numbers.Number, np.number)):
        return SCALAR
    if isinstance(value, np.ndarray):
        return ARRAY
    if isinstance(value, (list, tuple, dict)):
        return SEQ
    if value is None or isinstance(value, (str, range, type)) or callable(value):
        return OTHER
    return ANY


#: the rank of an array no single number describes (ranks that differ meet, or an operation
#: whose result's rank srcad does not work out)
MIXED = -1

def rank_of_value(value):
    """The number of axes of an array argument (the code is specialised on it), else None."""
    return value.ndim if type(value) is np.ndarray else None  # np.matrix indexes otherwise


def join(kinds):
    kinds = {k for k in kinds if k is not None}  # None: not known yet (recursion)
    if not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    return ANY


def item_kinds(value):
    """Kinds of a container's items, by key or index (for ``params["W"]``, ``pair[0]``)."""
    if isinstance(value, dict):
        return {k: kind_of_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return dict(enumerate(kind_of_value(v) for v in value))
    return None
