"""Cache keys of specialisations: what decides the code made for a call's arguments.

:func:`cache_key`: the argument types, the kinds inside containers, the ranks of arrays and
the kinds of their dtypes other than float (an int array's code is not a float array's:
``srcad.core.kinds.INEXACT``), the functions passed (by identity) and which array arguments
share a shape (:func:`shape_partition`); :func:`plain_key`: the same for plain arguments
(numbers, arrays), cheaper, or None. The specialisation machinery (:mod:`srcad.specialise`)
keys its caches with them; its one-lookup path (``_ByRank``) computes the arrays' part
inline (:func:`first_of`).

Imports ``srcad.core`` and ``srcad.frontend`` (the classes of objects and functions passed).
"""

from __future__ import annotations

import inspect

import numpy as np

from ..core.functions import HeldList
from ..core.kinds import any_duck, duck_array, foreign_array
from ..frontend.held_objects import cache_parts, held_functions, parts_key
from ..frontend.lower_callees import fixed_function

_CONTAINERS = (list, tuple, dict)

class Ranks(tuple):
    """The ranks of the array arguments, the last item of a cache key (code is specialised
    on them: ``xs[t]`` is an array for a matrix ``xs`` and a number for a vector), and last
    which of them have one shape (:func:`shape_partition`)."""


#: the NumPy array arguments whose shapes are compared at a call (the first ones; past them
#: an array is taken to share its shape with none: the code is as general as before)
MAX_COMPARED = 6


def first_of(k):
    """The expression ``srcad.specialise._ByRank``'s text computes for the ``k``-th array:
    the position of the first array of its shape (``s0``, ``s1``, ...: the arrays' shapes)."""
    if k >= MAX_COMPARED:
        return str(k)
    return "".join(f"{j} if s{k} == s{j} else " for j in range(k)) + str(k)


def layouts(arrays):
    """Each array's ``(rank, dtype char, position of the first array of its shape)``: the
    arrays' part of :func:`plain_key` and of ``srcad.specialise._ByRank``'s keys."""
    if len(arrays) == 1:  # the common cases, on every call of a vjp or Jacobian: no loop
        a = arrays[0]
        return ((a.ndim, a.dtype.char, 0),)
    if len(arrays) == 2:
        a, b = arrays
        return ((a.ndim, a.dtype.char, 0),
                (b.ndim, b.dtype.char, 0 if a.shape == b.shape else 1))
    out, shapes = [], []
    for k, a in enumerate(arrays):
        shape, first = a.shape, k
        if k < MAX_COMPARED:
            for j, earlier in enumerate(shapes):
                if earlier == shape:
                    first = j
                    break
            shapes.append(shape)
        out.append((a.ndim, a.dtype.char, first))
    return tuple(out)


def shape_partition(values):
    """Which of the NumPy array arguments have one shape (equal shapes, so equal ranks): for
    each of the first :data:`MAX_COMPARED` arrays, the position among them of the first one
    of its shape. Part of the cache key, so a specialisation may take the arrays of one
    class to have one shape (:func:`srcad.analysis.shapes.classes`): ``a * b`` then needs no
    ``unbroadcast``. The key holds the partition, never sizes: one function called with many
    sizes makes one specialisation per partition, at most the Bell number of the arrays."""
    shapes = [v.shape for v in values if type(v) is np.ndarray][:MAX_COMPARED]
    return tuple([shapes.index(s) for s in shapes])


def shape_groups(values):
    """The parameters (``values``: name -> value) whose arrays :func:`shape_partition`
    compared, in groups of one shape: what the code may take as known (arrays of one group
    have one shape, of two groups different shapes)."""
    names = [p for p, v in values.items() if type(v) is np.ndarray][:MAX_COMPARED]
    classes = {}
    for name, first in zip(names, shape_partition(values.values())):
        classes.setdefault(first, []).append(name)
    return tuple(tuple(g) for g in classes.values())


def plain_key(values):
    """What decides the code made for plain arguments (numbers, arrays): their types, and the
    ranks and dtypes of the arrays and which of them have one shape; None for anything else
    (containers, functions, objects, records take the full path, keyed by
    :func:`cache_key`)."""
    key = tuple(map(type, values))
    if not _PLAIN_KEYED.issuperset(key):
        return None
    if np.ndarray not in key:
        return key
    return key + layouts([v for v in values if type(v) is np.ndarray])


_PLAIN_KEYED = frozenset({float, int, np.float64, np.ndarray})


#: argument types that hold no functions of their own (cache_key skips them)
_PLAIN = frozenset({np.ndarray, float, int, complex, bool, np.float64, list, tuple, dict,
                    type(None), str})


def cache_key(args):
    """The cache key: argument types, plus the kinds inside containers (their items' kinds
    specialise the code as much as the top-level types do), or plus the arrays' ranks and
    which of them have one shape (:func:`shape_partition`)."""
    types = tuple(map(type, args))
    # a float64 array: its rank; any other (float32, complex, int, bool, object): with its
    # dtype (the code is made for it: core.kinds.INEXACT, DOUBLE)
    ranks = (Ranks([a.ndim if a.dtype.char == "d" else (a.ndim, _dtype_part(a))
                     for a in args if type(a) is np.ndarray] + [shape_partition(args)]),) \
        if np.ndarray in types else ()  # (the partition last)
    if any_duck(args) or any(map(foreign_array, args)):  # Dask, CuPy, the array API's
        ranks = (Ranks((a.ndim, str(a.dtype)) if foreign_array(a) else (
            a.ndim if a.dtype.char == "d" else (a.ndim, _dtype_part(a))) for a in args
                        if type(a) is np.ndarray or duck_array(a) or foreign_array(a)),)
    # the functions passed: the code calls each as named (frontend.lower_callees.classes_of)
    called = tuple(_Same(a) for a in args if fixed_function(a))
    for a in args:  # an object of the user's holding functions: the code calls those
        if type(a) not in _PLAIN and hasattr(a, "__dict__"):
            called += tuple(_Same(f) for _, f in held_functions(a))
            called += parts_key(a)  # the classes of the objects it holds: code calls theirs
        elif type(a) in (list, tuple, dict):  # a list of objects of the user's: theirs too
            called += cache_parts(a)
    if any(t in _CONTAINERS for t in types):
        return types + (tuple(_structure(a) for a in args),) + ranks + called
    return types + ranks + called


class _Same:
    """A key part equal only to the same function (a function passed: one code per function,
    whether or not it compares or hashes by value); a bound method is the same when its
    object and function are (``obj.f`` makes a new bound method each time)."""

    __slots__ = ("parts",)

    def __init__(self, obj):
        self.parts = _identity(obj)

    def __eq__(self, other):
        return isinstance(other, _Same) and len(other.parts) == len(self.parts) and all(
            a is b for a, b in zip(self.parts, other.parts))

    def __hash__(self):
        return hash(tuple(map(id, self.parts)))


def _identity(obj):
    """The objects a function value is the same as: itself; a bound method's object and
    function; a tuple of functions' items' (between markers)."""
    if inspect.ismethod(obj):
        return (_METHOD, obj.__self__, obj.__func__)
    if type(obj) in (tuple, HeldList):  # (a list attribute's functions: a key of its own)
        return (_OPEN,) * (1 + (type(obj) is HeldList)) + tuple(
            p for item in obj for p in _identity(item)) + (_CLOSE,)
    return (obj,)


_METHOD, _OPEN, _CLOSE = object(), object(), object()


def _structure(value):
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _structure(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_structure(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.char != "d":
        return (np.ndarray, _dtype_part(value))  # float32, complex, int, ...: their own code
    return type(value)


def _dtype_part(a):
    """What of an array's dtype (not float64) keys its code: the kind, and for floats the
    dtype itself (float64's code may take its literals as float64 arrays:
    ``srcad.analysis.doubles``)."""
    kind = a.dtype.kind
    return a.dtype.char if kind == "f" else kind
