"""``srcad.jvp_batched``: ``k`` Jacobian-vector products in one pass, each tangent with a
leading axis of ``k`` directions (``jax.vmap`` of ``jax.jvp`` over the tangents), by the
batched forward-mode code (:mod:`srcad.jacobians_batched`) where every operation has a
batched form, else one ``srcad.jvp`` per direction.

Imports ``srcad.api`` and ``srcad.jacobians_batched``.
"""

from __future__ import annotations

import numpy as np

from . import api, jacobians_batched


def jvp_batched(f, primals, tangents, wrt=None, backend="python"):
    """``(f(*primals), T)`` where ``T[i]`` is ``srcad.jvp(f, primals, [t[i] for t in
    tangents], wrt)[1]``: ``tangents`` has one array per ``wrt`` argument (default: all), of
    shape ``(k,) + that argument's shape``; ``T`` has shape ``(k,) + the output's shape``.
    ``backend="numba"``: the batched code compiled by Numba, else ``srcad.jvp``'s per
    direction, compiled too."""
    if backend != "python":
        api._numba_allowed(f, False, backend)
    primals = tuple(primals)
    index = tuple(range(len(primals))) if wrt is None else (
        (wrt,) if isinstance(wrt, int) else tuple(wrt))
    if all(type(primals[p]) is float or (type(primals[p]) is np.ndarray and (
            primals[p].dtype.char == "d")) for p in index):
        made = jacobians_batched.batched(f, index, backend)
        fn = made.code(primals)
        found = None if fn is None else made.call(fn, primals, tuple(tangents))
        if found is not None:
            value, t = found
            k = len(tangents[0])
            return value, np.broadcast_to(np.asarray(t, dtype=float), (k,) + np.shape(value))
    found = [api.jvp(f, primals, tuple(t[i] for t in tangents), wrt=index, backend=backend)
             for i in range(len(tangents[0]))]
    return found[0][0], np.stack([np.asarray(t, dtype=float) for _, t in found])
