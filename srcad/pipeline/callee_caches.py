"""Which cache of split callees code of each kind hands down (:func:`choose`): the caches are
made in :mod:`srcad.pipeline` from the stages that split a callee and registered here
(:data:`CACHES`), since the stages that choose one (:mod:`.generating`, :mod:`.tangents`) sit
below those stages; a namespace's cache is made here on demand.

Imports ``srcad.runtime.standard``, ``srcad.transform.calls`` and its neighbour
:mod:`.lowering`.
"""

from __future__ import annotations

import functools

from ..runtime.standard import namespace_of
from ..transform import calls
from .lowering import to_ssa

#: the caches :mod:`srcad.pipeline` makes, by the code they serve: "python" (NumPy code),
#: "plain" (code srcad reads again), "numba", "numba_plain", "ducks" (Dask, CuPy arrays)
CACHES = {}
#: (make_split, make_tangent), registered with them: a namespace's cache is made of them
MAKERS = []

#: the same for code made for arrays of an array API namespace (by the namespace): their
#: parts written in it too (:mod:`srcad.backend.standard`)
STANDARD_CALLEES = {}


def callees_for(values):
    """The callees cache for a derivative called in code with arguments ``values``."""
    return choose("python", space=namespace_of(values), plain=True)


def choose(backend, ducks=False, space=None, plain=False):
    if backend == "numba":
        return CACHES["numba_plain"] if plain else CACHES["numba"]
    if space is not None:
        if space not in STANDARD_CALLEES:
            make_split, make_tangent = MAKERS
            STANDARD_CALLEES[space] = made = calls.Callees(to_ssa, functools.partial(
                make_split, space=space), functools.partial(make_tangent, space=space))
            made.standard = True  # its arrays have no methods (transform.saves)
        return STANDARD_CALLEES[space]
    return CACHES["ducks"] if ducks else CACHES["plain"] if plain else CACHES["python"]
