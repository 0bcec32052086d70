"""The leaves of Jacobians of pytrees (tuples, lists, dicts and records of numbers and
arrays): zeros and one-hot seeds shaped like a leaf, a derivative's leaves as float arrays,
and the check that a tree holds only numbers and arrays (srcad/jacobians.py's ``_tree``
paths). Imports NumPy, srcad.pytrees and srcad.errors."""

from __future__ import annotations

import numbers

import numpy as np

from . import pytrees
from .errors import SrcadError


def zero(leaf):
    return np.zeros(np.shape(leaf)) if np.shape(leaf) else 0.0


def one_hot(leaf, i):
    if not np.shape(leaf):
        return 1.0
    made = np.zeros(np.shape(leaf))
    made[i] = 1.0
    return made


def grad_leaves(g, like):
    """The leaves of the gradient (or tangent) ``g`` of a value whose leaves are ``like``, as
    float arrays (a leaf with no derivative, None, as zeros)."""
    found = pytrees.leaves(g)[0] if g is not None else [None] * len(like)
    if len(found) != len(like):
        raise SrcadError(f"a derivative has {len(found)} parts where its value has "
                         f"{len(like)}", hint="report this: the structures should agree")
    return [np.zeros(np.shape(v)) if part is None else np.asarray(part, dtype=float)
            for part, v in zip(found, like)]


def check_leaves(found, what):
    for leaf in found:
        if not isinstance(leaf, (numbers.Number, np.ndarray, np.number)) or isinstance(
                leaf, (bool, complex)):
            raise SrcadError(f"a Jacobian of a function whose {what} holds "
                             f"{type(leaf).__name__}: srcad makes them of numbers and arrays "
                             "(in tuples, lists, dicts and records)",
                             hint="leave the other values out of what is differentiated")


def plain_only(backend):
    """Trees are Jacobians of the Python backend only."""
    if backend != "python":
        raise SrcadError("backend='numba' makes Jacobians of arrays and numbers, not of "
                         "tuples, lists, dicts or records", hint="use backend='python'")


class Whole:
    """A Jacobian made whole by :meth:`srcad.jacobians._Jacobian._tree` (not a list over
    ``wrt``)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_TANGENTS = (float, np.float64, int)


def number_columns(fn, args, seeds, single, first):
    """The forward-mode Jacobian of numbers whose output is a tuple of numbers (the gradient
    of a function of several numbers, in its Hessian), nested as
    :meth:`srcad.jacobians._Jacobian._tree` nests it (as JAX does: by output item, then by
    ``wrt`` argument, each a float), without its walk over leaves: ``fn`` (the forward-mode
    code) called with ``args`` and each of the one-hot ``seeds`` after the first, whose
    ``(value, tangent)`` is ``first``. None for any other output (the tree path takes it)."""
    value, tangent = first
    if type(value) is not tuple:
        return None
    for v in value:
        if v.__class__ is not float and v.__class__ is not np.float64:
            return None
    columns = [tangent] + [fn(*args, *tangents)[1] for tangents in seeds[1:]]
    for t in columns:
        if type(t) is not tuple or len(t) != len(value):
            return None
        for e in t:
            if e.__class__ not in _TANGENTS:
                return None
    if single:
        return tuple([float(e) for e in tangent])
    return tuple([tuple([float(t[j]) for t in columns]) for j in range(len(value))])
