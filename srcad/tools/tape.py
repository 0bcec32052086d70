"""A small dynamic-graph (tape) reverse-mode engine: srcad's reference and second opinion.

srcad differentiates a function by rewriting its source once, before it runs. This module does
what PyTorch does instead: it *runs* the function on :class:`Var` values. Each ``Var`` made by an
operation remembers its parents and a backward rule; :meth:`Var.backward` sorts that graph
topologically and walks it in reverse, applying one vector-Jacobian product (vjp) per step. The
graph is rebuilt on every call, so branches and loops need no special treatment: the graph simply
records the path that was taken.

The same plain functions that :func:`srcad.grad` differentiates run here unchanged:

    >>> def f(x, w):
    ...     return (x + w) * (w + 1)
    >>> grad(f, wrt=("x", "w"))(2.0, 1.0)
    (2.0, 5.0)
    >>> y = trace(f, 2.0, 1.0, wrt=1)
    >>> y
    Var(6.0, grad_fn=MulBackward)
    >>> y.is_leaf, y.requires_grad
    (False, True)

To run a plain function, :func:`rebind` copies it, and every user helper it calls, with ``math``
and ``numpy`` (and names imported from them) replaced by the tracing shims :data:`MATH` and
:data:`NUMPY`, and ``float`` by one that passes a scalar Var through. The other builtins (``abs``,
``min``, ``max``, ``sum``, ``pow``, ``int``, ``round``...) work through ``Var``'s special methods.

Public names: :class:`Var`, :func:`grad`, :func:`value_and_grad`, :func:`trace`, :func:`rebind`,
the rule table :data:`VJPS` and the shims :data:`MATH`, :data:`NUMPY`.

Limitations:

- ``float(x)`` keeps the gradient in rebound code (it is the identity on floats), but storing a
  Var into a NumPy array (``out[i] = x``) or passing it to a function that converts it to a
  float gives a plain number: the gradient stops there silently, as in PyTorch. A real ``math``
  or ``numpy`` function that was not rebound does the same.
- Rebinding reaches functions named by a global, a closure cell or a default; not methods of user
  classes, ``module.helper`` attributes of user modules, or modules imported inside a function.
- The copy of a function has its own copy of its globals: ``global`` assignments stay there.
- A NumPy or math function without a rule (``np.cumsum``, ``np.linalg.*``, ``math.gamma``)
  raises ``NotImplementedError`` when given a Var that requires grad; ``np.dot`` above 2-D too.
- No nesting: the tape computes first derivatives only; use :func:`srcad.grad` for more.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import math
import operator
import sys
import types

import numpy as np

__all__ = ["MATH", "NUMPY", "VJPS", "Var", "grad", "rebind", "trace", "value_and_grad"]


# ================================================================================================
# Values
# ================================================================================================


def _as_value(x):
    """A Python float, or a float64 array of at least one dimension."""
    if type(x) is float:
        return x
    if isinstance(x, Var):
        return x.value
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

    __slots__ = ("value", "grad", "requires_grad", "grad_fn", "_parents", "_backward", "_retain")
    __array_ufunc__ = None  # NumPy defers to us: ``ndarray * Var`` calls ``Var.__rmul__``
    __hash__ = object.__hash__  # by identity, as torch tensors

    def __init__(self, value, requires_grad=True):
        self.value = _as_value(value)
        self.grad = None
        self.requires_grad = requires_grad
        self.grad_fn = None
        self._parents = ()
        self._backward = None
        self._retain = False

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
        return float(self.value)

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
        return _apply("index", operator.getitem, self, index)

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
        return NUMPY.dot(self, other)


def _apply(rule, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on values; if a Var among ``args`` requires grad, record the step.

    ``VJPS[rule][i](g, ans, *values, **kwargs)`` gives the gradient flowing into argument ``i``;
    it is summed over broadcast axes here, so each parent receives its own shape. Keyword
    arguments are never differentiated.
    """
    if not any(isinstance(a, Var) for a in args):
        return fn(*args, **kwargs)
    values = [_raw(a) for a in args]
    out = Var(fn(*values, **kwargs), requires_grad=False)
    vjps = VJPS[rule]
    active = [i for i, a in enumerate(args) if isinstance(a, Var) and a.requires_grad]
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


def _unbroadcast(g, like):
    """``g`` summed over the axes along which ``like`` was broadcast: it gets like's shape."""
    shape = np.shape(like)
    if np.shape(g) != shape:
        g = np.asarray(g)
        lead = g.ndim - len(shape)
        if lead < 0:
            return np.broadcast_to(g, shape).copy()
        g = g.sum(axis=tuple(range(lead)))
        g = g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)
    return float(g) if shape == () else g


# ================================================================================================
# Derivative rules
# ================================================================================================
# VJPS[rule] holds one entry per argument: vjp(g, ans, *args, **kwargs) -> the gradient flowing
# into that argument, given the output's gradient g, the output ans and the argument values.
# ``None`` means a zero derivative (the argument is never differentiated). Broadcasting is undone
# by the engine, so an entry may return a gradient of the broadcast shape.


def _identity(g, *_):
    return g


def _negated(g, *_):
    return -g


def _expand(g, x, axis, keepdims):
    """A reduction's gradient ``g`` broadcast back to the shape of its input ``x``."""
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, np.shape(x))


def _extreme(g, ans, x, axis=None, keepdims=False):
    """max/min: the gradient goes to the elements equal to the extreme, shared between ties."""
    hit = x == _expand(ans, x, axis, keepdims)
    return _expand(g, x, axis, keepdims) * hit / np.sum(hit, axis=axis, keepdims=True)


def _tie(x, y):
    """1 where x wins a maximum (x > y), 0 where it loses, 1/2 at ties."""
    return (np.sign(np.subtract(x, y)) + 1) / 2


def _index(g, ans, x, index):
    out = np.zeros(np.shape(x))
    np.add.at(out, index, g)  # repeated indices add up
    return out


def _cat(i, g, ans, *xs, axis=0):
    start = sum(np.shape(x)[axis] for x in xs[:i])
    where = [slice(None)] * np.ndim(g)
    where[axis] = slice(start, start + np.shape(xs[i])[axis])
    return g[tuple(where)]


def _matmul(side):
    """The vjp of ``a @ b`` for ``a`` (side 0) or ``b`` (side 1); 1-D operands act as matrices."""

    def vjp(g, ans, a, b):
        a2 = a[None, :] if np.ndim(a) == 1 else a
        b2 = b[:, None] if np.ndim(b) == 1 else b
        g2 = np.expand_dims(g, -1) if np.ndim(b) == 1 else g
        g2 = np.expand_dims(g2, -2) if np.ndim(a) == 1 else g2
        if side == 0:
            return np.reshape(_unbroadcast(g2 @ np.swapaxes(b2, -1, -2), a2), np.shape(a))
        return np.reshape(_unbroadcast(np.swapaxes(a2, -1, -2) @ g2, b2), np.shape(b))

    return vjp


class _EachArgument:
    """The rule of a variadic function: ``rule[i]`` is ``vjp(i, ...)`` for any argument ``i``."""

    def __init__(self, vjp):
        self.vjp = vjp

    def __getitem__(self, i):
        return functools.partial(self.vjp, i)


_ERF = 2 / math.sqrt(math.pi)

VJPS = {
    # -- Python operators --
    "add": (_identity, _identity),
    "sub": (_identity, _negated),
    "mul": (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
    "div": (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y),
    "pow": (
        # y == 0: x ** 0 is 1 everywhere, its derivative 0 (not 0 * 0 ** -1 = nan)
        lambda g, ans, x, y: g * y * np.power(x, np.where(np.equal(y, 0), 1.0,
                                                          np.subtract(y, 1.0))),
        lambda g, ans, x, y: g * ans * np.log(np.where(np.equal(x, 0), 1.0, x)),
    ),
    "mod": (_identity, lambda g, ans, x, y: -g * np.floor_divide(x, y)),
    "neg": (_negated,),
    "abs": (lambda g, ans, x: g * np.sign(x),),
    # -- exponentials and logarithms --
    "exp": (lambda g, ans, x: g * ans,),
    "expm1": (lambda g, ans, x: g * (ans + 1),),
    "log": (lambda g, ans, x: g / x,),
    "log2": (lambda g, ans, x: g / (x * math.log(2)),),
    "log10": (lambda g, ans, x: g / (x * math.log(10)),),
    "log1p": (lambda g, ans, x: g / (1 + x),),
    "sqrt": (lambda g, ans, x: g / (2 * ans),),
    "square": (lambda g, ans, x: 2 * g * x,),
    "reciprocal": (lambda g, ans, x: -g * ans * ans,),
    # -- trigonometric and hyperbolic --
    "sin": (lambda g, ans, x: g * np.cos(x),),
    "cos": (lambda g, ans, x: -g * np.sin(x),),
    "tan": (lambda g, ans, x: g * (1 + ans * ans),),
    "asin": (lambda g, ans, x: g / np.sqrt(1 - x * x),),
    "acos": (lambda g, ans, x: -g / np.sqrt(1 - x * x),),
    "atan": (lambda g, ans, x: g / (1 + x * x),),
    "sinh": (lambda g, ans, x: g * np.cosh(x),),
    "cosh": (lambda g, ans, x: g * np.sinh(x),),
    "tanh": (lambda g, ans, x: g * (1 - ans * ans),),
    "asinh": (lambda g, ans, x: g / np.sqrt(x * x + 1),),
    "acosh": (lambda g, ans, x: g / np.sqrt(x * x - 1),),
    "atanh": (lambda g, ans, x: g / (1 - x * x),),
    # -- special functions --
    "erf": (lambda g, ans, x: g * _ERF * np.exp(-x * x),),
    "erfc": (lambda g, ans, x: -g * _ERF * np.exp(-x * x),),
    # -- binary elementwise --
    "atan2": (
        lambda g, ans, y, x: g * x / (x * x + y * y),
        lambda g, ans, y, x: -g * y / (x * x + y * y),
    ),
    "hypot": (lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans),
    "copysign": (lambda g, ans, x, y: g * np.sign(x) * np.sign(ans), None),  # y: flat
    "fmod": (lambda g, ans, x, y: g, lambda g, ans, x, y: -g * (x - ans) / y),  # x - n y
    "maximum": (lambda g, ans, x, y: g * _tie(x, y), lambda g, ans, x, y: g * _tie(y, x)),
    "minimum": (lambda g, ans, x, y: g * _tie(y, x), lambda g, ans, x, y: g * _tie(x, y)),
    # -- selection --
    "where": (
        None,
        lambda g, ans, c, x, y: np.where(c, g, 0.0),
        lambda g, ans, c, x, y: np.where(c, 0.0, g),
    ),
    "clamp": (
        lambda g, ans, x, lo, hi: np.where(ans == x, g, 0.0),
        lambda g, ans, x, lo, hi: np.where(np.less(x, lo), g, 0.0),
        lambda g, ans, x, lo, hi: np.where(np.greater(x, hi), g, 0.0),
    ),
    # -- reductions (axis, keepdims) --
    "sum": (lambda g, ans, x, axis=None, keepdims=False: _expand(g, x, axis, keepdims),),
    "mean": (
        lambda g, ans, x, axis=None, keepdims=False: (
            _expand(g, x, axis, keepdims) * (np.size(ans) / np.size(x))
        ),
    ),
    "prod": (lambda g, ans, x, axis=None, keepdims=False: _expand(g * ans, x, axis, keepdims) / x,),
    "max": (_extreme,),
    "min": (_extreme,),
    # -- shapes and indexing --
    "reshape": (lambda g, ans, x, *_, **__: np.reshape(g, np.shape(x)),),
    "transpose": (lambda g, ans, x, axes=None: np.transpose(g, axes and np.argsort(axes)),),
    "index": (_index,),
    "cat": _EachArgument(_cat),
    "stack": _EachArgument(lambda i, g, ans, *xs, axis=0: np.take(g, i, axis=axis)),
    # -- linear algebra --
    "matmul": (_matmul(0), _matmul(1)),
}


# ================================================================================================
# Tracing shims of math and numpy
# ================================================================================================


def _traced(rule, fn):
    """``fn`` recording ``rule`` when given Vars; exactly ``fn`` on plain numbers."""

    def traced(*args, **kwargs):
        return _apply(rule, fn, *map(_lift, args), **kwargs)

    traced.__name__ = traced.__qualname__ = fn.__name__
    traced.__doc__ = f"{fn.__name__}, recorded on Vars with the {rule!r} rule."
    return traced


def _has_var(x):
    if isinstance(x, (list, tuple)):
        return any(_has_var(item) for item in x)
    return isinstance(x, Var)


def _unwrap(x):
    """Values for Vars, also inside lists and tuples."""
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(item) for item in x)
    return _raw(x)


def _constant(fn):
    """``fn`` whose result does not depend smoothly on its arguments: it sees values only."""

    def constant(*args, **kwargs):
        return fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})

    constant.__name__ = constant.__qualname__ = getattr(fn, "__name__", "constant")
    return constant


def _guarded(fn, qualname):
    """``fn`` as it is for plain values; an error instead of a silently wrong gradient."""

    def guarded(*args, **kwargs):
        if any(isinstance(a, Var) and a.requires_grad for a in _flat(args, kwargs)):
            raise NotImplementedError(
                f"srcad.tape has no derivative rule for {qualname}; add one to srcad.tape.VJPS "
                f"or compute it from functions that have one"
            )
        return fn(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})

    guarded.__name__ = guarded.__qualname__ = getattr(fn, "__name__", qualname)
    return guarded


def _flat(args, kwargs):
    for x in (*args, *kwargs.values()):
        yield from _flat(x, {}) if isinstance(x, (list, tuple)) else (x,)


class _Shim(types.ModuleType):
    """A stand-in for ``real``: its own traced functions, then the real module's attributes.

    A real function that is not traced is taken as it is when it is in ``constant`` (its result
    is piecewise constant, so it only sees values), and otherwise raises if given a Var that
    requires grad. Classes, submodules and constants are the real ones.
    """

    def __init__(self, name, real, functions, constant):
        super().__init__(name, f"Tracing stand-in for {real.__name__} (see srcad.tape).")
        self.__dict__.update(functions)
        self._real = real
        constant = [name for name in constant if hasattr(real, name)]  # across versions
        self._constant = frozenset(constant)
        self._own = [*functions, *constant]

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if name in self._constant:
            attr = _constant(attr)
        elif callable(attr) and not isinstance(attr, type):
            attr = _guarded(attr, f"{self._real.__name__}.{name}")
        setattr(self, name, attr)
        return attr

    def __dir__(self):
        return sorted(set(dir(self._real)) | set(self.__dict__))

    def replacements(self):
        """{real module or function: stand-in}, for every function with its own behaviour here."""
        own = {getattr(self._real, name): getattr(self, name) for name in self._own}
        return {self._real: self, **own}


# -- math ------------------------------------------------------------------------------------------
# math name -> rule; the forward computation is the math function itself.
_MATH_RULES = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "exp": "exp", "expm1": "expm1", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "sqrt": "sqrt", "erf": "erf", "erfc": "erfc", "fabs": "abs", "atan2": "atan2", "pow": "pow",
    "copysign": "copysign", "fmod": "fmod",
}  # fmt: skip
_MATH_CONSTANT = "ceil floor trunc isnan isinf isfinite isclose factorial comb perm gcd lcm isqrt"


_math_ln = _traced("log", math.log)


def _math_log(x, base=None):
    return _math_ln(x) if base is None else _math_ln(x) / _math_ln(base)


def _math_hypot(*xs):
    if len(xs) == 2:
        return _apply("hypot", math.hypot, *xs)
    return MATH.sqrt(sum(x * x for x in xs)) if any(map(_has_var, xs)) else math.hypot(*xs)


def _math_degrees(x):
    return x * (180 / math.pi)


def _math_radians(x):
    return x * (math.pi / 180)



MATH = _Shim(
    "srcad.tape.math",
    math,
    {
        **{name: _traced(rule, getattr(math, name)) for name, rule in _MATH_RULES.items()},
        "log": _math_log,
        "hypot": _math_hypot,
        "degrees": _math_degrees,
        "radians": _math_radians,
    },
    _MATH_CONSTANT.split(),
)


# -- numpy -----------------------------------------------------------------------------------------
# numpy name -> rule; the forward computation is the numpy function itself.
_NUMPY_RULES = {
    # unary ufuncs
    "sin": "sin", "cos": "cos", "tan": "tan",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "square": "square", "reciprocal": "reciprocal",
    "abs": "abs", "absolute": "abs", "fabs": "abs", "negative": "neg",
    # binary ufuncs
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
    "power": "pow", "mod": "mod", "remainder": "mod", "maximum": "maximum", "minimum": "minimum",
    "arctan2": "atan2", "hypot": "hypot",
    # selection
    "where": "where",
    # reductions
    "sum": "sum", "mean": "mean", "prod": "prod", "max": "max", "amax": "max",
    "min": "min", "amin": "min",
    # shapes, linear algebra
    "reshape": "reshape", "transpose": "transpose", "matmul": "matmul",
}  # fmt: skip
_NUMPY_CONSTANT = """
    sign floor ceil rint round around trunc fix floor_divide heaviside
    equal not_equal less less_equal greater greater_equal isclose allclose array_equal
    isnan isinf isfinite logical_and logical_or logical_not any all
    argmax argmin argsort argwhere nonzero searchsorted count_nonzero
    shape ndim size zeros_like ones_like empty_like full_like
"""


def _lift(x):
    """A list or tuple holding Vars becomes one array Var; anything else stays."""
    return _np_array(x) if isinstance(x, (list, tuple)) and _has_var(x) else x


def _np_array(obj, *args, **kwargs):
    if isinstance(obj, Var):
        return obj
    if isinstance(obj, (list, tuple)) and _has_var(obj):
        return _np_stack([_np_array(item) for item in obj])
    return np.array(obj, *args, **kwargs)


def _np_asarray(obj, *args, **kwargs):
    return _np_array(obj) if _has_var(obj) else np.asarray(obj, *args, **kwargs)


def _stack(*xs, axis):
    return np.stack(xs, axis)


def _cat_forward(*xs, axis):
    return np.concatenate(xs, axis)


def _np_stack(arrays, axis=0):
    return _apply("stack", _stack, *map(_lift, arrays), axis=axis)


def _np_concatenate(arrays, axis=0):
    return _apply("cat", _cat_forward, *map(_lift, arrays), axis=axis)


def _np_dot(a, b):
    a, b = _lift(a), _lift(b)
    if np.ndim(_raw(a)) == 0 or np.ndim(_raw(b)) == 0:
        return a * b
    if max(np.ndim(_raw(a)), np.ndim(_raw(b))) > 2:
        raise NotImplementedError("srcad.tape: numpy.dot of arrays above 2-D; use matmul")
    return _apply("matmul", np.matmul, a, b)


def _np_outer(a, b):
    return NUMPY.reshape(_lift(a), (-1, 1)) * NUMPY.reshape(_lift(b), (1, -1))


def _np_clip(a, a_min=None, a_max=None):
    return _apply("clamp", np.clip, _lift(a), a_min, a_max)


def _np_ravel(a):
    return NUMPY.reshape(_lift(a), -1)


NUMPY = _Shim(
    "srcad.tape.numpy",
    np,
    {
        **{
            name: _traced(rule, getattr(np, name))
            for name, rule in _NUMPY_RULES.items()
            if hasattr(np, name)
        },
        "array": _np_array,
        "asarray": _np_asarray,
        "stack": _np_stack,
        "concatenate": _np_concatenate,
        "dot": _np_dot,
        "outer": _np_outer,
        "clip": _np_clip,
        "ravel": _np_ravel,
    },
    _NUMPY_CONSTANT.split(),
)


# -- builtins --------------------------------------------------------------------------------------
class _FloatType(type):
    """Keeps ``isinstance(x, float)`` true of every float where ``float`` means :class:`_Float`."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, float)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, float)


class _Float(float, metaclass=_FloatType):
    """``float`` as rebound code sees it: the identity on a scalar Var, as on a Python float.

    ``float(x)`` does not change a float, so its derivative is 1; srcad and finite differences
    agree. (``Var.__float__``, used outside rebound code, gives a plain number.)
    """

    def __new__(cls, x=0.0):
        return x if isinstance(x, Var) and x.ndim == 0 else float(x)


# {real module, function or builtin: its tracing stand-in}, for rebind
_REPLACEMENTS = {**MATH.replacements(), **NUMPY.replacements(), float: _Float}


# ================================================================================================
# Running plain functions
# ================================================================================================

# Functions from these top-level packages are called as they are, never rebound.
_LIBRARIES = frozenset(sys.stdlib_module_names) | {
    "srcad", "numpy", "scipy", "torch", "autograd", "jax", "pytest", "_pytest",
}  # fmt: skip
_MISSING = object()


def rebind(f, replacements):
    """A copy of ``f`` that sees ``replacements[obj]`` wherever it used ``obj``.

    Keys are matched by identity: a module (``math``), or a function however it was imported
    (``from math import sin``). The copy has its own copy of ``f``'s globals; the globals it
    references, its defaults and the contents of its closure cells are replaced when they are
    keys. User helper functions it references (plain Python functions not from the standard
    library, NumPy, srcad...) are rebound the same way, recursively; each function is copied once
    per call, so recursion and mutual recursion reach the copies. Closure cells that hold neither
    a key nor a user function are shared with ``f``. Builtins that are keys are replaced through a
    patched ``__builtins__``. ``f`` itself is not changed.

        >>> import math
        >>> def half_turn(x):
        ...     return math.pi * x
        >>> fake = types.SimpleNamespace(pi=180)
        >>> rebind(half_turn, {math: fake})(2), half_turn(2) == 2 * math.pi
        (360, True)
    """
    by_id = {id(key): value for key, value in replacements.items()}
    patched_builtins = {k: by_id[id(v)] for k, v in vars(builtins).items() if id(v) in by_id}
    copies = {}

    def new_value(v):
        new = by_id.get(id(v), _MISSING)
        if new is not _MISSING:
            return new
        if isinstance(v, types.FunctionType) and _is_user_code(v):
            return copy(v)
        if isinstance(v, functools.partial):
            func = new_value(v.func)
            return v if func is v.func else functools.partial(func, *v.args, **v.keywords)
        return v

    def needs_new(v):
        if isinstance(v, functools.partial):
            return needs_new(v.func)
        return id(v) in by_id or (isinstance(v, types.FunctionType) and _is_user_code(v))

    def copy(fn):
        if fn in copies:
            return copies[fn]
        cells, fills = [], []
        for cell in fn.__closure__ or ():
            try:
                content = cell.cell_contents
            except ValueError:  # an empty cell
                content = _MISSING
            if content is not _MISSING and needs_new(content):
                cells.append(types.CellType())
                fills.append((cells[-1], content))
            else:
                cells.append(cell)
        defaults = fn.__defaults__ and tuple(map(new_value, fn.__defaults__))
        env = dict(fn.__globals__)
        if patched_builtins:  # before the function is made: it caches its builtins
            env["__builtins__"] = {**vars(builtins), **patched_builtins}
        new = types.FunctionType(fn.__code__, env, fn.__name__, defaults, tuple(cells) or None)
        copies[fn] = new  # before the helpers, so recursion finds the copy
        new.__qualname__, new.__doc__ = fn.__qualname__, fn.__doc__
        new.__dict__.update(fn.__dict__)
        if fn.__kwdefaults__:
            new.__kwdefaults__ = {k: new_value(v) for k, v in fn.__kwdefaults__.items()}
        for cell, content in fills:
            cell.cell_contents = new_value(content)
        for name in _global_names(fn.__code__) & env.keys():
            env[name] = new_value(env[name])
        return new

    if id(f) in by_id:
        return by_id[id(f)]
    if isinstance(f, types.MethodType):
        return types.MethodType(copy(f.__func__), f.__self__)
    if not isinstance(f, types.FunctionType):
        raise TypeError(f"rebind needs a Python function, not {type(f).__name__}")
    return copy(f)


def _is_user_code(fn):
    """Whether fn lives in a module outside the libraries (by its globals: wraps() can lie)."""
    return str(fn.__globals__.get("__name__")).partition(".")[0] not in _LIBRARIES


def _global_names(code):
    """Names that ``code`` or any code nested in it (lambdas, comprehensions) may read globally."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _single(wrt):
    return not isinstance(wrt, (tuple, list))


def _wrt_names(f, wrt):
    """The parameter names that ``wrt`` selects, as :func:`srcad.grad` reads it.

    ``wrt`` is a position (negative counts from the end) or a name of a parameter other than
    ``*args`` and ``**kwargs``, or a tuple or list of them.
    """
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    params = [p.name for p in inspect.signature(f).parameters.values() if p.kind not in kinds]
    items = [wrt] if _single(wrt) else list(wrt)
    if not items:
        raise ValueError("wrt is empty: name at least one parameter, e.g. wrt=0")
    names = []
    for w in items:
        if isinstance(w, int) and not isinstance(w, bool) and -len(params) <= w < len(params):
            name = params[w]
        elif isinstance(w, str) and w in params:
            name = w
        else:
            fname = getattr(f, "__name__", "the function")
            raise ValueError(f"wrt={w!r} names no parameter of {fname}{tuple(params)}")
        if name in names:
            raise ValueError(f"wrt={wrt!r} selects {name!r} twice")
        names.append(name)
    return names


def _run(f, args, kwargs, wrt, fresh):
    """Call the rebound ``f`` with its ``wrt`` arguments as leaf Vars: (output, leaves)."""
    bound = inspect.signature(f).bind(*args, **kwargs)
    bound.apply_defaults()
    leaves = []
    for name in _wrt_names(f, wrt):
        v = bound.arguments[name]
        if fresh and isinstance(v, Var) and v.requires_grad:
            raise NotImplementedError(
                "srcad.tape does not nest: for higher derivatives of plain functions use srcad.grad"
            )
        if not isinstance(v, Var) or fresh:
            if np.asarray(_raw(v)).dtype.kind not in "biuf":
                raise TypeError(
                    f"argument {name!r} to differentiate must be a float or an array "
                    f"of floats, not {type(v).__name__}"
                )
            v = Var(_raw(v))
        bound.arguments[name] = v
        leaves.append(v)
    return rebind(f, _REPLACEMENTS)(*bound.args, **bound.kwargs), leaves


def trace(f, *args, wrt=0, **kwargs):
    """Run ``f(*args, **kwargs)`` on the tape; return its output, a :class:`Var` as in PyTorch.

    The ``wrt`` arguments (see :func:`grad`) become leaves; pass :class:`Var` arguments to keep
    hold of the leaves and read their ``.grad`` after ``out.backward()``.

        >>> w = Var(1.0)
        >>> y = trace(lambda x, w: (x + w) * (w + 1), 2.0, w, wrt="w")
        >>> y.grad_fn, w.is_leaf
        ('MulBackward', True)
        >>> y.backward()
        >>> w.grad
        5.0
    """
    return _run(f, args, kwargs, wrt, fresh=False)[0]


def value_and_grad(f=None, wrt=0):
    """Like :func:`grad`, but the function returns ``(value, gradient)``."""
    if f is None:
        return functools.partial(value_and_grad, wrt=wrt)
    _wrt_names(f, wrt)  # fail early on a bad wrt

    @functools.wraps(f)
    def value_and_grad_f(*args, **kwargs):
        out, leaves = _run(f, args, kwargs, wrt, fresh=True)
        if np.ndim(_raw(out)) != 0 or np.asarray(_raw(out)).dtype.kind not in "biuf":
            raise ValueError(
                f"{getattr(f, '__name__', 'f')} must return a scalar for grad, not "
                f"{type(_raw(out)).__name__} of shape {np.shape(_raw(out))}; for a non-scalar "
                f"output use a vector-Jacobian product (vjp), e.g. trace(...).backward(seed)"
            )
        if isinstance(out, Var) and out.requires_grad:
            out.backward()
        grads = tuple(np.zeros_like(v.value) if v.grad is None else v.grad for v in leaves)
        grads = tuple(float(g) if np.ndim(g) == 0 else g for g in grads)
        return float(_raw(out)), grads[0] if _single(wrt) else grads

    return value_and_grad_f


def grad(f=None, wrt=0):
    """The gradient of ``f``, computed on the tape; mirrors :func:`srcad.grad`.

    ``wrt`` is a parameter's position or name, or a tuple (or list) of them: one gradient, or a
    tuple in that order. ``f`` must return a scalar. Use as ``grad(f, wrt=1)``, ``@grad`` or
    ``@grad(wrt=...)``.

        >>> import math
        >>> @grad(wrt=("x", "y"))
        ... def f(x, y):
        ...     return math.sin(x) * y if x > 0 else y
        >>> f(0.0, 2.0)
        (0.0, 1.0)
    """
    if f is None:
        return functools.partial(grad, wrt=wrt)
    value_and_grad_f = value_and_grad(f, wrt)

    @functools.wraps(f)
    def grad_f(*args, **kwargs):
        return value_and_grad_f(*args, **kwargs)[1]

    return grad_f
