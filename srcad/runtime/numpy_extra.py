"""Gradient helpers of more NumPy functions: ``np.sinc`` (first and second derivatives, exact
at 0), ``np.diff``, ``np.column_stack``, ``np.rollaxis``, ``np.cross``; conventions in
:mod:`srcad.runtime.numpy_helpers`.

Imports only ``srcad.runtime.registry``, ``srcad.runtime.helpers``,
``srcad.runtime.numpy_common`` and ``srcad.runtime.numpy_shape``.
"""

from __future__ import annotations

import numpy as np

from .helpers import unbroadcast
from .numpy_common import _asarray, _match
from .numpy_shape import _pieces, _split_along
from .registry import helper

_PI2 = np.pi ** 2
_SMALL = 1e-3  # below this |x|, the series of sinc's derivatives (the closed forms cancel)


@helper("numpy")
def dsinc(x):
    """The derivative of ``np.sinc`` at ``x``: ``(cos(pi x) - sinc(x)) / x``, and its series
    ``-pi^2 x / 3 + pi^4 x^3 / 30`` near 0 (exactly 0 at 0)."""
    x = _asarray(x, dtype=float)
    small = np.abs(x) < _SMALL
    safe = np.where(small, 1.0, x)
    out = np.where(small, -_PI2 * x / 3 + _PI2 ** 2 * x ** 3 / 30,
                   (np.cos(np.pi * safe) - np.sinc(safe)) / safe)
    return float(out) if out.ndim == 0 else out


@helper("numpy")
def d2sinc(x):
    """The second derivative of ``np.sinc``: ``-pi^2 sinc(x) - 2 dsinc(x) / x``, and
    ``-pi^2 / 3 + pi^4 x^2 / 10`` near 0 (it has no rule: a third derivative is refused)."""
    x = _asarray(x, dtype=float)
    small = np.abs(x) < _SMALL
    safe = np.where(small, 1.0, x)
    out = np.where(small, -_PI2 / 3 + _PI2 ** 2 * x ** 2 / 10,
                   -_PI2 * np.sinc(safe) - 2 * dsinc(safe) / safe)
    return float(out) if out.ndim == 0 else out


@helper("numpy")
def grad_diff(g, a, n=1, axis=-1):
    """Gradient of ``np.diff(a, n, axis)``: the adjoint of a first difference, ``n`` times
    (``-g[0], g[0] - g[1], ..., g[-1]`` along ``axis``)."""
    g = np.moveaxis(_asarray(g, dtype=float), axis, -1)
    for _ in range(n):
        zero = np.zeros(g.shape[:-1] + (1,))
        g = np.concatenate([zero, g], axis=-1) - np.concatenate([g, zero], axis=-1)
    return _match(np.moveaxis(g, -1, axis), a)


@helper("numpy")
def grad_column_stack(g, tup):
    """Gradient of ``np.column_stack``: 1-d arrays became columns, 2-d arrays are joined
    along axis 1."""
    widths = [1 if np.ndim(x) < 2 else np.shape(x)[1] for x in tup]
    pieces = _split_along(_asarray(g), widths, 1)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, tup)], tup)


@helper("numpy")
def grad_rollaxis(g, a, axis, start=0):
    """Gradient of ``np.rollaxis(a, axis, start)``: the axis moved back where it was."""
    n = np.ndim(a)
    axis = axis % n
    start = start + n if start < 0 else start
    dest = start - 1 if axis < start else start
    return np.moveaxis(g, dest, axis)


def _cross_parts(g, a, b, axisa, axisb, axisc):
    """``a``, ``b`` (vectors on the last axis, padded to 3 components with zeros as NumPy does)
    and ``g`` as 3-vectors on the last axis, and the component counts of ``a`` and ``b``."""
    a3 = np.moveaxis(_asarray(a, dtype=float), axisa, -1)
    b3 = np.moveaxis(_asarray(b, dtype=float), axisb, -1)
    na, nb = a3.shape[-1], b3.shape[-1]
    g = _asarray(g, dtype=float)
    if na == 2 and nb == 2:  # the result is the z component alone
        g3 = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
    else:
        g3 = np.moveaxis(g, axisc, -1)
    pad = [(0, 0)] * (a3.ndim - 1)
    a3 = np.pad(a3, pad + [(0, 3 - na)]) if na == 2 else a3
    b3 = np.pad(b3, [(0, 0)] * (b3.ndim - 1) + [(0, 3 - nb)]) if nb == 2 else b3
    return g3, a3, b3, na, nb


@helper("numpy")
def grad_cross_a(g, a, b, axisa=-1, axisb=-1, axisc=-1):
    """Gradient of ``np.cross(a, b, axisa, axisb, axisc)`` into ``a``: ``b x g``
    (``<a x b, g> = <a, b x g>``), 2-vectors as 3-vectors with a zero ``z``."""
    g3, _, b3, na, _ = _cross_parts(g, a, b, axisa, axisb, axisc)
    out = np.cross(b3, g3)[..., :na]
    like = np.moveaxis(_asarray(a, dtype=float), axisa, -1)
    return _match(np.moveaxis(unbroadcast(out, like), -1, axisa), a)


@helper("numpy")
def grad_cross_b(g, a, b, axisa=-1, axisb=-1, axisc=-1):
    """Gradient of ``np.cross(a, b, axisa, axisb, axisc)`` into ``b``: ``g x a``."""
    g3, a3, _, _, nb = _cross_parts(g, a, b, axisa, axisb, axisc)
    out = np.cross(g3, a3)[..., :nb]
    like = np.moveaxis(_asarray(b, dtype=float), axisb, -1)
    return _match(np.moveaxis(unbroadcast(out, like), -1, axisb), b)
