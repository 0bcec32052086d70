"""The kinds of values srcad tells apart, and how to read them off a value.

``SCALAR`` (a Python or NumPy number), ``ARRAY`` (a NumPy array, or a duck array: another
library's array that NumPy's dispatch protocols hand every NumPy call to, :func:`duck_array`),
``SEQ`` (list, tuple or dict), ``OTHER`` (a
value that cannot carry a gradient: ranges, strings, None, functions) or ``ANY`` (not known
until run time). Imports nothing from srcad: every layer reads kinds.

Complex values are of these kinds too (a complex number is ``ANY``: the code for it is NumPy's,
not ``math``'s); which values may be complex is a separate fact (:func:`is_complex_value`):
the parameters that may be, named under the key :data:`COMPLEX` of a kinds dict, reach the
analysis and every callee made for them (a dict without the key: all real). So do the
parameters certainly given floats (:data:`INEXACT`, :func:`inexact_value`): a float array, not
one of integers or booleans (:func:`with_dtypes` names both, so every cache keyed on a kinds
dict tells a float array from an int one).
"""

from __future__ import annotations

import numbers

import numpy as np

SCALAR, ARRAY, SEQ, OTHER, ANY = "scalar", "array", "seq", "other", "any"


#: the key of a kinds dict (parameter -> kind) naming the parameters that may hold complex
#: values (a tuple; the key is absent when none does, so real code has the keys it had)
COMPLEX = "*complex"


def is_complex_value(value, depth=0):
    """Whether ``value`` is complex or holds complex numbers (a complex array, a list of them,
    a complex dtype or type, as given to ``dtype=`` or ``astype``)."""
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    if isinstance(value, (list, tuple)) and depth < 3:
        return any(is_complex_value(v, depth + 1) for v in value[:64])
    if isinstance(value, dict) and depth < 3:
        return any(is_complex_value(v, depth + 1) for v in list(value.values())[:64])
    if value is complex or isinstance(value, type) and issubclass(value, np.complexfloating):
        return True
    if depth < 2 and type(value).__module__ not in ("builtins", "numpy") and isinstance(
            getattr(value, "__dict__", None), dict) and not isinstance(value, type):
        # an object passed in (self): the attributes its code may read
        return any(is_complex_value(v, depth + 1) for v in list(vars(value).values())[:64])
    if isinstance(value, str) and value in ("F", "C", "A", "K"):
        return False  # order="F" (as a dtype "F" would be complex64: write np.complex64)
    if isinstance(value, np.dtype):
        return value.kind == "c"
    if isinstance(value, str):  # a complex dtype's name; not any string ("ij,j->i", "ortho")
        name = value.lstrip("<>=|")
        return name in ("D", "G", "csingle", "cdouble", "clongdouble", "cfloat") or (
            name.startswith("complex") or name[:1] == "c" and name[1:].isdigit())
    return False


#: the key of a kinds dict naming the parameters certainly given floating or complex values
#: (a tuple, absent when none is; :func:`inexact_value`): the analysis takes them as inexact
#: (``srcad.analysis.dtypes``), so ``y = p.copy(); y += v`` is exact for a float array ``p``
#: and refused for an int one; a cache keyed on the kinds tells the two apart
INEXACT = "*inexact"


def inexact_value(value, depth=0):
    """Whether ``value`` certainly holds floating or complex numbers only: a float or complex
    number, a NumPy (or duck) array of such a dtype (not of integers, booleans or objects),
    or a list or tuple (up to 64 items) of such values."""
    kind = type(value)
    if kind is np.ndarray:
        return value.dtype.kind in "fc"
    if kind is float or kind is complex or isinstance(value, (np.floating, np.complexfloating)):
        return True
    if kind is list or kind is tuple:
        return 0 < len(value) <= 64 and depth < 3 and all(
            inexact_value(v, depth + 1) for v in value)
    if kind not in PLAIN and duck_array(value):
        return value.dtype.kind in "fc"
    return False


#: the key of a kinds dict naming the parameters certainly given float64 NumPy values
#: (a tuple, absent when none is; :func:`double_value`): ``srcad.analysis.doubles`` follows
#: them, and a cache keyed on the kinds tells float64 from other floats
DOUBLE = "*double"


def double_value(value, depth=0):
    """Whether ``value`` is certainly of NumPy float64 only: a NumPy array of dtype float64
    (not a subclass, not a duck array), a ``np.float64`` number (not a Python float: NumPy's
    weak scalar), or a list or tuple (up to 64 items, 3 deep, not empty) of such values."""
    kind = type(value)
    if kind is np.ndarray:
        return value.dtype.char == "d"
    if kind is np.float64:
        return True
    if kind is list or kind is tuple:
        return 0 < len(value) <= 64 and depth < 3 and all(
            double_value(v, depth + 1) for v in value)
    return False


def with_dtypes(kinds, values):
    """``kinds`` (parameter -> kind) with the :data:`COMPLEX` entry for ``values``' complex
    parameters, the :data:`INEXACT` entry for those certainly of floats and the
    :data:`DOUBLE` entry for those certainly of float64, if any."""
    names = tuple(sorted(p for p, v in values.items() if is_complex_value(v)))
    if names:
        kinds[COMPLEX] = names
    names = tuple(sorted(p for p, v in values.items() if inexact_value(v)))
    if names:
        kinds[INEXACT] = names
    names = tuple(sorted(p for p, v in values.items() if double_value(v)))
    if names:
        kinds[DOUBLE] = names
    return kinds


def kind_of_value(value):
    if isinstance(value, bool):
        return SCALAR
    if isinstance(value, (complex, np.complexfloating)):
        return ANY  # not differentiated: grad's output check refuses it
    if isinstance(value, (numbers.Number, np.number)):
        return SCALAR
    if type(value) is np.ndarray and value.dtype.kind == "O":
        return ANY  # items of any kind (arrays, lists): not an array of numbers
    if isinstance(value, np.ndarray) or duck_array(value) or foreign_array(value):
        return ARRAY  # foreign: the array API's (srcad.backend.standard)
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
    if type(value) is np.ndarray:
        return value.ndim
    return value.ndim if duck_array(value) or foreign_array(value) else None  # np.matrix: no


def duck_array(value):
    """Whether ``value`` is another library's array (Dask, CuPy, ...) that NumPy's dispatch
    protocols (``__array_ufunc__``, ``__array_function__``) hand NumPy's calls to, so that the
    NumPy code srcad generates runs on it unchanged. A NumPy array is not a duck array."""
    kind = type(value)
    return (kind is not np.ndarray and hasattr(kind, "__array_function__")
            and hasattr(kind, "__array_ufunc__") and not isinstance(value, (np.ndarray, np.generic))
            and hasattr(value, "shape") and hasattr(value, "ndim") and hasattr(value, "dtype"))


#: types that are never duck or foreign arrays: the checks below skip them at once
PLAIN = frozenset({float, int, bool, complex, str, type(None), np.ndarray, np.float64, list,
                    tuple, dict})


def any_duck(values):
    """Whether any of ``values`` is a duck array (see :func:`duck_array`)."""
    return any(type(v) not in PLAIN and duck_array(v) for v in values)


def foreign_array(value):
    """Whether ``value`` is an array of the array API standard (``__array_namespace__``) that
    lacks NumPy's dispatch protocols: NumPy calls would silently turn it into a NumPy array or
    fail, so srcad refuses it (see :func:`duck_array` for the arrays it takes)."""
    kind = type(value)
    return (kind not in PLAIN and hasattr(kind, "__array_namespace__")
            and not isinstance(value, (np.ndarray, np.generic)) and not duck_array(value))


def join(kinds):
    kinds = {k for k in kinds if k is not None}  # None: not known yet (recursion)
    if not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()
    return ANY


class DictItems(dict):
    """The item kinds of a dict (a dict keyed ``0, 1, ...`` is still iterated by its keys,
    not like a list: ``srcad.analysis.orders``)."""


class SeqItems(dict):
    """The item kinds of a list or tuple, by position (a dict that can carry ``inner``)."""


def item_kinds(value, depth=0):
    """Kinds of a container's items, by key or index (for ``params["W"]``, ``pair[0]``);
    ``inner``: the item kinds of its items that are containers in turn, by key
    (``params["w"]["a"]``: :func:`inner_items`), to a depth of 8. The cache key holds the
    whole structure (``srcad.backend.keys``) and srcad refuses writes into an argument's
    parts, so every item read with a constant key is of the kind found here."""
    if isinstance(value, dict):
        out, pairs = DictItems((k, kind_of_value(v)) for k, v in value.items()), value.items()
    elif isinstance(value, (list, tuple)):
        out, pairs = SeqItems(enumerate(kind_of_value(v) for v in value)), enumerate(value)
    else:
        return None
    inner = {k: v for k, v in pairs if isinstance(v, (dict, list, tuple))} if depth < 8 else {}
    if inner:
        out.inner = {k: item_kinds(v, depth + 1) for k, v in inner.items()}
    return out


def inner_items(items, key):
    """The item kinds of the item ``key`` of a container whose item kinds are ``items``
    (:func:`item_kinds`), when that item is a container; else None."""
    inner = getattr(items, "inner", None)
    if not inner:
        return None
    try:
        return inner.get(key)
    except TypeError:  # (a key that does not hash)
        return None


#: the key of a generated function's ``__srcad_param_kinds__`` naming the element kinds of the
#: lists its context tuple holds: ``((parameter, ((position, kind), ...)),)``
#: (:func:`srcad.analysis.elems.context_kinds`)
CONTEXT_ELEMS = "*context elems"


def made_for(func, kinds):
    """The kinds to analyse ``func`` for. A function srcad generated (differentiated again)
    records the argument kinds it was made for (``__srcad_param_kinds__``) and only ever runs
    on such: a parameter the call site cannot tell (ANY: a number read out of a context tuple)
    takes the kind it was made for, so ``dx += v`` on a number is not mistaken for a write
    into an array."""
    made = getattr(func, "__srcad_param_kinds__", None)
    if not made:
        return kinds
    out = {p: made.get(p, k) if k == ANY and made.get(p) in (SCALAR, ARRAY, SEQ) else k
           for p, k in kinds.items()}
    if CONTEXT_ELEMS in made:  # and what the lists in its context tuple hold
        out[CONTEXT_ELEMS] = made[CONTEXT_ELEMS]
    return out


def made_result(func, kind):
    """The kind of a generated function's result where the analysis cannot tell (ANY): the
    kind it was made to return (``__srcad_result_kind__``), if a number or an array."""
    made = getattr(func, "__srcad_result_kind__", None)
    return made if kind == ANY and made in (SCALAR, ARRAY) else kind


def made_items(func, items):
    """The item kinds of a generated function's container parameters (its context tuple:
    ``__srcad_param_items__``), for those the call site says nothing about."""
    made = getattr(func, "__srcad_param_items__", None)
    if not made:
        return items
    out = dict(made)
    out.update(items or {})
    return out


def made_stacks(func):
    """What the tuples on the stacks a generated function is handed hold (its context's
    lists: ``__srcad_param_stacks__``, parameter -> index -> one entry per tuple pushed,
    ``{position: (kind, rank)}``, or the kind of a value pushed alone), or None."""
    return getattr(func, "__srcad_param_stacks__", None)
