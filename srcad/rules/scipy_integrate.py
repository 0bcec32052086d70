"""Derivative rules for ``scipy.integrate``: ``odeint``.

Loaded the first time srcad looks a rule up after the user's code has imported
``scipy.integrate`` (see :mod:`srcad.rules.scipy_special`). ``odeint(func, y0, t, args)`` is
differentiated in ``y0``, in the times ``t`` and in ``args`` (a tuple of numbers, arrays, or
lists and tuples of them), by the adjoint method in reverse mode and by forward sensitivities
in forward mode (:mod:`srcad.runtime.scipy_ode`); srcad differentiates ``func`` itself, at run
time. ``func`` must be a function of its arguments only: a ``func`` that reads a value
carrying a derivative from elsewhere (a closure over one) takes no template here, so srcad
refuses it rather than miss that derivative. Options that change what is computed
(``Dfun``, ``full_output``, ``tfirst``, ``tcrit``, ...) are not in the signature: a call
using them is refused. The derivative helpers have no rules of their own: a second
derivative stops with a ``MissingRuleError``. ``y0`` must be a vector (as SciPy asks).
"""

from scipy import integrate

from ..runtime import scipy_ode  # noqa: F401  (its helpers: grad_odeint, tangent_odeint)
from .registry import defvjp as _defvjp

# the times are named ``times`` here: ``t`` is the tangent in a jvp= template (a call that
# passes them by the keyword ``t=`` is refused: pass them by position)
OPTIONS = "rtol, atol, mxstep, hmax, hmin, h0"


def defvjp(fn, signature, **rule):
    return _defvjp(fn, signature, name=f"scipy.integrate.{fn.__name__}", kind="array", **rule)


def _helper(kind, which):
    """The call of the derivative helper for the argument ``which``."""
    first = "g" if kind == "grad" else "t"
    return f"{kind}_odeint({first}, func, y0, times, args, ans, {which!r}, {OPTIONS})"


# ---------------------------------------------------------------- ordinary differential equations
defvjp(integrate.odeint, "func, y0, times, args=(), *, rtol=None, atol=None, mxstep=0, "
       "hmax=0.0, hmin=0.0, h0=0.0", zero=("rtol", "atol", "mxstep", "hmax", "hmin", "h0"),
       # the solver's other options at their defaults (the derivative's solves use its own)
       fixed=dict(Dfun=(None,), col_deriv=(0, False), full_output=(0, False), ml=(None,),
                  mu=(None,), tcrit=(None,), ixpr=(0, False), mxhnil=(0,), mxordn=(12,),
                  mxords=(5,), printmessg=(0, False), tfirst=(False,)),
       y0=_helper("grad", "y0"), times=_helper("grad", "t"), args=_helper("grad", "args"),
       jvp=dict(y0=_helper("tangent", "y0"), times=_helper("tangent", "t"),
                args=_helper("tangent", "args")))
