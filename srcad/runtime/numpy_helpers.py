"""Helpers that the NumPy derivative rules call from generated code.

The rules in :mod:`srcad.rules.numpy` are one-line templates; when the gradient of a NumPy
function takes more than one line of NumPy (the gradient of ``np.prod`` with zeros, of
``np.linalg.cholesky``, of ``np.einsum``), the template calls one of these functions instead.
Generated code calls every public function of this module by its plain name, like the helpers
of :mod:`srcad.runtime`, so each is named after what it computes: ``grad_<function>`` is the
gradient flowing into the first array argument of ``np.<function>``, and ``grad_<function>_b``
(``_value``, ...) the gradient flowing into another argument. ``tangent_<function>`` is the
forward-mode tangent of ``np.<function>`` where its rule's ``jvp=`` template needs more than an
expression.

Conventions shared by all of them:

* ``g`` is the gradient of the result (same shape as the result), ``ans`` the result itself;
* the returned gradient has the shape of the argument it flows into; when that argument is a
  list or tuple of arrays (``np.sum([a, b])``), the gradient is a list with one gradient per
  element, because the core routes a list's gradient to its elements as ``g[i]``;
* ``axis`` is ``None``, an int or a tuple of ints, negative values counting from the end;
  ``keepdims`` is as in NumPy;
* ties (``np.max`` over equal values, ``np.maximum(a, a)``) share the gradient equally, as
  autograd does.

Nothing here is called for Python-scalar code except where a NumPy function is applied to
Python numbers.
"""

from __future__ import annotations

import string

import numpy as np

from . import helpers as _runtime

__all__ = [
    "grad_astype", "grad_array", "grad_clip", "grad_concatenate", "grad_cholesky",
    "grad_cumprod", "grad_cumsum", "grad_det", "grad_diag", "grad_diagonal", "grad_dot_a",
    "grad_dot_b", "grad_einsum", "grad_extremum", "grad_hstack", "grad_inner_a",
    "grad_inner_b", "grad_inv", "grad_matmul_a", "grad_matmul_b", "grad_mean", "grad_norm",
    "grad_outer_a", "grad_outer_b", "grad_pad", "grad_pad_value", "grad_prod", "grad_repeat",
    "grad_reshape", "grad_roll", "grad_slogdet", "grad_solve_a", "grad_solve_b", "grad_sort",
    "grad_split", "grad_stack", "grad_std", "grad_sum", "grad_tensordot_a",
    "grad_tensordot_b", "grad_tile", "grad_trace", "grad_var", "grad_vdot_a", "grad_vdot_b",
    "grad_vstack", "grad_linspace", "tangent_cholesky", "tangent_cumprod", "tangent_pad",
    "tangent_sort", "add_at", "grad_add_at", "last_writes", "safe_div",
]


# ---------------------------------------------------------------- shared pieces


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative ints, in the given order (``None``: every axis)."""
    if axis is None:
        return tuple(range(ndim))
    if np.ndim(axis) == 0:
        axis = (axis,)
    return tuple(int(a) % ndim for a in axis) if ndim else ()


def _restore(value, shape, axis, keepdims):
    """A reduction's result (or its gradient) with the reduced axes put back as size 1."""
    value = np.asarray(value)
    if keepdims or not shape or value.ndim == 0:  # a 0-d value broadcasts as it is
        return value
    return np.reshape(value, tuple(1 if i in _axes(axis, len(shape)) else n
                                   for i, n in enumerate(shape)))


def _count(shape, axis):
    """How many elements a reduction over ``axis`` combines."""
    return int(np.prod([shape[i] for i in _axes(axis, len(shape))], dtype=np.int64))


def _match(grad, x):
    """``grad`` shaped for the argument ``x``: a list for a list, a float for a number."""
    if isinstance(x, (list, tuple)):
        grad = np.asarray(grad)
        return [_match(grad[i], v) for i, v in enumerate(x)]
    if isinstance(x, np.ndarray):
        return np.broadcast_to(grad, x.shape) if np.shape(grad) != x.shape else grad
    if np.ndim(grad) == 0:
        return float(grad)
    return np.reshape(grad, np.shape(x))


def _swap(a):
    """The transpose of the last two axes (a batch of matrices stays a batch)."""
    return np.swapaxes(a, -1, -2)


# ---------------------------------------------------------------- reductions


def grad_sum(g, a, axis=None, keepdims=False):
    """Gradient of ``np.sum(a, axis, keepdims)``: ``g`` broadcast back over the summed axes."""
    shape = np.shape(a)
    return _match(np.broadcast_to(_restore(g, shape, axis, keepdims), shape), a)


def grad_mean(g, a, axis=None, keepdims=False):
    """Gradient of ``np.mean``: the sum's gradient divided by the number of elements."""
    shape = np.shape(a)
    scaled = _restore(g, shape, axis, keepdims) / _count(shape, axis)
    return _match(np.broadcast_to(scaled, shape), a)  # a view: no array of ones is built


def grad_prod(g, a, axis=None, keepdims=False):
    """Gradient of ``np.prod``: the product of the *other* elements, exact with zeros.

    The product of the others is the exclusive running product from the left times the one
    from the right, so no division by an element ever happens.
    """
    x = np.asarray(a, dtype=float)
    if x.ndim == 0:
        return _match(g * np.ones(()), a)
    axes = _axes(axis, x.ndim)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, last)
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,))
    left = np.concatenate([ones, np.cumprod(flat[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    others = np.moveaxis((left * right).reshape(moved.shape), last, axes)
    return _match(_restore(g, x.shape, axis, keepdims) * others, a)


def grad_var(g, a, axis=None, ddof=0, keepdims=False):
    """Gradient of ``np.var``: ``2 (a - mean) / (n - ddof)``."""
    x = np.asarray(a, dtype=float)
    centred = x - np.mean(x, axis=_axes(axis, x.ndim), keepdims=True)
    n = _count(x.shape, axis)
    return _match(_restore(g, x.shape, axis, keepdims) * 2.0 * centred / (n - ddof), a)


def grad_std(g, a, ans, axis=None, ddof=0, keepdims=False):
    """Gradient of ``np.std``: the variance's gradient times ``1 / (2 std)``; where the
    standard deviation is 0 (one element, or all equal: flat or a kink) the gradient is 0,
    as for ``abs`` at 0."""
    g, ans = np.asarray(g, dtype=float), np.asarray(ans, dtype=float)
    scale = np.divide(g, 2.0 * ans, out=np.zeros(np.broadcast_shapes(g.shape, ans.shape)),
                      where=ans != 0)
    return grad_var(scale, a, axis, ddof, keepdims)


def grad_extremum(g, a, ans, axis=None, keepdims=False):
    """Gradient of ``np.max``/``np.min``/``np.amax``/``np.amin``.

    The gradient goes to the elements equal to the result; when several are equal (a tie) each
    gets an equal share, as in autograd (PyTorch gives it all to one of them).
    """
    x = np.asarray(a)
    hit = x == _restore(ans, x.shape, axis, keepdims)
    share = hit / np.sum(hit, axis=_axes(axis, x.ndim), keepdims=True)
    return _match(_restore(g, x.shape, axis, keepdims) * share, a)


def grad_norm(g, x, ans, ord=None, axis=None, keepdims=False):  # noqa: A002 (NumPy's name)
    """Gradient of ``np.linalg.norm`` for vector norms (any ``ord``) and the matrix norms
    ``None``/``'fro'``, ``'nuc'``, ``1``, ``-1``, ``2``, ``-2``, ``inf`` and ``-inf``.

    At a point where the norm is not differentiable (the zero vector, ties in an ``inf`` norm)
    it returns the same one-sided choice as autograd: ties share equally.
    """
    v = np.asarray(x, dtype=float)
    if axis is None and ord is None:
        axes = tuple(range(v.ndim))
    else:
        axes = _axes(tuple(range(v.ndim)) if axis is None else axis, v.ndim)
    gb = _restore(g, v.shape, axes, keepdims)
    nb = _restore(ans, v.shape, axes, keepdims)
    matrix = len(axes) == 2 and ord is not None
    if ord is None or (matrix and ord == "fro") or (not matrix and ord == 2):
        return _match(gb * v / nb, x)
    if not matrix:
        return _match(_grad_vector_norm(gb, v, nb, ord, axes), x)
    return _match(_grad_matrix_norm(gb, v, nb, ord, axes), x)


def _grad_vector_norm(gb, v, nb, ord, axes):  # noqa: A002
    if ord == 0:
        return np.zeros_like(v)
    if ord in (np.inf, -np.inf):
        hit = np.abs(v) == nb
        return gb * np.sign(v) * hit / np.sum(hit, axis=axes, keepdims=True)
    if ord == 1:
        return gb * np.sign(v)
    return gb * np.sign(v) * np.abs(v) ** (ord - 1) / nb ** (ord - 1)


def _grad_matrix_norm(gb, v, nb, ord, axes):  # noqa: A002
    rows, cols = axes
    if ord in (1, -1, np.inf, -np.inf):
        summed = rows if ord in (1, -1) else cols  # column sums for 1, row sums for inf
        sums = np.sum(np.abs(v), axis=summed, keepdims=True)
        hit = sums == nb
        share = hit / np.sum(hit, axis=cols if summed == rows else rows, keepdims=True)
        return gb * np.sign(v) * share
    moved = np.moveaxis(v, axes, (-2, -1))
    u, s, vt = np.linalg.svd(moved, full_matrices=False)
    if ord == "nuc":
        inner = u @ vt
    elif ord in (2, -2):
        k = 0 if ord == 2 else -1
        inner = u[..., :, k, None] * vt[..., None, k, :]
    else:
        raise NotImplementedError(f"srcad: no gradient for np.linalg.norm with ord={ord!r}")
    return gb * np.moveaxis(inner, (-2, -1), axes)


def grad_cumsum(g, a, axis=None):
    """Gradient of ``np.cumsum``: the reversed running sum of ``g``."""
    shape = np.shape(a)
    if axis is None:
        return _match(np.cumsum(np.asarray(g)[::-1])[::-1].reshape(shape), a)
    return _match(np.flip(np.cumsum(np.flip(g, axis), axis), axis), a)


def grad_cumprod(g, a, axis=None):
    """Gradient of ``np.cumprod``, exact with zeros (no division by an element).

    With ``p`` the exclusive running product from the left, the gradient of element ``i`` is
    ``p[i] * r[i]`` where ``r[i] = g[i] + a[i+1] * r[i+1]``: one backward scan.
    """
    x = np.asarray(a, dtype=float)
    shape = x.shape
    if axis is None:
        x, axis = x.ravel(), 0
    xs = np.moveaxis(x, axis, -1)
    gs = np.moveaxis(np.asarray(g, dtype=float).reshape(x.shape), axis, -1)
    n = xs.shape[-1]
    left = np.concatenate([np.ones(xs.shape[:-1] + (1,)),
                           np.cumprod(xs[..., :-1], axis=-1)], axis=-1)
    r = np.empty_like(gs)
    if n:
        r[..., n - 1] = gs[..., n - 1]
    for i in range(n - 2, -1, -1):
        r[..., i] = gs[..., i] + xs[..., i + 1] * r[..., i + 1]
    return _match(np.moveaxis(left * r, -1, axis).reshape(shape), a)


def grad_trace(g, a, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.trace``: ``g`` placed on the ``offset`` diagonal of each matrix."""
    shape = np.shape(a)
    eye = np.eye(shape[axis1], shape[axis2], k=offset)
    full = np.asarray(g, dtype=float)[..., None, None] * eye
    return _match(np.moveaxis(full, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


# ---------------------------------------------------------------- element-wise helpers


def grad_clip(g, a, a_min, a_max):
    """Gradient of ``np.clip`` into ``a``: ``g`` where ``a_min <= a <= a_max`` (bounds
    included, as in PyTorch), zero where the value was clipped."""
    inside = np.ones(np.shape(a), dtype=bool)
    if a_min is not None:
        inside = inside & (np.asarray(a) >= a_min)
    if a_max is not None:
        inside = inside & (np.asarray(a) <= a_max)
    return g * inside


def grad_astype(g, a, dtype):
    """Gradient of ``a.astype(dtype)``: ``g`` for a floating type, zero for an integer one."""
    if np.issubdtype(np.dtype(dtype), np.inexact):
        return _match(np.asarray(g, dtype=float), a)
    return _match(np.zeros(np.shape(a)), a)


# ---------------------------------------------------------------- linear algebra


def _scalar_product_grad(g, other, x):
    """The gradient into ``x`` of ``x * other`` when one of them is a scalar."""
    return _match(_runtime.unbroadcast(np.asarray(g) * other, np.asarray(x)), x)


def grad_dot_a(g, a, b):
    """Gradient of ``np.dot(a, b)`` into ``a``, for any dimensions (N-d ``dot`` contracts the
    last axis of ``a`` with the second-to-last of ``b``)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, b, a)
    nb = np.ndim(b)
    free_b = list(range(nb - 2)) + [nb - 1] if nb >= 2 else []
    g = np.asarray(g)
    g_axes = list(range(g.ndim - len(free_b), g.ndim))
    return _match(np.tensordot(g, b, axes=(g_axes, free_b)), a)


def grad_dot_b(g, a, b):
    """Gradient of ``np.dot(a, b)`` into ``b``."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, a, b)
    na, nb = np.ndim(a), np.ndim(b)
    lead = list(range(na - 1))
    out = np.tensordot(a, g, axes=(lead, lead))  # (k, *free_b)
    if nb >= 2:
        out = np.moveaxis(out, 0, nb - 2)
    return _match(out, b)


def _as_matrices(g, a, b):
    """``a``, ``b`` and ``g`` of ``a @ b`` with 1-d operands promoted to matrices."""
    a, b, g = np.asarray(a), np.asarray(b), np.asarray(g)
    if b.ndim == 1:
        b, g = b[:, None], g[..., None]
    if a.ndim == 1:
        a, g = a[None, :], g[..., None, :]
    return a, b, g


def grad_matmul_a(g, a, b):
    """Gradient of ``a @ b`` into ``a``: ``g @ b.T`` per matrix, summed over broadcast
    batch axes; 1-d operands are handled as NumPy promotes them."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2:
        if b.ndim == 1:  # matrix @ vector: the most common case, kept cheap
            return np.outer(g, b)
        if b.ndim == 2:
            return g @ b.T
    a2, b2, g2 = _as_matrices(g, a, b)
    out = g2 @ _swap(b2)
    if np.ndim(a) == 1:
        out = out[..., 0, :]
    return _match(_runtime.unbroadcast(out, np.asarray(a)), a)


def grad_matmul_b(g, a, b):
    """Gradient of ``a @ b`` into ``b``: ``a.T @ g`` per matrix, summed over broadcast axes."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim in (1, 2):
        return a.T @ g  # matrix @ vector or matrix @ matrix
    a2, b2, g2 = _as_matrices(g, a, b)
    out = _swap(a2) @ g2
    if np.ndim(b) == 1:
        out = out[..., 0]
    return _match(_runtime.unbroadcast(out, np.asarray(b)), b)


def grad_inner_a(g, a, b):
    """Gradient of ``np.inner(a, b)`` (contracts the last axes of both) into ``a``."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, b, a)
    na, nb = np.ndim(a), np.ndim(b)
    g_axes = list(range(na - 1, na - 1 + nb - 1))
    return _match(np.tensordot(g, b, axes=(g_axes, list(range(nb - 1)))), a)


def grad_inner_b(g, a, b):
    """Gradient of ``np.inner(a, b)`` into ``b``."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, a, b)
    na = np.ndim(a)
    lead = list(range(na - 1))
    return _match(np.tensordot(g, a, axes=(lead, lead)), b)


def grad_outer_a(g, a, b):
    """Gradient of ``np.outer(a, b)`` (of the flattened operands) into ``a``."""
    return _match(np.reshape(np.asarray(g) @ np.ravel(b), np.shape(a)), a)


def grad_outer_b(g, a, b):
    """Gradient of ``np.outer(a, b)`` into ``b``."""
    return _match(np.reshape(np.ravel(a) @ np.asarray(g), np.shape(b)), b)


def grad_vdot_a(g, a, b):
    """Gradient of ``np.vdot(a, b)`` (real operands, flattened) into ``a``."""
    return _match(np.reshape(g * np.ravel(b), np.shape(a)), a)


def grad_vdot_b(g, a, b):
    """Gradient of ``np.vdot(a, b)`` into ``b``."""
    return _match(np.reshape(g * np.ravel(a), np.shape(b)), b)


def _tensordot_axes(axes, na, nb):
    if np.ndim(axes) == 0:
        n = int(axes)
        return list(range(na - n, na)), list(range(n))
    ax, bx = axes
    ax = [int(ax)] if np.ndim(ax) == 0 else [int(i) for i in ax]
    bx = [int(bx)] if np.ndim(bx) == 0 else [int(i) for i in bx]
    return [i % na for i in ax], [i % nb for i in bx]


def grad_tensordot_a(g, a, b, axes=2):
    """Gradient of ``np.tensordot(a, b, axes)`` into ``a``."""
    na, nb = np.ndim(a), np.ndim(b)
    ax, bx = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in ax]
    free_b = [i for i in range(nb) if i not in bx]
    g_axes = list(range(len(free_a), len(free_a) + len(free_b)))
    out = np.tensordot(g, b, axes=(g_axes, free_b))  # (*free_a, *contracted, b's order)
    labels = free_a + [ax[bx.index(j)] for j in sorted(bx)]
    return _match(np.transpose(out, np.argsort(labels)), a)


def grad_tensordot_b(g, a, b, axes=2):
    """Gradient of ``np.tensordot(a, b, axes)`` into ``b``."""
    na, nb = np.ndim(a), np.ndim(b)
    ax, bx = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in ax]
    free_b = [i for i in range(nb) if i not in bx]
    out = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    labels = [bx[ax.index(i)] for i in sorted(ax)] + free_b
    return _match(np.transpose(out, np.argsort(labels)), b)


def grad_einsum(g, subscripts, k, *operands):
    """Gradient of ``np.einsum(subscripts, *operands)`` into operand number ``k``.

    It is itself an ``einsum``: the result's gradient contracted with the other operands, with
    an identity matrix for a subscript repeated within operand ``k`` (a diagonal or trace) and
    a vector of ones for a subscript found nowhere else (a sum). ``...`` is spelled out as
    letters first; an axis of length 1 that NumPy broadcast against a longer one is summed.
    """
    ins, output = _einsum_letters(subscripts.replace(" ", ""), operands)
    x = np.asarray(operands[k])
    used = set("".join(ins) + output)
    fresh = (c for c in string.ascii_letters if c not in used)
    others = [(s, op) for i, (s, op) in enumerate(zip(ins, operands)) if i != k]
    elsewhere = set(output).union(*(set(s) for s, _ in others))
    sizes = {}
    for s, op in zip(ins, operands):
        for c, n in zip(s, np.shape(op)):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]  # a length 1 broadcasts
    wanted, extra = [], []
    for pos, c in enumerate(ins[k]):
        if c in ins[k][:pos]:
            new = next(fresh)
            wanted.append(new)
            extra.append((c + new, np.eye(x.shape[pos])))
        else:
            wanted.append(c)
            if c not in elsewhere and ins[k].count(c) == 1:
                extra.append((c, np.ones(x.shape[pos])))
    terms = [(output, np.broadcast_to(g, tuple(sizes[c] for c in output)))] + others + extra
    expr = ",".join(s for s, _ in terms) + "->" + "".join(wanted)
    out = np.einsum(expr, *(op for _, op in terms), optimize=len(terms) > 2)
    summed = tuple(i for i, (n, m) in enumerate(zip(x.shape, out.shape)) if n == 1 and m != 1)
    if summed:  # a length-1 axis broadcast against a longer one
        out = np.sum(out, axis=summed, keepdims=True)
    return _match(out, operands[k])


def _einsum_letters(spec, operands):
    """The inputs' subscripts and the output's, with ``...`` replaced by letters (the
    broadcast axes, aligned from the right) and an implicit output made explicit."""
    inputs, arrow, output = spec.partition("->")
    ins = inputs.split(",")
    used = set(spec)
    fresh = [c for c in string.ascii_letters if c not in used]
    width = max((np.ndim(op) - len(s.replace("...", "")) for s, op in zip(ins, operands)
                 if "..." in s), default=0)
    dots = "".join(fresh[:width])
    ins = [s.replace("...", dots[width - (np.ndim(op) - len(s.replace("...", ""))):])
           for s, op in zip(ins, operands)]
    if arrow:
        output = output.replace("...", dots)
    else:
        letters = "".join(s for s in ins)
        output = dots + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                       and c not in dots))
    return ins, output


def grad_inv(g, ans):
    """Gradient of ``np.linalg.inv``: ``-inv(a).T @ g @ inv(a).T`` (batched)."""
    return -(_swap(ans) @ g @ _swap(ans))


def grad_solve_b(g, a, b):
    """Gradient of ``np.linalg.solve(a, b)`` into ``b``: ``solve(a.T, g)``.

    As in NumPy 2, ``b`` is a vector when it is 1-d and a (batch of) matrices otherwise.
    """
    if np.ndim(b) == 1:
        out = np.linalg.solve(_swap(a), np.asarray(g)[..., None])[..., 0]
    else:
        out = np.linalg.solve(_swap(a), g)
    return _runtime.unbroadcast(out, np.asarray(b))


def grad_solve_a(g, a, b, ans):
    """Gradient of ``np.linalg.solve(a, b)`` into ``a``: ``-solve(a.T, g) @ ans.T``."""
    if np.ndim(b) == 1:
        gb = np.linalg.solve(_swap(a), np.asarray(g)[..., None])
        out = -gb * np.asarray(ans)[..., None, :]
    else:
        out = -np.linalg.solve(_swap(a), g) @ _swap(ans)
    return _runtime.unbroadcast(out, np.asarray(a))


def grad_det(g, a, ans):
    """Gradient of ``np.linalg.det``: ``g * det(a) * inv(a).T`` (batched)."""
    scale = np.asarray(g * ans)[..., None, None]
    return scale * _swap(np.linalg.inv(a))


def grad_slogdet(g, a):
    """Gradient of ``np.linalg.slogdet`` into ``a``: ``g_logdet * inv(a).T``.

    ``g`` holds the gradients of ``(sign, logabsdet)``; the sign is piecewise constant.
    """
    return np.asarray(g[1])[..., None, None] * _swap(np.linalg.inv(a))


def grad_cholesky(g, ans, upper=False):
    """Gradient of ``np.linalg.cholesky`` (Murray 2016, as in autograd), symmetrised.

    ``cholesky`` reads one triangle of its argument only; like autograd and PyTorch, the
    gradient is the symmetric matrix that is right for symmetric perturbations.
    """
    low = _swap(ans) if upper else ans
    gl = _swap(g) if upper else g
    phi = _swap(low) @ gl
    phi = np.tril(phi) * (1.0 - 0.5 * np.eye(phi.shape[-1]))
    inv_low = np.linalg.inv(low)
    s = _swap(inv_low) @ phi @ inv_low
    return 0.5 * (s + _swap(s))


# ---------------------------------------------------------------- shape and assembly


def grad_reshape(g, a, order=None):
    """Gradient of any reshaping (``reshape``, ``ravel``, ``squeeze``, ``expand_dims``, ...):
    ``g`` reshaped back to ``a``'s shape, in the same memory order (``None`` means "C")."""
    return _match(np.reshape(g, np.shape(a), order=order or "C"), a)


def _split_along(g, sizes, axis):
    return np.split(g, np.cumsum(sizes)[:-1], axis=axis)


def grad_concatenate(g, arrays, axis=0):
    """Gradient of ``np.concatenate(arrays, axis)``: a list, one piece of ``g`` per array."""
    if axis is None:
        pieces = _split_along(np.ravel(g), [np.size(x) for x in arrays], 0)
    else:
        pieces = _split_along(g, [np.shape(x)[axis] for x in arrays], axis)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, arrays)],
                   arrays)


def _pieces(grads, arrays):
    """The gradients of the pieces of a joined sequence ``arrays``: a list for a list, but
    one array for an array (``np.vstack(A)`` with ``A`` a matrix joins the rows of ``A``)."""
    if isinstance(arrays, np.ndarray):
        return np.reshape(np.array(grads, dtype=float), arrays.shape)
    return grads


def grad_stack(g, arrays, axis=0):
    """Gradient of ``np.stack(arrays, axis)``: a list of the slices of ``g`` along ``axis``."""
    moved = np.moveaxis(g, axis, 0)
    return _pieces([_match(moved[i], x) for i, x in enumerate(arrays)], arrays)


def grad_hstack(g, tup):
    """Gradient of ``np.hstack``: along axis 0 for 1-d (and 0-d) arrays, else axis 1."""
    promoted = [np.atleast_1d(x) for x in tup]
    axis = 0 if promoted[0].ndim == 1 else 1
    pieces = _split_along(g, [x.shape[axis] for x in promoted], axis)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, tup)], tup)


def grad_vstack(g, tup):
    """Gradient of ``np.vstack``: the arrays, made at least 2-d, are stacked along axis 0."""
    pieces = _split_along(g, [np.atleast_2d(x).shape[0] for x in tup], 0)
    return _pieces([_match(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, tup)], tup)


def grad_split(g, ary, ans, axis=0):
    """Gradient of ``np.split``/``np.array_split``: the pieces' gradients joined again.

    ``g`` is a list with one gradient per piece (a zero where a piece is unused).
    """
    pieces = [np.broadcast_to(gi, np.shape(p)) for gi, p in zip(g, ans)]
    return _match(np.concatenate(pieces, axis=axis), ary)


def grad_array(g, obj):
    """Gradient of ``np.array(obj)``/``np.asarray(obj)``: for a (nested) list of numbers or
    arrays, a (nested) list of gradients; for an array, ``g`` itself."""
    if isinstance(obj, (list, tuple)):
        g = np.asarray(g)
        return [grad_array(g[i], v) for i, v in enumerate(obj)]
    return _match(g, obj)


def grad_tile(g, a, reps):
    """Gradient of ``np.tile(a, reps)``: the copies of ``g`` summed."""
    x_shape = np.shape(a)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    d = max(len(reps), len(x_shape))
    shape = (1,) * (d - len(x_shape)) + tuple(x_shape)
    reps = (1,) * (d - len(reps)) + reps
    interleaved = [n for pair in zip(reps, shape) for n in pair]
    summed = np.reshape(g, interleaved).sum(axis=tuple(range(0, 2 * d, 2)))
    return _match(np.reshape(summed, x_shape), a)


def grad_repeat(g, a, repeats, axis=None):
    """Gradient of ``np.repeat(a, repeats, axis)``: the repeated copies summed."""
    x = np.asarray(a)
    if axis is None:
        x, axis = x.ravel(), 0
    axis = axis % x.ndim
    n = x.shape[axis]
    owner = np.repeat(np.arange(n), repeats)
    moved = np.moveaxis(np.asarray(g, dtype=float), axis, 0)
    out = np.zeros((n,) + moved.shape[1:])
    np.add.at(out, owner, moved)
    return _match(np.moveaxis(out, 0, axis).reshape(np.shape(a)), a)


def grad_roll(g, shift, axis=None):
    """Gradient of ``np.roll(a, shift, axis)``: ``g`` rolled back."""
    back = -shift if np.ndim(shift) == 0 else tuple(-int(s) for s in shift)
    return np.roll(g, back, axis)


def _pad_widths(pad_width, ndim):
    return np.broadcast_to(np.asarray(pad_width, dtype=int), (ndim, 2))


def grad_pad(g, array, pad_width, mode=None):
    """Gradient of ``np.pad(array, pad_width)`` in ``constant`` mode (the default, ``None``):
    the middle of ``g``."""
    if mode not in (None, "constant"):
        raise NotImplementedError(f"srcad: no gradient for np.pad with mode={mode!r}; "
                                  "only mode='constant' is supported")
    shape = np.shape(array)
    widths = _pad_widths(pad_width, len(shape))
    index = tuple(slice(int(lo), int(lo) + n) for (lo, _), n in zip(widths, shape))
    return _match(np.asarray(g)[index], array)


def grad_pad_value(g, array, pad_width):
    """Gradient of ``np.pad(array, pad_width, constant_values=c)`` into a scalar ``c``."""
    return float(np.sum(g) - np.sum(grad_pad(g, array, pad_width)))


def grad_sort(g, a, axis=-1):
    """Gradient of ``np.sort(a, axis)``: ``g`` sent back to where each value came from."""
    x = np.asarray(a)
    if axis is None:
        x, axis = x.ravel(), 0
    order = np.argsort(x, axis=axis, kind="stable")
    out = np.zeros(x.shape)
    np.put_along_axis(out, order, np.asarray(g, dtype=float).reshape(x.shape), axis=axis)
    return _match(out.reshape(np.shape(a)), a)


def grad_diag(g, v, k=0):
    """Gradient of ``np.diag(v, k)``: extract the diagonal (1-d ``v``) or place ``g`` on it
    (2-d ``v``)."""
    if np.ndim(v) == 1:
        return _match(np.diag(g, k).copy(), v)
    out = np.zeros(np.shape(v))
    n = len(g)
    out[np.arange(n) + max(-k, 0), np.arange(n) + max(k, 0)] = g
    return out


def grad_diagonal(g, a, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.diagonal(a, offset, axis1, axis2)``: ``g`` placed on that diagonal."""
    shape = np.shape(a)
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    g = np.asarray(g, dtype=float)
    full = np.zeros(g.shape[:-1] + (shape[axis1], shape[axis2]))
    n = g.shape[-1]
    full[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = g
    return _match(np.moveaxis(full, (-2, -1), (axis1, axis2)), a)


def safe_div(a, b):
    """``a / b``, and 0 where ``b`` is 0 (the derivatives of ``np.std`` where it is 0)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape))
    return np.divide(a, b, out=out, where=b != 0)[()]


def grad_linspace(g, num, endpoint, axis, end):
    """Gradient of ``np.linspace`` flowing into ``start`` (``end`` false) or ``stop`` (true):
    element ``k`` is ``start + (stop - start) t_k``, so the weights are ``1 - t`` and ``t``."""
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    return np.moveaxis(np.asarray(g, dtype=float), axis, -1) @ (t if end else 1.0 - t)


# ---------------------------------------------------------------- forward-mode tangents


def tangent_cholesky(t, ans, upper=False):
    """Tangent of ``np.linalg.cholesky`` along ``t``: ``L tril(L^-1 S L^-T)`` with the
    diagonal halved, ``S`` the symmetric part of ``t`` (the convention of
    :func:`grad_cholesky`, so forward and reverse mode agree)."""
    low = _swap(ans) if upper else ans
    sym = 0.5 * (t + _swap(t))
    inv_low = np.linalg.inv(low)
    phi = inv_low @ sym @ _swap(inv_low)
    phi = np.tril(phi) * (1.0 - 0.5 * np.eye(phi.shape[-1]))
    out = low @ phi
    return _swap(out) if upper else out


def tangent_cumprod(t, a, axis=None):
    """Tangent of ``np.cumprod(a, axis)`` along ``t``, by the recurrence
    ``dc[i] = dc[i-1] a[i] + c[i-1] t[i]`` (exact with zeros: nothing is divided)."""
    x = np.asarray(a, dtype=float)
    tt = np.broadcast_to(np.asarray(t, dtype=float), x.shape)
    if axis is None:
        x, tt, axis = x.ravel(), tt.ravel(), 0
    x, tt = np.moveaxis(x, axis, 0), np.moveaxis(tt, axis, 0)
    out = np.empty(x.shape)
    if len(x):
        out[0], c = tt[0], x[0]
        for i in range(1, len(x)):
            out[i] = out[i - 1] * x[i] + c * tt[i]
            c = c * x[i]
    return np.moveaxis(out, 0, axis)


#: ``np.pad`` modes that copy elements of the array (or average them): linear in the array
_LINEAR_PADS = (None, "constant", "edge", "reflect", "symmetric", "wrap", "mean")


def tangent_pad(t, pad_width, mode=None):
    """Tangent of ``np.pad(array, pad_width, mode)`` along ``t`` (the array's tangent): the
    tangent padded the same way, with zeros in ``constant`` mode."""
    if mode not in _LINEAR_PADS:
        raise NotImplementedError(f"srcad: no tangent for np.pad with mode={mode!r}")
    if mode in (None, "constant"):
        return np.pad(np.asarray(t, dtype=float), pad_width)
    return np.pad(np.asarray(t, dtype=float), pad_width, mode=mode)


def tangent_sort(t, a, axis=-1):
    """Tangent of ``np.sort(a, axis)`` along ``t``: ``t`` in the order ``a`` is sorted into
    (ties in a stable order, as :func:`grad_sort` routes them)."""
    x = np.asarray(a)
    tt = np.broadcast_to(np.asarray(t, dtype=float), x.shape)
    if axis is None:
        x, tt, axis = x.ravel(), tt.ravel(), 0
    return np.take_along_axis(tt, np.argsort(x, axis=axis, kind="stable"), axis=axis)
# ---------------------------------------------------------------- writes (srcad.writes)


def add_at(a, indices, b):
    """``np.add.at(a, indices, b)`` as a function: a new array, every repeat of an index
    accumulated (srcad lowers the in-place call to ``a = add_at(a, indices, b)``)."""
    out = np.array(a, copy=True)
    np.add.at(out, indices, b)
    return out


def grad_add_at(value, indices, b):
    """Gradient of ``add_at(a, indices, b)`` flowing into ``b``: ``value`` (the gradient of the
    result) read at every index, repeats included, summed down to ``b``'s shape."""
    return _runtime.unbroadcast(np.asarray(value)[indices], b)


def last_writes(block, like, index):
    """For ``y[index] = v``: ``block`` (the gradient read at ``y[index]``) with 0.0 where a
    later write to the same element (a repeated integer index) replaced this one, so only
    the write NumPy kept gets a gradient. NumPy itself is asked: it writes each position's
    number and the winners are read back, whatever order NumPy writes repeats in. ``block``
    is returned as it is when ``like`` is not an array (a list has no repeated writes)."""
    if not isinstance(like, np.ndarray):
        return block
    shape = np.shape(like[index])
    probe = np.full(like.shape, -1, dtype=np.intp)
    probe[index] = np.arange(int(np.prod(shape, dtype=np.intp))).reshape(shape)
    kept = np.zeros(shape, dtype=float)
    kept.reshape(-1)[probe[probe >= 0]] = 1.0
    return block * kept


#: the names generated code may use for these helpers
HELPERS = {name: globals()[name] for name in __all__}

