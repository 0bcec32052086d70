"""The array-API forms of :mod:`srcad.runtime.numpy_points`' helpers of ``np.linalg.det``
and ``np.linalg.slogdet`` (the standard backend binds them with the others of
:mod:`srcad.runtime.standard_helpers`): the same singular value decomposition, written with
the namespace's functions (``linalg.svd``, ``cumulative_prod``), so that a singular matrix
has its cofactors there too.

Imports ``srcad.errors`` and :mod:`.arrays`.
"""

from __future__ import annotations

from ..errors import BackendError
from . import arrays


def make_points(ns):
    """``cofactors``, ``cofactors_tangent``, ``det_nonzero`` and ``slogdet_check`` for
    ``ns``'s arrays."""
    xp = ns.xp

    def last2(x):  # x[..., None, None]
        return xp.expand_dims(xp.expand_dims(x, axis=-1), axis=-1)

    def others(s):  # the product of all entries but the i-th, without division
        ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
        before = xp.cumulative_prod(xp.concat([ones, s[..., :-1]], axis=-1), axis=-1)
        after = xp.flip(xp.cumulative_prod(
            xp.concat([ones, xp.flip(s[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
        return before * after

    def parts(a):
        u, s, vh = xp.linalg.svd(a)
        return u, s, vh, last2(xp.linalg.det(u) * xp.linalg.det(vh))

    def cofactors(a):
        n = a.shape[-1]
        if n < 2:
            return xp.ones_like(a) if n else xp.zeros_like(a)
        u, s, vh, phase = parts(a)
        return phase * ((xp.conj(u) * xp.expand_dims(others(s), axis=-2)) @ xp.conj(vh))

    def cofactors_tangent(t, a):
        n = a.shape[-1]
        t = ns.array(t, like=a)
        if n < 2:
            return xp.zeros_like(t * a)
        u, s, vh, phase = parts(a)
        eye = xp.eye(n, dtype=s.dtype)
        rows = xp.where(xp.astype(eye, xp.bool), xp.ones_like(eye),
                        xp.expand_dims(s, axis=-2) + 0.0 * eye)
        pairs = others(rows) * (1.0 - eye)
        e = xp.matrix_transpose(xp.conj(u)) @ t @ xp.matrix_transpose(xp.conj(vh))
        diagonal = pairs @ xp.expand_dims(xp.linalg.diagonal(e), axis=-1)
        d = diagonal * eye - pairs * xp.matrix_transpose(e)
        return phase * (xp.conj(u) @ d @ xp.conj(vh))

    def det_nonzero(a):
        det = xp.linalg.det(a)
        if bool(xp.any(det == 0)):
            raise arrays.placed(BackendError(
                "no third derivative of np.linalg.det at a singular matrix",
                construct="np.linalg.det", hint="move the point off the singular matrix"))
        return det

    def slogdet_check(a, sign):
        if bool(xp.any(sign == 0)):
            raise arrays.placed(BackendError(
                "no derivative of np.linalg.slogdet at a singular matrix: its log|det| is "
                "-inf there", construct="np.linalg.slogdet",
                hint="the determinant itself, np.linalg.det, has a derivative there (its "
                "cofactors); or move the point off the singular matrix"))
        return a

    return {"cofactors": cofactors, "cofactors_tangent": cofactors_tangent,
            "det_nonzero": det_nonzero, "slogdet_check": slogdet_check}
