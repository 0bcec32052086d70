"""The pipeline, pass by pass. Each pass is a module with one job:

    source.read      read and parse the function (gast), keep file and line numbers
    validate         reject unsupported constructs with a precise error
    desugar          jumps -> flags, augmented assignment -> plain assignment
    lower            flatten to one operation per statement, SSA names, resolve callees
    optimise         dead-code elimination on the SSA form
    ir.check         assert the SSA invariants
    analyse          kinds and activity
    alias            which values may share memory; refuse writes Python would see elsewhere
    reverse          forward sweep + backward sweep (trees: srcad.transform.nodes)
    tidy             rewrite the function's tree so it reads as a person would write it
    free_early       a gradient's arrays freed where last read (the Python backend's NumPy code)
    emit             print (the one place the tree becomes text), compile under a real
                     file name, bind names

Set ``SRCAD_DEBUG=1`` in the environment to print the code after each pass.

Imports ``srcad.analysis``, ``srcad.backend``, ``srcad.core``, ``srcad.errors``,
``srcad.frontend``, ``srcad.transform`` (and nothing above its layer).
"""

from __future__ import annotations

import ast
import functools
import os
import sys
import threading

import gast
import numpy as np

from .analysis import alias, complexity, derivative_calls, elems, raise_facts, soundness, truths
from .analysis.analyse import Analysis
from .backend import (
    duck,
    emit,
    free_early,
    inline,
    int_grads,
    numba_backend,
    numba_passed,
    numba_stacks,
    seed_copies,
    standard,
)
from .backend.assemble import arguments, assemble, function_def, grad_places, signature
from .backend.tidy import tidy
from .core import env, functions, ir
from .core.kinds import (
    ANY,
    ARRAY,
    SCALAR,
    any_duck,
    item_kinds,
    kind_of_value,
    made_for,
    made_items,
    made_stacks,
    rank_of_value,
    with_dtypes,
)
from .core.naming import Namer
from .core.walk import walk_nodes
from .errors import BackendError, SrcadError
from .frontend import frozen_dists, local_imports, matches, nonlocals, optimise, rewrites, source
from .frontend.aux_pairs import split as split_pairs
from .frontend.desugar import Desugar
from .frontend.lower import Lowerer
from .frontend.lower_callees import classes_of, refuse_unhashable
from .frontend.lowered import Lowered, facts_of
from .frontend.validate import validate
from .runtime import derivatives
from .runtime.standard import namespace_of
from .transform import calls, nodes, saves, whole_lists
from .transform import into as into_
from .transform.forward import Forward
from .transform.nodes import assign, call, name
from .transform.reverse import Reverse

DEBUG = bool(os.environ.get("SRCAD_DEBUG"))

#: 1 (the default): tidy the generated code (inline temporaries, propagate copies and constants,
#: drop dead forward values); 0: as the reverse pass writes it. Both give the same numbers (the
#: corpus runs at both); ``SRCAD_OPTIMIZE=0`` or ``OPTIMIZE = 0`` then ``clear_cache()``: 0.
OPTIMIZE = int(os.environ.get("SRCAD_OPTIMIZE", "1"))


def _tidy(fdef, temps, grads, floats=(), spelled=None, ints=(), analysis=None):
    nodes.unshare(fdef)
    # the helpers that sum a value down, as this code spells them (a user's name may take one)
    sums = {spelled[h] for h in ("unbroadcast", "unbroadcast_to", "total")} if spelled else ()
    arrays = raise_facts.of(analysis, spelled) if analysis else None  # (.tidy_dead)
    makers = {spelled["scatter"]} if spelled else ()  # a new array each call (.tidy_copies)
    return tidy(fdef, temps, grads, floats, sums, ints, arrays, makers) if OPTIMIZE else fdef


def _debug(stage, text):
    if DEBUG:
        print(f"---- srcad: after {stage} ----\n{text}", file=sys.stderr)


#: transformations run one at a time (they share caches and linecache entries); a generated
#: function, once made, runs in any number of threads
LOCK = threading.RLock()


def _serialised(fn):
    @functools.wraps(fn)
    def locked(*args, **kwargs):
        limit = sys.getrecursionlimit()
        with LOCK:
            # long expressions nest deeply; Python compiles them, so srcad should too
            sys.setrecursionlimit(max(limit, 20000))
            try:
                return fn(*args, **kwargs)
            finally:
                sys.setrecursionlimit(limit)

    return locked


@_serialised
def read(func):
    """Read and parse ``func`` (done when a gradient is made, to fail early)."""
    return source.read(func)


#: each function's lowered form, kept per (function, arity, fixed): see srcad.frontend.lowered
LOWERED = Lowered()


@_serialised
def to_ssa(func, parsed=None, arity=None, fixed=None):
    """Parse ``func`` (or take ``parsed``, a fresh :func:`read` of it: the tree is changed)
    and lower it to checked SSA; ``fixed``: parameters whose class the specialisation knows
    (see :func:`srcad.core.functions.specialised`). Returns (ir.Function, Namer), a copy kept
    while what it read is unchanged (:data:`LOWERED`; not of a tree srcad.pytrees rewrote)."""
    key = None if getattr(parsed, "records", None) else LOWERED.key(func, arity, fixed)
    known = LOWERED.get(key, func)
    if known is not None:
        return known
    facts = facts_of(func)
    with env.collecting() as reads:
        fn, namer = _lower(func, parsed, arity, fixed)
    LOWERED.put(key, func, fn, namer, reads.values(), facts)
    return fn, namer


def _lower(func, parsed, arity, fixed):
    src = parsed or source.read(func)
    local_imports.lower(src)  # import numpy as np in the body: a constant np
    matches.lower(src)  # match mode: case "a": ...: if/elif on the subject (frontend.matches)
    frozen_dists.lower(src)  # norm(mu, s).logpdf(x): norm.logpdf(x, mu, s)
    nonlocals.lower(src)  # def add(v): nonlocal total ...: total = add(total, v)
    validate(src)
    rewrites.rewrite(src)  # xp.sum(...), p.x, next(it), [make(w) for ...]: frontend.rewrites
    names = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)}
    namer = Namer(names)
    namer.user_names = set(names)
    namer.free = _free_names(src.node)
    for helper in emit.HELPER_OBJECTS:  # generated temporaries never take a helper's name
        namer.reserve(helper)
    desugar = Desugar(namer)
    fdef = desugar.function(src.node)
    if DEBUG:
        _debug("desugar", ast.unparse(gast.gast_to_ast(fdef)))
    fn = Lowerer(src, namer, desugar.flags, fixed).function(fdef, arity)
    refuse_unhashable(fn, src)
    optimise.common_subexpressions(fn)
    optimise.dead_code(fn, keep_writes=True)
    truths.keep_truths(fn, namer)
    ir.check(fn)
    _debug("lower (SSA)", ir.to_source(fn))
    return fn, namer


_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)


def _free_names(fdef):
    """Names the function reads that are not its own variables (globals, builtins, closure
    values): a generated variable must never take one of them bare. A comprehension's
    variable is its own (Python scopes it to the comprehension), but srcad writes the loop
    out in the function: a global of that name read elsewhere is free too."""
    args = fdef.args
    own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    own |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    outside, inside, targets = set(), set(), set()

    def visit(node, in_comp):
        if isinstance(node, _COMPREHENSIONS):
            for sub in walk_nodes(node):
                if isinstance(sub, gast.Name):
                    (inside if isinstance(sub.ctx, gast.Load) else targets).add(sub.id)
            return
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):  # a nested function: its
            if isinstance(node, gast.FunctionDef):  # variables are its own, its name ours
                own.add(node.name)
            outside.update(sub.id for sub in walk_nodes(node) if isinstance(sub, gast.Name)
                           and isinstance(sub.ctx, gast.Load))
            return
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                outside.add(node.id)
            elif not in_comp:
                own.add(node.id)
        for child in gast.iter_child_nodes(node):
            visit(child, in_comp)

    for stmt in fdef.body:
        visit(stmt, False)
    return (outside - own) | (inside - own - targets)


MODES = ("grad", "value_and_grad", "vjp")


def generate(func, wrt, kinds, items=None, parsed=None, ranks=None, arity=None, split=False,
             fixed=None, backend="python", ducks=False, space=None, into=(), plain=False,
             alike=(), aux=False):
    """Run the passes up to the reverse sweep for arguments of these kinds (and, for arrays,
    ranks; for a callee's ``*args``/``**kwargs``, ``arity``: see :class:`srcad.calls.Arity`;
    ``fixed``: the classes of objects passed, see :func:`to_ssa`; ``backend``: the callees
    are split for it, see :data:`NUMBA_CALLEES`; ``ducks``: for Dask or CuPy arrays, the
    callees too, see :data:`DUCK_CALLEES`; ``into``: the parameters whose gradients start as
    the caller's arrays, see :mod:`srcad.transform.into`; ``plain``: no backward part called
    adds into this code's arrays, nor in its callees', see :data:`PLAIN_CALLEES`; ``alike``:
    groups of parameters the code may take to have one shape, see
    :func:`srcad.backend.keys.shape_partition`; ``aux``: ``has_aux=True``, the function's
    pairs split, :mod:`srcad.frontend.aux_pairs`)."""
    fn, namer = to_ssa(func, parsed, arity, fixed)
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
        ranks, callees=_callees(backend, ducks, space, plain), param_stacks=made_stacks(func)))
    alias.check(fn, analysis, callee=split and functions.users_code(func))
    optimise.dead_code(fn, analysis=soundness.settled(fn, analysis, backend, ducks, space, alike))
    soundness.check(fn, analysis)
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    spelled = emit.helper_names(namer, visible, namer.user_names)
    gen = Reverse(fn, analysis, namer, spelled, structured=not split, into=into, alike=alike,
                  runs_only=backend == "python" and not (ducks or plain) and space is None).run()
    if getattr(fn.source, "namespaces", ()):  # xp.f read as np.f: NumPy bound to np
        gen.helpers.add("np")  # (frontend.lower_namespaces: the module may not import it)
    return fn, namer, analysis, spelled, gen


@_serialised
def adjoint(func, wrt, arg_values, mode, as_tuple=False, parsed=None, backend="python",
            holomorphic=False, plain=False, alike=(), aux=False):
    """Generate, compile and return the adjoint of ``func`` for these argument kinds.

    ``wrt``: parameter names; ``arg_values``: parameter name -> an example value (its kind
    specialises the code); ``mode``: "grad" returns the gradients, "value_and_grad" returns
    (value, gradients), "vjp" takes the output's gradient as the first argument;
    ``holomorphic``: grad's output may (must) be a complex number.
    ``backend``: "python", or "numba" (see :mod:`srcad.backend.numba_backend`);
    ``plain``: made without backward parts that add into its arrays (:mod:`.transform.into`):
    the form a derivative of this code differentiates; ``alike``: groups of parameters
    whose arrays have one shape (a fact of the caller's cache key, checked at every call:
    :func:`srcad.backend.keys.shape_partition`), never read from ``arg_values``' shapes;
    ``aux``: ``has_aux=True`` read in the function (:mod:`srcad.frontend.aux_pairs`): "return"
    (the code returns ``(gradients, aux)`` or ``((value, aux), gradients)``), "first" (the
    pairs' first items differentiated, the aux not returned: vjp's pullback)."""
    if backend == "numba" and any_duck(arg_values.values()):
        code = func.__code__
        raise BackendError("backend='numba' compiles code for NumPy arrays, not for Dask or "
                           "CuPy arrays", filename=code.co_filename, lineno=code.co_firstlineno,
                           hint="use backend='python' (the default): its code runs on them")
    kinds = with_dtypes({p: kind_of_value(v) for p, v in arg_values.items()}, arg_values)
    items = {p: item_kinds(v) for p, v in arg_values.items() if item_kinds(v)}
    ranks = {p: rank_of_value(v) for p, v in arg_values.items()}
    # an object's class is part of the cache key (its type): self.method(...) names its code
    fixed = classes_of(arg_values)
    ducks = any_duck(arg_values.values())
    space = namespace_of(arg_values.values())  # array-api-strict: the standard backend
    plain = plain or bool(getattr(parsed, "records", None))  # (its tree is read once)
    fn, namer, analysis, spelled, gen = generate(func, wrt, kinds, items, parsed, ranks,
                                                 fixed=fixed, backend=backend, ducks=ducks,
                                                 space=space, plain=plain, alike=alike, aux=aux)
    fn.aux = getattr(fn, "aux", None) if aux == "return" else None  # (assemble returns it)
    standard.check_code(fn, func, space, arg_values)
    label = namer.fresh(f"{'vjp' if mode == 'vjp' else 'grad'}_{fn.name}")
    if backend == "numba":
        numba_stacks.realise(gen, namer, spelled)
    helpers = set(gen.helpers)
    fdef = assemble(fn, gen, label, wrt, mode, analysis, spelled, namer, helpers, as_tuple,
                    holomorphic, check_real=backend == "python")
    floats = [p for p, v in arg_values.items() if type(v) is float]
    ints = [p for p, v in arg_values.items() if type(v) in (int, bool)]
    fdef = _tidy(fdef, namer.temps | gen.temp_grads, namer.grads, floats, spelled, ints, analysis)
    reals = [w for w in wrt if isinstance(arg_values.get(w), float)]  # np.float64 too
    if ints and reals:  # x * n's gradient n: a float for a float x
        int_grads.float_gradients(fdef, grad_places(mode, wrt, reals, as_tuple, aux), floats,
                                  ints)
    runs = not plain and backend == "python" and not ducks and space is None  # NumPy code run
    fdef = inline.inline_parts(fdef, gen.cells, spelled, helpers, namer, func, runs,
                               loops_only=True)  # small callees
    gen.parts_called |= bool(runs and OPTIMIZE and free_early.free_early(fdef, gen.keeps))
    fdef = _for_ducks(fdef, func, fn, spelled, namer, gen.cells) if ducks else fdef  # Dask, CuPy
    if space is not None:  # written in the arrays' namespace
        fdef = standard.write(fdef, func, fn, space, spelled, helpers, namer, gen.cells)
    if backend == "numba":
        fdef, numba_cells = numba_backend.check(fdef, func, spelled, namer, gen.cells,
                                                gen.hoisted_stacks, live := {})
        gen.cells.update(numba_cells)
        passed = numba_passed.Passed(fdef, arg_values, live, func)  # functions, numbers
    where = f"{label} of {func.__code__.co_filename}:{func.__code__.co_firstlineno}"
    defaults = func.__defaults__ or ()
    kwdefaults = dict(func.__kwdefaults__ or {})
    compiled = emit.compile_function(fdef, func, helpers, spelled, where,
                                     defaults or None, kwdefaults or None, gen.cells)
    compiled.__srcad_param_kinds__ = dict(kinds)
    standard.keep_numpy_form(compiled, fdef, func, spelled, where, defaults or None,
                             kwdefaults or None)  # what a derivative of it differentiates
    if gen.parts_called and not plain and backend == "python" and not ducks and space is None:
        # a derivative of it differentiates code without variants, its callees' neither
        _keep_plain_form(compiled, func, wrt, arg_values, mode, as_tuple, backend, holomorphic,
                         alike, aux)
    _debug("reverse", compiled.__srcad_source__)
    if backend == "numba":  # a pullback's cotangent: its type is known at the first call
        unchecked = numba_backend.indexes_only_stacks(
            fdef, set(gen.stacks) | set(gen.stack_arrays))
        return (passed.jit(compiled, where, mode != "vjp", boundscheck=not unchecked),
                compiled.__srcad_source__)
    return compiled, compiled.__srcad_source__


def _keep_plain_form(compiled, func, wrt, arg_values, mode, as_tuple, backend, holomorphic,
                     alike=(), aux=False):
    """Give ``compiled`` (code calling backward parts that add into its gradient arrays,
    :mod:`srcad.transform.into`) the same derivative made without them, made when first
    asked for (``standard.numpy_form``): the code srcad reads when it differentiates
    ``compiled`` again, from ``func``'s source read again (a tree rewritten for records is
    read once: such code is made plain). Kept: the arguments' kinds, not their arrays (an
    empty array of the same rank and dtype stands for a NumPy array)."""
    stand_ins = {p: np.empty((0,) * v.ndim, v.dtype) if type(v) is np.ndarray else v
                 for p, v in arg_values.items()}
    made = []

    def make():
        if not made:
            made.append(adjoint(func, wrt, stand_ins, mode, as_tuple, None, backend,
                                holomorphic, plain=True, alike=alike, aux=aux)[0])
        return made[0]

    compiled.__srcad_numpy_form__ = make


@_serialised
def tangent(func, wrt, kinds, items=None, inner=False, arity=None, parsed=None, fixed=None,
            backend="python", ducks=False, space=None, ranks=None, sweep=Forward):
    """Forward mode: compile ``jvp_f(params..., tangents...) -> (value, tangent)``
    (``parsed``: ``func``'s tree as :func:`read` gives it, changed: see :func:`to_ssa`;
    ``fixed``: the functions and objects passed (see :func:`to_ssa`); ``backend="numba"``:
    compiled by Numba at its first call (see :func:`adjoint`); ``ducks``: the arguments hold
    Dask or CuPy arrays, see :mod:`srcad.backend.duck`; ``space``: the array API namespace
    of the arguments' arrays, see :mod:`srcad.backend.standard`; ``ranks``: Callees.tangent's)."""
    fn, namer = to_ssa(func, parsed, arity=arity, fixed=fixed)
    standard.check_code(fn, func, space, kinds)
    analysis = derivative_calls.analysed(fn, functools.partial(
        Analysis, fn, made_for(func, kinds), wrt, made_items(func, items), ranks,
        callees=sweep.callees or _callees(backend, ducks, space), param_stacks=made_stacks(func)))
    alias.check(fn, analysis, callee=inner and functions.users_code(func))
    optimise.dead_code(fn, analysis=soundness.settled(fn, analysis, backend, ducks, space))
    soundness.check(fn, analysis, forward=True)
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    spelled = emit.helper_names(namer, visible, namer.user_names)
    fwd = sweep(fn, analysis, namer, spelled)
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
    fdef = _tidy(fdef, namer.temps | fwd.temp_tangents, namer.grads, (), spelled, analysis=analysis)
    if ducks:  # Dask, CuPy arguments (the cache key has their types): as in adjoint
        fdef = _for_ducks(fdef, func, fn, spelled, namer, fwd.cells)
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
    _debug("forward", compiled.__srcad_source__)
    if backend == "numba":
        return passed.jit(compiled, where, False, callee=inner), compiled.__srcad_source__
    return compiled, compiled.__srcad_source__


def _for_ducks(fdef, func, fn, spelled, namer, cells):
    """``fdef`` written for duck arrays (:mod:`srcad.backend.duck`); ``cells`` gains those
    the rewrite reads."""
    visible = dict(func.__globals__)
    visible.update(fn.source.closure)
    fdef, made = duck.for_duck_arrays(fdef, spelled, emit.HELPER_OBJECTS, visible, namer.fresh)
    cells.update(made)
    return fdef


def make_split(func, wrt, kinds, entry, arity=None, ranks=None, into=(), backend="python",
               ducks=False, space=None, plain=False):
    """Fill ``entry`` (a :class:`srcad.calls.Split`) with ``func``'s forward and backward parts
    (for array arguments of these ``ranks``, where the caller knows them); ``backend="numba"``:
    both parts compiled by Numba (when the code calling them is), their stacks one per saved
    value (:func:`srcad.backend.numba_stacks.realise`); ``into``: the parameters whose
    gradients the backward part adds into arrays passed after the seed (``plain``: and in
    none of its callees'), see :mod:`srcad.transform.into`."""
    fn, namer, analysis, spelled, gen = generate(func, wrt, kinds, arity=arity, split=True,
                                                 ranks=ranks, backend=backend, ducks=ducks,
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
    fwd_def = _tidy(fwd_def, temps, namer.grads, (), spelled, analysis=analysis)  # (may raise)
    bwd_def = _tidy(bwd_def, temps, namer.grads, (), spelled, analysis=analysis)
    if into and (gen.seed in buffers or not into_.adds_only(bwd_def, buffers, gen.into_parts)):
        raise into_.Unproved(func.__name__)  # the caller calls the plain part instead
    python = backend == "python" and not ducks and space is None and not plain
    helpers = set(gen.helpers)  # small straight-line parts of its callees written in:
    fwd_def, bwd_def, kept, flat = inline.into_split(fwd_def, bwd_def, list(kept), gen.cells,
                                                     spelled, helpers, namer, func, python)
    if ducks:  # a callee of code for Dask or CuPy arrays (DUCK_CALLEES)
        fwd_def = _for_ducks(fwd_def, func, fn, spelled, namer, gen.cells)
        bwd_def = _for_ducks(bwd_def, func, fn, spelled, namer, gen.cells)
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
    _debug(f"split of {fn.name}", entry.fwd_text + "\n" + entry.bwd_text)


def _tuple_parts(fn, result):
    """The atoms of the tuple ``result`` if ``fn`` builds it in one place (``return a, b``)."""
    if not isinstance(result, ir.Var):
        return None
    built = [s.value.args for s in ir.walk(fn.body) if isinstance(s, ir.Assign)
             and s.target == result.name and isinstance(s.value, ir.Prim)
             and s.value.fn is ir.BUILD_TUPLE]
    return built[0] if len(built) == 1 else None


def _make_tangent(func, wrt, kinds, arity=None, backend="python", **options):
    made = tangent(func, wrt, kinds, inner=True, arity=arity, backend=backend, **options)[0]
    if options.get("space") is not None:  # (srcad.backend.standard reads it)
        made.__srcad_space__ = options["space"]
    return made


#: the user functions programs call: split and compiled by this pipeline on demand
CALLEES = calls.Callees(to_ssa, make_split, _make_tangent)
CALLEES.into_calls = True  # backward parts may add into their callers' arrays (.into)
CALLEES.guards = True  # unbroadcast left out at run time where shapes agree (.guards)
#: the same, never adding into a caller's arrays: the callees of code srcad reads again
#: (a derivative's plain form, code srcad made), and of derivatives called in code
PLAIN_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, plain=True),
                              _make_tangent)
derivatives.CALLEES[:] = [PLAIN_CALLEES]  # derivatives called in code, split at run time
#: the same for code compiled by Numba: their parts are Numba dispatchers
NUMBA_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, backend="numba"),
                              functools.partial(_make_tangent, backend="numba"))
NUMBA_CALLEES.compiles_all = True  # a call with nothing to differentiate is compiled too
NUMBA_CALLEES.into_calls = True  # backward parts may add into their callers' arrays (.into)
#: the same, never adding into a caller's arrays: the callees of code srcad made (a
#: derivative called in the code compiled, differentiated again by its sweep)
NUMBA_PLAIN_CALLEES = calls.Callees(
    to_ssa, functools.partial(make_split, backend="numba", plain=True),
    functools.partial(_make_tangent, backend="numba"))
NUMBA_PLAIN_CALLEES.compiles_all = True
#: the same for code made for Dask or CuPy arrays: their parts written for them too
#: (:mod:`srcad.backend.duck`), apart from those NumPy code calls
DUCK_CALLEES = calls.Callees(to_ssa, functools.partial(make_split, ducks=True),
                             functools.partial(_make_tangent, ducks=True))
DUCK_CALLEES.guards = True  # shape guards as in NumPy code: Dask's is run too


#: the same for code made for arrays of an array API namespace (by the namespace): their
#: parts written in it too (:mod:`srcad.backend.standard`)
STANDARD_CALLEES = {}


def callees_for(values):
    """The callees cache for a derivative called in code with arguments ``values``."""
    return _callees("python", space=namespace_of(values), plain=True)


def _callees(backend, ducks=False, space=None, plain=False):
    if backend == "numba":
        return NUMBA_PLAIN_CALLEES if plain else NUMBA_CALLEES
    if space is not None:
        if space not in STANDARD_CALLEES:
            STANDARD_CALLEES[space] = made = calls.Callees(to_ssa, functools.partial(
                make_split, space=space), functools.partial(_make_tangent, space=space))
            made.standard = True  # its arrays have no methods (transform.saves)
        return STANDARD_CALLEES[space]
    return DUCK_CALLEES if ducks else PLAIN_CALLEES if plain else CALLEES
