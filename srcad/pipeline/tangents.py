"""Forward mode's code (:func:`tangent`): the analyses, the forward sweep, then the stages
reverse mode's code goes through after its sweeps (:mod:`.adjoints`): tidy, written for Dask
or CuPy arrays, an array API namespace or Numba, printed and compiled; :func:`make_tangent`,
a callee's tangent function.

Imports ``srcad.analysis``, ``srcad.backend``, ``srcad.core``, ``srcad.frontend``,
``srcad.transform`` and its neighbours :mod:`.callee_caches`, :mod:`.generating`,
:mod:`.lowering` and :mod:`.switches`.
"""

from __future__ import annotations

import ast
import functools

from ..analysis import alias, complexity, derivative_calls, doubles, soundness
from ..analysis.analyse import Analysis
from ..backend import emit, numba_backend, numba_passed, standard
from ..backend.assemble import arguments, function_def
from ..core import functions, ir
from ..core.kinds import ARRAY, SCALAR, made_for, made_items, made_stacks
from ..frontend import optimise
from ..transform import nodes
from ..transform.forward import Forward
from ..transform.nodes import call
from . import lowering, switches
from .callee_caches import choose
from .generating import for_ducks
from .switches import debug, serialised


@serialised
def tangent(func, wrt, kinds, items=None, inner=False, arity=None, parsed=None, fixed=None,
            backend="python", ducks=False, space=None, ranks=None, sweep=Forward):
    """Forward mode: compile ``jvp_f(params..., tangents...) -> (value, tangent)``
    (``parsed``: ``func``'s tree as :func:`.lowering.read` gives it, changed: see
    :func:`.lowering.to_ssa`; ``fixed``: the functions and objects passed (see
    :func:`.lowering.to_ssa`); ``backend="numba"``: compiled by Numba at its first call (see
    :func:`.adjoints.adjoint`); ``ducks``: the arguments hold Dask or CuPy arrays, see
    :mod:`srcad.backend.duck`; ``space``: the array API namespace of the arguments' arrays,
    see :mod:`srcad.backend.standard`; ``ranks``: Callees.tangent's)."""
    fn, namer = lowering.to_ssa(func, parsed, arity=arity, fixed=fixed)
    standard.check_code(fn, func, space, kinds)
    analysis = derivative_calls.analysed(fn, functools.partial(
        Analysis, fn, made_for(func, kinds), wrt, made_items(func, items), ranks,
        callees=sweep.callees or choose(backend, ducks, space), param_stacks=made_stacks(func)))
    alias.check(fn, analysis, callee=inner and functions.users_code(func))
    optimise.dead_code(fn, analysis=doubles.settled(fn, analysis))
    soundness.check(fn, analysis, forward=True)
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    spelled = emit.helper_names(namer, visible, namer.user_names)
    fwd = sweep(fn, analysis, namer, spelled)
    fwd.runs_only = backend == "python" and not ducks and space is None  # (.owned_writes)
    body, result, tangent_out = fwd.run()
    label = namer.fresh(f"jvp_{fn.name}")
    tangents = [fwd.t(w) for w in wrt]
    if not inner and isinstance(result, ir.Var) and analysis.kind(result) not in (SCALAR, ARRAY):
        # tuples where the value has tuples (the sweep builds lists), leaves shaped like it
        tangent_out = call(fwd.helper("like"), tangent_out, result.name)
    if not inner and backend == "python" and not analysis.is_complex(result) and \
            complexity.unseen_complex(analysis):  # a real result's tangent, checked real
        tangent_out = call(fwd.helper("check_real"), tangent_out, nodes.constant("tangent"),
                           nodes.constant(f"{fn.source.filename}:{fn.source.first_line}"))
    body.append(ast.Return(value=nodes.tuple_([nodes.expr(result), tangent_out])))
    fdef = function_def(label, arguments([], list(fn.params) + tangents, []), body)  # positional
    fdef = switches.tidied(fdef, namer.temps | fwd.temp_tangents, namer.grads, (), spelled,
                           analysis=analysis)
    if ducks:  # Dask, CuPy arguments (the cache key has their types): as in adjoint
        fdef = for_ducks(fdef, func, fn, spelled, namer, fwd.cells)
    # the helpers the tidied tree reads (a user's spelling may name one too)
    helpers = set(fwd.used_helpers) | emit.helpers_read(fdef, spelled)
    if space is not None:  # written in the arrays' namespace
        fdef = standard.write(fdef, func, fn, space, spelled, helpers, namer, fwd.cells)
    if backend == "numba":
        fdef, numba_cells = numba_backend.check(fdef, func, spelled, namer, fwd.cells, (),
                                                live := None if inner else {})
        fwd.cells.update(numba_cells)
        passed = numba_passed.Passed(fdef, fixed or {}, live, func)  # as in adjoint
    where = f"{label} of {func.__code__.co_filename}:{func.__code__.co_firstlineno}"
    compiled = emit.compile_function(fdef, func, helpers, spelled, where, None, None,
                                     fwd.cells)
    compiled.__srcad_param_kinds__ = dict(kinds)
    standard.keep_numpy_form(compiled, fdef, func, spelled, where, None, None)
    debug("forward", compiled.__srcad_source__)
    if backend == "numba":
        return passed.jit(compiled, where, False, callee=inner), compiled.__srcad_source__
    return compiled, compiled.__srcad_source__


def make_tangent(func, wrt, kinds, arity=None, backend="python", **options):
    made = tangent(func, wrt, kinds, inner=True, arity=arity, backend=backend, **options)[0]
    if options.get("space") is not None:  # (srcad.backend.standard reads it)
        made.__srcad_space__ = options["space"]
    return made

