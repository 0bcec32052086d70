"""The public API: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``source``, ``ssa``,
``clear_cache``.

``grad`` and friends return a :class:`srcad.specialise.Transformed`'s dispatcher, made once
per function, ``wrt`` and mode: it specialises the derivative on the kinds of its arguments
and caches each specialisation (see :mod:`srcad.specialise`). Forward-mode functions are
cached here, by function, ``wrt`` and argument kinds.

Imports ``srcad.specialise``, ``srcad.written_state``, the pipeline and the layers below it.
"""

from __future__ import annotations

import functools
import gc
import inspect
import weakref

import numpy as np

from . import aux_calls, fast_calls, jacobians_batched, pipeline, pytrees, tree_calls, tree_keys
from .backend import dispatch, numba_backend
from .core import env, functions, ir
from .core.kinds import (
    any_duck,
    foreign_array,
    item_kinds,
    kind_of_value,
    rank_of_value,
    with_dtypes,
)
from .errors import SrcadError, WrtError
from .frontend import entry, passed_records, plain_classes, plain_inits, returned_records
from .frontend.lower_callees import classes_of
from .runtime.standard import namespace_of, on_standard_arrays
from .specialise import (
    ALL,
    Transformed,
    cache_key,
    check_arrays,
    check_wrt_value,
    is_transformed,
    plain_key,
    prepare,
    resolve_wrt,
    transformed_of,
    wrt_alias,
)
from .written_state import made_of, writer

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "source", "ssa", "clear_cache"]

_scalar_pullback, _pullback = fast_calls.scalar_pullback, fast_calls.pullback
_check_companion, _own_lists = fast_calls.check_companion, fast_calls.own_lists
_same_shapes = fast_calls.same_shapes


def grad(f=None, wrt=0, has_aux=False, backend="python", holomorphic=False, *, argnums=None,
         argnum=None):
    """The gradient of the scalar function ``f`` with respect to the ``wrt`` argument(s).

    ``wrt`` is a position, a parameter name, or a tuple of them: a single ``wrt`` gives one
    gradient, a tuple gives a tuple in that order. Usable as ``grad(f)``, ``@grad`` and
    ``@grad(wrt=...)``. The output of ``f`` must be a scalar; see :func:`vjp` otherwise.
    An ``int`` given for a ``wrt`` argument is differentiated as a ``float`` (the gradient is a
    float). With ``has_aux=True``, ``f`` returns ``(value, aux)`` and the gradient function
    returns ``(gradient, aux)``: ``aux`` is passed through, not differentiated.
    ``backend="numba"`` compiles the gradient with ``numba.njit`` (loops over floats and 1-D
    arrays; see docs/performance.md); the default, ``"python"``, runs it as plain Python.
    Complex arguments follow JAX's convention (docs/supported-python.md): for a real-valued
    ``f`` the gradient is ``df/dx - 1j df/dy``; a complex-valued ``f`` is refused unless
    ``holomorphic=True``, which gives ``f'(z)`` (and needs complex ``wrt`` arguments).
    ``argnums`` (JAX's name) and ``argnum`` (autograd's) are other names for ``wrt``.

    >>> import srcad
    >>> def f(x, w):
    ...     return (x + w) * (w + 1)
    >>> srcad.grad(f, wrt=("x", "w"))(2.0, 1.0)  # doctest: +SKIP
    (2.0, 5.0)
    """
    mode = "grad_holomorphic" if holomorphic else "grad"
    wrt = wrt_alias(wrt, argnums, argnum)
    if f is None:
        return lambda func: _made(func, wrt, mode, has_aux, backend)
    return _made(f, wrt, mode, has_aux, backend)


def value_and_grad(f=None, wrt=0, has_aux=False, backend="python", holomorphic=False, *,
                   argnums=None, argnum=None):
    """Like :func:`grad`, returning ``(value, gradient(s))``; with ``has_aux=True``,
    ``((value, aux), gradient(s))``."""
    mode = "value_and_grad_holomorphic" if holomorphic else "value_and_grad"
    wrt = wrt_alias(wrt, argnums, argnum)
    if f is None:
        return lambda func: _made(func, wrt, mode, has_aux, backend)
    return _made(f, wrt, mode, has_aux, backend)


def _made(f, wrt, mode, has_aux, backend="python"):
    if writer(f):  # f writes into what it is given: its copy differentiated, f run after
        return writer(f).returning(lambda g: _made(g, wrt, mode, has_aux, backend))
    if mode.endswith("_holomorphic") and (backend != "python" or callable(f) and not
                                          is_transformed(f) and
                                          entry.takes_star_args(entry.target(f))):
        raise SrcadError("holomorphic=True is supported with backend='python' for a function "
                         "with named parameters",
                         hint="name the parameters (def f(z)), or leave holomorphic out")
    if backend != "python":
        return _numba(f, wrt, mode, has_aux, backend)
    if callable(f) and not is_transformed(f) and entry.takes_star_args(entry.target(f)):
        return _star_args(entry.target(f), wrt, mode, has_aux)
    if not has_aux:
        return _transform(f, wrt, mode).function
    return aux_calls.made(f, wrt, mode, _transform)


def _numba(f, wrt, mode, has_aux, backend):
    """The derivative compiled by Numba (see :mod:`srcad.backend.numba_backend`)."""
    _numba_allowed(f, has_aux, backend)
    return _transform(f, wrt, mode, backend).function


def _numba_allowed(f, has_aux, backend):
    """Refuse what ``backend`` (not "python") does not take."""
    if backend != "numba":
        raise SrcadError(f"unknown backend {backend!r}", hint="use 'python' or 'numba'")
    numba_backend.require()
    if has_aux or not callable(f) or is_transformed(f) or entry.takes_star_args(
            entry.target(f)):
        raise SrcadError("backend='numba' takes a plain function (no has_aux, *args or "
                         "derivative of a derivative)", hint=numba_backend.HINT)


def _named_star_args(f, n):
    """``f`` itself, or for a function taking ``*args`` called with ``n`` positional
    arguments, one naming them (see :func:`srcad.frontend.entry.star_shim`)."""
    if callable(f) and not is_transformed(f):
        star_of = getattr(f, "__srcad_for_count__", None)
        if star_of is not None:  # the derivative of a *args function: the one for n
            return star_of(n)
        if entry.takes_star_args(entry.target(f)):
            return entry.star_shim(entry.target(f), n)
    return f


def _star_args(f, wrt, mode, has_aux):
    """The derivative of a function taking ``*args`` or ``**kwargs``: for each number of
    positional arguments (and keywords ``**kwargs`` takes) it is called with, the derivative of
    a function naming them (``wrt=k``: the ``k``-th positional argument), made once."""
    params = inspect.signature(f).parameters.values()
    named = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    star = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
    for item in wrt if isinstance(wrt, (tuple, list)) else (wrt,):
        if isinstance(item, str) and item not in named:
            code = f.__code__
            raise WrtError(
                f"wrt names {item!r}, which is not a named parameter of {f.__name__}"
                + (f" (*{star} holds the positional arguments after {named})"
                   if item == star else ""),
                filename=code.co_filename, lineno=code.co_firstlineno,
                hint="give the position of the argument: wrt=k is the k-th positional "
                "argument" + (f", the items of *{star} included" if star else ""))
    made = {}

    def for_count(n, keys=()):
        known = made.get((n, keys))
        if known is None:
            known = made[n, keys] = _made(entry.star_shim(f, n, keys), wrt, mode, has_aux)
        return known

    @functools.wraps(f)
    def star_derivative(*args, **kwargs):
        return for_count(len(args), entry.star_keys(f, kwargs))(*args, **kwargs)

    star_derivative.__srcad_for_count__ = for_count
    star_derivative.__srcad_counts__ = made
    return star_derivative


def vjp(f, *args, wrt=None, has_aux=False, backend="python"):
    """``(value, pullback)``: ``pullback(dy)`` is the vector-Jacobian product ``dy · J``.

    ``wrt`` defaults to all positional arguments (the pullback then returns a tuple, one
    gradient per argument; with a single ``wrt``, that one gradient). ``has_aux=True``: ``f``
    returns ``(value, aux)`` and ``vjp`` returns ``(value, pullback, aux)`` (as JAX does),
    ``aux`` not differentiated. Records as ``wrt`` arguments get records of gradients.
    ``backend="numba"``: the pullback is compiled by Numba (as :func:`grad`'s), for the types
    of its first cotangent and arguments. In differentiated code: ``nested_vjp.PulledBack``."""
    if not has_aux and backend == "python":
        table = fast_calls.table(fast_calls.VJPS, f, wrt)
        known = table.get(fast_calls.types_of(args)) if table is not None else None
        if known is not None:  # numbers and arrays of types seen before: no checks (its
            return known(args)  # pullback names what srcad reads for it, as below)
    if writer(f):  # f writes into what it is given (srcad.written_state)
        return writer(f).vjp(args, wrt, has_aux, vjp, grad)
    out = _vjp(f, args, wrt, has_aux, backend)
    if backend == "python":  # what srcad reads for the pullback in code it differentiates
        out[1].__srcad_vjp_of__ = (f, args, wrt, has_aux, out[0])
    return out


vjp = fast_calls.short_vjp(vjp)  # the closures kept, looked up in the frame called


def _vjp(f, args, wrt, has_aux, backend):
    if backend != "python":
        _numba_allowed(f, has_aux, backend)
    check_arrays(f, dict(enumerate(args)))  # before f runs on them
    fast = None if backend != "python" or not (wrt is None or _plain_wrt(wrt)) \
        else (f, wrt, len(args))
    fast_key = None  # has_aux: (f, wrt, n), f's closure kept (aux_calls.vjp_closure)
    if has_aux:
        fast_key, fast = fast, None
    known = _vjps.get(fast) if fast is not None else None
    if known is not None:  # made before for this function, wrt and number of arguments
        called, transformed, gradient, prepared = known
        types = tuple(map(type, args))
        if types not in prepared:  # refused for these arguments before f runs (made once
            prepare(transformed, args)  # per classes: containers of another structure, or
            prepared.add(types)  # names rebound since, are made at the pullback, as before)
        fast_calls.vjp_closure(fast[0], fast[1], types, called, transformed, gradient,
                               _vg_of(called, fast[1], len(args), types))
        eager = fast_calls.eager(fast[0], fast[1], types)
        if eager is not None:
            return eager(args)
        value = called(*args)
        if gradient is not None and (type(value) is float or type(value) is np.float64):
            return value, _scalar_pullback(value, transformed, gradient, args)
        return value, _pullback(value, transformed, args)
    if wrt is None:
        wrt = tuple(range(len(args)))
    f = _named_star_args(f, len(args))
    first = ""  # "_first": f returns pair displays, its first items differentiated (aux_calls)
    if has_aux:
        target = aux_calls.target_of(f)
        shim = target if aux_calls.returns_pairs(target) else _AUX_SHIMS.get(target)
        if shim is None:
            shim = _AUX_SHIMS[target] = entry.aux_shim(target, aux_calls.keep_aux)
        run, f, first = f, shim, "_first" if shim is target else ""
    transformed = _transform(f, wrt, "vjp" + first, backend)
    prepare(transformed, args)  # what refuses f for these arguments, before f runs
    if has_aux:
        out = run(*args)
        where = entry.where_of(target)
        aux_calls.check_pair(out, where)
        value, aux = out
    else:
        value = f(*args)
    gradient = None
    if type(value) is float or type(value) is np.float64:
        gradient = _transform(f, wrt, "grad" + first, backend).function
        pullback = _scalar_pullback(value, transformed, gradient, args)
    else:
        pullback = _pullback(value, transformed, args)
    if fast is not None:
        types = tuple(map(type, args))
        _vjps[fast] = (f, transformed, gradient, {types})
        fast_calls.vjp_closure(fast[0], fast[1], types, f, transformed, gradient,
                               _vg_of(f, wrt, len(args), types))
        eager = fast_calls.eager(fast[0], fast[1], types)
        if eager is not None:  # made here: the next call makes nothing
            return eager(args)
    if first and fast_key is not None:  # the next call: f, then the pullback made
        aux_calls.vjp_closure(fast_key[0], fast_key[1], tuple(map(type, args)), where,
                              transformed, gradient,
                              lambda: _transform(f, wrt, "value_and_grad_aux").function)
    return (value, pullback, aux) if has_aux else (value, pullback)


def _vg_of(f, wrt, n, types=()):
    """What makes ``f``'s value_and_grad for vjp's ``wrt`` (None: all ``n`` arguments), for
    arguments of ``types`` (containers: :func:`srcad.tree_calls.direct`)."""
    wrt = tuple(range(n)) if wrt is None else wrt
    if fast_calls.plain_types(types):
        return lambda: _transform(f, wrt, "value_and_grad").function
    return lambda: tree_calls.direct(_transform(f, wrt, "value_and_grad"))  # (containers)


_AUX_SHIMS = weakref.WeakKeyDictionary()  # function -> its has_aux shim (vjp), made once
#: (f, wrt as given, number of arguments) -> (the function called for the value, its vjp
#: Transformed, its gradient function or None, the classes of arguments its code was made
#: for before f ran): a later vjp of f skips everything but the calls
_vjps = functions.ByFunction()


def jvp(f, primals, tangents, wrt=None, backend="python"):
    """Forward mode: ``(f(*primals), J · tangents)``, by source transformation.

    ``primals`` is the tuple of arguments; ``tangents`` one tangent per ``wrt`` argument
    (default: all of ``primals``), each shaped like its argument. ``backend="numba"``: the
    forward-mode code is compiled by Numba (as :func:`grad`'s), for the types of the first
    call.
    """
    if type(primals) is tuple and type(tangents) is tuple:  # numbers, arrays seen before
        found = fast_calls.jvp_call(f, wrt, primals, tangents, backend)
        if found is not None:
            return found
    if writer(f):  # f writes into what it is given (srcad.written_state)
        return writer(f).jvp(primals, tangents, wrt, backend, jvp)
    if backend != "python":
        _numba_allowed(f, False, backend)
    given, primals, tangents = f, tuple(primals), tuple(tangents)
    known = _jvp_targets.get((f, wrt, len(primals))) if wrt is None or _plain_wrt(wrt) \
        else None
    if known is None:
        known = _jvp_target(f, wrt, len(primals))
    f, params, names = known
    fast = _jvp_fast.get((f, names)) if backend == "python" else None
    if fast is not None and len(tangents) == len(names):
        fn = fast.get(plain_key(primals))
        if fn is not None and _same_shapes(primals, tangents, fn.__srcad_positions__) and (
                not fn.__srcad_reads__ or not env.stale(fn.__srcad_reads__)):
            if wrt is None or _plain_wrt(wrt):
                fast_calls.jvp_closure(given, wrt, primals, tangents, fn)
            return fn(*primals, *tangents)
    if len(tangents) != len(names):
        raise WrtError(f"jvp got {len(tangents)} tangents for {len(names)} wrt arguments",
                       hint="give one tangent per argument in wrt")
    values = dict(zip(params, primals))
    for name, tangent in zip(names, tangents):
        value = values.get(name)
        if pytrees.has_records(value):  # a record's tangent: a record of its class (or a dict)
            value, tangent = pytrees.flatten(value), pytrees.flatten(tangent)
        _check_companion(value, tangent, f"tangent for {name!r}")
    fn, full = _jvp_function(f, names, primals, backend)
    if any(map(foreign_array, full)):  # the array API's: what the standard lacks, refused
        return on_standard_arrays(lambda: fn(*full, *tangents), f, full)
    if len(full) == len(primals) and (wrt is None or _plain_wrt(wrt)):
        fast_calls.jvp_closure(given, wrt, primals, tangents, fn, backend, (params, names), full)
    return fn(*full, *tangents)


jvp = fast_calls.short_jvp(jvp)  # the closures kept, looked up in the frame called


_jvp_cache = functions.ByFunction()
_jvp_targets = functions.ByFunction()  # (f, wrt, number of primals) -> (target, params, wrt)


def _jvp_target(f, wrt, n):
    """What ``jvp`` reads for ``f`` and ``wrt`` (the source read once: a clear error for a
    function without any), kept for the next call."""
    key = (f, wrt, n)
    f = _named_star_args(f, n)
    if not is_transformed(f):
        f = entry.target(f)
        pipeline.read(f)  # a clear error for a function without source
    user = transformed_of(f)._user if is_transformed(f) else f
    params, names, _ = resolve_wrt(user, tuple(range(n)) if wrt is None else wrt)
    if wrt is None or _plain_wrt(wrt):
        _jvp_targets[key] = (f, params, names)
    return f, params, names


#: (f, wrt names) -> {:func:`srcad.specialise.plain_key` -> forward-mode function}, for calls
#: passing all the parameters positionally: what jvp, hvp and jacfwd find first
_jvp_fast = functions.ByFunction()
_jvp_trees = functions.ByFunction()  # the same for containers, by tree_keys.call_key


def _jvp_function(f, names, primals, backend="python", sweep=None):
    """The forward-mode function for these arguments (the defaults filled in as they are now)
    and the full argument list to call it with (``sweep``: another forward sweep's code,
    :class:`srcad.transform.tangent_only.TangentOnly`, kept apart)."""
    # the cache's key: the Numba backend's code is another function
    keyed = (*names, backend) if backend != "python" else names
    keyed = keyed if sweep is None else (*keyed, sweep)
    plain = backend == "python" and sweep is None  # (the one-lookup tables: the general code)
    fast = _jvp_fast.get((f, names)) if plain else None
    if fast is not None:
        known = fast.get(plain_key(primals))
        if known is not None and (not known.__srcad_reads__
                                  or not env.stale(known.__srcad_reads__)):
            return known, primals
    trees = _jvp_trees.get((f, names)) if plain else None
    if trees is not None:  # containers, records: keyed by their structure (tree_keys)
        known = trees.get(tree_keys.call_key(primals) if tree_keys.keyed_classes(
            map(type, primals)) else None)
        if known is not None and not env.stale(known.__srcad_reads__):
            return known, primals
    transformed = transformed_of(f) if is_transformed(f) else None
    user = transformed._user if transformed is not None else f
    if _all_given(user, primals) and not any(map(pytrees.has_records, primals)):
        full = list(primals)
        known = _jvp_cache.get((f, keyed, cache_key(full)))
        if known is not None and not env.stale(known.__srcad_reads__):
            if plain:
                _remember_jvp(f, names, primals, known, user)
            return known, full
    bound = inspect.signature(user).bind(*primals)
    bound.apply_defaults()
    full = list(bound.arguments.values())  # keyword-only ones too, positionally
    values = dict(bound.arguments)
    # records (dataclasses, named tuples): read as dicts (srcad.pytrees); a derivative's code
    # already takes those it was made for as dicts
    records = pytrees.records_among(values, transformed._wrt if transformed else names)
    if records:
        values = {k: pytrees.flatten(v) if k in records else v for k, v in values.items()}
    key = (f, keyed, cache_key(list(values.values())))
    if records:
        key += (tuple(pytrees.shape(r) for r in records.values()),)
    known = _jvp_cache.get(key)
    if known is not None and not env.stale(known.__srcad_reads__):
        return known, full
    for name in names:
        check_wrt_value(user, name, values.get(name))
    check_arrays(user, values)
    kinds = with_dtypes({p: kind_of_value(v) for p, v in values.items()}, values)
    items = {p: item_kinds(v) for p, v in values.items() if item_kinds(v)}
    with env.collecting() as reads:
        # f.__code__ = g.__code__ (the user's function: a derivative's own dispatcher is
        # made again as its specialisations grow, and checked by _check_env)
        env.record_all(env.code_reads({"__srcad_own__": user}))
        target, parsed = f, None
        if transformed is not None:
            transformed._check_env()
            target = transformed.python_code(bound)
        elif records:
            parsed = pytrees.rewrite(pipeline.read(target), records)
        fn, text = pipeline.tangent(target, names, kinds, items, parsed=parsed,
                                    fixed=classes_of(values), backend=backend,
                                    ducks=any_duck(values.values()),
                                    space=namespace_of(values.values()),
                                    ranks={p: rank_of_value(v) for p, v in values.items()},
                                    **({} if sweep is None else {"sweep": sweep}))
    # (ranks: the key has them)
    fn.__srcad_source__ = text
    if records:
        params = list(values)
        positions = {params.index(n) for n in records} | {
            len(params) + names.index(n) for n in records if n in names}
        fn = _jvp_with_records(fn, records, transformed, positions)
        fn.__srcad_source__ = text
    fn.__srcad_reads__ = tuple(reads.values())
    _jvp_cache[key] = fn
    if _all_given(user, primals) and plain:
        _remember_jvp(f, names, primals, fn, user)
    return fn, full


def _remember_jvp(f, names, primals, fn, user):
    """Let the next call with arguments of the same kinds find ``fn`` by its plain key."""
    key = plain_key(primals)
    if key is None and tree_keys.keyed_classes(map(type, primals)) and not any(
            map(pytrees.has_records, primals)):  # (a record's code is wrapped: not kept)
        key, trees = tree_keys.call_key(primals), _jvp_trees.get((f, names))
        if trees is None:
            trees = _jvp_trees[(f, names)] = {}
        if key is not None:
            tree_keys.keep(trees, key, fn)
        return
    if key is None or any(map(pytrees.has_records, primals)):
        return
    params = list(inspect.signature(user).parameters)
    fn.__srcad_positions__ = tuple(params.index(n) for n in names)
    fast = _jvp_fast.get((f, names))
    if fast is None:
        fast = _jvp_fast[(f, names)] = {}
    fast[key] = fn


def _jvp_with_records(fn, records, transformed, positions):
    """``fn`` (made for ``records`` read as dicts) taking the records and their tangents (a
    record of the class, or a dict) as they are; for a derivative with records among its
    ``wrt``, the value and the tangent come out as records again, as the derivative's do."""

    flat = transformed is not None and transformed._mode == "grad" and pytrees.flat_records(
        records)  # (grad's code of records holding none: each part's dicts made records)
    order = [records.get(w) for w in transformed._wrt] if flat else None

    def with_records(*args):
        result = fn(*pytrees.flatten_records(args, positions))
        if transformed is None:
            return result
        if flat:
            return tuple([pytrees.as_flat_records(part, order, transformed._single)
                          for part in result])
        t = transformed
        return tuple(pytrees.as_records(part, records, t._mode, t._single, t._wrt)
                     for part in result)

    with_records.__srcad_flat__ = (fn, positions)  # (srcad.tree_jacobians: the dict code)
    return with_records


def _all_given(user, primals):
    """Whether ``primals`` are all of ``user``'s parameters, positionally (then binding them
    changes nothing)."""
    code = getattr(user, "__code__", None)
    return (code is not None and code.co_argcount == len(primals)
            and not code.co_kwonlyargcount and not code.co_flags & 0x0C)  # no *args, **kw


def jvp_source(f, *primals, wrt=None):
    """The generated forward-mode source of ``f`` for these example arguments."""
    user = transformed_of(f)._user if is_transformed(f) else f
    _, names, _ = resolve_wrt(user, tuple(range(len(primals))) if wrt is None else wrt)
    return _jvp_function(f, names, tuple(primals))[0].__srcad_source__


def source(g, *example_args, callees=True):
    """The generated derivative source of ``g`` (made by :func:`grad` and friends): its
    function, then (``callees=True``) the generated parts of the functions it calls, each once.
    The specialisation made for ``example_args`` if given, else the one used last, else the
    one for Python-float arguments."""
    if hasattr(g, "__srcad_for_count__"):  # a *args function: one per number of arguments
        made = g.__srcad_counts__
        if not example_args and len(made) != 1:
            raise TypeError("the derivative of a function taking *args is made for each number "
                            "of arguments: give srcad.source example arguments")
        g = g.__srcad_for_count__(len(example_args)) if example_args else (
            next(iter(made.values())))
    g = getattr(made_of(g), "__srcad_aux_of__", made_of(g))
    if not is_transformed(g):
        raise TypeError(
            f"srcad.source expects a function made by srcad.grad/value_and_grad, got {g!r}; "
            "use srcad.ssa(f) to see a plain function's SSA form"
        )
    return transformed_of(g).source(*example_args, callees=callees)


def ssa(f):
    """The SSA form of ``f`` as Python source text."""
    f = transformed_of(f)._user if is_transformed(f) else entry.target(f)
    fn, _ = pipeline.to_ssa(f)
    ir.check(fn)
    return ir.to_source(fn)


_transforms = functions.ByFunction()  # (f, wrt, single, mode) -> its Transformed


def _transform(f, wrt, mode, backend="python"):
    """The transformed function for ``f``, ``wrt`` and ``mode``: made once, then the same one
    (with its specialisations) for every later ``grad(f)``, so a loop making gradients of
    one function transforms it once. Kept on ``f`` itself: it goes when ``f`` goes (on the
    shim :func:`srcad.frontend.entry.target` makes for a bound method or a rule function).
    Found first by ``wrt`` as given (no signature to read), then by the names it resolves to."""
    plain = _plain_wrt(wrt)  # True == 1 as a key: only ints and strings take this path
    given = f
    quick = (given, wrt, mode) + ((backend,) if backend != "python" else ())
    known = _transforms.get(quick) if plain and callable(given) else None
    if known is not None:
        return known
    if callable(f) and not is_transformed(f):
        f = entry.target(f)
    try:
        _, names, single = resolve_wrt(f, wrt) if callable(f) else (None, wrt, None)
        key = (f, names, single, mode) + ((backend,) if backend != "python" else ())
        known = _transforms.get(key)
    except (TypeError, SrcadError):
        known = key = None
    if known is None:
        known = Transformed(f, wrt, mode, backend)
        if key is not None:
            _transforms[key] = known
    if key is not None and plain and callable(given):
        _transforms[quick] = known
    return known


def _plain_wrt(wrt):
    return type(wrt) in (int, str) or type(wrt) is tuple and all(type(w) in (int, str) for w in wrt)


def clear_cache():
    """Forget every generated function (made again at the next call): gradients, forward-mode
    functions, the split parts of called helpers, the lowered form of every function read."""
    with pipeline.LOCK:
        for t in list(ALL):
            t._cache.clear()
            t._splits.clear()
            t._last = None
            if t._function is not None:
                dispatch.reset(t._function)
        _jvp_cache.clear()
        _jvp_targets.clear()
        _jvp_fast.clear()
        _jvp_trees.clear()
        _vjps.clear()
        for table in fast_calls.TABLES:  # (and the fronts of vjp and jvp)
            table.clear()
        _transforms.clear()
        pipeline.CALLEES.clear()
        pipeline.NUMBA_CALLEES.clear()
        pipeline.NUMBA_PLAIN_CALLEES.clear()
        pipeline.PLAIN_CALLEES.clear()
        jacobians_batched.clear()  # and its callees
        pipeline.LOWERED.clear()
        passed_records.clear()
        plain_classes.clear()
        plain_inits.clear()
        returned_records.clear()
    gc.collect()  # generated code in reference cycles (recursive helpers): and its lines
