"""The gradient helpers of :mod:`srcad.runtime.helpers` and of NumPy's rules, written with
the functions of an array API namespace only, for code made for arrays of the standard
without NumPy's protocols (:mod:`srcad.backend.standard` binds them by name). Each does what
its NumPy form does for the arrays the standard has (no ``np.add.at``, no memory-less
stand-ins, no batched matrix forms: those cases are refused, naming the user's line).

Imports ``srcad.errors``, :mod:`.arrays`, :mod:`.numpy_points` (``fixed_check``),
:mod:`.standard_points` and :mod:`.special`.
"""

from __future__ import annotations

import math

from ..errors import BackendError, NonScalarOutputError
from . import arrays, derivatives, numpy_points, special
from .standard_points import make_points


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _restore(ns, g, shape, axis, keepdims):
    """A reduction's gradient ``g`` with the reduced axes back (length 1)."""
    if axis is None or keepdims or not hasattr(g, "shape"):
        return g
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = sorted(a % len(shape) for a in axes)
    for a in axes:
        g = ns.xp.expand_dims(g, axis=a)
    return g


def _count(shape, axis):
    if axis is None:
        return math.prod(shape)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return math.prod(shape[a] for a in axes)


def make_helpers(ns):
    """The gradient helpers of :mod:`srcad.runtime.helpers` and the reductions' modules that
    code for ``ns``'s arrays calls, by name, written in the namespace."""
    xp = ns.xp

    def unbroadcast(value, like):
        shape, gshape = ns.shape(like), ns.shape(value)
        if gshape == shape:
            return value
        g = ns.array(value)
        if not shape:
            return xp.sum(g)
        extra = len(gshape) - len(shape)
        if extra < 0:
            return xp.broadcast_to(g, shape)
        if extra:
            g = xp.sum(g, axis=tuple(range(extra)))
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
        return xp.sum(g, axis=axes, keepdims=True) if axes else g

    def unbroadcast_to(value, shape):
        return unbroadcast(value, xp.zeros(tuple(shape), dtype=xp.float64))

    def grad_sum(g, a, axis=None, keepdims=False):
        shape = ns.shape(a)
        return xp.broadcast_to(ns.array(_restore(ns, g, shape, axis, keepdims)), shape)

    def grad_mean(g, a, axis=None, keepdims=False):
        shape = ns.shape(a)
        scaled = ns.array(_restore(ns, g, shape, axis, keepdims)) / _count(shape, axis)
        return xp.broadcast_to(scaled, shape)

    def grad_extremum(g, a, ans, axis=None, keepdims=False):
        shape = ns.shape(a)
        hit = xp.astype(a == _restore(ns, ans, shape, axis, keepdims), xp.float64)
        share = hit / xp.sum(hit, axis=axis, keepdims=True)
        return ns.array(_restore(ns, g, shape, axis, keepdims)) * share

    def grad_reshape(g, a, order=None):
        return ns.reshape(g, ns.shape(a), order)

    def scatter(value, like, index):
        if isinstance(like, (list, tuple, dict)):  # an item of a tuple (of gradients, say)
            out = zeros_like(like)
            out[index] = add(out[index], value)
            return out
        out = xp.zeros(ns.shape(like), dtype=xp.float64)
        if not arrays._basic(index):
            raise arrays.placed(BackendError(
                f"the gradient of x[index] with an array index on {xp.__name__} arrays "
                "needs np.add.at (an index may reach an element twice), which the array "
                "API standard does not have", construct="scatter",
                hint="index with ints and slices, or use NumPy arrays"))
        plain = arrays._no_new_axes(index)  # x[None, :]: the same elements as x[:]
        if plain is not index:
            value = xp.reshape(ns.array(value), out[plain].shape)
        out[plain] = value
        return out

    def broadcast_as(value, like):
        if isinstance(value, (list, tuple)) and isinstance(like, (list, tuple)):
            return value[:len(like)] if len(value) > len(like) else value  # as add zips
        shape = ns.shape(like)
        return value if ns.shape(value) == shape else xp.broadcast_to(ns.array(value), shape)

    def add(a, b):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            if len(a) != len(b):  # as srcad.runtime.helpers.add: never a silent truncation
                raise RuntimeError(f"srcad: two gradients of one list have {len(a)} and "
                                   f"{len(b)} items (a bug in srcad; please report it)")
            return [add(u, v) for u, v in zip(a, b)]
        return a + b

    def like(grad, value):
        if isinstance(value, (list, tuple)):
            return type(value)(like(g, v) for g, v in zip(grad, value))
        if hasattr(value, "shape") and ns.shape(grad) != ns.shape(value):
            return xp.astype(xp.broadcast_to(ns.array(grad, value), ns.shape(value)),
                             xp.float64)
        return grad

    def total(value):
        if isinstance(value, list):
            return sum(value)
        return value if isinstance(value, float) else xp.sum(value)

    def transpose_grad(g, axes=None):
        if axes is None:
            return ns.transpose(g)
        axes = [int(a) % g.ndim for a in axes]
        return xp.permute_dims(g, tuple(sorted(range(len(axes)), key=axes.__getitem__)))

    def grad_matmul_a(g, a, b):
        if a.ndim == 2 and b.ndim == 1:
            return g[:, None] * b[None, :]
        if a.ndim == 2 and b.ndim == 2:
            return g @ b.mT
        if a.ndim == 1 and b.ndim == 2:
            return b @ g
        if a.ndim == 1 and b.ndim == 1:
            return g * b
        raise _batched("a @ b", xp)

    def grad_matmul_b(g, a, b):
        if a.ndim == 2:
            return a.mT @ g if b.ndim in (1, 2) else _raise(_batched("a @ b", xp))
        if a.ndim == 1 and b.ndim == 2:
            return a[:, None] * g[None, :]
        if a.ndim == 1 and b.ndim == 1:
            return g * a
        raise _batched("a @ b", xp)

    def check_real(grad, name, where=None):
        if hasattr(grad, "dtype") and xp.isdtype(grad.dtype, "complex floating"):
            raise arrays.placed(BackendError(
                f"the gradient of the real argument {name!r} came out complex",
                hint="make the value real where it is made"))
        return grad

    def grad_concatenate(g, parts, axis=0):
        if axis is None:
            raise _batched("concat(..., axis=None)", xp)
        out, start = [], 0
        for x in parts:
            index = [slice(None)] * g.ndim
            index[axis] = slice(start, start + ns.shape(x)[axis])
            out.append(g[tuple(index)])
            start += ns.shape(x)[axis]
        return out

    def grad_stack(g, parts, axis=0):
        moved = xp.moveaxis(g, axis, 0)
        return [moved[i, ...] for i in range(len(parts))]

    def grad_prod(g, a, axis=None, keepdims=False):
        """The product of the *other* elements: exclusive running products from the left
        and from the right (no division, exact with zeros)."""
        x = ns.array(a)
        if x.ndim == 0:
            return g * xp.ones((), dtype=xp.float64)
        if x.size == 0:  # nothing multiplied: no element, no gradient
            return xp.zeros(x.shape, dtype=xp.float64)
        axes = tuple(range(x.ndim)) if axis is None else (
            (axis,) if isinstance(axis, int) else tuple(axis))
        axes = tuple(i % x.ndim for i in axes)
        last = tuple(range(x.ndim - len(axes), x.ndim))
        moved = xp.moveaxis(x, axes, last)
        flat = xp.reshape(moved, moved.shape[: x.ndim - len(axes)] + (-1,))
        ones = xp.ones(flat.shape[:-1] + (1,), dtype=xp.float64)
        left = xp.concat([ones, xp.cumulative_prod(flat[..., :-1], axis=-1)], axis=-1)
        right = xp.flip(xp.cumulative_prod(xp.flip(flat[..., 1:], axis=-1), axis=-1),
                        axis=-1)
        right = xp.concat([right, ones], axis=-1)
        others = xp.moveaxis(xp.reshape(left * right, moved.shape), last, axes)
        return ns.array(_restore(ns, g, x.shape, axis, keepdims)) * others

    def grad_var(g, a, axis=None, ddof=0, keepdims=False):
        x = ns.array(a)
        centred = x - xp.mean(x, axis=_axis(axis), keepdims=True)
        n = _count(x.shape, axis)
        return ns.array(_restore(ns, g, x.shape, axis, keepdims)) * 2.0 * centred / (n - ddof)

    def grad_std(g, a, ans, axis=None, ddof=0, keepdims=False):
        """The variance's gradient times ``1 / (2 std)``, 0 where the deviation is 0."""
        ans = ns.array(ans)
        nonzero = ans != 0
        scale = ns.where(nonzero, ns.array(g, ans) / ns.where(nonzero, 2.0 * ans, 1.0), 0.0)
        return grad_var(scale, a, axis, ddof, keepdims)

    def grad_clip(g, a, a_min, a_max):
        inside = xp.ones(ns.shape(a), dtype=xp.bool)
        if a_min is not None:
            inside = inside & (a >= a_min)
        if a_max is not None:
            inside = inside & (a <= a_max)
        return g * xp.astype(inside, xp.float64)

    def cleared(value, index):
        """The gradient flowing past ``y[index] = v`` to the old ``y``: ``index`` zeroed."""
        if isinstance(value, (list, dict)):
            out = type(value)(value)
            item = out[index]  # a number's zero at a leaf, as helpers.cleared
            out[index] = 0.0 if type(index) is not slice and not isinstance(
                item, (list, tuple, dict)) else 0.0 * item
            return out
        out = xp.astype(xp.broadcast_to(ns.array(value), ns.shape(value)), xp.float64,
                        copy=True)
        if not arrays._basic(index):
            raise arrays.placed(BackendError(
                f"an item write y[idx] = v with an array of indices or a mask on "
                f"{xp.__name__} arrays", construct="cleared",
                hint="write with slices and integers (y[2:5] = v)"))
        out[arrays._no_new_axes(index)] = 0.0
        return out

    def copy_tangent(tangent, value):
        """A writable tangent for ``y[i] = v``: a float array shaped like ``value``."""
        if isinstance(value, (list, dict)):
            raise _batched("a write into a list", xp)
        return xp.astype(xp.broadcast_to(ns.array(tangent), ns.shape(value)), xp.float64,
                         copy=True)

    def zeros_like(x):
        """A zero gradient shaped like ``x`` (a float for a number, a list for a list)."""
        if isinstance(x, (list, tuple)):
            return [zeros_like(v) for v in x]
        if isinstance(x, dict):
            return {k: zeros_like(v) for k, v in x.items()}
        return xp.zeros(ns.shape(x), dtype=xp.float64) if hasattr(x, "shape") else 0.0

    def shape_of(x):
        return ns.shape(x)

    def zeros_array(x):
        return xp.zeros(ns.shape(x), dtype=xp.float64)

    def items_at(like, indices, values):
        """``zeros_like(like)`` with ``values[k]`` added at ``indices[k]`` (a list or dict)."""
        out = zeros_like(like)
        for i, v in zip(indices, values):
            out[i] = add(out[i], v)
        return out

    def picked(grad, indices):
        return [grad[i] for i in indices]

    def layout(x):
        return x  # (a stand-in without memory is NumPy's; the array itself serves)

    def grad_sort(g, a, axis=-1):
        """``g`` sent back to where each value came from: sorted[j] = a[order[j]], so a[i]'s
        gradient is g[inverse[i]] (ties in a stable order, as NumPy's helper routes them)."""
        if axis is None:
            raise _batched("sort(..., axis=None)", xp)
        order = xp.argsort(a, axis=axis, stable=True)
        inverse = xp.argsort(order, axis=axis, stable=True)
        g = xp.broadcast_to(ns.array(g, a), ns.shape(a))
        return xp.take_along_axis(g, inverse, axis=axis)

    def tangent_sort(t, a, axis=-1):
        if axis is None:
            raise _batched("sort(..., axis=None)", xp)
        t = xp.broadcast_to(ns.array(t, a), ns.shape(a))
        return xp.take_along_axis(t, xp.argsort(a, axis=axis, stable=True), axis=axis)

    def grad_outer_a(g, a, b):
        return xp.reshape(g @ xp.reshape(b, (-1,)), ns.shape(a))

    def grad_outer_b(g, a, b):
        return xp.reshape(xp.reshape(a, (-1,)) @ g, ns.shape(b))

    def grad_cumsum(g, a, axis=None):
        """The reversed running sum of ``g``."""
        if axis is None:
            flat = xp.flip(xp.reshape(ns.array(g, a), (-1,)))
            return xp.reshape(xp.flip(xp.cumulative_sum(flat)), ns.shape(a))
        return xp.flip(xp.cumulative_sum(xp.flip(g, axis=axis), axis=axis), axis=axis)

    def grad_trace(g, a, offset=0, axis1=0, axis2=1):
        """``g`` placed on the ``offset`` diagonal of each matrix."""
        shape = ns.shape(a)
        eye = xp.eye(shape[axis1], shape[axis2], k=offset, dtype=xp.float64)
        full = xp.expand_dims(xp.expand_dims(ns.array(g, a), axis=-1), axis=-1) * eye
        return xp.moveaxis(full, (-2, -1), (axis1 % len(shape), axis2 % len(shape)))

    def grad_norm(g, x, ans, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's)
        """The 2-norm's (Frobenius norm's) gradient ``g x / norm``; other orders refused."""
        v = ns.array(x)
        axes = tuple(range(v.ndim)) if axis is None else (
            (axis,) if isinstance(axis, int) else tuple(axis))
        axes = tuple(a % v.ndim for a in axes)
        matrix = len(axes) == 2 and ord is not None
        if not (ord is None or matrix and ord == "fro" or not matrix and ord == 2):
            raise arrays.placed(BackendError(
                f"the gradient of a norm of order {ord!r} on {xp.__name__} arrays: the "
                "standard backend's form covers the 2-norm and the Frobenius norm",
                construct="grad_norm", hint="write the norm out: xp.sum(xp.abs(x) ** p) ** "
                "(1 / p), or use NumPy arrays"))
        gb = ns.array(_restore(ns, g, v.shape, axes, keepdims), v)
        nb = ns.array(_restore(ns, ans, v.shape, axes, keepdims), v)
        return gb * v / xp.where(nb == 0, xp.ones_like(nb), nb)  # 0 at 0, as NumPy's form

    def one_axis(axis):
        if isinstance(axis, int):
            return axis
        if len(axis) == 1:
            return int(axis[0])
        raise _batched("vector_norm over several axes", xp)

    def log_base(a, by=None):
        """``log(a)`` in ``d/db a ** b`` (see srcad.runtime.helpers.log_base): 0 at 0 and at a
        negative base where ``by`` is 0; elsewhere a negative base refused (its log is
        complex)."""
        v = a if isinstance(a, (int, float)) else ns.array(a)
        negative = v < 0
        if by is not None and (isinstance(by, (int, float)) or tuple(ns.array(by).shape) == tuple(
                getattr(v, "shape", ()))):
            negative = negative & (by != 0)
        if bool(negative) if isinstance(negative, bool) else bool(xp.any(negative)):
            raise arrays.placed(BackendError(
                "d/db a ** b at a negative base a is complex", construct="log_base",
                hint="keep the base positive (a ** b with a > 0)"))
        if isinstance(v, (int, float)):
            return math.log(v) if v > 0 else 0.0
        return xp.log(xp.where(v <= 0, xp.ones_like(v), v))

    def power_of(a, b, below=-1.0):
        """``a ** b`` of numbers in a derivative (srcad.runtime.special.power_of): inf where
        only the derivative's power raises; an array's power is the namespace's."""
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return special.power_of(a, b, below)
        return xp.pow(ns.array(a), b)

    def polygamma_real(n, x):
        """Digamma's family (math.lgamma's gradient) of a number; an array refused."""
        if isinstance(x, (int, float)):
            return special.polygamma_real(n, x)
        raise arrays.placed(BackendError(
            f"the gradient of math.lgamma or math.gamma of an array of {xp.__name__}",
            construct="polygamma_real", hint="math.lgamma takes numbers: pass a number"))

    def square_chunks(a):
        return a  # Dask's chunks: the namespace's arrays have none

    def check_scalar(y, where=None):
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            return 1.0
        if hasattr(y, "shape") and ns.shape(y) == () and xp.isdtype(y.dtype, "real floating"):
            return 1.0
        filename, _, line = (where or "").rpartition(":")
        raise NonScalarOutputError(
            f"grad needs a scalar output, got {type(y).__name__} of shape {ns.shape(y)}",
            filename=filename or None, lineno=int(line) if line.isdigit() else None,
            hint="use srcad.vjp(f, *args) for non-scalar outputs, or reduce the output "
            "(for instance with xp.sum) first")

    # a derivative srcad made, called in the code (srcad.grad(f)(x) in a function
    # differentiated again): its code for these arguments is made for the namespace too
    # (srcad.specialise: the callees of their namespace)
    made = (derivatives.derivative_fwd, derivatives.derivative_bwd,
            derivatives.derivative_jvp)
    points = make_points(ns)  # np.linalg.det's cofactors, slogdet's check
    return points | {f.__name__: f for f in made + (
        unbroadcast, unbroadcast_to, grad_sum, grad_mean, grad_extremum, grad_reshape, scatter,
        check_scalar, broadcast_as, add, like, total, transpose_grad, grad_matmul_a,
        grad_matmul_b, check_real, grad_concatenate, grad_stack, grad_prod,
        square_chunks, grad_var, grad_std, grad_clip, layout, cleared, copy_tangent,
        zeros_like, grad_sort, tangent_sort, grad_outer_a, grad_outer_b, grad_cumsum,
        grad_trace, grad_norm, one_axis, shape_of, zeros_array, items_at, picked, log_base,
        polygamma_real, power_of, numpy_points.fixed_check)}


def _batched(what, xp):
    return arrays.placed(BackendError(
        f"the gradient of {what} for these ranks on {xp.__name__} arrays: the standard "
        "backend's form covers vectors and matrices", construct=what,
        hint="reshape to matrices, or use NumPy arrays"))


def _raise(error):
    raise error
