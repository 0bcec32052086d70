"""``check_grads`` as autograd's users call it: ``check_grads(f, modes=["rev"], order=2)(*args)``
asserts srcad's derivatives of ``f`` at ``args`` (against finite differences and srcad's
reference tape; see :func:`srcad.check.check_grads`). ``modes`` is accepted and checked in
reverse mode; ``order`` above 2 is checked to 2.

Imports :mod:`srcad.tools.check`.
"""

from __future__ import annotations

__all__ = ["check_grads"]


def check_grads(fun, modes=("fwd", "rev"), order=2):
    """A function of ``fun``'s arguments that asserts its gradients there."""
    from .tools.check import check_grads as check

    def at(*args, **kwargs):
        if kwargs:
            raise TypeError("check_grads(fun)(*args): keyword arguments are not checked")
        check(fun, *args, order=min(order, 2))

    return at
