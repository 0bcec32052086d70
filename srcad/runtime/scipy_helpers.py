"""Helpers that the SciPy derivative rules (:mod:`srcad.rules.scipy_special`,
:mod:`srcad.rules.scipy_stats`) call from generated code.

* ``special``: the module ``scipy.special``, imported the first time generated code reads one
  of its functions, so that ``import srcad`` never imports SciPy. A rule writes
  ``special.digamma(x)``; the generated code calls SciPy's own ufunc, whose rule then serves a
  second derivative.
* ``multipolygamma(n, a, d)``: the ``n``-th derivative of ``scipy.special.multigammaln(a, d)``
  (a sum of polygammas).
* ``mvn_cov(cov, d)`` / ``mvn_cov_adjoint(g, cov)``: the ``d`` x ``d`` covariance matrix that
  ``scipy.stats.multivariate_normal`` uses for a ``cov`` given as a number, a diagonal or a
  matrix (of a matrix, SciPy reads the lower triangle only), and the adjoint of that linear
  map (the gradient flowing back into ``cov``).
* ``mvn_dim(x, mean, cov)``: the dimension ``d`` SciPy infers.

Imports only NumPy and ``srcad.runtime.registry``; SciPy is imported on first use.
"""

from __future__ import annotations

import numpy as np

from .registry import helper


class _LazyModule:
    """``scipy.special``, imported on first attribute access."""

    __name__ = "special"

    def __init__(self, module):
        self._name = module
        self._module = None

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._module is None:
            import importlib

            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self):
        return f"<lazy module {self._name}>"


special = helper("scipy")(_LazyModule("scipy.special"))


@helper("scipy")
def multipolygamma(n, a, d):
    """The ``n``-th derivative of ``multigammaln(a, d)`` in ``a``: the sum over ``j < d`` of
    ``polygamma(n, a - j / 2)`` (``n = 0``: digamma)."""
    a = np.asarray(a, dtype=float)
    shifts = np.arange(d) / 2.0
    values = special.polygamma(n, a[..., None] - shifts)
    out = np.sum(values, axis=-1)
    return float(out) if out.ndim == 0 else out


@helper("scipy")
def mvn_dim(x, mean, cov):
    """The dimension of the normal distribution, as ``scipy.stats.multivariate_normal`` infers
    it: from ``mean``, else ``cov``, else the last axis of ``x``."""
    if mean is not None and np.ndim(mean) > 0:
        return int(np.shape(mean)[-1])
    if np.ndim(cov) > 0:
        return int(np.shape(cov)[0])
    return int(np.shape(x)[-1]) if np.ndim(x) > 0 else 1


@helper("scipy")
def mvn_cov(cov, d):
    """The ``d`` x ``d`` covariance matrix SciPy uses: ``cov * I`` for a number,
    ``np.diag(cov)`` for a vector, and for a matrix its lower triangle mirrored (SciPy's
    eigendecomposition reads only that). Linear in ``cov``."""
    cov = np.asarray(cov, dtype=float)
    if cov.ndim == 0:
        return cov * np.eye(d)
    if cov.ndim == 1:
        return np.diag(np.broadcast_to(cov, (d,)))
    return np.tril(cov) + np.swapaxes(np.tril(cov, -1), -1, -2)


@helper("scipy")
def mvn_cov_adjoint(g, cov):
    """The gradient flowing into ``cov`` from the gradient ``g`` of ``mvn_cov(cov, d)``."""
    g = np.asarray(g, dtype=float)
    if np.ndim(cov) == 0:
        return float(np.trace(g))
    if np.ndim(cov) == 1:
        return np.diagonal(g).copy()
    return np.tril(g) + np.tril(np.swapaxes(g, -1, -2), -1)
