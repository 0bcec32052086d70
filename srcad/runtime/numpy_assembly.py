"""Gradient helpers of NumPy functions that move elements without arithmetic (``np.insert``,
``np.choose``, ``np.block``, ``np.unstack``), of ``np.linalg.multi_dot``, of ``np.cov``'s
layout, and the full-rank check of ``np.linalg.lstsq``; conventions in
:mod:`srcad.runtime.numpy_helpers`.

A function that only moves elements is linear in its operands, and each element of its result
comes from one element of one operand (or is a constant). Its gradient is found by running the
function itself on *ids*: the operands replaced by integer arrays numbering their elements
(the first operand ``0 .. n0-1``, the next from ``n0`` on, ...). The result, made of ids, says
where each element came from; the gradient adds ``g`` back there (``np.bincount``: an element
that ``np.choose`` or ``np.insert`` reads twice gets both). The function and its gradient
helper are each other's adjoints, so each one's rule is the other (second derivatives).

``np.linalg.multi_dot`` is multilinear: its gradient, its tangent and their derivatives are
sums of the same chain of products with some factors replaced (:func:`_product`).

Imports only ``srcad.errors``, ``srcad.runtime.registry``, ``srcad.runtime.arrays`` and
``srcad.runtime.numpy_common``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import MissingRuleError
from . import arrays as _lib
from .numpy_common import _asarray, _in_library, _match, _on_device
from .registry import helper


def _indices(x, rule):
    """``x`` as NumPy integers: an operand that only says where elements go; another
    library's array there would have to be computed: refused, naming the library."""
    if _lib.is_duck(x):
        raise _lib.refuse(x, rule, "pass the indices as a NumPy array (compute them first)")
    return x


def _ids(x, start):
    """``x``'s elements numbered from ``start``, in ``x``'s shape."""
    n = math.prod(np.shape(x))  # (np.size of a Dask array would compute it)
    return np.arange(start, start + n).reshape(np.shape(x)), start + n


def _gather(g, ids, start, like):
    """The gradient of the operand whose ids start at ``start`` (shaped like ``like``): ``g``
    added back to the elements the result took from it. The ids are NumPy integers (made from
    shapes); ``g`` may be another library's array: then only takes and products of it, so a
    Dask gradient stays lazy."""
    ids = np.asarray(ids)
    size = math.prod(np.shape(like))
    if _lib.is_duck(g):
        flat = np.reshape(g if np.shape(g) == ids.shape else g * np.ones(ids.shape), (-1,))
        return _match(np.reshape(_gather_lazily(flat, ids.reshape(-1), start, size),
                                 np.shape(like)), like)
    flat = np.reshape(np.broadcast_to(np.asarray(g), ids.shape), (-1,))
    ids = ids.reshape(-1)
    inside = (ids >= start) & (ids < start + size)
    dtype = np.result_type(flat, float)
    if dtype.kind == "c":
        out = (np.bincount(ids[inside] - start, np.real(flat[inside]), size)
               + 1j * np.bincount(ids[inside] - start, np.imag(flat[inside]), size))
    else:
        out = np.bincount(ids[inside] - start, flat[inside].astype(float), size)
    return _match(np.reshape(out, np.shape(like)), like)


def _gather_lazily(flat, ids, start, size):
    """:func:`_gather` by takes: element ``k`` of the operand is the sum over its copies
    ``j`` of ``flat[where[k, j]]`` (masked where it has fewer copies)."""
    inside = np.nonzero((ids >= start) & (ids < start + size))[0]
    local = ids[inside] - start
    order = np.argsort(local, kind="stable")
    local, inside = local[order], inside[order]
    counts = np.bincount(local, minlength=size)
    rank = np.arange(local.size) - (np.cumsum(counts) - counts)[local]
    copies = int(counts.max(initial=0))
    where = np.zeros((size, max(copies, 1)), dtype=np.intp)
    mask = np.zeros((size, max(copies, 1)))
    where[local, rank] = inside
    mask[local, rank] = 1.0
    out = np.take(flat, _on_device(where[:, 0], flat)) * _in_library(mask[:, 0], flat)
    for j in range(1, copies):
        out = out + np.take(flat, _on_device(where[:, j], flat)) * _in_library(mask[:, j], flat)
    return out


# ---------------------------------------------------------------- np.insert
def _insert_ids(arr, obj, values, axis):
    arr_ids, n = _ids(arr, 0)
    value_ids, _ = _ids(values, n)
    return np.insert(arr_ids, obj, value_ids, axis=axis)


@helper("numpy")
def grad_insert(value, arr, obj, values, axis=None, which=0):
    """Gradient of ``np.insert(arr, obj, values, axis)`` into ``arr`` (``which`` 0) or into
    ``values`` (1; a value inserted at several places gets each one's gradient)."""
    ids = _insert_ids(arr, obj, values, axis)
    return _gather(value, ids, 0 if which == 0 else math.prod(np.shape(arr)),
                   arr if which == 0 else values)


# ---------------------------------------------------------------- np.choose
def _choices(choices):
    return choices if isinstance(choices, (list, tuple)) else None


@helper("numpy")
def grad_choose(value, a, choices, mode="raise"):
    """Gradient of ``np.choose(a, choices, mode=mode)``: for a list of choices, a list of
    their gradients; for an array of choices, one array."""
    _indices(a, "np.choose")
    listed = _choices(choices)
    if listed is None:
        ids, _ = _ids(choices, 0)
        out = np.choose(a, ids, mode=mode)
        return _gather(value, out, 0, choices)
    numbered, start = [], 0
    for c in listed:
        ids, start = _ids(c, start)
        numbered.append(ids)
    out = np.choose(a, numbered, mode=mode)
    starts = np.cumsum([0] + [math.prod(np.shape(c)) for c in listed])
    return [_gather(value, out, int(s), c) for s, c in zip(starts, listed)]


# ---------------------------------------------------------------- np.block
def _duck(x):
    return _lib.is_duck(x)


def _block_ids(arrays, start):
    if isinstance(arrays, list):
        out = []
        for item in arrays:
            ids, start = _block_ids(item, start)
            out.append(ids)
        return out, start
    return _ids(arrays, start)


def _block_grads(flat, arrays, start):
    if isinstance(arrays, list):
        out = []
        for item in arrays:
            grad, start = _block_grads(flat, item, start)
            out.append(grad)
        return out, start
    n = math.prod(np.shape(arrays))
    return _match(np.reshape(flat[start:start + n], np.shape(arrays)), arrays), start + n


@helper("numpy")
def grad_block(value, arrays):
    """Gradient of ``np.block(arrays)``: nested lists of the blocks' gradients (every element
    of a block appears once in the result)."""
    numbered, total = _block_ids(arrays, 0)
    out = np.block(numbered)
    ids = out.reshape(-1)
    if _duck(value):  # each element once: a take by the inverse order (lazy)
        g = np.reshape(value if np.shape(value) == out.shape else value * np.ones(out.shape),
                       (-1,))
        return _block_grads(np.take(g, _on_device(np.argsort(ids), g)), arrays, 0)[0]
    g = np.reshape(np.broadcast_to(np.asarray(value), out.shape), -1)
    flat = np.zeros(total, dtype=np.result_type(g, float))
    flat[ids] = g
    return _block_grads(flat, arrays, 0)[0]


@helper("numpy")
def tangent_block(value, arrays):
    """The tangent of ``np.block(arrays)`` for tangents ``value`` of the blocks (a zero where
    a block is constant): the adjoint of :func:`grad_block`."""
    def spread(t, x):
        if isinstance(x, list):
            items = t if isinstance(t, (list, tuple)) else [t] * len(x)
            return [spread(ti, xi) for ti, xi in zip(items, x)]
        return np.broadcast_to(_asarray(t, dtype=np.result_type(t, float)), np.shape(x))

    return np.block(spread(value, arrays))


# ---------------------------------------------------------------- np.unstack
@helper("numpy")
def grad_unstack(value, x, pieces, axis=0):
    """Gradient of ``np.unstack(x, axis=axis)``: the pieces' gradients (a zero where a piece
    is unused) stacked again."""
    pieces = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(value, pieces)]
    return _match(np.stack(pieces, axis=axis), x)


# ---------------------------------------------------------------- np.linalg.multi_dot
def _mats(arrays):
    """The factors as matrices: a 1-d first factor is a row, a 1-d last factor a column."""
    mats = [_asarray(x) for x in arrays]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    return mats


def _as_factor(m, like, i, n):
    """A matrix in the place of factor ``i`` given in the shape of that factor."""
    m = _asarray(m)
    if np.ndim(like) == 1 and i == 0:
        return m[None, :]
    if np.ndim(like) == 1 and i == n - 1:
        return m[:, None]
    return m


def _product(mats, subs):
    """The chain product of ``mats`` with the factors in ``subs`` (position -> matrix)
    replaced."""
    out = subs.get(0, mats[0])
    for i in range(1, len(mats)):
        out = out @ subs.get(i, mats[i])
    return out


def _factor_grads(g2, mats, subs):
    """The gradient of ``<g2, product>`` with respect to every factor (``subs`` replaced)."""
    n = len(mats)
    factors = [subs.get(i, mats[i]) for i in range(n)]
    left = [None] * n  # product of the factors before i
    right = [None] * n  # after i
    acc = None
    for i in range(n):
        left[i] = acc
        acc = factors[i] if acc is None else acc @ factors[i]
    acc = None
    for i in reversed(range(n)):
        right[i] = acc
        acc = factors[i] if acc is None else factors[i] @ acc
    out = []
    for i in range(n):
        grad = g2 if left[i] is None else np.swapaxes(left[i], -1, -2) @ g2
        out.append(grad if right[i] is None else grad @ np.swapaxes(right[i], -1, -2))
    return out


def _result2d(value, mats):
    return np.reshape(_asarray(value), (mats[0].shape[0], mats[-1].shape[1]))


def _is_zero(t):
    return t is None or (np.ndim(t) == 0 and not isinstance(t, np.ndarray) and t == 0)


def _given(ts, arrays):
    """The positions of ``ts`` (tangents or cotangents per factor) that are not zero, as
    matrices in the factors' places."""
    n = len(arrays)
    return {i: _as_factor(t, arrays[i], i, n) for i, t in enumerate(ts) if not _is_zero(t)}


def _shaped(grads, arrays):
    return [_match(np.reshape(gr, np.shape(x)), x) for gr, x in zip(grads, arrays)]


def _result(out, arrays):
    """A chain product as matrices, shaped as ``np.linalg.multi_dot(arrays)`` gives it."""
    first, last = np.ndim(arrays[0]), np.ndim(arrays[-1])
    if first == 1 and last == 1:
        return np.reshape(out, ())
    if first == 1:
        return np.reshape(out, (np.shape(out)[-1],))
    if last == 1:
        return np.reshape(out, (np.shape(out)[0],))
    return out


@helper("numpy")
def grad_multi_dot(value, arrays):
    """Gradient of ``np.linalg.multi_dot(arrays)``: one gradient per factor."""
    mats = _mats(arrays)
    return _shaped(_factor_grads(_result2d(value, mats), mats, {}), arrays)


@helper("numpy")
def multi_dot_tangent(value, arrays):
    """The tangent of ``np.linalg.multi_dot(arrays)`` for tangents ``value`` of the factors
    (one per factor, a zero where a factor is constant): the adjoint of
    :func:`grad_multi_dot`."""
    mats = _mats(arrays)
    given = _given(value, arrays)
    out = 0.0
    for i, t in given.items():
        out = out + _product(mats, {i: t})
    if not given:
        out = np.zeros((mats[0].shape[0], mats[-1].shape[1]))
    return _result(out, arrays)


@helper("numpy")
def multi_dot_hvp(value, w, arrays):
    """The derivative of :func:`grad_multi_dot` ``(value, arrays)`` along tangents ``w`` of
    the factors: for each factor ``j``, the sum over the other factors ``i`` of the gradient
    with ``w[i]`` in the place of factor ``i``."""
    mats = _mats(arrays)
    g2 = _result2d(value, mats)
    total = [0.0] * len(mats)
    for i, wi in _given(w, arrays).items():
        grads = _factor_grads(g2, mats, {i: wi})
        total = [acc if j == i else acc + grads[j] for j, acc in enumerate(total)]
    return _shaped([np.zeros(np.shape(m)) if np.ndim(t) == 0 else t
                    for t, m in zip(total, mats)], arrays)


@helper("numpy")
def multi_dot_d2(u, v, arrays):
    """The second derivative of ``np.linalg.multi_dot(arrays)`` along ``u`` and ``v`` (one
    tangent per factor each): the adjoint of :func:`multi_dot_hvp` in its ``w``."""
    mats = _mats(arrays)
    gu, gv = _given(u, arrays), _given(v, arrays)
    out = np.zeros((mats[0].shape[0], mats[-1].shape[1]))
    for i, ui in gu.items():
        for j, vj in gv.items():
            if i != j:
                out = out + _product(mats, {i: ui, j: vj})
    return _result(out, arrays)


# ---------------------------------------------------------------- np.cov's layout
@helper("numpy")
def cov_rows(m, y=None, rowvar=True):
    """The variables of ``np.cov(m, y, rowvar)`` as the rows of one matrix (observations
    along the columns), as NumPy lays them out."""
    x = np.atleast_2d(_asarray(m))
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        yy = np.atleast_2d(_asarray(y))
        if not rowvar and yy.shape[0] != 1:
            yy = yy.T
        x = np.concatenate((x, yy), axis=0)
    return x


@helper("numpy")
def grad_cov_rows(value, m, y=None, rowvar=True):
    """Gradient of :func:`cov_rows` into ``m`` (its rows of ``value``, in ``m``'s layout)."""
    x = np.atleast_2d(_asarray(m))
    rows = x.shape[1] if (not rowvar and x.shape[0] != 1) else x.shape[0]
    part = _asarray(value)[:rows]
    if not rowvar and x.shape[0] != 1:
        part = part.T
    return _match(np.reshape(part, np.shape(m)), m)


@helper("numpy")
def cov_weights(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """The weight of each observation divided by ``np.cov``'s normalisation, and the weights
    themselves (both constant: weights that vary are refused by the rule)."""
    n = cov_rows(m, y, rowvar).shape[1]
    w = np.ones(n)
    if fweights is not None:
        w = w * np.asarray(fweights, dtype=float)
    if aweights is not None:
        w = w * np.asarray(aweights, dtype=float)
    if ddof is None:
        ddof = 0 if bias else 1
    total = w.sum()
    if ddof == 0:
        fact = total
    elif aweights is None:
        fact = total - ddof
    else:
        fact = total - ddof * np.sum(w * np.asarray(aweights, dtype=float)) / total
    return w / fact, w / total


# ---------------------------------------------------------------- np.linalg.lstsq
@helper("numpy")
def lstsq_check(value, rank, a):
    """``value``, once checked that ``a`` had full rank in ``np.linalg.lstsq`` (the solution
    of a rank-deficient problem jumps as the rank changes: no derivative)."""
    if _lib.is_duck(rank):  # the rank of a lazy solve: known only once computed
        raise _lib.refuse(rank, "np.linalg.lstsq", "the derivative checks that the matrix "
                            "has full rank: compute the matrix first, or write the solution "
                            "with np.linalg.solve(a.T @ a, a.T @ b)")
    if int(rank) < min(np.shape(a)[-2:]):
        raise _lib.placed(MissingRuleError(
            f"no derivative of np.linalg.lstsq of a rank-deficient matrix (rank {int(rank)} "
            f"of shape {np.shape(a)}): its solution is not differentiable there",
            construct="np.linalg.lstsq",
            hint="make the problem full rank (drop dependent columns, or add a ridge term: "
            "np.linalg.solve(a.T @ a + lam * np.eye(n), a.T @ b))"))
    return value
