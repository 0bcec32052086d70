"""The array API standard's functions, as the NumPy functions whose rules differentiate them.

User code written for the standard reads its functions from the arrays' namespace
(``xp = array_namespace(x)``, then ``xp.sum(xp.tanh(X @ w))``).
:mod:`srcad.frontend.lower_namespaces` reads ``xp.f`` as the NumPy function this table names
for ``f``, so NumPy's rules (:mod:`srcad.rules.numpy` and the rest of this package)
differentiate it; the standard backend (:mod:`srcad.backend.standard`) writes the generated
code back in the arrays' namespace. A name is here only where NumPy's function computes what
the standard's does for the arguments the standard allows (``xp.pow`` is ``np.power``,
``xp.concat`` is ``np.concatenate``, ``xp.permute_dims`` is ``np.transpose``); a name that is
not is refused where the user wrote it (:func:`numpy_form`), never read as another function.

One entry per function, grouped as the standard groups them. Imports NumPy only.
"""

from __future__ import annotations

import numpy as np

#: standard name -> NumPy's name, where they differ
_RENAMED = {
    "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh", "pow": "power",
    "concat": "concatenate", "permute_dims": "transpose",
}

# ---------------------------------------------------------------- elementwise functions
_ELEMENTWISE = (
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "cos", "cosh",
    "divide", "exp", "expm1", "hypot", "log", "log1p", "log2", "log10", "logaddexp",
    "maximum", "minimum", "clip", "multiply", "negative", "positive", "pow", "sin", "sinh", "sqrt",
    "square", "subtract", "tan", "tanh", "reciprocal", "sign",
    # zero derivative, or not differentiated (their results are booleans or integers)
    "ceil", "floor", "round", "trunc", "equal", "not_equal", "greater", "greater_equal",
    "less", "less_equal", "isfinite", "isinf", "isnan", "logical_and", "logical_not",
    "logical_or", "logical_xor",
)

# ---------------------------------------------------------------- reductions, statistics
_REDUCTIONS = ("sum", "prod", "mean", "max", "min", "std", "var", "argmax", "argmin", "all",
               "any", "cumulative_sum", "cumulative_prod")

# ---------------------------------------------------------------- linear algebra
_LINEAR = ("matmul", "tensordot", "vecdot")

# ---------------------------------------------------------------- shapes, selection
_SHAPES = ("reshape", "expand_dims", "squeeze", "permute_dims", "concat", "stack",
           "broadcast_to", "flip", "moveaxis", "where", "sort")

# ---------------------------------------------------------------- creation, data types
_CREATION = ("asarray", "zeros", "ones", "zeros_like", "ones_like", "full", "full_like",
             "arange", "linspace", "eye")
_CONSTANTS = ("float64", "float32", "int64", "int32", "bool", "pi", "e", "inf", "nan",
              "newaxis")

#: ``xp.linalg.f``: the functions of the standard's linalg extension read as ``np.linalg.f``
#: (NumPy 2's ``np.linalg`` follows the extension: the same names, arguments and results)
LINALG = ("det", "inv", "solve", "slogdet", "cholesky", "pinv", "matrix_power", "eigh",
          "svdvals", "vector_norm", "matrix_norm", "trace", "diagonal", "outer", "cross",
          "matmul", "tensordot", "vecdot")

#: every name of the standard srcad reads, as NumPy's name
NAMES = {n: _RENAMED.get(n, n) for n in _ELEMENTWISE + _REDUCTIONS + _LINEAR + _SHAPES
         + _CREATION + _CONSTANTS}

#: the standard's functions whose keywords differ from NumPy's (``correction=``, ``min=``):
#: refused, with what to write
REFUSED = {
    "astype": "keep the arrays float64, or convert before calling the function",
    "matrix_transpose": "write xp.permute_dims(x, (1, 0)) for a matrix instead",
}


#: the standard's keywords that NumPy spells otherwise, by function
KEYWORDS = {"std": {"correction": "ddof"}, "var": {"correction": "ddof"},
            "eye": {"n_cols": "M"}}


def numpy_form(name, linalg=False):
    """NumPy's spelling of the standard's ``xp.name`` (``xp.linalg.name``), or None (also
    where this NumPy is too old to have it: ``np.cumulative_sum`` came in NumPy 2.1)."""
    spelling = (f"linalg.{name}" if name in LINALG else None) if linalg else NAMES.get(name)
    if spelling is None:
        return None
    obj = np
    for part in spelling.split("."):
        obj = getattr(obj, part, None)
    return spelling if obj is not None else None
