"""Second derivatives of the NumPy functions whose gradient helper is not a template of
functions with rules: ``np.prod``, ``np.cumprod``, ``np.linalg.norm`` and the batched
``np.linalg.solve`` (and the third derivative of ``np.prod``); conventions in
:mod:`srcad.runtime.numpy_helpers`.

Each helper here is a Hessian (or a second directional derivative) applied to vectors, exact
with zeros where the first-order helper is (no division by an element). They are what the
rules of ``grad_prod``, ``grad_cumprod``, ``grad_norm``, ``grad_solve_a`` and ``grad_solve_b``
call, so ``srcad.hessian`` works through those functions. They are linear in the vectors they
take; their own rules say so, and a third derivative with respect to the point (``a``, ``x``)
stops with a ``MissingRuleError``.

Imports only ``srcad.runtime.registry``, ``srcad.runtime.arrays``, ``srcad.runtime.helpers`` and
``srcad.runtime.numpy_common``.
"""

from __future__ import annotations

import numpy as np

from .arrays import first_duck, refuse
from .helpers import unbroadcast
from .numpy_common import _asarray, _axes, _match, _no_norm_rule, _real_point, _restore, _swap
from .numpy_linalg import _solve
from .registry import helper


def _refuse_ducks(name, *values):
    """Refuse another library's arrays in a helper that writes its result element by element
    (a write per element would compute a Dask array)."""
    like = first_duck(values)
    if like is not None:
        raise refuse(like, f"{name} (a higher derivative written element by element)",
                     "compute the array first (x.compute() for Dask)")


# ---------------------------------------------------------------- np.prod


def _exclusive_products(flat):
    """``out[..., i] = prod_{j != i} flat[..., j]`` along the last axis, without dividing:
    the running product from the left times the one from the right."""
    ones = np.ones(flat.shape[:-1] + (1,))
    left = np.concatenate([ones, np.cumprod(flat[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return left * right


def _grouped(x, axes):
    """``x`` with ``axes`` moved last and flattened into one: (rest..., n), and the inverse."""
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, last)
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))

    def back(y):
        return np.moveaxis(np.reshape(y, moved.shape), last, axes)

    return flat, back


def _pair_products(flat, wflat):
    """Along the last axis: element ``k`` is ``sum_{i != k} w_i prod_{j not in (i, k)} a_j``
    (``a_k`` set to 1 in a copy rather than divided out)."""
    n = flat.shape[-1]
    stacked = np.repeat(flat[..., None, :], n, axis=-2)  # [..., k, i]: a with a_k set to 1
    diagonal = np.eye(n, dtype=bool)  # (np.where, not a write: Dask writes no such index)
    stacked = np.where(diagonal, 1.0, stacked)
    pairs = _exclusive_products(stacked)  # [..., k, i] = prod_{j not in (i, k)} a_j (i != k)
    pairs = np.where(diagonal, 0.0, pairs)
    return np.einsum("...ki,...i->...k", pairs, wflat)


def _grouped_operands(a, *vectors):
    """``a`` (complex stays complex) and ``vectors`` broadcast to it, each grouped by
    :func:`_grouped` over ``axis``; and the inverse."""
    x = _asarray(a, dtype=np.result_type(a, float))
    return x, [np.broadcast_to(_asarray(v, dtype=np.result_type(v, x)), x.shape)
               for v in vectors]


@helper("numpy")
def prod_hvp(w, a, axis=None):
    """The Hessian of ``np.prod(a, axis)`` (each product) applied to ``w``: element ``k`` is
    ``sum_{i != k} w_i prod_{j not in (i, k)} a_j`` over the product ``k`` belongs to.

    The Hessian is symmetric, so this is both the reverse and the forward second derivative
    of ``grad_prod``. Exact with zeros: ``a_k`` is set to 1 in a copy rather than divided out
    (O(n^2) work for a product of n elements).
    """
    x, (ww,) = _grouped_operands(a, w)
    if x.ndim == 0:
        return _match(np.zeros(()), a)
    axes = _axes(axis, x.ndim)
    flat, back = _grouped(x, axes)
    wflat, _ = _grouped(ww, axes)
    return _match(back(_pair_products(flat, wflat)), a)


@helper("numpy")
def prod_d3(w, v, a, axis=None):
    """The third derivative of ``np.prod(a, axis)`` (each product) applied to ``w`` and ``v``
    (symmetric in them): element ``k`` is ``sum over distinct i, j, k of w_i v_j prod_{l not
    in (i, j, k)} a_l``, the derivative of ``prod_hvp(w, a, axis)`` along ``v``. Exact with
    zeros (O(n^3) work)."""
    _refuse_ducks("np.prod's prod_d3", w, v, a)
    x, (ww, vv) = _grouped_operands(a, w, v)
    if x.ndim == 0:
        return _match(np.zeros(()), a)
    axes = _axes(axis, x.ndim)
    flat, back = _grouped(x, axes)
    wflat, _ = _grouped(ww, axes)
    vflat, _ = _grouped(vv, axes)
    out = np.zeros(np.broadcast_shapes(flat.shape, wflat.shape, vflat.shape),
                   dtype=np.result_type(flat, wflat, vflat))
    for k in range(flat.shape[-1]):  # a_k set to 1 and w_k to 0: the pairs without k
        a_k, w_k = flat.copy(), wflat.copy()
        a_k[..., k], w_k[..., k] = 1.0, 0.0
        pairs = _pair_products(a_k, w_k)
        pairs[..., k] = 0.0
        out[..., k] = np.sum(vflat * pairs, axis=-1)
    return _match(back(out), a)


# ---------------------------------------------------------------- np.cumprod


def _last(x, axis):
    """``x`` flattened if ``axis`` is None, else with ``axis`` moved last."""
    return np.ravel(x) if axis is None else np.moveaxis(x, axis, -1)


@helper("numpy")
def cumprod_d2(u, v, a, axis=None):
    """The second derivative of ``np.cumprod(a, axis)`` along ``u`` and ``v`` (symmetric in
    them), by the recurrence ``e[i] = e[i-1] a[i] + du[i-1] v[i] + dv[i-1] u[i]``, where
    ``du``, ``dv`` are the first derivatives along ``u``, ``v`` (nothing is divided)."""
    _refuse_ducks("np.cumprod's cumprod_d2", u, v, a)
    shape = np.broadcast_shapes(np.shape(a), np.shape(u), np.shape(v))
    xs, us, vs = (_last(np.broadcast_to(np.asarray(y, dtype=float), shape), axis)
                  for y in (a, u, v))
    n = xs.shape[-1]
    out = np.zeros(xs.shape)
    if n:
        c, du, dv = xs[..., 0], us[..., 0], vs[..., 0]
        for i in range(1, n):
            out[..., i] = out[..., i - 1] * xs[..., i] + du * vs[..., i] + dv * us[..., i]
            du, dv = du * xs[..., i] + c * us[..., i], dv * xs[..., i] + c * vs[..., i]
            c = c * xs[..., i]
    return out if axis is None else np.moveaxis(out, -1, axis)


@helper("numpy")
def cumprod_hvp(value, w, a, axis=None):
    """Element ``k`` is ``<value, cumprod_d2(w, e_k, a, axis)>``: the gradient of ``<value,
    tangent_cumprod(w, a, axis)>`` with respect to ``a`` (O(n^2) for a run of n elements;
    the runs along the other axes are independent and done together)."""
    _refuse_ducks("np.cumprod's cumprod_hvp", value, w, a)
    x = np.asarray(a, dtype=float)
    xs = _last(x, axis)
    ws = _last(np.broadcast_to(np.asarray(w, dtype=float), x.shape), axis)
    vals = _last(np.broadcast_to(np.asarray(value, dtype=float),
                                 (x.size,) if axis is None else x.shape), axis)
    n = xs.shape[-1]
    units = np.eye(n).reshape((n,) + (1,) * (xs.ndim - 1) + (n,))  # [j, ..., i]
    d2 = cumprod_d2(ws[None], units, xs[None], -1)  # [j, ..., i]
    out = np.moveaxis(np.sum(d2 * vals[None], axis=-1), 0, -1)  # [..., j]
    out = out.reshape(x.shape) if axis is None else np.moveaxis(out, -1, axis)
    return _match(out, a)


@helper("numpy")
def cumprod_d3(u, v, w, a, axis=None):
    """The third derivative of ``np.cumprod(a, axis)`` along ``u``, ``v``, ``w`` (symmetric in
    them): the recurrence of :func:`cumprod_d2` carried for every subset of the directions
    (the derivative of a running product along a set ``S`` is ``D_S[i] = D_S[i-1] a[i] +
    sum over x in S of D_{S - x}[i-1] x[i]``; nothing is divided)."""
    _refuse_ducks("np.cumprod's cumprod_d3", u, v, w, a)
    shape = np.broadcast_shapes(np.shape(a), np.shape(u), np.shape(v), np.shape(w))
    xs, *ds = (_last(np.broadcast_to(np.asarray(y, dtype=float), shape), axis)
               for y in (a, u, v, w))
    full = (1 << len(ds)) - 1
    out = np.zeros(xs.shape)
    if xs.shape[-1]:
        d = {0: xs[..., 0]}
        for subset in range(1, full + 1):
            single = [j for j in range(len(ds)) if subset == 1 << j]
            d[subset] = ds[single[0]][..., 0] if single else np.zeros(xs.shape[:-1])
        out[..., 0] = d[full]
        for i in range(1, xs.shape[-1]):
            d = {subset: d[subset] * xs[..., i] + sum(
                d[subset ^ (1 << j)] * ds[j][..., i] for j in range(len(ds))
                if subset & (1 << j)) for subset in range(full + 1)}
            out[..., i] = d[full]
    return out if axis is None else np.moveaxis(out, -1, axis)


@helper("numpy")
def cumprod_hvp3(value, u, v, a, axis=None):
    """Element ``k`` is ``<value, cumprod_d3(u, v, e_k, a, axis)>``: the gradient of ``<value,
    cumprod_d2(u, v, a, axis)>`` with respect to ``a`` (as :func:`cumprod_hvp` is for the
    first derivative)."""
    _refuse_ducks("np.cumprod's cumprod_hvp3", value, u, v, a)
    x = np.asarray(a, dtype=float)
    xs = _last(x, axis)
    us, vs = (_last(np.broadcast_to(np.asarray(y, dtype=float), x.shape), axis) for y in (u, v))
    vals = _last(np.broadcast_to(np.asarray(value, dtype=float),
                                 (x.size,) if axis is None else x.shape), axis)
    n = xs.shape[-1]
    units = np.eye(n).reshape((n,) + (1,) * (xs.ndim - 1) + (n,))  # [j, ..., i]
    d3 = cumprod_d3(us[None], vs[None], units, xs[None], -1)  # [j, ..., i]
    out = np.moveaxis(np.sum(d3 * vals[None], axis=-1), 0, -1)  # [..., j]
    out = out.reshape(x.shape) if axis is None else np.moveaxis(out, -1, axis)
    return _match(out, a)


# ---------------------------------------------------------------- np.linalg.norm


def _norm_axes(v, ord, axis):  # noqa: A002 (NumPy's name)
    if axis is None and ord is None:
        return tuple(range(v.ndim))
    return _axes(tuple(range(v.ndim)) if axis is None else axis, v.ndim)


@helper("numpy")
def norm_hvp(value, x, ans, w, ord=None, axis=None, keepdims=False):  # noqa: A002
    """``value`` (the gradient of the norm, per norm) times the Hessian of
    ``np.linalg.norm(x, ord, axis, keepdims)`` applied to ``w``: the second derivative of the
    norm where it has one. ``ans`` is that norm (the rules only call it so).

    The 1-, inf- and 0-norms (vector or matrix) are piecewise linear: their Hessian is 0
    away from ties. The nuclear and spectral matrix norms differentiate the singular vectors
    (distinct, nonzero singular values; see ``np.linalg.svd``'s rule).
    """
    v = _real_point(x, "norm_hvp")  # (value and w may be complex: it is linear in them)
    ww = np.broadcast_to(_asarray(w, dtype=np.result_type(w, float)), v.shape)
    axes = _norm_axes(v, ord, axis)
    vb = _restore(value, v.shape, axes, keepdims)
    nb = _restore(ans, v.shape, axes, keepdims)
    matrix = len(axes) == 2 and ord is not None
    if ord is None or (matrix and ord == "fro") or (not matrix and ord == 2):
        dot = np.sum(v * ww, axis=axes, keepdims=True)
        return _match(vb * (ww - v * dot / nb ** 2) / nb, x)
    if not matrix:
        if ord in (0, 1, np.inf, -np.inf):
            return _match(np.zeros(v.shape), x)
        p = float(ord)
        s, m = np.sign(v), np.abs(v)
        grad = s * m ** (p - 1) / nb ** (p - 1)
        dot = np.sum(grad * ww, axis=axes, keepdims=True)
        return _match(vb * (p - 1) * (m ** (p - 2) * nb ** (2 - p) * ww - grad * dot) / nb, x)
    if ord in (1, -1, np.inf, -np.inf):
        return _match(np.zeros(v.shape), x)
    moved = np.moveaxis(v, axes, (-2, -1))
    t = np.moveaxis(ww, axes, (-2, -1))
    u, s, vh = np.linalg.svd(moved, full_matrices=False)
    du, _, dvh = _svd_tangents(t, u, s, vh)
    if ord == "nuc":
        out = du @ vh + u @ dvh
    elif ord in (2, -2):
        k = 0 if ord == 2 else -1
        out = du[..., :, k, None] * vh[..., None, k, :] + u[..., :, k, None] * dvh[..., None, k, :]
    else:
        raise _no_norm_rule(ord, "second derivative")
    return _match(vb * np.moveaxis(out, (-2, -1), axes), x)


def _svd_tangents(t, u, s, vh):
    """The tangents of the thin SVD ``u, s, vh`` of a matrix along ``t`` (distinct nonzero
    singular values): ``dU, dS, dVh``."""
    v = _swap(vh)
    eye = np.eye(s.shape[-1])
    f = 1.0 / (s[..., None, :] ** 2 - s[..., :, None] ** 2 + eye) - eye
    p = _swap(u) @ t @ v
    ds = np.diagonal(p, axis1=-2, axis2=-1)
    tv, tu = t @ v, _swap(t) @ u
    du = u @ (f * (p * s[..., None, :] + s[..., :, None] * _swap(p))) + (
        tv - u @ (_swap(u) @ tv)) / s[..., None, :]
    dv = v @ (f * (s[..., :, None] * p + _swap(p) * s[..., None, :])) + (
        tu - v @ (_swap(v) @ tu)) / s[..., None, :]
    return du, ds, _swap(dv)


# ---------------------------------------------------------------- np.linalg.solve (batched)


def _solve_t(a, v, b):
    """``solve(a.T, v)`` with ``v`` shaped like ``solve(a, b)`` (a vector when ``b`` is 1-d,
    as in NumPy 2), without summing broadcast axes."""
    if np.ndim(b) == 1:
        return _solve(_swap(a), _asarray(v)[..., None])[..., 0]
    return _solve(_swap(a), v)


def _outer(y, z, b):
    """``y z^T``: an outer product of vectors (``b`` 1-d) or ``y @ z^T`` of matrices."""
    if np.ndim(b) == 1:
        return _asarray(y)[..., :, None] * _asarray(z)[..., None, :]
    return y @ _swap(z)


def _mv(m, z, b):
    """``m @ z`` with ``z`` a vector when ``b`` is 1-d."""
    if np.ndim(b) == 1:
        return (m @ _asarray(z)[..., None])[..., 0]
    return m @ z


@helper("numpy")
def solve_gans(g, a, b, ans):
    """``solve(a, g @ ans)``: the adjoint of ``grad_solve_a`` in its gradient argument, up to
    sign (a vector ``ans`` when ``b`` is 1-d)."""
    if np.ndim(b) == 1:
        return _solve(a, (_asarray(g) @ _asarray(ans)[..., None]))[..., 0]
    return _solve(a, _asarray(g) @ ans)


@helper("numpy")
def grad_solve_a_ans(g, value, a, b, ans):
    """The gradient of ``grad_solve_a(value, a, b, ans)`` into ``ans``: ``-g.T solve(a.T,
    value)``, summed to the shape of ``ans``."""
    y = _solve_t(a, value, b)
    return unbroadcast(-_mv(_swap(g), y, b), _asarray(ans))


@helper("numpy")
def tangent_grad_solve_b(value, a, b, t):
    """The tangent of ``grad_solve_b(value, a, b)`` along ``t``, a tangent of ``a``:
    ``-solve(a.T, t.T solve(a.T, value))``."""
    y = _solve_t(a, value, b)
    return unbroadcast(-_solve_t(a, _mv(_swap(t), y, b), b), _asarray(b))


@helper("numpy")
def tangent_grad_solve_a(value, a, b, ans, t):
    """The tangent of ``grad_solve_a(value, a, b, ans)`` along ``t``, a tangent of ``a``
    (``ans`` held): ``solve(a.T, t.T solve(a.T, value)) ans^T``."""
    y = _solve_t(a, value, b)
    return unbroadcast(_outer(_solve_t(a, _mv(_swap(t), y, b), b), ans, b), _asarray(a))
