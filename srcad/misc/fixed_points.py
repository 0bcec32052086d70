"""Fixed points ``x = f(a)(x)`` found by iteration, differentiated as they are computed.

``fixed_point(f, a, x0, distance, tol)`` (the name and arguments autograd users know from
``autograd.misc.fixed_points``): ``f(a)`` is the map, applied from ``x0`` until
``distance(x, previous x) <= tol``; the last iterate is returned. srcad reads this function
like the user's own code, so the derivative w.r.t. ``a`` (and ``x0``) is that of the iterates
it computed: exact for the value returned. (The derivative of the exact fixed point, by the
implicit function theorem, differs from it by about the tolerance.)

Imports nothing: plain Python, read by srcad as the user's code is.
"""

from __future__ import annotations

__all__ = ["fixed_point"]


def fixed_point(f, a, x0, distance, tol):
    """The last iterate of ``x -> f(a)(x)`` from ``x0``, once two iterates are within
    ``tol`` by ``distance``."""
    step = f(a)
    previous, x = x0, step(x0)
    while distance(x, previous) > tol:
        previous, x = x, step(x)
    return x
