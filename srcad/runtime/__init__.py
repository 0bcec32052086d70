"""Layer 1, the runtime: the helpers generated code calls, all entered in one registry,
:data:`HELPERS` (name -> function; :func:`family_of` tells a helper's family): `helpers` holds
unbroadcast, zeros, scalar checks; `items` the gradients of containers read item by item;
`containers` the views of dicts and their gradients, sorting; `numpy_helpers` indexes the
gradients of NumPy functions too long for a template (`numpy_reductions`, `numpy_linalg`,
`numpy_shape`); `scipy_helpers` those of the SciPy rules (it imports SciPy only when generated
code first uses it), `scipy_ode` the derivatives of `scipy.integrate.odeint`, `derivatives` the
calls of derivatives srcad made inside differentiated code (to any order), `spread_calls`
`f(*xs)` of a length known only when it runs (differentiated then), `special` the
digamma family (the gradients of `math.lgamma` and `math.gamma`). Importing any module
of the runtime imports them all, so the registry is always complete.
Imports only `srcad.errors` and `srcad.core`."""

from . import (  # noqa: F401 (their helpers enter the registry)
    containers,
    derivatives,
    helpers,
    items,
    numpy_helpers,
    routes,
    scipy_helpers,
    scipy_ode,
    special,
    spread_calls,
)
from .registry import HELPERS, family_of, helper

__all__ = ["HELPERS", "family_of", "helper"]
