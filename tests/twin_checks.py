"""Checks a family test makes of a program ``f(x, y)`` against its autograd twin (the same
source with ``autograd.numpy``): the pullback, the tangent, and Hessians in both modes. Imports
NumPy, autograd and srcad."""

from __future__ import annotations

import autograd
import numpy as np

import srcad


def vjp_jvp_and_hessians(f, twin, x, y, rng):
    """``srcad.vjp``, ``jvp`` and ``hessian`` (both modes) of ``f`` in ``x`` against autograd on
    ``twin``; returns the Hessian."""
    want = autograd.grad(twin, 0)(x, y)
    value, pullback = srcad.vjp(f, x, y)
    np.testing.assert_allclose(value, f(x, y), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], want, rtol=1e-9, atol=1e-12)
    t = 0.3 if np.ndim(x) == 0 else rng.standard_normal(np.shape(x))
    _, tangent = srcad.jvp(f, (x, y), (t, np.zeros_like(y)))
    np.testing.assert_allclose(tangent, np.sum(want * t), rtol=1e-9, atol=1e-12)
    hess = autograd.hessian(twin, 0)(x, y)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x, y), hess, rtol=1e-8,
                                   atol=1e-10)
    return hess
