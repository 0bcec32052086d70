"""Jacobians, Hessians and Hessian-vector products, composed from ``vjp``, ``jvp`` and
``grad``. Shapes follow JAX: the Jacobian of ``f: R^n -> R^m`` (with any input and output
shapes) has shape ``output.shape + input.shape``.

Imports ``srcad.api`` and ``srcad.specialise`` (its own layer) and ``srcad.errors``.
"""

from __future__ import annotations

import functools

import numpy as np

from . import api
from .errors import MissingRuleError
from .specialise import Transformed

__all__ = ["jacobian", "jacfwd", "jacrev", "hessian", "hvp"]


def jacobian(f, wrt=0, mode="rev"):
    """A function returning the Jacobian of ``f`` w.r.t. the ``wrt`` argument(s).

    ``mode="rev"`` builds it a row at a time with ``vjp`` (cheap for few outputs),
    ``mode="fwd"`` a column at a time with ``jvp`` (cheap for few inputs). A tuple ``wrt``
    gives a tuple of Jacobians.
    """
    if mode not in ("rev", "fwd"):
        raise ValueError(f"mode must be 'rev' or 'fwd', not {mode!r}")
    single = not isinstance(wrt, (tuple, list))
    positions = (wrt,) if single else tuple(wrt)

    @functools.wraps(f)
    def jac(*args):
        index = [_position(f, w) for w in positions]
        result = _jac_rev(f, args, index) if mode == "rev" else _jac_fwd(f, args, index)
        return result[0] if single else tuple(result)

    return jac


def jacrev(f, wrt=0):
    """``jacobian(f, wrt, mode="rev")``, as JAX users know it."""
    return jacobian(f, wrt, mode="rev")


def jacfwd(f, wrt=0):
    """``jacobian(f, wrt, mode="fwd")``, as JAX users know it."""
    return jacobian(f, wrt, mode="fwd")


def hessian(f, wrt=0, mode="fwd"):
    """The Hessian of the scalar ``f``: forward over reverse (``jacfwd(grad(f))``) by default;
    ``mode="rev"`` differentiates the gradient in reverse mode again."""
    grad_f = api.grad(f, wrt=wrt)

    @functools.wraps(f)
    def hess(*args):
        try:
            return jacobian(grad_f, wrt, mode=mode)(*args)
        except MissingRuleError:
            if mode == "rev":
                raise
            return jacobian(grad_f, wrt, mode="rev")(*args)  # a rule lacks forward mode

    return hess


_POINT = object()  # hvp(f) without a point: the curried form


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

        return hvp_f
    if v is _POINT:
        raise TypeError("hvp(f, x, v) takes the point x and the vector v (or neither: "
                        "hvp(f)(*args, v))")
    args = x if isinstance(x, tuple) else (x,)
    grad_f = api.grad(f, wrt=wrt)
    try:
        return api.jvp(grad_f, args, (v,), wrt=(wrt,))[1]
    except MissingRuleError:
        # a rule without a forward form: the Hessian by reverse over reverse, times v
        h = np.asarray(jacobian(grad_f, wrt, mode="rev")(*args))
        shape = np.shape(v)
        product = np.tensordot(h, np.asarray(v), axes=len(shape)) if shape else h * v
        return float(product) if np.ndim(product) == 0 else product


def _position(f, w):
    if isinstance(w, int):
        return w
    user = f._user if isinstance(f, Transformed) else f
    params = list(__import__("inspect").signature(user).parameters)
    return params.index(w)


def _jac_rev(f, args, index):
    value, pullback = api.vjp(f, *args, wrt=tuple(index))
    out_shape = np.shape(value)
    rows = [[] for _ in index]
    for i in np.ndindex(*out_shape) if out_shape else [()]:
        seed = np.zeros(out_shape)
        seed[i] = 1.0
        grads = pullback(seed if out_shape else 1.0)
        for k, g in enumerate(grads):
            rows[k].append(np.asarray(g, dtype=float))
    return [np.reshape(np.stack(r), out_shape + np.shape(args[p]))
            if out_shape or np.shape(args[p]) else float(r[0])
            for r, p in zip(rows, index)]


def _jac_fwd(f, args, index):
    result = []
    for p in index:
        shape = np.shape(args[p])
        cols = []
        for j in np.ndindex(*shape) if shape else [()]:
            tangent = np.zeros(shape)
            tangent[j] = 1.0
            tangents = [np.zeros(np.shape(args[q])) if np.shape(args[q]) else 0.0
                        for q in index]
            tangents[index.index(p)] = tangent if shape else 1.0
            value, t = api.jvp(f, args, tuple(tangents), wrt=tuple(index))
            cols.append(np.asarray(t, dtype=float))
        out_shape = np.shape(value)
        if not shape and not out_shape:
            result.append(float(cols[0]))
            continue
        stacked = np.stack(cols, axis=-1)  # out_shape + (n_in,)
        result.append(np.reshape(stacked, out_shape + shape))
    return result
