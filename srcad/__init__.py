"""srcad: automatic differentiation of plain Python and NumPy code by source transformation.

    >>> import srcad
    >>> @srcad.grad(wrt=("x", "w"))
    ... def f(x, w):
    ...     a = x + w
    ...     b = w + 1
    ...     return a * b

``srcad.source(f)`` shows the generated derivative code; ``srcad.ssa(f)`` the SSA form.

The package is layered; each layer imports only from those below it (tests/test_layers.py
draws the import graph and fails on a cycle or an upward import):

    srcad.errors                the errors users catch
    srcad.core                  IR, kinds, names, facts about functions, environment guards
    srcad.runtime               helpers the generated code calls
    srcad.rules                 the derivative rules (data) and their registry
    srcad.frontend              read, validate, desugar, lower to SSA, dead code
    srcad.analysis              kinds and activity, ranks, aliasing, the soundness invariant
    srcad.transform             reverse and forward sweeps, callee splitting, rule templates
    srcad.backend               tidy, print and compile, dispatch
    srcad.pipeline              the passes in order (hands callee splitting down)
    srcad.api, jacobians, extend    the public API (srcad.specialise: its specialisation cache;
                                srcad.jacobians_batched, batched_jvp: batched forward mode;
                                srcad.pytrees: dataclasses and named tuples as wrt arguments;
                                srcad.tree_keys: derivatives' lookup on containers' structure;
                                srcad.jacobian_trees: forward-mode Jacobians over containers;
                                srcad.tree_jacobians: their plans kept by structure;
                                srcad.number_columns: a tuple of numbers out's passes;
                                srcad.tree_calls: vjp's value_and_grad of containers;
                                srcad.tree_jvps: jvp's (and hvp's) of containers;
                                srcad.tree_vjps: vjp's front for containers;
                                srcad.fast_calls: vjp's and jvp's closures per argument types;
                                srcad.fast_checks: their tests of the names the code read;
                                srcad.aux_calls: has_aux=True's derivatives;
                                srcad.numba_forms: derivatives called from @numba.njit code;
                                srcad.written_state: derivatives of functions writing into
                                what they are given)
    srcad.tools                 tape, check, compare, graph, cli (on top of the API)

``srcad.tape``, ``srcad.check``, ``srcad.compare`` and ``srcad.graph`` name the tool modules,
so ``import srcad.tape`` and ``from srcad.check import numerical_grad`` work as documented.
"""

import sys as _sys

from . import extend
from .api import clear_cache, grad, jvp, source, ssa, value_and_grad, vjp
from .batched_jvp import jvp_batched
from .curried import linearize, make_jvp, make_vjp
from .errors import (
    BackendError,
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
from .jacobians import (
    elementwise_grad,
    hessian,
    hessian_vector_product,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
)
from .nested import JvpOf as _JvpOf  # noqa: F401 - srcad.jvp called inside differentiated code
from .nested_aux import plain_with_aux as _plain_with_aux  # noqa: F401 - has_aux in code
from .nested_vjp import make_pullback as _make_pullback  # noqa: F401 - srcad.vjp, hvp in code
from .numba_forms import numba_function, numba_jvp
from .pytrees import register_pytree
from .runtime import scipy_ode as _scipy_ode
from .tools import check, graph, tape
from .tools import compare as _compare_module
from .tools.compare import compare

# the rule of scipy.integrate.odeint differentiates the user's func at run time: the runtime
# gets srcad's own vjp and jvp from here (it may not import the API above it)
_scipy_ode.DIFFERENTIATE.update(vjp=vjp, jvp=jvp)

for _module in (check, graph, tape, _compare_module):
    _sys.modules.setdefault(f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}", _module)
del _module

__version__ = "0.1.0"

__all__ = [
    "grad", "value_and_grad", "vjp", "jvp", "jvp_batched", "jacobian", "jacfwd", "jacrev",
    "hessian", "hvp",
    "elementwise_grad", "hessian_vector_product", "make_vjp", "make_jvp", "linearize",
    "compare", "graph", "tape", "check", "source", "ssa", "clear_cache", "extend", "stop_gradient",
    "register_pytree", "numba_function", "numba_jvp",
    "SrcadError", "UnsupportedSyntaxError", "MutationError", "SourceUnavailableError",
    "MissingRuleError",
    "NonScalarOutputError", "WrtError", "RuleError", "BackendError",
]
