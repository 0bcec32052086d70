"""Checks of the arguments a derivative is called with, before any code is made or run: a
``wrt`` argument must be a floating-point or complex number or array (or a container of
them), a ``holomorphic=True`` one complex, and an array without NumPy's dispatch protocols
(the array API standard's strict arrays) or a complex Dask/CuPy array is refused.

Imports ``srcad.core``, ``srcad.errors``, ``srcad.runtime``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .core import functions
from .core.kinds import duck_array, foreign_array, is_complex_value
from .errors import BackendError, WrtError
from .frontend import plain_classes
from .frontend.lower_namespaces import standard_code
from .runtime import arrays, standard


def check_arrays(f, values):
    """Refuse an argument that is an array of the array API standard without NumPy's dispatch
    protocols (``wrt`` or not: NumPy calls would convert it, see srcad.runtime.arrays)."""
    for name, value in values.items():
        if foreign_array(value) and not _standard_call(f, values):
            raise arrays.refuse_foreign(value, f"argument {name!r}",
                                        getattr(f, "__code__", None))
        if duck_array(value) and value.dtype.kind == "c":
            code = getattr(f, "__code__", None)
            raise BackendError(
                f"argument {name!r} is a complex {type(value).__module__.split('.')[0]} array: "
                "srcad's complex support covers NumPy arrays and Python/NumPy numbers",
                filename=getattr(code, "co_filename", None),
                lineno=getattr(code, "co_firstlineno", None),
                hint="compute with a NumPy array (np.asarray(x)), or split it into its real "
                     "and imaginary parts")


def _standard_call(f, values):
    """Whether arrays of the array API standard may be given to ``f`` with ``values``: their
    namespace is known, no NumPy array is among the values, and ``f`` reads no NumPy module
    (:func:`srcad.frontend.lower_namespaces.standard_code`)."""
    if standard.namespace_of(values.values()) is None or any(
            isinstance(v, np.ndarray) for v in values.values()):
        return False
    return standard_code(getattr(f, "__wrapped__", f))


def check_wrt_value(f, name, value, nested=False):
    code = f.__code__
    if isinstance(value, (list, tuple, dict)):  # an empty one: its gradient is empty too
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            check_wrt_value(f, name, item, nested=True)
        return
    if foreign_array(value):
        space = standard.namespace_of([value])
        if space is None or nested:  # code in the namespace takes them (srcad.backend.standard)
            raise arrays.refuse_foreign(value, f"argument {name!r}", code)
        if value.dtype != space.float64:
            raise WrtError(f"argument {name!r} is an array of dtype {value.dtype}: code for "
                           f"{arrays.library(value)} arrays differentiates float64 arrays only",
                           filename=code.co_filename, lineno=code.co_firstlineno,
                           hint=f"pass xp.astype({name}, xp.float64)")
        return
    if isinstance(value, np.ndarray) or duck_array(value):
        if value.dtype.kind not in "fc":
            raise WrtError(
                f"argument {name!r} is an array of dtype {value.dtype}: srcad differentiates "
                "floating-point and complex arrays only", filename=code.co_filename,
                lineno=code.co_firstlineno,
                hint=_dtype_hint(name, value.dtype))
        return
    if isinstance(value, (numbers.Complex, np.number)) and not isinstance(
        value, (bool, np.bool_)
    ):
        return
    if isinstance(getattr(value, "__dict__", None), dict) and \
            functions.user_instance_class(value) is not None and not isinstance(value, type):
        raise _unregistered(name, value, code)
    raise WrtError(
        f"argument {name!r} is {type(value).__name__}, not a number or array: srcad cannot "
        "differentiate with respect to it", filename=code.co_filename,
        lineno=code.co_firstlineno,
        hint="pass a float, a float NumPy array, or a list/tuple/dict of them, or leave this "
        "argument out of wrt")


def _unregistered(name, value, code):
    """The refusal of an object of a plain class of the user's as a ``wrt`` argument: srcad
    does not guess which attributes are its leaves (JAX's pytrees are registered too)."""
    cls = type(value).__name__
    attrs = [k for k in vars(value) if isinstance(k, str) and k.isidentifier()][:4] or ["w"]
    flat = ", ".join(f'"{a}": o.{a}' for a in attrs)
    direct = plain_classes.direct_fields(type(value))
    made = f"{cls}(**d)" if direct and list(direct[0]) == attrs else \
        f"<a {cls} made from the dict d>"
    return WrtError(
        f"argument {name!r} is an object of your class {cls}, which is not a pytree: srcad "
        "differentiates with respect to dataclasses, named tuples and classes registered "
        "with srcad.register_pytree, and does not guess which attributes of a plain class "
        "are its leaves", filename=code.co_filename, lineno=code.co_firstlineno,
        hint=f"register it: srcad.register_pytree({cls}, lambda o: {{{flat}}}, lambda d: "
        f"{made}) (the gradient is then a {cls}), make {cls} a "
        "dataclass, or pass its values as arguments and build the object in the function")


def check_holomorphic_wrt(f, name, value):
    """``holomorphic=True`` differentiates with respect to complex arguments only (as JAX)."""
    if not is_complex_value(value):
        code = f.__code__
        raise WrtError(f"argument {name!r} is real: grad(..., holomorphic=True) takes complex "
                       "arguments", filename=code.co_filename, lineno=code.co_firstlineno,
                       hint=f"pass {name} + 0j, or leave holomorphic out for a real argument")


def _dtype_hint(name, dtype):
    """What to do with an array of a dtype srcad does not differentiate."""
    if dtype.kind in "iub":
        return f"pass {name}.astype(float)"
    return (f"pass an array of numbers: np.asarray({name}, dtype=float) if its items are "
            "numbers")
