"""Reverse mode, assignments: ``y = f(a, b)`` differentiated through the rule registry (each
active operand gets its rule's template, instantiated as a tree), with the cases before it:
effects (``xs.append(v)``), copies, containers built, subscripts, list arithmetic, calls of
user functions and of derivatives srcad made.

A piece of :class:`srcad.transform.reverse.Reverse` (it uses the names and accumulation
that class defines). Imports: ``srcad.core``, ``srcad.analysis``, the rules registry,
:mod:`.nodes`, :mod:`.sweep`, :mod:`.templates`, :mod:`.loop_sums`, :mod:`.operand_sizes`.
"""

from __future__ import annotations

import ast
import operator
import types

import numpy as np

from ..analysis import soundness
from ..analysis.user_calls import user_callee
from ..core import functions, ir
from ..core.kinds import ANY, ARRAY, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..rules import registry
from . import exp_quotients, loop_sums, nodes, operand_sizes, templates
from .nodes import call, method, name
from .sweep import bound_expr

#: arithmetic whose result is an array when an operand is one
_ARITH_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


class Rules:
    """Assignments (see the module docstring)."""

    def assign(self, stmt, code, frame):
        value = stmt.value
        if stmt.target is None:
            if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name == "append"
            ):
                self.append(stmt, code, frame)
            elif isinstance(value, ir.Prim) and value.fn == ir.Method("pop") and len(
                value.args
            ) == 1 and self.an.active(value.args[0]):
                # xs.pop() for its effect (srcad's own code does this): the item's gradient
                # is zero, and the gradient list grows back by one
                self.comment(stmt, code)
                self.ensure_live(value.args[0].name, code, frame)
                code.append(nodes.expr_stmt(method(self.g(value.args[0].name), "append",
                                                   nodes.constant(0.0))))
            elif isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.args and self.an.active(value.args[0])
                and self.an.kind(value.args[0]) in (SEQ, ANY)
            ):
                raise self.unsupported(stmt, f".{value.fn.name}() changing a list that "
                                       "carries gradients", "build a new list (ys = ys + [v], "
                                       "a comprehension) or use append")
            return
        if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
            value.fn.name == "pop" and not value.args[1:]
        ):
            self.pop(stmt, code, frame)
            return
        if not self.an.active(ir.Var(stmt.target)) or self.g(stmt.target) not in self.live:
            return
        gname = self.g(stmt.target)
        self.comment(stmt, code)
        if not isinstance(value, ir.Prim):
            if gname in self.uniform and frame == self.top and isinstance(value, ir.Var) and (
                    self.same_shape(value.name, stmt.target)):
                self.accumulate(value, gname, code, frame, uniform=True)
            else:
                self.materialise(gname, code, frame)
                self.accumulate(value, gname, code, frame)
            return
        fn = value.fn
        if gname in self.uniform and not _elementwise_rule(value):
            self.materialise(gname, code, frame)  # only element-wise rules read it as a number
        if exp_quotients.differentiate(self, stmt, gname, code, frame):
            return  # a / (c + exp(u)) as one operation
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            pieces = self.display_pieces.pop(gname, None)  # its items' gradients (.joins)
            for i, a in enumerate(value.args):
                item = pieces[i] if pieces else nodes.subscript(gname, nodes.constant(i))
                if stmt.target in self.an.complex and not self.an.is_complex(a):
                    item = self.real_of(a, item)  # as in apply_rule
                self.accumulate(a, item, code, frame)
            return
        if fn is ir.BUILD_DICT:  # the keys have no derivative
            for k, a in zip(value.args[::2], value.args[1::2]):
                self.accumulate(a, nodes.subscript(gname, nodes.expr(k)), code, frame)
            return
        if fn is operator.getitem:
            self.getitem(stmt, gname, code, frame)
            return
        if fn in (operator.add, operator.mul) and self.an.kinds.get(stmt.target) == SEQ:
            self.list_arithmetic(stmt, gname, code, frame)
            return
        if isinstance(fn, ir.BoolOp):
            return
        args, kwargs = list(value.args), dict(value.kwargs)
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        elif fn is np.copy and args and self.an.kind(args[0]) in (SEQ, ANY):
            fn = np.array  # np.copy(xs) of a list is np.array(xs): its gradient a list too
        rule, bound = registry.find(fn, args, kwargs)
        if rule is None:
            if registry.is_nondiff(fn):
                return
            if user_callee(fn):
                self.user_call(stmt, gname, code, frame)
                return
            if functions.is_derivative(fn):
                self.derivative_call(stmt, gname, code, frame)
                return
            if functions.splits_again(fn):
                self.derivative_part_call(stmt, gname, code, frame)
                return
            raise self.missing_rule(stmt, value)
        self.apply_rule(stmt, self.an.rule_form(rule, value), bound, gname, code, frame)

    def apply_rule(self, stmt, rule, bound, gname, code, frame):
        """Each active operand's contribution, its rule's template instantiated."""
        if rule.pieces is not None and self.joined_pieces(stmt, rule, bound, gname, code,
                                                          frame):
            return  # before the layout of a shape-only argument is asked for
        value = stmt.value
        scalar = all(self.an.kind(a) == SCALAR for a in value.args if isinstance(
            a, (ir.Var, ir.Const)))
        names = {p: bound_expr(a) for p, a in bound.items()}
        for p, a in bound.items():  # a bool in arithmetic: float(t), so 1.0 * t stays a float
            if isinstance(a, ir.Var) and a.name in self.an.bools and self.an.kind(a) == SCALAR:
                names[p] = call("float", a.name)
        names["g"] = name(gname)
        names["ans"] = name(stmt.target)
        for p in rule.shape_only:  # read for its shape: the earliest array of that shape
            atom = bound.get(p)
            if isinstance(atom, ir.Var) and atom.name in self.alike:
                names[p] = name(self.alike[atom.name])
            elif isinstance(atom, ir.Var) and self.keeps_layout(atom.name):
                names[p] = name(self.layout_name(atom.name))
        for p, atom in bound.items():  # a list changed in place after: what it was here
            if isinstance(atom, ir.Var) and atom.name in self.kept_here(stmt):
                names[p] = self.kept_read(stmt, atom.name)
        for free, obj in rule.namespace.items():  # a user rule's own helpers
            spelled = self.bind_cell(free, types.CellType(obj))  # bound even if unread
            names.setdefault(free, name(spelled))
        if self.uniform_reduction(rule, bound, names, code, frame):
            return

        # plain pass-throughs (a template that is just ``g``) last: a gradient that only
        # flows through is then a copy that tidy can fold away
        def last(item):
            atom = bound.get(item[0])
            named = isinstance(atom, ir.Var) and atom.name not in self.namer.temps
            return nodes.is_name(item[1], "g"), named

        by_rank = rule.ranks.get(tuple(self.an.rank(bound.get(p)) for p in rule.params)) \
            if rule.ranks else None
        chosen = by_rank or rule.templates
        for param, by_param in rule.literal.items():  # ``1.0 / t``: templates not reading t
            if _nonzero_number(bound.get(param)):
                chosen = {**chosen, **by_param}
        order = sorted(chosen.items(), key=last)
        for param, template in order:
            atom = bound.get(param)
            if not isinstance(atom, ir.Var) or not self.an.active(atom):
                continue
            tree = templates.instantiate(template, names, scalar, self.helper_names, rule)
            uniform = False
            if gname in self.uniform and not self.reads_whole(tree, stmt.target):
                # g * 2.0, -g: still one number per element, if the operand is result-shaped
                uniform = self.same_shape(atom.name, stmt.target) and frame == self.top
                if not uniform and loop_sums.guarded(self, stmt, rule, template, names, scalar,
                                                     atom, bound, gname, code, frame):
                    continue  # the number where a shape guard holds: .loop_sums
                if not uniform:
                    self.materialise(gname, code, frame)
                    tree = templates.instantiate(template, names, scalar, self.helper_names,
                                                 rule)
            tree = self.reused(tree, frame)  # .reuse: values computed already; refs noted
            self.note_helpers(tree)
            tree = _fitted(self, rule, tree, atom, stmt, bound, frame, uniform)
            if not self.an.is_complex(atom) and (stmt.target in self.an.complex or (
                    rule.complex_ok and rule.complex_out == "never")):
                # a complex result of a real operand (or a rule that gives one a complex
                # gradient, np.fft.irfft): the operand's gradient is the real part of what
                # flows back (JAX's convention for real inputs)
                tree = self.real_of(atom, tree)
            self.accumulate(atom, tree, code, frame, uniform=uniform)

    def real_of(self, atom, tree):
        """The real part of the gradient ``tree`` flowing into the real ``atom``: ``np.real``
        for a number or an array, ``real_part`` (item by item) for a container."""
        if self.an.kind(atom) in (SCALAR, ARRAY):
            return call(nodes.attr(self.helper("np"), "real"), tree)
        return call(self.helper("real_part"), tree)

    def uniform_reduction(self, rule, bound, names, code, frame):
        """``s = np.sum(a)`` over every axis: ``a``'s gradient is ``ds`` itself, one number,
        until something needs the array (see :meth:`materialise`)."""
        atom = next((bound[p] for p in rule.templates if isinstance(bound.get(p), ir.Var)), None)
        if rule.uniform is None or atom is None or not self.an.active(atom) or (
                self.an.kinds.get(atom.name) != ARRAY) or any(
                not _is_none_or_false(v) for p, v in bound.items() if p not in rule.templates):
            return False  # not an active array; an axis, keepdims, dtype or out
        if frame != self.top:  # in a loop's body: .loop_sums
            return loop_sums.reduction(self, rule, bound, atom, names, code, frame)
        root = self.alike.get(atom.name, atom.name)
        tree = operand_sizes.uniform(self, rule, dict(names, a=name(root)), frame, atom.name)
        self.ref_names(tree, frame)
        self.note_helpers(tree)
        self.accumulate(atom, tree, code, frame, uniform=True)
        return True

    def unbroadcast(self, contribution, atom, target, bound, frame, value=None):
        out_kind = self.an.kinds.get(target, ANY)
        kind = self.an.kind(atom)
        if out_kind == SCALAR:
            return contribution
        if kind == SCALAR:
            numba = getattr(self.an.callees, "compiles_all", False)
            if self.certainly_array(contribution):  # not np.sum: its Python layer costs twice
                if numba:  # the sum (Numba: a method)
                    return call(nodes.attr(contribution, "sum"))
                return call(self.helper("total"), contribution)  # small arrays by Python
            if out_kind == ARRAY and not numba:
                # the gradient of an array: an array or one number standing for it (never a
                # list, which total would add item by item), which total sums as np.sum does
                return call(self.helper("total"), contribution)
            return call(nodes.attr(self.helper("np"), "sum"), contribution)
        others = [a for a in bound.values() if isinstance(a, (ir.Var, ir.Const)) and a != atom]
        if kind == ARRAY and all(self.an.kind(o) == SCALAR for o in others):
            return contribution
        if self.same_shape(atom.name, target):
            return contribution  # the operand has the result's shape: nothing to sum
        looped = atom.name in self.in_loop or self.carried_in(atom.name, frame)  # (.saves)
        if looped or _shape_kept(self, atom.name, kind):  # in a loop (total += row's total
            # too), a part (its context outlives it) or code only run: keep the shape
            shape = self.shape_name(atom.name)
            if not looped:  # the array itself, if kept anyway: see below
                self.part_shapes[shape] = atom.name
            self.ref(shape, frame)
            plain = call(self.helper("unbroadcast_to"), contribution, shape)
            return self.shape_guarded(plain, contribution, value, frame)  # see .guards
        self.ref(atom.name, frame)
        plain = call(self.helper("unbroadcast"), contribution, atom.name)
        return self.shape_guarded(plain, contribution, value, frame)  # see .guards

    def certainly_array(self, tree):
        """Whether ``tree`` is an array value of the user's function, or arithmetic with one
        as an operand (``g * proj``, ``-(g * t / s)``): an array, whatever ``g`` is (a
        number, a seed of 1.0)."""
        if isinstance(tree, ast.Name):
            return tree.id in self.primals and self.an.kinds.get(tree.id) == ARRAY
        if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.USub):
            return self.certainly_array(tree.operand)
        return isinstance(tree, ast.BinOp) and isinstance(tree.op, _ARITH_OPS) and (
            self.certainly_array(tree.left) or self.certainly_array(tree.right))

    def shape_name(self, name_):
        for shape, source in self.shapes.items():
            if source == name_ and shape not in self.layouts and shape not in self.cuts:
                return shape
        shape = self.namer.fresh(f"{name_}_shape")
        self.shapes[shape] = name_
        self.primals.add(shape)
        return shape

    def keeps_layout(self, name_):
        """Whether the backward sweep, reading ``name_`` only for its layout (a rule's
        ``shape_only`` argument), should keep a stand-in for it (:func:`layout`) instead of
        the value: where the value would be saved, pushed per iteration of a loop or handed
        over in a split's context, and would keep arrays alive that nothing else needs. The
        stand-in is made where the value is assigned (a parameter is the caller's anyway)."""
        kind = self.an.kinds.get(name_)
        if name_ not in self.assigned or kind == SCALAR:
            return False
        if kind != ARRAY and name_ not in self.fixed_displays:
            return False  # a list that may change after it is built: the value itself
        return name_ in self.in_loop or not self.structured

    def layout_name(self, name_):
        """The name of ``name_``'s stand-in (see :meth:`keeps_layout`)."""
        for shape, source in self.shapes.items():
            if source == name_ and shape in self.layouts:
                return shape
        shape = self.namer.fresh(f"{name_}_layout")
        self.shapes[shape] = name_
        self.layouts.add(shape)
        self.primals.add(shape)
        return shape

    def kept_here(self, stmt):
        """The lists ``stmt`` reads whole that an ``append`` or ``pop`` changes later (the
        analysis's ``kept_lists``, from :mod:`srcad.analysis.alias`): name -> the methods."""
        kept = getattr(self.an, "kept_lists", {}).get(id(stmt))
        return kept[1] if kept is not None and kept[0] is stmt else {}

    def kept_read(self, stmt, source):
        """What the backward sweep reads for the list ``source`` as ``stmt`` read it: the
        forward sweep keeps its length there, ``n = len(ys)``, and the sweep reads ``ys[:n]``
        (appends leave the first ``n`` items as they were); a copy, ``ys_kept = list(ys)``,
        where a ``pop`` may follow (an append after it would put another item at ``n - 1``).
        Made in the forward sweep right after ``stmt`` (:meth:`Saves.forward`), saved like
        any value the backward sweep reads."""
        made = next((k for k in self.kept.get(id(stmt), ()) if k[1] == source), None)
        if made is None:
            how = "list" if "pop" in self.kept_here(stmt)[source] else "len"
            made = (self.namer.fresh(f"{source}_kept" if how == "list" else f"{source}_len"),
                    source, how)
            self.kept.setdefault(id(stmt), []).append(made)
            self.primals.add(made[0])
        kept, _, how = made
        if how == "list":
            return name(kept)
        return nodes.subscript(source, ast.Slice(lower=None, upper=name(kept), step=None))

    def missing_rule(self, stmt, prim):
        return soundness.missing_rule(self.fn.source, stmt, prim)

    def unsupported(self, stmt, what, hint):
        from ..errors import UnsupportedSyntaxError

        src = self.fn.source
        return UnsupportedSyntaxError(
            f"srcad cannot differentiate {what}", filename=src.filename if src else None,
            lineno=stmt.line, construct=src.line_text(stmt.line) if src else None, hint=hint)


def _elementwise_rule(prim):
    """Whether ``prim`` is differentiated by an element-wise rule (an operator, a ufunc)."""
    fn = prim.fn
    if isinstance(fn, ir.Method):
        fn = registry.methods.get(fn.name, fn)
    elif isinstance(fn, ir.Attr):
        fn = registry.attributes.get(fn.name, fn)
    if isinstance(fn, ir.Build) or fn is operator.getitem:
        return False
    rule, _ = registry.find(fn, list(prim.args), dict(prim.kwargs))
    return rule is not None and (rule.broadcast or isinstance(fn, np.ufunc))


def _shape_kept(sweep, name_, kind):
    """Whether an ``unbroadcast`` outside loops reads ``name_``'s shape, not the array: in a
    part (its context outlives the forward part) or at the top level of code that only runs
    (for an array not a sum over axes: :func:`_reduced`), where the array is assigned; not
    Numba's (no shape set on one path only)."""
    return (not sweep.structured or sweep.runs_only and kind == ARRAY and not _reduced(
        sweep, name_, set())) and name_ in sweep.assigned and not getattr(
        sweep.an.callees, "compiles_all", 0)


def _reduced(sweep, name_, seen):
    """Whether the array ``name_`` is made, once, by a reduction over an axis of an array
    (``np.sum(a, axis=1)``, the ``"reduction"`` rules), by element-wise arithmetic of such
    arrays and numbers (``0.5 * np.sum(b, axis=2)``) or by indexing one (``s[:, None]``).
    The top level of code that only runs keeps such an array itself for an ``unbroadcast``
    (``unbroadcast(g, s)``), and only a larger one's shape (``a_shape = a.shape``, so that
    :mod:`srcad.backend.free_early` frees ``a`` once the forward sweep is done with it): a
    sum is smaller than what it sums by a whole axis, so freeing it a little earlier gains
    little, and the text reads as a person writes it."""
    defs = getattr(sweep, "_single_defs", None)
    if defs is None:
        counts = {}
        for s in ir.walk(sweep.fn.body):
            for n in ir.defined_by(s):
                counts[n] = counts.get(n, 0) + 1
        defs = sweep._single_defs = {s.target: s.value for s in ir.walk(sweep.fn.body) if
                                     isinstance(s, ir.Assign) and counts.get(s.target) == 1}
    value = defs.get(name_)
    if name_ in seen or not isinstance(value, ir.Prim) or value.kwargs and not (
            set(value.kwargs) <= {"axis", "keepdims"}):
        return False
    seen.add(name_)
    fn = value.fn
    if isinstance(fn, ir.Method):
        fn = registry.methods.get(fn.name, fn)
    if not isinstance(fn, (ir.Build, ir.Attr)) and registry.has_rule(fn):
        rule, _ = registry.find(fn, value.args, value.kwargs)
        if rule is not None and rule.kind == "reduction":
            return sweep.an.kinds.get(name_) == ARRAY  # an axis given: an array
    if fn is operator.getitem and isinstance(value.args[0], ir.Var):
        return _reduced(sweep, value.args[0].name, seen)  # s[:, None]: a view or a part
    if not _elementwise_rule(value):
        return False
    arrays = [a for a in value.args if sweep.an.kind(a) != SCALAR]
    return bool(arrays) and all(isinstance(a, ir.Var) and _reduced(sweep, a.name, seen)
                                for a in arrays)


def _is_none_or_false(value):
    if isinstance(value, ir.Const):
        value = value.value
    return value is None or value is False


def _nonzero_number(atom):
    """Whether ``atom`` is a number literal other than 0 (a bool is not one)."""
    return isinstance(atom, ir.Const) and type(atom.value) in (int, float) and atom.value != 0


def unshape_kept(sweep, code):
    """In a callee's part or at the top level, ``unbroadcast(g, a)`` again for each
    ``unbroadcast_to(g, a_shape)`` of :meth:`Rules.unbroadcast` whose ``a`` the backward
    sweep ``sweep`` reads anyway (its context holds the array: one item, not two; a loop's
    carried value: saved per step, :meth:`.saves.Saves.carried_kept`); the
    others keep only the shape, so the context does not keep an array alive for it (nor
    the top level's name: :mod:`srcad.backend.free_early`). Runs once the sweep is made
    (``refs`` is then complete), before the saves are chosen."""
    read = set().union(*sweep.refs.values()) if sweep.refs else set()
    kept = {shape: source for shape, source in sweep.part_shapes.items() if source in read}
    kept.update(sweep.carried_kept())  # a loop's carried value saved anyway (.saves)
    if not kept:
        return
    for node in (n for stmt in code for n in walk_nodes(stmt)):
        if isinstance(node, ast.Call) and len(node.args) == 2 and nodes.is_name(
                node.func, sweep.helper_names.get("unbroadcast_to", "unbroadcast_to")) and (
                isinstance(node.args[1], ast.Name) and node.args[1].id in kept):
            node.func = sweep.helper("unbroadcast")
            node.args[1] = name(kept[node.args[1].id])
    for shape in kept:
        del sweep.shapes[shape]
        for refs in sweep.refs.values():
            refs.discard(shape)


def _fitted(self, rule, tree, atom, stmt, bound, frame, uniform):  # (of Rules)
    """The gradient ``tree`` a rule gives ``atom`` summed to its shape (a broadcasting
    rule's), and a number's made a number where a user's rule gives it: a rule may give a
    0-d array (``np.asarray(g * x)``), and the sweep adds into a number's gradient in place
    (``dx += ...``)."""
    if rule.broadcast and not uniform:
        tree = self.unbroadcast(tree, atom, stmt.target, bound, frame, stmt.value)
    if rule.user and self.an.kind(atom) == SCALAR:
        tree = call(self.helper("total"), tree)
    return tree
