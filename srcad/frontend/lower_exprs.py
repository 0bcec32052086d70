"""Lowering expressions to atoms: names, operators, subscripts, literals.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares).
:meth:`Expressions.expr` lowers an expression and returns the atom holding its value (a
``Var`` or a ``Const``), emitting one statement per operation; ``expr_<Node>`` methods return
an :class:`srcad.core.ir.Prim` (or an atom) for their node. A free name resolves to the
object it names now (:meth:`Expressions.lookup`, :meth:`Expressions.resolve_dotted`) and
becomes a ``Const`` spelled as the user wrote it. Calls are in :mod:`.lower_calls`;
comprehensions in :mod:`.lower_loops`.

Imports: gast, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.runtime` (the float64
constants srcad's code reads: their literals) and :mod:`srcad.frontend`
(`.operator_methods`, ...).
"""

from __future__ import annotations

import builtins
import operator

import gast
import numpy as np

from ..core import ir
from ..core.env import is_library_module
from ..core.ir import AND, OR, Const, Var
from ..core.walk import walk_nodes
from ..errors import SrcadError
from ..runtime import numpy_helpers
from ..runtime.float_constants import literal_of
from . import operator_methods
from .held_objects import class_of
from .lower_stmts import unbound_check
from .writes import callee_name

_BUILTIN = {"list": builtins.list, "tuple": builtins.tuple}

_BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul, gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_, gast.BitXor: operator.xor, gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
}
_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
          gast.Invert: operator.invert}
_COMPARE = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
    gast.IsNot: operator.is_not,
}


class Expressions:
    """``expr`` / ``expr_value`` and the ``expr_<Node>`` methods other than calls."""

    def expr(self, node, hint=None):
        """Lower ``node``; return the atom holding its value."""
        value = self.expr_value(node, hint)
        if isinstance(value, ir.Prim):
            return self.assign(value, hint, node)
        return value

    def expr_value(self, node, hint=None):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"unsupported expression: {type(node).__name__}")
        return method(node, hint) if method.__code__.co_argcount == 3 else method(node)

    def expr_Constant(self, node):
        return Const(node.value)

    def expr_Name(self, node):
        if node.id in self.dicts and node.id not in self.env:
            raise self.kwargs_error(node)
        if node.id in self.local_functions and node.id not in self.env:
            return self.local_function_value(node.id, node, node.id)
        if node.id in self.env:
            value = self.env[node.id]
            if value is None:
                raise self.error(node, f"{node.id!r} may be used before it is assigned",
                                 cls=SrcadError, hint="assign it on every path first")
            if isinstance(value, Var) and value.name in self.maybe_unbound:
                unbound_check(self, node.id, value, node)
            return value
        value = self.lookup(node.id, node)
        if (literal := literal_of(value, self.source.filename)) is not None:
            return Const(literal)  # one, two, half: srcad's own code read again
        if node.id in self.source.closure and node.id not in self.source.cells:
            # a constant a rewrite gave the code (srcad_made_all_1): bound, not a cell
            return Const(value, self.bound_name(value, node.id))
        return Const(value, node.id)

    def lookup(self, name, node):
        if name in self.dicts and name not in self.env:
            raise self.kwargs_error(node)
        try:
            return self.source.lookup(name)
        except KeyError:
            if self.stores.get(name):
                raise self.error(node, f"local {name!r} is read where it is never assigned "
                                 "(Python raises UnboundLocalError)", cls=SrcadError,
                                 hint="assign it on every path first") from None
            raise self.error(node, f"name {name!r} is not defined", cls=SrcadError,
                             hint="srcad resolves free names in the function's module") from None

    def expr_Attribute(self, node):
        root = root_name(node)
        if root is not None and root not in self.env:
            value = self.resolve_dotted(node)
            if root in getattr(self.source, "imported", ()):  # import np in the body
                return Const(value, self.closure_spelling(node, value))
            return Const(value, dotted(node))
        obj = self.expr(node.value)
        if node.attr == "__class__":
            known = class_of(self, obj, node)
            if known is not None:
                return known
        prop = self.property_read(obj, node.attr, node)
        if isinstance(prop, Exception):
            raise prop
        if prop is not None:
            return prop
        method = self.method_value(obj, node.attr, node)
        if method is not None:
            return method
        if node.attr == "flat" and isinstance(node.ctx, gast.Load) and not (
                isinstance(obj, ir.Var) and obj.name in self.classes):
            # x.flat read (x.flat[i], for v in x.flat): x.ravel(), a view where it can be
            # (writes through it are refused by the alias analysis, as for any view)
            return ir.Prim(ir.Method("ravel"), [obj])
        return ir.Prim(ir.Attr(node.attr), [obj])

    def closure_spelling(self, node, value):
        """How generated code spells ``node`` (``np.sum``, ``sig``), whose root is a constant
        a rewrite gave the function (an import in its body): as written where the module's
        globals bind the root to the same object, else ``value`` under a name of its own."""
        if isinstance(node, gast.Name):
            return self.bound_name(value, node.id)
        root = root_name(node)
        if root not in getattr(self.source, "imported", ()) or self.source.globals.get(
                root, builtins) is self.source.closure[root]:
            return dotted(node)  # (xp.f read as np.f: np bound by the backend)
        return self.bound_name(value, dotted(node).replace(".", "_"))

    def resolve_dotted(self, node):
        """The object ``a.b.c`` names now. The read is recorded for its whole path (for a
        library module's attribute, ``np.sum``, for its root only)."""
        value = self._resolve_dotted(node)
        if isinstance(node, gast.Attribute):
            path = dotted(node).split(".")
            if not is_library_module(self.source.lookup(path[0])):
                self.source.lookup(path[0], path[1:])
        return value

    def _resolve_dotted(self, node):
        if isinstance(node, gast.Name):
            return self.lookup(node.id, node)
        base = self._resolve_dotted(node.value)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise self.error(node, f"{dotted(node)} does not exist", cls=SrcadError) from None

    def expr_BinOp(self, node):
        dispatched = operator_methods.binop(self, node)  # v * w, v an object of yours
        if dispatched is not None:
            return dispatched
        left, right = self.expr(node.left), self.expr(node.right)
        return ir.Prim(_BINOPS[type(node.op)], [left, right])

    def expr_UnaryOp(self, node):
        dispatched = operator_methods.unary(self, node)  # -v, v an object of yours
        if dispatched is not None:
            return dispatched
        operand = self.expr(node.operand)
        fn = _UNARY[type(node.op)]
        if isinstance(operand, Const) and operand.spelling is None and fn is operator.neg:
            return Const(-operand.value)
        return ir.Prim(fn, [operand])

    def expr_Compare(self, node):
        atoms = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        results = []
        for op, a, b in zip(node.ops, atoms, atoms[1:]):
            if isinstance(op, gast.In):
                results.append(ir.Prim(operator.contains, [b, a]))
            elif isinstance(op, gast.NotIn):
                inside = self.assign(ir.Prim(operator.contains, [b, a]), None, node)
                results.append(ir.Prim(operator.not_, [inside]))
            else:
                results.append(ir.Prim(_COMPARE[type(op)], [a, b]))
        if len(results) == 1:
            return results[0]
        parts = [self.assign(r, None, node) for r in results]
        return ir.Prim(AND, parts)

    def expr_BoolOp(self, node, hint=None):
        word = AND if isinstance(node.op, gast.And) else OR
        if all(_plain_truth(v, self.flags) for v in node.values):
            return ir.Prim(word, [self.expr(v) for v in node.values])
        # Short-circuit: the value is one of the operands, so it may carry a gradient.
        result = self.namer.version(hint or "t")
        first = self.expr(node.values[0])
        if len(node.values) == 1:
            return first
        rest = gast.BoolOp(op=node.op, values=node.values[1:])
        gast.copy_location(rest, node.values[1])
        key = f"\0{result}"
        self.env[key] = first
        test = first
        cont = [gast.Assign(targets=[_store(key)], value=rest, type_comment=None)]
        gast.copy_location(cont[0], node)
        if word is AND:
            self.branch(test, cont, [], node)
        else:
            self.branch(test, [], cont, node)
        return self.env.pop(key)

    def expr_NamedExpr(self, node, hint=None):
        """``(y := e)``: the assignment ``y = e`` where the expression is evaluated (in order:
        the lowering evaluates every operand into a temporary first; in a branch of ``and``,
        ``or`` or ``if``-``else`` only on that path), then ``y``'s value. Inside a
        comprehension or a lambda it binds another scope's name: validate refuses it there."""
        assign = gast.Assign(targets=[_store(node.target.id)], value=node.value,
                             type_comment=None)
        self.stmt(gast.copy_location(assign, node))
        return self.env[node.target.id]

    def expr_IfExp(self, node, hint=None):
        way = self.fixed_way(node.test, node)  # y = X if y is None else y: one way
        if way is not None:
            return self.expr(node.body if way else node.orelse, hint)
        test = self.expr(node.test)
        key = f"\0{hint or 'value'}"
        body = [gast.copy_location(gast.Assign(targets=[_store(key)], value=node.body,
                                               type_comment=None), node)]
        orelse = [gast.copy_location(gast.Assign(targets=[_store(key)], value=node.orelse,
                                                 type_comment=None), node)]
        self.branch(test, body, orelse, node)
        return self.env.pop(key)

    def expr_Tuple(self, node):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return self.expr(self._spliced(node, "tuple"))
        return ir.Prim(ir.BUILD_TUPLE, [self.expr(e) for e in node.elts])

    def expr_List(self, node):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return self.expr(self._spliced(node, "list"))
        return ir.Prim(ir.BUILD_LIST, [self.expr(e) for e in node.elts])

    def _spliced(self, node, kind):
        """``[*xs, y, *zs]`` as ``list(xs) + [y] + list(zs)`` (a tuple: ``tuple(xs) + (y,)``),
        the forms srcad differentiates, when ``list``/``tuple`` is Python's own there."""
        if kind in self.env or kind in self.source.closure or \
                self.source.globals.get(kind, _BUILTIN[kind]) is not _BUILTIN[kind]:
            raise self.error(node, "starred expressions (*xs) in a literal, with the name "
                             f"{kind!r} bound to something else", hint="build the sequence "
                             "with + or a loop")
        parts, run = [], []
        display = gast.Tuple if kind == "tuple" else gast.List
        for e in node.elts:
            if isinstance(e, gast.Starred):
                if run:
                    parts.append(display(elts=run, ctx=gast.Load()))
                    run = []
                parts.append(gast.Call(func=gast.Name(id=kind, ctx=gast.Load(), annotation=None,
                                                      type_comment=None),
                                       args=[e.value], keywords=[]))
            else:
                run.append(e)
        if run:
            parts.append(display(elts=run, ctx=gast.Load()))
        out = parts[0]
        for part in parts[1:]:
            out = gast.BinOp(left=out, op=gast.Add(), right=part)
        for sub in walk_nodes(out):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
        return out

    def expr_Subscript(self, node):
        once = getattr(self, "rows_once", {}).get(id(node))
        if once is not None:  # M[i][j] += v: the row M[i] read once (frontend.nested_rows)
            return once
        dispatched = operator_methods.subscript(self, node)  # v[i], v an object of yours
        if dispatched is not None:
            return dispatched
        if self.is_kwargs(node.value):
            return self.keyword_item(node.value, node.slice, node)
        obj = self.expr(node.value)
        if isinstance(obj, Const) and _index_trick(obj.value) and _plain_items(
                node.slice, obj.value is np.r_):
            return self.joined(obj.value, node)
        return ir.Prim(operator.getitem, [obj, self.index(node.slice)])

    def joined(self, trick, node):
        """``np.r_[a, b]`` is ``np.concatenate([np.atleast_1d(a), np.atleast_1d(b)])``;
        ``np.c_[a, b]`` joins ``a`` and ``b`` along their last axis, a vector as a column
        (``c_piece``), as NumPy does: calls with rules. Slices and string directives in the
        brackets stay an index (refused where a gradient would cross it)."""
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        piece = np.atleast_1d if trick is np.r_ else numpy_helpers.c_piece
        spelled = callee_name(self, piece, "atleast_1d" if trick is np.r_ else "c_piece")
        parts = [self.assign(self._range(e) if isinstance(e, gast.Slice) else ir.Prim(
            piece, [self.expr(e)], spelling=spelled), None, node) for e in items]
        pieces = self.assign(ir.Prim(ir.BUILD_LIST, parts), None, node)
        axis = [] if trick is np.r_ else [Const(-1)]
        return ir.Prim(np.concatenate, [pieces] + axis,
                       spelling=callee_name(self, np.concatenate, "concatenate"))

    def _range(self, node):
        """``np.r_[..., 1:n, ...]``'s slice: ``np.arange(1, n)`` (a real step, see
        :func:`_plain_items`), as NumPy makes it."""
        parts = [Const(0) if node.lower is None else self.expr(node.lower),
                 self.expr(node.upper)] + ([] if node.step is None else [self.expr(node.step)])
        return ir.Prim(np.arange, parts, spelling=callee_name(self, np.arange, "arange"))

    def index(self, node):
        once = getattr(self, "indices_once", {}).get(id(node))
        if once is not None:  # ys[i + 1] += v: the index evaluated once, as Python does
            return once
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper,
                                                                    node.step)]
            return ir.Slice(*parts)
        if isinstance(node, gast.Tuple):
            return ir.Index(tuple(self.index(e) for e in node.elts))
        return self.expr(node)

    def expr_JoinedStr(self, node):
        """``f"x={x:.2f}"`` is ``"x={:.2f}".format(x)``: a string, with no derivative."""
        template, values = [], []
        for part in node.values:
            if isinstance(part, gast.Constant):
                template.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(part, gast.FormattedValue):
                conversion = {115: "!s", 114: "!r", 97: "!a"}.get(part.conversion, "")
                spec = ""
                if part.format_spec is not None:
                    if not all(isinstance(p, gast.Constant) for p in part.format_spec.values):
                        raise self.error(node, "an f-string with a computed format spec",
                                         hint="format the number with a fixed spec")
                    spec = ":" + "".join(str(p.value) for p in part.format_spec.values)
                template.append("{" + conversion + spec + "}")
                values.append(self.expr(part.value))
        return ir.Prim(ir.Method("format"), [Const("".join(template))] + values)

    def expr_Lambda(self, node, hint=None):
        """A lambda used as a value (an argument, an element): lifted to a function of its
        own (see :meth:`srcad.frontend.lower_callees.Callees.lambda_value`)."""
        return self.lambda_value(node, hint)


def _plain_truth(node, flags):
    """Whether ``node`` is a plain truth value, safe to evaluate eagerly in ``and``/``or``."""
    simple = (gast.Name, gast.Constant, gast.Attribute)
    if isinstance(node, gast.Compare):
        return all(isinstance(c, simple) for c in [node.left, *node.comparators])
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, gast.Name):
        return node.id in flags
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return _plain_truth(node.operand, flags) or isinstance(node.operand, simple)
    if isinstance(node, gast.BoolOp):
        return all(_plain_truth(v, flags) for v in node.values)
    return False


def root_name(node):
    """The name at the root of ``a.b.c`` (None when the root is not a name)."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def dotted(node):
    """``a.b.c`` as the text the user wrote (``<expr>`` for anything else)."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return "<expr>"


def _store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def _index_trick(value):
    """Whether ``value`` is ``np.r_`` or ``np.c_`` (NumPy's index-trick objects)."""
    return value is np.r_ or value is np.c_


def _plain_items(node, ranges=False):
    """Whether the brackets hold only expressions: no string directive (``np.r_['0,2',
    a]``), no slice (``np.r_[0:3]``) unless ``ranges`` (``np.r_``'s, with an end and no step
    or a real number written as the step: NumPy's ``arange``; a complex step is a
    ``linspace``'s count, a step not written out may be one)."""
    items = node.elts if isinstance(node, gast.Tuple) else [node]
    return bool(items) and not any(
        isinstance(e, gast.Slice) and not (ranges and e.upper is not None and (
            e.step is None or isinstance(e.step, gast.Constant) and type(e.step.value) in (
                int, float)))
        or isinstance(e, gast.Constant) and isinstance(e.value, str)
        or isinstance(e, gast.Starred) for e in items)
