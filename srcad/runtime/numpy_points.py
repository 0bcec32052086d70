"""Gradient helpers for the points where a rule's general formula fails or holds only in part:

* :func:`fixed_check`: a rule's template holds only at some constant values of a parameter
  (``np.linalg.pinv(a, hermitian=False)``, a ufunc's ``where=True``); where the call's value
  is known only when the code runs, the gradient checks it then (``fixed=`` in
  :mod:`srcad.rules.registry`);
* :func:`cofactors`: ``adj(a)^T``, the gradient of ``np.linalg.det``, which exists at a
  singular matrix too (``det(a) * inv(a).T``, the rule's formula before, raised there): from
  the singular value decomposition ``a = U diag(s) V^H``, ``adj(a)^T = det(U) det(V^H)
  conj(U) diag(prod_{j != i} s_j) conj(V^H)``, each product of all singular values but one
  taken without dividing (a rank ``n - 1`` matrix gets its nonzero adjugate, a rank ``n - 2``
  one zero), batched over the leading axes; where ``inv(a)`` is accurate (``a @ inv(a)``
  within 1e-10 of the identity) ``det(a) inv(a)^T`` is used instead, the faster way;
  :func:`cofactors_tangent` is its derivative (the second derivative of ``det``), the same two
  ways (the SVD's without division either); :func:`det_nonzero` is the determinant where a
  third derivative divides by it (a singular matrix refused there);
* :func:`slogdet_check`: ``np.linalg.slogdet`` of a singular matrix (sign 0, ``log|det| =
  -inf``) has no derivative: refused when the gradient runs (JAX and PyTorch give inf or nan).

Conventions in :mod:`srcad.runtime.numpy_helpers`. Imports only ``srcad.errors``,
``srcad.runtime.registry`` and ``srcad.runtime.arrays``.
"""

from __future__ import annotations

import numpy as np

from ..errors import MissingRuleError
from . import arrays as _lib
from .registry import helper


# ---------------------------------------------------------------- constant parameters
@helper("numpy")
def fixed_check(value, given, accepted, call):
    """``value`` (a gradient or tangent), once checked that ``given``, the argument of a
    parameter the rule holds at only for the constants ``accepted``, is one of them; ``call``
    spells the parameter (``np.linalg.pinv(..., hermitian=)``) for the message."""
    if not any(type(given) is type(v) and given == v or given is v for v in accepted):
        raise _lib.placed(MissingRuleError(
            f"{call}{given!r}): srcad's rule holds only for "
            + " or ".join(f"{call.rpartition('(..., ')[2]}{v!r}" for v in accepted),
            hint="pass that value (or leave the parameter out), or wrap the "
            "call in srcad.stop_gradient(...) if no gradient should flow"))
    return value


# ---------------------------------------------------------------- np.linalg.det
def _others(s):
    """The product of all entries of ``s`` but the i-th, along its last axis, without
    division (a prefix times a suffix product): exact where entries are zero."""
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def _svd(a):
    """``a = U diag(s) V^H`` and ``det(U) det(V^H)``, the parts of its cofactors."""
    u, s, vh = np.linalg.svd(a)
    return u, s, vh, np.linalg.det(u) * np.linalg.det(vh)


def _svd_cofactors(a):
    """``adj(a)^T`` of each matrix of the NumPy array ``a`` (module docstring)."""
    a = np.asarray(a)
    if a.shape[-1] < 2:
        return np.ones_like(a) if a.shape[-1] else np.zeros_like(a)
    u, s, vh, phase = _svd(a)
    # C(XY) = C(X) C(Y), C(U) = det(U) conj(U) for a unitary U: adj(a)^T is
    # det(U) det(V^H) conj(U) C(diag(s)) conj(V^H), C(diag(s)) = diag(product of the others)
    return phase[..., None, None] * ((np.conj(u) * _others(s)[..., None, :]) @ np.conj(vh))


def _svd_cofactors_tangent(t, a):
    """The derivative of :func:`_cofactors` at ``a`` along ``t`` (and, the same map, its
    transpose applied to ``t``): ``phase conj(U) D(U^H t V) conj(V^H)`` with, at a diagonal
    ``S``, ``D(E)_ii = sum_{k != i} E_kk P_ik`` and ``D(E)_ij = -E_ji P_ij`` (``P_ij`` the
    product of the singular values but the i-th and j-th): no division, so defined at a
    singular matrix too."""
    a = np.asarray(a)
    n = a.shape[-1]
    if n < 2:
        return np.zeros(np.broadcast_shapes(np.shape(t), a.shape), dtype=np.result_type(t, a))
    u, s, vh, phase = _svd(a)
    rows = np.where(np.eye(n, dtype=bool), 1.0, s[..., None, :])  # row i: s with s_i = 1
    pairs = _others(rows) * (1.0 - np.eye(n))  # P_ik, k != i (0 on the diagonal)
    e = np.swapaxes(np.conj(u), -1, -2) @ t @ np.swapaxes(np.conj(vh), -1, -2)  # U^H t V
    diagonal = np.einsum("...ik,...k->...i", pairs, np.diagonal(e, axis1=-2, axis2=-1))
    d = diagonal[..., :, None] * np.eye(n) - pairs * np.swapaxes(e, -1, -2)
    return phase[..., None, None] * (np.conj(u) @ d @ np.conj(vh))


def _regular(a):
    """``(inv(a), det(a), good)`` where ``good`` marks the matrices (of a batch) whose inverse
    is accurate (``a @ inv(a)`` within 1e-10 of the identity: condition numbers up to about
    1e6), or None when one is exactly singular (NumPy's inverse raises)."""
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return None
    residual = np.max(np.abs(a @ inv - np.eye(a.shape[-1])), axis=(-2, -1))
    return inv, np.linalg.det(a), residual <= 1e-10


def _cofactors(a):
    """``adj(a)^T`` of each matrix of the NumPy array ``a``: ``det(a) inv(a)^T`` where the
    inverse is accurate (the fast way), from the SVD elsewhere (singular, ill-conditioned)."""
    a = np.asarray(a)
    regular = _regular(a) if a.shape[-1] > 1 else None
    if regular is None:
        return _svd_cofactors(a)
    inv, det, good = regular
    out = det[..., None, None] * np.swapaxes(inv, -1, -2)
    if not np.all(good):
        out[~good] = _svd_cofactors(a[~good])
    return out


def _cofactors_tangent(v, a):
    """The derivative of :func:`_cofactors` at ``a`` along ``v`` (the same map gives its
    transpose): ``(<C, v> C - C v^T C) / det(a)`` where the inverse is accurate, from the SVD
    elsewhere."""
    a = np.asarray(a)
    v = np.broadcast_to(v, np.broadcast_shapes(np.shape(v), a.shape))
    regular = _regular(a) if a.shape[-1] > 1 else None
    if regular is None:
        return _svd_cofactors_tangent(v, a)
    inv, det, good = regular
    c = det[..., None, None] * np.swapaxes(inv, -1, -2)
    inner = np.sum(c * v, axis=(-2, -1))[..., None, None]
    out = (inner * c - c @ np.swapaxes(v, -1, -2) @ c) / det[..., None, None]
    if not np.all(good):
        out[~good] = _svd_cofactors_tangent(v[~good], a[~good])
    return out


def _lazy(fn, a, *more):
    """``fn(a, *more)`` on a Dask ``a``, each matrix in one block, lazily; else None."""
    if not (_lib.is_duck(a) and hasattr(a, "map_blocks")):
        return None
    whole = a.rechunk({a.ndim - 2: -1, a.ndim - 1: -1})
    if more:
        more = [m.rechunk(whole.chunks) if hasattr(m, "rechunk") else m for m in more]
        return whole.map_blocks(lambda x, *m: fn(*m, x) if m else fn(x), *more,
                                dtype=np.result_type(whole.dtype, float))
    return whole.map_blocks(fn, dtype=np.result_type(whole.dtype, float))


@helper("numpy")
def cofactors(a):
    """``adj(a)^T``, the cofactor matrix of ``a`` (of each matrix of a batch): the gradient
    of ``np.linalg.det(a)``, at a singular matrix too (the adjugate of a rank ``n - 1`` matrix
    is not zero, of a lower rank it is)."""
    lazy = _lazy(_cofactors, a)
    return _cofactors(a) if lazy is None else lazy


@helper("numpy")
def cofactors_tangent(v, a):
    """The derivative of :func:`cofactors` at ``a`` along ``v``, which is also its
    transpose applied to ``v`` (``np.linalg.det``'s second derivative, at a singular matrix
    too)."""
    lazy = _lazy(_cofactors_tangent, a, v)
    return _cofactors_tangent(v, a) if lazy is None else lazy


@helper("numpy")
def det_nonzero(a):
    """``np.linalg.det(a)`` where a third derivative of ``det`` divides by it: a singular
    matrix is refused there (the first and second derivatives are defined at one)."""
    if _lib.is_duck(a) and hasattr(a, "map_blocks"):  # Dask: unchecked, lazily
        whole = a.rechunk({a.ndim - 2: -1, a.ndim - 1: -1})
        return whole.map_blocks(np.linalg.det, drop_axis=(a.ndim - 2, a.ndim - 1),
                                dtype=np.result_type(whole.dtype, float))
    det = np.linalg.det(a)
    if np.any(det == 0):
        raise _lib.placed(MissingRuleError(
            "no third derivative of np.linalg.det at a singular matrix: srcad writes it for "
            "an invertible matrix (the first and second are defined at a singular one)",
            construct="np.linalg.det", hint="move the point off the singular matrix, or "
            "differentiate at most twice"))
    return det


# ---------------------------------------------------------------- np.linalg.slogdet
@helper("numpy")
def slogdet_check(a, sign):
    """``a``, once checked that no matrix of it is singular (``sign``, the sign
    ``np.linalg.slogdet`` gave, is not 0): there ``log|det|`` is ``-inf``, with no derivative
    (JAX's and PyTorch's give inf or nan there; srcad refuses)."""
    if not _lib.is_duck(sign) and np.any(np.asarray(sign) == 0):
        raise _lib.placed(MissingRuleError(
            "no derivative of np.linalg.slogdet at a singular matrix: its log|det| is -inf "
            "there", construct="np.linalg.slogdet",
            hint="the determinant itself, np.linalg.det, has a derivative there (its "
            "cofactors); or move the point off the singular matrix"))
    return a
