"""Batched forward mode: every tangent carries a leading axis of ``k`` directions, so one pass
computes ``k`` Jacobian-vector products (a Jacobian in one pass, as ``jax.vmap(jvp)`` does):
the primal is computed once and the tangent arithmetic is vectorised.

A value of shape ``S`` has a tangent of shape ``(k,) + S``; a number's is ``(k,)``. Each
operation's batched form is in :data:`BATCHED`, next to the forward rules of
:mod:`srcad.transform.forward` (the per-direction forms), and uses what the code is
specialised on, the ranks of the values:

* an element-wise rule's template is used when the tangent enters it as a factor
  (``g * cos(x)``, ``g / b``, ``-g``, ``where(c, g, 0.0)``: checked on the template), with a
  lower-rank operand's tangent padded after the batch axis (``dx[:, None] * y`` for a vector
  ``x`` times a matrix ``y``: without the padding the batch axis would meet a data axis);
* indexing prepends ``:`` (``dx[:, i]``), reductions, transposes and joins shift their axes,
  ``@`` picks its form by the operands' ranks, ``einsum`` gets a batch letter, reshapes
  reshape to ``(k,) + y.shape``, a literal ``np.array`` of numbers is filled in place;
* loops, branches, lists and calls of user functions carry tangents as the per-direction
  code does (a callee's batched code is made the same way).

Anything else raises :class:`NotBatched` while the code is made: the caller (``jacfwd``) then
takes the Jacobian a column at a time (never a guess).

Imports ``srcad.analysis``, ``srcad.core``, ``srcad.rules``, ``srcad.transform``.
"""

from __future__ import annotations

import ast
import copy
import operator

import numpy as np

from ..analysis.user_calls import user_callee
from ..core import ir
from ..core.kinds import ARRAY, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..rules import registry
from . import nodes, templates
from .batched_einsum import Contractions
from .batched_ranks import NotBatched, Ranks, hashable
from .forward import Forward, _rule_names, _summed, forward_kind
from .nodes import assign, name

#: how each operation is batched (the method of :class:`BatchedForward` named): the functions
#: below, and every element-wise rule whose template takes the tangent as a factor
BATCHED = {
    operator.getitem: "item",
    operator.neg: "same", operator.pos: "same", np.copy: "same", np.negative: "same",
    np.sum: "reduce", np.mean: "reduce", sum: "total",
    np.reshape: "reshape", np.ravel: "reshape", np.ndarray.reshape: "reshape",
    np.ndarray.flatten: "reshape", np.squeeze: "reshape", np.expand_dims: "reshape",
    np.atleast_1d: "reshape", np.atleast_2d: "reshape",
    np.transpose: "transpose", np.ndarray.transpose: "transpose", np.swapaxes: "swapaxes",
    operator.matmul: "matmul", np.matmul: "matmul", np.dot: "matmul",
    np.stack: "join", np.concatenate: "join",
    np.array: "array", np.asarray: "array",
    np.einsum: "einsum",
}


#: {parameter: the ranks of its tuple's items} for the next outermost code made (its maker
#: sets it; the code's first sweep takes it)
ITEM_RANKS = []
_MADE = [0, None]  # how many batched codes were made, the last one's result rank
RESULT_RANKS = {}  # id of a callee's cell -> (the cell, its result's rank)


def _batch_slice(*rest):
    return ast.Tuple(elts=[ast.Slice(), *rest], ctx=nodes.LOAD)


def _padded(tangent, pad):
    """``t[:, None, ...]``: ``pad`` axes of length one after the batch axis."""
    if not pad:
        return tangent
    return ast.Subscript(value=tangent, slice=_batch_slice(
        *[nodes.constant(None) for _ in range(pad)]), ctx=nodes.LOAD)


def _shift(axis):
    """An axis of a value as the axis of its tangent (negative axes count from the end)."""
    if type(axis) is not int:
        raise NotBatched("an axis that is not a literal")
    return axis + 1 if axis >= 0 else axis


def _has_g(node):
    return any(isinstance(n, ast.Name) and n.id in ("g", "t") for n in walk_nodes(node))


def _factor_form(template):
    """The template, where it is linear in ``g`` through factors only (``g * cos(x)``,
    ``g / b``, ``-g``, ``where(c, g, 0.0)``, ``g if b > a else 0.0``): batched tangents
    broadcast there. A conditional's zero arm becomes ``0.0 * g`` (a zero of the tangent's
    shape, not a number). None for any other template."""
    def linear(node):  # node contains g, and only as a factor
        if isinstance(node, ast.Name):
            return node.id in ("g", "t")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return linear(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = _has_g(node.left), _has_g(node.right)
            return left != right and linear(node.left if left else node.right)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return not _has_g(node.right) and linear(node.left)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "where") and len(node.args) == 3 and not node.keywords:
            test, *arms = node.args
            return not _has_g(test) and any(map(_has_g, arms)) and all(
                linear(arm) if _has_g(arm) else _zero(arm) for arm in arms)
        if isinstance(node, ast.IfExp) and not _has_g(node.test):
            for side in ("body", "orelse"):
                arm = getattr(node, side)
                if not _has_g(arm):
                    if not _zero(arm):
                        return False
                    setattr(node, side, ast.BinOp(left=arm, op=ast.Mult(),
                                                  right=ast.Name(id="g", ctx=ast.Load())))
                elif not linear(arm):
                    return False
            return True
        return False

    tree = copy.deepcopy(template)
    return tree if _has_g(tree) and linear(tree) else None


def _zero(node):
    return isinstance(node, ast.Constant) and node.value == 0 and type(node.value) in (
        int, float)


class Forms:
    """The batched forms of :data:`BATCHED` (a mixin of :class:`BatchedForward`): each
    gives the tangent of ``stmt``'s target from its operands'."""

    def tan(self, atom):
        return self.tangent_or_zero(atom)

    def same(self, stmt, fn, args, kwargs):
        if len(args) != 1:
            self.refuse(stmt, f"{fn.__name__} with these arguments")
        self.rank(args[0])  # an array or a number: its tangent is one array
        tangent = self.tan(args[0])
        return ast.UnaryOp(op=ast.USub(), operand=tangent) if fn in (
            operator.neg, np.negative) else tangent

    def item(self, stmt, fn, args, kwargs):
        obj, index = args
        if self.an.kind(obj) == SEQ:  # a list's item: its own tangent
            return nodes.subscript(self.tan(obj), nodes.expr(index))
        if not self.rank_or_none(obj):
            self.refuse(stmt, "indexing a value of this kind")
        parts = self.index_parts(stmt, index)
        return ast.Subscript(value=self.tan(obj), slice=_batch_slice(*parts), ctx=nodes.LOAD)

    def index_parts(self, stmt, index):
        """The parts of an index, after which the tangent's ``:`` goes; refused where NumPy
        would move the indexed axes to the front (advanced indices apart)."""
        items = index.items if isinstance(index, ir.Index) else (index,)
        parts, kinds = [], []
        for item in items:
            if isinstance(item, ir.Slice) or (isinstance(item, ir.Const) and (
                    item.value is None or item.value is Ellipsis)):
                kinds.append("basic")
            elif isinstance(item, ir.Const) and type(item.value) is int:
                kinds.append("int")
            elif isinstance(item, ir.Var) and self.an.kind(item) == SCALAR and (
                    item.name not in self.an.bools):  # (x[True] makes an axis)
                kinds.append("int")
            elif isinstance(item, ir.Var) and self.an.kind(item) == ARRAY:
                kinds.append("array")
            else:
                self.refuse(stmt, "an index of this kind")
            parts.append(nodes.expr(item))
        if "array" in kinds:
            advanced = [i for i, k in enumerate(kinds) if k != "basic"]
            if advanced != list(range(advanced[0], advanced[-1] + 1)):
                self.refuse(stmt, "advanced indices apart")
        return parts

    def total(self, stmt, fn, args, kwargs):
        """Python's ``sum`` of a list made here of values of the result's rank."""
        items = self.list_items(args[0]) if len(args) == 1 and isinstance(
            args[0], ir.Var) and self.an.kind(args[0]) == SEQ else None
        out = self.rank_or_none(ir.Var(stmt.target))
        if not items or out is None or any(self.rank_or_none(a) != out for a in items):
            self.refuse(stmt, "sum of these values")
        return nodes.call(name("sum"), self.tan(args[0]))

    def reduce(self, stmt, fn, args, kwargs):
        keep = kwargs.get("keepdims", ir.Const(False))
        if len(args) > 2 or set(kwargs) - {"axis", "keepdims"} or not (
                isinstance(keep, ir.Const) and type(keep.value) is bool):
            self.refuse(stmt, f"{fn.__name__} with these arguments")
        x = args[0]
        rank = self.rank(x)  # an array or a number (np.sum of a list: refused)
        axis = self.literal(args[1] if len(args) > 1 else kwargs.get("axis", ir.Const(None)))
        if not isinstance(axis, ir.Const):
            self.refuse(stmt, f"{fn.__name__} over an axis that is not a literal")
        axis = axis.value
        fused = self.fused_sum(x, axis) if fn is np.sum and not keep.value else None
        if fused is None and fn is np.sum and not keep.value and rank == 1 and axis in (
                None, 0, -1) and self.whole_dots:
            fused = self.dotted_sum(x)
        if fused is not None:
            return fused
        more = {"keepdims": nodes.constant(True)} if keep.value else {}
        if axis is None:
            if rank == 0:
                return self.tan(x)
            shifted = tuple(range(1, rank + 1))
        elif isinstance(axis, tuple):
            shifted = tuple(_shift(a) for a in axis)
        else:
            shifted = _shift(axis)
        callees = self.an.callees
        if fn is np.sum and not more and not getattr(callees, "compiles_all", False) and not (
                getattr(callees, "standard", False)):  # NumPy's reduction without its layer
            return nodes.call(self.helper("tangent_sum"), self.tan(x), nodes.constant(shifted))
        return nodes.call(self.np_(fn.__name__), self.tan(x), axis=nodes.constant(shifted),
                          **more)

    def literal(self, atom):
        """A tuple of literals built here (``axis=(0, 2)``) as one constant; else ``atom``."""
        made = self.defs.get(atom.name) if isinstance(atom, ir.Var) else None
        if isinstance(made, ir.Prim) and made.fn is ir.BUILD_TUPLE and all(
                isinstance(a, ir.Const) for a in made.args):
            return ir.Const(tuple(a.value for a in made.args))
        return atom

    def reshape(self, stmt, fn, args, kwargs):
        if any(isinstance(a, ir.Const) and isinstance(a.value, str) for a in args):
            self.refuse(stmt, f"{fn.__name__} in an order of its own")
        if self.an.kind(ir.Var(stmt.target)) != ARRAY or self.rank_or_none(args[0]) is None:
            self.refuse(stmt, "a reshape to a number, or of a list")
        return self.expr("t.reshape((k,) + y.shape)", t=self.tan(args[0]), y=stmt.target)

    def transpose(self, stmt, fn, args, kwargs):
        rank = self.rank(args[0])
        if len(args) == 1:
            axes = tuple(range(rank, 0, -1))
        else:
            given = [self.literal(a) for a in args[1:]]
            if len(given) == 1 and isinstance(given[0], ir.Const) and isinstance(
                    given[0].value, tuple):
                given = [ir.Const(a) for a in given[0].value]
            if not all(isinstance(a, ir.Const) for a in given):
                self.refuse(stmt, "a transpose by axes that are not literals")
            axes = tuple(a.value % rank + 1 for a in given)
        if rank < 2:
            return self.tan(args[0])
        return nodes.method(self.tan(args[0]), "transpose", nodes.constant((0,) + axes))

    def swapaxes(self, stmt, fn, args, kwargs):
        if len(args) != 3 or not all(isinstance(a, ir.Const) for a in args[1:]) or (
                self.rank(args[0]) < 2):
            self.refuse(stmt, "swapaxes by axes that are not literals")
        return nodes.call(self.np_("swapaxes"), self.tan(args[0]),
                          nodes.constant(_shift(args[1].value)),
                          nodes.constant(_shift(args[2].value)))

    def matmul(self, stmt, fn, args, kwargs):
        a, b = args
        ra, rb = self.rank(a), self.rank(b)
        if ra == 0 or rb == 0 or (fn is np.dot and (ra > 2 or rb > 2)):
            self.refuse(stmt, f"{getattr(fn, '__name__', '@')} of these ranks")
        terms = []
        # stacks of matrices: the batch axis before the stack axes of the other operand's
        pad_a, pad_b = (max(0, rb - ra), max(0, ra - rb)) if min(ra, rb) >= 2 else (0, 0)
        if self.varied(a) if isinstance(a, ir.Var) else False:
            if ra == 1 and rb > 2:
                self.refuse(stmt, "a vector @ a stack of matrices")
            terms.append(self.expr("da @ b", da=_padded(self.tan(a), pad_a), b=nodes.expr(b)))
        if self.varied(b) if isinstance(b, ir.Var) else False:
            if rb >= 2:
                terms.append(self.expr("a @ db", a=nodes.expr(a), db=_padded(self.tan(b), pad_b)))
            elif ra == 1:
                terms.append(self.expr("db @ a", a=nodes.expr(a), db=self.tan(b)))
            elif ra == 2:
                terms.append(self.expr("db @ a.T", a=nodes.expr(a), db=self.tan(b)))
            else:
                self.refuse(stmt, "a stack of matrices @ a vector")
        total = terms[0]
        for term in terms[1:]:
            total = nodes.plus(total, term)
        return total

    def join(self, stmt, fn, args, kwargs):
        if len(args) > 2 or set(kwargs) - {"axis"}:
            self.refuse(stmt, f"{fn.__name__} with these arguments")
        parts = args[0]
        if not isinstance(parts, ir.Var) or self.an.kind(parts) != SEQ:
            self.refuse(stmt, f"{fn.__name__} of an array")
        items = self.list_items(parts)  # each an array or a number, made here
        if items is None or None in map(self.rank_or_none, items):
            self.refuse(stmt, f"{fn.__name__} of a list made elsewhere or of lists")
        axis = args[1] if len(args) > 1 else kwargs.get("axis", ir.Const(0))
        if not isinstance(axis, ir.Const) or type(axis.value) is not int:
            self.refuse(stmt, f"{fn.__name__} along an axis that is not a literal")
        return nodes.call(self.np_(fn.__name__), self.tan(parts),
                          axis=nodes.constant(_shift(axis.value)))

    def array(self, stmt, fn, args, kwargs):
        if len(args) != 1:
            self.refuse(stmt, f"{fn.__name__} with these arguments")
        x = args[0]
        if self.an.kind(x) == ARRAY:
            return self.tan(x)
        leaves = self.literal_leaves(x, ())
        if leaves is None:
            self.refuse(stmt, f"{fn.__name__} of a list that is not a literal of numbers")
        # a literal of numbers: zeros, then the tangents of the numbers that carry one
        self.filled = [(position, atom) for position, atom in leaves
                       if isinstance(atom, ir.Var) and self.varied(atom)]
        return self.expr("np.zeros((k,) + y.shape)", y=stmt.target)

    def einsum(self, stmt, fn, args, kwargs):
        spec = args[0]
        if not isinstance(spec, ir.Const) or not isinstance(spec.value, str) or (
                "->" not in spec.value or "." in spec.value):
            self.refuse(stmt, "einsum without an explicit output or with '...'")
        ins, out = spec.value.replace(" ", "").split("->")
        ins = ins.split(",")
        letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                      if c not in spec.value)
        terms = []
        for i, a in enumerate(args[1:]):
            if not (isinstance(a, ir.Var) and self.varied(a)):
                continue
            if self.rank(a) != len(ins[i]):  # an array of the subscripts' rank (not a list)
                self.refuse(stmt, "einsum of an operand of another rank")
            batched = ",".join(letter + s if j == i else s for j, s in enumerate(ins))
            operands = [self.tan(b) if j == i else nodes.expr(b)
                        for j, b in enumerate(args[1:])]
            terms.append(nodes.call(self.np_("einsum"),
                                    nodes.constant(f"{batched}->{letter}{out}"), *operands))
            self.fused = (batched.split(","), letter + out, operands)
        if len(terms) > 1:
            self.fused = None
        total = terms[0]
        for term in terms[1:]:
            total = nodes.plus(total, term)
        return total


class BatchedForward(Forms, Contractions, Ranks, Forward):
    """:class:`Forward` with tangents of ``k`` directions (see the module's docstring)."""

    whole_sums = False  # (the tangent of np.sum(a) is BATCHED's reduce, not tangent_sum)
    tangents_in_place = False  # (k directions' tangents: copied at each write)

    def __init__(self, fn, analysis, namer, helper_names):
        super().__init__(fn, analysis, namer, helper_names)
        self.k = namer.fresh("k")
        self.defs = {s.target: s.value for s in ir.walk(fn.body)
                     if isinstance(s, ir.Assign) and s.target}
        self.phis = {}  # name -> the sources of the phi defining it
        for s in ir.walk(fn.body):
            for p in getattr(s, "phis", ()):
                self.phis[p.target] = [a for a in p.sources if a is not None]
        self.ranks = {}  # name -> rank, as worked out here (see :meth:`rank`)
        # the ranks of the arrays in the tuples passed to the outermost code (by parameter)
        self.items, ITEM_RANKS[:] = (ITEM_RANKS[0] if ITEM_RANKS else {}), []
        self.working = set()
        self.assumed = []  # (atoms, the rank taken for all of them): checked at the end
        self.einsums = {}  # tangents that are one einsum (srcad.transform.batched_einsum)
        self.products = {}  # products of vectors read once (batched_einsum.record_product)
        callees = analysis.callees  # (Numba's code and the standard's: np.sum as it is)
        self.whole_dots = not getattr(callees, "compiles_all", False) and not getattr(
            callees, "standard", False)
        self.fused = None
        self.uses = {}  # name -> how many places read it (a literal used once is inlined)
        for s in ir.walk(fn.body):
            read = list(ir.reads_of(s)) + [a for p in getattr(s, "phis", ()) for src in
                                           p.sources for a in ir.atoms_in(src)]
            read += list(ir.atoms_in(getattr(s, "exit", None)))
            for atom in read:
                self.uses[atom.name] = self.uses.get(atom.name, 0) + 1
        self.consumer = {a.name: s for s in ir.walk(fn.body) if isinstance(s, ir.Assign)
                         and isinstance(s.value, ir.Prim) for a in s.value.args
                         if isinstance(a, ir.Var)}

    def refuse(self, stmt, what):
        raise NotBatched(f"no batched forward form for {what}", lineno=getattr(stmt, "line", None))

    def np_(self, attribute):
        return nodes.attr(self.helper("np"), attribute)

    def expr(self, text, **names):
        """An expression from text, its names replaced by ``names``' trees (or names)."""
        tree = ast.parse(text, mode="eval").body
        subs = {k: (name(v) if isinstance(v, str) else v) for k, v in names.items()}
        subs.setdefault("np", self.helper("np"))
        subs.setdefault("k", name(self.k))

        class Sub(ast.NodeTransformer):
            def visit_Name(self, node):
                return nodes.copy_tree(subs[node.id]) if node.id in subs else node
        return ast.fix_missing_locations(Sub().visit(tree))
    def zero(self, name_):
        kind = self.an.kinds.get(name_)
        if kind == SCALAR or (kind != SEQ and self.rank_or_none(ir.Var(name_)) == 0):
            return self.expr("np.zeros(k)")
        if kind == ARRAY or self.rank_or_none(ir.Var(name_)):
            return self.expr("np.zeros((k,) + x.shape)", x=name_)
        raise NotBatched(f"a zero tangent of a container ({name_})")

    def entry_zero(self, target, entry):
        """The tangent of a constant entering a loop: ``None`` for ``None`` (a return value
        before a loop returning from inside: read only once it holds a value), else zero."""
        return nodes.constant(None) if isinstance(entry, ir.Const) and entry.value is None \
            else self.zero(target)

    def tangent_or_zero(self, atom):
        if isinstance(atom, ir.Var):
            tangent = self.tangent_of(atom)
            return name(tangent) if tangent else self.zero(atom.name)
        if isinstance(atom, ir.Const) and isinstance(atom.value, (int, float)) and not (
                isinstance(atom.value, bool)):
            return self.expr("np.zeros(k)")
        if isinstance(atom, ir.Const) and isinstance(atom.value, np.ndarray):
            return self.expr("np.zeros((k,) + x.shape)", x=nodes.expr(atom))
        raise NotBatched("a zero tangent of a constant of another kind")

    # ---------------------------------------------------------------- statements

    def run(self):
        code, result, tangent = super().run()
        for atoms, rank in self.assumed:  # ranks taken while a loop's were worked out
            if rank is not None and any(self.rank_or_none(a) != rank for a in atoms):
                raise NotBatched("values of more than one rank in one place")
        _MADE[:] = [_MADE[0] + 1, self.rank_or_none(result)]
        first = self.t(sorted(self.an.wrt)[0])
        code.insert(0, assign(self.k, self.expr("t.shape[0]", t=first)))
        if isinstance(result, ir.Var) and self.an.kind(result) not in (SCALAR, ARRAY):
            rank = self.rank_or_none(result)
            if rank is None:
                raise NotBatched("a result that is not a number or an array")
            # an array (or a number) by its rank: the maker returns its tangent as it is
            self.an.kinds[result.name] = ARRAY if rank else SCALAR
        return code, result, tangent

    def block(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, ir.SetItem) and self.varied(ir.Var(stmt.target)):
                self.refuse(stmt, "an item write")
        return super().block(stmts)

    def assign(self, stmt, code):
        value = stmt.value
        target = stmt.target
        if target is None or not isinstance(value, ir.Prim) or not self.varied(ir.Var(target)):
            return super().assign(stmt, code)
        fn = value.fn
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            if self.in_literal(target):  # np.array's form reads the numbers in it
                code.append(nodes.statement(stmt))
                return None
            return super().assign(stmt, code)
        if isinstance(fn, ir.Method) and fn.name == "pop" and not value.args[1:]:
            return super().assign(stmt, code)
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        if self.an.piecewise_constant(fn, value):
            return super().assign(stmt, code)
        if value.kwargs and fn not in (np.sum, np.mean, np.stack, np.concatenate):  # (checked)
            self.refuse(stmt, "a call with keyword arguments")
        if self.an.is_complex(ir.Var(target)) or self.an.any_complex(value):
            self.refuse(stmt, "complex values")
        form = BATCHED.get(fn) if hashable(fn) else None
        if form is not None:
            self.filled, self.fused = [], None
            tangent = getattr(self, form)(stmt, fn, list(value.args), dict(value.kwargs))
            code.append(_summed(self, stmt))  # (np.sum(a) of a NumPy array: a.sum())
            code.append(assign(self.t(target), tangent))
            if self.fused is not None:  # an einsum: kept to fold what follows into it
                self.einsums[target] = (*self.fused, (code, code[-1]))
            for position, atom in self.filled:  # np.array of numbers: their tangents placed
                code.append(assign(ast.Subscript(
                    value=name(self.t(target)),
                    slice=_batch_slice(*map(nodes.constant, position)), ctx=nodes.LOAD),
                    name(self.t(atom.name))))
            return None
        rule, bound = registry.find(fn, list(value.args), dict(value.kwargs))
        if rule is None:
            if user_callee(fn):
                return self.user_call(stmt, code)
            self.refuse(stmt, getattr(fn, "__name__", repr(fn)))
        rule = self.an.rule_form(rule, value)
        if forward_kind(rule, fn) != "elementwise":
            self.refuse(stmt, getattr(fn, "__name__", repr(fn)))
        return self.elementwise(stmt, rule, bound, code)

    def user_call(self, stmt, code):
        """As per direction; the callee's batched code says its result's rank."""
        done = _MADE[0]
        for a in stmt.value.args:  # the callee is made for the ranks worked out here
            if isinstance(a, ir.Var) and self.an.kind(a) == ARRAY and self.rank_or_none(a):
                self.an.ranks[a.name] = self.rank_or_none(a)
        super().user_call(stmt, code)
        cell = self.cells[code[-1].value.func.id]
        if _MADE[0] > done:  # made now: the last one finished is the callee's own
            RESULT_RANKS[id(cell)] = (cell, _MADE[1])
        known = RESULT_RANKS.get(id(cell))
        if known is not None and known[1] is not None:
            self.ranks[stmt.target] = known[1]

    def elementwise(self, stmt, rule, bound, code):
        """Each varied argument's template, its tangent padded to the result's rank."""
        target = stmt.target
        value = stmt.value
        scalar = all(self.an.kind(a) == SCALAR for a in value.args
                     if isinstance(a, (ir.Var, ir.Const)))
        out = self.rank(ir.Var(target))
        self.fused = None
        fused = self.fused_product(stmt, rule.fn, bound)
        if fused is not None:
            code.append(nodes.statement(stmt))
            code.append(assign(self.t(target), fused))
            self.einsums[target] = (*self.fused, (code, code[-1]))
            return
        terms, shaped = [], set()
        for param, atom in bound.items():
            if not (isinstance(atom, ir.Var) and self.varied(atom)):
                continue
            template = rule.templates.get(param)
            template = template and _factor_form(template)
            if template is None:
                self.refuse(stmt, f"the element-wise rule of {rule.name} (its argument {param})")
            tangent = _padded(name(self.t(atom.name)), out - self.rank(atom))
            names = _rule_names(self, rule, bound)
            names.update(g=tangent, t=tangent, ans=name(target))
            tree = templates.instantiate(template, names, scalar, self.helper_names, rule)
            self.note_helpers(tree)
            terms.append(tree)
            read = {n.id for n in walk_nodes(template) if isinstance(n, ast.Name)}
            shaped |= set(bound) if "ans" in read else read | {param}
        total = terms[0]
        for term in terms[1:]:
            total = nodes.plus(total, term)
        if out and any(p not in shaped and self.an.kind(a) != SCALAR for p, a in bound.items()
                       if isinstance(a, (ir.Var, ir.Const))):
            # ``x + c`` with a number x: the tangent broadcast to the result's shape; the
            # tangent of one array ``x`` of the result's rank is whole where ``x`` has the
            # result's shape (``x - c`` for a constant c no larger): tested, not broadcast
            varied = [a for a in bound.values() if isinstance(a, ir.Var) and self.varied(a)]
            if isinstance(total, ast.Name) and len(varied) == 1 and self.an.kind(
                    varied[0]) == ARRAY and self.rank_or_none(varied[0]) == out:
                total = self.expr("t if x.shape == y.shape else np.broadcast_to(t, (k,) + "
                                  "y.shape)", t=total, x=varied[0].name, y=target)
            else:
                total = self.expr("np.broadcast_to(t, (k,) + y.shape)", t=total, y=target)
        code.append(nodes.statement(stmt))
        code.append(assign(self.t(target), total))
        if isinstance(total, ast.BinOp):  # (not broadcast: kept for a whole sum of it)
            self.record_product(stmt, rule.fn, bound, code)

    # ---------------------------------------------------------------- linear forms
