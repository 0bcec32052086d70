"""A callee's forward and backward parts (:func:`make_split`): the function
:mod:`.generating` made (its sweeps split, not structured) written as two functions, the
forward part returning its value and what the backward part reads (a context), each tidied,
written for its backend and compiled, as :mod:`.adjoints` does for the whole function.

Imports ``srcad.analysis.elems`` and ``.doubles``, ``srcad.backend``, ``srcad.core``,
``srcad.transform`` and its neighbours :mod:`.generating` and :mod:`.switches`.
"""

from __future__ import annotations

import ast

from ..analysis import doubles, elems
from ..backend import (
    emit,
    float_literals,
    inline,
    numba_backend,
    numba_stacks,
    seed_copies,
    standard,
)
from ..backend.assemble import arguments, function_def, signature
from ..core import ir
from ..core.kinds import ANY, ARRAY
from ..transform import into as into_
from ..transform import nodes, saves, whole_lists
from ..transform.nodes import assign, call, name
from . import generating, switches
from .generating import for_ducks
from .switches import debug


def make_split(func, wrt, kinds, entry, arity=None, ranks=None, into=(), backend="python",
               ducks=False, space=None, plain=False):
    """Fill ``entry`` (a :class:`srcad.calls.Split`) with ``func``'s forward and backward parts
    (for array arguments of these ``ranks``, where the caller knows them); ``backend="numba"``:
    both parts compiled by Numba (when the code calling them is), their stacks one per saved
    value (:func:`srcad.backend.numba_stacks.realise`); ``into``: the parameters whose
    gradients the backward part adds into arrays passed after the seed (``plain``: and in
    none of its callees'), see :mod:`srcad.transform.into`."""
    fn, namer, analysis, spelled, gen = generating.generate(
        func, wrt, kinds, arity=arity, split=True, ranks=ranks, backend=backend, ducks=ducks,
        space=space, into=into, plain=plain)
    standard.check_code(fn, func, space, kinds)
    entry.result_kind = kind = analysis.kind(gen.result)
    kept, branch_only = gen.kept
    numba = backend == "numba"
    if numba:  # the stacks the context hands over: one per saved value now
        lists = set(gen.stacks)
        numba_stacks.realise(gen, namer, spelled)
        kept = [k for k in kept if k not in lists] + gen.stacks + gen.stack_arrays
    own = {id(cell): name for name, cell in gen.cells.items()}  # a recursive call's names
    fwd_name = own.get(id(entry.fwd)) or namer.fresh(f"{fn.name}_fwd")
    bwd_name = own.get(id(entry.bwd)) or namer.fresh(f"{fn.name}_bwd_into" if into else
                                                     f"{fn.name}_bwd")
    ctx = namer.fresh("ctx")
    packed = nodes.tuple_(kept) if kept or numba else nodes.constant(None)
    body = [assign(n, nodes.constant(None)) for n in branch_only]
    body += [assign(s, ast.List(elts=[], ctx=nodes.LOAD)) for s in gen.stacks]
    body += nodes.realise(gen.forward, gen.saves)
    body.append(ast.Return(value=nodes.tuple_([nodes.expr(gen.result), packed])))
    fwd_def = function_def(fwd_name, signature(fn, gen.seed, "fwd"), body)
    body = []
    if kept:
        body.append(assign(list(kept), name(ctx)))
    backward = nodes.realise(gen.backward, gen.saves, set())
    popped = numba_stacks.popped(backward) if numba else gen.popped
    for stack in gen.stacks:  # pop from a copy: the context stays whole (it may be used again)
        if stack in popped:
            body.append(assign(stack, call("list", stack)))
    body += seed_copies.copy_seed(backward, gen.seed, numba, spelled, gen.helpers, kind)
    body += backward
    grads = [gen.grads[w] for w in into_.returned(wrt, into)]
    if grads:
        body.append(ast.Return(value=grads[0] if len(grads) == 1 else nodes.tuple_(grads)))
    buffers = [gen.buffers[w] for w in into]
    bwd_def = function_def(bwd_name, arguments([], [ctx, gen.seed] + buffers, []), body)
    temps = namer.temps | gen.temp_grads
    # (may raise)
    fwd_def = switches.tidied(fwd_def, temps, namer.grads, (), spelled, analysis=analysis)
    bwd_def = switches.tidied(bwd_def, temps, namer.grads, (), spelled, analysis=analysis)
    if into and (gen.seed in buffers or not into_.adds_only(bwd_def, buffers, gen.into_parts)):
        raise into_.Unproved(func.__name__)  # the caller calls the plain part instead
    python = backend == "python" and not ducks and space is None and not plain
    helpers = set(gen.helpers)  # small straight-line parts of its callees written in:
    if python:  # literals meeting float64 arrays: float64 constants (one, half)
        arrays = doubles.double_arrays(analysis)
        fwd_def = float_literals.write(fwd_def, arrays, spelled, helpers)
        bwd_def = float_literals.write(bwd_def, arrays, spelled, helpers)
    fwd_def, bwd_def, kept, flat = inline.into_split(fwd_def, bwd_def, list(kept), gen.cells,
                                                     spelled, helpers, namer, func, python)
    if ducks:  # a callee of code for Dask or CuPy arrays (DUCK_CALLEES)
        fwd_def = for_ducks(fwd_def, func, fn, spelled, namer, gen.cells)
        bwd_def = for_ducks(bwd_def, func, fn, spelled, namer, gen.cells)
    if space is not None:  # a callee of code for the array API's arrays (its namespace)
        fwd_def = standard.write(fwd_def, func, fn, space, spelled, helpers, namer,
                                 gen.cells)
        bwd_def = standard.write(bwd_def, func, fn, space, spelled, helpers, namer,
                                 gen.cells)
    if numba:
        fwd_def, fwd_cells = numba_backend.check(fwd_def, func, spelled, namer, gen.cells,
                                                 gen.hoisted_stacks)
        bwd_def, bwd_cells = numba_backend.check(bwd_def, func, spelled, namer, gen.cells)
        gen.cells.update(fwd_cells, **bwd_cells)
    where = f"{func.__code__.co_filename}:{func.__code__.co_firstlineno}"
    fwd = emit.compile_function(fwd_def, func, set(helpers), spelled,
                                f"{fwd_name} of {where}", func.__defaults__,
                                func.__kwdefaults__, gen.cells)
    bwd = emit.compile_function(bwd_def, func, set(helpers), spelled,
                                f"{bwd_name} of {where}", None, None, gen.cells)
    fwd.__srcad_param_kinds__ = dict(kinds)
    bwd.__srcad_param_kinds__ = {gen.seed: entry.result_kind}
    bwd.__srcad_param_kinds__.update((b, ARRAY) for b in buffers)
    items = {}
    if kept:  # the kinds of what the context tuple holds, for when bwd is differentiated
        bwd.__srcad_param_kinds__.update(elems.context_kinds(analysis, ctx, kept))
        items[ctx] = {i: flat.get(k) or analysis.kinds.get(k) or ANY for i, k in enumerate(kept)}
    parts = _tuple_parts(fn, gen.result)
    if parts is not None:  # a tuple's gradient: each part like the value it goes with, so a
        # part the backward part adds into (``dr += v`` on a float) is known not to be an
        # array of the caller's when bwd is differentiated in turn
        items[gen.seed] = {i: analysis.kind(a) for i, a in enumerate(parts)}
    if items:
        bwd.__srcad_param_items__ = items
    stacks = {} if numba else {i: saves.pushed(fwd_def, k, analysis) for i, k in
                               enumerate(kept) if k in gen.stacks}
    stacks = {i: entries for i, entries in stacks.items() if entries is not None}
    if stacks:  # what the tuples on the context's stacks hold, likewise
        bwd.__srcad_param_stacks__ = {ctx: stacks}
    if len(wrt) == 1 and not into:
        bwd.__srcad_result_kind__ = analysis.kind(ir.Var(wrt[0]))  # a gradient is like its value
    entry.fwd_text, entry.bwd_text = fwd.__srcad_source__, bwd.__srcad_source__
    entry.whole = whole_lists.returned(bwd_def, len(grads), spelled) if python else ()
    inline.mark(fwd, fwd_def, bwd, bwd_def, spelled, helpers, func, python and not gen.cells,
                buffers)
    if numba:  # Numba dispatchers: compiled with the code that calls them, for its types
        fwd = numba_backend.jit(fwd, f"{fwd_name} of {where}", callee=True)
        bwd = numba_backend.jit(bwd, f"{bwd_name} of {where}", callee=True)
    fwd.__srcad_space__ = bwd.__srcad_space__ = space  # (srcad.backend.standard reads it)
    entry.fwd.cell_contents = fwd
    entry.bwd.cell_contents = bwd
    debug(f"split of {fn.name}", entry.fwd_text + "\n" + entry.bwd_text)


def _tuple_parts(fn, result):
    """The atoms of the tuple ``result`` if ``fn`` builds it in one place (``return a, b``)."""
    if not isinstance(result, ir.Var):
        return None
    built = [s.value.args for s in ir.walk(fn.body) if isinstance(s, ir.Assign)
             and s.target == result.name and isinstance(s.value, ir.Prim)
             and s.value.fn is ir.BUILD_TUPLE]
    return built[0] if len(built) == 1 else None

