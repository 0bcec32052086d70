"""Checks the family tests share: of a program ``f(x, y)`` against its autograd twin (the same
source with ``autograd.numpy``) the pullback, the tangent, and Hessians in both modes; arrays
close to a tolerance; central differences along one argument. Imports NumPy, autograd and
srcad."""

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


def close(a, b, tol):
    """``a`` and ``b`` (arrays or numbers) equal to ``tol``, relative and absolute."""
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


def central(f, args, k, h=1e-6):
    """Central differences of ``f(*args)`` along each element of its argument ``k``."""
    out = np.zeros_like(args[k])
    for i in range(args[k].size):
        e = np.zeros_like(args[k])
        e.flat[i] = h
        up, down = list(args), list(args)
        up[k], down[k] = args[k] + e, args[k] - e
        out.flat[i] = (f(*up) - f(*down)) / (2 * h)
    return out
