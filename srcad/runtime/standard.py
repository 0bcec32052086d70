"""What code made for arrays of the array API standard (``array-api-strict``: no NumPy
dispatch protocols) runs on: NumPy's names computed in the arrays' namespace, and the
gradient helpers written with the namespace's functions only.

The generated code is NumPy's code (NumPy's rules made it); :mod:`srcad.backend.standard`
binds its ``np`` to a :class:`Namespace` over the arrays' namespace (spelled ``xp`` in the
code), and the helpers it calls to :data:`HELPERS`. A NumPy name or a helper that is not
here is refused when the code is made, naming the rule that wrote it; a case a helper here
does not cover (an index that may reach an element twice) is refused when it runs, naming
the user's line. Nothing here converts an array to NumPy.

Imports ``srcad.errors`` and :mod:`.arrays`.
"""

from __future__ import annotations

import math

from ..core.kinds import foreign_array
from ..errors import BackendError, NonScalarOutputError
from . import arrays

#: NumPy's name -> the standard's, for the elementwise functions the rules write
_UNARY = {
    "abs": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
    "arcsinh": "asinh", "arctan": "atan", "arctanh": "atanh", "cos": "cos", "cosh": "cosh",
    "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "log2": "log2",
    "log10": "log10", "negative": "negative", "positive": "positive", "sin": "sin",
    "sinh": "sinh", "sqrt": "sqrt", "square": "square", "tan": "tan", "tanh": "tanh",
    "sign": "sign", "reciprocal": "reciprocal", "ceil": "ceil", "floor": "floor",
    "round": "round", "trunc": "trunc", "isfinite": "isfinite", "isinf": "isinf",
    "isnan": "isnan", "logical_not": "logical_not",
}
_BINARY = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "true_divide": "divide", "power": "pow", "arctan2": "atan2", "hypot": "hypot",
    "logaddexp": "logaddexp", "maximum": "maximum", "minimum": "minimum", "equal": "equal",
    "not_equal": "not_equal", "greater": "greater", "greater_equal": "greater_equal",
    "less": "less", "less_equal": "less_equal", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor",
}
_SAME = ("matmul", "tensordot", "moveaxis", "argmax", "argmin",
         "all", "any", "float64", "float32", "int64", "int32", "bool", "pi", "e", "inf",
         "nan", "newaxis", "arange", "linspace", "eye")
_REDUCE = ("sum", "prod", "mean", "max", "min")


class Namespace:
    """NumPy's names, each computed in the namespace ``xp`` (Python numbers become 0-d arrays
    of the other operand's type); :data:`NAMES` lists them."""

    def __init__(self, xp):
        self.xp = xp
        self.linalg = _Linalg(self)
        for np_name, name in _UNARY.items():
            setattr(self, np_name, _unary(self, getattr(xp, name)))
        for np_name, name in _BINARY.items():
            setattr(self, np_name, _binary(self, getattr(xp, name)))
        self.flip = lambda x, axis=None: xp.flip(x, axis=axis)
        for name in _SAME:
            setattr(self, name, getattr(xp, name))
        for name in _REDUCE:
            setattr(self, name, _reduce(self, getattr(xp, name)))
        self.amax, self.amin = self.max, self.min

    def __repr__(self):
        return f"<NumPy's names in {self.xp.__name__}>"

    def array(self, x, like=None):
        """``x`` as an array of the namespace (a Python number: of ``like``'s float type)."""
        if hasattr(x, "__array_namespace__") and type(x).__module__.split(".")[0] == \
                type(self.xp.asarray(0.0)).__module__.split(".")[0]:
            return x
        dtype = getattr(like, "dtype", None) if isinstance(x, float) else None
        return self.xp.asarray(x, dtype=dtype) if dtype is not None else self.xp.asarray(x)

    def asarray(self, x, dtype=None):
        return self.xp.asarray(x, dtype=self.dtype(dtype)) if dtype is not None else \
            self.array(x)

    def dtype(self, dtype):
        """The namespace's dtype for NumPy's spelling of one (``float``, ``np.float64``,
        None: float64)."""
        if dtype is None or dtype is float:
            return self.xp.float64
        if dtype is bool or dtype is int:
            return self.xp.bool if dtype is bool else self.xp.int64
        name = getattr(dtype, "__name__", None) or str(dtype)
        found = getattr(self.xp, name.rpartition(".")[2], None)
        if found is None:
            raise BackendError(f"the dtype {dtype!r} in {self.xp.__name__}")
        return found

    def number(self, x):
        """A comparison's result as numbers (NumPy's arithmetic takes a bool as 0 or 1)."""
        if isinstance(x, bool):
            return float(x)
        return self.xp.astype(x, self.xp.float64) if self.xp.isdtype(x.dtype, "bool") else x

    def shape(self, x):
        return tuple(x.shape) if hasattr(x, "shape") else ()

    def ndim(self, x):
        return len(self.shape(x))

    def size(self, x):
        return math.prod(self.shape(x))

    def where(self, c, a, b):
        a_, b_, c = self.array(a, b), self.array(b, a), self.array(c)
        if not self.xp.isdtype(c.dtype, "bool"):  # NumPy's truth of a number: nonzero
            c = c != 0
        return self.xp.where(c, a_, b_)

    def expand_dims(self, x, axis):
        x = self.array(x)
        if isinstance(axis, int):
            return self.xp.expand_dims(x, axis=axis)
        rank = x.ndim + len(axis)
        for a in sorted(i % rank for i in axis):
            x = self.xp.expand_dims(x, axis=a)
        return x

    def reshape(self, x, shape, order=None):
        if order not in (None, "C"):
            raise BackendError(f"np.reshape(..., order={order!r}) on {self.xp.__name__} "
                               "arrays (the standard's reshape has no order)")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return self.xp.reshape(self.array(x), shape)

    def broadcast_to(self, x, shape):
        return self.xp.broadcast_to(self.array(x), tuple(shape))

    def transpose(self, x, axes=None):
        x = self.array(x)
        axes = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
        return self.xp.permute_dims(x, axes)

    def swapaxes(self, x, a, b):
        axes = list(range(x.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.xp.permute_dims(x, tuple(axes))

    def squeeze(self, x, axis=None):
        if axis is None:
            axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
        return self.xp.squeeze(x, axis=axis)

    def trace(self, a, offset=0, axis1=0, axis2=1):
        if sorted((axis1 % a.ndim, axis2 % a.ndim)) != [a.ndim - 2, a.ndim - 1]:
            raise BackendError(f"np.trace over axes ({axis1}, {axis2}) on {self.xp.__name__} "
                               "arrays: the standard's trace takes the last two axes",
                               hint="move the axes last first (xp.moveaxis)")
        return self.xp.linalg.trace(a, offset=offset)

    def std(self, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return self.xp.std(self.array(x), axis=_axis(axis), correction=ddof, keepdims=keepdims)

    def var(self, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return self.xp.var(self.array(x), axis=_axis(axis), correction=ddof, keepdims=keepdims)

    def clip(self, x, a_min=None, a_max=None, min=None, max=None):  # noqa: A002 (NumPy's)
        low, high = a_min if min is None else min, a_max if max is None else max
        return self.xp.clip(self.array(x), min=low, max=high)

    def copy(self, x):
        """``x.copy()``: a list, dict or array of the namespace, copied."""
        if isinstance(x, (list, dict)):
            return type(x)(x)
        return self.xp.asarray(x, copy=True)

    def outer(self, a, b):
        return self.xp.reshape(self.array(a), (-1, 1)) * self.xp.reshape(self.array(b), (1, -1))

    def concatenate(self, arrays_, axis=0):
        return self.xp.concat([self.array(a) for a in arrays_], axis=axis)

    def stack(self, arrays_, axis=0):
        return self.xp.stack([self.array(a) for a in arrays_], axis=axis)

    def zeros(self, shape, dtype=None):
        return self.xp.zeros(shape, dtype=self.dtype(dtype))

    def ones(self, shape, dtype=None):
        return self.xp.ones(shape, dtype=self.dtype(dtype))

    def zeros_like(self, x, dtype=None):
        return self.xp.zeros(self.shape(x), dtype=self.dtype(dtype))

    def ones_like(self, x, dtype=None):
        return self.xp.ones(self.shape(x), dtype=self.dtype(dtype))

    def full(self, shape, value, dtype=None):
        return self.zeros(shape, dtype) + self.array(value)


def _unary(ns, fn):
    def unary(x):
        return fn(ns.array(x))
    unary.__name__ = fn.__name__
    return unary


def _binary(ns, fn):
    def binary(a, b):
        return fn(ns.array(a, b), ns.array(b, a))
    binary.__name__ = fn.__name__
    return binary


def _reduce(ns, fn):
    def reduce(x, axis=None, keepdims=False):
        axis = tuple(axis) if isinstance(axis, list) else axis
        return fn(ns.array(x), axis=axis, keepdims=keepdims)
    reduce.__name__ = fn.__name__
    return reduce


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


class _Linalg:
    def __init__(self, ns):
        linalg = ns.xp.linalg
        self.det, self.inv, self.solve = linalg.det, linalg.inv, linalg.solve


def answers(ns, path):
    """Whether ``ns`` has NumPy's name ``path`` (``tanh``, ``linalg.det``)."""
    obj = ns
    for part in path.split("."):
        if part.startswith("_") or part == "xp" or not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


# ---------------------------------------------------------------- the gradient helpers


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
        shape = ns.shape(like)
        return value if ns.shape(value) == shape else xp.broadcast_to(ns.array(value), shape)

    def add(a, b):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
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
            out[index] = 0.0 * out[index]
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

    def layout(x):
        return x  # (a stand-in without memory is NumPy's; the array itself serves)

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

    return {f.__name__: f for f in (
        unbroadcast, unbroadcast_to, grad_sum, grad_mean, grad_extremum, grad_reshape, scatter,
        check_scalar, broadcast_as, add, like, total, transpose_grad, grad_matmul_a,
        grad_matmul_b, check_real, grad_concatenate, grad_stack, grad_prod,
        square_chunks, grad_var, grad_std, grad_clip, layout, cleared, copy_tangent,
        zeros_like)}


def _batched(what, xp):
    return arrays.placed(BackendError(
        f"the gradient of {what} for these ranks on {xp.__name__} arrays: the standard "
        "backend's form covers vectors and matrices", construct=what,
        hint="reshape to matrices, or use NumPy arrays"))


def _raise(error):
    raise error


def namespace_of(values):
    """The array API namespace of the arrays among ``values`` that lack NumPy's dispatch
    protocols (``array-api-strict``'s), or None when there are none; a
    :class:`srcad.BackendError` when they come from two namespaces."""
    found = {}
    for v in values:
        if foreign_array(v):
            try:
                space = v.__array_namespace__()
            except Exception:  # noqa: BLE001 - an object that only looks like an array
                return None
            found[id(space)] = space
    if len(found) > 1:
        raise BackendError("arrays of two array API namespaces in one call",
                           hint="convert them to one library first")
    return next(iter(found.values()), None)


def on_standard_arrays(call, func, bound):
    """``call()`` (srcad's code for ``func``, arrays of the standard among the arguments
    ``bound``), with an operation the standard's arrays lack (NumPy's arithmetic on
    booleans, say) refused with a :class:`srcad.BackendError` naming the backend and the
    user's line, instead of the library's own exception. When ``func`` itself fails on those
    arguments, the exception is the user's and passes unchanged."""
    try:
        return call()
    except (TypeError, ValueError, IndexError, AttributeError) as err:
        try:
            func(*bound.args, **bound.kwargs)
        except Exception:  # noqa: BLE001 - the function's own failure: the user's to see
            raise err from None
        raise _failure(err, func, bound) from err


def _failure(err, func, bound):
    import linecache
    import traceback

    space = namespace_of(bound.arguments.values())
    code = func.__code__
    error = BackendError(
        f"the standard backend (code for {space.__name__} arrays, written in their array API "
        f"namespace) ran an operation those arrays do not have as NumPy's do: "
        f"{type(err).__name__}: {err}", filename=code.co_filename,
        lineno=code.co_firstlineno,
        hint="write that line with the functions srcad.rules.array_api lists, or pass NumPy "
        "arrays (np.from_dlpack(x)) and convert the gradient back (xp.asarray(g))")
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not frame.filename.startswith("<srcad "):
            continue
        lines = linecache.getlines(frame.filename)
        error.construct = (frame.line or "").strip() or None
        for text in reversed(lines[:frame.lineno]):
            comment = text.strip()
            if comment.startswith("# line ") and comment[7:].split(":")[0].isdigit():
                error.lineno = int(comment[7:].split(":")[0])
                error.construct = f"{comment[7:].partition(':')[2].strip()}  " \
                    f"(generated: {error.construct})"
                break
        break
    error.args = (error._format(),)
    return error
