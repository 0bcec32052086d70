"""The tape's engine: :class:`Var`, the values that record how they were computed.

Each operation on a ``Var`` goes through :func:`_apply`, which computes the value and, when an
argument requires grad, records the parents and a backward function built from the rule in
:data:`~.vjps.VJPS`. :meth:`Var.backward` walks the recorded graph in reverse. The helpers at
the end turn lists of Vars into one array Var (for ``np.array``, ``np.stack``, ``Var.dot``);
the NumPy shim in :mod:`.shims` uses them too.

Imports: NumPy, the standard library and :mod:`.vjps`.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .vjps import VJPS, _EachArgument, _unbroadcast

# ================================================================================================
# Errors
# ================================================================================================


class TapeError(Exception):
    """The base of the tape's refusals: it raises rather than give a silently wrong gradient."""


class LostGradientError(TapeError):
    """A Var that requires grad was about to become a plain number or array, losing the tape.

    Raised by ``float(x)``, ``np.asarray(x)``, ``math.tanh(x)`` (which calls ``float``) and
    writes into plain arrays, wherever the tape did not put its own stand-in in their place.
    Not a ``TypeError`` on purpose: NumPy and others catch those and try another conversion.
    """


class TapeUnsupportedError(TapeError, NotImplementedError):
    """A function without a derivative rule on the tape, or a use the tape does not follow."""


# Stand-ins for NumPy functions and ufuncs met through NumPy's dispatch protocols (Var's
# ``__array_function__`` and ``__array_ufunc__``): :mod:`.shims` sets this to a function from a
# real NumPy function to its tracing stand-in, or ``None`` when it has none.
_NUMPY_STAND_IN = [lambda fn: None]

# ================================================================================================
# Values
# ================================================================================================


def _as_value(x):
    """A Python float, or a float64 array of at least one dimension."""
    if type(x) is float:
        return x
    if isinstance(x, Var):
        return x.value
    if np.iscomplexobj(x):  # float64 would drop the imaginary part: refused, never dropped
        raise TapeUnsupportedError(
            "srcad.tape differentiates real values only, and this one is complex: use "
            "srcad.grad, srcad.vjp or srcad.jvp for complex numbers")
    a = np.asarray(x, dtype=np.float64)
    return float(a) if a.ndim == 0 else a


def _raw(x):
    """The value inside a Var; anything else as it is."""
    return x.value if isinstance(x, Var) else x


def _binary(rule, op, reflected=False):
    """The special method ``self <op> other`` (or ``other <op> self``) recording ``rule``."""
    if reflected:
        return lambda self, other: _apply(rule, op, other, self)
    return lambda self, other: _apply(rule, op, self, other)


def _compare(op):
    """A comparison of values: a plain bool (or bool array), so ``if``, ``while``, ``min`` work."""
    return lambda self, other: op(self.value, _raw(other))


class Var:
    """A float or float64 array that remembers how it was computed.

    ``Var(value, requires_grad=True)`` makes a leaf. Unlike ``torch.tensor``, a ``Var`` requires
    grad by default, since that is what it is for; pass ``requires_grad=False`` for a constant.

    Attributes:
        value: a Python float or a float64 array (ints and 0-d arrays become floats).
        grad: after :meth:`backward`, the accumulated gradient, with the shape of ``value``; kept
            only by leaves that require grad and by values that called :meth:`retain_grad`, else
            ``None`` (as in PyTorch).
        requires_grad: whether gradients flow to this value.
        grad_fn: ``None`` for a leaf; otherwise the PyTorch-style name of the rule that made it,
            ``"<Rule>Backward"`` (``"MulBackward"``, ``"SinBackward"``): torch's names without the
            trailing version digit.
        is_leaf: ``grad_fn is None``.

    Operators record the graph; comparisons, ``float``, ``int``, ``round``, ``math.floor`` and
    friends return plain values (their derivative is zero or undefined).
    """

    __slots__ = ("value", "grad", "requires_grad", "grad_fn", "_parents", "_backward", "_retain",
                 "_shares")
    __hash__ = object.__hash__  # by identity, as torch tensors

    def __init__(self, value, requires_grad=True):
        self.value = _as_value(value)
        self.grad = None
        self.requires_grad = requires_grad
        self.grad_fn = None
        self._parents = ()
        self._backward = None
        self._retain = False
        self._shares = False  # a view of another array Var, or one a view was taken of

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def retain_grad(self):
        """Keep this non-leaf value's ``.grad`` after :meth:`backward` (leaves always keep it)."""
        self._retain = True

    def backward(self, seed=1.0):
        """Add ``seed`` times d(self)/d(leaf) to the ``.grad`` of every leaf that requires grad.

        ``seed`` is a scalar for a scalar output; for an array output it must have the output's
        shape, and the result is the vector-Jacobian product. The graph is kept, so a second call
        accumulates again (PyTorch's ``retain_graph=True``).
        """
        if not self.requires_grad:
            raise RuntimeError("backward() of a Var that does not require grad")
        if np.shape(seed) != self.shape:
            if np.size(seed) != 1 or self.size != 1:
                raise ValueError(
                    f"backward() of a value of shape {self.shape} needs a seed of that shape "
                    f"(a vector-Jacobian product, vjp), not one of shape {np.shape(seed)}"
                )
            seed = np.reshape(seed, self.shape)
        grads = {id(self): _as_value(seed)}
        for node in reversed(self._topological_order()):
            g = grads.pop(id(node), None)
            if g is None:
                continue
            if node.grad_fn is None or node._retain:
                g = g.copy() if isinstance(g, np.ndarray) else g
                node.grad = g if node.grad is None else node.grad + g
            if node._backward is not None:
                for parent, pg in zip(node._parents, node._backward(g)):
                    key = id(parent)
                    grads[key] = pg if key not in grads else grads[key] + pg

    def _topological_order(self):
        """Every value self depends on, each after its parents (iterative, so deep loops work)."""
        order, seen, stack = [], {id(self)}, [(self, iter(self._parents))]
        while stack:
            node, parents = stack[-1]
            for parent in parents:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append((parent, iter(parent._parents)))
                    break
            else:
                stack.pop()
                order.append(node)
        return order

    # -- arithmetic --
    __add__, __radd__ = _binary("add", operator.add), _binary("add", operator.add, True)
    __sub__, __rsub__ = _binary("sub", operator.sub), _binary("sub", operator.sub, True)
    __mul__, __rmul__ = _binary("mul", operator.mul), _binary("mul", operator.mul, True)
    __truediv__ = _binary("div", operator.truediv)
    __rtruediv__ = _binary("div", operator.truediv, True)
    __pow__, __rpow__ = _binary("pow", operator.pow), _binary("pow", operator.pow, True)
    __mod__, __rmod__ = _binary("mod", operator.mod), _binary("mod", operator.mod, True)
    __matmul__ = _binary("matmul", operator.matmul)
    __rmatmul__ = _binary("matmul", operator.matmul, True)

    def __floordiv__(self, other):
        return self.value // _raw(other)

    def __rfloordiv__(self, other):
        return _raw(other) // self.value

    def __neg__(self):
        return _apply("neg", operator.neg, self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _apply("abs", abs, self)

    # -- comparisons and conversions: plain values --
    __lt__, __le__ = _compare(operator.lt), _compare(operator.le)
    __gt__, __ge__ = _compare(operator.gt), _compare(operator.ge)
    __eq__, __ne__ = _compare(operator.eq), _compare(operator.ne)

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        if self.requires_grad:
            raise _lost("float() or a math function")
        return float(self.value)

    def __copy__(self):  # a Var is immutable: a copy would be a new leaf, cut off from this one
        return self

    def __deepcopy__(self, memo):
        return self

    # -- NumPy: its functions and ufuncs come here for Vars, wherever they are called from --
    def __array__(self, dtype=None, copy=None):
        if self.requires_grad:
            raise _lost("numpy.asarray() or a NumPy function without a stand-in")
        return np.asarray(self.value, dtype=dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = f"numpy.{ufunc.__name__}"
        if method == "__call__" and kwargs.get("out") is None:
            kwargs.pop("out", None)
            return _dispatch(ufunc, name, inputs, kwargs)
        name += " with out=" if method == "__call__" else f".{method}"
        return _dispatch(getattr(ufunc, method), name, inputs, kwargs, stand_in=False)

    def __array_function__(self, func, types, args, kwargs):
        name = f"{func.__module__}.{func.__name__}".replace("numpy._core.", "numpy.")
        return _dispatch(func, name, args, kwargs)

    def __int__(self):
        return int(self.value)

    def __round__(self, ndigits=None):
        if isinstance(self.value, float):
            return round(self.value, ndigits)
        return np.round(self.value, ndigits or 0)

    def __floor__(self):
        return math.floor(self.value)

    def __ceil__(self):
        return math.ceil(self.value)

    def __trunc__(self):
        return math.trunc(self.value)

    def __format__(self, spec):
        return format(self.value, spec)

    def __repr__(self):
        if self.grad_fn is not None:
            return f"Var({self.value!r}, grad_fn={self.grad_fn})"
        return f"Var({self.value!r}{', requires_grad=True' if self.requires_grad else ''})"

    # -- arrays --
    @property
    def shape(self):
        return np.shape(self.value)

    @property
    def ndim(self):
        return np.ndim(self.value)

    @property
    def size(self):
        return np.size(self.value)

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a scalar Var")
        return len(self.value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        out = _apply("index", operator.getitem, self, index)
        if isinstance(out, Var) and np.ndim(out.value) > 0 and _basic(index):
            out._shares = self._shares = True  # NumPy's view: one memory, two values here
        return out

    def _in_place(self, op):
        """``x op= v`` on an array sharing memory with another (a view ``v = y[1:3]``, or the
        ``y`` a view was taken of): NumPy changes both; the tape would make a new value and
        leave the other as it was, a wrong gradient. Otherwise Python's fallback,
        ``x = x op v``, which is NumPy's value for an array no other value holds."""
        if self._shares and np.ndim(self.value) > 0:
            raise TapeUnsupportedError(
                f"srcad.tape: {op}= on an array that shares memory with another value (a view "
                f"y[...] or the array a view was taken of): NumPy changes both, the tape would "
                f"make a new value; write x = x {op} ... on a copy (x = y[...] * 1.0), or "
                "differentiate with srcad.grad, which reads such writes")
        return NotImplemented

    def __iadd__(self, other):
        return self._in_place("+")

    def __isub__(self, other):
        return self._in_place("-")

    def __imul__(self, other):
        return self._in_place("*")

    def __itruediv__(self, other):
        return self._in_place("/")

    def __ipow__(self, other):
        return self._in_place("**")

    def __imatmul__(self, other):
        return self._in_place("@")

    def __setitem__(self, index, item):
        raise TypeError("a Var is immutable: build a new value (np.where, np.concatenate...)")

    def sum(self, axis=None, keepdims=False):
        return _apply("sum", np.sum, self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return _apply("mean", np.mean, self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False):
        return _apply("prod", np.prod, self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _apply("max", np.max, self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _apply("min", np.min, self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 else shape
        return _apply("reshape", np.reshape, self, shape)

    def ravel(self):
        return self.reshape(-1)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 else (axes or None)
        return _apply("transpose", np.transpose, self, axes)

    def dot(self, other):
        return _np_dot(self, other)


def _lost(what):
    return LostGradientError(
        f"srcad.tape: {what} was given a Var that requires grad, outside the code the tape "
        "rebinds (a method, a library, a module attribute...): its result would be a plain "
        "number with no gradient. Call NumPy there (np.tanh: the tape intercepts NumPy "
        "everywhere), or call math and float from a plain function or a closure"
    )


def _deep(x, leaf):
    """``x`` with ``leaf`` applied to everything inside lists, tuples and dicts."""
    if isinstance(x, (list, tuple)):
        return type(x)(_deep(item, leaf) for item in x)
    if isinstance(x, dict):
        return {k: _deep(v, leaf) for k, v in x.items()}
    return leaf(x)


def _needs_grad(*xs):
    found = []
    _deep(xs, lambda x: found.append(isinstance(x, Var) and x.requires_grad))
    return any(found)


def _dispatch(func, name, args, kwargs, stand_in=True):
    """A NumPy function or ufunc called on Vars: its stand-in, or values only, or an error."""
    shim = _NUMPY_STAND_IN[0](func) if stand_in else None
    if shim is not None:
        return shim(*args, **kwargs)
    if _needs_grad(args, kwargs):
        raise TapeUnsupportedError(
            f"srcad.tape has no derivative rule for {name} on a Var that requires grad; add one "
            "to srcad.tape.VJPS or compute it from functions that have one"
        )
    return func(*_deep(args, _raw), **_deep(kwargs, _raw))


def _basic(index):
    """Whether ``index`` is NumPy basic indexing (integers, slices, ``...``, ``None``): a
    view of the array, not a copy."""
    items = index if type(index) is tuple else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, slice) or (
        isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)))
        for i in items)


def _apply(rule, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on values; if a Var among ``args`` requires grad, record the step.

    ``VJPS[rule][i](g, ans, *values, **kwargs)`` gives the gradient flowing into argument ``i``;
    it is summed over broadcast axes here, so each parent receives its own shape. Keyword
    arguments are never differentiated: one that requires grad is refused, as is a Var nested
    inside an argument (the rule could not see it).
    """
    values = [_raw(a) for a in args]
    if _needs_grad(values, kwargs):
        raise TapeUnsupportedError(
            f"srcad.tape: the {rule!r} rule differentiates its positional arguments only; a Var "
            "that requires grad was passed as a keyword argument or inside a container"
        )
    if not any(isinstance(a, Var) for a in args):
        return fn(*args, **kwargs)
    if kwargs.get("out") is not None and _needs_grad(args):
        raise TapeUnsupportedError(  # (NumPy writes the values into the plain array out, which
            # the tape never sees: a zero gradient through it)
            f"srcad.tape: {getattr(fn, '__name__', rule)}(..., out=...) of a Var that requires "
            "grad writes into an array the tape does not follow; assign the result instead "
            "(y = f(...)), or differentiate with srcad.grad, which reads such writes")
    out = Var(fn(*values, **kwargs), requires_grad=False)
    vjps = VJPS[rule]
    active = [i for i, a in enumerate(args) if isinstance(a, Var) and a.requires_grad]
    if any(i >= len(vjps) for i in active if not isinstance(vjps, _EachArgument)):
        raise TapeUnsupportedError(f"srcad.tape: the {rule!r} rule has no derivative for "
                                   f"argument {max(active)} of {getattr(fn, '__name__', fn)}")
    active = [i for i in active if vjps[i] is not None]
    if active:
        ans = out.value

        def backward(g):
            return [_unbroadcast(vjps[i](g, ans, *values, **kwargs), values[i]) for i in active]

        out.requires_grad = True
        out.grad_fn = rule[0].upper() + rule[1:] + "Backward"
        out._parents = tuple(args[i] for i in active)
        out._backward = backward
    return out


# ================================================================================================
# Arrays from Vars
# ================================================================================================


def _has_var(x):
    if isinstance(x, (list, tuple)):
        return any(_has_var(item) for item in x)
    return isinstance(x, Var)


def _lift(x):
    """A list or tuple holding Vars becomes one array Var; anything else stays."""
    return _np_array(x) if isinstance(x, (list, tuple)) and _has_var(x) else x


def _np_array(obj, *args, **kwargs):
    if isinstance(obj, Var):
        return obj
    if isinstance(obj, (list, tuple)) and _has_var(obj):
        return _np_stack([_np_array(item) for item in obj])
    return np.array(obj, *args, **kwargs)


def _stack(*xs, axis):
    return np.stack(xs, axis)


def _np_stack(arrays, axis=0):
    return _apply("stack", _stack, *map(_lift, arrays), axis=axis)


def _np_dot(a, b):
    a, b = _lift(a), _lift(b)
    if np.ndim(_raw(a)) == 0 or np.ndim(_raw(b)) == 0:
        return a * b
    if max(np.ndim(_raw(a)), np.ndim(_raw(b))) > 2:
        raise TapeUnsupportedError("srcad.tape: numpy.dot of arrays above 2-D; use matmul")
    return _apply("matmul", np.matmul, a, b)

