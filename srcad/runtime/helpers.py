"""Helpers that generated code calls. Kept few and small: scalar code calls none of them.

Each is a plain function so that generated code stays ordinary Python that srcad can read,
marked ``@helper("runtime")`` to enter the registry generated code's names are bound from.
Imports only ``srcad.runtime.registry``, ``.arrays``, ``.zero_grads``, ``.likes`` (and
``srcad.errors``).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import arrays
from .likes import like_items
from .registry import helper
from .zero_grads import all_zero, held_itself


@helper("runtime")
def sign(x):
    """The sign of a scalar: -1.0, 0.0 or 1.0 (0.0 at 0, as NumPy, PyTorch and JAX)."""
    if isinstance(x, (complex, np.complexfloating)):  # abs(x ** 1.5): check_real refuses
        return x.conjugate() / abs(x) if x else 0.0
    return 1.0 if x > 0 else -1.0 if x < 0 else 0.0  # NumPy scalars too (bools do not subtract)


@helper("runtime")
def log_base(a, by=None):
    """``log(a)`` in ``d/db a ** b``, whose term is ``by * log_base(a, by)``, ``by`` the
    cotangent (or tangent) times ``a ** b``: 0 at 0. At a negative ``a``: 0 where ``by`` is 0
    (that term is 0: a constant exponent's zero tangent, issue 16); elsewhere complex where
    ``by`` is (a complex program: Python's ``(-8.0) ** (1 / 3)``, holomorphic code;
    ``check_real`` refuses it for a real argument) or ``by`` is not given, and nan where
    ``by`` is real, as NumPy's ``a ** b`` around ``b`` is (no derivative in the exponent at
    a negative base; a complex one would lose its imaginary part unseen, added into an item
    of a real gradient array: a finite wrong number)."""
    if isinstance(a, np.ndarray) or arrays.is_duck(a):  # Dask: no look at the values (lazy)
        if arrays.library(a) == "dask" or a.dtype.kind == "c" or not bool(np.any(a < 0)):
            return np.log(np.where(a == 0, 1.0, a))
        if by is None or np.iscomplexobj(by):
            return np.log(np.where(a == 0, 1.0, a) + 0j)
        flat = np.where(by == 0, 0.0, np.nan) if np.shape(by) in ((), a.shape) else np.nan
        return np.where(a < 0, flat, np.log(np.where(a <= 0, 1.0, a)))
    if np.iscomplexobj(a):
        return np.log(a)
    if a > 0:
        return math.log(a)
    if not a:
        return 0.0
    if by is None or np.iscomplexobj(by):
        return complex(math.log(-a), math.pi)
    return math.nan if np.any(by) else 0.0  # (nan is true: a nan by gives nan)


@helper("runtime")
def which_max(items):
    """The index of the item ``max(items)`` returns (ties and NaN: the earlier one, as Python)."""
    return _which(items, operator.gt, np.argmax)


@helper("runtime")
def which_min(items):
    """The index of the item ``min(items)`` returns (ties and NaN: the earlier one)."""
    return _which(items, operator.lt, np.argmin)


def _which(items, better, first_best):
    if type(items) is np.ndarray and items.ndim == 1 and not np.isnan(items).any():
        return int(first_best(items))  # the first of the best, as Python's max and min
    best = 0
    for i in range(1, len(items)):
        if better(items[i], items[best]):
            best = i
    return best


@helper("runtime")
def where(c, a, b):
    return a if c else b


@helper("runtime")
def erf(x):
    return np.vectorize(math.erf, otypes=[float])(x)


_SHAPED = (np.ndarray, np.float64)
_CONTAINERS = (list, tuple, dict)  # types whose .shape is np.shape's answer, read directly
_SMALL = 16  # the most items total() sums in Python


@helper("runtime")
def unbroadcast(value, like):
    """Sum ``value`` down to the shape of ``like`` (undo NumPy broadcasting). The gradient of
    a container (a list for a list: ``add`` of two contexts in srcad's own code) is itself."""
    g = value
    if type(g) is np.ndarray and type(like) is np.ndarray and g.shape == like.shape:
        return g  # the common case first: two arrays of one shape (a third of the cost)
    if type(g) in _CONTAINERS and type(like) in _CONTAINERS:
        return list(g) if type(g) is list else g  # a new list (changed in place later)
    shape = like.shape if type(like) in _SHAPED else np.shape(like)
    gshape = g.shape if type(g) in _SHAPED else np.shape(g)
    if gshape == shape:  # (a number's a number: the sweep's dx += g changes a 0-d array)
        return g[()] if not shape and type(g) is np.ndarray and type(like) is not np.ndarray else g
    if not shape:
        return g.sum() if type(g) is np.ndarray else np.sum(g)  # the method: no dispatch
    extra = len(gshape) - len(shape)
    if extra < 0 and math.prod(gshape) == 1:
        # the seed 1.0 of grad's output of size 1, rank > 0 (shape (1,)): ones of its shape
        if type(g) is not np.ndarray and arrays.is_duck(g):
            return arrays.writable_copy(np.reshape(g, ()), shape)
        return np.full(shape, np.reshape(g, ()), dtype=complex if _is_complex(g) else float)
    if extra:
        g = np.sum(g, axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if axes:
        g = np.sum(g, axis=axes, keepdims=True)
    return g


@helper("runtime")
def unbroadcast_to(value, shape):
    """Sum ``value`` down to ``shape`` (what :func:`unbroadcast` does, given the shape)."""
    kind = type(value)
    if (value.shape if kind in _SHAPED else () if kind is float else np.shape(value)) == shape:
        return value  # the common case, without np.shape's Python-level call
    if kind is np.ndarray and shape == ():
        return value.sum()  # to a number (np.sum's result, without its dispatch)
    if type(value) is not np.ndarray and arrays.is_duck(value):  # no memory for the shape
        return unbroadcast(value, np.broadcast_to(0.0, shape))
    return unbroadcast(value, np.empty(shape) if shape else 0.0)


_NO_MEMORY = bytes(64)  # backs every layout: with every stride 0, one element is read
_KEPT_BELOW = 16384  # bytes: a smaller array is kept itself (cheaper than its stand-in)
_STAND_INS = {}  # (shape, dtype) -> its stand-in


@helper("runtime")
def layout(x):
    """A stand-in for ``x`` where only its layout is read: a NumPy array's shape, dtype,
    class and rank (a rule's ``shape_only`` argument, kept for the backward sweep). An array
    of numbers of 16 KiB or more becomes a read-only array of zeros of its shape and dtype
    that owns no memory (every stride 0), so no large array is kept alive just for its shape
    (memory the next arrays would have reused); a list or tuple holding one, a new one of its
    class with its arrays' and tuples' layouts (a list inside is kept itself: it may still
    change); anything else (a small array, a number, a Dask or CuPy array, an array of
    objects) is itself. The array's shape and dtype cannot change in place, so a stand-in
    made where the value is assigned stands for it wherever it is read; generated code
    applies this to a list only when nothing changes the list after it is built."""
    kind = type(x)
    if kind is np.ndarray:
        dtype = x.dtype
        if x.nbytes < _KEPT_BELOW or dtype.kind not in "biufc" or dtype.itemsize > 64:
            return x
        key = (x.shape, dtype)
        stand_in = _STAND_INS.get(key)
        if stand_in is None:  # read-only and without memory: one per shape and dtype serves
            if len(_STAND_INS) >= 256:
                _STAND_INS.clear()
            stand_in = _STAND_INS[key] = np.ndarray(x.shape, dtype, _NO_MEMORY, 0, (0,) * x.ndim)
        return stand_in
    if kind is tuple or kind is list:
        for v in x:  # the common case first: small arrays only, kept as they are
            if type(v) is not np.ndarray or v.nbytes >= _KEPT_BELOW:
                break
        else:
            return x
        return kind([layout(v) if type(v) is np.ndarray or type(v) is tuple else v
                     for v in x])
    return x


@helper("runtime")
def expand(value, like, axis=None, keepdims=False):
    """Broadcast the gradient of a reduction of ``like`` back to ``like``'s shape."""
    g, shape = value, np.shape(like)
    if axis is not None and not keepdims:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        g = np.expand_dims(g, tuple(a % len(shape) for a in axes))
    if type(like) is not np.ndarray and arrays.is_duck(like):
        return arrays.spread(g, like)
    return np.broadcast_to(g, shape)


@helper("runtime")
def fill(value, like):
    """The gradient of ``sum(like)`` for a list or an array: ``value`` for every element."""
    if isinstance(like, (list, tuple)):  # each at its own shape: a number among arrays
        return [value] * len(like) if type(value) is not np.ndarray else [value if type(i) in
                _CONTAINERS or np.shape(i) == value.shape else unbroadcast(value, i) for i in like]
    if type(like) is not np.ndarray and arrays.is_duck(like):
        return arrays.spread(value, like)
    return np.broadcast_to(value, np.shape(like)).copy()


@helper("runtime")
def total(value):
    """Sum a list gradient or an array gradient (the reverse of :func:`fill`). A small array
    of float64s or complex128s is summed by Python over its items (a fifth of the time of
    NumPy's reduction, whose fixed cost dominates below a few dozen items: a 3-vector's
    gradient flowing into a number, ``x * v``'s into ``x``), a larger one by NumPy."""
    kind = type(value)
    if kind is np.ndarray:
        if value.size <= _SMALL and value.dtype.char in "dD":
            return sum(value.ravel().tolist(), 0.0)
        return value.sum()
    if kind is float:
        return value
    if isinstance(value, list):
        return sum(value)
    return np.sum(value)


@helper("runtime")
def broadcast_as(value, like):
    """``value`` broadcast to ``like``'s shape, undoing :func:`unbroadcast` (where that spread
    a value of one element to a higher rank, a cleared item's ``0.0`` met by an array, undoing
    it is a sum). A container: its first ``len(like)`` items, as :func:`add` zips (the tangent
    of ``add``'s broadcasting; ``add`` is handed lists of one length: ``Rules.kept_read``)."""
    if type(value) in _CONTAINERS and type(like) in _CONTAINERS:
        if type(value) is not dict and type(like) is not dict and len(value) > len(like):
            return value[:len(like)]
        return value
    shape = np.shape(like)
    if np.shape(value) == shape:
        return value
    if type(like) is not np.ndarray and arrays.is_duck(like):
        return arrays.spread(value, like)
    if np.ndim(value) > len(shape) and math.prod(shape) == 1:
        return unbroadcast(value, like)
    return np.broadcast_to(value, shape)


@helper("runtime")
def shape_of(x, *more):
    """``np.shape(x)``, its common cases first (an array, a number) without its dispatch;
    with ``more``, the shape they broadcast to together (``x * y``'s, not computing it)."""
    if more:
        return np.broadcast_shapes(shape_of(x), *[shape_of(m) for m in more])
    kind = type(x)
    if kind is np.ndarray:
        return x.shape
    if kind is float or kind is np.float64 or kind is int:
        return ()
    return np.shape(x)


@helper("runtime")
def zeros_array(x):
    """``np.zeros_like(x, dtype=float)`` (an array's zero gradient), without its dispatch."""
    if type(x) is np.ndarray:
        return np.zeros(x.shape)
    return np.zeros_like(x, dtype=float)


@helper("runtime")
def zeros_like(x):
    """A zero gradient shaped like ``x``: a float for scalars; a (mutable) list for a list or
    tuple, a dict for a dict (the backward sweep adds into its elements)."""
    if type(x) is np.ndarray:  # the common cases first, without isinstance's cost
        return np.zeros(x.shape)
    if isinstance(x, (list, tuple, dict)):
        try:
            return {k: zeros_like(v) for k, v in x.items()} if isinstance(x, dict) else [
                np.zeros(v.shape) if type(v) is np.ndarray else zeros_like(v) for v in x]
        except RecursionError:  # one holding itself (b = a; a.append(b))
            raise held_itself(x) from None
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape) if x.dtype.kind != "c" else np.zeros(x.shape, complex)
    if arrays.is_duck(x):
        return np.zeros_like(x, dtype=float)  # Dask, CuPy: in their library
    return 0.0


@helper("runtime")
def add(a, b):
    """Add two gradients of any structure (numbers, arrays, lists, tuples, dicts), sharing
    nothing with ``a`` or ``b`` (the alias analysis counts on it: one dict's own items copied)."""
    kind = type(a)
    if kind is np.ndarray or kind is float or kind is np.float64:
        try:
            return a + b  # the common cases first, without isinstance's cost
        except TypeError:
            pass
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):  # zip would drop the longer one's last items, unseen
            if all_zero(a) or all_zero(b):  # unless one is a zero made of a list popped
                return _fresh(b if all_zero(a) else a)  # since it was read (.zero_grads)
            raise RuntimeError(
                f"srcad: two gradients of one list have {len(a)} and {len(b)} items (a bug "
                "in srcad's code for changes of a list's length; please report it)")
        return [add(u, v) for u, v in zip(a, b)]
    if a is None or b is None:  # a rule's zero for a part (cho_factor's lower flag)
        return _fresh(b if a is None else a)
    if isinstance(b, (list, tuple, dict)) and _zero_number(a):
        return _fresh(b)  # the zero of a value with no structure to copy (an exhausted
    if isinstance(a, (list, tuple, dict)) and _zero_number(b):  # iterator) meets a list
        return _fresh(a)
    if isinstance(a, dict):
        out = {k: add(a[k], b[k]) if k in b else _fresh(a[k]) for k in a}
        out.update((k, _fresh(v)) for k, v in b.items() if k not in a)
        return out
    return a + b


def _zero_number(x):
    return type(x) in (float, int, np.float64) and x == 0


def _fresh(grad):
    """A copy of a gradient: new lists, dicts and arrays all the way down."""
    if isinstance(grad, (list, tuple)):
        return [_fresh(g) for g in grad]
    if isinstance(grad, dict):
        return {k: _fresh(g) for k, g in grad.items()}
    if isinstance(grad, np.ndarray):
        return grad.copy()
    return grad


@helper("runtime")
def copy_tangent(tangent, value):
    """A writable tangent for ``y[i] = v``: a list for a list, else a float array like ``value``."""
    kind = type(tangent)
    if (kind is dict or kind is list) and type(value) is kind:  # (parameters': no isinstance)
        return tangent.copy()
    if isinstance(value, (list, tuple, dict)):
        if isinstance(tangent, (list, tuple, dict)):
            return dict(tangent) if isinstance(tangent, dict) else list(tangent)
        return zeros_like(value)
    if type(value) is not np.ndarray and arrays.is_duck(value):
        return arrays.writable_copy(tangent, value.shape)
    return np.array(np.broadcast_to(tangent, np.shape(value)),  # complex stays complex
                    dtype=complex if _is_complex(tangent) or _is_complex(value) else float)


@helper("runtime")
def copy_tangent_grad(cot, tangent, value):
    """The gradient flowing to ``tangent`` through ``copy_tangent(tangent, value)``: ``cot``
    summed back to ``tangent``'s shape (zero where ``copy_tangent`` made zeros of a list);
    the real part for a real tangent copied into a complex array."""
    if isinstance(value, (list, tuple, dict)):
        return cot if isinstance(tangent, (list, tuple, dict)) else zeros_like(tangent)
    out = unbroadcast(cot, tangent)
    if _is_complex(out) and not _is_complex(tangent):
        out = np.real(out)
    return out


@helper("runtime")
def like_grad(cot, grad):
    """The gradient flowing to ``grad`` through ``like(grad, value)``: ``cot`` in ``grad``'s
    structure, each leaf summed back to ``grad``'s leaf (where ``like`` broadcast it)."""
    if isinstance(grad, (list, tuple)) and isinstance(cot, (list, tuple)):
        return [like_grad(c, g) for c, g in zip(cot, grad)]
    if isinstance(grad, dict) and isinstance(cot, dict):
        return {k: like_grad(cot[k], g) for k, g in grad.items()}
    return unbroadcast(cot, grad)


@helper("runtime")
def mutable(grad):
    """A new list (dict) for each list or tuple (dict) in ``grad``, leaves as they are: the
    gradient of a structured argument that a callee's backward part hands its caller, who
    adds into its items in place (it must not share them with the callee's own)."""
    kind = type(grad)
    if kind is list or kind is tuple:  # the common case: its leaves as they are, no call each
        return [g if type(g) is np.ndarray or type(g) is float else mutable(g) for g in grad]
    if isinstance(grad, (list, tuple)):
        return [mutable(g) for g in grad]
    if isinstance(grad, dict):
        return {k: mutable(g) for k, g in grad.items()}
    return grad


@helper("runtime")
def like(grad, value):
    """``grad`` in ``value``'s structure: tuples where it has tuples, each leaf a float or array."""
    if isinstance(value, dict):  # first, a loop (a dict of parameters'; no comprehension frame)
        out = {}
        for k, v in value.items():  # (a float's tangent is as it is: no call for it)
            out[k] = grad[k] if type(v) is float else like(grad[k], v)
        return out
    if isinstance(value, (list, tuple)):  # (the backward sweep builds lists)
        return like_items(grad, value, like)
    if isinstance(value, np.ndarray) and np.shape(grad) != value.shape:
        return np.broadcast_to(grad, value.shape).astype(complex if _is_complex(grad) else float)
    if arrays.is_duck(value) and np.shape(grad) != value.shape:
        return arrays.spread(grad, value)
    return grad


@helper("runtime")
def dot_grad_a(g, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    if np.ndim(b) == 1:
        return np.multiply.outer(g, b) if np.ndim(a) > 1 else g * b
    return np.dot(g, np.swapaxes(b, -1, -2)) if np.ndim(a) > 1 else np.dot(b, g)


@helper("runtime")
def dot_grad_b(g, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    if np.ndim(a) == 1:
        return np.multiply.outer(a, g) if np.ndim(b) > 1 else g * a
    if np.ndim(b) == 1:
        return np.dot(np.swapaxes(a, -1, -2), g)
    return np.dot(np.swapaxes(a, -1, -2), g)


@helper("runtime")
def matmul_grad_a(g, a, b):
    if np.ndim(b) == 1:
        return unbroadcast(np.multiply.outer(g, b) if np.ndim(a) > 1 else g * b, a)
    if np.ndim(a) == 1:
        return unbroadcast(np.matmul(b, g), a)
    return unbroadcast(np.matmul(g, np.swapaxes(b, -1, -2)), a)


@helper("runtime")
def matmul_grad_b(g, a, b):
    if np.ndim(a) == 1:
        return unbroadcast(np.multiply.outer(a, g) if np.ndim(b) > 1 else g * a, b)
    if np.ndim(b) == 1:
        return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), g[..., None])[..., 0]
                           if np.ndim(g) else np.matmul(np.swapaxes(a, -1, -2), g), b)
    return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), g), b)


@helper("runtime")
def transpose_grad(g, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, tuple(int(i) for i in np.argsort(np.mod(axes, np.ndim(g)))))


@helper("runtime")
def real_part(grad):
    """The real part of a gradient of any structure (numbers, arrays, lists, tuples, dicts):
    what flows back into a real value from a complex one (JAX's convention)."""
    if isinstance(grad, (list, tuple)):
        return [real_part(g) for g in grad]
    if isinstance(grad, dict):
        return {k: real_part(g) for k, g in grad.items()}
    if grad is None:
        return None
    return np.real(grad)


@helper("runtime")
def check_holomorphic(y, where=None):
    """``grad(f, holomorphic=True)``: one complex number out (a shape read: Dask computes none)."""
    if not (np.iscomplexobj(y) and math.prod(np.shape(y)) == 1):
        from ..errors import NonScalarOutputError

        filename, _, line = (where or "").rpartition(":")
        raise NonScalarOutputError(
            f"grad(..., holomorphic=True) needs a complex scalar output, got "
            f"{type(y).__name__} of shape {np.shape(y)}", filename=filename or None,
            lineno=int(line) if line.isdigit() else None,
            hint="for a real-valued function leave holomorphic out; for an array output use "
            "srcad.vjp")


@helper("runtime")
def check_real(grad, name, where=None):
    """The gradient of a real argument, checked real: a complex one means a value srcad took
    for real was complex at run time (``(-8.0) ** (1 / 3)``, an object's attribute holding a
    complex number), and the number returned would be wrong (JAX's convention sends the real
    part back): refused instead (see ``srcad.analysis.complexity.unseen_complex``)."""
    if _is_complex(grad) or isinstance(grad, (list, tuple, dict)) and any(
            _is_complex(g) for g in (grad.values() if isinstance(grad, dict) else grad)):
        from ..errors import UnsupportedSyntaxError

        filename, _, line = (where or "").rpartition(":")
        raise UnsupportedSyntaxError(
            f"the gradient of the real argument {name!r} came out complex: a value srcad took "
            "for real was complex when the function ran (a negative number to a fractional "
            "power, an object's attribute holding a complex number)",
            filename=filename or None, lineno=int(line) if line.isdigit() else None,
            hint="make the value real where it is made (np.real(...), abs(x) ** p, "
            "np.power on arrays gives nan, not complex), or pass the complex value as an "
            "argument")
    return grad


@helper("runtime")
def check_scalar(y, where=None):
    """Refuse a non-scalar output in ``grad`` (``vjp`` handles any output); ``where`` is the
    function's ``file:line``. Returns the gradient of the output to start from: ``1.0``, or
    ones shaped like an array of one element (which ``grad`` takes, as autograd does)."""
    numeric = (isinstance(y, (int, float, np.number))
               and not isinstance(y, (complex, np.complexfloating))
               or isinstance(y, np.ndarray) and y.dtype.kind in "biuf")
    if not numeric and arrays.is_duck(y) and y.dtype.kind in "biuf" and y.ndim == 0:
        return 1.0  # a 0-d Dask or CuPy array: a number, computed or not yet
    if not numeric or np.size(y) != 1:
        from ..errors import NonScalarOutputError

        if not isinstance(y, (tuple, list, dict)) and np.iscomplexobj(y) and np.size(y) == 1:
            # (a tuple of an array and a number has no size: it is no scalar either way)
            filename, _, line = (where or "").rpartition(":")
            raise NonScalarOutputError(
                "grad of a complex-valued function", filename=filename or None,
                lineno=int(line) if line.isdigit() else None,
                hint="pass holomorphic=True if the function is holomorphic (its gradient is "
                "then f'(z)), or differentiate a real function of its value: np.real(...), "
                "np.abs(...) ** 2")
        filename, _, line = (where or "").rpartition(":")
        what = f"{type(y).__name__} of length {len(y)}" if isinstance(
            y, (tuple, list, dict)) else f"{type(y).__name__} of shape {np.shape(y)}"
        raise NonScalarOutputError(
            f"grad needs a scalar output, got {what}",
            filename=filename or None, lineno=int(line) if line.isdigit() else None,
            hint="use srcad.vjp(f, *args) for non-scalar outputs, or reduce the output "
            "(for instance with np.sum) first",
        )
    if type(y) is np.ndarray and y.ndim:
        return np.ones(y.shape)  # an array of one element: its gradient has its shape
    return 1.0


@helper("runtime")
def scatter(value, like, index):
    """The gradient of ``like[index]``: zeros shaped like ``like``, ``value`` added at ``index``
    (a list for a list or tuple, a dict for a dict)."""
    kind = type(value)
    if type(like) is np.ndarray and (kind is float or kind is np.float64 or (
            kind is np.ndarray and value.dtype.kind == "f")) and (
            type(index) is slice or type(index) is int or _basic_index(index)):
        out = np.zeros(like.shape)  # the common cases, without the checks below
        out[index] = value
        return out
    if isinstance(like, (list, tuple, dict)):
        out = zeros_like(like)
        out[index] = add(out[index], value)
        return out
    if type(like) is not np.ndarray and arrays.is_duck(like):
        return arrays.scatter(value, like, index)  # Dask, CuPy: zeros in their library
    out = np.zeros(like.shape if type(like) is np.ndarray else np.shape(like))
    if type(value) is not float and _is_complex(value):
        out = out.astype(complex)
    if _basic_index(index):
        out[index] = value  # basic indexing reaches each element once: no sums to make
    else:
        np.add.at(out, index, value)
    return out


def _is_complex(value):
    """A cheap test of a gradient: a complex number or a complex array."""
    if type(value) is complex:
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and dtype.kind == "c"


def _basic_index(index):
    """Whether ``index`` is an int, a slice, or a tuple of them (never a repeated element)."""
    kind = type(index)
    if kind is int or kind is slice:
        return True
    if kind is not tuple:
        return False
    for i in index:
        if type(i) is not int and type(i) is not slice:
            return False
    return True


@helper("runtime")
def added_at(grad, index, value):
    """``grad`` with ``value`` added at ``index`` (a slice): the gradient of ``ys[index]``
    added into that of the list ``ys``, as a new list."""
    out = mutable(grad)
    out[index] = add(out[index], value)
    return out


@helper("runtime")
def cleared(value, index):
    """The gradient flowing past ``y[index] = v`` to the old ``y``: ``value``, ``index`` zeroed
    (a list's or dict's leaf by 0.0: the old item's shape may differ, ``c[0] = c[0] + x``)."""
    if isinstance(value, (list, tuple, dict)):
        out = dict(value) if isinstance(value, dict) else list(value)
        out[index] = 0.0 if type(index) is not slice and not isinstance(out[index], (
            list, tuple, dict)) else zeros_like(out[index])
        return out
    if type(value) is not np.ndarray and arrays.is_duck(value):
        return arrays.cleared(value, index)
    out = np.array(value, dtype=complex if _is_complex(value) else float, copy=True)
    out[index] = 0.0
    return out

