"""Containers of numbers as trees: their leaves in order, and the same container rebuilt.

srcad differentiates with respect to dicts, lists and tuples of floats and arrays (nested
too); its gradient is a container of the same shape. The tools that check gradients (finite
differences, the reference tape, ``compare``) walk such an argument leaf by leaf with these
two functions.

Imports: nothing of srcad.
"""

from __future__ import annotations

CONTAINERS = (dict, list, tuple)


def is_container(x):
    return isinstance(x, CONTAINERS)


def leaves(x):
    """The numbers and arrays in ``x``, depth first (a dict in its key order)."""
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in leaves(v)]
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in leaves(v)]
    return [x]


def rebuild(x, new):
    """``x``'s container with its leaves replaced, in order, by the items of ``new``."""
    items = iter(new)
    result = _rebuild(x, items)
    if next(items, _END) is not _END:
        raise ValueError("more leaves than the container holds")
    return result


_END = object()


def _rebuild(x, items):
    if isinstance(x, dict):
        return type(x)((k, _rebuild(v, items)) for k, v in x.items())
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # a named tuple
        return type(x)(*(_rebuild(v, items) for v in x))
    if isinstance(x, (list, tuple)):
        return type(x)(_rebuild(v, items) for v in x)
    return next(items)
