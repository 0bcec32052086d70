"""Stand-ins for ``math``, ``float``, ``int`` and ``round`` that work on another engine's
traced values (torch tensors, autograd's boxes), for :func:`srcad.tape.rebind`.

Imports: the standard library only.
"""

from __future__ import annotations

import builtins
import math
import types


def _standin(real, convert):
    """A stand-in for the builtin type ``real`` in rebound code: ``convert(x)`` makes values.

    ``isinstance(x, real)`` keeps working in the rebound code (the class checks as ``real``).
    """

    class _Type(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

    class Standin(real, metaclass=_Type):
        def __new__(cls, *args):
            return convert(*args)

    Standin.__name__ = Standin.__qualname__ = real.__name__
    return Standin


def _builtins(is_traced, plain_value):
    """Replacements of ``float``, ``int`` and ``round`` for traced values.

    ``float`` is the identity on a traced scalar (its derivative is 1, as srcad and the tape
    have it); ``int`` and ``round`` see plain values (piecewise constant).
    """

    def to_float(x=0.0):
        return x if is_traced(x) else builtins.float(x)

    def to_int(x=0, *base):
        return builtins.int(plain_value(x), *base)

    def rounded(x, ndigits=None):
        return builtins.round(plain_value(x), ndigits)

    return {
        builtins.float: _standin(builtins.float, to_float),
        builtins.int: _standin(builtins.int, to_int),
        builtins.round: rounded,
    }


def _dispatching(real, traced_fn, has_traced, plain_value):
    """``real`` on plain values, ``traced_fn`` when an argument is traced.

    ``traced_fn`` None: an error for traced arguments (a silent float conversion would drop the
    gradient). ``traced_fn`` "constant": ``real`` on the plain values (piecewise constant).
    """

    def shim(*args, **kwargs):
        if not any(has_traced(a) for a in (*args, *kwargs.values())):
            return real(*args, **kwargs)
        if traced_fn == "constant":
            return real(*map(plain_value, args), **kwargs)
        if traced_fn is None:
            raise NotImplementedError(f"no traced version of {_qualname(real)}")
        return traced_fn(*args, **kwargs)

    shim.__name__ = shim.__qualname__ = getattr(real, "__name__", "shim")
    return shim


def _qualname(fn):
    module = getattr(fn, "__module__", None) or "numpy"
    return f"{module.split('.')[0]}.{getattr(fn, '__name__', fn)}"


_PIECEWISE_CONSTANT = ("ceil", "floor", "trunc", "isnan", "isinf", "isfinite", "isclose",
                       "factorial", "comb", "perm", "gcd", "lcm", "isqrt")

# math name -> name of the same function in numpy/autograd.numpy or torch (None: not differentiable
# here). Both libraries spell the inverse trigonometric functions differently.
_MATH_NAMES = {
    "sin": ("sin", "sin"), "cos": ("cos", "cos"), "tan": ("tan", "tan"),
    "asin": ("arcsin", "asin"), "acos": ("arccos", "acos"), "atan": ("arctan", "atan"),
    "sinh": ("sinh", "sinh"), "cosh": ("cosh", "cosh"), "tanh": ("tanh", "tanh"),
    "asinh": ("arcsinh", "asinh"), "acosh": ("arccosh", "acosh"), "atanh": ("arctanh", "atanh"),
    "exp": ("exp", "exp"), "expm1": ("expm1", "expm1"), "log1p": ("log1p", "log1p"),
    "log2": ("log2", "log2"), "log10": ("log10", "log10"), "sqrt": ("sqrt", "sqrt"),
    "fabs": ("abs", "abs"), "atan2": ("arctan2", "atan2"), "hypot": ("hypot", "hypot"),
    "erf": (None, "erf"), "erfc": (None, "erfc"),
}  # fmt: skip


def _math_shim(name, lookup, has_traced, plain_value, to_traced=lambda x: x):
    """A module standing in for ``math`` whose functions dispatch to ``lookup(name)``."""
    shim = types.ModuleType("math", f"math for {name} (srcad.compare)")
    for attr, real in vars(math).items():
        if attr.startswith("_"):
            continue
        if not callable(real):
            setattr(shim, attr, real)
            continue
        if attr in _PIECEWISE_CONSTANT:
            traced = "constant"
        elif attr in _MATH_NAMES:
            fn = lookup(attr)
            traced = None if fn is None else (
                lambda *a, _fn=fn: _fn(*map(to_traced, a)))
        else:
            traced = None
        setattr(shim, attr, _dispatching(real, traced, has_traced, plain_value))

    ln = _dispatching(math.log, lambda x: lookup("log")(to_traced(x)), has_traced, plain_value)

    def log(x, base=None):
        return ln(x) if base is None else ln(x) / ln(base)

    def power(x, y):
        return x**y if has_traced(x) or has_traced(y) else math.pow(x, y)

    shim.log, shim.pow = log, power
    shim.degrees = lambda x: x * (180 / math.pi)
    shim.radians = lambda x: x * (math.pi / 180)
    return shim


def _replacements(real_module, shim, names):
    """{real module or function: its stand-in} for :func:`srcad.tape.rebind`."""
    out = {real_module: shim}
    for name in names:
        real = getattr(real_module, name, None)
        if real is not None and callable(real) and not isinstance(real, type):
            try:
                out[real] = getattr(shim, name)
            except (AttributeError, NotImplementedError):
                continue
    return out


