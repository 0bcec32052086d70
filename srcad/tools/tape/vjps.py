"""The tape's derivative rules: ``VJPS``, one entry per rule, one vjp per argument.

``VJPS[rule][i](g, ans, *args, **kwargs)`` is the gradient flowing into argument ``i`` of a step
recorded with ``rule``, given the output's gradient ``g``, the output ``ans`` and the argument
values. :func:`_unbroadcast` (also used by the engine in :mod:`.var`) gives a gradient the shape
of its argument.

Imports: NumPy and the standard library only; nothing of srcad.
"""

from __future__ import annotations

import functools
import math

import numpy as np

# ================================================================================================
# Broadcasting
# ================================================================================================


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
    "expand_dims": (lambda g, ans, x, *_, **__: np.reshape(g, np.shape(x)),),
    "squeeze": (lambda g, ans, x, *_, **__: np.reshape(g, np.shape(x)),),
    "transpose": (lambda g, ans, x, axes=None: np.transpose(
        g, axes and tuple(np.argsort(np.mod(axes, np.ndim(g))))),),  # negative axes too
    "index": (_index,),
    "cat": _EachArgument(_cat),
    "stack": _EachArgument(lambda i, g, ans, *xs, axis=0: np.take(g, i, axis=axis)),
    # -- linear algebra --
    "matmul": (_matmul(0), _matmul(1)),
}


