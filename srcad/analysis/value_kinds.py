"""The kind and the rank of one operation's result, from what is known of its operands: the
rules :class:`srcad.analysis.analyse.Analysis` applies to every call and operator while it
solves for the kinds of a function's values (``np.sum(a)`` is a number, ``a @ b`` of a matrix
and a vector is a vector, a user function's result kind is asked of its callee, ...).

:class:`ValueKinds` is a mixin: the class using it holds ``kinds`` (name -> kind, None while
not worked out), ``ranks`` (array name -> number of axes), ``ints`` (names holding Python
ints), ``items`` and ``elems`` (what containers hold), ``callees`` (or None) and a ``kind``
method for an atom.

Imports only ``srcad.core``, ``srcad.runtime`` (to know its own helpers) and ``srcad.rules``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..core import functions, ir
from ..core.kinds import ANY, ARRAY, MIXED, OTHER, SCALAR, SEQ, kind_of_value
from ..rules import registry
from ..runtime import family_of

#: the rank of ``a @ b`` from the ranks of ``a`` and ``b``
_MATMUL_RANK = {(2, 1): 1, (1, 2): 1, (2, 2): 2}
#: srcad's own helpers whose result has the structure of one argument (its position)
_SHAPED_LIKE = {"zeros_like": 0, "grad_array": 1, "cleared": 0, "fill": 1, "added_at": 0}
_ARITH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
          operator.mod, operator.floordiv, operator.neg, operator.pos, operator.matmul}


class ValueKinds:
    """The kind (:meth:`prim_kind`) and rank (:meth:`rank`) of values, one operation at a
    time."""

    # ---------------------------------------------------------------- kinds of calls

    def prim_kind(self, prim):
        fn = prim.fn
        kinds = [self.kind(a) for a in prim.args]
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            return SEQ
        if any(k is None for k in kinds):
            return None  # depends on a result still being worked out (recursion)
        if isinstance(fn, ir.BoolOp):
            return SCALAR if all(k == SCALAR for k in kinds) else ANY
        if family_of(fn) and getattr(fn, "__name__", None) in ("unbroadcast", "unbroadcast_to"):
            if kinds[0] == SCALAR and (fn.__name__ == "unbroadcast_to" or kinds[1] == SCALAR):
                return SCALAR  # a number summed to a number's shape: that number
            if fn.__name__ == "unbroadcast" and kinds[0] == ARRAY and kinds[1] == ARRAY:
                return ARRAY
            return ANY
        if family_of(fn) and getattr(fn, "__name__", None) in _SHAPED_LIKE:
            source = kinds[_SHAPED_LIKE[fn.__name__]] if len(kinds) > 1 else kinds[0]
            if source in (SCALAR, ARRAY, SEQ) and (source == SEQ or fn.__name__ == "zeros_like"):
                return source  # a gradient shaped like its argument: a list for a list
        if isinstance(fn, ir.Attr):
            if fn.name in ("ndim", "size"):
                return SCALAR
            if fn.name == "shape":
                return SEQ  # a tuple of ints (its element kind is recorded in _kinds)
            return ARRAY if fn.name == "T" and kinds[0] == ARRAY else ANY
        if fn is operator.getitem and kinds[0] == ARRAY and len(prim.args) == 2:
            rank = self.rank(prim.args[0])
            if rank is not None and self._is_int(prim.args[1]):
                return ARRAY if rank >= 2 else SCALAR  # x[i] drops the first axis
        if fn is operator.getitem and kinds[0] == SEQ or isinstance(fn, ir.Method) and (
            fn.name == "pop" and kinds[0] == SEQ
        ):
            obj = prim.args[0]
            index = prim.args[1] if len(prim.args) > 1 else None
            items = self.items.get(obj.name) if isinstance(obj, ir.Var) else None
            if items and isinstance(index, ir.Const) and fn is operator.getitem:
                try:
                    return items.get(index.value, ANY)
                except TypeError:
                    return ANY
            if isinstance(obj, ir.Var) and not isinstance(index, (ir.Slice, ir.Index)) and (
                    self.kind(index) == SCALAR):  # not a slice object
                return self.elems.get(obj.name, ANY)
            return SEQ if isinstance(index, ir.Slice) else ANY
        if fn == ir.Method("copy") and len(kinds) == 1 and kinds[0] in (SEQ, ARRAY):
            return kinds[0]  # ys.copy() is a list (srcad writes y_1 = y.copy(); y_1[i] = v)
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name)
            if fn is None:
                return ANY
        rule, bound = registry.find(fn, prim.args, prim.kwargs) if registry.has_rule(fn) else (
            None, None)
        if rule is not None and rule.kind == "reduction":
            return self._reduction_kind(bound)
        if rule is not None and rule.kind:
            return rule.kind
        if getattr(fn, "__name__", None) == "stop_gradient" and kinds:
            return kinds[0]
        if fn in (range, len, int, round, math.floor, math.ceil, math.trunc):
            return SCALAR if fn is not range else OTHER
        if getattr(fn, "__module__", None) == "math" or fn is float:
            return SCALAR
        if fn in (operator.add, operator.mul) and SEQ in kinds and ARRAY not in kinds:
            return SEQ  # list + list, list * n
        if fn in _ARITH or isinstance(fn, np.ufunc) or fn in (abs, min, max, pow):
            if prim.kwargs:
                return ANY
            if all(k == SCALAR for k in kinds):
                return SCALAR
            if ARRAY in kinds and all(k in (SCALAR, ARRAY) for k in kinds):
                return ARRAY
            return ANY
        if fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
                  operator.not_):
            return SCALAR if all(k == SCALAR for k in kinds) else ANY
        if fn in (list, tuple, sorted):
            return SEQ
        if fn is sum and kinds and kinds[0] == SEQ and isinstance(prim.args[0], ir.Var):
            elem = self.elems.get(prim.args[0].name, ANY)
            return elem if elem in (SCALAR, ARRAY) else ANY
        if self.callees is not None and functions.is_user_function(fn):
            try:
                arguments, _, arity = functions.bind(fn, prim.args, prim.kwargs)
            except TypeError:
                return ANY
            arg_kinds = {p: self.kind(a) if isinstance(a, (ir.Var, ir.Const)) else
                         kind_of_value(a) for p, a in arguments.items()}
            return self.callees.result_kind(fn, arg_kinds, arity)
        return ANY

    def _reduction_kind(self, bound):
        """``np.sum(a)`` is a number; with ``axis`` or ``keepdims`` an array (for an array)."""
        def const(name, default):
            atom = bound.get(name, default)
            if isinstance(atom, ir.Const):
                return atom.value
            return atom if not isinstance(atom, ir.Var) else ...

        axis, keepdims = const("axis", None), const("keepdims", False)
        source = self.kind(bound.get("a")) if isinstance(bound.get("a"), ir.Var) else ANY
        if axis is None and keepdims is False:
            return SCALAR if source in (SCALAR, ARRAY) else ANY
        if axis is ... or keepdims is ...:
            return ANY
        return ARRAY if source == ARRAY else ANY

    # ---------------------------------------------------------------- ranks

    def rank(self, atom):
        """The number of axes of an array value, or None when it is not one known number."""
        if isinstance(atom, ir.Var) and self.kinds.get(atom.name) == ARRAY:
            rank = self.ranks.get(atom.name)
            return rank if rank is not None and rank >= 1 else None
        return None

    def _rank_of(self, value):
        """The rank of an ARRAY value; None while an operand is still being worked out."""
        if isinstance(value, ir.Var):
            return self.ranks.get(value.name)
        if not isinstance(value, ir.Prim) or value.kwargs:
            return MIXED
        fn, args = value.fn, value.args
        if any(isinstance(a, ir.Var) and self.kind(a) is None for a in args):
            return None
        if fn is operator.getitem:
            obj = self.rank(args[0])
            return obj - 1 if obj is not None and self._is_int(args[1]) else MIXED
        if fn == ir.Attr("T"):
            return self.rank(args[0]) or MIXED
        if fn in (operator.matmul, np.matmul) and len(args) == 2:
            return _MATMUL_RANK.get((self.rank(args[0]), self.rank(args[1])), MIXED)
        if fn in _ARITH or isinstance(fn, np.ufunc):
            ranks = []
            for a in args:
                if self.kind(a) == SCALAR:
                    ranks.append(0)
                elif self.rank(a) is not None:
                    ranks.append(self.rank(a))
                else:
                    return MIXED
            return max(ranks) if ranks else MIXED
        return MIXED

    def _join_ranks(self, phi):
        if self.kinds.get(phi.target) != ARRAY:
            return
        ranks = set()
        for s in phi.sources:
            if isinstance(s, ir.Var) and self.kinds.get(s.name) is None:
                continue  # not worked out yet: the next sweep looks again
            ranks.add(self.rank(s))
        if ranks:
            self.ranks[phi.target] = ranks.pop() if len(ranks) == 1 and None not in ranks \
                else MIXED

    def _is_int(self, atom):
        if isinstance(atom, ir.Const):
            return type(atom.value) is int
        return isinstance(atom, ir.Var) and atom.name in self.ints

    def _int_result(self, value):
        """Whether ``value`` is an int whenever its operands are what they are known to be:
        integer arithmetic on counters and integer literals, ``len``."""
        if not isinstance(value, ir.Prim) or value.kwargs:
            return False
        if value.fn is len:
            return True
        return value.fn in (operator.add, operator.sub, operator.mul, operator.floordiv,
                            operator.mod, operator.neg) and all(self._is_int(a)
                                                                for a in value.args)
