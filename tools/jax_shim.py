"""JAX's names pointed at NumPy, SciPy and srcad, for ``tools/jax_programs.py``.

``install()`` puts modules named ``jax``, ``jax.numpy``, ``jax.nn``, ``jax.lax``, ``jax.random``,
``jax.tree_util``, ``jax.scipy...`` and ``jax.example_libraries.optimizers`` into
``sys.modules``, so a program written for JAX imports them unchanged:

- ``jax.numpy`` *is* NumPy (``jnp.dot`` is ``np.dot``), ``jax.scipy.special``/``.stats``/
  ``.linalg`` *are* SciPy's modules: srcad knows their functions by their rules;
- ``grad``, ``value_and_grad`` (``argnums``, ``has_aux``), ``jacfwd``, ``jacrev``,
  ``hessian``, ``jvp``, ``vjp``, ``linearize`` are srcad's; ``jit`` (and ``checkpoint``)
  return the function;
- ``jax.nn``'s activations, ``vmap`` (a Python loop and ``np.stack``; ``pmap`` too),
  ``lax.fori_loop``/``scan``/``cond``/``while_loop``/``map`` (Python loops and branches), the pytree
  functions (``tree_map`` and friends) are written here in plain Python and NumPy, so srcad
  reads and differentiates them like the program's own code;
- ``jax.random``'s keys are two ``uint32`` words seeding NumPy's generator: the numbers differ
  from JAX's (an entry drawing random numbers is judged by finite differences only).

A name of JAX this shim lacks raises ``AttributeError: jax shim lacks NAME``, so a program that
needs it is reported as the shim's, not srcad's.
"""

from __future__ import annotations

import functools
import sys
import types

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

import srcad

# ---------------------------------------------------------------------------------- pytrees


def tree_leaves(tree):
    """The leaves (``is_leaf`` is not taken: srcad refuses calling a parameter that may be
    None even where the call is skipped)."""
    if tree is None:
        return []
    if not isinstance(tree, (list, tuple, dict)):
        return [tree]
    items = [tree[k] for k in list(tree)] if isinstance(tree, dict) else list(tree)
    out = []
    for item in items:
        out.extend(tree_leaves(item))
    return out


class TreeDef:
    """A pytree's structure: the tree with its leaves taken out."""

    def __init__(self, like):
        self.like = like

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def __eq__(self, other):
        return isinstance(other, TreeDef) and _shape(self.like) == _shape(other.like)

    def __hash__(self):
        return hash(repr(_shape(self.like)))


def _shape(tree):
    if isinstance(tree, dict):
        return ("dict", tuple((k, _shape(tree[k])) for k in sorted(tree)))
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(_shape(t) for t in tree))
    return "*" if tree is not None else None


def tree_flatten(tree):
    return tree_leaves(tree), TreeDef(tree)


def tree_structure(tree):
    return TreeDef(tree)


def _rebuild(like, leaves, i):
    """The tree shaped like ``like`` holding ``leaves[i:]``, and the index after its leaves."""
    if like is None:
        return None, i
    if isinstance(like, dict):
        out = {}
        # (the keys carry no derivative: srcad, not knowing like is a dict here, is told so)
        for k in srcad.stop_gradient(list(like)):
            item, i = _rebuild(like[k], leaves, i)
            out[k] = item
        return out, i
    if isinstance(like, (list, tuple)):
        items = []
        for t in like:
            item, i = _rebuild(t, leaves, i)
            items.append(item)
        # (named tuples come back plain: srcad refuses type(like)(*items))
        return (items if isinstance(like, list) else tuple(items)), i
    return leaves[i], i + 1


def tree_unflatten(treedef, leaves):
    return _rebuild(treedef.like, list(leaves), 0)[0]


def tree_map(f, tree, *rest):
    leaves, treedef = tree_flatten(tree)
    if not rest:
        return tree_unflatten(treedef, [f(x) for x in leaves])
    if len(rest) == 1:  # (srcad refuses zip(*a list of unknown length), even unused)
        return tree_unflatten(treedef, [f(x, y) for x, y in zip(leaves, tree_leaves(rest[0]))])
    if len(rest) == 2:
        return tree_unflatten(treedef, [f(x, y, z) for x, y, z in zip(
            leaves, tree_leaves(rest[0]), tree_leaves(rest[-1]))])
    raise AttributeError("jax shim lacks tree_map of more than three trees")


def register_pytree_node(cls, flatten, unflatten):
    """JAX's registration (``flatten(obj) -> (children, aux)``, ``unflatten(aux, children)``)
    as srcad's (fields by name): each child is named by the attribute of the object holding
    it (JAX does not name them)."""
    seen_aux = [None]

    def fields(obj):
        children, seen_aux[0] = flatten(obj)
        named = {}
        for child in children:
            names = [k for k, v in vars(obj).items() if v is child and k not in named]
            if not names:
                raise AttributeError("jax shim lacks a pytree child that is not an attribute")
            named[names[0]] = child
        return named

    def made(named):
        return unflatten(seen_aux[0], list(named.values()))
    srcad.register_pytree(cls, fields, made)
    return cls


def tree_reduce(f, tree, initializer=None):
    leaves = tree_leaves(tree)
    return functools.reduce(f, leaves) if initializer is None else functools.reduce(
        f, leaves, initializer)


# ---------------------------------------------------------------------------------- jax.nn


def relu(x):
    return np.maximum(x, 0.0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    return np.logaddexp(x, 0.0)


def log_sigmoid(x):
    return -np.logaddexp(-x, 0.0)


def silu(x):
    return x / (1.0 + np.exp(-x))


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def leaky_relu(x, negative_slope=0.01):
    return np.where(x >= 0, x, negative_slope * x)


def gelu(x, approximate=True):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def one_hot(x, num_classes, dtype=np.float64):
    return np.asarray(np.asarray(x)[..., None] == np.arange(num_classes), dtype=dtype)


# ---------------------------------------------------------------------------------- vmap, lax


def _axis_of(in_axes, k):
    return in_axes[k] if isinstance(in_axes, (list, tuple)) else in_axes


def _stack(outs, axis):
    first = outs[0]
    if isinstance(first, tuple):
        return tuple(_stack([o[k] for o in outs], axis) for k in range(len(first)))
    if isinstance(first, list):
        return [_stack([o[k] for o in outs], axis) for k in range(len(first))]
    return np.stack(outs, axis=axis)


def _take(tree, i, axis):
    if isinstance(tree, tuple):
        return tuple(_take(t, i, axis) for t in tree)
    return np.take(tree, i, axis=axis)


def _length(tree, axis):
    if isinstance(tree, (list, tuple)):
        return _length(tree[0], axis)
    if isinstance(tree, dict):
        return _length(tree[sorted(tree)[0]], axis)
    return np.shape(tree)[axis]


def vmap(fun, in_axes=0, out_axes=0, **kw):
    """``fun`` mapped over the ``in_axes`` of its arguments: a loop over the items, stacked."""
    def mapped(*args):
        n = None
        for k in range(len(args)):
            if _axis_of(in_axes, k) is not None:
                n = _length(args[k], _axis_of(in_axes, k))
        outs = []
        for i in range(n):
            items = [args[k] if _axis_of(in_axes, k) is None
                     else _take(args[k], i, _axis_of(in_axes, k)) for k in range(len(args))]
            outs.append(fun(*items))
        return _stack(outs, out_axes)
    return mapped


def fori_loop(lower, upper, body_fun, init_val, **kw):
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


def scan(f, init, xs=None, length=None, reverse=False, **kw):
    carry = init
    n = length if xs is None else _length(xs, 0)
    ys = []
    for i in range(n):
        j = n - 1 - i if reverse else i
        carry, y = f(carry, None if xs is None else _take(xs, j, 0))
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    return carry, (_stack(ys, 0) if ys and ys[0] is not None else None)


def cond(pred, true_fun, false_fun, *operands):
    if pred:
        return true_fun(*operands)
    return false_fun(*operands)


def lax_map(f, xs):
    return _stack([f(_take(xs, i, 0)) for i in range(_length(xs, 0))], 0)


# ---------------------------------------------------------------------------------- jax.random


def PRNGKey(seed):
    return np.array([0, seed % 2 ** 32], dtype=np.uint32)


def _rng(key):
    return np.random.default_rng([int(k) for k in np.ravel(key)])


def split(key, num=2):
    return _rng(key).integers(0, 2 ** 32, size=(num, 2), dtype=np.uint32)


def fold_in(key, data):
    return _rng(np.append(np.ravel(key), data)).integers(0, 2 ** 32, size=2, dtype=np.uint32)


def normal(key, shape=(), dtype=np.float64):
    return _rng(key).standard_normal(shape)


def uniform(key, shape=(), dtype=np.float64, minval=0.0, maxval=1.0):
    return _rng(key).uniform(minval, maxval, size=shape)


def bernoulli(key, p=0.5, shape=None):
    return _rng(key).uniform(size=np.shape(p) if shape is None else shape) < p


def permutation(key, x):
    return _rng(key).permutation(x)


def randint(key, shape, minval, maxval, dtype=np.int64):
    return _rng(key).integers(minval, maxval, size=shape)


def choice(key, a, shape=(), replace=True, p=None):
    return _rng(key).choice(a, size=shape, replace=replace, p=p)


# ---------------------------------------------------------------------------------- the rest


def jit(fun=None, **kw):
    """The function itself (``@jit``, ``jit(f)``, ``@jit(static_argnums=...)``)."""
    return (lambda f: f) if fun is None else fun


def checkpoint(fun, **kw):
    """``jax.checkpoint``/``remat``: the function itself (recomputing is JAX's memory trade)."""
    return fun


def _optimizer(step):
    """``jax.example_libraries.optimizers``' (init, update, get_params) triple for a step rule
    of (gradient, parameter, state) -> (parameter, state): plain NumPy."""
    def made(*args, **kw):
        def init(params):
            return params, tree_map(lambda p: np.zeros_like(p), params)

        def update(i, g, state):
            params, aux = state
            leaves = [step(i, gi, pi, ai, *args, **kw) for gi, pi, ai in zip(
                tree_leaves(g), tree_leaves(params), tree_leaves(aux))]
            return (tree_unflatten(TreeDef(params), [p for p, _ in leaves]),
                    tree_unflatten(TreeDef(params), [a for _, a in leaves]))

        return init, update, (lambda state: state[0])
    return made


def _lr(step_size, i):
    return step_size(i) if callable(step_size) else step_size


def _module(name, attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)

    def missing(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError(f"jax shim lacks {name}.{attr}")
    module.__getattr__ = missing
    return module


def install():
    """Put the shim's modules in ``sys.modules`` under JAX's names."""
    tree = dict(tree_map=tree_map, tree_leaves=tree_leaves, tree_flatten=tree_flatten,
                tree_unflatten=tree_unflatten, tree_structure=tree_structure,
                tree_reduce=tree_reduce, register_pytree_node=register_pytree_node)
    nn = _module("jax.nn", dict(
        relu=relu, sigmoid=sigmoid, softplus=softplus, log_sigmoid=log_sigmoid, silu=silu,
        swish=silu, elu=elu, leaky_relu=leaky_relu, gelu=gelu, log_softmax=log_softmax,
        softmax=softmax, one_hot=one_hot, logsumexp=scipy.special.logsumexp, tanh=np.tanh))
    lax = _module("jax.lax", dict(
        fori_loop=fori_loop, while_loop=while_loop, scan=scan, cond=cond, map=lax_map,
        stop_gradient=srcad.stop_gradient))
    random = _module("jax.random", dict(
        PRNGKey=PRNGKey, key=PRNGKey, split=split, fold_in=fold_in, normal=normal,
        uniform=uniform, bernoulli=bernoulli, permutation=permutation, randint=randint,
        choice=choice))
    sgd = _optimizer(lambda i, g, p, a, step_size: (p - _lr(step_size, i) * g, a))
    momentum = _optimizer(lambda i, g, p, v, step_size, mass: (
        p - _lr(step_size, i) * (mass * v + g), mass * v + g))
    optimizers = _module("jax.example_libraries.optimizers", dict(sgd=sgd, momentum=momentum))
    example_libraries = _module("jax.example_libraries", dict(optimizers=optimizers))
    jscipy = _module("jax.scipy", dict(special=scipy.special, stats=scipy.stats,
                                       linalg=scipy.linalg))
    tree_util = _module("jax.tree_util", tree)
    tree_new = _module("jax.tree", dict(map=tree_map, leaves=tree_leaves, flatten=tree_flatten,
                                        unflatten=tree_unflatten, structure=tree_structure,
                                        reduce=tree_reduce))
    config = types.SimpleNamespace(update=lambda *a, **k: None)
    jax = _module("jax", dict(
        numpy=np, nn=nn, lax=lax, random=random, scipy=jscipy, tree_util=tree_util,
        tree=tree_new, example_libraries=example_libraries, config=config,
        grad=srcad.grad, value_and_grad=srcad.value_and_grad, jacfwd=srcad.jacfwd,
        jacrev=srcad.jacrev, jacobian=srcad.jacobian, hessian=srcad.hessian, jvp=srcad.jvp,
        vjp=srcad.vjp, linearize=srcad.linearize, jit=jit, vmap=vmap, pmap=vmap,
        checkpoint=checkpoint, remat=checkpoint,
        Array=np.ndarray, tree_map=tree_map, device_put=np.asarray,
        block_until_ready=lambda x: x, devices=lambda *a: ["cpu"]))
    modules = {"jax": jax, "jax.numpy": np, "jax.nn": nn, "jax.lax": lax, "jax.random": random,
               "jax.scipy": jscipy, "jax.scipy.special": scipy.special,
               "jax.scipy.stats": scipy.stats, "jax.scipy.stats.norm": scipy.stats.norm,
               "jax.scipy.linalg": scipy.linalg, "jax.tree_util": tree_util,
               "jax.tree": tree_new, "jax.example_libraries": example_libraries,
               "jax.example_libraries.optimizers": optimizers, "jax.numpy.linalg": np.linalg}
    sys.modules.update(modules)
    return jax
