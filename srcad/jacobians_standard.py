"""Jacobians of arrays of the array API standard without NumPy's protocols (array-api-strict,
and CuPy's strict forms): assembled in the arrays' own namespace from ``vjp`` or ``jvp``
calls (srcad/jacobians.py calls :func:`in_namespace` for them). Imports: api (vjp, jvp),
core.kinds and the runtime's namespace lookup."""

from __future__ import annotations

import math

from . import api
from .core.kinds import foreign_array
from .runtime.standard import namespace_of


def in_namespace(jac, args):
    """The Jacobian for arrays of the array API standard without NumPy's protocols, in their
    namespace: a ``vjp`` per output element (``mode="rev"``) or a ``jvp`` per element of a
    ``wrt`` argument (``"fwd"``), each seeded with a one-hot array of the namespace, stacked
    and shaped ``output shape + argument shape`` by the namespace's functions."""
    xp = namespace_of(args)
    index = jac.index

    def one_hot(shape, i):
        n = math.prod(shape)
        return xp.reshape(xp.astype(xp.arange(n) == i, xp.float64), shape) if shape else 1.0

    def shape_of(v):
        return tuple(v.shape) if foreign_array(v) else ()

    def stacked(parts, axis, shape):
        parts = [xp.asarray(part, dtype=xp.float64) for part in parts]
        return xp.reshape(xp.stack(parts, axis=axis), shape) if shape else parts[0]

    if jac.mode == "rev":
        value, pullback = api.vjp(jac.f, *args, wrt=index)
        out = shape_of(value)
        rows = [pullback(one_hot(out, i)) for i in range(math.prod(out))]
        return [stacked([r[k] for r in rows], 0, out + shape_of(args[p]))
                for k, p in enumerate(index)]
    result = []
    zeros = [xp.zeros(shape_of(args[p]), dtype=xp.float64) if shape_of(args[p]) else 0.0
             for p in index]
    for k, p in enumerate(index):
        shape, cols = shape_of(args[p]), []
        for j in range(math.prod(shape)):
            tangents = list(zeros)
            tangents[k] = one_hot(shape, j)
            value, t = api.jvp(jac.f, args, tuple(tangents), wrt=index)
            cols.append(t)
        result.append(stacked(cols, -1, shape_of(value) + shape))
    return result
