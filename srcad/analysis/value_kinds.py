"""The kind and the rank of one operation's result, from what is known of its operands: the
rules :class:`srcad.analysis.analyse.Analysis` applies to every call and operator while it
solves for the kinds of a function's values (``np.sum(a)`` is a number, ``a @ b`` of a matrix
and a vector is a vector, a user function's result kind is asked of its callee, ...).

:class:`ValueKinds` is a mixin: the class using it holds ``kinds`` (name -> kind, None while
not worked out), ``ranks`` (array name -> number of axes), ``ints`` (names holding Python
ints), ``items`` and ``elems`` (what containers hold), ``callees`` (or None) and a ``kind``
method for an atom.

Imports only ``srcad.core``, ``srcad.runtime`` (to know its own helpers), ``srcad.rules`` and
:mod:`srcad.analysis.stacks` and :mod:`srcad.analysis.user_calls`.
"""

from __future__ import annotations

import copy
import math
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ANY, ARRAY, MIXED, OTHER, SCALAR, SEQ, inner_items, join
from ..rules import registry
from ..runtime import containers, family_of
from . import derivative_calls, stacks
from . import elems as lists
from .user_calls import bind_call, is_user_call

#: the rank of ``a @ b`` from the ranks of ``a`` and ``b``
_MATMUL_RANK = {(2, 1): 1, (1, 2): 1, (2, 2): 2}
#: srcad's own helpers whose result has the structure of one argument (its position)
#: srcad's helpers that make the new version of a list (or array) changed in place
_NEW_VERSION = frozenset({"pop_value", "insert_value", "remove_value", "clear_value",
                          "reverse_value", "extend_value", "sort_value"})
_SHAPED_LIKE = {"zeros_like": 0, "grad_array": 1, "cleared": 0, "fill": 1, "added_at": 0,
                "seq_grad": 1, "cofactors": 0, "cofactors_tangent": 1, "slogdet_check": 0,
                "fixed_check": 0}
#: srcad's helpers whose array result has the axes of their argument at this position (the
#: gradient code differentiated again: ``dy[i]`` of such a ``dy`` is a number, not a view)
_RANK_LIKE = {"unbroadcast": 1, "fill": 1, "zeros_like": 0, "zeros_array": 0, "cleared": 0}
#: products whose result for two vectors is a number
#: array constructors: their result is always a new NumPy array (0-d included)
_MADE = (np.zeros, np.ones, np.empty, np.full, np.arange, np.eye, np.identity, np.tri,
         np.linspace)
_MADE_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)
_PRODUCTS = (np.dot, np.inner, np.vdot, np.matmul, operator.matmul)
_ARITH = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
          operator.mod, operator.floordiv, operator.neg, operator.pos, operator.matmul}


def _reduction_kind(analysis, bound):
    """``np.sum(a)`` is a number; with ``axis`` or ``keepdims`` an array (for an array)."""
    def const(name, default):
        atom = bound.get(name, default)
        if isinstance(atom, ir.Const):
            return atom.value
        return atom if not isinstance(atom, ir.Var) else ...

    axis, keepdims = const("axis", None), const("keepdims", False)
    source = analysis.kind(bound.get("a")) if isinstance(bound.get("a"), ir.Var) else ANY
    if axis is None and keepdims is False:
        return SCALAR if source in (SCALAR, ARRAY) else ANY
    if axis is ... or keepdims is ...:
        return ANY
    return ARRAY if source == ARRAY else ANY


def _shaped_like_second(fn, prim):
    """Whether ``prim``'s result has the kind and rank of its second argument, in srcad's own
    code differentiated again: ``scatter(v, x, i)`` (zeros shaped like the array or list
    ``x``, ``v`` placed at ``i``), ``grad_sum(g, a)`` or ``grad_mean(g, a)`` over every axis
    (``g`` spread over ``a``'s shape; a number for a number)."""
    name = getattr(fn, "__name__", None)
    if name == "scatter":
        return family_of(fn) == "runtime" and len(prim.args) == 3 and not prim.kwargs
    return name in ("grad_sum", "grad_mean") and family_of(fn) == "numpy" and len(
        prim.args) == 2 and not prim.kwargs


def _added(kinds):
    """The kind of srcad's ``add(a, b)`` of values of ``kinds``."""
    if kinds[0] == kinds[1] == SEQ or kinds[0] == kinds[1] == SCALAR:
        return kinds[0]
    return ARRAY if ARRAY in kinds and set(kinds) <= {SCALAR, ARRAY} else ANY


class ValueKinds:
    """The kind (:meth:`prim_kind`) and rank (:meth:`rank`) of values, one operation at a
    time."""

    # ---------------------------------------------------------------- kinds of calls

    def prim_kind(self, prim):
        fn = prim.fn
        kinds = [self.kind(a) for a in prim.args]
        if isinstance(fn, ir.Build):
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
        if _shaped_like_second(fn, prim) and kinds[1] in (ARRAY, SEQ if fn.__name__ ==
                                                          "scatter" else SCALAR):
            return kinds[1]  # a gradient shaped like the primal value indexed or summed
        if family_of(fn) == "runtime" and fn.__name__ == "zeros_array":
            return ARRAY  # a new float array shaped like its argument, always
        if family_of(fn) == "runtime" and fn.__name__ == "total" and len(kinds) == 1 and (
                kinds[0] in (SCALAR, ARRAY)):
            return SCALAR  # a number, or an array summed to a number (a user rule's 0-d array)
        if family_of(fn) == "runtime" and fn.__name__ == "add" and len(kinds) == 2:
            return _added(kinds)  # two gradients of one structure added
        if family_of(fn) == "runtime" and getattr(fn, "__name__", None) in _NEW_VERSION and \
                kinds and kinds[0] in (SEQ, ARRAY):
            return kinds[0]  # ys.pop(i), d.pop(k), ys.insert(i, v), ys.sort(): the new ys
        if isinstance(fn, ir.Attr):
            if fn.name in ("ndim", "size"):
                return SCALAR
            if fn.name == "shape":
                return SEQ  # a tuple of ints (its element kind is recorded in _kinds)
            return ARRAY if fn.name == "T" and kinds[0] == ARRAY else ANY
        if fn is operator.getitem and kinds[0] != ARRAY and len(prim.args) == 2:
            item = stacks.stacked_item(self, prim.args[0], prim.args[1])
            if item is not None:
                return item[0]  # an item of a tuple taken off a stack
        if family_of(fn) and getattr(fn, "__name__", None) == "where" and len(kinds) == 3:
            return join(kinds[1:])  # srcad's scalar where(c, a, b): a or b itself
        if family_of(fn) and getattr(fn, "__name__", None) in ("power_of", "sign"):
            return SCALAR  # a ** b of numbers (complex or not); scalar sign (arrays raise)
        if family_of(fn) and getattr(fn, "__name__", None) == "log_base" and kinds and \
                kinds[0] in (SCALAR, ARRAY):
            return kinds[0]  # log of a number (maybe complex: check_real), elementwise of an array
        if family_of(fn) and getattr(fn, "__name__", None) == "polygamma_real" and \
                len(kinds) == 2 and kinds[1] in (SCALAR, ARRAY):
            return kinds[1]  # digamma's family at a number (math.lgamma's gradient): a number
        if fn is operator.getitem and kinds[0] == ARRAY and len(prim.args) == 2:
            rank = self._index_rank(prim.args[0], prim.args[1])
            if rank is not None and rank >= 0:
                return ARRAY if rank >= 1 else SCALAR  # x[i], x[i, j]: an axis per int
            index = prim.args[1]
            if isinstance(index, ir.Slice) or isinstance(index, ir.Index) and any(
                    isinstance(i, ir.Slice) for i in index.items):
                return ARRAY  # a slice of an array keeps that axis: an array, whatever else
        if fn is operator.getitem and kinds[0] == SEQ or isinstance(fn, ir.Method) and (
            fn.name == "pop" and kinds[0] == SEQ
        ):
            obj = prim.args[0]
            index = prim.args[1] if len(prim.args) > 1 else None
            item = self._tuple_item(obj, index) if fn is operator.getitem else None
            if item is not None:
                return item[0]
            items = _items_of(self, obj)
            if items and isinstance(index, ir.Const) and fn is operator.getitem:
                try:
                    return items.get(index.value, ANY)
                except TypeError:
                    return ANY
            if isinstance(obj, ir.Var) and not isinstance(index, (ir.Slice, ir.Index)) and (
                    index is None or self.kind(index) == SCALAR or _keyed(self, obj, index)):
                return self.elems.get(obj.name, ANY)  # (a number: not a slice object)
            return SEQ if isinstance(index, ir.Slice) else ANY
        if fn == ir.Method("copy") and len(kinds) == 1 and kinds[0] in (SEQ, ARRAY):
            return kinds[0]  # ys.copy() is a list (srcad writes y_1 = y.copy(); y_1[i] = v)
        if fn in (copy.copy, copy.deepcopy) and kinds:
            return kinds[0]  # a copy is a value of the same kind
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name)
            if fn is None:
                return ANY
        if any(fn is m for m in _MADE) or kinds and kinds[0] == ARRAY and any(
                fn is m for m in _MADE_LIKE):
            return ARRAY  # np.zeros(3), np.arange(3.0): a new array (mutable, of its own)
        out = _einsum_output(prim)
        if out is not None:
            return ARRAY if out else SCALAR  # np.einsum("ij,jk->ik", ...): the output's axes
        if (product := _product_kind(self, fn, prim)) is not None:
            return product
        rule, bound = registry.find(fn, prim.args, prim.kwargs) if registry.has_rule(fn) else (
            None, None)
        if rule is not None and rule.kind == "reduction":
            return _reduction_kind(self, bound)
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
        if (fn in _ARITH or isinstance(fn, np.ufunc) or fn in (abs, min, max, pow)) and not (
                fn in (min, max) and kinds == [SEQ]):
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
        if fn in (list, tuple, sorted, dict, containers.dict_keys, containers.dict_values,
                  containers.dict_items):
            return SEQ
        if (fn is sum or fn in (min, max) and len(prim.args) == 1 and not prim.kwargs) and (
                kinds and kinds[0] == SEQ and isinstance(prim.args[0], ir.Var)):
            # sum(ys), max(ys): a number for a list of numbers, an array for one of arrays
            elem = self.elems.get(prim.args[0].name, ANY)
            return elem if elem in (SCALAR, ARRAY) else ANY
        known = derivative_calls.kind_of(prim, self)  # srcad.grad(f)(x), compiled
        if known is not False:
            return known
        user = self._user_call(prim)
        if user is not None:
            return self.callees.result_kind(*user)
        return ANY

    def _user_call(self, prim):
        """The callee, its arguments' kinds, arity and ranks for a call of a user function
        (what :meth:`prim_kind` and :meth:`_rank_of` ask the callees), or None."""
        if self.callees is None or not is_user_call(prim) and (  # srcad.grad(f)(x), compiled:
                prim := derivative_calls.as_code_call(prim, self)) is None:  # its code's call
            return None
        call = bind_call(prim, self.kind)
        if call is None:
            return None
        return (call.fn, lists.with_elems(self, call.kinds, call.arguments), call.arity,
                self.arg_ranks(call.arguments))

    def arg_ranks(self, arguments):
        """A callee's arrays' ranks, where known (a constant's too: its rank fingerprinted)."""
        return {p: _rank(self, a) for p, a in arguments.items() if isinstance(a, ir.Var) or (
            type(getattr(a, "value", None)) is np.ndarray and a.value.ndim)}

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
        if not isinstance(value, ir.Prim):
            return MIXED
        known = derivative_calls.rank_of(value, self)  # srcad.grad(f)(x), compiled
        if known is not False:
            return known
        call = self._user_call(value)
        if call is not None:
            rank = self.callees.result_rank(*call)
            return rank if rank is not None and rank >= 1 else MIXED
        if value.kwargs:
            return MIXED
        fn, args = value.fn, value.args
        out = _einsum_output(value)
        if out:
            return len(out)
        if fn in (np.array, np.asarray) and len(args) == 1 and isinstance(args[0], ir.Var):
            # np.array([a, b, c]) of numbers: a vector
            if self.kind(args[0]) == SEQ and self.elems.get(args[0].name) == SCALAR:
                return 1
            return self.rank(args[0]) or MIXED
        if any(isinstance(a, ir.Var) and self.kind(a) is None for a in args):
            return None
        item = self._tuple_item(args[0], args[1]) if fn is operator.getitem and len(
            args) == 2 else None
        if item is None and fn is operator.getitem and len(args) == 2:
            item = stacks.stacked_item(self, args[0], args[1])
        if item is not None:
            return item[1] if item[1] is not None and item[1] >= 1 else MIXED
        if fn is operator.getitem:
            rank = self._index_rank(args[0], args[1]) if len(args) == 2 else None
            return rank if rank is not None and rank >= 1 else MIXED
        made = _made_rank(self, fn, args)
        if made is not None:
            return made
        if fn == ir.Attr("T") or fn == ir.Method("copy") and len(args) == 1:
            return self.rank(args[0]) or MIXED
        if _shaped_like_second(fn, value):
            return self.rank(args[1]) or MIXED  # shaped like the array indexed or summed
        like = _RANK_LIKE.get(getattr(fn, "__name__", None)) if family_of(fn) else None
        if like is not None and len(args) > like and not value.kwargs:
            return self.rank(args[like]) or MIXED  # a gradient with the axes of an array
        if (fn in (operator.matmul, np.matmul, np.dot) or fn == ir.Method("dot")) and len(
                args) == 2:
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

    def _tuple_items(self, value):
        """``{position: (kind, rank)}`` of a tuple built by ``value`` (``(a, b)``, or a call
        of a user function returning one), or None."""
        if not isinstance(value, ir.Prim):
            return None
        if value.fn is ir.BUILD_TUPLE:
            if any(self.kind(a) is None for a in value.args):
                return None
            return {i: (self.kind(a), self.rank(a)) for i, a in enumerate(value.args)}
        if (items := derivative_calls.jvp_items(value, self)) is not None:  # srcad.jvp, compiled
            return items
        call = self._user_call(value)
        if call is None or not hasattr(self.callees, "result_items"):
            return None
        return self.callees.result_items(*call)

    def _tuple_item(self, obj, index):
        """``(kind, rank)`` of ``obj[index]`` for a tuple of known items and an int
        constant ``index``, or None."""
        items = self.tuple_items.get(obj.name) if isinstance(obj, ir.Var) and self.kinds.get(
            obj.name) == SEQ else None
        if not items or not isinstance(index, ir.Const) or type(index.value) is not int:
            return None
        position = index.value + len(items) if index.value < 0 else index.value
        return items.get(position)

    def _index_rank(self, obj, index):
        """The rank of ``obj[index]`` for an array ``obj`` of known rank and a basic index:
        each int drops an axis, each slice keeps one (``x[i]``, ``x[i, j]``, ``x[a:b]``,
        ``x[:, j]``); None for any other index (arrays, None, Ellipsis, names not known to
        hold ints) or more indices than axes."""
        rank = self.rank(obj)
        if rank is None:
            return None
        items = index.items if isinstance(index, ir.Index) else (index,)
        if len(items) > rank:
            return None
        for item in items:
            if isinstance(item, ir.Slice):
                continue
            if not self._is_int(item):
                return None
            rank -= 1
        return rank

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


def _keyed(an, obj, index):
    """``d["s"]`` of a dict whose items are certainly all numbers or all arrays (a string key
    is never a slice object; :func:`.elems.certain`)."""
    return isinstance(index, ir.Const) and type(index.value) is str and lists.certain(
        an, obj.name) is not None


def _items_of(an, obj):
    """The item kinds of ``obj``: an argument's (``an.items``), or an argument's item's
    (``an.inner``), or None."""
    if not isinstance(obj, ir.Var):
        return None
    return an.items.get(obj.name) or an.inner.get(obj.name)


def inner_read(an, target, value, kind):
    """``target = obj[k]`` (a constant ``k``, ``kind`` SEQ) of an argument or an item of one
    whose item ``k`` is a container: its items' kinds are ``target``'s (``an.inner``; the
    argument's structure is in the cache key and writes into its parts are refused)."""
    if kind == SEQ and isinstance(value, ir.Prim) and value.fn is operator.getitem and len(
            value.args) == 2 and isinstance(value.args[1], ir.Const) and not value.kwargs:
        found = inner_items(_items_of(an, value.args[0]), value.args[1].value)
        if found is not None:
            an.inner[target] = found


def _shape_length(an, shape):
    """The number of axes a shape argument gives: one for a number (an int), a tuple's
    length (a constant's, or one built of known items); None otherwise."""
    if isinstance(shape, ir.Const):
        if type(shape.value) is int:
            return 1
        return len(shape.value) if isinstance(shape.value, tuple) else None
    if isinstance(shape, ir.Var) and an.kinds.get(shape.name) == SCALAR:
        return 1  # (an int, or no array: np.zeros(2.5) raises; ``n = x.shape[0]`` too)
    items = an.tuple_items.get(shape.name) if isinstance(shape, ir.Var) and an.kinds.get(
        shape.name) == SEQ else None
    return len(items) if items else None


def _made_rank(an, fn, args):
    """The rank of a new array whose axes its call spells (``np.zeros((n, m))``,
    ``x.reshape(2, 2)``, ``np.outer(a, b)``, ``np.eye(n)``), or None: ``M[0, 0]`` of it is
    then known to be a number, not a view (:func:`srcad.analysis.memory._element`)."""
    if not args:
        return None
    if fn in (np.zeros, np.ones, np.empty, np.full):
        return _shape_length(an, args[0])
    if fn in (np.outer, np.eye, np.identity):
        return 2
    if fn is np.arange:
        return 1
    if fn is np.linspace:  # of arrays: an axis more than theirs (the samples first)
        ranks = [0 if isinstance(a, ir.Const) and np.ndim(a.value) == 0 or isinstance(
            a, ir.Var) and an.kinds.get(a.name) == SCALAR else an.rank(a) for a in args[:2]]
        return None if None in ranks else 1 + max(ranks)
    if fn is np.diag and len(args) == 1:
        return {1: 2, 2: 1}.get(an.rank(args[0]))
    if fn is np.reshape and len(args) == 2 or fn == ir.Method("reshape") and len(args) == 2:
        return _shape_length(an, args[1])
    if fn == ir.Method("reshape") and len(args) > 2:
        return len(args) - 1
    return None


def _product_kind(an, fn, prim):
    """``np.dot(a, b)``, ``a @ b`` (``a.dot(b)``) of arrays of known ranks: the inner product
    of two vectors is a number, a matrix times a vector or a matrix an array; else None."""
    if fn not in _PRODUCTS or len(prim.args) != 2 or prim.kwargs:
        return None
    ranks = (an.rank(prim.args[0]), an.rank(prim.args[1]))
    if ranks == (1, 1):
        return SCALAR
    if fn in (np.dot, np.matmul, operator.matmul) and ranks in _MATMUL_RANK:
        return ARRAY
    return None


def _einsum_output(prim):
    """The output subscripts of ``np.einsum("...->out", ...)`` written out (a string constant
    with ``->``, no ellipsis, no keywords), else None."""
    if prim.fn is not np.einsum or prim.kwargs or not prim.args:
        return None
    spec = prim.args[0]
    if not (isinstance(spec, ir.Const) and isinstance(spec.value, str)) or (
            spec.value.count("->") != 1 or "." in spec.value):
        return None
    out = spec.value.split("->")[1].strip()
    return out if out.isalpha() or not out else None


def _rank(an, atom):
    """The rank of a variable (:meth:`ValueKinds.rank`) or of a constant array."""
    return an.rank(atom) if isinstance(atom, ir.Var) else atom.value.ndim
