"""The analyses, then the reverse sweep (:func:`generate`): what reverse mode's code and a
callee's split parts are made from.

    analyse          kinds and activity (``Analysis``; a callee's through the cache of
                     :mod:`.callee_caches`)
    alias            which values may share memory; refuse writes Python would see elsewhere
    settle, optimise ``y op= v``'s casts settled (:func:`srcad.analysis.doubles.settled`),
                     then dead code dropped
    soundness        nothing that reads a differentiated value is taken for a constant
    reverse          forward sweep + backward sweep (trees: srcad.transform.nodes)

Also :func:`for_ducks`, the rewrite of a made function for Dask or CuPy arrays, which the
stages after it share.

Imports ``srcad.analysis``, ``srcad.backend`` (``duck``, ``emit``), ``srcad.core``,
``srcad.errors``, ``srcad.frontend``, ``srcad.transform.reverse`` and its neighbours
:mod:`.callee_caches` and :mod:`.lowering`.
"""

from __future__ import annotations

import functools

from ..analysis import alias, derivative_calls, doubles, soundness
from ..analysis.analyse import Analysis
from ..backend import duck, emit
from ..core import functions
from ..core.kinds import made_for, made_items, made_stacks
from ..errors import SrcadError
from ..frontend import optimise
from ..frontend.aux_pairs import split as split_pairs
from ..transform.reverse import Reverse
from . import lowering
from .callee_caches import choose


def generate(func, wrt, kinds, items=None, parsed=None, ranks=None, arity=None, split=False,
             fixed=None, backend="python", ducks=False, space=None, into=(), plain=False,
             alike=(), aux=False):
    """Run the passes up to the reverse sweep for arguments of these kinds (and, for arrays,
    ranks; for a callee's ``*args``/``**kwargs``, ``arity``: see :class:`srcad.calls.Arity`;
    ``fixed``: the classes of objects passed, see :func:`.lowering.to_ssa`; ``backend``: the
    callees are split for it, see :data:`srcad.pipeline.NUMBA_CALLEES`; ``ducks``: for Dask or
    CuPy arrays, the callees too, see :data:`srcad.pipeline.DUCK_CALLEES`; ``into``: the
    parameters whose gradients start as the caller's arrays, see :mod:`srcad.transform.into`;
    ``plain``: no backward part called adds into this code's arrays, nor in its callees', see
    :data:`srcad.pipeline.PLAIN_CALLEES`; ``alike``: groups of parameters the code may take to
    have one shape, see :func:`srcad.backend.keys.shape_partition`; ``aux``:
    ``has_aux=True``, the function's pairs split, :mod:`srcad.frontend.aux_pairs`)."""
    fn, namer = lowering.to_ssa(func, parsed, arity, fixed)
    if aux:
        split_pairs(fn, namer)
        if aux != "return":  # vjp's pullback: the aux is the plain run's, not this code's
            fn.aux = None  # (alias.check reads a returned aux as read at the return)
    plain = plain or hasattr(func, "__srcad_param_kinds__")  # code srcad made: read again
    unknown = [w for w in wrt if w not in fn.params]
    if unknown:  # never a silent zero: a gradient is asked of a name the code does not have
        raise SrcadError(
            f"{fn.name} has no parameter {unknown[0]!r} in its source (its signature, as "
            "inspect reports it, differs from the code srcad reads)",
            filename=fn.source.filename, lineno=fn.source.first_line,
            hint="give the function the parameters it is called with")
    kinds, items = made_for(func, kinds), made_items(func, items)
    analysis = derivative_calls.analysed(fn, functools.partial(Analysis, fn, kinds, wrt, items,
        ranks, callees=choose(backend, ducks, space, plain), param_stacks=made_stacks(func)))
    alias.check(fn, analysis, callee=split and functions.users_code(func))
    optimise.dead_code(fn, analysis=doubles.settled(fn, analysis, alike))
    soundness.check(fn, analysis)
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    spelled = emit.helper_names(namer, visible, namer.user_names)
    gen = Reverse(fn, analysis, namer, spelled, structured=not split, into=into, alike=alike,
                  runs_only=backend == "python" and not (ducks or plain) and space is None).run()
    if getattr(fn.source, "namespaces", ()):  # xp.f read as np.f: NumPy bound to np
        gen.helpers.add("np")  # (frontend.lower_namespaces: the module may not import it)
    return fn, namer, analysis, spelled, gen


def for_ducks(fdef, func, fn, spelled, namer, cells):
    """``fdef`` written for duck arrays (:mod:`srcad.backend.duck`); ``cells`` gains those
    the rewrite reads."""
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    fdef, made = duck.for_duck_arrays(fdef, spelled, emit.HELPER_OBJECTS, visible, namer.fresh)
    cells.update(made)
    return fdef
