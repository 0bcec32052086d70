"""Numba forms for what batched forward mode (:mod:`srcad.transform.forward_batched`) writes
that the per-direction code does not: ``np.stack(arrays, axis=a)`` along an axis other than
the first (the tangents of a stack, their batch axis first).

Each is a stub and its ``numba.extending.overload``, made per constant (cached), whose
implementation is written out for the ranks Numba types it with: the same values NumPy
gives, element for element (copies only).

Also ``broadcast_copy`` (``np.broadcast_to`` made contiguous, as loops) and ``reuse_tangent``,
for :mod:`.numba_reuse`'s item writes into a dead array's tangent.

Imports ``numba`` and :mod:`.numba_lists` (only :mod:`.numba_helpers` and
:mod:`.numba_arrays` import this module).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from .numba_lists import _arrays_of_one_type


@functools.cache
def stack_along(axis):
    """The helper ``stack_<axis>(arrays)``: ``np.stack(arrays, axis=axis)`` of a list or
    tuple of arrays of one type, ``axis`` a non-negative constant."""

    def stub(arrays):
        raise NotImplementedError

    stub.__name__ = stub.__qualname__ = f"stack_{axis}"

    def typing(arrays):
        if not _arrays_of_one_type(arrays) or axis > arrays.dtype.ndim:
            raise TypingError(f"srcad's numba backend stacks a list or tuple of arrays of one "
                              f"type along an axis they have, not {arrays} along {axis}")
        lines = ["def impl(arrays):",
                 "    n = len(arrays)",
                 "    if n == 0:",
                 "        raise ValueError('need at least one array to stack')",
                 "    shape = arrays[0].shape",
                 f"    out = np.empty(shape[:{axis}] + (n,) + shape[{axis}:], "
                 "dtype=arrays[0].dtype)",
                 "    for i in range(n):",
                 "        a = arrays[i]",
                 "        if a.shape != shape:",
                 "            raise ValueError('all input arrays must have the same shape')"]
        rank, pad = arrays.dtype.ndim, "        "
        for q in range(rank):  # (not out[:, i] = a: Numba compiles its error message, 5 s)
            lines.append(f"{pad}for j{q} in range(shape[{q}]):")
            pad += "    "
        at = [f"j{q}" for q in range(rank)]
        lines += [f"{pad}out[{', '.join(at[:axis] + ['i'] + at[axis:])}] = "
                  f"a[{', '.join(at) or '()'}]", "    return out"]
        scope = {"np": np}
        exec("\n".join(lines), scope)  # noqa: S102 - made here from an int
        return scope["impl"]

    overload(stub)(typing)
    return stub



def broadcast_copy(a, shape):
    """Stub: ``np.ascontiguousarray(np.broadcast_to(a, shape))``."""
    raise NotImplementedError


@overload(broadcast_copy)
def _broadcast_copy(a, shape):
    if not (isinstance(a, types.Array) and isinstance(shape, types.UniTuple)
            and isinstance(shape.dtype, types.Integer) and len(shape) >= a.ndim):
        return lambda a, shape: np.ascontiguousarray(np.broadcast_to(a, shape))
    rank, first = len(shape), len(shape) - a.ndim
    lines = ["def impl(a, shape):"]
    for q in range(a.ndim):  # a's axes, aligned with the shape's from the right
        lines += [f"    if a.shape[{q}] != 1 and a.shape[{q}] != shape[{first + q}]:",
                  "        raise ValueError('srcad (numba backend): cannot broadcast to "
                  "the shape')",
                  f"    s{q} = 1 if a.shape[{q}] != 1 else 0"]
    lines.append("    out = np.empty(shape, dtype=a.dtype)")
    pad = "    "
    for p in range(rank):
        lines.append(f"{pad}for i{p} in range(shape[{p}]):")
        pad += "    "
    at = ", ".join(f"i{first + q} * s{q}" for q in range(a.ndim))
    lines += [f"{pad}out[{', '.join(f'i{p}' for p in range(rank))}] = a[{at}]"
              if a.ndim else f"{pad}out[{', '.join(f'i{p}' for p in range(rank))}] = a[()]",
              "    return out"]
    scope = {"np": np}
    exec("\n".join(lines), scope)  # noqa: S102 - made here from the ranks
    return scope["impl"]


def matmul_stacks(a, b):
    """The implementation of ``a @ b`` for float arrays ``a`` and ``b`` (Numba types), of
    ranks 2 or more, one at least 3 (stacks of matrices, their leading axes broadcast as
    NumPy's): loops, each element the sum over the shared axis from 0.0 in order (batched
    forward mode's small matrices cost more through BLAS, a call and a copy each, than
    computed)."""
    lead = max(a.ndim, b.ndim) - 2
    lines = ["def impl(a, b):"]
    for p in range(lead):  # the output's leading axes, aligned from the right
        da, db = (f"{n}.shape[{p - lead + t.ndim - 2}]" if p >= lead - t.ndim + 2 else "1"
                  for n, t in (("a", a), ("b", b)))
        lines += [f"    n{p} = max({da}, {db})",
                  f"    if {da} != {db} and min({da}, {db}) != 1:",
                  "        raise ValueError('matmul: mismatch in the stacks of matrices')"]
    lines += ["    if a.shape[-1] != b.shape[-2]:",
              "        raise ValueError('matmul: mismatch in the core dimension')",
              "    m, q, r = a.shape[-2], a.shape[-1], b.shape[-1]",
              f"    out = np.empty(({''.join(f'n{p}, ' for p in range(lead))}m, r))"]
    for n, t in (("a", a), ("b", b)):  # 1 along an axis of length > 1, else 0 (broadcast)
        first = lead - t.ndim + 2
        lines += [f"    {n}{p} = 1 if {n}.shape[{p - first}] > 1 else 0"
                  for p in range(first, lead)]

    def item(n, t, last):  # (a product, no branch in the loops: LLVM unswitches none)
        first = lead - t.ndim + 2
        axes = [f"i{p} * {n}{p}" for p in range(first, lead)]
        return f"{n}[{', '.join(axes + last)}]"

    pad = "    "
    for p in range(lead):
        lines.append(f"{pad}for i{p} in range(n{p}):")
        pad += "    "
    lines += [f"{pad}for i in range(m):",
              f"{pad}    for j in range(r):",
              f"{pad}        acc = 0.0",
              f"{pad}        for l in range(q):",
              f"{pad}            acc += {item('a', a, ['i', 'l'])} * {item('b', b, ['l', 'j'])}",
              f"{pad}        out[{''.join(f'i{p}, ' for p in range(lead))}i, j] = acc",
              "    return out"]
    return lines


#: products (output elements x terms summed into each) from which einsum of two float64
#: arrays is one matrix product (BLAS) rather than a loop nest; below it the nest's loop order
#: (and so its sums to the last bit) is kept
MATRIX_PRODUCT = 2 ** 22


def contraction(sa, sb, so, shaped):
    """The lines (indented for a function body) of ``out = np.einsum('sa,sb->so', a, b)`` as
    one matrix product of ``a`` and ``b`` transposed and reshaped (``np.tensordot``'s way),
    when the product of the output's size and the summed letters' is at least
    :data:`MATRIX_PRODUCT`; else None (the caller's loop nest follows). None as well where it
    is not one matrix product: a letter twice in an operand, a letter of both operands kept
    in the output, one summed in one operand only, or none summed. ``shaped``: the
    ValueError's message for summed lengths that differ."""
    shared = set(sa) & set(sb)
    summed = [c for c in sa if c in shared]
    if (len(set(sa)) != len(sa) or len(set(sb)) != len(sb) or not summed
            or shared & set(so) or set(sa + sb) - shared - set(so)):
        return None
    rows = [c for c in so if c in sa]
    cols = [c for c in so if c in sb]

    def size(c):
        return f"a.shape[{sa.index(c)}]" if c in sa else f"b.shape[{sb.index(c)}]"

    def product(letters):
        return " * ".join(map(size, letters)) or "1"

    def axes(letters, s):
        return "(" + "".join(f"{s.index(c)}, " for c in letters) + ")"

    dims = "(" + "".join(f"{size(c)}, " for c in rows + cols) + ")"
    order = "(" + "".join(f"{(rows + cols).index(c)}, " for c in so) + ")"
    lines = [f"    if ({product(so)}) * ({product(summed)}) >= {MATRIX_PRODUCT}:"]
    for c in summed:
        lines += [f"        if a.shape[{sa.index(c)}] != b.shape[{sb.index(c)}]:",
                  f"            raise ValueError({shaped!r})"]
    lines += [f"        a2 = np.ascontiguousarray(a.transpose({axes(rows + summed, sa)}))"
              f".reshape(({product(rows)}, {product(summed)}))",
              f"        b2 = np.ascontiguousarray(b.transpose({axes(summed + cols, sb)}))"
              f".reshape(({product(summed)}, {product(cols)}))",
              f"        return np.ascontiguousarray((a2 @ b2).reshape({dims})"
              f".transpose({order}))"]
    return lines


def pairs(ins, output):
    """Three operands' einsum as two of two: ``(first, second)``, each ``(subscripts,
    operand positions)``, the pair whose result has the fewest letters (those the third
    operand or the output reads) contracted first, its letters in order of appearance; None
    where every pair would sum to a number."""
    best = None
    for x, y in ((0, 1), (0, 2), (1, 2)):
        z = 3 - x - y
        kept = "".join(c for c in dict.fromkeys(ins[x] + ins[y]) if c in ins[z] + output)
        if kept and (best is None or len(kept) < len(best[0])):  # (a number: not an array)
            best = (kept, x, y, z)
    if best is None:  # every pair sums to a number ('i,j,k->'): the one loop nest
        return None
    kept, x, y, z = best
    return (f"{ins[x]},{ins[y]}->{kept}", (x, y)), (f"{kept},{ins[z]}->{output}", (z,))


def reuse_tangent(tangent, value):
    """Stub: ``copy_tangent(tangent, value)`` where nothing reads ``tangent`` again
    (:mod:`.numba_reuse` proves it): a float64 C array of ``value``'s shape is returned
    itself, another array copied as ``copy_tangent`` copies it (the arrays' tangents are
    arrays: the pair's ``A`` is made by a call making a new array)."""
    raise NotImplementedError


@overload(reuse_tangent)
def _reuse_tangent(tangent, value):
    if (isinstance(value, types.Array) and isinstance(tangent, types.Array)
            and tangent.dtype == types.float64 and tangent.layout == "C"):
        def same(tangent, value):
            if tangent.shape != value.shape:
                raise ValueError("srcad (numba backend): a tangent shaped unlike its value")
            return tangent
        return same
    if isinstance(value, types.Array) and isinstance(tangent, types.Array):
        def copied(tangent, value):  # as copy_tangent's
            if tangent.shape != value.shape:
                raise ValueError("srcad (numba backend): a tangent shaped unlike its value")
            return tangent.astype(np.float64)
        return copied
    raise TypingError(f"srcad's numba backend reuses the tangents of arrays, not {tangent}")
