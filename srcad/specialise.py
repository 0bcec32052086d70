"""The specialisation machinery behind the public API: :class:`Transformed`, a derivative of a
user function, callable like it.

A transformed function is specialised on the kinds of its arguments (Python scalars get plain
arithmetic, arrays get shape-correct gradients, code depends on the ranks of arrays and on the
kinds inside containers, and on which array arguments share a shape: :func:`cache_key`,
:func:`shape_partition`); each specialisation is generated once, compiled,
and cached on the transformed function. A call whose argument types were seen before costs one
dict lookup on top of the generated code itself (:class:`_ByRank` adds one more for arrays).
The dtype guard re-checks array dtypes on every call and gives each gradient its argument's
floating dtype; gradients handed to the user are writable. ``wrt`` is resolved and its values
checked here too. :meth:`Transformed.split_call` is how a derivative called inside
differentiated code is itself differentiated (``srcad.runtime.derivatives.derivative_fwd`` reaches
it through ``fn.__srcad__``).

Imports the pipeline and the layers below it (``srcad.backend.dispatch``, ``srcad.core``,
``srcad.errors``, ``srcad.frontend.source``) and :mod:`srcad.tree_keys` (the lookup for
containers and records); :mod:`srcad.api` is built on it.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref

import numpy as np

from . import pipeline, pytrees, tree_keys
from .backend import dispatch, emit
from .backend.keys import (  # noqa: F401 -- cache_key, plain_key: read here by the API
    _CONTAINERS,
    MAX_COMPARED,
    Ranks,
    cache_key,
    first_of,
    layouts,
    plain_key,
    shape_groups,
    shape_partition,
)
from .backend.standard import numpy_form
from .checks import check_arrays, check_holomorphic_wrt, check_wrt_value  # noqa: F401
from .core import env
from .core.kinds import any_duck, duck_array, foreign_array
from .errors import SourceUnavailableError, SrcadError, WrtError, at_user
from .frontend import entry
from .frontend.lower_callees import fixed_function
from .runtime import arrays, standard

ALL = weakref.WeakSet()  # every live transformed function, for clear_cache
MAX_SPECIALISATIONS = 64  # per function; past that the cache starts again


class Transformed:
    """A derivative of a user function: callable like the function itself."""

    def __init__(self, f, wrt, mode, backend="python"):
        if not callable(f):
            raise TypeError(f"srcad.{mode} expects a function, got {f!r}")
        if not is_transformed(f):
            f = entry.target(f)  # a method, a rule, a *args wrapper: through a shim
        # read now, to fail now if there is no source; the first transform uses this parse
        self._source = None if is_transformed(f) else pipeline.read(f)
        self._user = transformed_of(f)._user if is_transformed(f) else f
        self._f = transformed_of(f) if is_transformed(f) else f
        self._holomorphic, self._aux, self._mode, self._layout = _modes(mode)
        self._backend = backend  # "python" or "numba" (srcad.backend.numba_backend)
        self._python = None  # the Python backend's Transformed, for python_code (numba)
        self._params, self._wrt, self._single = resolve_wrt(f, wrt)
        self._cache = {}
        self._splits = {}  # (wrt, plain_key of the arguments) -> split_call's pair
        self._lock = threading.RLock()
        self._last = None
        self._reads = {}  # what the specialisations were made for (srcad.env): key -> Read
        self._own = {dispatch.USER: self._user}  # their code objects are read too
        self._own.update({} if self._f is self._user or is_transformed(self._f) else
                         {"__srcad_own__": self._f})
        functools.update_wrapper(self, self._user, updated=())
        self._function = None
        ALL.add(self)

    @property
    def function(self):
        """A plain function with ``f``'s signature that calls the right specialisation.

        Its body is one dict lookup on the classes of the arguments, then the call; the first
        specialisation of plain scalar code is compiled into it (see :mod:`srcad.dispatch`).
        """
        if self._function is None:
            self._function = dispatch.make(self)
            if self._reads:
                dispatch.guard(self._function, list(self._reads.values()))
        return self._function

    def __call__(self, *args, **kwargs):
        if self._reads:
            for read in self._reads.values():
                if read.current() is not read.value:
                    return self._env_changed(args, kwargs)
        if not kwargs:
            fn = self._cache.get(tuple(map(type, args)))
            if fn is not None:
                return fn(*args)
        return self._slow_call(args, kwargs)

    # Arguments of container types are keyed by their structure too (see cache_key): their
    # first call takes _slow_call, later ones a lookup on their structure (tree_keys.ByTree).

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _env_changed(self, args, kwargs):
        """A name the code was made for is bound to another object now: with the same
        fingerprint the code stands (it reads the name when it runs), else it is made again."""
        fast = False
        with self._lock:
            reads = list(self._reads.values())
            if env.changed(reads):
                self._forget()
            elif self._function is not None:
                dispatch.refresh(self._function)
                # the same objects on a second look (not a property making new ones): the
                # dispatcher's own path now passes line (0)
                fast = self._mode != "vjp" and all(r.current() is r.value for r in reads)
        if fast:
            return self._function(*args, **kwargs)
        return self._slow_call(args, kwargs)

    def split_call(self, wrt, args, kwargs):
        """The forward/backward pair of the code this derivative runs for these arguments,
        differentiated with respect to its parameters ``wrt``: how a call of it inside
        differentiated code is differentiated (``srcad.runtime.derivative_fwd``).

        Called at every run of that code (once per loop iteration, say): a call with plain
        arguments (numbers, arrays) of kinds seen before, while every name the code read is
        bound to the same object, finds its pair by one lookup (:func:`plain_key`)."""
        key = None if kwargs else plain_key(args)
        if key is not None:
            key = (tuple(wrt), key)
            entry = self._splits.get(key)
            if entry is not None and all(r.current() is r.value for r in self._reads.values()) \
                    and not env.stale(entry.reads):
                env.record_all(entry.reads)  # a derivative being made depends on them
                return entry
        bound = self._bind(args, kwargs)
        self._check_env()  # a name f's code read is bound to something else: made again
        code = self.python_code(bound)
        entry = _split_named(self._user, code, wrt, args, kwargs)
        if key is not None:
            self._splits[key] = entry
        return entry

    def python_code(self, bound):
        """The Python code this derivative runs for ``bound``, which a derivative of it
        differentiates (for the Numba backend: the Python backend's code for them)."""
        if self._backend == "python":  # (for arrays of the standard: its NumPy form)
            return numpy_form(self._specialise(bound).__srcad_raw__)
        if self._python is None:
            self._python = Transformed(self._f, self._wrt[0] if self._single else self._wrt,
                                       self._mode)
        return numpy_form(self._python._specialise(bound).__srcad_raw__)  # (plain: .into)

    def tangent_code(self, wrt, args):
        """The forward-mode function (``jvp(*args, *tangents)``) of the code this derivative
        runs for the positional arguments ``args``, along its parameters ``wrt``: the form of
        a ``derivative_jvp`` call (``srcad.runtime.derivatives``)."""
        bound = self._bind(args, {})
        self._check_env()
        code = numpy_form(self._specialise(bound).__srcad_raw__)
        return pipeline.callees_for(args).tangent_code(code, wrt, list(args))

    def tangent_call(self, wrt, args, kwargs, tangents):
        """``(value, tangent)`` of a call of this derivative along ``tangents`` (one per
        parameter in ``wrt``): the forward mode of the code it runs for these arguments (how
        a call of it inside code differentiated in forward mode is differentiated,
        ``srcad.runtime.derivative_jvp``)."""
        bound = self._bind(args, kwargs)
        self._check_env()
        code = numpy_form(self._specialise(bound).__srcad_raw__)
        return pipeline.callees_for(args).tangent_call(code, wrt, args, kwargs, tangents)

    def _check_env(self):
        with self._lock:
            if self._reads and env.changed(list(self._reads.values())):
                self._forget()
            elif self._function is not None:
                dispatch.refresh(self._function)

    def _forget(self):
        """Drop every specialisation (made again on the next call)."""
        self._cache.clear()
        self._splits.clear()
        self._last = None
        self._reads = {}
        if self._function is not None:
            dispatch.reset(self._function)

    def _add_reads(self, reads):
        """Guard the dispatcher on ``reads`` too (a new specialisation's)."""
        added = False
        for read in reads:
            known = self._reads.get(read.key)
            if known is None or known.print != read.print:
                added = added or known is None
                if known is not None:  # cannot happen after a check; be safe: start again
                    self._cache = {k: v for k, v in self._cache.items()
                                   if read in getattr(v, "__srcad_reads__", ())}
                self._reads[read.key] = read
        if added and self._function is not None:
            dispatch.guard(self._function, list(self._reads.values()))

    def _slow_call(self, args, kwargs):
        call_args = args[1:] if self._mode == "vjp" else args
        bound = self._bind(call_args, kwargs)
        fn = self._specialise(bound)
        if any_duck(call_args) or any_duck(kwargs.values()):  # Dask, CuPy: what they lack
            head = args[:1] if self._mode == "vjp" else ()  # a pullback's cotangent
            return arrays.on_duck_arrays(lambda: fn(*head, *bound.args, **bound.kwargs),
                                         self._f, bound)
        if any(map(foreign_array, call_args)):  # the array API's: what the standard lacks
            head = args[:1] if self._mode == "vjp" else ()
            return standard.on_standard_arrays(
                lambda: fn(*head, *bound.args, **bound.kwargs), self._f, bound.args,
                bound.kwargs)
        if self._mode != "vjp":
            tree_keys.remember(self._cache, self._lock, self._slow_call, args, bound, fn)
            return fn(*bound.args, **bound.kwargs)
        if kwargs:
            return fn(args[0], *bound.args, **bound.kwargs)
        fast, keep = tuple(map(type, args)), (self._cache, self._lock, self._slow_call)
        if not tree_keys.remember(*keep, args, bound, fn, 1) and len(args) == len(
                bound.arguments) + 1 and not any(t in _CONTAINERS for t in fast) \
                and not any(map(fixed_function, args)) \
                and not any(map(pytrees.is_record, args)):  # keyed on functions, records
            # the next call with these types takes the one lookup
            self._remember(fast, fn, bound.arguments.values(), offset=1)
        return fn(*args)

    def _remember(self, types, fn, values, offset=0):
        """Make ``fn`` the function for calls with arguments of ``types``: directly, or, when
        arrays are among them, through a :class:`_ByRank` (the code depends on their ranks)."""
        arrays = [v for v in values if type(v) is np.ndarray]
        if any_duck(values) or any(map(foreign_array, values)):
            return  # Dask, CuPy, the array API's: keyed on rank (dtype) too (cache_key)
        if not arrays:
            self._cache[types] = fn
            return
        by_rank = getattr(self._cache.get(types), "by_rank", None)
        if by_rank is None:
            by_rank = _ByRank(self, types, offset)
            self._cache[types] = by_rank.call
        inner = getattr(fn, "__srcad_unguarded__", None)
        if any(a.dtype.char != "d" for a in arrays):
            inner = None  # float32, say: the guarded function casts the gradients to it
        by_rank.fns[layouts(arrays)] = (
            (inner, True) if inner is not None else (fn, False))

    def _bind(self, args, kwargs):
        sig = inspect.signature(self._user)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self._f.__name__}(): {exc}") from None
        bound.apply_defaults()
        for name in self._wrt:  # an int given for a wrt parameter: differentiated as a float
            value = bound.arguments.get(name)
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                bound.arguments[name] = float(value)
        if any_duck(bound.arguments.values()) or any(
                type(v) in _CONTAINERS for v in bound.arguments.values()):
            arrays.join_library(bound.arguments, self._wrt)  # NumPy wrt arrays: to Dask's
        return bound

    def _specialise(self, bound):
        values = dict(bound.arguments)
        records = pytrees.records_among(values, self._wrt)
        if records:  # dataclasses, named tuples: differentiated as dicts (srcad.pytrees)
            values = {k: pytrees.flatten(v) if k in records else v for k, v in values.items()}
        for name in self._wrt:
            check_wrt_value(self._user, name, values.get(name))
        check_arrays(self._user, values)
        if self._holomorphic:
            for name in self._wrt:
                check_holomorphic_wrt(self._user, name, values.get(name))
        key, alike = cache_key(list(values.values())), shape_groups(values)  # (alike: keyed)
        if records:
            key += (tuple(pytrees.shape(r) for r in records.values()),)
        with self._lock:
            fn = self._cache.get(key)
            if fn is None and len(self._cache) >= MAX_SPECIALISATIONS:
                self._cache.clear()  # bounded: a function called with ever new kinds
            if fn is not None:
                env.record_all(fn.__srcad_reads__)  # a derivative of this one depends on them
            if fn is None:
                target = self._f
                with env.collecting() as reads:
                    env.record_all(env.code_reads(self._own))  # f.__code__ = g.__code__
                    if is_transformed(target):
                        # a derivative of a derivative: transform the generated code itself
                        inner = transformed_of(target)
                        inner._check_env()
                        target = inner.python_code(bound)
                        full = inspect.signature(target).bind(*bound.args, **bound.kwargs)
                        full.apply_defaults()
                        values = dict(full.arguments)
                    parsed, self._source = self._source if target is self._f else None, None
                    if records and target is self._f:  # a derivative's code reads dicts
                        parsed = pytrees.rewrite(parsed or pipeline.read(target), records)
                    fn, text = pipeline.adjoint(target, self._wrt, values, self._mode,
                                                as_tuple=not self._single, parsed=parsed,
                                                backend=self._backend,
                                                holomorphic=self._holomorphic, alike=alike,
                                                aux=self._aux)
                raw = getattr(fn, "py_func", fn)  # the Numba backend: its Python code
                fn.__srcad_source__ = text
                fn.__srcad_raw__ = raw
                if records:
                    fn = pytrees.wrap(fn, self._params, records, self._layout, self._single,
                                      self._wrt)
                    fn.__srcad_source__, fn.__srcad_raw__ = text, raw
                if _has_array_wrt(values, self._wrt):
                    fn = _guard_dtypes(fn, self._f, [self._params.index(w) for w in self._wrt],
                                       self._layout, _ducks(values), self._single)
                fn.__srcad_reads__ = tuple(reads.values())
                self._cache[key] = fn
                self._add_reads(fn.__srcad_reads__)
                if key[-1:] and isinstance(key[-1], Ranks):
                    # the one-lookup path, for plain types (containers always take this path;
                    # vjp's calls carry the seed: see _slow_call)
                    if self._mode != "vjp" and len(key) == len(values) + 1:
                        self._remember(key[:-1], fn, bound.arguments.values())
                elif (fn is raw and self._function is not None and self._mode != "vjp"
                      and self._backend == "python"):
                    dispatch.inline(self._function, key, raw)
                elif (self._backend == "numba" and self._function is not None
                      and self._mode != "vjp" and hasattr(fn, "__srcad_entry__")):
                    dispatch.inline_call(self._function, key, fn.__srcad_entry__)
            self._last = self._cache[key]
        return self._cache[key]

    def source(self, *example_args, callees=True):
        self._check_env()
        if example_args:
            self._specialise(self._bind(example_args, {}))
        elif self._last is None:
            examples = [1.0] * len(self._params)
            self._specialise(self._bind(examples[: _n_required(self._user)], {}))
        return emit.program_text(self._last) if callees else self._last.__srcad_source__

    def __repr__(self):
        return f"<srcad.{self._mode} of {self._user.__qualname__} wrt {self._wrt}>"


class _ByRank:
    """The cache entry for one tuple of argument types that includes arrays: the generated
    function for each tuple of the arrays' ranks and dtypes and of which of them have one
    shape (:func:`shape_partition`, as pairs), looked up on every call.
    A call with other ranks or kinds, or not positional, takes the full path, which makes
    the code for new ranks and refuses an integer array given for a ``wrt`` parameter; a
    kind seen before skips that check here. ``call`` is the entry itself: a plain function
    (an object's ``__call__`` costs more) that reads exactly the array positions."""

    def __init__(self, owner, types, offset=0):
        positions = [i for i, t in enumerate(types) if t is np.ndarray and i >= offset]
        self.fns = {}  # ((ndim, dtype char), ...) -> (function, copy read-only views)
        # each array's rank, dtype and the first of the arrays that has its shape
        shapes = "".join(f"        s{k} = args[{i}].shape\n"
                         for k, i in enumerate(positions[:MAX_COMPARED]))
        key = "".join(f"(args[{i}].ndim, args[{i}].dtype.char, {first_of(k)}), "
                      for k, i in enumerate(positions))
        text = ("def call(*args, **kwargs):\n"
                "    if not kwargs:\n"
                f"{shapes}"
                f"        entry = fns.get(({key}))\n"
                "        if entry is not None:\n"
                "            if entry[1]:\n"
                "                return writable(entry[0](*args))\n"
                "            return entry[0](*args)\n"
                "    return slow(args, kwargs)\n")
        namespace = {"fns": self.fns, "writable": _writable, "slow": owner._slow_call}
        exec(compile(text, "<srcad rank lookup>", "exec"), namespace)  # noqa: S102
        self.call = namespace["call"]
        self.call.by_rank = self


def prepare(transformed, args):
    """Make (or find) ``transformed``'s specialisation for the positional arguments ``args``
    (for a ``vjp`` code, those after the cotangent) without running it: whatever refuses the
    function for them refuses now, before ``srcad.vjp`` runs the function for its value (an
    attribute written, say: its store would have happened). Code already made for the kinds
    of ``args``, while every name it read is bound as it was, is found by its key alone (the
    full path costs ~50 µs for a dict; ``srcad.vjp`` asks once per classes of arguments)."""
    if all(r.current() is r.value for r in transformed._reads.values()):
        try:
            if cache_key(list(args)) in transformed._cache:
                return  # made for exactly these kinds: nothing refuses them
        except Exception:  # noqa: BLE001 - said by the full path, as the call would say it
            pass
    transformed._check_env()
    transformed._specialise(transformed._bind(args, {}))


def is_transformed(obj):
    return isinstance(obj, Transformed) or isinstance(getattr(obj, "__srcad__", None),
                                                      Transformed)


def transformed_of(obj):
    return obj if isinstance(obj, Transformed) else obj.__srcad__


def _n_required(f):
    sig = inspect.signature(f)
    return sum(1 for p in sig.parameters.values()
               if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def wrt_alias(wrt, argnums=None, argnum=None, default=0):
    """``wrt``, or what JAX's ``argnums`` or autograd's ``argnum`` give in its place (a list
    read as a tuple)."""
    given = [a for a in (argnums, argnum) if a is not None]
    if not given:
        return wrt
    if len(given) > 1 or wrt != default:
        raise TypeError("give wrt, argnums or argnum, not more than one")
    return tuple(given[0]) if isinstance(given[0], list) else given[0]


def resolve_wrt(f, wrt):
    code = getattr(f, "__code__", None)
    filename = code.co_filename if code else None
    line = code.co_firstlineno if code else None
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        raise SourceUnavailableError(f"cannot read the parameters of {f!r}") from None
    params = [p.name for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise WrtError("wrt is empty", filename=filename, lineno=line,
                       hint="name at least one parameter, e.g. wrt=0 or wrt=('x', 'w')")
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise WrtError(f"wrt must be parameter positions or names, got {item!r}",
                           filename=filename, lineno=line, hint=f"parameters: {params}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params) and any(
                    p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
                raise WrtError(
                    f"wrt={item}: {f.__name__} takes *args, and srcad differentiates with "
                    "respect to named parameters only", filename=filename, lineno=line,
                    hint="name the parameters (def f(x, y)); a function taking *args is "
                    "differentiated when the function you differentiate calls it")
            if not -len(params) <= item < len(params):
                raise WrtError(
                    f"wrt={item} is out of range: {f.__name__} has {len(params)} parameters",
                    filename=filename, lineno=line, hint=f"parameters: {params}")
            name = params[item]
        else:
            if item not in params:
                raise WrtError(f"wrt names {item!r}, which is not a parameter of "
                               f"{f.__name__}", filename=filename, lineno=line,
                               hint=f"parameters: {params}")
            name = item
        if name in names:
            raise WrtError(f"wrt names {name!r} twice", filename=filename, lineno=line,
                           hint="list each parameter once")
        names.append(name)
    return params, tuple(names), single


def _modes(mode):
    """``(holomorphic, aux, mode, layout)`` of a mode as :func:`srcad.api._transform` names it:
    ``grad(f, holomorphic=True)``'s "grad_holomorphic" (see :func:`srcad.api.grad`);
    ``has_aux=True`` of ``f`` returning pairs (:mod:`srcad.aux_calls`): "grad_aux" (aux
    "return": the code returns the aux too), "vjp_first" (aux "first": the pairs' first items
    differentiated, vjp's pullback); ``layout``: what the code returns (:func:`_cast_grads`)."""
    holomorphic = mode.endswith("_holomorphic")
    aux = {"_aux": "return", "_first": "first"}.get(mode[mode.rfind("_"):])
    mode = mode.removesuffix("_holomorphic").removesuffix("_aux").removesuffix("_first")
    return holomorphic, aux, mode, mode + "_aux" if aux == "return" else mode


def _cast_grads(result, casts, mode, single):
    """``result`` with the gradient of the ``k``-th ``wrt`` parameter cast to ``casts[k]``."""
    if mode in ("value_and_grad", "value_and_grad_aux"):
        return result[0], _cast_grads(result[1], casts, "grad", single)
    if mode == "grad_aux":
        return _cast_grads(result[0], casts, "grad", single), result[1]
    grads = [result] if single else list(result)
    for k, dtype in casts.items():
        g = grads[k]
        if dtype is complex:
            grads[k] = complex(g)
        elif isinstance(g, np.ndarray) or duck_array(g):
            grads[k] = g.astype(dtype, copy=False)
        elif isinstance(g, (int, float, complex, np.number)):  # an int: x * n's gradient n
            grads[k] = dtype.type(g)
    return grads[0] if single else tuple(grads)


def _writable(result):
    """Gradients the user may change in place: a broadcast view (the gradient of np.sum, say)
    is copied; anything else is returned as it is."""
    if type(result) is tuple:
        for r in result:  # the common case first: nothing to copy, the tuple as it is
            if isinstance(r, np.ndarray) and r.base is not None and not r.flags.writeable:
                return tuple(_writable(r) for r in result)
        return result
    if isinstance(result, np.ndarray):
        return result if result.base is None or result.flags.writeable else result.copy()
    if isinstance(result, tuple):
        return tuple(_writable(r) for r in result)
    return result


def _has_array_wrt(values, wrt):
    return any(isinstance(values.get(w), (np.ndarray, complex, np.complexfloating)) or
               duck_array(values.get(w)) or
               isinstance(values.get(w), np.floating) and values[w].dtype.char != "d"
               for w in wrt)


def _ducks(values):
    """The types of the duck arrays (Dask, CuPy) among ``values``: the dtype guard checks them
    too (none for NumPy code, whose guard stays as it was)."""
    return tuple({type(v) for v in values.values() if duck_array(v)})


def _guard_dtypes(fn, f, positions, mode, ducks, single):
    """Re-check array dtypes on every call (the cache key holds only the types), and give
    each gradient its argument's floating dtype (a float32 argument gets a float32 gradient,
    a complex argument a complex one, as in JAX and autograd; the code computes in float64
    or complex128)."""
    offset = 1 if mode == "vjp" else 0
    params = list(inspect.signature(f).parameters)
    arraylike = (np.ndarray, np.floating, np.complexfloating) + ducks

    def guarded(*args, **kwargs):
        casts = None
        for k, p in enumerate(positions):
            if p + offset < len(args):
                a = args[p + offset]
                if isinstance(a, arraylike):
                    if a.dtype.kind not in "fc":
                        check_wrt_value(f, params[p], a)
                    elif a.dtype.char != "d":  # float32, complex: the gradient of that dtype
                        casts = (casts or {})
                        casts[k] = a.dtype
                elif type(a) is complex:  # a complex argument has a complex gradient
                    casts = (casts or {})
                    casts[k] = complex
        result = fn(*args, **kwargs)
        if casts:
            result = _cast_grads(result, casts, mode, single)
        if mode == "grad_aux":  # the aux as the function made it (a view stays a view)
            return _writable(result[0]), result[1]
        if mode == "value_and_grad_aux":
            return result[0], _writable(result[1])
        return _writable(result)

    guarded.__srcad_source__ = fn.__srcad_source__
    guarded.__srcad_raw__ = fn.__srcad_raw__
    guarded.__srcad_reads__ = ()
    guarded.__srcad_unguarded__ = fn  # for _ByRank, whose key holds the dtypes' kinds
    return guarded


def _split_named(user, code, wrt, args, kwargs):
    """The split of a derivative's ``code`` (differentiated again as a callee); an error in
    srcad's code there names the user's function ``user`` it was made of
    (:func:`srcad.errors.at_user`), and so does one met when its parts run again."""
    try:
        entry = pipeline.callees_for(args).split_call(code, wrt, args, kwargs)
    except SrcadError as exc:
        raise at_user(exc, user) from None
    entry.srcad_user = user  # (read by srcad.runtime.derivatives._split_of)
    return entry
