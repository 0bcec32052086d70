"""What the Numba backend (:mod:`.numba_backend`) compiles, by name: the builtins, the NumPy and
``math`` functions Numba computes as Python and NumPy do, the ``math`` functions given checked
versions (they raise in Python where Numba returns nan or inf), srcad's runtime helpers that
:mod:`.numba_helpers` implements, and the helpers whose construct it refuses, with the reason.

Imports nothing.
"""

from __future__ import annotations

#: builtins the generated code may call under Numba
BUILTINS = {"range", "len", "abs", "min", "max", "float", "int", "bool", "pow", "slice", "sum"}

#: NumPy functions Numba compiles with the meaning NumPy gives them (those srcad's rules and
#: templates emit for the constructs this backend covers)
NUMPY = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
    "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "abs", "absolute", "sign",
    "hypot", "power", "square", "zeros", "zeros_like", "ones", "ones_like", "empty",
    "empty_like", "sum", "dot", "where", "maximum", "minimum", "pi", "e", "shape", "copy",
    "float64", "negative", "multiply", "add", "subtract", "divide", "reciprocal",
    "broadcast_to", "full", "concatenate", "array", "eye", "ascontiguousarray",
}


#: ``math`` functions that raise in Python where Numba returns nan or inf: checked versions
CHECKED_MATH = ("sqrt", "log", "log2", "log10", "log1p", "acos", "asin", "acosh", "atanh",
                "exp", "expm1", "cosh", "sinh", "sin", "cos", "tan", "floor", "ceil", "lgamma",
                "gamma")

#: the ``math`` names this backend compiles: those Numba computes as Python does, and the
#: checked ones (``math.pow`` is the checked ``**``)
MATH = set(CHECKED_MATH) | {
    "atan", "atan2", "tanh", "asinh", "fabs", "erf",
    "erfc", "pi", "e", "inf", "nan", "tau", "isnan", "isinf", "isfinite", "copysign", "pow",
    "degrees", "radians", "lgamma",
}

#: srcad's runtime helpers that :mod:`.numba_helpers` implements (for the types it names)
NUMBA_HELPERS = {"check_scalar", "add", "unbroadcast", "sign", "where", "unbroadcast_to",
                 "grad_sum", "grad_dot_a", "grad_dot_b", "zeros_like", "like",
                 "copy_tangent", "cleared", "scatter", "grad_concatenate", "grad_array",
                 "grad_extremum", "grad_einsum", "grad_reshape", "transpose_grad",
                 "mutable", "log_base", "grad_stack", "broadcast_as", "polygamma_real",
                 "power_of", "layout", "fill"}

#: NumPy reductions along a constant axis (or all), with keepdims: numba_axes.reduce
REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "amax": "max", "amin": "min"}


#: srcad helpers whose construct this backend refuses, and what to say: the construct
_DERIVATIVE = ("a call of a derivative srcad made (srcad.grad(f)(x), srcad.jvp(f, ...), or a "
               "function given such a derivative) in the function, with arguments other than "
               "numbers and float arrays of known rank (or a derivative of a vjp or a Jacobian): "
               "its code is chosen when it runs, for the types it is given, which code "
               "compiled in advance cannot do; compile the innermost derivative alone with "
               "backend='numba'")
REFUSED_HELPERS = {
    "derivative_fwd": _DERIVATIVE, "derivative_bwd": _DERIVATIVE,
    "derivative_jvp": _DERIVATIVE, "form_fwd": _DERIVATIVE, "form_jvp": _DERIVATIVE,
}
