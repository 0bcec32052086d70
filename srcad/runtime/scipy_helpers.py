"""Helpers that the SciPy derivative rules (:mod:`srcad.rules.scipy_special`,
:mod:`srcad.rules.scipy_stats`, :mod:`srcad.rules.scipy_linalg`,
:mod:`srcad.rules.scipy_signal`) call from generated code. (Those of ``odeint`` are in
:mod:`srcad.runtime.scipy_ode`.)

* ``special``, ``scipy_linalg``, ``scipy_signal``: the modules ``scipy.special``,
  ``scipy.linalg``, ``scipy.signal``, each imported the first time generated code reads one of
  its functions, so that ``import srcad`` never imports SciPy. A rule writes
  ``special.digamma(x)``; the generated code calls SciPy's own ufunc, whose rule then serves a
  second derivative.
* ``multipolygamma(n, a, d)``: the ``n``-th derivative of ``scipy.special.multigammaln(a, d)``
  (a sum of polygammas).
* ``mvn_cov(cov, d)`` / ``mvn_cov_adjoint(g, cov)``: the ``d`` x ``d`` covariance matrix that
  ``scipy.stats.multivariate_normal`` uses for a ``cov`` given as a number, a diagonal or a
  matrix (of a matrix, SciPy reads the lower triangle only), and the adjoint of that linear
  map (the gradient flowing back into ``cov``).
* ``mvn_dim(x, mean, cov, allow_singular)``: the dimension ``d`` SciPy infers (refusing
  ``allow_singular=True``).
* ``grad_convolve_a`` / ``grad_convolve_b``: the gradients into the inputs of
  ``scipy.signal.convolve`` (the result's gradient, placed in the full convolution,
  correlated with the other input).
* ``lu_pivots(piv)``: the permutation matrix of ``lu_factor``'s pivot indices.
* ``banded_dense`` / ``dense_banded``: a band matrix from LAPACK's banded storage (as
  ``scipy.linalg.solve_banded`` reads it) and the adjoint of that linear map.

Imports NumPy, ``srcad.errors`` and ``srcad.runtime.registry``; SciPy on first use.
"""

from __future__ import annotations

import numpy as np

from ..errors import MissingRuleError
from .registry import helper


class _LazyModule:
    """A SciPy module (``scipy.special``, ...), imported on first attribute access; called
    ``name`` in generated code."""

    def __init__(self, module, name):
        self._name = module
        self.__name__ = name
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


special = helper("scipy")(_LazyModule("scipy.special", "special"))
scipy_signal = helper("scipy")(_LazyModule("scipy.signal", "scipy_signal"))
scipy_linalg = helper("scipy")(_LazyModule("scipy.linalg", "scipy_linalg"))


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
def mvn_dim(x, mean, cov, allow_singular=False):
    """The dimension of the normal distribution, as ``scipy.stats.multivariate_normal`` infers
    it: the size of ``mean`` when it is given (a number: 1), else the rows of a ``cov`` matrix,
    else 1 (a number or a diagonal for ``cov``, or none) -- never ``x``'s shape: a vector ``x``
    of a 1-dimensional normal holds that many points (``pdf(x, 0.5, 0.7)``). Raises for
    ``allow_singular=True``: SciPy then drops the covariance's eigenvalues below its cutoff (a
    pseudo-inverse), which the derivative, solving with the covariance, does not."""
    if allow_singular:
        raise MissingRuleError(
            "scipy.stats.multivariate_normal with allow_singular=True: srcad's derivative "
            "solves with the covariance, while SciPy drops its eigenvalues below a cutoff",
            hint="pass allow_singular=False (the default): SciPy then refuses a singular "
            "covariance itself")
    if mean is not None:
        return int(np.size(mean))
    if cov is not None and np.ndim(cov) >= 2:
        return int(np.shape(cov)[0])
    return 1


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


# ---------------------------------------------------------------- scipy.signal.convolve


def _convolve_window(shape_a, shape_b, mode):
    """Where ``convolve(a, b, mode)`` lies in the full convolution: one slice per axis
    (``same`` is centred on ``a``; ``valid`` keeps the points where one input covers the
    other, whichever is larger, as SciPy does)."""
    window = []
    for n1, n2 in zip(shape_a, shape_b):
        full = n1 + n2 - 1
        if mode == "full":
            start, size = 0, full
        elif mode == "valid":
            start, size = min(n1, n2) - 1, abs(n1 - n2) + 1
        elif mode == "same":
            start, size = (full - n1) // 2, n1
        else:
            raise ValueError(f"convolve: unknown mode {mode!r}")
        window.append(slice(start, start + size))
    return tuple(window)


def _convolve_adjoint(value, other, shape_a, shape_b, mode):
    """The full convolution's gradient (``value`` placed in its window) correlated with
    ``other``: the gradient into the input that ``other`` is not."""
    shape_a, shape_b = np.shape(shape_a), np.shape(shape_b)
    value = np.asarray(value, dtype=float)
    full = np.zeros(tuple(n1 + n2 - 1 for n1, n2 in zip(shape_a, shape_b)))
    full[_convolve_window(shape_a, shape_b, mode)] = value
    flipped = np.asarray(other)[(slice(None, None, -1),) * np.ndim(other)]
    return scipy_signal.convolve(full, flipped, mode="valid")


@helper("scipy")
def grad_convolve_a(value, a, b, mode="full"):
    """Gradient into ``a`` of ``scipy.signal.convolve(a, b, mode)`` from the gradient
    ``value`` of its result (linear in ``value`` and in ``b``; ``a`` gives the shape)."""
    return _convolve_adjoint(value, b, a, b, mode)


@helper("scipy")
def grad_convolve_b(value, a, b, mode="full"):
    """Gradient into ``b`` of ``scipy.signal.convolve(a, b, mode)`` (linear in ``value``
    and in ``a``; ``b`` gives the shape)."""
    return _convolve_adjoint(value, a, a, b, mode)


# ---------------------------------------------------------------- banded matrices (solve_banded)


def _band(l_and_u, n):
    """The rows and columns of the entries of an ``n`` x ``n`` matrix with ``l`` diagonals
    below and ``u`` above the main one, and the rows of ``ab`` (banded storage) holding them."""
    lower, upper = (int(k) for k in l_and_u)
    i, j = np.indices((n, n))
    inside = (i - j <= lower) & (j - i <= upper)
    i, j = i[inside], j[inside]
    return i, j, upper + i - j


@helper("scipy")
def banded_dense(l_and_u, ab):
    """The square matrix that ``ab`` stores in LAPACK's banded form (``ab[u + i - j, j]`` is
    entry ``(i, j)``), as ``scipy.linalg.solve_banded`` reads it. Linear in ``ab``."""
    ab = np.asarray(ab, dtype=float)
    n = ab.shape[-1]
    i, j, row = _band(l_and_u, n)
    out = np.zeros((n, n))
    out[i, j] = ab[row, j]
    return out


@helper("scipy")
def dense_banded(l_and_u, value, ab):
    """The adjoint of :func:`banded_dense`: the band of the square ``value`` in banded form,
    shaped like ``ab`` (zero on the entries of ``ab`` that no matrix entry reads)."""
    value = np.asarray(value, dtype=float)
    i, j, row = _band(l_and_u, value.shape[-1])
    out = np.zeros(np.shape(ab))
    out[row, j] = value[i, j]
    return out


# ---------------------------------------------------------------- Cholesky factors (cho_factor)


@helper("scipy")
def cho_lower(c_and_lower):
    """Whether the factor ``cho_factor`` returned is lower triangular (``c_and_lower[1]``);
    the flags of a stack of factors (an array of them, SciPy's batched ``cho_factor``) are
    refused: the rules of ``cho_solve`` handle one matrix."""
    lower = c_and_lower[1]
    if np.ndim(lower) != 0:
        raise MissingRuleError(
            "no derivative of scipy.linalg.cho_solve with the factors of a stack of matrices "
            "(cho_factor of a stack)", construct="scipy.linalg.cho_solve",
            hint="solve each matrix's system in a loop, or write np.linalg.solve(A, b) for "
                 "the stack")
    return bool(lower)


# ---------------------------------------------------------------- LU factors (lu_factor)


@helper("scipy")
def lu_size(a):
    """``n`` for the square ``n x n`` matrix ``a`` (or a stack of them) that
    ``scipy.linalg.lu``/``lu_factor`` factor: the factors of a rectangular matrix (``L``
    ``m x k``, ``U`` ``k x n``) are refused."""
    m, n = np.shape(a)[-2:]
    if m != n:
        raise MissingRuleError(
            f"no derivative of the LU factors of a {m}x{n} matrix: srcad differentiates "
            "scipy.linalg.lu and lu_factor of square matrices", construct="scipy.linalg.lu",
            hint="factor a square matrix (a least-squares problem: np.linalg.lstsq or qr)")
    return n


@helper("scipy")
def lu_pivots(piv):
    """The permutation matrix ``P`` with ``P A = L U`` for LAPACK's pivot indices ``piv`` (as
    ``scipy.linalg.lu_factor`` returns them: row ``i`` was swapped with row ``piv[i]``); the
    pivots of a stack of matrices are refused."""
    if np.ndim(piv) != 1:
        raise MissingRuleError(
            "no derivative of scipy.linalg.lu_factor/lu_solve of a stack of matrices",
            construct="scipy.linalg.lu_factor",
            hint="factor each matrix in a loop, or use scipy.linalg.lu (stacks allowed)")
    order = np.arange(len(piv))
    for i, p in enumerate(np.asarray(piv)):
        order[[i, p]] = order[[p, i]]
    return np.eye(len(piv))[order]
