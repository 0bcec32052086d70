"""Lowering statements: assignments, ``if`` and the merge of its two arms.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares). It
holds the statement dispatch (``stmt_<Node>`` methods), the binding of assignment targets
(names, tuple unpacking, ``y[i] = v``), and :meth:`Statements.branch`, which lowers two arms
and merges every name they bind differently with a phi; ``if`` statements, ternaries,
short-circuit ``and``/``or`` and comprehension filters all branch through it.

Imports: gast, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`srcad.frontend` (`.writes`,
`.rebinding`, `.item_checks`, `.nested_rows`, `.fixed_tests`, `.augmented_casts`).
"""

from __future__ import annotations

import operator

import gast

from ..core import ir
from ..core.ir import Const, Var
from ..core.walk import walk_nodes
from ..errors import SrcadError
from . import augmented_casts, fixed_tests, item_checks, nested_rows, rebinding, writes


class Statements:
    """``stmt_<Node>`` for the simple statements; assignment targets; ``if``."""

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"unsupported statement: {type(node).__name__}")
        method(node)

    def stmt_Pass(self, node):
        pass

    def stmt_Delete(self, node):
        """``del name`` (of a local, among the function's statements and their ``if``
        branches: validate refuses the rest): the name is gone, so a later read is refused as a
        read before assignment, or checked at run time where only some paths delete it."""
        for target in node.targets:
            name = target.id
            if name not in self.env or self.env[name] is None or name in self.local_functions \
                    or name in self.dicts:
                raise self.error(node, f"del {name} of a name that is not a local value here",
                                 cls=SrcadError, hint="leave the name alone")
            value = self.env[name]
            if isinstance(value, Var) and value.name in self.maybe_unbound:
                unbound_check(self, name, value, node)
            self.env[name] = None

    def stmt_Expr(self, node):
        if isinstance(node.value, gast.Constant):
            return
        if isinstance(node.value, gast.Call) and writes.rewrite_call(self, node.value, None,
                                                                      node):
            return
        if self.dict_update(node.value, node):
            return
        value = self.expr_value(node.value)
        if isinstance(value, ir.Prim):
            self.emit(ir.Assign(None, value, node.lineno, effect=True))

    def stmt_Assert(self, node):
        test = self.expr(node.test)
        args = [test] if node.msg is None else [test, self.expr(node.msg)]
        self.emit(ir.Assign(None, ir.Prim(ir.ASSERT, args), node.lineno, effect=True))

    def stmt_Raise(self, node):
        value = Const(None, "None") if node.exc is None else self.expr(node.exc)
        self.emit(ir.Raise(value, node.lineno))

    def stmt_Return(self, node):
        hint = "result" if "y" in self.namer.versioned | self.namer.free or "y" in self.env \
            else "y"
        value = Const(None) if node.value is None else self.expr(node.value, hint)
        self.emit(ir.Return(value, node.lineno))

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.bind(node.target, node.value, node)

    def stmt_Assign(self, node):
        if id(node) in self.deferred_at and self.defer(node):
            return  # it = zip(xs, ys), its values taken once, later (lower_spread)
        if len(node.targets) == 1 and isinstance(node.value, gast.Call) and (
            writes.rewrite_call(self, node.value, node.targets[0], node)
        ):
            return
        if len(node.targets) == 1:
            self.bind(node.targets[0], node.value, node)
            return
        value = self.expr(node.value)
        for target in node.targets:
            self.bind_atom(target, value, node)

    def bind(self, target, value_node, node):
        if isinstance(target, gast.Name) and isinstance(value_node, gast.Lambda) and \
                target.id.isidentifier():  # (not a choice's own "\0..." name: a value)
            lam = value_node
            fdef = gast.FunctionDef(name=target.id, args=lam.args, body=[gast.copy_location(
                gast.Return(value=lam.body), lam)], decorator_list=[], returns=None,
                type_comment=None, type_params=[])
            self.local_function(target.id, gast.copy_location(fdef, lam), node)
            return
        if isinstance(target, gast.Name) and getattr(node, "srcad_unset", False):
            self.env[target.id] = ir.UNSET
            return
        if self.keyword_display(target, value_node):
            return
        if self.copied_sequence(target, value_node, node):
            return
        if isinstance(target, gast.Name):
            self.no_rebinding(target, node)
            before = self.env.get(target.id)
            augmented = getattr(node, "srcad_augmented", False)
            # x += v of an immutable value rebinds x: checked here (a global) or when the code
            # runs (a value read from an attribute); not a write in place then
            rebound = augmented and rebinding.guard_augmented(self, target, before, node)
            self.env[target.id] = after = self.expr(value_node, target.id)
            if augmented and not rebound and isinstance(before, Var) and (
                isinstance(after, Var) and after.name != before.name
            ):
                self.augmented[after.name] = before.name  # Python may change it in place
                if not self.generated:  # and keeps its dtype (or raises): a cast
                    augmented_casts.mark(self, after.name, before, node)
        elif isinstance(target, (gast.Tuple, gast.List)) and isinstance(
            value_node, (gast.Tuple, gast.List)
        ) and len(target.elts) == len(value_node.elts) and not any(
            isinstance(e, gast.Starred) for e in target.elts + value_node.elts
        ):
            values = [self.expr(v) for v in value_node.elts]  # all right sides first: swaps
            for t, v in zip(target.elts, values):
                self.bind_atom(t, v, node)
        elif getattr(node, "srcad_augmented", False) and isinstance(target, gast.Subscript) and (
                isinstance(target.value, gast.Name) and isinstance(value_node, gast.BinOp)):
            self.augmented_item(target, value_node, node)
        elif getattr(node, "srcad_augmented", False) and nested_rows.handles(self, target):
            nested_rows.augmented(self, target, value_node, node)  # M[i][j] += v
        else:
            if self.unzipped(target, value_node, node):  # a, b = zip(*rows), rows unknown
                return
            if isinstance(target, (gast.Tuple, gast.List)):
                value_node = self.consumed(value_node)  # a, b = zip(*pairs), map(...)
            self.bind_atom(target, self.expr(value_node), node)

    def augmented_item(self, target, value_node, node):
        """``ys[k] += v``: see :func:`.item_checks.augmented_item`."""
        item_checks.augmented_item(self, target, value_node, node)

    def bind_atom(self, target, value, node):
        if isinstance(target, gast.Name):
            self.no_rebinding(target, node)
            self.env[target.id] = value
        elif isinstance(target, (gast.Tuple, gast.List)):
            stars = [i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)]
            if stars:
                self.bind_starred(target.elts, stars[0], value, node)
                return
            items = self.tuples.get(value.name) if isinstance(value, Var) else None
            if items is not None and len(items) == len(target.elts):
                for t, item in zip(target.elts, items):  # a tuple built here: its items
                    self.bind_atom(t, item, node)
                return
            for i, t in enumerate(target.elts):
                hint = t.id if isinstance(t, gast.Name) else None
                self.bind_atom(t, self.assign(ir.Prim(operator.getitem, [value, Const(i)]),
                                              hint, node), node)
        elif nested_rows.handles(self, target):
            nested_rows.write(self, target, value, node)  # M[i][j] = v
        elif isinstance(target, gast.Subscript):
            obj = self.expr(target.value)
            if isinstance(obj, Const) and isinstance(target.value, gast.Name):
                writes.refuse_global_write(self, node, target.value.id)
            if isinstance(target.value, gast.Attribute) and target.value.attr == "flat":
                raise self.error(node, "writing through x.flat", hint="index the array "
                                 "itself: y[np.unravel_index(i, y.shape)] = v (or y = "
                                 "y.ravel().copy(); y[i] = v; y = y.reshape(shape))")
            if not isinstance(obj, Var) or not isinstance(target.value, gast.Name):
                if getattr(node, "srcad_augmented", False):
                    raise self.error(node, f"an augmented assignment ({_op(node)}=) into an "
                                     "item of an expression", hint="index the array once "
                                     f"(y[i, j] {_op(node)}= v), or change a copy of the "
                                     f"inner list and put it back: row = list(ys[i]); row[j] = "
                                     f"row[j] {_op(node)} v; ys[i] = row")
                raise self.error(node, "assignment into a subscript of an expression",
                                 hint="assign into a named array: y[i] = v")
            index = self.index(target.slice)
            name = self.namer.version(target.value.id)
            self.emit(ir.SetItem(name, obj, index, value, node.lineno))
            items = self.lists.get(obj.name) if target.value.id in self.frozen else None
            if items is not None and isinstance(index, Const) and type(index.value) is int \
                    and -len(items) <= index.value < len(items):
                items = list(items)  # the new version's items: one replaced
                items[index.value] = value
                self.lists[name] = items
            elif items is not None and isinstance(index, Var):  # a[k] = v: the length stays
                self.lists[name] = [self.assign(ir.Prim(operator.getitem, [Var(name), Const(
                    i)]), "item", node) for i in range(len(items))]
            self.env[target.value.id] = Var(name)
            if obj.name in self.dicts_built:
                self.dicts_built.add(name)  # still a dict built here
        elif isinstance(target, gast.Attribute) and writes.set_shape(self, target, value, node):
            return
        elif isinstance(target, gast.Attribute):
            if getattr(node, "srcad_augmented", False):
                raise self.error(node, f"an augmented assignment ({_op(node)}=) to an "
                                 "attribute", hint=f"keep the new value in a name: v = "
                                 f"obj.{target.attr} {_op(node)} w, and use v")
            raise self.error(node, "writing an attribute (obj.attr = ...)",
                             hint="srcad differentiates values, not objects: return the new "
                             "value, pass it as an argument, or build the object in the "
                             f"function from it: C(v).method(x) rather than obj.{target.attr} "
                             "= v; obj.method(x)")
        else:
            raise self.error(node, f"unsupported assignment target {type(target).__name__}")

    def bind_starred(self, targets, star, value, node):
        """``a, *rest, z = value``: ``a = value[0]``, ``rest = list(value[1:-1])``,
        ``z = value[-1]`` (Python makes ``rest`` a list; too few items raise, as in Python).
        (corpus31) Of a tuple whose items are known (a ``*args`` parameter, a tuple built
        here) with enough of them: each name its item, ``rest`` a list display of its items
        (spliced by ``f(*rest)`` where the function never changes it: SurPyval's
        ``*params, gamma, f0, p = params``)."""
        after = len(targets) - star - 1
        items = self.tuples.get(value.name) if isinstance(value, Var) else None
        if items is not None and len(items) >= len(targets) - 1:
            for i, t in enumerate(targets):
                if i == star:
                    hint = t.value.id if isinstance(t.value, gast.Name) else None
                    part = ir.Prim(ir.BUILD_LIST, list(items[star:len(items) - after]))
                    self.bind_atom(t.value, self.assign(part, hint, node), node)
                else:
                    self.bind_atom(t, items[i if i < star else i - len(targets)], node)
            return
        count = self.assign(ir.Prim(len, [value]), None, node)
        need = self.assign(ir.Prim(operator.ge, [count, Const(len(targets) - 1)]), None, node)
        self.emit(ir.Assign(None, ir.Prim(ir.ASSERT, [need, Const(
            "not enough values to unpack")]), node.lineno, effect=True))
        for i, t in enumerate(targets):
            if i == star:
                upper = Const(-after) if after else None
                part = self.assign(ir.Prim(operator.getitem, [value, ir.Slice(
                    Const(star) if star else None, upper, None)]), None, node)
                hint = t.value.id if isinstance(t.value, gast.Name) else None
                self.bind_atom(t.value, self.assign(ir.Prim(list, [part]), hint, node), node)
                continue
            index = Const(i) if i < star else Const(i - len(targets))
            hint = t.id if isinstance(t, gast.Name) else None
            self.bind_atom(t, self.assign(ir.Prim(operator.getitem, [value, index]), hint,
                                          node), node)

    def stmt_If(self, node):
        way, rest = fixed_tests.fixed_ways(self, node.test, node)
        if way is not None:  # if ax: / if ax is not None: on a parameter given None, a bool
            for stmt in node.body if way else node.orelse:
                self.stmt(stmt)
            return
        test = self.expr(rest)
        self.branch(test, node.body, node.orelse, node)

    def fixed_way(self, test, node=None):
        """The way ``if test:`` goes where the specialisation fixes it (:mod:`.fixed_tests`)."""
        return fixed_tests.fixed_way(self, test, node)

    def set_flag(self, source):
        """Whether a merge's ``source`` holds a value on its path: Const(True), Const(False)
        (unset: the generated code holds None there), or the flag Var of a merge that may be
        unset. A flag, not ``is None``: a value set on its path may be None itself."""
        if source is None:
            return Const(False)
        if isinstance(source, Var) and source.name in self.maybe_unbound:
            return self.maybe_unbound[source.name]
        return Const(True)

    def note_unbound(self, target, name, sources):
        """If a path leaves ``target`` unset (a source None, or itself such a merge), return a
        Phi of the flags saying whether it is set (remembered for the reads to check), else
        None. srcad's own code never reads a name where it is unset: no flag there."""
        if self.generated:
            return None
        flags = [self.set_flag(s) for s in sources]
        if all(isinstance(f, Const) and f.value is True for f in flags):
            return None
        phi = ir.Phi(self.namer.temp(f"{name}_set"), flags)
        self.maybe_unbound[target] = Var(phi.target)
        return phi

    def branch(self, test, body, orelse, node, emit_body=None):
        before = dict(self.env)
        then_block = self.sub_block(body) if emit_body is None else emit_body()
        then_env, self.env = self.env, dict(before)
        else_block = self.sub_block(orelse)
        else_env = self.env
        phis, merged = [], dict(before)
        for name in sorted(set(then_env) | set(else_env)):
            a, b = then_env.get(name), else_env.get(name)
            if same(a, b):
                merged[name] = a
                continue
            target = self.namer.version(name)
            phis.append(ir.Phi(target, [a, b]))
            rebinding.note_merge(self, target, [a, b])
            merged[name] = Var(target)
            flag = self.note_unbound(target, name, (a, b))
            if flag is not None:
                phis.append(flag)
            if all(isinstance(s, Var) and s.name in self.dicts_built for s in (a, b)):
                self.dicts_built.add(target)  # either way a dict built here
            self.note_choices(target, a, b)  # g = f1 if c else f2: g(x) calls one of them
        self.env = merged
        self.emit(ir.If(test, then_block, else_block, phis, node.lineno))


def unbound_check(lw, name, value, node):
    """Before a read of ``name`` whose merged value ``value`` is unset on some path: raise
    UnboundLocalError as Python does, where its flag (``note_unbound``) says it is unset."""
    flag = lw.maybe_unbound[value.name]
    test = lw.assign(ir.Prim(operator.not_, [flag]), None, node)
    error = Const(UnboundLocalError(f"cannot access local variable {name!r} where it is not "
                                    "associated with a value"), None)
    line = getattr(node, "lineno", None)  # (a name srcad's own code reads has none)
    lw.emit(ir.If(test, [ir.Raise(error, line)], [], [], line))


def same(a, b):
    """Whether two atoms are one value (the same object, or Vars of one name)."""
    if a is b:
        return True
    if isinstance(a, Var) and isinstance(b, Var):
        return a.name == b.name
    return False


_OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
        gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|",
        gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


def _op(node):
    """The operator of an augmented assignment (``*`` for ``y[0][1] *= v``)."""
    return _OPS.get(type(getattr(node.value, "op", None)), "op")


def unrebound_tests(fdef):
    """``id(node) -> names bound before it`` for the tests of the body's own ``if`` statements
    and of a ternary that is the whole value of one of its assignments (``y = X if y is None
    else y``): where such a test runs, any other name still holds the parameter's value (not in
    a loop: no statement runs before it twice). Names a ternary's value binds itself (``:=``)
    count as bound before it."""
    tests, bound = {}, set()
    for stmt in fdef.body:
        if isinstance(stmt, gast.If):
            tests[id(stmt)] = frozenset(bound)
        elif isinstance(stmt, (gast.Assign, gast.AnnAssign)) and isinstance(stmt.value,
                                                                            gast.IfExp):
            tests[id(stmt.value)] = frozenset(bound | _bound_in(stmt.value))
        bound |= _bound_in(stmt)
    return tests


def _bound_in(node):
    names = set()
    for sub in walk_nodes(node):
        if isinstance(sub, gast.Name) and not isinstance(sub.ctx, gast.Load):
            names.add(sub.id)
        elif isinstance(sub, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, gast.alias):
            names.add((sub.asname or sub.name).partition(".")[0])
        elif isinstance(sub, (gast.Global, gast.Nonlocal)):
            names.update(sub.names)
    return names
