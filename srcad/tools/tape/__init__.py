"""A small dynamic-graph (tape) reverse-mode engine: srcad's reference and second opinion.

srcad differentiates a function by rewriting its source once, before it runs. This module does
what PyTorch does instead: it *runs* the function on :class:`Var` values. Each ``Var`` made by an
operation remembers its parents and a backward rule; :meth:`Var.backward` sorts that graph
topologically and walks it in reverse, applying one vector-Jacobian product (vjp) per step. The
graph is rebuilt on every call, so branches and loops need no special treatment: the graph simply
records the path that was taken.

The same plain functions that :func:`srcad.grad` differentiates run here unchanged:

    >>> def f(x, w):
    ...     return (x + w) * (w + 1)
    >>> grad(f, wrt=("x", "w"))(2.0, 1.0)
    (2.0, 5.0)
    >>> y = trace(f, 2.0, 1.0, wrt=1)
    >>> y
    Var(6.0, grad_fn=MulBackward)
    >>> y.is_leaf, y.requires_grad
    (False, True)

To run a plain function, :func:`rebind` copies it, and every user helper it calls, with ``math``
and ``numpy`` (and names imported from them) replaced by the tracing shims :data:`MATH` and
:data:`NUMPY`, and ``float`` by one that passes a scalar Var through. The other builtins (``abs``,
``min``, ``max``, ``sum``, ``pow``, ``int``, ``round``...) work through ``Var``'s special methods.

Code that is not copied (methods, functions reached through an object, a dict or a module
attribute, libraries) still calls the real functions. There NumPy hands a Var back to the tape
through its dispatch protocols (``Var.__array_function__`` and ``Var.__array_ufunc__``), so
``np.tanh(x)`` is recorded wherever it is called; ``math`` functions and ``float`` convert to a
plain number, which a Var that requires grad refuses with :class:`LostGradientError`. The rule:
a primitive applied to a Var either records its derivative or raises a :class:`TapeError`; it
never returns a plain number that silently drops the gradient.

Public names: :class:`Var`, :func:`grad`, :func:`value_and_grad`, :func:`trace`, :func:`rebind`,
the rule table :data:`VJPS`, the shims :data:`MATH`, :data:`NUMPY`, and the errors
:class:`TapeError`, :class:`LostGradientError` and :class:`TapeUnsupportedError`.

The package, bottom to top (each module imports only those above it in this list):

    vjps        the derivative rules, VJPS
    var         Var, the engine that records and replays steps; arrays from Vars
    shims       the tracing stand-ins MATH, NUMPY and float
    rebinding   rebind: a copy of a function that sees stand-ins
    api         grad, value_and_grad, trace

Imports: its own modules only (which import NumPy and the standard library, nothing of srcad).

Limitations (each an error, never a wrong gradient):

- ``float(x)`` keeps the gradient in rebound code (it is the identity on floats); elsewhere
  ``float(x)``, ``math.tanh(x)``, ``np.float64(x)``, ``np.asarray(x)`` and storing a Var into a
  NumPy array (``out[i] = x``: a ``ValueError`` from NumPy) raise :class:`LostGradientError`.
  A Var that does not require grad converts freely.
- Rebinding reaches functions named by a global, a closure cell, a default or a
  ``functools.partial``; not methods of user classes, functions held in objects, dicts or lists,
  ``module.helper`` attributes of user modules, or modules imported inside a function. There
  NumPy is still followed; ``math`` and ``float`` are refused.
- The copy of a function has its own copy of its globals: ``global`` assignments stay there.
- A NumPy or math function without a rule (``np.cumsum``, ``np.linalg.*``, ``math.gamma``),
  a ufunc method (``np.add.reduce``), ``out=`` (so ``out *= x`` into a plain array), ``np.dot``
  above 2-D, and a Var that requires grad passed as a keyword argument raise
  :class:`TapeUnsupportedError` (a ``NotImplementedError``).
- No nesting: the tape computes first derivatives only; use :func:`srcad.grad` for more.
"""

from __future__ import annotations

from .api import grad, trace, value_and_grad
from .rebinding import rebind
from .shims import MATH, NUMPY
from .var import LostGradientError, TapeError, TapeUnsupportedError, Var
from .vjps import VJPS

__all__ = [
    "MATH", "NUMPY", "VJPS", "LostGradientError", "TapeError", "TapeUnsupportedError", "Var",
    "grad", "rebind", "trace", "value_and_grad",
]  # fmt: skip
