"""The leaves of Jacobians of pytrees (tuples, lists, dicts and records of numbers and
arrays): zeros and one-hot seeds shaped like a leaf, a derivative's leaves as float arrays,
and the check that a tree holds only numbers and arrays (srcad/jacobians.py's ``_tree``
paths); the forward-mode Jacobian of two numbers written out (:func:`two_columns`). Imports
NumPy, srcad.pytrees and srcad.errors."""

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


class _Unlike(Exception):
    """A gradient not shaped like its argument: the tree path builds the rows."""


def number_rows(vjp, value, args, index, single):
    """The reverse Jacobian where a ``wrt`` argument is a tree and the output ``value`` a
    number: the gradient (``vjp``'s code, the cotangent 1.0) in each argument's structure,
    every leaf a float or a float array, as :meth:`srcad.jacobians._Jacobian._tree` builds
    it, without its walk over leaves and stacks of rows. None for any other output (the tree
    path takes it)."""
    if value.__class__ is not float and value.__class__ is not np.float64:
        return None
    grads = vjp(1.0, *args)
    try:
        rows = [_floats_like(g, args[p]) for g, p in zip(grads, index)]
    except _Unlike:
        return None
    return Whole(rows[0] if single else tuple(rows))


def _floats_like(g, like):
    """``g`` (a gradient of ``like``, or None for a zero) in ``like``'s structure, each leaf a
    float (a number's) or a float array of its leaf's shape; :class:`_Unlike` for another
    structure or leaf."""
    cls = type(like)
    if cls is float or cls is np.float64 or cls is int:
        return 0.0 if g is None else float(g)
    if cls is dict:
        if g is not None and (type(g) is not dict or g.keys() != like.keys()):
            raise _Unlike
        return {k: _floats_like(None if g is None else g[k], v) for k, v in like.items()}
    if cls is list or cls is tuple:
        if g is not None and (type(g) not in (list, tuple) or len(g) != len(like)):
            raise _Unlike
        return cls([_floats_like(None if g is None else g[i], v) for i, v in enumerate(like)])
    if cls is np.ndarray:
        if like.dtype.kind != "f":
            raise _Unlike
        block = np.zeros(like.shape) if g is None else np.reshape(
            np.asarray(g, dtype=float), like.shape)
        return block if like.shape else float(block)
    if pytrees.is_record(like):
        fields = pytrees.fields_of(like)
        found = None if g is None else pytrees.fields_of(g) if pytrees.is_record(
            g) else g if type(g) is dict else None
        if g is not None and (found is None or found.keys() != fields.keys()):
            raise _Unlike
        return pytrees.made_like(like, {k: _floats_like(None if g is None else found[k], v)
                                        for k, v in fields.items()})
    raise _Unlike


def two_columns(fn, seeds, ok, loop):
    """:func:`srcad.fast_calls.fwd_numbers` for two numbers both differentiated (the Jacobian
    of a function of two numbers): the two passes written out, each value a float; anything
    else (a name rebound; a value of another kind, then from now on: a Hessian's tuple)
    takes the loop, ``loop``, from the start."""
    (a0, b0), (a1, b1) = seeds
    floats = [True]

    def two_columns(x, y):
        if floats and ok():
            value, t = fn(x, y, a0, b0)
            if value.__class__ is float:
                value, t1 = fn(x, y, a1, b1)
                if value.__class__ is float:
                    return (t if t.__class__ is float else float(t),
                            t1 if t1.__class__ is float else float(t1))
            floats.clear()
        return loop(x, y)

    return two_columns


floats_like, Unlike = _floats_like, _Unlike  # (read by srcad.tree_jacobians)
