"""Tangents kept as one ``einsum`` in batched forward mode: a tangent made by ``np.einsum``
(one varied operand), then multiplied by a value without a tangent, then summed over axes,
becomes one ``np.einsum`` of them all, where each value is read once. The batched tangents
are ``k`` times the size of the values: ``np.sum(np.einsum('zbij,vj->zvbi', dt, p) * w,
axis=2)`` makes two arrays of ``k`` times the size of ``p * w`` on the way, which
``np.einsum('zbij,vj,vb->zvi', dt, p, w)`` does not (GradBench's ``ht``: 50 times faster).

The same for a product of vectors summed whole: ``np.sum(x * v)`` of vectors, the product
read only there, has the tangent ``tangent_dot(dx, v)`` (one matrix-vector product of the
``k`` x ``n`` tangent) instead of ``tangent_sum(dx * v, (1,))`` (a ``k`` x ``n`` product, then
its sum).

A mixin of :class:`srcad.transform.forward_batched.BatchedForward`; imports ``srcad.core``
and ``srcad.transform``.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from . import nodes


class Contractions:
    """``einsums``: tangent target -> (input subscripts, output subscripts (the batch letter
    first), operand trees, (the block, the statement) that assigned it)."""

    def contraction(self, atom):
        """The einsum a tangent is, where its value is read once (here): else None."""
        if isinstance(atom, ir.Var) and self.uses.get(atom.name) == 1:
            return self.einsums.get(atom.name)
        return None

    def contract(self, made, ins, out, operands):
        """``np.einsum`` of ``operands``, the statement of the tangent ``made`` folded into
        it gone (its value was read only here)."""
        block, stmt = made[3]
        for i, known in enumerate(block):
            if known is stmt:
                del block[i]
                break
        self.fused = (ins, out, operands)
        # three operands or more: contracted a pair at a time (NumPy's own order), not by
        # one loop over every letter
        return nodes.call(self.np_("einsum"), nodes.constant(f"{','.join(ins)}->{out}"),
                          *[nodes.copy_tree(o) for o in operands],
                          optimize=nodes.constant(True))

    def fused_product(self, stmt, fn, bound):
        """``q = p * w`` with ``p``'s tangent an einsum and ``w`` without a tangent: the
        tangent of ``q`` as one einsum, or None."""
        if fn not in (operator.mul, np.multiply) or len(bound) != 2:
            return None
        (_, a), (_, b) = bound.items()
        varied = [x for x in (a, b) if isinstance(x, ir.Var) and self.varied(x)]
        if len(varied) != 1:
            return None
        p = varied[0]
        w = b if p is a else a
        made = self.contraction(p)
        if made is None or self.rank_or_none(ir.Var(stmt.target)) != self.rank_or_none(p):
            return None
        ins, out, operands = made[:3]
        rank_w = self.rank_or_none(w)
        if rank_w is None or rank_w > len(out) - 1:
            return None
        letters = out[len(out) - rank_w:] if rank_w else ""
        w, letters = self.unpadded(w, letters)
        return self.contract(made, ins + [letters], out, operands + [nodes.expr(w)])

    def unpadded(self, w, letters):
        """``w = v[:, :, None]`` (``:`` and ``None`` only): ``v``, without the letters of the
        axes of length one (an einsum contracts in a better order without them)."""
        made = self.defs.get(w.name) if isinstance(w, ir.Var) else None
        if not (isinstance(made, ir.Prim) and made.fn is operator.getitem and isinstance(
                made.args[0], ir.Var)):
            return w, letters
        index = made.args[1]
        items = index.items if isinstance(index, ir.Index) else (index,)
        full = [isinstance(i, ir.Slice) and i.lower is None and i.upper is None and (
            i.step is None) for i in items]
        new = [isinstance(i, ir.Const) and i.value is None for i in items]
        if not all(f or n for f, n in zip(full, new)) or len(items) != len(letters) or (
                self.rank_or_none(made.args[0]) != len(letters) - sum(new)):
            return w, letters
        return made.args[0], "".join(c for c, n in zip(letters, new) if not n)

    def fused_sum(self, x, axis):
        """``np.sum(p, axis)`` with ``p``'s tangent an einsum: one einsum, or None."""
        made = self.contraction(x)
        if made is None:
            return None
        ins, out, operands = made[:3]
        rank = len(out) - 1
        axes = range(rank) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        if not all(type(a) is int and -rank <= a < rank for a in axes):
            return None
        dropped = {a % rank for a in axes}
        kept = out[0] + "".join(c for i, c in enumerate(out[1:]) if i not in dropped)
        return self.contract(made, ins, kept, operands)

    def record_product(self, stmt, fn, bound, code):
        """After ``q = a * b`` of vectors (its tangent the last statement of ``code``, not
        broadcast): kept in ``products`` where ``q`` is read once, for :meth:`dotted_sum`."""
        if fn not in (operator.mul, np.multiply) or len(bound) != 2 or self.uses.get(
                stmt.target) != 1 or self.rank_or_none(ir.Var(stmt.target)) != 1:
            return
        (_, a), (_, b) = bound.items()
        pairs = []
        for x, v in ((a, b), (b, a)):
            if not (isinstance(x, ir.Var) and self.varied(x)):
                continue
            if self.rank_or_none(x) != 1 or not isinstance(v, ir.Var) or (
                    self.rank_or_none(v) != 1):
                return
            pairs.append((self.t(x.name), v))
        self.products[stmt.target] = (pairs, (code, code[-1]))

    def dotted_sum(self, x):
        """``np.sum(q)`` of a product :meth:`record_product` kept: ``tangent_dot(dx, v)`` per
        varied factor (``x * x``: ``tangent_dot(dx, x + x)``), the product's tangent gone;
        else None."""
        made = self.products.get(x.name) if isinstance(x, ir.Var) else None
        if made is None:
            return None
        pairs, (block, stmt) = made
        for i, known in enumerate(block):
            if known is stmt:
                del block[i]
                break
        by_tangent = {}
        for t, v in pairs:
            by_tangent.setdefault(t, []).append(nodes.expr(v))
        total = None
        for t, others in by_tangent.items():
            other = others[0]
            for more in others[1:]:
                other = nodes.plus(other, more)
            term = nodes.call(self.helper("tangent_dot"), nodes.name(t), other)
            total = term if total is None else nodes.plus(total, term)
        return total
