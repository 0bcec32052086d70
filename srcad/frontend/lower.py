"""Lower the desugared gast tree to structured SSA (:mod:`srcad.ir`).

After this pass: every statement performs one primitive operation on atoms; every name is
assigned once (loop headers aside), versions named after the user's names (``x``, ``x_1``);
branches end in explicit phis and loops carry explicit header phis; every call's callee is
resolved to the Python object it names now (``math.sin``, ``np.dot``, a user function);
``for`` loops run over ``range(...)`` (other iterables are indexed); comprehensions, ternaries
and short-circuit ``and``/``or`` are statements. Copies (``a = b``) are propagated away.
"""

from __future__ import annotations

import inspect
import operator

import gast

from ..core import ir
from ..core.env import is_library_module
from ..core.ir import AND, OR, Const, Var
from ..errors import SrcadError, UnsupportedSyntaxError
from . import writes

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





class Lowerer:
    def __init__(self, source, namer, flags=()):
        self.source = source
        self.namer = namer
        self.flags = set(flags)
        self.tuples = {}  # name of a tuple built here -> its element atoms
        self.dicts = {}  # the **kwargs parameter (not rebound) -> {key: atom} in this call
        self.local_functions = {}  # nested def name -> (lifted function, captured names)
        self.lifted = {}  # spelling in generated code -> lifted function
        self.augmented = {}  # SSA name made by ``x += v`` -> the name it changes in place
        self.iterated = {}  # counter of a ``for`` over a sequence -> the sequence atoms
        self.env = {}
        self.out = []

    # ---------------------------------------------------------------- helpers

    def error(self, node, message, hint=None, cls=UnsupportedSyntaxError):
        line = getattr(node, "lineno", None)
        return cls(message, filename=self.source.filename, lineno=line,
                   construct=self.source.line_text(line), hint=hint)

    def emit(self, stmt):
        self.out.append(stmt)
        return stmt

    def assign(self, value, hint, node):
        """Emit ``name = value`` for a fresh name derived from ``hint``; return its Var."""
        if isinstance(value, (Var, Const)):
            return value
        name = self.namer.version(hint) if hint else self.namer.temp(_hint(value))
        self.emit(ir.Assign(name, value, getattr(node, "lineno", None)))
        if isinstance(value, ir.Prim) and value.fn is ir.BUILD_TUPLE:
            self.tuples[name] = list(value.args)  # its length is known: f(*t) can splice it
        return Var(name)

    def sub_block(self, stmts):
        saved, self.out = self.out, []
        for stmt in stmts:
            self.stmt(stmt)
        block, self.out = self.out, saved
        return block

    # ---------------------------------------------------------------- function

    def function(self, fdef, arity=None):
        """Lower ``fdef``; ``arity`` (a :class:`srcad.calls.Arity`) gives the items of its
        ``*args`` and ``**kwargs`` in one call: each becomes a parameter of its own."""
        args = fdef.args
        if (args.vararg or args.kwarg) and arity is None:
            raise self.error(fdef, "differentiating a function with *args or **kwargs "
                             "parameters directly (srcad cannot tell which argument wrt means)",
                             hint="name each parameter the gradient may need; called from "
                             "the function you differentiate, such a function is fine (a "
                             "decorator's wrapper too, with functools.wraps)")
        params = [a.id for a in args.posonlyargs + args.args]
        kwonly = [a.id for a in args.kwonlyargs]
        items = list(arity.items) if arity else []
        keys = [name for _, name in arity.keys] if arity else []
        for p in params + items + kwonly + keys:
            self.namer.reserve(p)
            self.namer.versioned.add(p)
            if p not in items and p not in keys:
                self.env[p] = Var(p)
        prologue = []
        if args.vararg:  # args = (args_0, args_1): a tuple of known length
            saved, self.out = self.out, prologue
            self.env[args.vararg.id] = self.assign(
                ir.Prim(ir.BUILD_TUPLE, [Var(i) for i in items]), args.vararg.id, fdef)
            self.out = saved
        if args.kwarg:
            self.dicts[args.kwarg.id] = {key: Var(name) for key, name in arity.keys}
        params = params + items + kwonly + keys
        body = prologue + self.sub_block(fdef.body)
        fn = ir.Function(fdef.name, params, body, self.source)
        fn.arity = arity
        fn.lifted = dict(self.lifted)
        fn.augmented = dict(self.augmented)
        fn.iterated = dict(self.iterated)
        return fn

    # ---------------------------------------------------------------- statements

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"unsupported statement: {type(node).__name__}")
        method(node)

    def stmt_Pass(self, node):
        pass

    def stmt_Expr(self, node):
        if isinstance(node.value, gast.Constant):
            return
        if isinstance(node.value, gast.Call) and writes.rewrite_call(self, node.value, None,
                                                                      node):
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
        if isinstance(target, gast.Name) and isinstance(value_node, gast.Lambda):
            lam = value_node
            fdef = gast.FunctionDef(name=target.id, args=lam.args, body=[gast.copy_location(
                gast.Return(value=lam.body), lam)], decorator_list=[], returns=None,
                type_comment=None, type_params=[])
            self.local_function(target.id, gast.copy_location(fdef, lam), node)
            return
        if isinstance(target, gast.Name):
            self.no_rebinding(target, node)
            before = self.env.get(target.id)
            self.env[target.id] = after = self.expr(value_node, target.id)
            if getattr(node, "srcad_augmented", False) and isinstance(before, Var) and (
                isinstance(after, Var) and after.name != before.name
            ):
                self.augmented[after.name] = before.name  # Python may change it in place
        elif isinstance(target, (gast.Tuple, gast.List)) and isinstance(
            value_node, (gast.Tuple, gast.List)
        ) and len(target.elts) == len(value_node.elts) and not any(
            isinstance(e, gast.Starred) for e in target.elts + value_node.elts
        ):
            values = [self.expr(v) for v in value_node.elts]  # all right sides first: swaps
            for t, v in zip(target.elts, values):
                self.bind_atom(t, v, node)
        else:
            self.bind_atom(target, self.expr(value_node), node)

    def bind_atom(self, target, value, node):
        if isinstance(target, gast.Name):
            self.no_rebinding(target, node)
            self.env[target.id] = value
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                raise self.error(node, "starred assignment targets (a, *rest = ...)",
                                 hint="index the sequence explicitly")
            for i, t in enumerate(target.elts):
                hint = t.id if isinstance(t, gast.Name) else None
                self.bind_atom(t, self.assign(ir.Prim(operator.getitem, [value, Const(i)]),
                                              hint, node), node)
        elif isinstance(target, gast.Subscript):
            obj = self.expr(target.value)
            if isinstance(obj, Const) and isinstance(target.value, gast.Name):
                writes.refuse_global_write(self, node, target.value.id)
            if not isinstance(obj, Var) or not isinstance(target.value, gast.Name):
                raise self.error(node, "assignment into a subscript of an expression",
                                 hint="assign into a named array: y[i] = v")
            index = self.index(target.slice)
            name = self.namer.version(target.value.id)
            self.emit(ir.SetItem(name, obj, index, value, node.lineno))
            self.env[target.value.id] = Var(name)
        elif isinstance(target, gast.Attribute):
            raise self.error(node, "writing an attribute (obj.attr = ...)",
                             hint="srcad differentiates values, not objects: return the new "
                             "value, or pass it as an argument")
        else:
            raise self.error(node, f"unsupported assignment target {type(target).__name__}")

    def stmt_If(self, node):
        test = self.expr(node.test)
        self.branch(test, node.body, node.orelse, node)

    def branch(self, test, body, orelse, node, emit_body=None):
        before = dict(self.env)
        then_block = self.sub_block(body) if emit_body is None else emit_body()
        then_env, self.env = self.env, dict(before)
        else_block = self.sub_block(orelse)
        else_env = self.env
        phis, merged = [], dict(before)
        for name in sorted(set(then_env) | set(else_env)):
            a, b = then_env.get(name), else_env.get(name)
            if _same(a, b):
                merged[name] = a
                continue
            target = self.namer.version(name)
            phis.append(ir.Phi(target, [a, b]))
            merged[name] = Var(target)
        self.env = merged
        self.emit(ir.If(test, then_block, else_block, phis, node.lineno))

    # ---------------------------------------------------------------- loops

    def stmt_While(self, node):
        self.loop("while", node.lineno, _assigned_names(node.body),
                  body=lambda: self.loop_body(node.body), header=lambda: self.expr(node.test))
        for stmt in node.orelse:  # no break in the body (desugar took those): else always runs
            self.stmt(stmt)

    def stmt_For(self, node):
        self.for_loop(node.target, node.iter, node, lambda: self.loop_body(node.body))
        for stmt in node.orelse:
            self.stmt(stmt)

    def loop_body(self, stmts):
        """Lower a desugared loop body; return the exit test of its final ``if ...: break``."""
        if stmts and _is_exit(stmts[-1]):
            for s in stmts[:-1]:
                self.stmt(s)
            return self.expr(stmts[-1].test)
        for s in stmts:
            self.stmt(s)
        return None

    def for_loop(self, target, iter_node, node, body_fn):
        """Lower ``for target in iter`` to ``for i in range(...)`` plus element reads."""
        kind, parts = self.iteration(iter_node)
        if kind == "range":
            rng = ir.Prim(range, [self.expr(a) for a in parts], spelling="range")
            elements = None
        else:
            elements = parts
            n = self.assign(ir.Prim(len, [parts[0]], spelling="len"), "n", node)
            for seq in parts[1:]:
                m = self.assign(ir.Prim(len, [seq], spelling="len"), "n", node)
                n = self.assign(ir.Prim(min, [n, m], spelling="min"), "n", node)
            if kind == "reversed":
                top = self.assign(ir.Prim(operator.sub, [n, Const(1)]), "last", node)
                rng = ir.Prim(range, [top, Const(-1), Const(-1)], spelling="range")
            else:
                rng = ir.Prim(range, [n], spelling="range")
        index_name = None
        if kind == "range" and isinstance(target, gast.Name):
            index_name = target.id
        elif kind == "enumerate" and isinstance(target, (gast.Tuple, gast.List)) and len(
            target.elts
        ) == 2 and isinstance(target.elts[0], gast.Name):
            index_name = target.elts[0].id
        counter = self.namer.version(index_name) if index_name else self.namer.temp("i")
        if elements is not None:
            self.iterated[counter] = (list(elements), node.lineno)

        def body():
            if index_name:
                self.env[index_name] = Var(counter)
            if elements is not None:
                reads = [
                    self.assign(ir.Prim(operator.getitem, [seq, Var(counter)]), None, node)
                    for seq in elements
                ]
                if kind == "enumerate":
                    if index_name:
                        self.bind_atom(target.elts[1], reads[0], node)
                    else:
                        pair = ir.Prim(ir.BUILD_TUPLE, [Var(counter), reads[0]])
                        self.bind_atom(target, self.assign(pair, None, node), node)
                elif kind == "zip" and isinstance(target, (gast.Tuple, gast.List)) and len(
                    target.elts
                ) == len(reads):
                    for t, r in zip(target.elts, reads):
                        self.bind_atom(t, r, node)
                elif kind == "zip":
                    self.bind_atom(target, self.assign(ir.Prim(ir.BUILD_TUPLE, reads), None,
                                                       node), node)
                else:
                    self.bind_atom(target, reads[0], node)
            elif not index_name:
                self.bind_atom(target, Var(counter), node)
            return body_fn()

        body_names = _assigned_names(node.body) if isinstance(node, gast.For) else set()
        assigned = body_names | _store_names(target)
        self.loop("for", node.lineno, assigned, body=body, target=counter, iterable=rng)

    def iteration(self, iter_node):
        """Classify an iterable: ("range", args) or ("seq"/"enumerate"/"zip"/"reversed", atoms)."""
        if isinstance(iter_node, gast.Call) and isinstance(iter_node.func, gast.Name) and (
            iter_node.func.id not in self.env
        ):
            fn = self.lookup(iter_node.func.id, iter_node)
            args = iter_node.args
            if fn is range and not iter_node.keywords:
                return "range", args
            if fn is enumerate and len(args) == 1 and not iter_node.keywords:
                return "enumerate", [self.sequence(args[0])]
            if fn is zip and args and not iter_node.keywords:
                return "zip", [self.sequence(a) for a in args]
            if fn is reversed and len(args) == 1:
                return "reversed", [self.sequence(args[0])]
        return "seq", [self.sequence(iter_node)]

    def sequence(self, node):
        atom = self.expr(node)
        if isinstance(node, (gast.Name, gast.List, gast.Tuple)) or isinstance(atom, Const):
            return atom
        if isinstance(node, gast.Call):
            return self.assign(ir.Prim(list, [atom], spelling="list"), "seq", node)
        return atom

    def loop(self, kind, line, assigned, body, header=None, target=None, iterable=None):
        """Emit a Loop with a header phi for every name the body may change."""
        assigned = sorted(assigned)
        phis = []
        for name in assigned:
            phi = ir.Phi(self.namer.version(name), [self.env.get(name), None])
            phis.append(phi)
            self.env[name] = Var(phi.target)
        saved, self.out = self.out, []
        test = header() if header is not None else None
        header_block, self.out = self.out, []
        exit_test = body()
        block, self.out = self.out, saved
        kept = []
        for phi, name in zip(phis, assigned):
            phi.sources[1] = self.env.get(name)
        replaced = {}
        for phi, name in zip(phis, assigned):
            latch = phi.sources[1]
            for old, new in replaced.items():
                latch = _subst(latch, old, new)
            phi.sources[1] = latch
            if latch is None or _same(latch, Var(phi.target)):
                # The body leaves the name as it found it: no merge needed.
                entry = phi.sources[0]
                if entry is not None:
                    _replace_everywhere(block + header_block, phi.target, entry)
                    test = _subst(test, phi.target, entry)
                    exit_test = _subst(exit_test, phi.target, entry)
                    replaced[phi.target] = entry
                    for other in kept:
                        other.sources[1] = _subst(other.sources[1], phi.target, entry)
                self.env[name] = entry
                if entry is None:
                    self.env.pop(name, None)
                continue
            kept.append(phi)
            self.env[name] = Var(phi.target)
        self.emit(ir.Loop(kind, block, kept, target=target, iter=iterable, header=header_block,
                          test=test, exit=exit_test, line=line))

    # ---------------------------------------------------------------- expressions

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
        if node.id in self.env:
            value = self.env[node.id]
            if value is None:
                raise self.error(node, f"{node.id!r} may be used before it is assigned",
                                 cls=SrcadError, hint="assign it on every path first")
            return value
        value = self.lookup(node.id, node)
        return Const(value, node.id)

    def no_rebinding(self, target, node):
        if target.id in self.dicts:
            raise self.error(node, f"assigning to the **{target.id} parameter",
                             hint=f"give the new value a name of its own; srcad reads "
                             f"{target.id} as the keyword arguments of the call")

    def kwargs_error(self, node, name=None):
        name = name or _root_name(node) or "kwargs"
        return self.error(node, f"using **{name} other than by {name}['key'], "
                          f"{name}.get('key', default) or passing it on (f(**{name}))",
                          hint=f"read the keyword arguments you need from {name} one by one, "
                          "or name them as parameters")

    def lookup(self, name, node):
        if name in self.dicts and name not in self.env:
            raise self.kwargs_error(node)
        try:
            return self.source.lookup(name)
        except KeyError:
            raise self.error(node, f"name {name!r} is not defined", cls=SrcadError,
                             hint="srcad resolves free names in the function's module") from None

    def expr_Attribute(self, node):
        root = _root_name(node)
        if root is not None and root not in self.env:
            return Const(self.resolve_dotted(node), _dotted(node))
        obj = self.expr(node.value)
        return ir.Prim(ir.Attr(node.attr), [obj])

    def resolve_dotted(self, node):
        """The object ``a.b.c`` names now. The read is recorded for its whole path (for a
        library module's attribute, ``np.sum``, for its root only)."""
        value = self._resolve_dotted(node)
        if isinstance(node, gast.Attribute):
            path = _dotted(node).split(".")
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
            raise self.error(node, f"{_dotted(node)} does not exist", cls=SrcadError) from None

    def expr_BinOp(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        return ir.Prim(_BINOPS[type(node.op)], [left, right])

    def expr_UnaryOp(self, node):
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

    def expr_IfExp(self, node, hint=None):
        test = self.expr(node.test)
        key = f"\0{hint or 'value'}"
        body = [gast.copy_location(gast.Assign(targets=[_store(key)], value=node.body,
                                               type_comment=None), node)]
        orelse = [gast.copy_location(gast.Assign(targets=[_store(key)], value=node.orelse,
                                                 type_comment=None), node)]
        self.branch(test, body, orelse, node)
        return self.env.pop(key)

    def expr_Tuple(self, node):
        return ir.Prim(ir.BUILD_TUPLE, [self.expr(e) for e in self._elements(node)])

    def expr_List(self, node):
        return ir.Prim(ir.BUILD_LIST, [self.expr(e) for e in self._elements(node)])

    def _elements(self, node):
        for e in node.elts:
            if isinstance(e, gast.Starred):
                raise self.error(node, "starred expressions (*xs) in a literal",
                                 hint="build the sequence with + or a loop")
        return node.elts

    def expr_Subscript(self, node):
        if self.is_kwargs(node.value):
            return self.keyword_item(node.value, node.slice, node)
        obj = self.expr(node.value)
        return ir.Prim(operator.getitem, [obj, self.index(node.slice)])

    def index(self, node):
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper,
                                                                    node.step)]
            return ir.Slice(*parts)
        if isinstance(node, gast.Tuple):
            return ir.Index(tuple(self.index(e) for e in node.elts))
        return self.expr(node)

    def is_kwargs(self, node):
        """Whether ``node`` names the ``**kwargs`` parameter (its items known in this call)."""
        return isinstance(node, gast.Name) and node.id in self.dicts and node.id not in self.env

    def keyword_item(self, name_node, key_node, node, default=None):
        """``kwargs['key']`` (or ``kwargs.get('key', default)``): the atom passed for it."""
        items = self.dicts[name_node.id]
        if not (isinstance(key_node, gast.Constant) and isinstance(key_node.value, str)):
            raise self.error(node, f"reading **{name_node.id} with a computed key",
                             hint=f"write the key as a string: {name_node.id}['scale']")
        if key_node.value in items:
            return items[key_node.value]
        if default is not None:
            return self.expr(default)
        raise self.error(node, f"{name_node.id}[{key_node.value!r}]: this call passes no "
                         f"keyword {key_node.value!r} (Python raises KeyError)",
                         hint=f"pass {key_node.value}=... in the call, or read it with "
                         f"{name_node.id}.get({key_node.value!r}, default)")

    def expr_Call(self, node, hint=None):
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "get" and self.is_kwargs(
            func.value
        ) and 1 <= len(node.args) <= 2 and not node.keywords:
            default = node.args[1] if len(node.args) == 2 else gast.Constant(None, None)
            return self.keyword_item(func.value, node.args[0], node, default)
        if any(k.arg is None and self.is_kwargs(k.value) for k in node.keywords):
            keywords = []
            for k in node.keywords:
                if k.arg is None and self.is_kwargs(k.value):
                    keywords += [gast.keyword(arg=key, value=_AtomNode(atom)) for key, atom in
                                 self.dicts[k.value.id].items()]
                else:
                    keywords.append(k)
            names = [k.arg for k in keywords if k.arg is not None]
            if len(set(names)) != len(names):
                raise self.error(node, "a keyword given twice (once through **kwargs)",
                                 hint="pass each keyword once")
            node = gast.copy_location(gast.Call(func=node.func, args=node.args,
                                                keywords=keywords), node)
        writes.refuse_keywords(self, node)
        if any(k.arg is None for k in node.keywords):
            raise self.error(node, "keyword unpacking (**kwargs) in a call",
                             hint="pass the keyword arguments one by one")
        if any(isinstance(a, gast.Starred) for a in node.args):
            node = gast.copy_location(gast.Call(func=node.func, args=self.spliced(node),
                                                keywords=node.keywords), node)
        func = node.func
        if isinstance(func, gast.Attribute) and _root_name(func) in self.env | {None: None}:
            obj = self.expr(func.value)
            args = [obj] + [self.expr(a) for a in node.args]
            kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
            return ir.Prim(ir.Method(func.attr), args, kwargs)
        if isinstance(func, gast.Name) and func.id in self.local_functions:
            return self.local_call(func.id, node)
        if isinstance(func, gast.Name) and func.id in self.env:
            raise self.error(node, f"calling the local value {func.id!r}",
                             hint="call a function defined at module level or imported")
        if not isinstance(func, (gast.Name, gast.Attribute)):
            raise self.error(node, "calling the result of an expression",
                             hint="call a named function")
        fn = self.resolve_dotted(func)
        if inspect.isfunction(fn):
            # the callee's defaults fill its call: they are read (and guarded) like the name
            path = _dotted(func).split(".")
            for attr in ("__defaults__", "__kwdefaults__"):
                if getattr(fn, attr, None) is not None:
                    self.source.lookup(path[0], path[1:] + [attr])
        writes.refuse_in_expression(self, fn, node)
        if fn in _COMPREHENSION_CALLS and len(node.args) == 1 and isinstance(
            node.args[0], (gast.GeneratorExp, gast.ListComp)
        ):
            seq = self.comprehension(node.args[0], hint)
            args, spelling = [seq], _dotted(func)
        else:
            args, spelling = [self.expr(a) for a in node.args], _dotted(func)
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        return ir.Prim(fn, args, kwargs, spelling=spelling)

    def spliced(self, node):
        """``f(*t)`` with ``t`` a tuple of known length: its elements, one argument each."""
        args = []
        for a in node.args:
            if not isinstance(a, gast.Starred):
                args.append(a)
                continue
            value = a.value
            if isinstance(value, (gast.Tuple, gast.List)):
                args.extend(value.elts)
                continue
            atom = self.expr(value)
            items = self.tuples.get(atom.name) if isinstance(atom, Var) else None
            if items is None:
                raise self.error(node, "unpacking (*args) of a value whose length srcad "
                                 "cannot know", hint="unpack a tuple built in the function "
                                 "(args = (a, b); f(*args)), or pass the arguments one by one")
            args.extend(_AtomNode(i) for i in items)
        return args

    def expr__AtomNode(self, node):
        return node.atom

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

    def expr_ListComp(self, node, hint=None):
        return self.comprehension(node, hint)

    def expr_GeneratorExp(self, node, hint=None):
        return self.comprehension(node, hint)

    def comprehension(self, node, hint=None):
        """``[elt for x in xs if c]`` becomes a loop that appends to a fresh list."""
        acc = self.assign(ir.Prim(ir.BUILD_LIST, []), self.namer.temp(hint or "items"), node)
        saved_env = dict(self.env)
        self._comp(node.generators, node.elt, acc, node)
        self.env = saved_env
        return acc

    def _comp(self, generators, elt, acc, node):
        gen, rest = generators[0], generators[1:]
        if gen.is_async:
            raise self.error(node, "async comprehensions")

        def body():
            self._comp_conds(list(gen.ifs), rest, elt, acc, node)
            return None

        self.for_loop(gen.target, gen.iter, node, body)

    def _comp_conds(self, conds, rest, elt, acc, node):
        if conds:
            test = self.expr(conds[0])

            def then():
                saved, self.out = self.out, []
                self._comp_conds(conds[1:], rest, elt, acc, node)
                block, self.out = self.out, saved
                return block

            self.branch(test, [], [], node, emit_body=then)
            return
        self._comp_tail(rest, elt, acc, node)

    def _comp_tail(self, rest, elt, acc, node):
        if rest:
            self._comp(rest, elt, acc, node)
            return
        value = self.expr(elt)
        self.emit(ir.Assign(None, ir.Prim(ir.Method("append"), [acc, value]), node.lineno,
                            effect=True))

    def expr_Lambda(self, node):
        raise self.error(node, "a lambda used other than by assigning it to a name",
                         hint="name it (square = lambda z: z * z) or define it with def")

    # ---------------------------------------------------------------- local functions

    def stmt_FunctionDef(self, node):
        if node.decorator_list:
            raise self.error(node, "a decorated def inside the function",
                             hint="define the decorated helper at module level")
        self.local_function(node.name, node, node)

    def local_function(self, name, fdef, node):
        """Lift a nested ``def`` (or a named lambda) to a function of its own whose
        parameters include the outer values it reads; calls pass those values in, so
        gradients flow through them too."""
        local_names = {a.id for a in fdef.args.posonlyargs + fdef.args.args
                       + fdef.args.kwonlyargs}
        if fdef.args.vararg or fdef.args.kwarg:
            raise self.error(node, "a nested function with *args or **kwargs",
                             hint="name each parameter")
        body = fdef.body if isinstance(fdef.body, list) else [fdef.body]
        assigned = set()
        loaded = []
        for stmt in body:
            for sub in gast.walk(stmt):
                if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store):
                    assigned.add(sub.id)
                elif isinstance(sub, gast.Name) and sub.id not in loaded:
                    loaded.append(sub.id)
                elif isinstance(sub, (gast.FunctionDef, gast.Lambda)):
                    raise self.error(sub, "a function nested two levels deep",
                                     hint="define the inner helper one level up")
        for default in fdef.args.defaults + [d for d in fdef.args.kw_defaults if d]:
            for sub in gast.walk(default):
                if isinstance(sub, gast.Name) and (sub.id in self.env or sub.id in
                                                   self.source.closure):
                    raise self.error(node, "a nested function whose default value reads a "
                                     "local variable", hint="pass the value as an argument")
        for n in loaded:
            if n in self.dicts and n not in self.env and n not in local_names:
                raise self.kwargs_error(node, n)
        if name in loaded:
            raise self.error(node, f"the nested function {name!r} calls itself",
                             hint="define a recursive helper at module level")
        outer = set(self.env) | set(self.source.closure) | set(self.local_functions)
        captured = [n for n in loaded
                    if n not in local_names and n not in assigned and n in outer]
        for n in captured:
            if n in self.local_functions:
                raise self.error(node, f"a nested function calling the nested function {n!r}",
                                 hint="define the helpers at module level")
        lifted = _lift(fdef, name, captured, self.source, node)
        self.namer.reserve(lifted.__name__)
        self.local_functions[name] = (lifted, captured)
        self.env.pop(name, None)

    def local_call(self, name, node):
        lifted, captured = self.local_functions[name]
        extra = []
        for n in captured:
            if n in self.env:
                extra.append(self.env[n])
            else:
                extra.append(Const(self.source.lookup(n), n))
        args = extra + [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        self.lifted[lifted.__name__] = lifted
        return ir.Prim(lifted, args, kwargs, spelling=lifted.__name__)


_lift_count = 0


def _lift(fdef, name, captured, source, node):
    """A real function for a nested def: the captured outer values become its first
    parameters. Its text is registered in linecache, so srcad can read it like any other."""
    import ast
    import linecache
    import types
    import weakref

    global _lift_count
    _lift_count += 1
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    func_ast = tree.body[0]
    func_ast.name = f"{name}_local"
    func_ast.args.args = [ast.arg(arg=n) for n in captured] + func_ast.args.args
    ast.fix_missing_locations(tree)
    text = ast.unparse(tree) + "\n"
    filename = f"<srcad: {name} defined in {source.filename}:{node.lineno} #{_lift_count}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {}
    exec(compile(text, filename, "exec"), source.globals, namespace)  # noqa: S102
    lifted = namespace[func_ast.name]
    lifted = types.FunctionType(lifted.__code__, source.globals, func_ast.name,
                                lifted.__defaults__)
    weakref.finalize(lifted, linecache.cache.pop, filename, None)  # its lines go with it
    return lifted


class _AtomNode(gast.AST):
    """An already-lowered operand standing where an expression node is expected."""

    _fields = ()

    def __init__(self, atom):
        super().__init__()
        self.atom = atom
        self.lineno = None


_COMPREHENSION_CALLS = (sum, min, max, list, tuple, any, all)


def _is_exit(stmt):
    return (
        isinstance(stmt, gast.If)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], gast.Break)
        and not stmt.orelse
    )


def _same(a, b):
    if a is b:
        return True
    if isinstance(a, Var) and isinstance(b, Var):
        return a.name == b.name
    return False


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


def _root_name(node):
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _dotted(node):
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "<expr>"


def _store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def _store_names(target):
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}


def _assigned_names(stmts):
    """User names assigned anywhere in ``stmts`` (comprehension variables excluded)."""
    names = set()
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            root = _root_name(node.value)
            if root:
                names.add(root)
        todo.extend(gast.iter_child_nodes(node))
    return names


def _hint(prim):
    fn = prim.fn
    if isinstance(fn, ir.Method):
        return fn.name
    if isinstance(fn, ir.Attr):
        return fn.name if fn.name != "T" else "transpose"
    if prim.spelling:
        return prim.spelling.rsplit(".", 1)[-1]
    return "t"


def _subst(atom, name, new):
    if isinstance(atom, Var) and atom.name == name:
        return new
    return atom


def _replace_everywhere(stmts, name, atom):
    """Replace reads of ``name`` by ``atom`` in ``stmts`` (a phi found to be trivial)."""
    def sub(a):
        if isinstance(a, Var) and a.name == name:
            return atom
        if isinstance(a, ir.Slice):
            return ir.Slice(sub(a.lower), sub(a.upper), sub(a.step))
        if isinstance(a, ir.Index):
            return ir.Index(tuple(sub(i) for i in a.items))
        return a

    for stmt in ir.walk(stmts):
        if isinstance(stmt, ir.Assign):
            if isinstance(stmt.value, ir.Prim):
                stmt.value.args = [sub(a) for a in stmt.value.args]
                stmt.value.kwargs = {k: sub(v) for k, v in stmt.value.kwargs.items()}
            else:
                stmt.value = sub(stmt.value)
        elif isinstance(stmt, ir.SetItem):
            stmt.obj, stmt.index, stmt.value = sub(stmt.obj), sub(stmt.index), sub(stmt.value)
        elif isinstance(stmt, ir.If):
            stmt.test = sub(stmt.test)
            for phi in stmt.phis:
                phi.sources = [sub(s) for s in phi.sources]
        elif isinstance(stmt, ir.Loop):
            stmt.test, stmt.exit = sub(stmt.test), sub(stmt.exit)
            if isinstance(stmt.iter, ir.Prim):
                stmt.iter.args = [sub(a) for a in stmt.iter.args]
            for phi in stmt.phis:
                phi.sources = [sub(s) for s in phi.sources]
        elif isinstance(stmt, (ir.Return, ir.Raise)):
            stmt.value = sub(stmt.value)

