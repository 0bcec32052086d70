"""What counts as a zero gradient, for :func:`srcad.runtime.helpers.add`.

A list read out of a container and then made shorter or longer in place (``ys, b = h(x)``
then ``ys.pop()``) has a gradient of the length it had when read, while the zero gradient
made later of the container's items is shaped like the list as it is then: adding that zero
changes nothing, whatever the two lengths. Two lists of different lengths that both hold a
number other than zero still stop ``add`` (a bug in srcad's code, never a sum).

Imports only NumPy.
"""

from __future__ import annotations

import numpy as np


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
