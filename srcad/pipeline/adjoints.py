"""Reverse mode's code (:func:`adjoint`): the function :mod:`.generating` made assembled,
tidied and compiled, for the Python backend (its NumPy code), Dask or CuPy arrays, an array
API namespace, or Numba.

    assemble         the sweeps as one function: parameters, seed, returned gradients
    tidy             rewrite the function's tree so it reads as a person would write it
    int_grads        a float parameter's gradient a float where an int argument scales it
    inline           small callees' parts written in
    free_early       a gradient's arrays freed where last read (the Python backend's NumPy code)
    duck, standard,  written for Dask or CuPy arrays, an array API namespace, Numba
    numba_backend
    emit             print (the one place the tree becomes text), compile under a real
                     file name, bind names

Imports NumPy, ``srcad.analysis.doubles``, ``srcad.backend``, ``srcad.core``,
``srcad.errors`` and its neighbours :mod:`.generating` and :mod:`.switches`.
"""

from __future__ import annotations

import numpy as np

from ..analysis import doubles
from ..backend import (
    emit,
    float_literals,
    free_early,
    inline,
    int_grads,
    numba_backend,
    numba_passed,
    numba_stacks,
    standard,
)
from ..backend.assemble import assemble, grad_places
from ..core.kinds import any_duck, item_kinds, kind_of_value, rank_of_value, with_dtypes
from ..errors import BackendError
from ..frontend.lower_callees import classes_of
from ..runtime.standard import namespace_of
from . import generating, switches
from .generating import for_ducks
from .switches import debug, serialised

MODES = ("grad", "value_and_grad", "vjp")


@serialised
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
    fn, namer, analysis, spelled, gen = generating.generate(
        func, wrt, kinds, items, parsed, ranks, fixed=fixed, backend=backend, ducks=ducks,
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
    fdef = switches.tidied(fdef, namer.temps | gen.temp_grads, namer.grads, floats, spelled,
                           ints, analysis)
    reals = [w for w in wrt if isinstance(arg_values.get(w), float)]  # np.float64 too
    if ints and reals:  # x * n's gradient n: a float for a float x
        int_grads.float_gradients(fdef, grad_places(mode, wrt, reals, as_tuple, aux), floats,
                                  ints)
    runs = not plain and backend == "python" and not ducks and space is None  # NumPy code run
    fdef = inline.inline_parts(fdef, gen.cells, spelled, helpers, namer, func, runs,
                               loops_only=True)  # small callees
    gen.parts_called |= bool(runs and switches.OPTIMIZE and
                             free_early.free_early(fdef, gen.keeps))
    if runs:  # literals meeting float64 arrays: float64 constants (one, half)
        fdef = float_literals.write(fdef, doubles.double_arrays(analysis), spelled, helpers)
    fdef = for_ducks(fdef, func, fn, spelled, namer, gen.cells) if ducks else fdef  # Dask, CuPy
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
    debug("reverse", compiled.__srcad_source__)
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
