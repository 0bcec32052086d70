"""Tracing stand-ins for ``math``, ``numpy`` and ``float``, for the functions the tape runs.

:data:`MATH` and :data:`NUMPY` are modules whose functions record a step on :class:`~.var.Var`
arguments (each names its rule in :data:`~.vjps.VJPS`) and are the real functions on plain
numbers; a real function without a rule is passed through when its result is piecewise constant
and refuses a Var that requires grad otherwise. :data:`_REPLACEMENTS` maps each real module,
function and ``float`` to its stand-in, for :func:`~.rebinding.rebind`.

Imports: NumPy, the standard library and :mod:`.var`.
"""

from __future__ import annotations

import math
import types

import numpy as np

from . import var
from .var import (
    TapeUnsupportedError,
    Var,
    _apply,
    _deep,
    _has_var,
    _lift,
    _needs_grad,
    _np_array,
    _np_dot,
    _np_stack,
    _raw,
)

# ================================================================================================
# Tracing shims of math and numpy
# ================================================================================================


def _traced(rule, fn):
    """``fn`` recording ``rule`` when given Vars; exactly ``fn`` on plain numbers."""

    def traced(*args, **kwargs):
        return _apply(rule, fn, *map(_lift, args), **kwargs)

    traced.__name__ = traced.__qualname__ = fn.__name__
    traced.__doc__ = f"{fn.__name__}, recorded on Vars with the {rule!r} rule."
    return traced


def _unwrap(x):
    """Values for Vars, also inside lists, tuples and dicts."""
    return _deep(x, _raw)


def _constant(fn):
    """``fn`` whose result does not depend smoothly on its arguments: it sees values only."""

    def constant(*args, **kwargs):
        return fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})

    constant.__name__ = constant.__qualname__ = getattr(fn, "__name__", "constant")
    return constant


def _guarded(fn, qualname):
    """``fn`` as it is for plain values; an error instead of a silently wrong gradient."""

    def guarded(*args, **kwargs):
        if _needs_grad(args, kwargs):
            raise TapeUnsupportedError(
                f"srcad.tape has no derivative rule for {qualname}; add one to srcad.tape.VJPS "
                f"or compute it from functions that have one"
            )
        return fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})

    guarded.__name__ = guarded.__qualname__ = getattr(fn, "__name__", qualname)
    return guarded


class _Shim(types.ModuleType):
    """A stand-in for ``real``: its own traced functions, then the real module's attributes.

    A real function that is not traced is taken as it is when it is in ``constant`` (its result
    is piecewise constant, so it only sees values), and otherwise raises if given a Var that
    requires grad. Classes, submodules and constants are the real ones.
    """

    def __init__(self, name, real, functions, constant):
        super().__init__(name, f"Tracing stand-in for {real.__name__} (see srcad.tape).")
        self.__dict__.update(functions)
        self._real = real
        constant = [name for name in constant if hasattr(real, name)]  # across versions
        self._constant = frozenset(constant)
        self._own = [*functions, *constant]

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if name in self._constant:
            attr = _constant(attr)
        elif callable(attr) and not isinstance(attr, type):
            attr = _guarded(attr, f"{self._real.__name__}.{name}")
        setattr(self, name, attr)
        return attr

    def __dir__(self):
        return sorted(set(dir(self._real)) | set(self.__dict__))

    def replacements(self):
        """{real module or function: stand-in}, for every function with its own behaviour here."""
        own = {getattr(self._real, name): getattr(self, name) for name in self._own}
        return {self._real: self, **own}


# -- math ------------------------------------------------------------------------------------------
# math name -> rule; the forward computation is the math function itself.
_MATH_RULES = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "exp": "exp", "expm1": "expm1", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "sqrt": "sqrt", "erf": "erf", "erfc": "erfc", "fabs": "abs", "atan2": "atan2", "pow": "pow",
    "copysign": "copysign", "fmod": "fmod",
}  # fmt: skip
_MATH_CONSTANT = "ceil floor trunc isnan isinf isfinite isclose factorial comb perm gcd lcm isqrt"


_math_ln = _traced("log", math.log)


def _math_log(x, base=None):
    return _math_ln(x) if base is None else _math_ln(x) / _math_ln(base)


def _math_hypot(*xs):
    if len(xs) == 2:
        return _apply("hypot", math.hypot, *xs)
    return MATH.sqrt(sum(x * x for x in xs)) if any(map(_has_var, xs)) else math.hypot(*xs)


def _math_degrees(x):
    return x * (180 / math.pi)


def _math_radians(x):
    return x * (math.pi / 180)


MATH = _Shim(
    "srcad.tape.math",
    math,
    {
        **{name: _traced(rule, getattr(math, name)) for name, rule in _MATH_RULES.items()},
        "log": _math_log,
        "hypot": _math_hypot,
        "degrees": _math_degrees,
        "radians": _math_radians,
    },
    _MATH_CONSTANT.split(),
)


# -- numpy -----------------------------------------------------------------------------------------
# numpy name -> rule; the forward computation is the numpy function itself.
_NUMPY_RULES = {
    # unary ufuncs
    "sin": "sin", "cos": "cos", "tan": "tan",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "square": "square", "reciprocal": "reciprocal",
    "abs": "abs", "absolute": "abs", "fabs": "abs", "negative": "neg",
    # binary ufuncs
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
    "power": "pow", "mod": "mod", "remainder": "mod", "maximum": "maximum", "minimum": "minimum",
    "arctan2": "atan2", "hypot": "hypot",
    # selection
    "where": "where",
    # reductions
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "amax": "max",
    "min": "min", "amin": "min",
    # shapes, linear algebra
    "reshape": "reshape", "transpose": "transpose", "matmul": "matmul",
    "expand_dims": "expand_dims", "squeeze": "squeeze",
}  # fmt: skip
_NUMPY_CONSTANT = """
    sign floor ceil rint round around trunc fix floor_divide heaviside
    equal not_equal less less_equal greater greater_equal isclose allclose array_equal
    isnan isinf isfinite logical_and logical_or logical_not any all
    argmax argmin argsort argwhere nonzero searchsorted count_nonzero
    shape ndim size zeros_like ones_like empty_like full_like
"""


def _np_asarray(obj, *args, **kwargs):
    return _np_array(obj) if _has_var(obj) else np.asarray(obj, *args, **kwargs)


def _cat_forward(*xs, axis):
    return np.concatenate(xs, axis)


def _np_concatenate(arrays, axis=0):
    return _apply("cat", _cat_forward, *map(_lift, arrays), axis=axis)


def _np_outer(a, b):
    return NUMPY.reshape(_lift(a), (-1, 1)) * NUMPY.reshape(_lift(b), (1, -1))


def _np_clip(a, a_min=None, a_max=None):
    return _apply("clamp", np.clip, _lift(a), a_min, a_max)


def _np_ravel(a):
    return NUMPY.reshape(_lift(a), -1)


NUMPY = _Shim(
    "srcad.tape.numpy",
    np,
    {
        **{
            name: _traced(rule, getattr(np, name))
            for name, rule in _NUMPY_RULES.items()
            if hasattr(np, name)
        },
        "array": _np_array,
        "asarray": _np_asarray,
        "stack": _np_stack,
        "concatenate": _np_concatenate,
        "dot": _np_dot,
        "outer": _np_outer,
        "clip": _np_clip,
        "ravel": _np_ravel,
    },
    _NUMPY_CONSTANT.split(),
)


_NUMPY_OWN = {id(real): stand_in for real, stand_in in NUMPY.replacements().items()}


def _numpy_stand_in(fn):
    """The stand-in of a NumPy function or ufunc that NumPy's dispatch hands to a Var, or None."""
    own = _NUMPY_OWN.get(id(fn))
    if own is not None:
        return own
    name = getattr(fn, "__name__", None)
    return getattr(NUMPY, name) if name and getattr(np, name, None) is fn else None


var._NUMPY_STAND_IN[0] = _numpy_stand_in


# -- builtins --------------------------------------------------------------------------------------
class _FloatType(type):
    """Keeps ``isinstance(x, float)`` true of every float where ``float`` means :class:`_Float`."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, float)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, float)


class _Float(float, metaclass=_FloatType):
    """``float`` as rebound code sees it: the identity on a scalar Var, as on a Python float.

    ``float(x)`` does not change a float, so its derivative is 1; srcad and finite differences
    agree. (``Var.__float__``, met outside rebound code, refuses a Var that requires grad.)
    """

    def __new__(cls, x=0.0):
        return x if isinstance(x, Var) and x.ndim == 0 else float(x)


# {real module, function or builtin: its tracing stand-in}, for rebind
_REPLACEMENTS = {**MATH.replacements(), **NUMPY.replacements(), float: _Float}
