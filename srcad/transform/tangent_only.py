"""Forward mode for a Jacobian of ``grad``'s code (a Hessian): the tangent alone.

A Hessian of a function of a container (``jacfwd(grad(f))``) runs the forward mode of
``grad``'s code once per number of the argument and reads the tangents only; the value,
the gradient, is computed beside each tangent and dropped. :class:`TangentOnly` is the
forward sweep whose code returns ``None`` for the value when the value is a gradient in
its parameter's structure, ``like(g, p)`` with ``p`` a parameter (what ``grad``'s code of
a container returns): the tidy pass then drops what only the value needed (never a
computation that may fail: ``math.log`` of a negative number still raises). The tangent
is returned as the sweep computes it, ``like(dg, p)``, already in ``p``'s structure (the
general code's ``like(dy, y)`` reads ``y``: the value again). Any other result (a number,
a value of another kind, a complex one) is returned as the general sweep's: the caller
(:mod:`srcad.tree_jacobians`) tests each call's tangent as it tests the general code's.

Imports ``srcad.core``, ``srcad.runtime`` and :mod:`.forward`.
"""

from __future__ import annotations

from ..core import ir
from ..runtime import helpers as runtime
from .forward import Forward


class TangentOnly(Forward):
    """:class:`.forward.Forward`, its code returning ``(None, tangent)`` where the value is
    ``like(g, p)`` of a parameter ``p``, real."""

    def run(self):
        code, result, tangent = super().run()
        if gradient_like_param(self.fn, result) and not self.an.is_complex(result):
            return code, ir.Const(None), tangent
        return code, result, tangent


def gradient_like_param(fn, result):
    """Whether ``result`` (an atom) is assigned ``like(g, p)``, ``p`` a parameter of ``fn``
    (in the function's top block: whatever path the code takes)."""
    if not isinstance(result, ir.Var):
        return False
    for stmt in fn.body:
        if isinstance(stmt, ir.Assign) and stmt.target == result.name:
            value = stmt.value
            return isinstance(value, ir.Prim) and value.fn is runtime.like and not (
                value.kwargs) and len(value.args) == 2 and isinstance(
                value.args[1], ir.Var) and value.args[1].name in fn.params
    return False
