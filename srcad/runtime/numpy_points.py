"""Gradient helpers for the points where a rule's general formula fails or holds only in part:

* :func:`fixed_check`: a rule's template holds only at some constant values of a parameter
  (``np.linalg.pinv(a, hermitian=False)``, a ufunc's ``where=True``); where the call's value
  is known only when the code runs, the gradient checks it then (``fixed=`` in
  :mod:`srcad.rules.registry`);
* :func:`grad_det`: the gradient of ``np.linalg.det``, the adjugate transposed, which exists at
  a singular matrix too (``det(a) * inv(a).T`` does not): from the singular value
  decomposition ``a = U diag(s) V^T``, ``adj(a)^T = det(U) det(V) U diag(prod_{j != i} s_j)
  V^T``, each product of all singular values but one taken without dividing (so a rank
  ``n - 1`` matrix gets its nonzero adjugate and a rank ``n - 2`` one zero), batched over the
  leading axes; :func:`tangent_det` is its forward form, ``sum(adj(a)^T * t)``.

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
def _cofactors(a):
    """``adj(a)^T``, the cofactor matrix of each matrix of ``a`` (the gradient of its
    determinant), from its singular value decomposition (module docstring)."""
    a = np.asarray(a)
    n = a.shape[-1]
    if n == 0:
        return np.zeros_like(a)
    if n == 1:
        return np.ones_like(a)
    u, s, vt = np.linalg.svd(a)
    # the product of all singular values but the i-th, without division: prefix * suffix
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = before * after
    # det(U) det(V) (each +-1 for a real matrix, a unit number for a complex one); the
    # cofactors of a complex matrix are made of U, V^H conjugated so: adj(a)^T is
    # conj(det(U) det(V^H))... taken as det(U V^H)-consistent through the product below
    phase = np.linalg.det(u) * np.linalg.det(vt)
    return phase[..., None, None] * (u * others[..., None, :]) @ vt


@helper("numpy")
def grad_det(g, a):
    """The gradient flowing into ``a`` of ``np.linalg.det(a)`` for the gradient ``g`` of the
    determinant(s): ``g * adj(a)^T``, defined at singular matrices too."""
    return np.expand_dims(g, (-2, -1)) * _cofactors(a)


@helper("numpy")
def tangent_det(t, a):
    """The tangent of ``np.linalg.det(a)`` along ``t``: ``sum(adj(a)^T * t)`` over the last
    two axes."""
    return np.sum(_cofactors(a) * t, axis=(-2, -1))
