"""Ranks for batched forward mode (:mod:`srcad.transform.forward_batched`): what the analysis
knows, and what follows from it through indexing, literals, joins, products, reductions and
the items of lists and tuples, worked out when the code is made. Where a loop's value is
reached before it is made, the rank taken is checked again at the end.

Imports ``srcad.core``, ``srcad.rules``, ``srcad.errors``.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from ..errors import SrcadError
from ..rules import registry


class NotBatched(SrcadError):
    """An operation without a batched form: the Jacobian is taken a column at a time."""


def hashable(fn):
    try:
        hash(fn)
    except TypeError:
        return False
    return True


class Ranks:
    """The ranks of a function's values (a mixin of :class:`BatchedForward`: it sets ``an``,
    ``fn``, ``defs``, ``phis``, ``uses``, ``consumer``, ``items``, ``ranks``, ``working`` and
    ``assumed``)."""

    def rank(self, atom):
        """The rank of a number or array, known when the code is made (else refused)."""
        found = self.rank_or_none(atom)
        if found is None:
            raise NotBatched(f"a value of unknown rank ({atom})")
        return found

    def rank_or_none(self, atom):
        if isinstance(atom, ir.Const):
            if isinstance(atom.value, (int, float)) and not isinstance(atom.value, bool):
                return 0
            return atom.value.ndim if isinstance(atom.value, np.ndarray) else None
        if not isinstance(atom, ir.Var):
            return None
        n = atom.name
        if n in self.ranks:
            return self.ranks[n]
        kind = self.an.kind(atom)
        if kind == SEQ:  # a list or tuple has no rank (its tangent is a list of tangents)
            return None
        if kind == SCALAR:
            return 0
        known = self.an.ranks.get(n) if kind == ARRAY else None
        if known is not None and known >= 1:
            return known
        if n in self.working:
            return None
        self.working.add(n)
        try:
            if n in self.phis:  # every source of one rank (checked again at the end)
                found = {self.rank_or_none(a) for a in self.phis[n]} - {None}
                rank = found.pop() if len(found) == 1 else None
                self.assumed.append((self.phis[n], rank))
            else:
                value = self.defs.get(n)
                rank = self.infer(value) if isinstance(value, ir.Prim) else (
                    self.rank_or_none(value) if value is not None else None)
        finally:
            self.working.discard(n)
        if rank is not None:
            self.ranks[n] = rank
        return rank

    def infer(self, value):
        """The rank of ``value``'s result by its operands' ranks, for the batched forms."""
        fn, args, kwargs = value.fn, value.args, value.kwargs
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        r = [self.rank_or_none(a) for a in args]
        if not hashable(fn):
            return None
        if fn is operator.getitem and isinstance(args[0], ir.Var) and isinstance(
                args[1], ir.Const) and args[0].name in self.items:
            ranks = self.items[args[0].name]
            i = args[1].value
            return ranks[i] if type(i) is int and -len(ranks) <= i < len(ranks) else None
        if fn is operator.getitem and self.an.kind(args[0]) == SEQ and (
                self.an.kind(args[1]) not in (SEQ, ARRAY) and isinstance(args[0], ir.Var)):
            parts = self.list_items(args[0]) or []  # a list's item: all of one rank
            found = {self.rank_or_none(a) for a in parts} - {None}
            rank = found.pop() if len(found) == 1 else None
            self.assumed.append((parts, rank))
            return rank
        if fn is operator.getitem and self.an.kind(args[0]) != SEQ and r[0]:
            items = args[1].items if isinstance(args[1], ir.Index) else (args[1],)
            rank, arrays = r[0], []
            for item in items:
                if isinstance(item, ir.Const) and item.value is None:
                    rank += 1
                elif isinstance(item, ir.Slice) or (
                        isinstance(item, ir.Const) and item.value is Ellipsis):
                    continue
                elif (isinstance(item, ir.Var) and self.an.kind(item) == SCALAR
                      and item.name not in self.an.bools) or (
                        isinstance(item, ir.Const) and type(item.value) is int):
                    rank -= 1
                elif isinstance(item, ir.Var) and self.an.kind(item) == ARRAY:
                    # an integer or a boolean array: one axis for one when it is a vector
                    arrays.append(self.rank_or_none(item))
                    rank -= 1
                else:
                    return None
            if arrays not in ([], [1]):
                return None
            return rank + sum(arrays)
        if fn in (np.zeros, np.ones, np.empty) and args:
            shape = args[0]
            if isinstance(shape, ir.Const):
                return len(shape.value) if isinstance(shape.value, tuple) else 1
            return 1 if self.an.kind(shape) == SCALAR else None
        if fn is np.eye:
            return 2
        if fn in (np.array, np.asarray) and len(args) == 1:
            if r[0] is not None and self.an.kind(args[0]) == ARRAY:
                return r[0]
            leaves = self.literal_leaves(args[0], ())
            if leaves:
                depth = {len(p) for p, _ in leaves}
                return depth.pop() if len(depth) == 1 else None
            return None
        if fn is sum and len(args) == 1 and self.an.kind(args[0]) == SEQ:  # Python's sum
            ranks = {self.rank_or_none(a) for a in self.list_items(args[0]) or [None]}
            return ranks.pop() if len(ranks) == 1 else None
        if fn in (np.stack, np.concatenate) and args and self.an.kind(args[0]) == SEQ:
            parts = self.list_items(args[0])
            ranks = {self.rank_or_none(a) for a in parts} if parts else {None}
            if len(ranks) != 1 or None in ranks:
                return None
            return ranks.pop() + (fn is np.stack)
        if fn in (operator.matmul, np.matmul, np.dot) and None not in r and len(r) == 2:
            a, b = r
            if a == 1 and b == 1:
                return 0
            if a == 1 or b == 1:
                return max(a, b) - 1
            return max(a, b)
        if fn is np.einsum and isinstance(args[0], ir.Const) and "->" in str(args[0].value):
            return len(args[0].value.split("->")[1].strip())
        if fn in (np.sum, np.mean) and r and r[0] is not None:
            axis = self.literal(args[1] if len(args) > 1 else kwargs.get("axis", ir.Const(None)))
            keep = kwargs.get("keepdims", ir.Const(False))
            if not isinstance(axis, ir.Const) or not isinstance(keep, ir.Const) or (
                    set(kwargs) - {"axis", "keepdims"}):
                return None
            if keep.value is True:
                return r[0]
            if axis.value is None:
                return 0
            return r[0] - (len(axis.value) if isinstance(axis.value, tuple) else 1)
        if fn in (np.ravel, np.ndarray.flatten):
            return 1
        if fn in (np.transpose, np.ndarray.transpose, np.swapaxes, np.copy, operator.neg,
                  operator.pos, np.negative) and r:
            return r[0]
        if fn is np.sqrt or isinstance(fn, np.ufunc) or fn in (
                operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                np.where, operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                operator.ne):
            return None if None in r or kwargs else max(r)
        return None

    def list_items(self, atom):
        """The items of a list or tuple made here: its literal and what is appended to it
        (through the loops' phis), or None where it is made otherwise."""
        items, seen, todo = [], set(), [atom.name]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in self.phis:
                todo += [a.name for a in self.phis[n] if isinstance(a, ir.Var)]
                continue
            made = self.defs.get(n)
            if not (isinstance(made, ir.Prim) and made.fn in (ir.BUILD_LIST, ir.BUILD_TUPLE)):
                return None
            items += made.args
        for s in ir.walk(self.fn.body):
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Prim) and (
                    s.value.fn == ir.Method("append")) and s.value.args[0].name in seen:
                items.append(s.value.args[1])
        return items

    # ---------------------------------------------------------------- zeros

    def in_literal(self, n):
        """Whether the list ``n`` is only a part of a literal given to ``np.array``."""
        stmt = self.consumer.get(n)
        if self.uses.get(n, 0) != 1 or stmt is None or stmt.target is None:
            return False
        if stmt.value.fn in (np.array, np.asarray) and len(stmt.value.args) == 1:
            return True
        return stmt.value.fn in (ir.BUILD_LIST, ir.BUILD_TUPLE) and self.in_literal(stmt.target)

    def literal_leaves(self, atom, at):
        """``[(position, number atom)]`` of a nested list or tuple literal of numbers made
        here and used only by this call, or None."""
        if isinstance(atom, ir.Const):
            return [(at, atom)] if isinstance(atom.value, (int, float)) else None
        if self.an.kind(atom) == SCALAR or (self.an.kind(atom) != SEQ and (
                self.rank_or_none(atom) == 0)):
            return [(at, atom)]
        made = self.defs.get(atom.name)
        if not (isinstance(made, ir.Prim) and made.fn in (ir.BUILD_LIST, ir.BUILD_TUPLE)) or (
                self.uses.get(atom.name, 0) != 1 or not made.args):
            return None
        found = []
        for i, part in enumerate(made.args):
            sub = self.literal_leaves(part, at + (i,))
            if sub is None:
                return None
            found += sub
        return found

