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
    "broadcast_to", "full", "concatenate", "array", "eye", "ascontiguousarray", "mean",
    "cumsum", "argsort", "arange",
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
                 "power_of", "layout", "fill", "grad_cumsum",
                 "last_writes"}

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


#: NumPy functions this backend compiles of one array only (Numba's take no ``axis``), and
#: what to write for the other forms (refused before compiling)
WHOLE = {
    "mean": "np.mean along an axis or with options (Numba's np.mean takes the whole array "
            "only): write np.sum(a, axis=k) / a.shape[k]",
    "cumsum": "np.cumsum along an axis or with options (Numba's np.cumsum runs over the "
              "whole array, flattened, only): write the running sum as a loop, "
              "c[i] = c[i - 1] + a[i]",
}

_SORT = ("sorting (srcad sorts, and takes the gradient back to each item's place, with Python "
         "functions of its own): write order = np.argsort(v, kind='mergesort') (stable: the "
         "order of ties as in NumPy) and the sorted values as a loop, s[k] = v[order[k]]")

#: what to write instead, for constructs users meet that this backend does not compile, by
#: the name the check meets: a NumPy function, a builtin, srcad's own Python function
INSTEAD = {
    "numpy.sort": _SORT, "sorted": _SORT, "sort": _SORT,
    "numpy.argsort": "np.argsort other than np.argsort(v, kind='mergesort') (Numba's default "
                     "sort orders ties otherwise than NumPy's): write kind='mergesort'",
    "add_at": "np.add.at (srcad computes it with a Python function of its own): write the "
              "loop, for k in range(len(idx)): b[idx[k]] += v[k]",
    "UnboundLocalError": "a loop variable read after the loop (Python keeps its last value, "
                         "or raises UnboundLocalError where the loop ran no time): keep the "
                         "value in a name set before the loop, last = 0 before it and "
                         "last = i in it",
    "last_writes": "a write at an index array other than a 1-d mask or a 1-d array of ints "
                   "(y[idx] = v; those compile): write the loop, for k in range(len(idx)): "
                   "y[idx[k]] = v[k], or for a mask y = np.where(mask, v, y)",
}


def instead(what, otherwise):
    """The refusal's text for ``what`` (a key of :data:`INSTEAD`, or srcad's own function's
    name holding one: ``sort_value_1``), else ``otherwise``."""
    if what in INSTEAD:
        return INSTEAD[what]
    found = [k for k in ("add_at", "sort") if k in what]
    return INSTEAD[found[0]] if found else otherwise


def refused_form(attr, node):
    """What to write instead where the call ``node`` of ``np.<attr>`` is a form this backend
    refuses (:data:`WHOLE` given more than the array; ``np.argsort`` without
    ``kind='mergesort'``), else None."""
    if attr in WHOLE and (len(node.args) != 1 or node.keywords):
        return WHOLE[attr]
    if attr == "argsort" and not (len(node.args) == 1 and len(node.keywords) == 1
                                  and node.keywords[0].arg == "kind"
                                  and getattr(node.keywords[0].value, "value", None)
                                  == "mergesort"):
        return INSTEAD["numpy.argsort"]
    return None
