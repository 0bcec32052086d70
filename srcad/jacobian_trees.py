"""Forward-mode Jacobians where a ``wrt`` argument or the output is a tree (a tuple, list,
dict or record: :meth:`srcad.jacobians._Jacobian._tree`), and their short path for trees of
numbers (a dict of parameters, its Hessian).

:func:`tree_fwd` takes a tangent per input element and stacks the columns by output leaf,
``wrt`` argument and its leaf, for any leaves. :func:`numbers_fwd` does the same for
arguments and outputs that are dicts, lists, tuples and records of numbers alone, without the walk
over leaves, the one-hot arrays and the stacks: each argument is flattened once into its
numbers and a structure, the one-hot tangents are made from that structure, and each output
number's column is built in the arguments' structure directly, as :func:`tree_fwd` builds
it; anything else (an array, a tangent of another structure) returns None and takes
:func:`tree_fwd`.

Imports :mod:`srcad.api` (the forward-mode code), :mod:`srcad.pytrees` and
:mod:`srcad.jacobian_leaves`.
"""

from __future__ import annotations

import numpy as np

from . import api, pytrees
from . import jacobian_leaves as leaves

_NUMBERS = frozenset({float, np.float64, int})


class _NotNumbers(Exception):
    """A value holding something else than numbers in dicts, lists and tuples."""


def _shape(value, found, zero=False):
    """The structure of ``value`` (None for a number: a leaf), its numbers appended to
    ``found``; ``zero``: a None leaf is a zero (a tangent with no derivative there)."""
    cls = type(value)
    if cls in _NUMBERS:
        found.append(value)
        return None
    if zero and value is None:
        found.append(0.0)
        return None
    if cls is dict:
        return (dict,) + tuple([(k, _shape(v, found, zero)) for k, v in value.items()])
    if cls is list or cls is tuple:
        return (cls,) + tuple([_shape(v, found, zero) for v in value])
    if pytrees.is_record(value):  # (its fields in order; built again like it)
        fields = pytrees.fields_of(value)
        return (_Record(value),) + tuple([(k, _shape(v, found, zero)) for k, v in fields.items()])
    raise _NotNumbers


class _Record:
    """A record's place in a structure: equal to another of its class; builds one."""

    __slots__ = ("like",)

    def __init__(self, like):
        self.like = like

    def __eq__(self, other):
        return type(other) is _Record and type(other.like) is type(self.like)

    __hash__ = None


def _build(shape, items):
    """A value of structure ``shape`` holding the next values of the iterator ``items``."""
    if shape is None:
        return next(items)
    head = shape[0]
    if head is dict:
        return {k: _build(s, items) for k, s in shape[1:]}
    if type(head) is _Record:
        return pytrees.made_like(head.like, {k: _build(s, items) for k, s in shape[1:]})
    return head([_build(s, items) for s in shape[1:]])


def numbers_fwd(jac, args):
    """:func:`tree_fwd`'s Jacobian (the :class:`srcad.jacobian_leaves.Whole` that
    ``_tree`` returns) when every ``wrt`` argument and the output are numbers in dicts,
    lists and tuples; None otherwise."""
    shapes, flats = [], []
    try:
        for p in jac.index:
            found = []
            shapes.append(_shape(args[p], found))
            flats.append(found)
    except (_NotNumbers, RecursionError):
        return None
    if not any(flats):
        return None
    fn, full = _function(jac, args)
    zeros = [_build(s, iter([0.0] * len(f))) for s, f in zip(shapes, flats)]
    columns, out = [], None  # by argument k and its number m: the output's numbers' tangents
    for k, (shape, found) in enumerate(zip(shapes, flats)):
        columns.append([])
        for m in range(len(found)):
            seeds = [0.0] * len(found)
            seeds[m] = 1.0
            tangents = list(zeros)
            tangents[k] = _build(shape, iter(seeds))
            value, t = fn(*full, *tangents)
            values, ts = [], []
            try:
                if out is None:
                    out = _shape(value, values)
                elif _shape(value, values) != out:  # pragma: no cover - one code, one shape
                    return None
                if _shape(t, ts, zero=True) != out:
                    return None  # a tangent of another structure: the general path
            except (_NotNumbers, RecursionError):
                return None
            columns[k].append([float(e) for e in ts])
    per_out = []
    for j in range(len(values)):
        parts = [_build(s, iter([col[j] for col in columns[k]])) for k, s in enumerate(shapes)]
        per_out.append(parts[0] if jac.single else tuple(parts))
    return leaves.Whole(_build(out, iter(per_out)))


def _function(jac, args):
    if jac.names is None:
        known = api._jvp_targets.get((jac.f, jac.index, len(args)))
        jac.target, _, jac.names = known or api._jvp_target(jac.f, jac.index, len(args))
    return api._jvp_function(jac.target, jac.names, args)


def tree_fwd(jac, args, ins):
    """A tangent per input element: by output leaf, ``wrt`` argument and its leaf, the
    columns stacked (last axis)."""
    fn, full = _function(jac, args)
    for in_leaves, _ in ins:
        leaves.check_leaves(in_leaves, "argument")
    zero_trees = [build([leaves.zero(leaf) for leaf in in_leaves]) for in_leaves, build in ins]
    cols, value = [], None
    for k, (in_leaves, in_build) in enumerate(ins):
        cols.append([])
        for m, leaf in enumerate(in_leaves):
            found = []
            for i in np.ndindex(*np.shape(leaf)):
                parts = [leaves.zero(other) for other in in_leaves]
                parts[m] = leaves.one_hot(leaf, i)
                tangents = list(zero_trees)
                tangents[k] = in_build(parts)
                value, t = fn(*full, *tangents)
                found.append(leaves.grad_leaves(t, pytrees.leaves(value)[0]))
            cols[k].append(found)
    if value is None:
        value = jac.f(*args)
    out_leaves, out_build = pytrees.leaves(value)
    leaves.check_leaves(out_leaves, "output")
    by_out = [[[np.stack([c[j] for c in found], axis=-1) if found else np.zeros(0)
                for found in cols[k]] for k in range(len(ins))]
              for j in range(len(out_leaves))]
    return out_leaves, out_build, by_out
