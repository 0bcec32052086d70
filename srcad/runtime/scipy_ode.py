"""The derivatives of ``scipy.integrate.odeint(func, y0, t, args)`` (rules in
:mod:`srcad.rules.scipy_integrate`): the adjoint method in reverse mode, forward
sensitivities in forward mode.

Both need derivatives of the user's ``func(y, t, *args)``, which srcad makes at run time, by
source transformation like any other function: :data:`DIFFERENTIATE` holds srcad's own
``vjp`` and ``jvp``, handed down by :mod:`srcad` when it is imported (the runtime may not
import the API above it). A ``func`` srcad cannot differentiate is refused there, with the
error that names it.

* Reverse (``grad_odeint``): from the last time backwards, the adjoint ``a`` of ``y`` obeys
  ``a' = -a J_y``, and the gradients into the time and into ``args`` accumulate
  ``-a df/dt`` and ``-a J_args``; each is integrated by ``odeint`` itself, between two output
  times, beside ``y`` run backwards. A moved output time ``t_i`` (``i > 0``) moves its value by
  ``func(y_i, t_i)``; the first moves every later one back.
* Forward (``tangent_odeint``): ``s = dy`` obeys ``s' = J_y s + J_args dargs``, started at
  ``dy0`` (minus ``func(y0, t0) dt0`` for a moved first time).

Like autograd's, these are derivatives of the exact solution, which the solver's own result
approximates to its tolerance (``rtol``, ``atol``): a tolerance looser than SciPy's default
is refused (the derivative would be off by about a hundred times it).

Imports NumPy, ``srcad.errors`` and ``srcad.runtime.registry``; SciPy on first use.
"""

from __future__ import annotations

import numpy as np

from ..errors import MissingRuleError
from .registry import helper

#: ``vjp`` and ``jvp`` of srcad.api, set by ``import srcad``
DIFFERENTIATE = {}


def _odeint(*args, **kwargs):
    from scipy.integrate import odeint

    return odeint(*args, **kwargs)


#: SciPy's default rtol and atol; a looser one is refused (see _options)
DEFAULT_TOLERANCE = 1.49012e-8


def _options(rtol, atol, mxstep, hmax, hmin, h0):
    """The solver's options, after refusing tolerances looser than SciPy's defaults: the
    derivative made here is that of the exact solution, and the result odeint returns is
    within its tolerance of that solution only; the two derivatives differ by about 100 times
    the tolerance (a tenth at rtol=1e-3), far more than a gradient may be off."""
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value is not None and float(np.max(value)) > DEFAULT_TOLERANCE:
            raise MissingRuleError(
                f"scipy.integrate.odeint with {name}={value!r}: srcad's derivative is that of "
                "the exact solution, and at a tolerance looser than SciPy's default "
                f"({DEFAULT_TOLERANCE}) it is not that of the values odeint returns",
                hint=f"leave {name} at its default or make it smaller, or write the "
                "integrator's steps in Python (srcad differentiates them exactly)")
    return dict(rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax, hmin=hmin, h0=h0)


def _leaves(tree):
    """The numbers and arrays of ``tree`` (tuples and lists of them), in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _flat(tree):
    leaves = _leaves(tree)
    if not leaves:
        return np.zeros(0)
    return np.concatenate([np.ravel(np.asarray(leaf, dtype=float)) for leaf in leaves])


def _unflat(vector, like):
    """``vector`` cut into the shapes of ``like``'s leaves, in ``like``'s structure."""
    position = [0]

    def build(item):
        if isinstance(item, (tuple, list)):
            return type(item)(build(i) for i in item)
        size = np.size(item)
        piece = vector[position[0]:position[0] + size]
        position[0] += size
        return float(piece[0]) if np.ndim(item) == 0 else np.reshape(piece, np.shape(item))

    return build(like)


def _args(args):
    return tuple(args) if isinstance(args, (tuple, list)) else (args,)


def _is_float(leaf):
    return isinstance(leaf, (float, np.floating)) or (
        isinstance(leaf, np.ndarray) and np.issubdtype(leaf.dtype, np.floating))


def _differentiated(args):
    """The positions of the items of ``args`` that take a derivative: those made of floats
    only. An item of integers, strings, ... takes none (a flag, an order: piecewise constant
    in it). An item mixing floats with other values is refused: which of its floats carry a
    derivative cannot be told apart here."""
    positions = []
    for k, item in enumerate(args):
        floats = [_is_float(leaf) for leaf in _leaves(item)]
        if floats and all(floats):
            positions.append(k)
        elif any(floats):
            raise MissingRuleError(
                f"scipy.integrate.odeint: the item {k} of args mixes floating-point numbers "
                "with other values (integers, strings, ...), and srcad differentiates an "
                "item of args as a whole", hint="pass the floating-point values as items of "
                "args of their own")
    return positions


@helper("scipy")
def grad_odeint(g, func, y0, t, args, ans, which, rtol=None, atol=None, mxstep=0, hmax=0.0,
                hmin=0.0, h0=0.0):
    """The gradient into ``which`` (``"y0"``, ``"t"`` or ``"args"``) of ``odeint(func, y0,
    t, args)`` (whose value is ``ans``) from the gradient ``g`` of its result."""
    vjp = DIFFERENTIATE["vjp"]
    options = _options(rtol, atol, mxstep, hmax, hmin, h0)
    args = _args(args)
    t = np.asarray(t, dtype=float)
    yt, g = np.asarray(ans, dtype=float), np.asarray(g, dtype=float)
    n_times, d = yt.shape
    items = _differentiated(args) if which == "args" else []
    wrt = (0, 1) + tuple(2 + k for k in items)
    n_args = np.size(_flat([args[k] for k in items]))

    def augmented(state, time):
        y, adjoint = state[:d], state[d:2 * d]
        value, pullback = vjp(func, y, float(time), *args, wrt=wrt)
        grads = pullback(-adjoint)
        return np.concatenate([np.ravel(value), np.ravel(grads[0]), [float(grads[1])],
                               _flat(list(grads[2:]))])

    adjoint = g[-1]
    grad_t0, grad_args, time_grads = 0.0, np.zeros(n_args), []
    for i in range(n_times - 1, 0, -1):
        moved = float(np.dot(np.ravel(func(yt[i], t[i], *args)), g[i]))
        time_grads.append(moved)
        grad_t0 -= moved
        state = np.concatenate([yt[i], adjoint, [grad_t0], grad_args])
        back = _odeint(augmented, state, np.array([t[i], t[i - 1]]), **options)[1]
        adjoint = back[d:2 * d] + g[i - 1]
        grad_t0, grad_args = back[2 * d], back[2 * d + 1:]
    if which == "y0":
        return np.reshape(adjoint, np.shape(y0))
    if which == "t":
        return np.array([grad_t0] + time_grads[::-1])
    grads = _unflat(grad_args, [args[k] for k in items])
    return tuple(grads[items.index(k)] if k in items else None for k in range(len(args)))


@helper("scipy")
def tangent_odeint(tangent, func, y0, t, args, ans, which, rtol=None, atol=None, mxstep=0,
                   hmax=0.0, hmin=0.0, h0=0.0):
    """The tangent of ``odeint(func, y0, t, args)`` (whose value is ``ans``) along the
    tangent ``tangent`` of its argument ``which`` (``"y0"``, ``"t"`` or ``"args"``)."""
    jvp = DIFFERENTIATE["jvp"]
    options = _options(rtol, atol, mxstep, hmax, hmin, h0)
    args = _args(args)
    t = np.asarray(t, dtype=float)
    yt = np.asarray(ans, dtype=float)
    d = yt.shape[1]
    if which == "args":
        items, tangents = _differentiated(args), _args(tangent)
        wrt, moved = (0,) + tuple(2 + k for k in items), tuple(tangents[k] for k in items)
        start = np.zeros(d)
    else:
        wrt, moved = (0,), ()
        start = (np.ravel(tangent) if which == "y0" else
                 -np.ravel(func(yt[0], t[0], *args)) * float(np.ravel(tangent)[0]))

    def augmented(state, time):
        value, ds = jvp(func, (state[:d], float(time)) + args, (state[d:],) + moved, wrt=wrt)
        return np.concatenate([np.ravel(value), np.ravel(ds)])

    out = _odeint(augmented, np.concatenate([yt[0], start]), t, **options)[:, d:]
    if which == "t":
        out = out + np.array([np.ravel(func(yt[i], t[i], *args)) for i in range(len(t))]) * \
            np.reshape(np.asarray(tangent, dtype=float), (-1, 1))
    return out
