"""Gradient helpers of NumPy's products and linear algebra (``np.dot``, ``@``, ``np.inner``,
``np.outer``, ``np.vdot``, ``np.tensordot``, ``np.einsum``, ``np.linalg.solve``; ``inv``,
``det``, ``slogdet``, ``cholesky``, ``eigh``, ``svd`` are templates), ``np.kron``;
conventions in :mod:`srcad.runtime.numpy_helpers`.

Imports only ``srcad.runtime.helpers``, ``srcad.runtime.registry`` and
``srcad.runtime.numpy_common``.
"""

from __future__ import annotations

import math
import string

import numpy as np

from . import helpers as _runtime
from .numpy_common import _asarray, _in_library, _match, _swap
from .registry import helper

# ---------------------------------------------------------------- linear algebra


def _scalar_product_grad(g, other, x):
    """The gradient into ``x`` of ``x * other`` when one of them is a scalar."""
    return _match(_runtime.unbroadcast(_asarray(g) * other, _asarray(x)), x)


@helper("numpy")
def grad_dot_a(g, a, b):
    """Gradient of ``np.dot(a, b)`` into ``a``, for any dimensions (N-d ``dot`` contracts the
    last axis of ``a`` with the second-to-last of ``b``)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, b, a)
    nb = np.ndim(b)
    free_b = list(range(nb - 2)) + [nb - 1] if nb >= 2 else []
    g = _asarray(g)
    g_axes = list(range(g.ndim - len(free_b), g.ndim))
    return _match(np.tensordot(g, b, axes=(g_axes, free_b)), a)


@helper("numpy")
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
    a, b, g = _asarray(a), _asarray(b), _asarray(g)
    if b.ndim == 1:
        b, g = b[:, None], g[..., None]
    if a.ndim == 1:
        a, g = a[None, :], g[..., None, :]
    return a, b, g


@helper("numpy")
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
    return _match(_runtime.unbroadcast(out, _asarray(a)), a)


@helper("numpy")
def grad_matmul_b(g, a, b):
    """Gradient of ``a @ b`` into ``b``: ``a.T @ g`` per matrix, summed over broadcast axes."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim in (1, 2):
        return a.T @ g  # matrix @ vector or matrix @ matrix
    a2, b2, g2 = _as_matrices(g, a, b)
    out = _swap(a2) @ g2
    if np.ndim(b) == 1:
        out = out[..., 0]
    return _match(_runtime.unbroadcast(out, _asarray(b)), b)


@helper("numpy")
def grad_inner_a(g, a, b):
    """Gradient of ``np.inner(a, b)`` (contracts the last axes of both) into ``a``."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, b, a)
    na, nb = np.ndim(a), np.ndim(b)
    g_axes = list(range(na - 1, na - 1 + nb - 1))
    return _match(np.tensordot(g, b, axes=(g_axes, list(range(nb - 1)))), a)


@helper("numpy")
def grad_inner_b(g, a, b):
    """Gradient of ``np.inner(a, b)`` into ``b``."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _scalar_product_grad(g, a, b)
    na = np.ndim(a)
    lead = list(range(na - 1))
    return _match(np.tensordot(g, a, axes=(lead, lead)), b)


@helper("numpy")
def grad_outer_a(g, a, b):
    """Gradient of ``np.outer(a, b)`` (of the flattened operands) into ``a``."""
    return _match(np.reshape(_asarray(g) @ np.ravel(b), np.shape(a)), a)


@helper("numpy")
def grad_outer_b(g, a, b):
    """Gradient of ``np.outer(a, b)`` into ``b``."""
    return _match(np.reshape(np.ravel(a) @ _asarray(g), np.shape(b)), b)


@helper("numpy")
def grad_vdot_a(g, a, b):
    """Gradient of ``np.vdot(a, b)`` (real operands, flattened) into ``a``."""
    return _match(np.reshape(g * np.ravel(b), np.shape(a)), a)


@helper("numpy")
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


@helper("numpy")
def grad_tensordot_a(g, a, b, axes=2):
    """Gradient of ``np.tensordot(a, b, axes)`` into ``a``."""
    na, nb = np.ndim(a), np.ndim(b)
    ax, bx = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in ax]
    free_b = [i for i in range(nb) if i not in bx]
    g_axes = list(range(len(free_a), len(free_a) + len(free_b)))
    out = np.tensordot(g, b, axes=(g_axes, free_b))  # (*free_a, *contracted, b's order)
    labels = free_a + [ax[bx.index(j)] for j in sorted(bx)]
    return _match(np.transpose(out, _order(labels)), a)


@helper("numpy")
def grad_tensordot_b(g, a, b, axes=2):
    """Gradient of ``np.tensordot(a, b, axes)`` into ``b``."""
    na, nb = np.ndim(a), np.ndim(b)
    ax, bx = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in ax]
    free_b = [i for i in range(nb) if i not in bx]
    out = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    labels = [bx[ax.index(i)] for i in sorted(ax)] + free_b
    return _match(np.transpose(out, _order(labels)), b)


def _order(labels):
    """The permutation that sorts ``labels``, as Python ints (other array libraries' transpose
    takes no NumPy array of axes)."""
    return tuple(sorted(range(len(labels)), key=labels.__getitem__))


def _einsum_form(args):
    """The subscripts (a string) and the operands of an ``np.einsum`` call written either
    way: ``einsum('ij,jk->ik', a, b)`` or ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if isinstance(args[0], str):
        return args[0].replace(" ", ""), list(args[1:])
    rest = list(args)
    operands, subs = [], []
    while len(rest) >= 2:
        operands.append(rest.pop(0))
        subs.append(rest.pop(0))

    def spell(sub):
        return "".join("..." if s is Ellipsis else string.ascii_letters[int(s)] for s in sub)

    spec = ",".join(spell(s) for s in subs) + ("->" + spell(rest[0]) if rest else "")
    return spec, operands


_EINSUM_BLAS = 4096  # iteration-space size above which grad_einsum optimises its einsum


@helper("numpy")
def grad_einsum(g, p, *args):
    """Gradient of ``np.einsum(*args)`` into its positional argument number ``p`` (an
    operand), where ``args[p]`` is that operand's *shape*: the gradient depends on the other
    operands only, so it is linear in ``g`` and in each of them (its rules say so).

    It is itself an ``einsum``: the result's gradient contracted with the other operands, with
    an identity matrix for a subscript repeated within the operand (a diagonal or trace) and
    a vector of ones for a subscript found nowhere else (a sum). ``...`` is spelled out as
    letters first; an axis of length 1 that NumPy broadcast against a longer one is summed.
    Both call forms work (subscripts first, or operands each followed by its sublist).
    """
    spec, operands = _einsum_form(list(args))
    k = p - 1 if isinstance(args[0], str) else p // 2
    shape = tuple(args[p])
    operands[k] = np.broadcast_to(0.0, shape)  # a stand-in: only its shape is read
    ins, output = _einsum_letters(spec, operands)
    x = operands[k]
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
            extra.append((c + new, _in_library(np.eye(x.shape[pos]), g, *operands)))
        else:
            wanted.append(c)
            if c not in elsewhere and ins[k].count(c) == 1:
                extra.append((c, _in_library(np.ones(x.shape[pos]), g, *operands)))
    terms = [(output, np.broadcast_to(g, tuple(sizes[c] for c in output)))] + others + extra
    expr = ",".join(s for s, _ in terms) + "->" + "".join(wanted)
    # NumPy's optimised einsum finds a contraction order and hands pairs to BLAS (tensordot):
    # five to ten times faster on large operands, but its path search costs ~10 us, more than
    # the plain loops over a small iteration space
    work = math.prod(sizes.values())
    out = np.einsum(expr, *(op for _, op in terms), optimize=len(terms) > 2 or work > _EINSUM_BLAS)
    summed = tuple(i for i, (n, m) in enumerate(zip(x.shape, out.shape)) if n == 1 and m != 1)
    if summed:  # a length-1 axis broadcast against a longer one
        out = np.sum(out, axis=summed, keepdims=True)
    if shape == ():
        return complex(out) if np.iscomplexobj(out) else float(out)
    return _asarray(out)


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


@helper("numpy")
def grad_solve_b(g, a, b):
    """Gradient of ``np.linalg.solve(a, b)`` into ``b``: ``solve(a.T, g)``.

    As in NumPy 2, ``b`` is a vector when it is 1-d and a (batch of) matrices otherwise.
    """
    if np.ndim(b) == 1:
        out = _solve(_swap(a), _asarray(g)[..., None])[..., 0]
    else:
        out = _solve(_swap(a), g)
    return _runtime.unbroadcast(out, _asarray(b))


@helper("numpy")
def grad_solve_a(g, a, b, ans):
    """Gradient of ``np.linalg.solve(a, b)`` into ``a``: ``-solve(a.T, g) @ ans.T``."""
    if np.ndim(b) == 1:
        gb = _solve(_swap(a), _asarray(g)[..., None])
        out = -gb * _asarray(ans)[..., None, :]
    else:
        out = -_solve(_swap(a), g) @ _swap(ans)
    return _runtime.unbroadcast(out, _asarray(a))


def _solve(a, b):
    """``np.linalg.solve``; on Dask or CuPy arrays their library's form (Dask's takes one
    matrix: a batch is solved block by block, :mod:`.routes`)."""
    if type(a) is np.ndarray and type(b) is np.ndarray:
        return np.linalg.solve(a, b)
    from .routes import library_form  # (routes imports the runtime's helpers)

    return library_form(np.linalg.solve)(a, b)


# ---------------------------------------------------------------- kron


def _kron_blocks(g, a, b):
    """``g`` of ``np.kron(a, b)`` as blocks ``(m0, p0, m1, p1, ...)``, with ``a`` and ``b``
    reshaped to the common rank as NumPy pads them (leading axes of length 1)."""
    a, b = _asarray(a), _asarray(b)
    nd = max(a.ndim, b.ndim)
    sa, sb = (1,) * (nd - a.ndim) + a.shape, (1,) * (nd - b.ndim) + b.shape
    blocks = np.reshape(g, [n for pair in zip(sa, sb) for n in pair])
    return blocks, np.reshape(a, sa), np.reshape(b, sb), nd


@helper("numpy")
def grad_kron_a(g, a, b):
    """Gradient of ``np.kron(a, b)`` into ``a`` (any ranks)."""
    blocks, _, b2, nd = _kron_blocks(g, a, b)
    out = np.tensordot(blocks, b2, axes=(list(range(1, 2 * nd, 2)), list(range(nd))))
    return _match(np.reshape(out, np.shape(a)), a)


@helper("numpy")
def grad_kron_b(g, a, b):
    """Gradient of ``np.kron(a, b)`` into ``b`` (any ranks)."""
    blocks, a2, _, nd = _kron_blocks(g, a, b)
    out = np.tensordot(blocks, a2, axes=(list(range(0, 2 * nd, 2)), list(range(nd))))
    return _match(np.reshape(out, np.shape(b)), b)
