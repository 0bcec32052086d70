"""Gradients of ``np.fft``: the transposes of the discrete Fourier transforms.

In JAX's convention (docs/supported-python.md, *Complex numbers*) the gradient flowing into
the input of a complex-linear map ``y = L x`` is ``L^T g``, the transpose, not the conjugate
transpose. The DFT matrix is symmetric, so the transpose of ``fftn`` over some axes is
``fftn`` over the same axes with the same ``norm``; a length ``n``/``s`` given to the
transform crops or zero-pads the input first, whose transpose pads or crops back
(:func:`_fit`). ``rfftn`` is ``fftn`` keeping the first half of the last axis (its transpose
pads that axis back with zeros); ``irfftn`` extends a half spectrum hermitian-symmetrically
and drops imaginary parts, so its gradient weighs each mirrored frequency twice
(:func:`grad_irfftn`). A real input takes the real part of what these give (the sweep adds
it).

Imports ``numpy`` and :mod:`srcad.runtime.registry`.
"""

from __future__ import annotations

import numpy as np

from .numpy_common import _asarray, _in_library
from .registry import helper


def _axes(ndim, s, axes):
    """The axes a transform works on, as non-negative ints (NumPy's defaults)."""
    if axes is None:
        axes = range(-len(s), 0) if s is not None else range(ndim)
    return tuple(a % ndim for a in axes)


def _fit(a, shape, axes):
    """``a`` cropped or zero-padded along ``axes`` to the lengths of ``shape`` there."""
    index = [slice(None)] * a.ndim
    pad = [(0, 0)] * a.ndim
    for ax in axes:
        n = shape[ax]
        if a.shape[ax] > n:
            index[ax] = slice(0, n)
        elif a.shape[ax] < n:
            pad[ax] = (0, n - a.shape[ax])
    a = a[tuple(index)]
    return np.pad(a, pad) if any(p != (0, 0) for p in pad) else a


@helper("numpy")
def grad_fftn(g, a, s=None, axes=None, norm=None, inverse=False):
    """Gradient of ``np.fft.fftn(a, s, axes, norm)`` (``ifftn`` when ``inverse``): the same
    transform of ``g``, fitted back to ``a``'s shape."""
    shape = np.shape(a)
    axes = _axes(len(shape), s, axes)
    transform = np.fft.ifftn if inverse else np.fft.fftn
    return _fit(transform(g, axes=axes, norm=norm), shape, axes)


@helper("numpy")
def grad_rfftn(g, a, s=None, axes=None, norm=None):
    """Gradient of ``np.fft.rfftn(a, s, axes, norm)``: ``g`` zero-padded to the full last
    axis, transformed by ``fftn``, fitted back to ``a``'s shape (complex: the sweep takes the
    real part for the real ``a``)."""
    shape = np.shape(a)
    axes = _axes(len(shape), s, axes)
    last = axes[-1]
    n = s[-1] if s is not None else shape[last]
    g = _asarray(g)
    full = list(g.shape)
    full[last] = n
    return _fit(np.fft.fftn(_fit(g, full, (last,)), axes=axes, norm=norm), shape, axes)


@helper("numpy")
def grad_irfftn(g, a, s=None, axes=None, norm=None):
    """Gradient of ``np.fft.irfftn(a, s, axes, norm)`` (a real result of a half spectrum):
    along the last axis ``ifft(g)`` on the half spectrum, each frequency that stands for a
    mirrored pair counted twice (not 0, nor n/2); along the other axes ``ifftn``; fitted
    back to ``a``'s shape."""
    shape = np.shape(a)
    axes = _axes(len(shape), s, axes)
    last = axes[-1]
    g = _asarray(g)
    n = g.shape[last]
    m = n // 2 + 1
    c = np.fft.ifft(g, axis=last, norm=norm)
    c = c[(slice(None),) * (last % c.ndim) + (slice(0, m),)] * _in_library(
        _weight(n, c.ndim, last), c)
    if len(axes) > 1:
        c = np.fft.ifftn(c, axes=axes[:-1], norm=norm)
    return _fit(c, shape, axes)


# ---------------------------------------------------------------- their transposes
# (the rules of the helpers above: each is linear in ``g``, and its gradient is the transpose,
# which is the helper of the pair; so the gradients of np.fft can be differentiated again)


@helper("numpy")
def fft_fitted(g, like, s=None, axes=None, norm=None, inverse=False):
    """The transpose of :func:`grad_fftn`: ``g`` fitted to ``like``'s shape, transformed."""
    shape = np.shape(like)
    axes = _axes(len(shape), s, axes)
    transform = np.fft.ifftn if inverse else np.fft.fftn
    return transform(_fit(np.asarray(g), shape, axes), axes=axes, norm=norm)


@helper("numpy")
def rfft_fitted(g, like, a, s=None, axes=None, norm=None):
    """The transpose of :func:`grad_rfftn` (``like``: its ``g``): ``g`` fitted to the full
    transform's shape, ``fftn``, the first half of the last axis kept."""
    axes = _axes(np.ndim(a), s, axes)
    last = axes[-1]
    full = list(np.shape(like))
    full[last] = s[-1] if s is not None else np.shape(a)[last]
    out = np.fft.fftn(_fit(np.asarray(g), full, axes), axes=axes, norm=norm)
    return np.take(out, np.arange(np.shape(like)[last]), axis=last)


@helper("numpy")
def irfft_fitted(g, like, a, s=None, axes=None, norm=None):
    """The transpose of :func:`grad_irfftn` (``like``: its ``g``, the real signal's shape)."""
    axes = _axes(np.ndim(a), s, axes)
    last = axes[-1]
    shape = np.shape(like)
    n = shape[last]
    m = n // 2 + 1
    half = list(shape)
    half[last] = m
    c = _fit(np.asarray(g), half, axes)
    if len(axes) > 1:
        c = np.fft.ifftn(c, axes=axes[:-1], norm=norm)
    c = c * _weight(n, c.ndim, last)
    return np.fft.ifft(_fit(c, shape, (last,)), axis=last, norm=norm)


def _weight(n, ndim, axis):
    """How many frequencies of the full spectrum each of the half spectrum's stands for (1 for
    0 and n/2, else 2), shaped to broadcast along ``axis``."""
    m = n // 2 + 1
    weight = np.full(m, 2.0)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0
    return weight.reshape((m,) + (1,) * (ndim - 1 - axis))
