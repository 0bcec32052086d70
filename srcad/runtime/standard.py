"""What code made for arrays of the array API standard (``array-api-strict``: no NumPy
dispatch protocols) runs on: NumPy's names computed in the arrays' namespace
(:class:`Namespace`), the namespace of a call's arrays (:func:`namespace_of`), and the
refusal of what fails on them at run time (:func:`on_standard_arrays`).

The generated code is NumPy's code (NumPy's rules made it); :mod:`srcad.backend.standard`
binds its ``np`` to a :class:`Namespace` over the arrays' namespace (spelled ``xp`` in the
code), and the helpers it calls to their forms in :mod:`.standard_helpers`. A NumPy name or
a helper that is in neither is refused when the code is made, naming the rule that wrote it.
Nothing here converts an array to NumPy.

Imports ``srcad.core``, ``srcad.errors``.
"""

from __future__ import annotations

import math

from .. import errors
from ..core.kinds import foreign_array
from ..errors import BackendError

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
_SAME = ("matmul", "moveaxis", "float64", "float32", "int64", "int32", "bool", "pi", "e",
         "inf", "nan", "newaxis", "arange")
#: NumPy's reductions by the order of their positional parameters after ``axis``
#: (``np.sum(a, axis, dtype, out, keepdims)``, ``np.max(a, axis, out, keepdims)``)
_REDUCE = {"sum": ("dtype", "out", "keepdims"), "prod": ("dtype", "out", "keepdims"),
           "mean": ("dtype", "out", "keepdims"), "max": ("out", "keepdims"),
           "min": ("out", "keepdims"), "all": ("out", "keepdims"), "any": ("out", "keepdims"),
           "argmax": ("out",), "argmin": ("out",)}


class Namespace:
    """NumPy's names, each computed in the namespace ``xp`` with NumPy's arguments (Python
    numbers become 0-d arrays of the other operand's type): the ufuncs of :data:`_UNARY`
    and :data:`_BINARY`, the reductions of :data:`_REDUCE`, ``linalg`` (:data:`_LINALG`),
    and the methods below; :func:`answers` tells whether it has one."""

    def __init__(self, xp):
        self.xp = xp
        self.kind = type(xp.asarray(0.0))  # the namespace's array type
        self.linalg = _Linalg(self)
        for np_name, name in _UNARY.items():
            setattr(self, np_name, _unary(self, getattr(xp, name)))
        for np_name, name in _BINARY.items():
            setattr(self, np_name, _binary(self, getattr(xp, name)))
        self.flip = lambda x, axis=None: xp.flip(x, axis=axis)
        for name in _SAME:
            setattr(self, name, getattr(xp, name))
        self.tril = lambda x, k=0: xp.tril(x, k=k)
        self.triu = lambda x, k=0: xp.triu(x, k=k)
        for name in ("vecdot", "cumulative_sum", "cumulative_prod"):  # newer in the standard
            if hasattr(xp, name):
                setattr(self, name, getattr(xp, name))
        for name, after in _REDUCE.items():
            setattr(self, name, _reduce(self, getattr(xp, name), after))
        self.amax, self.amin = self.max, self.min

    def __repr__(self):
        return f"<NumPy's names in {self.xp.__name__}>"

    def array(self, x, like=None):
        """``x`` as an array of the namespace (a Python number: of ``like``'s type where that
        is a floating one, as NumPy's arithmetic would make it)."""
        if isinstance(x, self.kind):
            return x
        if isinstance(x, (int, float)) and not isinstance(x, bool) and isinstance(
                like, self.kind) and self.xp.isdtype(like.dtype, "real floating"):
            return self.xp.asarray(x, dtype=like.dtype)
        return self.xp.asarray(x)

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

    def sort(self, x, axis=-1, kind=None, order=None, stable=None):
        if axis is None or order is not None:
            raise BackendError(f"np.sort(..., axis=None or order=) on {self.xp.__name__} "
                               "arrays: the standard's sort takes an axis",
                               hint="reshape to one axis first (xp.reshape(x, (-1,)))")
        return self.xp.sort(self.array(x), axis=axis)

    def cumsum(self, x, axis=None):
        x = self.array(x)
        if axis is None:
            return self.xp.cumulative_sum(self.xp.reshape(x, (-1,)))
        return self.xp.cumulative_sum(x, axis=axis)

    def diagonal(self, a, offset=0, axis1=0, axis2=1):
        """NumPy's diagonal (of ``axis1``, ``axis2``, last in the result) by the extension's
        (of the last two axes)."""
        a = self.array(a)
        moved = self.xp.moveaxis(a, (axis1 % a.ndim, axis2 % a.ndim), (-2, -1))
        return self.xp.linalg.diagonal(moved, offset=offset)

    def tensordot(self, a, b, axes=2):
        return self.xp.tensordot(self.array(a), self.array(b), axes=axes)

    def eye(self, n, m=None, k=0, dtype=None):
        return self.xp.eye(n, m, k=k, dtype=self.dtype(dtype))

    def linspace(self, start, stop, num=50, endpoint=True, retstep=False, dtype=None):
        if retstep:
            raise BackendError(f"np.linspace(..., retstep=True) on {self.xp.__name__} arrays")
        return self.xp.linspace(start, stop, num, endpoint=endpoint, dtype=self.dtype(dtype))

    def zeros_like(self, x, dtype=None):
        return self.xp.zeros(self.shape(x), dtype=self._like(x, dtype))

    def ones_like(self, x, dtype=None):
        return self.xp.ones(self.shape(x), dtype=self._like(x, dtype))

    def _like(self, x, dtype):
        """NumPy's dtype for ``np.zeros_like(x, dtype)``: ``x``'s own when none is given."""
        if dtype is None and isinstance(x, self.kind):
            return x.dtype
        return self.dtype(dtype)

    def ravel(self, x):
        return self.xp.reshape(self.array(x), (-1,))

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


def _reduce(ns, fn, after):
    """NumPy's reduction ``fn`` (its parameters after ``axis`` in NumPy's order: ``after``)
    as the namespace's, which takes them by keyword; ``out=`` and a ``dtype`` other than
    float64 refused."""
    def reduce(x, axis=None, *args, **kwargs):
        given = dict(zip(after, args), **kwargs)
        dtype, out = given.pop("dtype", None), given.pop("out", None)
        if out is not None or set(given) - {"keepdims"} or dtype not in (None, float) and (
                ns.dtype(dtype) != ns.xp.float64):
            raise BackendError(f"np.{fn.__name__} with {sorted(kwargs) or 'these arguments'} "
                               f"on {ns.xp.__name__} arrays", hint="leave out out=, "
                               "initial=, where=, and keep float64")
        if given.get("keepdims"):
            return fn(ns.array(x), axis=_axis(axis), keepdims=True)
        return fn(ns.array(x), axis=_axis(axis))
    reduce.__name__ = fn.__name__
    return reduce


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


class _Linalg:
    """``np.linalg``'s names the namespace's linalg extension has (NumPy 2 follows it)."""

    def __init__(self, ns):
        linalg = getattr(ns.xp, "linalg", None)
        for name in _LINALG:
            if hasattr(linalg, name):
                setattr(self, name, getattr(linalg, name))


_LINALG = ("det", "inv", "solve", "slogdet", "cholesky", "pinv", "matrix_power", "eigh",
           "eigvalsh", "svd", "svdvals", "vector_norm", "matrix_norm", "trace", "diagonal",
           "outer", "cross", "matmul", "tensordot", "vecdot", "qr")


def answers(ns, path):
    """Whether ``ns`` has NumPy's name ``path`` (``tanh``, ``linalg.det``)."""
    obj = ns
    for part in path.split("."):
        if part.startswith("_") or part in ("xp", "kind") or not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


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


def on_standard_arrays(call, func, args, kwargs=None):
    """``call()`` (srcad's code for ``func``, arrays of the standard among the arguments
    ``args``, ``kwargs``), with an operation the standard's arrays lack (NumPy's arithmetic on
    booleans, say) refused with a :class:`srcad.BackendError` naming the backend and the
    user's line, instead of the library's own exception. When ``func`` itself fails on those
    arguments, the exception is the user's and passes unchanged."""
    try:
        return call()
    except (TypeError, ValueError, IndexError, AttributeError) as err:
        kwargs = kwargs or {}
        try:
            func(*args, **kwargs)
        except Exception:  # noqa: BLE001 - the function's own failure: the user's to see
            raise err from None
        raise _failure(err, func, [*args, *kwargs.values()]) from err


def _failure(err, func, values):
    import linecache
    import traceback

    space = namespace_of(values)
    code = getattr(func, "__code__", None) or getattr(type(func).__call__, "__code__", None)
    error = BackendError(
        f"the standard backend (code for {space.__name__} arrays, written in their array API "
        f"namespace) ran an operation those arrays do not have as NumPy's do: "
        f"{type(err).__name__}: {err}", filename=getattr(code, "co_filename", None),
        lineno=getattr(code, "co_firstlineno", None),
        hint="write that line with the functions srcad.rules.array_api lists, or pass NumPy "
        "arrays (np.from_dlpack(x)) and convert the gradient back (xp.asarray(g))")
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        where = errors.running_line(frame.filename, frame.lineno)  # generated code's line
        if where is None or where[0].startswith("<srcad"):
            continue
        error.filename, error.lineno = where
        text = linecache.getline(*where).strip()
        generated = (frame.line or "").strip()
        error.construct = f"{text}  (generated: {generated})" if text else generated or None
        break
    error.args = (error._format(),)
    return error
