"""What counts as a zero gradient, for :func:`srcad.runtime.helpers.add`.

A list read out of a container and then made shorter or longer in place (``ys, b = h(x)``
then ``ys.pop()``) has a gradient of the length it had when read, while the zero gradient
made later of the container's items is shaped like the list as it is then: adding that zero
changes nothing, whatever the two lengths. Two lists of different lengths that both hold a
number other than zero still stop ``add`` (a bug in srcad's code, never a sum).
A container that holds itself has no zero gradient (:func:`held_itself`, the error).

Imports NumPy and :mod:`srcad.errors`.
"""

from __future__ import annotations

import numpy as np

from ..errors import MutationError


def all_zero(grad):
    """Whether ``grad`` (a number, an array, a list, tuple or dict of them, nested) holds
    zeros only (``None``, a rule's zero for a part, counts as one)."""
    if isinstance(grad, (list, tuple)):
        return all(map(all_zero, grad))
    if isinstance(grad, dict):
        return all(map(all_zero, grad.values()))
    if type(grad) is np.ndarray:
        return not grad.any()
    return grad is None or type(grad) in (float, int, np.float64) and grad == 0


def held_itself(x):
    """The error for a list, tuple or dict ``x`` carrying a gradient that holds itself (a
    ``RecursionError`` making its zero gradient; ``a.append(a)`` written so is refused at
    its line by :mod:`srcad.frontend.validate`)."""
    return MutationError(
        f"a {type(x).__name__} that holds itself (directly or through others) carries a "
        "gradient: its gradient would hold itself, without end",
        construct=f"a {type(x).__name__} holding itself",
        hint="hold a copy (a.append(list(a))) or keep the values in another list")
