"""Gradient helpers of more NumPy functions: ``np.sinc`` (first and second derivatives, exact
at 0), ``np.diff``, ``np.column_stack``, ``np.rollaxis``, ``np.cross``; conventions in
:mod:`srcad.runtime.numpy_helpers`.

Also ``np.gradient``, ``np.partition``, ``np.select``, ``np.append``, and the checks the
``np.linalg.svd`` and ``np.linalg.eig`` rules make (a refusal where no derivative exists).

Imports only ``srcad.errors``, ``srcad.runtime.registry``, ``srcad.runtime.helpers``,
``srcad.runtime.numpy_common`` and ``srcad.runtime.numpy_shape``.
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import duck_array
from ..errors import MissingRuleError, SrcadError
from . import arrays
from .helpers import unbroadcast
from .numpy_common import _asarray, _in_library, _match, _zeros
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
    ``-pi^2 / 3 + pi^4 x^2 / 10`` near 0 (its rule: :func:`sinc_derivative` at 3)."""
    x = _asarray(x, dtype=float)
    small = np.abs(x) < _SMALL
    safe = np.where(small, 1.0, x)
    out = np.where(small, -_PI2 / 3 + _PI2 ** 2 * x ** 2 / 10,
                   -_PI2 * np.sinc(safe) - 2 * dsinc(safe) / safe)
    return float(out) if out.ndim == 0 else out


def _sinc_at_zero(m):
    """The m-th derivative of ``np.sinc`` at 0: ``pi^m cos(m pi / 2) / (m + 1)``."""
    return 0.0 if m % 2 else (-1) ** (m // 2) * np.pi ** m / (m + 1)


@helper("numpy")
def sinc_derivative(n, x):
    """The ``n``-th derivative of ``np.sinc`` at ``x``, for every ``n`` (its rule is this
    function at ``n + 1``: derivatives of every order). From ``(x sinc)^(n) = x sinc^(n) + n
    sinc^(n-1) = pi^(n-1) sin(pi x + n pi / 2)`` where ``|x| >= 1``; inside, the Taylor series
    at 0 (an entire function: 40 terms are exact to double precision there, where the
    recurrence would cancel)."""
    x = _asarray(x, dtype=float)
    small = np.abs(x) < 1.0
    safe = np.where(small, 1.0, x)
    f = np.sinc(safe)
    for m in range(1, n + 1):
        f = (np.pi ** (m - 1) * np.sin(np.pi * safe + m * np.pi / 2) - m * f) / safe
    series = np.zeros_like(x)
    term = np.ones_like(x)  # x^k / k!
    for k in range(40):
        series = series + _sinc_at_zero(n + k) * term
        term = term * x / (k + 1)
    out = np.where(small, series, f)
    return float(out) if out.ndim == 0 else out


@helper("numpy")
def grad_diff(g, a, n=1, axis=-1):
    """Gradient of ``np.diff(a, n, axis)``: the adjoint of a first difference, ``n`` times
    (``-g[0], g[0] - g[1], ..., g[-1]`` along ``axis``)."""
    if n > np.shape(a)[axis]:  # more differences than elements: an empty result
        return _match(np.zeros(np.shape(a)), a)
    g = np.moveaxis(_asarray(g, dtype=float), axis, -1)
    for _ in range(n):
        zero = _zeros(g.shape[:-1] + (1,), g)
        g = np.concatenate([zero, g], axis=-1) - np.concatenate([g, zero], axis=-1)
    return _match(np.moveaxis(g, -1, axis), a)


def _diff_pieces(a, axis, prepend, append):
    """The shapes ``np.diff(a, axis=axis, prepend=..., append=...)`` joins along ``axis``
    (a number is a slab of length 1 there; ``None``: absent) and where each starts."""
    shape = list(np.shape(a))
    axis = axis % len(shape)
    shapes = []
    for end in (prepend, a, append):
        if end is None:
            shapes.append(None)
        elif np.ndim(end) == 0:
            shapes.append(tuple(shape[:axis] + [1] + shape[axis + 1:]))
        else:
            shapes.append(np.shape(end))
    lengths = [0 if s is None else s[axis] for s in shapes]
    joined = tuple(shape[:axis] + [sum(lengths)] + shape[axis + 1:])
    return axis, shapes, np.cumsum([0] + lengths), joined


@helper("numpy")
def diff_part(value, a, axis, prepend, append, part):
    """The piece ``part`` (0: ``prepend``, 1: ``a``, 2: ``append``) of ``value``, an array
    shaped like what ``np.diff`` joins; for a number given as ``prepend``/``append``, its
    slab summed (it was spread over it)."""
    axis, shapes, starts, _ = _diff_pieces(a, axis, prepend, append)
    value = _asarray(value)
    index = [slice(None)] * value.ndim
    index[axis] = slice(starts[part], starts[part + 1])
    piece = value[tuple(index)]
    end = (prepend, a, append)[part]
    if np.ndim(end):
        return _match(piece, end)
    total = np.sum(piece)
    return total if arrays.is_duck(total) else float(total)  # Dask: lazy


@helper("numpy")
def diff_place(value, a, axis, prepend, append, part):
    """The adjoint of :func:`diff_part`: ``value`` put at piece ``part`` of zeros shaped like
    what ``np.diff`` joins (a number spread over its slab)."""
    axis, shapes, starts, joined = _diff_pieces(a, axis, prepend, append)
    out = _zeros(joined, value, dtype=np.result_type(_asarray(value), float))
    index = [slice(None)] * len(joined)
    index[axis] = slice(starts[part], starts[part + 1])
    out[tuple(index)] = np.broadcast_to(value, shapes[part])
    return out


@helper("numpy")
def grad_diff_ends(g, a, n, axis, prepend, append, part):
    """Gradient of ``np.diff(a, n, axis, prepend=..., append=...)`` for piece ``part``
    (0: ``prepend``, 1: ``a``, 2: ``append``): the adjoint of the difference of the joined
    array, cut back into its pieces. ``n=0``: NumPy returns ``a`` itself, the ends unread."""
    if n == 0:
        end = (prepend, a, append)[part]
        return _match(g, a) if part == 1 else (
            _match(np.zeros(np.shape(end)), end) if np.ndim(end) else 0.0)
    joined = _diff_pieces(a, axis, prepend, append)[3]
    return diff_part(grad_diff(g, np.zeros(joined), n, axis), a, axis, prepend, append, part)


@helper("numpy")
def tangent_diff_ends(t, a, n, axis, prepend, append, part):
    """Tangent of ``np.diff(a, n, axis, prepend=..., append=...)`` along ``t``, the tangent
    of piece ``part`` (the transpose of :func:`grad_diff_ends`); ``n=0``: ``t`` for ``a``,
    zero for the ends NumPy leaves unread."""
    if n == 0:
        return _match(t, a) if part == 1 else np.zeros(np.shape(a))
    return np.diff(diff_place(t, a, axis, prepend, append, part), n, axis)


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


# ---------------------------------------------------------------- np.gradient, np.partition,
# np.select, np.append (added for issue 17)


def _gradient_axes(f, spacing, axis):
    """The axes ``np.gradient`` differentiates along, with the spacing of each."""
    nd = np.ndim(f)
    axes = list(range(nd)) if axis is None else (
        [axis % nd] if np.ndim(axis) == 0 else [a % nd for a in axis])
    if not spacing:
        spacing = (1.0,) * len(axes)
    elif len(spacing) == 1 and len(axes) > 1:
        spacing = tuple(spacing) * len(axes)
    return axes, spacing


@helper("numpy")
def grad_gradient(g, f, axis=None, edge_order=1, *spacing):
    """Gradient of ``np.gradient(f, *spacing, axis=axis, edge_order=edge_order)`` into ``f``:
    the transpose of the difference matrix of each axis (built by ``np.gradient`` of an
    identity, so every edge order and uneven spacing is NumPy's own), applied to that axis's
    gradient and summed over the axes."""
    axes, spacing = _gradient_axes(f, spacing, axis)
    parts = [g] if len(axes) == 1 and not isinstance(g, (list, tuple)) else list(g)
    out = 0.0
    for ax, h, part in zip(axes, spacing, parts):
        n = np.shape(f)[ax]
        diff = np.gradient(np.eye(n), h, axis=0, edge_order=edge_order)  # column j: of e_j
        part = part if arrays.is_duck(part) else np.asarray(part, dtype=float)  # Dask: lazy
        moved = np.moveaxis(np.broadcast_to(part, np.shape(f)), ax, 0)
        out = out + np.moveaxis(np.tensordot(_in_library(diff.T, moved), moved, axes=1), 0, ax)
    return _match(out if np.ndim(out) else np.zeros(np.shape(f)), f)


def _partition_order(a, kth, axis):
    x = _asarray(a)
    if axis is None:
        x, axis = x.ravel(), -1
    return np.argpartition(x, kth, axis=axis), axis


@helper("numpy")
def grad_partition(g, a, kth, axis=-1):
    """Gradient of ``np.partition(a, kth, axis)``: ``g`` put back where each element came
    from (the order of ``np.argpartition``, as NumPy's partition moves them)."""
    order, ax = _partition_order(a, kth, axis)
    out = _zeros(order.shape, order)
    np.put_along_axis(out, order, np.broadcast_to(_asarray(g, dtype=float), order.shape), ax)
    return _match(np.reshape(out, np.shape(a)), a)


@helper("numpy")
def tangent_partition(t, a, kth, axis=-1):
    """Tangent of ``np.partition(a, kth, axis)`` along ``t``: ``t`` moved as ``a`` is."""
    order, ax = _partition_order(a, kth, axis)
    tt = np.broadcast_to(np.asarray(t, dtype=float), np.shape(a))
    return np.take_along_axis(tt.ravel() if axis is None else tt, order, axis=ax)


@helper("numpy")
def grad_select(g, condlist, choicelist):
    """Gradient of ``np.select(condlist, choicelist, default)`` into ``choicelist``: each
    choice gets ``g`` where its condition is the first true one."""
    taken = np.zeros(np.shape(g), dtype=bool)
    out = []
    for cond, choice in zip(condlist, choicelist):
        mask = np.broadcast_to(_asarray(cond, dtype=bool), taken.shape) & ~taken
        taken = taken | mask
        out.append(_match(unbroadcast(np.where(mask, g, 0.0), _asarray(choice)), choice))
    return out


def _append_split(g, arr, values, axis):
    g = _asarray(g, dtype=float)
    if axis is None:
        n = int(np.prod(np.shape(arr)))  # (np.size of a Dask array computes it)
        return g[:n], g[n:]
    n, axis = np.shape(arr)[axis], axis % np.ndim(g)
    before = (slice(None),) * axis
    return g[before + (slice(None, n),)], g[before + (slice(n, None),)]


@helper("numpy")
def grad_append(g, arr, values, axis=None, which=0):
    """Gradient of ``np.append(arr, values, axis)`` into ``arr`` (``which`` 0) or ``values``
    (1): its part of ``g``, in its shape (``axis=None`` flattened both)."""
    part = _append_split(g, arr, values, axis)[which]
    like = arr if which == 0 else values
    return _match(np.reshape(part, np.shape(like)), like)


@helper("numpy")
def grad_tolist(g, a):
    """Gradient of ``a.tolist()`` (nested lists of numbers): the lists' gradients as an array
    of ``a``'s shape (in ``a``'s library: the numbers of a list are NumPy's)."""
    return _match(_in_library(np.reshape(np.asarray(g, dtype=float), np.shape(a)), a), a)


@helper("numpy")
def square_chunks(a):
    """``a``, with a Dask array's last two axes rechunked into equal square blocks (Dask's
    ``inv`` and ``solve`` take nothing else), as large as its largest chunk where that
    divides the matrix; the identity on every other array."""
    if not arrays.is_duck(a) or not hasattr(a, "rechunk") or not hasattr(a, "chunks"):
        return a
    rows, cols = a.chunks[-2], a.chunks[-1]
    if len(set(rows)) == 1 and rows == cols:  # every block square already
        return a
    n, size = sum(rows), max(max(rows), max(cols))
    while n % size:  # equal blocks: a size that divides the matrix
        size -= 1
    return a.rechunk({a.ndim - 2: size, a.ndim - 1: size})


#: per array type: whether its library's ``np.linalg.cholesky`` returns the upper factor when
#: asked for the lower one (Dask's does: it dispatches to ``da.linalg.cholesky(a)``, whose
#: default is ``lower=False``)
_UPPER_CHOLESKY = {}


@helper("numpy")
def cholesky_upper(ans, upper=False):
    """Whether ``ans``, a result of ``np.linalg.cholesky(a, upper=upper)``, is the upper
    factor: ``upper`` for NumPy; for another library's array, what that library does, found
    once per type on a 2x2 matrix (the derivative rules follow the factor the code got)."""
    if type(ans) is np.ndarray or not duck_array(ans):
        return upper
    key = (type(ans), bool(upper))
    if key not in _UPPER_CHOLESKY:
        probe = np.asarray([[4.0, 2.0], [2.0, 3.0]], like=ans)
        factor = np.linalg.cholesky(probe, upper=True) if upper else np.linalg.cholesky(probe)
        for fetch in ("compute", "get"):  # Dask's lazy array, CuPy's device array
            if hasattr(factor, fetch):
                factor = getattr(factor, fetch)()
        _UPPER_CHOLESKY[key] = bool(np.asarray(factor)[0, 1] != 0.0)
    return _UPPER_CHOLESKY[key]


@helper("numpy")
def svd_rank(a, full_matrices=True):
    """``min(m, n)`` for the matrices ``a``, the number of singular vectors whose derivative
    exists; the extra columns of a full ``U`` (or rows of ``Vh``) of a non-square matrix are
    not unique, so their derivative is refused."""
    m, n = np.shape(a)[-2:]
    if full_matrices and m != n:
        raise MissingRuleError(
            f"no derivative of np.linalg.svd(a, full_matrices=True) for a {m}x{n} matrix: the "
            "extra singular vectors of a non-square matrix are not unique",
            construct="np.linalg.svd", hint="pass full_matrices=False (or compute_uv=False)")
    return min(m, n)


@helper("numpy")
def eig_size(w):
    """The number of eigenvalues ``w`` holds (those of ``np.linalg.eig``, real or complex)."""
    return np.shape(w)[-1]


@helper("numpy")
def eig_order(found, w):
    """The permutation matrix ``P`` putting ``found`` (the eigenvalues of ``np.linalg.eig(a)``)
    in the order of ``w`` (those of ``np.linalg.eigvals(a)``: LAPACK need not list them alike
    when it also computes vectors), so that ``V @ P`` are ``w``'s eigenvectors: each the
    nearest, refused unless they make a permutation."""
    found, w = np.asarray(found), np.asarray(w)
    order = np.argmin(np.abs(w[..., :, None] - found[..., None, :]), axis=-1)
    if not np.array_equal(np.sort(order, axis=-1), np.broadcast_to(
            np.arange(np.shape(w)[-1]), order.shape)):
        raise SrcadError("np.linalg.eigvals: repeated (or nearly equal) eigenvalues have no "
                         "derivative that follows each of them",
                         hint="eigenvalues must be distinct (as for np.linalg.eig)")
    return np.swapaxes(np.eye(np.shape(w)[-1])[order], -1, -2)


@helper("numpy")
def qr_size(a, mode="reduced", pivoting=False):
    """``n`` for the ``m x n`` matrices ``a`` (``m >= n``) of ``np.linalg.qr(a, mode)`` (or
    ``scipy.linalg.qr``, whose ``'economic'`` and ``'full'`` are these two): the
    reduced factorisation (``'complete'`` of a square matrix is the same) is differentiable;
    the extra columns of a complete ``Q``, a wide matrix's factors and ``'r'``/``'raw'`` are
    refused."""
    m, n = np.shape(a)[-2:]
    mode = {"economic": "reduced", "full": "complete"}.get(mode, mode)  # scipy.linalg.qr's
    if pivoting:
        raise MissingRuleError("no derivative of scipy.linalg.qr(a, pivoting=True)",
                               construct="scipy.linalg.qr", hint="leave pivoting out")
    if mode not in ("reduced", "complete") or m < n or mode == "complete" and m != n:
        raise MissingRuleError(
            f"no derivative of np.linalg.qr(a, mode={mode!r}) for a {m}x{n} matrix: srcad "
            "differentiates the reduced factorisation of a matrix with m >= n",
            construct="np.linalg.qr", hint="pass mode='reduced' (a tall or square matrix)")
    return n


@helper("numpy")
def gauge_check(value, j, k=0.0):
    """``value``, once checked that the function differentiated does not depend on the phases
    LAPACK chooses for complex singular vectors or eigenvectors: with ``j``, ``k`` the
    matrices ``U^H gU`` and ``V^H gV`` (or ``V^T gV`` alone), a change of phase moves it by
    ``Im(diag(j + k))``, which must be zero. One that does depend on them has no derivative
    finite differences could confirm: refused (reverse mode; a tangent takes a fixed choice)."""
    diag = np.diagonal(np.asarray(j), axis1=-2, axis2=-1)
    if np.ndim(k):
        diag = diag + np.diagonal(np.asarray(k), axis1=-2, axis2=-1)
    scale = 1.0 + float(np.max(np.abs(j), initial=0.0)) + float(np.max(np.abs(k), initial=0.0))
    if np.max(np.abs(np.imag(diag)), initial=0.0) > 1e-6 * scale:
        raise arrays.placed(MissingRuleError(
            "no derivative of a function of complex singular vectors or eigenvectors that "
            "depends on their phases (LAPACK's choice: finite differences would follow it, "
            "no formula can)", construct="np.linalg.svd/eig/eigh",
            hint="use what does not depend on the phases: np.abs(u), the values, "
            "u @ np.diag(s) @ vh"))
    return value


@helper("numpy")
def eig_unchecked(a):
    """``np.linalg.eig(a)``, as srcad's own templates call it (the gradient of
    ``np.linalg.eigvals``): they use the vectors of two calls in a combination no change of
    their phases or norms changes, so its rule has no :func:`gauge_check`."""
    return np.linalg.eig(a)


@helper("numpy")
def svd_thin(a, full_matrices=False, compute_uv=True):
    """``np.linalg.svd(a, full_matrices=False)``, as srcad's own templates call it (the
    gradient of the singular values, of the nuclear and spectral norms): they use ``U`` and
    ``Vh`` in combinations the phases do not change, sometimes of two calls, so its rule has
    no :func:`gauge_check` (``full_matrices``, ``compute_uv``: for the rule's templates)."""
    return np.linalg.svd(a, full_matrices=False)
