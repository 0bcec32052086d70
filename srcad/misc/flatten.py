"""A tree of numbers and arrays (nested lists, tuples and dicts) as one flat float vector, and
the function that rebuilds the tree from such a vector.

``flatten(tree)`` returns ``(vector, unflatten)``. ``unflatten`` is written out as Python source
for the tree's structure (slices, reshapes, displays: ``def unflatten(vector): return
{"b": vector[0:3].reshape((3,)), "w": vector[3:9].reshape((2, 3))}``), so srcad differentiates
it like the user's own code; the vector is :func:`ravel_tree`'s, which srcad differentiates too.
Dict keys are taken in sorted order.

Imports :mod:`srcad.extend` (``nondiff``).
"""

from __future__ import annotations

import itertools
import linecache

import numpy as np

from .. import extend

__all__ = ["flatten", "flatten_func", "ravel_tree"]

_counter = itertools.count()


def flatten(value):
    """``(vector, unflatten)`` for a tree of numbers and arrays."""
    return ravel_tree(value), unflattener(value)


def unflattener(value):
    """The ``unflatten`` function for ``value``'s structure (no gradient flows through it)."""
    sizes = []

    def walk(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k!r}: {walk(v[k])}" for k in _sorted_keys(v)) + "}"
        if isinstance(v, (list, tuple)):
            subs = [walk(x) for x in v]
            if isinstance(v, list):
                return "[" + ", ".join(subs) + "]"
            return "(" + "".join(s + ", " for s in subs) + ")"
        arr = np.asarray(v, dtype=float)
        start = sum(sizes)
        sizes.append(arr.size)
        if np.ndim(v) == 0 and not isinstance(v, np.ndarray):
            return f"float(vector[{start}])"
        return f"vector[{start}:{start + arr.size}].reshape({arr.shape!r})"

    return _written("unflatten", f"def unflatten(vector):\n    return {walk(value)}\n")


#: (name, text) -> the function it defines: one function per tree structure, so that code
#: calling ``flatten`` each time it runs meets the same ``unflatten`` (made, and
#: differentiated, once)
_MADE = {}


def _written(name, text):
    """The function ``name`` defined by ``text``, its lines in linecache (srcad reads them)."""
    made = _MADE.get((name, text))
    if made is not None:
        return made
    filename = f"<srcad.misc {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102
    made = _MADE[(name, text)] = namespace[name]
    return made


def _sorted_keys(d):
    return sorted(d)


extend.nondiff(_sorted_keys, unflattener)  # keys and functions carry no gradient


def ravel_tree(value):
    """The leaves of nested lists, tuples and dicts as one flat vector."""
    if isinstance(value, dict):
        return np.concatenate([ravel_tree(value[k]) for k in _sorted_keys(value)])
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            return np.zeros(0)
        return np.concatenate([ravel_tree(v) for v in value])
    return np.ravel(value)


def flatten_func(func, example):
    """``(flat_func, unflatten, vector)``: ``func`` of a tree as a function of its flat vector
    (its output flattened too), for trees shaped like ``example``."""
    flat0, unflatten = flatten(example)

    def flat_func(flat, *args, **kwargs):
        return ravel_tree(func(unflatten(flat), *args, **kwargs))

    return flat_func, unflatten, flat0
