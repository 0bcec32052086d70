"""Jacobians, Hessians and Hessian-vector products, composed from ``vjp``, ``jvp`` and
``grad``. Shapes follow JAX: the Jacobian of ``f: R^n -> R^m`` (with any input and output
shapes) has shape ``output.shape + input.shape``.

Each function made here transforms ``f`` once per specialisation, like ``grad``: a
:class:`_Jacobian` holds the transformed functions it calls (``grad`` for a scalar
output; otherwise ``f``'s forward part once and its backward part a row at a time, or the
``vjp`` code a row at a time; the forward-mode code a column at a time) and calls them
directly, so a call costs the passes it needs and little more.

Imports ``srcad.api``, ``srcad.pipeline`` (the split of ``f``),
:mod:`srcad.backend.dispatch_fronts` (the function returned), :mod:`srcad.jacobian_trees`
(forward mode over trees), :mod:`srcad.tree_jacobians` (trees' Jacobians kept by
structure), :mod:`srcad.written_state` (a function writing into what it is given) and
``srcad.specialise`` (its own layer), ``srcad.core``, ``srcad.errors``,
``srcad.transform.tangent_only`` and :mod:`srcad.number_columns` (a Jacobian of numbers'
passes, the tangent alone).
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import (
    api,
    fast_calls,
    fast_checks,
    jacobian_trees,
    jacobians_batched,
    jacobians_standard,
    nested,
    nested_vjp,
    number_columns,
    pipeline,
    pytrees,
    tree_jacobians,
    written_state,
)
from . import jacobian_leaves as leaves
from .backend import dispatch_fronts
from .core import functions
from .core.kinds import foreign_array, kind_of_value, rank_of_value
from .errors import MissingRuleError, NonScalarOutputError, SrcadError
from .runtime.standard import namespace_of
from .specialise import Transformed, cache_key, check_arrays, check_wrt_value, plain_key
from .transform.tangent_only import NumbersOnly

_NUMBERS = frozenset({float, int, np.float64})

__all__ = ["jacobian", "jacfwd", "jacrev", "hessian", "hvp", "elementwise_grad",
           "hessian_vector_product"]


def jacobian(f, wrt=0, mode="rev", *, argnums=None, argnum=None, backend="python"):
    """A function returning the Jacobian of ``f`` w.r.t. the ``wrt`` argument(s).

    ``mode="rev"`` builds it a row at a time with ``vjp`` (cheap for few outputs),
    ``mode="fwd"`` a column at a time with ``jvp`` (cheap for few inputs). A tuple ``wrt``
    gives a tuple of Jacobians. ``backend="numba"`` (forward mode): the batched code (the
    columns in one pass), else the columns by ``jvp``'s code, compiled by Numba.
    """
    if mode not in ("rev", "fwd"):
        raise ValueError(f"mode must be 'rev' or 'fwd', not {mode!r}")
    wrt = api.wrt_alias(wrt, argnums, argnum)
    if written_state.writer(f) is not None:  # f writes into what it is given: copies, f run after
        return written_state.writer(f).returning(lambda g: jacobian(g, wrt, written_state.mode_for(
            g, mode), backend=backend))
    if backend != "python":
        api._numba_allowed(f, False, backend)
        if mode != "fwd":
            raise SrcadError("backend='numba' makes Jacobians in forward mode only",
                             hint="use jacfwd(f, backend='numba'), or backend='python'")
    jac = _Jacobian(f, wrt, mode, backend)
    call = jac.__call__
    numbers = jac.numbers

    @functools.wraps(f)
    def jacobian_of(*args):
        fast = numbers.get((type(args[0]),) if len(args) == 1 else tuple(map(type, args)))
        if fast is not None:  # numbers whose output is a number by their kinds
            return fast(*args)
        return call(*args)

    jacobian_of.__srcad_plain__ = _plain(f, wrt)
    return _front(f, jac, jacobian_of, call)


def _front(f, jac, fallback, call=None):
    """The function the user holds: a front that runs the code made for numbers itself
    (:mod:`srcad.backend.dispatch_fronts`; ``call``: what ``fallback`` calls after its own
    lookup), else ``fallback``."""
    front = None
    if jac.backend == "python":
        front = dispatch_fronts.make(f, fallback, jac.numbers, call)
    if front is None:
        return fallback
    jac.front = front
    return front


def _plain(f, wrt):
    """What srcad reads for a Jacobian (or Hessian) it differentiates or that is called in
    differentiated code: :func:`srcad.nested.plain_jacobian`, made at the first need."""
    made = []

    def plain():
        if not made:
            made.append(nested.plain_jacobian(f, wrt))
        return made[0]

    return plain


def jacrev(f, wrt=0, *, argnums=None, argnum=None):
    """``jacobian(f, wrt, mode="rev")``, as JAX users know it."""
    return jacobian(f, api.wrt_alias(wrt, argnums, argnum), mode="rev")


def jacfwd(f, wrt=0, *, argnums=None, argnum=None, backend="python"):
    """``jacobian(f, wrt, mode="fwd")``, as JAX users know it (``backend``: see
    :func:`jacobian`)."""
    return jacobian(f, api.wrt_alias(wrt, argnums, argnum), mode="fwd", backend=backend)


def hessian(f, wrt=0, mode="fwd", *, argnums=None, argnum=None):
    """The Hessian of the scalar ``f``: forward over reverse (``jacfwd(grad(f))``) by default;
    ``mode="rev"`` differentiates the gradient in reverse mode again. ``argnums``/``argnum``:
    other names for ``wrt``, as in :func:`srcad.grad`."""
    wrt = api.wrt_alias(wrt, argnums, argnum)
    if written_state.writer(f) is not None:  # f writes into what it is given: copies, f run after
        return written_state.writer(f).returning(lambda g: hessian(g, wrt, mode))
    grad_f = api.grad(f, wrt=wrt)
    star_of = getattr(grad_f, "__srcad_for_count__", None)
    if star_of is None:
        return _hessian_of(f, grad_f, wrt, mode)
    by_count = {}  # f takes *args: the Hessian of the gradient made for each count

    @functools.wraps(f)
    def star_hess(*args):
        if len(args) not in by_count:
            by_count[len(args)] = _hessian_of(f, star_of(len(args)), wrt, mode)
        return by_count[len(args)](*args)
    star_hess.__srcad_plain__ = _plain(grad_f, wrt)  # as _hessian_of's
    return star_hess


def _hessian_of(f, grad_f, wrt, mode):
    jac = _Jacobian(grad_f, wrt, mode)
    fallback = []  # the reverse-over-reverse Jacobian, made if a rule lacks forward mode

    numbers = jac.numbers

    @functools.wraps(f)
    def hess(*args):
        fast = numbers.get((type(args[0]),) if len(args) == 1 else tuple(map(type, args)))
        if fast is not None:  # numbers of types seen before
            return fast(*args)
        return general(*args)

    def general(*args):
        if fallback:
            return fallback[0](*args)
        try:
            return jac(*args)
        except MissingRuleError:
            if mode == "rev":
                raise
            fallback.append(_Jacobian(grad_f, wrt, "rev"))
            return fallback[0](*args)

    hess.__srcad_plain__ = _plain(grad_f, wrt)
    jac.general = general  # (what the closures kept for trees fall back on)
    return _front(f, jac, hess)


def elementwise_grad(f, wrt=0, *, argnums=None, argnum=None):
    """The gradient of the sum of ``f``'s outputs (autograd's ``elementwise_grad``): for an
    element-wise ``f``, each output's derivative with respect to its own input, in one
    reverse pass (``jax.vmap(jax.grad(f))`` computes the same for an element-wise ``f``)."""
    wrt = api.wrt_alias(wrt, argnums, argnum)

    @functools.wraps(f)
    def elementwise(*args):
        value, pullback = api.vjp(f, *args, wrt=wrt)
        return pullback(np.ones(np.shape(value)) if np.ndim(value) else 1.0)

    return elementwise


def hessian_vector_product(f, wrt=0, *, argnums=None, argnum=None):
    """autograd's name: ``hessian_vector_product(f)(*args, v)`` is ``hvp(f)(*args, v)``."""
    return hvp(f, wrt=api.wrt_alias(wrt, argnums, argnum))


_POINT = object()  # hvp(f) without a point: the curried form
_grads = functions.ByFunction()  # (f, wrt) -> grad(f, wrt), for hvp


def hvp(f, x=_POINT, v=_POINT, wrt=0):
    """Hessian-vector product ``H(x) · v`` of the scalar ``f`` without forming ``H``.

    ``hvp(f, x, v)``: ``x`` is the argument tuple (a single non-tuple argument is wrapped);
    ``v`` is shaped like the ``wrt`` argument. ``hvp(f, wrt=...)`` alone returns a function
    called like ``hessian(f)``, with the arguments as they are, then ``v``:
    ``hvp(f)(x, y, v)``. Forward over reverse: one forward-mode pass over the gradient code.
    """
    if x is _POINT and v is _POINT:
        @functools.wraps(f)
        def hvp_f(*args_then_v):
            if not args_then_v:
                raise TypeError("hvp(f) takes f's arguments, then the vector v")
            return hvp(f, tuple(args_then_v[:-1]), args_then_v[-1], wrt=wrt)

        hvp_f.__srcad_plain__ = nested_vjp.plain_hvp_maker(f, wrt)
        return hvp_f
    if v is _POINT:
        raise TypeError("hvp(f, x, v) takes the point x and the vector v (or neither: "
                        "hvp(f)(*args, v))")
    args = x if isinstance(x, tuple) else (x,)
    if written_state.writer(f) is not None:  # f writes into what it is given: copies, f run after
        return written_state.writer(f).run(args, {}, lambda g, a, k: hvp(g, a, v, wrt=wrt))
    plain = type(wrt) is int or type(wrt) is str
    found = fast_calls.hvp(f, wrt, args, v) if plain else None
    if found is not None:  # numbers of types seen before
        return found[1]
    grad_f = _grads.get((f, wrt)) if plain else None
    if grad_f is None:
        grad_f = api.grad(f, wrt=wrt)
        if plain:
            _grads[(f, wrt)] = grad_f
    try:
        found = api.jvp(grad_f, args, (v,), wrt=(wrt,))[1]
        if plain:
            fast_calls.hvp_closure(f, wrt, args, v, grad_f)
            tree_jacobians.hvp_alone(f, wrt, args, v, grad_f, found)  # (containers)
        return found
    except MissingRuleError:
        # a rule without a forward form: the Hessian by reverse over reverse, times v
        h = jacobian(grad_f, wrt, mode="rev")(*args)
        space = namespace_of((h,))
        if space is not None:  # arrays of the standard: the product in their namespace
            rank = getattr(v, "ndim", 0)
            return space.tensordot(h, v, axes=rank) if rank else h * v
        h = np.asarray(h)
        shape = np.shape(v)
        product = np.tensordot(h, np.asarray(v), axes=len(shape)) if shape else h * v
        return float(product) if np.ndim(product) == 0 else product


hvp = fast_calls.short_hvp(hvp, _POINT)  # its front for one number, in the frame called
_copies = fast_calls.copies


def _scalar_rows(value, grads, args, index):
    """The Jacobian of an output of one number, from ``value_and_grad``'s gradients: the
    gradients themselves for a 0-d output; for an array of one element (which ``grad``
    takes as a number), each shaped ``output shape + argument shape``, as for any array."""
    copies = _copies(grads, args, index)
    out_shape = np.shape(value)
    if not out_shape:
        return copies
    return [np.reshape(np.asarray(g, dtype=float), out_shape + np.shape(args[p]))
            for g, p in zip(copies, index)]


def _float_rows(out_shape, backward, ctx, args, index):
    """The Jacobian, a row per element of an output of float64s of ``out_shape``, from one
    forward part's context: each row a backward pass from a one-hot seed (a new array each,
    as a backward part may add into what it is given). Each Jacobian is
    ``out_shape + the argument's shape``, of floats (the arguments are floats and float64
    arrays: the gradients are too)."""
    rows = []
    for i in range(out_shape[0]) if len(out_shape) == 1 else np.ndindex(*out_shape):
        seed = np.zeros(out_shape)
        seed[i] = 1.0
        rows.append(backward(ctx, seed))
    if len(index) == 1:
        return [_stacked(rows, out_shape + np.shape(args[index[0]]))]
    return [_stacked([r[k] for r in rows], out_shape + np.shape(args[p]))
            for k, p in enumerate(index)]


def _stacked(rows, shape):
    """The rows as one array of floats of ``shape``."""
    out = np.array(rows, dtype=float)
    return out if out.shape == shape else out.reshape(shape)


def _position(f, w):
    if isinstance(w, int):
        return w
    user = f._user if isinstance(f, Transformed) else f
    params = list(inspect.signature(user).parameters)
    return params.index(w)


class _Jacobian:
    """The Jacobian of ``f`` w.r.t. ``wrt``: what ``jacobian(f, wrt, mode)`` calls.

    It resolves ``wrt`` and makes its transformed functions on the first call and keeps them
    (each caches its own specialisations, made again when a name the code read changes). In
    reverse mode a scalar output takes one ``grad`` call; the argument kinds (the
    cache key) for which the output was not a scalar take the ``vjp`` code directly next time.
    """

    def __init__(self, f, wrt, mode, backend="python"):
        self.f, self.mode, self.backend = f, mode, backend
        self.single = not isinstance(wrt, (tuple, list))
        self.wrt = (wrt,) if self.single else tuple(wrt)
        self.index = None
        self.grad = self.vjp = None
        self.vector = set()  # cache keys for which the output was not a scalar
        self.target = self.names = None
        self.checked = set()  # argument types found to hold no record where wrt points
        self.no_split = set()  # plain keys (srcad.specialise.plain_key) taking the vjp code
        self.splits = {}  # plain key -> f's split (srcad.transform.calls.Split), code, fresh
        self.rows_of = set()  # plain keys of float arguments whose output was a float array
        self.grad_code = None  # f's grad (Transformed), for outputs that are numbers by kinds
        self.scalar_out = {}  # plain key -> grad's specialisation for them (a number out)
        self.numbers = {}  # types of numbers -> the Jacobian's call for them (_numbers_call)
        self.not_scalar_out = set()  # plain keys whose grad code checks its output at run time
        self.batched = None  # the batched forward-mode code (srcad.jacobians_batched)
        self.general = None  # a Hessian's own path (its fallback to reverse mode), or None

    def __call__(self, *args):
        if self.index is None:
            self.index = tuple(_position(self.f, w) for w in self.wrt)
        types = tuple(map(type, args))
        if types not in self.checked:
            if any(map(foreign_array, args)):  # the array API's: made in their namespace
                user = self.f._user if isinstance(self.f, Transformed) else self.f
                check_arrays(user, dict(enumerate(args)))  # plain NumPy code: refused so
                result = jacobians_standard.in_namespace(self, args)
                return result[0] if self.single else tuple(result)
            if any(p < len(args) and pytrees.is_tree(args[p]) for p in self.index):
                leaves.plain_only(self.backend)
                return tree_jacobians.call(self, args)  # (kept by the trees' structure)
            self.checked.add(types)  # no container or record where wrt points
        if self.mode == "rev":
            result = self._rev(args)
        else:
            result = self._fwd(args)
        if isinstance(result, leaves.Whole):
            return result.value
        return result[0] if self.single else tuple(result)

    def _rev(self, args):
        index = self.index
        key = plain_key(args)
        if key is not None:
            found = self.scalar_out.get(key)
            if found is not None and found[1]():  # grad's code: no value computed
                return _copies(found[0](*args), args, index)
            if key in self.rows_of:
                # float arguments whose output was an array of floats: no scalar attempt first
                return self._rows(args, index, key)
            if key not in self.not_scalar_out:
                fn = self._scalar_out(args, key)
                if fn is not None:
                    return _copies(fn(*args), args, index)
        if not self.vector and self.grad is not None:  # every output so far was a scalar
            try:
                value, grads = self.grad(*args)
            except NonScalarOutputError:
                pass
            else:
                return _scalar_rows(value, grads, args, index)
        key = cache_key(args)
        if key not in self.vector:
            if self.grad is None:
                self.grad = api.value_and_grad(self.f, wrt=index)
            try:
                value, grads = self.grad(*args)  # refuses an output that is not a scalar
            except NonScalarOutputError:
                self.vector.add(key)
            else:
                return _scalar_rows(value, grads, args, index)
        return self._rows(args, index)

    def _scalar_out(self, args, key):
        """``grad``'s code for these plain arguments when its output is a number by their
        kinds (the Jacobian is the gradient: no value needed), kept by their plain key."""
        self.not_scalar_out.add(key)  # until found otherwise below
        if not functions.is_user_function(self.f) or not api._all_given(self.f, args) or any(
                type(args[p]) is int for p in self.index):  # an int wrt: the full path's float
            return None
        t = self.grad_code = self.grad_code or api._transform(self.f, self.index, "grad")
        t._check_env()  # a name the code read is bound to something else: made again
        fn = t._specialise(t._bind(args, {}))
        if not fast_calls.number_out(fn.__srcad_raw__):
            return None
        self.not_scalar_out.discard(key)
        inner = getattr(fn, "__srcad_unguarded__", None)  # float64 arrays: _copies copies
        plain = inner is not None and all(part[1] == "d" for part in key[len(args):])
        self.scalar_out[key] = (inner if plain else fn, fast_calls.fresh(fn.__srcad_reads__))
        if len(key) == len(args):  # numbers only (no arrays: plain_key is their types)
            self.numbers[key] = fast_calls.rev_numbers(self, key, fn)
        else:  # arrays too: float64 ones found by their ranks, dtypes and shared shapes
            fast_calls.rev_arrays_entry(self, args, key, inner if plain else None, fn)
        return fn

    def _rows(self, args, index, key=None):
        """The Jacobian a row at a time, for arguments whose output is not a scalar."""
        pair = self._split(args, key)
        if pair is not None:  # one forward part, then a backward part per row
            value, ctx = pair[0](*args)
            if key is not None and type(value) is np.ndarray and value.dtype.char == "d" and (
                    value.ndim):  # (key is in rows_of: float arguments, checked below before)
                return _float_rows(value.shape, pair[1], ctx, args, index)
            backward = pair[1]
            if len(index) == 1:
                def pullback(seed, *_):
                    return (backward(ctx, seed),)
            else:
                def pullback(seed, *_):
                    return backward(ctx, seed)
        else:
            if self.vjp is None:
                self.vjp = api._transform(self.f, index, "vjp")
            value = self.f(*args)
            pullback = self.vjp
        if pytrees.is_tree(value):
            return self._tree(args, value)
        if pair is not None and type(value) is np.ndarray and value.dtype.char == "d" and (
                value.ndim):
            plain = plain_key(args)
            if all(part[1] == "d" for part in plain if type(part) is tuple):
                self.rows_of.add(plain)  # float arrays in and out: the next call comes here
                return _float_rows(value.shape, pair[1], ctx, args, index)
        out_shape = np.shape(value)
        rows = [[] for _ in index]
        for i in np.ndindex(*out_shape) if out_shape else [()]:
            seed = np.zeros(out_shape)
            seed[i] = 1.0
            grads = pullback(seed if out_shape else 1.0, *args)
            for k, g in enumerate(grads):
                rows[k].append(np.asarray(g, dtype=float))
        return [np.reshape(np.stack(r), out_shape + np.shape(args[p]))
                if out_shape or np.shape(args[p]) else float(r[0])
                for r, p in zip(rows, index)]

    def _split(self, args, key=None):
        """``f``'s forward and backward parts for plain arguments (numbers and float arrays
        by position) of a plain function: the rows share one forward part (its context only
        read) instead of a ``vjp`` pass each. None otherwise (``vjp``'s code, row by row)."""
        key = plain_key(args) if key is None else key
        if key is None or key in self.no_split:
            return None
        entry, code, fresh = self.splits.get(key, (None, None, None))
        if entry is not None and fresh() and (
                code is getattr(self.f, "__code__", None)  # f.__code__ = g.__code__: made again
                and entry.defaults[0] is self.f.__defaults__
                and entry.defaults[1] is self.f.__kwdefaults__):
            return entry.fwd.cell_contents, entry.bwd.cell_contents
        if not functions.is_user_function(self.f) or not api._all_given(self.f, args):
            self.no_split.add(key)
            return None
        params = list(inspect.signature(self.f).parameters)
        for p in self.index:
            if type(args[p]) is int:  # the full path differentiates it as a float
                self.no_split.add(key)
                return None
            check_wrt_value(self.f, params[p], args[p])  # an integer array: refused here too
        values = dict(zip(params, args))
        try:
            entry = pipeline.CALLEES.split(
                self.f, [params[p] for p in self.index],
                {p: kind_of_value(v) for p, v in values.items()}, None,
                {p: rank_of_value(v) for p, v in values.items()})
        except SrcadError:
            self.no_split.add(key)  # the full path says what it refuses, or does it another way
            return None
        # made again when a name it read means something else, or f's code is replaced
        self.splits[key] = (entry, self.f.__code__, fast_checks.fresh(entry.reads))
        return entry.fwd.cell_contents, entry.bwd.cell_contents

    def _fwd(self, args):
        index = self.index
        # all the columns in one pass where every form has one (and Numba compiles it)
        if jacobians_batched.worth(args, index):
            self.batched = self.batched or jacobians_batched.batched(self.f, index, self.backend)
            found = jacobians_batched.jacobian(self.batched, args)
            if found is not None:
                jacobians_batched.one_vector(self, args, found)  # (the next call of one vector)
                jacobians_batched.plain_front(self, args, found)  # (of these types)
                return found
        if self.names is None:
            known = api._jvp_targets.get((self.f, index, len(args)))
            self.target, _, self.names = known or api._jvp_target(self.f, index, len(args))
        fn, full = api._jvp_function(self.target, self.names, args, self.backend)
        if all(type(args[q]) is float for q in index):  # numbers: one pass each, no arrays
            seeds = [tuple([1.0 if j == k else 0.0 for j in range(len(index))])
                     for k in range(len(index))]
            result, types = [], tuple(map(type, args))
            kept = len(full) == len(args) and all(t in _NUMBERS for t in types)
            for tangents in seeds:
                value, t = fn(*full, *tangents)
                if pytrees.is_tree(value):  # a tuple, list, dict or record out: JAX's nesting
                    leaves.plain_only(self.backend)
                    made = None if result else leaves.number_columns(  # (tuples of numbers)
                        fn, full, seeds, self.single, (value, t))
                    if made is None:
                        return self._tree(args, value)
                    result = leaves.Whole(made)
                    break
                result.append(float(t) if not np.shape(value) else np.array(t, dtype=float))
            if kept:
                self.numbers[types] = fast_calls.fwd_numbers(self, types, fn, seeds)
                if type(value) is float and (len(seeds) > 1 or not self.single):  # (the
                    alone = number_columns.numbers(self, args, fn, seeds, self.numbers[types])
                    self.numbers[types] = alone or self.numbers[types]  # tangent alone)
            return result
        zeros = [np.zeros(np.shape(args[q])) if np.shape(args[q]) else 0.0 for q in index]
        result = []
        for k, p in enumerate(index):
            shape = np.shape(args[p])
            cols = []
            for j in np.ndindex(*shape) if shape else [()]:
                tangent = np.zeros(shape)
                tangent[j] = 1.0
                tangents = list(zeros)
                tangents[k] = tangent if shape else 1.0
                value, t = fn(*full, *tangents)
                if pytrees.is_tree(value):
                    leaves.plain_only(self.backend)
                    return self._tree(args, value)
                cols.append(np.asarray(t, dtype=float))
            out_shape = np.shape(value)
            if not shape and not out_shape:
                result.append(float(cols[0]))
                continue
            stacked = np.stack(cols, axis=-1)  # out_shape + (n_in,)
            result.append(np.reshape(stacked, out_shape + shape))
        return result

    # ------------------------------------------------------------ trees (JAX's pytrees)

    def _tree(self, args, value=None):
        """The Jacobian where a ``wrt`` argument or the output is a tuple, list, dict or
        record: shaped like the output, each leaf (for a tuple ``wrt``, a tuple over it)
        shaped like the ``wrt`` argument, each of its leaves an array of shape
        ``output leaf shape + argument leaf shape``, as JAX's ``jacrev``/``jacfwd`` give.
        Returned as a :class:`leaves.Whole` (``__call__`` returns it as it is)."""
        if self.mode == "rev":  # (a number out: the gradient in the arguments' structure)
            value = self.f(*args) if value is None else value
            if self.vjp is None:
                self.vjp = api._transform(self.f, self.index, "vjp")
            made = leaves.number_rows(self.vjp, value, args, self.index, self.single)
        else:  # (numbers in dicts, lists and tuples: their columns, in their structures)
            made = jacobian_trees.numbers_fwd(self, args)
        if made is not None:
            return made
        ins = [pytrees.leaves(args[p]) for p in self.index]
        blocks = self._tree_rev(args, ins, value) if self.mode == "rev" else \
            jacobian_trees.tree_fwd(self, args, ins)
        out_leaves, out_build, by_out = blocks
        per_out = []
        for j, leaf in enumerate(out_leaves):
            parts = []
            for k, (in_leaves, in_build) in enumerate(ins):
                made = []
                for m, in_leaf in enumerate(in_leaves):
                    shape = np.shape(leaf) + np.shape(in_leaf)
                    block = np.reshape(np.asarray(by_out[j][k][m], dtype=float), shape)
                    made.append(block if shape else float(block))
                parts.append(in_build(made))
            per_out.append(parts[0] if self.single else tuple(parts))
        return leaves.Whole(out_build(per_out))

    def tangent_alone(self, args):
        """The forward-mode code of the tangent alone for the numbers ``args`` (its value
        None: ``srcad.transform.tangent_only.NumbersOnly``; read by ``srcad.number_columns``),
        or None."""
        try:
            return api._jvp_function(self.target, self.names, list(args), sweep=NumbersOnly)[0]
        except SrcadError:
            return None

    def _tree_rev(self, args, ins, value):
        """A pullback per output element: by output leaf, ``wrt`` argument and its leaf, the
        rows stacked."""
        out_leaves, out_build = pytrees.leaves(value)  # (value and vjp: made by _tree)
        leaves.check_leaves(out_leaves, "output")
        zeros = [leaves.zero(leaf) for leaf in out_leaves]
        by_out = []
        for j, leaf in enumerate(out_leaves):
            rows = [[[] for _ in in_leaves] for in_leaves, _ in ins]
            for i in np.ndindex(*np.shape(leaf)):
                seeds = list(zeros)
                seeds[j] = leaves.one_hot(leaf, i)
                grads = self.vjp(out_build(seeds), *args)
                for k, g in enumerate(grads):
                    for m, part in enumerate(leaves.grad_leaves(g, ins[k][0])):
                        rows[k][m].append(part)
            by_out.append([[np.stack(r) if r else r for r in per] for per in rows])
        return out_leaves, out_build, by_out
