"""The list or tuple branch of :func:`srcad.runtime.helpers.like` (a gradient or tangent in
the structure of its value), apart for its length: a tuple of numbers' tangents, the
forward mode of a gradient of two numbers, is its items as they are, with no comprehension
frame (0.8 µs of a Hessian pass of ~1.3 went to it). Imports nothing.
"""

from __future__ import annotations


def like_items(grad, value, like):
    """``like(grad, value)`` for a list or tuple ``value`` (``like`` itself for an item not a
    float): a tuple where ``value`` is one (a named tuple's too), else a list."""
    if (type(grad) is list or type(grad) is tuple) and len(grad) == len(value):
        for v in value:
            if type(v) is not float:
                break
        else:  # (every item a float: its tangent as it is)
            return tuple(grad) if isinstance(value, tuple) else list(grad)
    out = [g if type(v) is float else like(g, v) for g, v in zip(grad, value)]
    return tuple(out) if isinstance(value, tuple) else out
