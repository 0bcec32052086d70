"""The pipeline, pass by pass. Each pass is a module with one job:

    source.read      read and parse the function (gast), keep file and line numbers
    validate         reject unsupported constructs with a precise error
    desugar          jumps -> flags, augmented assignment -> plain assignment
    lower            flatten to one operation per statement, SSA names, resolve callees
    optimise         dead-code elimination on the SSA form
    ir.check         assert the SSA invariants
    analyse          kinds and activity
    alias            which values may share memory; refuse writes Python would see elsewhere
    soundness        nothing that reads a differentiated value is taken for a constant
    reverse          forward sweep + backward sweep (trees: srcad.transform.nodes)
    tidy             rewrite the function's tree so it reads as a person would write it
    free_early       a gradient's arrays freed where last read (the Python backend's NumPy code)
    emit             print (the one place the tree becomes text), compile under a real
                     file name, bind names

This package runs them in that order, one module a stage (each lists its passes in order):

    lowering         source to checked SSA: :func:`to_ssa` (kept per function, :data:`LOWERED`)
    generating       the analyses, then the reverse sweep: ``generate``
    adjoints         reverse mode's code assembled, tidied, compiled: :func:`adjoint`
    tangents         forward mode's: :func:`tangent`
    splits           a callee's forward and backward parts: :func:`make_split`
    callee_caches    which cache of split callees code of each kind hands down
    switches         ``SRCAD_DEBUG=1`` (print the code after each pass), ``SRCAD_OPTIMIZE``
                     (tidy on or off), the lock that runs one transformation at a time

The caches below are made of the stages that split a callee and handed down: the analysis
and the sweeps reach them through ``Analysis.callees`` (see :mod:`srcad.transform.calls`).

Imports ``srcad.runtime.derivatives``, ``srcad.transform.calls`` and its own modules (and
nothing above its layer).
"""

from __future__ import annotations

import functools

from ..runtime import derivatives
from ..transform import calls
from . import callee_caches
from .adjoints import adjoint
from .callee_caches import STANDARD_CALLEES, callees_for
from .lowering import LOWERED, read, to_ssa
from .splits import make_split
from .switches import LOCK
from .tangents import make_tangent, tangent

__all__ = ["CALLEES", "DUCK_CALLEES", "LOCK", "LOWERED", "NUMBA_CALLEES", "NUMBA_PLAIN_CALLEES",
           "PLAIN_CALLEES", "STANDARD_CALLEES", "adjoint", "callees_for", "make_split",
           "make_tangent", "read", "tangent", "to_ssa"]

#: the user functions programs call: split and compiled by this pipeline on demand
CALLEES = calls.Callees(to_ssa, make_split, make_tangent)
CALLEES.into_calls = True  # backward parts may add into their callers' arrays (.into)
CALLEES.guards = True  # unbroadcast left out at run time where shapes agree (.guards)
#: the same, never adding into a caller's arrays: the callees of code srcad reads again
#: (a derivative's plain form, code srcad made), and of derivatives called in code
PLAIN_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, plain=True),
                              make_tangent)
derivatives.CALLEES[:] = [PLAIN_CALLEES]  # derivatives called in code, split at run time
#: the same for code compiled by Numba: their parts are Numba dispatchers
NUMBA_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, backend="numba"),
                              functools.partial(make_tangent, backend="numba"))
NUMBA_CALLEES.compiles_all = True  # a call with nothing to differentiate is compiled too
NUMBA_CALLEES.into_calls = True  # backward parts may add into their callers' arrays (.into)
#: the same, never adding into a caller's arrays: the callees of code srcad made (a
#: derivative called in the code compiled, differentiated again by its sweep)
NUMBA_PLAIN_CALLEES = calls.Callees(
    to_ssa, functools.partial(make_split, backend="numba", plain=True),
    functools.partial(make_tangent, backend="numba"))
NUMBA_PLAIN_CALLEES.compiles_all = True
#: the same for code made for Dask or CuPy arrays: their parts written for them too
#: (:mod:`srcad.backend.duck`), apart from those NumPy code calls
DUCK_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, ducks=True),
                             functools.partial(make_tangent, ducks=True))
DUCK_CALLEES.guards = True  # shape guards as in NumPy code: Dask's is run too
#: handed down: the stages choose among them (:func:`.callee_caches.choose`); a namespace's
#: cache (``STANDARD_CALLEES``) is made there of the same stages
callee_caches.CACHES.update(python=CALLEES, plain=PLAIN_CALLEES, numba=NUMBA_CALLEES,
                            numba_plain=NUMBA_PLAIN_CALLEES, ducks=DUCK_CALLEES)
callee_caches.MAKERS[:] = [make_split, make_tangent]
