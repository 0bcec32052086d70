"""srcad: automatic differentiation of plain Python and NumPy code by source transformation.

    >>> import srcad
    >>> @srcad.grad(wrt=("x", "w"))
    ... def f(x, w):
    ...     a = x + w
    ...     b = w + 1
    ...     return a * b

``srcad.source(f)`` shows the generated derivative code; ``srcad.ssa(f)`` the SSA form.
"""

from . import extend, graph
from .api import clear_cache, grad, jvp, source, ssa, value_and_grad, vjp
from .compare import compare
from .errors import (
    MissingRuleError,
    MutationError,
    NonScalarOutputError,
    RuleError,
    SourceUnavailableError,
    SrcadError,
    UnsupportedSyntaxError,
    WrtError,
)
from .extend import stop_gradient
from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev

__version__ = "0.1.0"

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "jacobian", "jacfwd", "jacrev", "hessian", "hvp",
    "compare", "graph", "source", "ssa", "clear_cache", "extend", "stop_gradient",
    "SrcadError", "UnsupportedSyntaxError", "MutationError", "SourceUnavailableError",
    "MissingRuleError",
    "NonScalarOutputError", "WrtError", "RuleError",
]
