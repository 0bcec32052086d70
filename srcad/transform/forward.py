"""Forward (tangent) mode: each statement followed by the statement of its tangent.

For ``y = op(a, b)`` with ``a`` varying, the generated code reads ``y = op(a, b)`` then
``dy = <tangent>``, where the tangent comes from the same rule registry as reverse mode:

* an *element-wise* rule (operators, ``math``, NumPy ufuncs, and rules marked
  ``broadcast=True``): its gradient template with ``g`` replaced by the argument's tangent
  (``g * cos(x)`` becomes ``dx * math.cos(x)``); a diagonal Jacobian is its own transpose;
* a *linear* function (``np.sum``, ``np.dot``, ``reshape``, indexing, ...): the function
  itself applied to the tangent in place of the argument (``np.dot(da, b) + np.dot(a, db)``);
* anything else needs a ``jvp=`` template in its rule, or forward mode says which function
  lacks one (reverse mode still works).

Control flow is copied as it is: a branch computes the tangents of its arm and merges them
where it merges the values; a loop carries tangents beside its values. Nothing is saved:
forward mode needs no stack. ``srcad.jvp`` is built on this pass.

Imports ``srcad.core``, ``srcad.errors``, ``srcad.rules``, ``srcad.runtime``,
``srcad.transform`` (and nothing above its layer).
"""

from __future__ import annotations

import ast
import copy
import operator
import types

import numpy as np

from ..analysis import derivative_calls
from ..analysis.elems import with_dicts
from ..analysis.user_calls import bind_call, is_user_call, user_callee
from ..analysis.user_calls import misfit as _misfit
from ..core import functions, ir
from ..core.kinds import ANY, ARRAY, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..errors import MissingRuleError, SrcadError, UnsupportedSyntaxError, reached_through_call
from ..rules import registry
from ..runtime import helpers as runtime
from ..runtime import numpy_helpers
from . import forward_writes, nodes, owned_writes, templates
from .nodes import assign, call, name
from .saves import forward_loop_node
from .sweep import Sweep, bound_expr

#: functions linear in each array argument: the tangent is the function of the tangent (the
#: forms of k directions at once: ``BATCHED`` in srcad/transform/forward_batched.py)
LINEAR = {
    list, tuple, reversed, operator.getitem, operator.matmul, operator.neg, operator.pos,
    runtime.unbroadcast, runtime.unbroadcast_to, runtime.broadcast_as, runtime.fill,
    runtime.total, runtime.scatter,
    runtime.cleared, runtime.expand,
    np.sum, np.mean, np.reshape, np.transpose, np.dot, np.matmul, np.tensordot, np.einsum,
    np.inner, np.outer, np.vdot, np.concatenate, np.stack, np.hstack, np.vstack, np.ravel,
    np.squeeze, np.expand_dims, np.swapaxes, np.moveaxis, np.broadcast_to, np.tile,
    np.repeat, np.flip, np.roll, np.trace, np.cumsum, np.diag, np.triu, np.tril, np.copy,
    np.array, np.asarray, np.split, np.real, np.conj, np.array_split, np.atleast_1d,
    np.atleast_2d, np.atleast_3d, np.fliplr, np.flipud, np.diagonal, np.ndarray.reshape,
    np.ndarray.flatten, np.ndarray.transpose, np.ndarray.item, runtime.transpose_grad,
    # the helpers gradients call (forward over reverse): linear in the gradient they take
    # (and products in the other operand too), so the helper of the tangent is the tangent
    *(getattr(numpy_helpers, name) for name in (
        "grad_sum", "grad_mean", "grad_extremum", "grad_var", "grad_cumsum", "grad_trace",
        "grad_astype", "grad_dot_a", "grad_dot_b", "grad_matmul_a", "grad_matmul_b",
        "grad_inner_a", "grad_inner_b", "grad_outer_a", "grad_outer_b", "grad_vdot_a",
        "grad_vdot_b", "grad_tensordot_a", "grad_tensordot_b", "grad_reshape",
        "grad_concatenate", "grad_split", "grad_stack", "grad_hstack", "grad_vstack",
        "grad_array", "grad_tile", "grad_repeat", "grad_roll", "grad_pad", "grad_pad_value",
        "grad_diag", "grad_diagonal", "grad_sort", "tangent_sort")),
}
#: functions whose Jacobian is diagonal but which are not ufuncs
ELEMENTWISE = {abs, pow, float, min, max, runtime.add, runtime.where, np.clip, np.where}


def forward_kind(rule, fn):
    if getattr(rule, "jvp", None):
        return "explicit"
    if fn in LINEAR:
        return "linear"
    if rule.broadcast or isinstance(fn, np.ufunc) or fn in ELEMENTWISE:
        return "elementwise"
    if getattr(fn, "__module__", None) == "math" or fn in (operator.add, operator.sub,
                                                           operator.mul, operator.truediv,
                                                           operator.pow, operator.mod):
        return "elementwise"
    return None


def _compiled_with_caller(an, value):
    """A call of a user function whose forward-mode code is made even when nothing in it
    varies (``callees.compiles_all``: the Numba backend compiles it with its caller; the
    user's own Python never runs there): :meth:`Forward.user_call` makes it."""
    return (getattr(an.callees, "compiles_all", False) and isinstance(value, ir.Prim)
            and not value.kwargs and is_user_call(value))


def _display(parts, of_tuple):
    """The list display of the tangents ``parts`` (of a list or tuple display), a tuple's
    marked: the Numba backend makes it a tuple (srcad.backend.numba_constants)."""
    display = ast.List(elts=parts, ctx=nodes.LOAD)
    display.srcad_of_tuple = of_tuple
    return display


class Forward(Sweep):
    whole_sums = True  # np.sum(a) of an array written a.sum() (:func:`_summed`)

    def __init__(self, fn, analysis, namer, helper_names):
        self.fn = fn
        self.an = analysis
        self.namer = namer
        self.helper_names = helper_names
        self.used_helpers = set()
        self.tnames = {}
        self.cells = {name: types.CellType(f) for name, f in getattr(fn, "lifted", {}).items()}
        self.temp_tangents = set()

    def t(self, name):
        if name not in self.tnames:
            self.tnames[name] = self.namer.grad(name)
            if name in self.namer.temps:
                self.temp_tangents.add(self.tnames[name])
        return self.tnames[name]

    def varied(self, atom):
        """Whether ``atom`` carries a tangent: it depends on a ``wrt`` input and reaches the
        result (the same activity as reverse mode)."""
        return self.an.active(atom)

    def tangent_of(self, atom):
        """The name of an atom's tangent, or None when it is zero."""
        return self.t(atom.name) if self.varied(atom) else None

    def tangent_or_zero(self, atom):
        """An atom's tangent as an expression: its name, or a zero."""
        if isinstance(atom, ir.Var):
            tangent = self.tangent_of(atom)
            return name(tangent) if tangent else self.zero(atom.name)
        if isinstance(atom, ir.Const) and not isinstance(atom.value, (int, float, bool)):
            return call(self.helper("zeros_like"), nodes.expr(atom))  # shaped like the array
        return nodes.constant(0.0)

    # ---------------------------------------------------------------- sweep

    def run(self):
        body = self.fn.body
        ret = body[-1] if body and isinstance(body[-1], ir.Return) else None
        code = self.block(body[:-1] if ret else body)
        code = _unset_before(body, code, self.tnames) + _changed_params(self, code) + code
        result = ret.value if ret else ir.Const(None)
        tangent = self.tangent_or_zero(result)
        return code, result, tangent

    def block(self, stmts):
        code = []
        for stmt in stmts:
            start = len(code)
            _statement(self, stmt, code)
            line = getattr(stmt, "line", None)
            if line:  # the line each statement came from (srcad.backend.emit's line map)
                for node in code[start:]:
                    if not hasattr(node, "srcad_line"):
                        node.srcad_line = line
        return code

    def phi_copies(self, phis, side):
        """Values and tangents moved at the end of a side, all at once (a loop's back edge
        may swap its own names)."""
        pairs = []
        for p in phis:
            src = p.sources[side]
            if src is None:  # unset on this side: a read checks for None (UnboundLocalError)
                pairs.append((p.target, nodes.constant(None)))
                if self.varied(ir.Var(p.target)):  # a loop's back edge copies it (del in a loop)
                    pairs.append((self.t(p.target), nodes.constant(None)))
                continue
            if str(src) != p.target:
                pairs.append((p.target, nodes.expr(src)))
            if self.varied(ir.Var(p.target)):
                tangent = self.tangent_or_zero(src) if isinstance(src, ir.Var) else (
                    self.zero(p.target))
                if not nodes.is_name(tangent, self.t(p.target)):
                    pairs.append((self.t(p.target), tangent))
        return nodes.parallel(pairs)

    def entry_zero(self, target, entry):  # (a constant entering a loop: BatchedForward's)
        return self.zero(target)

    def loop(self, stmt):
        code = []
        for p in stmt.phis:
            entry = p.sources[0]
            if entry is None:
                continue
            if str(entry) != p.target:
                code.append(assign(p.target, nodes.expr(entry)))
            if self.varied(ir.Var(p.target)):
                code.append(assign(self.t(p.target), (
                    self.tangent_or_zero(entry) if isinstance(entry, ir.Var) else
                    self.entry_zero(p.target, entry))))
        body = self.block(stmt.body) + self.phi_copies(stmt.phis, 1)
        if stmt.exit is not None:
            body.append(nodes.break_if(nodes.expr(stmt.exit)))
        head = self.block(stmt.header) if stmt.kind != "for" and stmt.header else None
        code.append(forward_loop_node(stmt, body, head))
        return code

    # ---------------------------------------------------------------- statements

    def assign(self, stmt, code):
        value = stmt.value
        if stmt.target is None:
            code.append(nodes.statement(stmt))
            if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name == "append"
            ):
                lst, item = value.args
                if self.varied(lst):
                    code.append(nodes.expr_stmt(nodes.method(self.t(lst.name), "append",
                                                             self.tangent_or_zero(item))))
            elif isinstance(value, ir.Prim) and value.fn == ir.Method("pop") and len(
                value.args
            ) == 1 and self.varied(value.args[0]):
                # keep the lists in step
                code.append(nodes.expr_stmt(nodes.method(self.t(value.args[0].name), "pop")))
            return
        target = stmt.target
        if not isinstance(value, ir.Prim):
            code.append(nodes.statement(stmt))
            if self.varied(ir.Var(target)) and isinstance(value, ir.Var):
                code.append(assign(self.t(target), self.tangent_or_zero(value)))
            return
        if not self.varied(ir.Var(target)) and not _compiled_with_caller(self.an, value):
            code.append(nodes.statement(stmt))
            if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name == "pop" and not value.args[1:] and self.varied(value.args[0])
            ):
                # keep the lists in step
                code.append(nodes.expr_stmt(nodes.method(self.t(value.args[0].name), "pop")))
            return
        fn = value.fn
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            code.append(nodes.statement(stmt))
            parts = [self.tangent_or_zero(a) for a in value.args]
            code.append(assign(self.t(target), _display(parts, fn is ir.BUILD_TUPLE)))
            return
        if fn is ir.BUILD_DICT:  # the keys have no tangent
            code.append(nodes.statement(stmt))
            parts = [self.tangent_or_zero(a) for a in value.args[1::2]]
            code.append(assign(self.t(target), ast.Dict(
                keys=[nodes.expr(k) for k in value.args[::2]], values=parts)))
            return
        if isinstance(fn, ir.Method) and fn.name == "pop" and not value.args[1:]:
            code.append(nodes.statement(stmt))
            code.append(assign(self.t(target), nodes.method(self.t(value.args[0].name), "pop")))
            return
        args, kwargs = list(value.args), dict(value.kwargs)
        if isinstance(fn, ir.Method):
            fn = registry.methods.get(fn.name, fn)
        elif isinstance(fn, ir.Attr):
            fn = registry.attributes.get(fn.name, fn)
        if fn is operator.getitem:
            code.append(nodes.statement(stmt))  # no tangent: a zero shaped like the object
            code.append(assign(self.t(target), nodes.subscript(
                self.tangent_or_zero(args[0]), nodes.expr(args[1]))))
            return
        if fn is operator.mul and self.an.kinds.get(target, ANY) == SEQ:  # [x] * n
            raise _repeated(self.fn.source, stmt)
        if fn is operator.add and self.an.kinds.get(target, ANY) == SEQ:  # list + list
            return _concatenation(self, stmt, code, args, target)
        if self.an.piecewise_constant(fn, value):
            # piecewise constant: a zero tangent (a later append may vary it: dys = zeros_like(ys))
            code.append(nodes.statement(stmt))
            code.append(assign(self.t(target), self.zero(target)))
            return
        rule, bound = registry.find(fn, args, kwargs)
        if rule is None:
            if user_callee(fn):
                self.user_call(stmt, code)
                return
            if functions.is_derivative(fn):
                _derivative_call(self, stmt, code)
                return
            if functions.splits_again(fn):
                _derivative_part_call(self, stmt, code)
                return
            raise self.missing(stmt, value)
        rule = self.an.rule_form(rule, value)
        kind = forward_kind(rule, fn)
        terms = []
        if kind == "linear":
            # linear in each argument: one term per varied argument, with the tangent in that
            # argument's place only (``np.dot(a, a)`` gives ``np.dot(da, a) + np.dot(a, da)``)
            for param, atom in bound.items():
                if isinstance(atom, ir.Var) and self.varied(atom) and param in rule.templates:
                    terms.append(self.linear_term(value, rule, param))
                    if rule.fixed:  # (hermitian=h: the call itself, checked as it runs)
                        terms[-1] = templates.fixed_guard(terms[-1], rule, _rule_names(
                            self, rule, bound), self.helper_names)
                        self.note_helpers(terms[-1])
            terms = _sum_tangent(self, fn, value, terms)  # np.sum(da): its reduction alone
        elif kind in ("elementwise", "explicit"):
            scalar = all(self.an.kind(a) == SCALAR for a in value.args
                         if isinstance(a, (ir.Var, ir.Const)))
            table = rule.jvp if kind == "explicit" else rule.templates
            for param, atom in bound.items():  # never a silent zero tangent: a parameter
                if (isinstance(atom, ir.Var) and self.varied(atom)  # with a gradient has one
                        and param in rule.templates and param not in table):
                    raise self.missing(stmt, value, forward=True, param=param)
            shaped = set()  # arguments whose shape the tangent has (it broadcasts with them)
            for param, template in table.items():
                atom = bound.get(param)
                if not (isinstance(atom, ir.Var) and self.varied(atom)):
                    continue
                names = _rule_names(self, rule, bound)
                names.update(g=name(self.t(atom.name)), t=name(self.t(atom.name)),
                             ans=name(target))
                tree = templates.instantiate(template, names, scalar, self.helper_names, rule)
                self.note_helpers(tree)
                terms.append(tree)
                read = {n.id for n in walk_nodes(template) if isinstance(n, ast.Name)}
                shaped |= set(bound) if "ans" in read else read | {param}
            if kind == "elementwise" and terms and not scalar and any(
                p not in shaped and self.an.kind(a) != SCALAR
                for p, a in bound.items() if isinstance(a, (ir.Var, ir.Const))
            ):  # ``x + np.ones(4)`` with a number x: dx alone is not shaped like the result
                terms[0] = call(self.helper("broadcast_as"), terms[0], target)
        else:
            raise self.missing(stmt, value, forward=True)
        code.append(_summed(self, stmt))  # (np.sum(a) of an array: a.sum())
        if not terms:
            code.append(assign(self.t(target), self.zero(target)))
            return
        kind_out = self.an.kinds.get(target, ANY)
        total = terms[0]
        for term in terms[1:]:
            total = (nodes.plus(total, term) if kind_out in (SCALAR, ARRAY) else
                     call(self.helper("add"), total, term))
        code.append(assign(self.t(target), total))

    def linear_term(self, prim, rule, param):
        """``prim`` with the argument bound to ``param`` replaced by its tangent (for a
        function linear in it); the same value passed in another place stays as it is."""
        slots = rule.bind(range(len(prim.args)), {k: k for k in prim.kwargs})[param]
        slots = set(slots) if isinstance(slots, tuple) else {slots}  # a *args parameter
        sub = copy.copy(prim)
        sub.args = [self.tangent_var(a) if i in slots else a for i, a in enumerate(prim.args)]
        sub.kwargs = {k: self.tangent_var(a) if k in slots else a
                      for k, a in prim.kwargs.items()}
        out = nodes.expr(sub)
        if isinstance(prim.fn, (ir.Method, ir.Attr)) and 0 in slots:
            _number_receiver(self.an.kind(prim.args[0]), out)
        return out

    def tangent_var(self, atom):
        return ir.Var(self.t(atom.name)) if self.varied(atom) else atom

    def user_call(self, stmt, code):
        prim = stmt.value
        bound = bind_call(prim, self.an.kind, self.an.is_complex)
        if bound is None:
            src = self.fn.source
            raise UnsupportedSyntaxError(
                f"srcad cannot differentiate a call that does not fit the parameters of "
                f"{prim.spelling or prim.fn.__name__} ({_misfit(prim)})",
                filename=src.filename if src else None, lineno=stmt.line,
                construct=src.line_text(stmt.line) if src else None,
                hint="pass the arguments its def names")
        arguments, arity = bound.arguments, bound.arity
        wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.varied(a)]
        cell = _tangent(self, stmt, wrt, with_dicts(self.an, bound.kinds, arguments, prim.fn),
                        arity, derivative_calls.callee_ranks(self.an, arguments, arity))
        jvp = self.bind_cell(f"{prim.fn.__name__}_jvp", cell)
        tangents = [name(self.t(arguments[p].name)) for p in wrt]
        # the forward-mode function takes every parameter positionally, then the tangents; a
        # default that no literal spells (an array) is passed from a cell of its own
        given = bound.passed
        args = [bound_expr(a) if p in given or type(a) in (int, float, bool, type(None), str)
                else name(self.bind_cell(f"{prim.fn.__name__}_{p}", types.CellType(a)))
                for p, a in arguments.items()] + tangents
        code.append(assign([stmt.target, self.t(stmt.target)], call(jvp, *args)))

    def missing(self, stmt, prim, forward=False, param=None):
        src = self.fn.source
        name = prim.spelling or getattr(prim.fn, "__name__", repr(prim.fn))
        what = "forward-mode rule" if forward else "derivative rule"
        if param is not None:  # a jvp= table without this argument, which carries a tangent
            return MissingRuleError(
                f"the forward-mode rule of {name} gives no tangent for its argument "
                f"{param!r}, which carries one here", filename=src.filename if src else None,
                lineno=stmt.line, construct=src.line_text(stmt.line) if src else None,
                hint=f"add {param}=... to its jvp= templates, or use reverse mode (srcad.vjp)")
        opaque = functions.opaque(prim.fn, name)
        if opaque is not None and not forward:
            return MissingRuleError(
                opaque[0], filename=src.filename if src else None, lineno=stmt.line,
                construct=src.line_text(stmt.line) if src else None, hint=opaque[1])
        return MissingRuleError(
            f"no {what} for {name}", filename=src.filename if src else None, lineno=stmt.line,
            construct=src.line_text(stmt.line) if src else None,
            hint="give its rule a jvp= template (srcad.extend.defvjp(..., jvp={...})), or "
            "use reverse mode (srcad.vjp, jacobian(mode='rev'))" if forward else
            f"give {name} a rule with @srcad.extend.defvjp, or wrap the value in "
            "srcad.stop_gradient(...) if no gradient should flow through it")


def _statement(self, stmt, code):
    """Append the code of one statement (its value's and its tangent's) to ``code``."""
    if isinstance(stmt, ir.Assign):
        self.assign(stmt, code)
    elif isinstance(stmt, ir.SetItem):  # (in place where the container is owned)
        start = len(code)
        forward_writes.set_item(self, stmt, code)
        owned_writes.mark_writes(self, stmt, code[start:])
    elif isinstance(stmt, ir.If):
        then = self.block(stmt.body) + self.phi_copies(stmt.phis, 0)
        other = self.block(stmt.orelse) + self.phi_copies(stmt.phis, 1)
        code += nodes.either(nodes.expr(stmt.test), then, other)
    elif isinstance(stmt, ir.Loop):
        code += self.loop(stmt)
    elif isinstance(stmt, ir.Raise):
        code.append(ast.Raise(exc=nodes.expr(stmt.value), cause=None))


def _derivative_call(self, stmt, code):
    """``y = d_f(x)`` with ``d_f = srcad.grad(f)``: the forward mode of its generated code
    (made for the argument types met at run time), by ``derivative_jvp``."""
    prim = stmt.value
    arguments, _, _ = functions.bind(prim.fn, prim.args, prim.kwargs)
    wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.varied(a)]
    tangents = ast.Tuple(elts=[name(self.t(arguments[p].name)) for p in wrt],
                         ctx=nodes.LOAD)
    args, kwargs = functions.as_positional(prim.fn, prim.args, prim.kwargs)
    jvp = ast.Call(
        func=self.helper("derivative_jvp"),
        args=[nodes.spelled(prim.spelling), nodes.literal(tuple(wrt)), tangents]
        + [nodes.expr(a) for a in args],
        keywords=[ast.keyword(arg=k, value=nodes.expr(a)) for k, a in kwargs.items()])
    code.append(assign([stmt.target, self.t(stmt.target)], jvp))


def _tangent(fwd, stmt, *args):
    """The forward mode of the callee ``stmt`` calls; a ``try``/``except`` refused in it says
    which call makes srcad differentiate it."""
    fn = stmt.value.fn
    try:
        return fwd.an.callees.tangent(fn, *args)
    except SrcadError as exc:
        raise reached_through_call(exc, fwd.fn.source, stmt.line, fn) from None


def _derivative_part_call(self, stmt, code):
    """``t = H(*args)`` with ``H`` one of the helpers that run a derivative called in code
    (``srcad.runtime.derivatives``), in the code of a derivative, in forward mode:
    ``form_jvp(H, k, varied, *fixed, tangents, *rest)``, the forward mode of ``H``'s form made
    at run time. Any order."""
    prim = stmt.value
    if prim.kwargs:
        raise self.missing(stmt, prim)
    fixed = prim.fn.__srcad_statics__(prim.args)
    varied = [i for i, a in enumerate(prim.args[fixed:]) if isinstance(a, ir.Var)
              and self.varied(a)]
    tangents = ast.Tuple(elts=[name(self.t(prim.args[fixed + i].name)) for i in varied],
                         ctx=nodes.LOAD)
    args = [nodes.expr(a) for a in prim.args]
    jvp = call(self.helper("form_jvp"), self.helper(prim.fn.__name__), nodes.literal(fixed),
               nodes.literal(tuple(varied)), *args[:fixed], tangents, *args[fixed:])
    code.append(assign([stmt.target, self.t(stmt.target)], jvp))


def _repeated(src, stmt):
    """The refusal of ``[x] * n`` whose items carry tangents, as reverse mode's (the rule of
    ``*`` would scale the tangents: ``dL * 2.0``)."""
    return UnsupportedSyntaxError(
        "srcad cannot differentiate repeating a list that carries gradients ([x] * n)",
        filename=src.filename if src else None, lineno=stmt.line,
        construct=src.line_text(stmt.line) if src else None,
        hint="build it with a comprehension: [x for _ in range(n)]")


def _concatenation(fwd, stmt, code, args, target):
    """``v = a + b`` of lists or tuples: the tangent is both tangents joined, in a new list
    (never ``a``'s own, which appending to ``v`` would change; a constant part has zeros)."""
    code.append(nodes.statement(stmt))
    code.append(assign(fwd.t(target), call(fwd.helper("concat_tangent"),
                                           fwd.tangent_or_zero(args[0]),
                                           fwd.tangent_or_zero(args[1]))))


def _rule_names(sweep, rule, bound):
    """What a rule's template names stand for: the bound arguments, and a user rule's own
    helpers (bound as cells of the generated code, as the reverse sweep binds them)."""
    names = {p: bound_expr(a) for p, a in bound.items()}
    for free, obj in rule.namespace.items():
        names.setdefault(free, name(sweep.bind_cell(free, types.CellType(obj))))
    return names


def _number_receiver(kind, out):
    """A number's method (``x.reshape(t)`` of a NumPy scalar) on its tangent, ``out``: the
    tangent may be a Python float, which has none (sound29), so it is read as an array; of a
    value of unknown kind only where its tangent is a number (``L.copy()`` keeps a list's
    tangent a list)."""
    held = out.func if isinstance(out, ast.Call) else out
    if kind not in (SCALAR, ANY) or not isinstance(held, ast.Attribute) or not isinstance(
            held.value, ast.Name):
        return
    array = call(nodes.attr(name("np"), "asarray"), held.value)
    held.value = array if kind == SCALAR else ast.IfExp(
        test=call(name("isinstance"), held.value, ast.Tuple(
            elts=[name("int"), name("float"), name("complex")], ctx=ast.Load())),
        body=array, orelse=name(held.value.id))


def _sum_tangent(sweep, fn, value, terms):
    """``terms`` (a linear function's tangent), or ``[tangent_sum(da)]`` for ``np.sum(a)`` of
    an array (:func:`_whole_sum`)."""
    if terms and _whole_sum(sweep, fn, value):
        return [call(sweep.helper("tangent_sum"), name(sweep.t(value.args[0].name)))]
    return terms


def _whole_sum(sweep, fn, value, primal=False):
    """Whether ``value`` is ``np.sum(a)`` (or ``a.sum()``) of a NumPy array over every axis,
    in code that runs on NumPy (:func:`_summed`'s cases); not ``primal``: in code whose
    tangents are the value's shape (not batched)."""
    callees = sweep.an.callees
    return ((sweep.whole_sums or primal) and fn is np.sum and len(value.args) == 1
            and not value.kwargs
            and isinstance(value.args[0], ir.Var)
            and sweep.an.kinds.get(value.args[0].name) == ARRAY
            and not getattr(callees, "compiles_all", False)
            and not getattr(callees, "standard", False))


def _summed(sweep, stmt):
    """The primal statement ``stmt``; ``np.sum(a)`` of a NumPy array ``a`` written
    ``a.sum()``, the method NumPy's function calls for an array anyway, without its Python
    layer (a few microseconds, most of a small array's sum), as the reverse sweep's forward
    copy writes it (``saves.forward_statement``). Its tangent is ``tangent_sum(da)``, not a
    method: a tangent may be a number (a 0-d array's) or a list (a tangent given as one). Not
    for the Numba backend or the array API standard's arrays (no methods there); batched code's
    primal too (:mod:`.forward_batched`: the tangent's sum is its own form there)."""
    value = stmt.value
    if value.fn is np.sum and _whole_sum(sweep, value.fn, value, primal=True):
        return assign(stmt.target, call(nodes.attr(value.args[0].name, "sum")))
    return nodes.statement(stmt)


def _unset_before(body, code, tnames):
    """``r = None`` for a name a loop sets only inside it that the code reads on entry of a
    loop nested in it (``r_1 = r``), and for its tangent: None before the loop, as a side
    leaving a name unset has it (its reads check a flag: UnboundLocalError)."""
    unset = {n for s in ir.walk(body) if isinstance(s, ir.Loop) for p in s.phis
             if p.sources[0] is None for n in (p.target, tnames.get(p.target)) if n}
    read = {n.id for stmt in code for n in walk_nodes(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} & unset
    return [assign(n, nodes.constant(None)) for n in sorted(read)]


def _changed_params(fwd, code):
    """``dh = zeros_like(h)`` for a parameter not differentiated that a differentiated value
    enters in place (``h.append(x * 2.0)``, ``h`` a list the caller gave: srcad.written_state)
    and whose tangent the code reads (``dh.append(dx * 2.0)``): zero on entry."""
    read = {n.id for stmt in code for n in walk_nodes(stmt) if isinstance(n, ast.Name)}
    return [assign(fwd.t(p), call(fwd.helper("zeros_like"), name(p))) for p in fwd.fn.params
            if p not in fwd.an.wrt and fwd.varied(ir.Var(p)) and fwd.tnames.get(p) in read]
