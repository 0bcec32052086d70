"""Reverse mode: generate the forward sweep and the backward sweep of an SSA function.

The result is a :class:`Generated` holding code as nested lists of lines (``Compound`` for
``if``/``for``/``while``). What holds of it:

* straight-line code and branches outside loops keep every value in a local: nothing is
  pushed anywhere; a branch's backward sweep takes the branch its forward sweep took (the
  test is a local);
* inside a loop, each block pushes, at its end, only the values it defines that the backward
  sweep reads, as one tuple on the loop's stack; the backward block pops them first;
* a gradient that is known to be zero is not computed, initialised or added; the first
  contribution to a gradient assigns it, later ones add; zeros are written only where two
  paths meet (the end of a branch, the top of a reversed loop);
* every backward statement comes after a comment naming the user's line it differentiates.
"""

from __future__ import annotations

import ast
import operator
import types
from dataclasses import dataclass, field

import numpy as np

from ..analysis import shapes, soundness
from ..analysis.analyse import Analysis
from ..core import functions, ir
from ..core.kinds import ANY, ARRAY, SCALAR, SEQ, kind_of_value
from ..rules import registry
from . import templates


@dataclass
class Compound:
    header: str
    body: list
    orelse: list | None = None


@dataclass
class PopMarker:
    """Where a block's backward code pops what its forward code pushed."""

    block: int


@dataclass
class PushMarker:
    block: int


@dataclass
class Generated:
    forward: list
    backward: list
    stacks: list
    result: object
    grads: dict  # wrt param -> expression text of its gradient
    seed: str
    helpers: set = field(default_factory=set)
    saves: dict = field(default_factory=dict)
    temp_grads: set = field(default_factory=set)
    cells: dict = field(default_factory=dict)
    kept: tuple = ()  # (names the backward reads outside loops, those defined only in a branch)
    popped: set = field(default_factory=set)  # stacks popped (the others are iterated)


class Sweep:
    """What the reverse and forward sweeps share: helper names, zeros, callee cells.

    A subclass sets ``an`` (the Analysis), ``namer``, ``helper_names``, ``used_helpers`` and
    ``cells``.
    """

    def helper(self, name):
        self.used_helpers.add(name)
        return self.helper_names.get(name, name)

    def zero(self, name):
        """A zero shaped like the value ``name``: a literal for a number."""
        kind = self.an.kinds.get(name, ANY)
        if kind == SCALAR:
            return "0.0"
        if kind == ARRAY:
            return f"{self.helper('np')}.zeros_like({name}, dtype=float)"
        return f"{self.helper('zeros_like')}({name})"

    def note_helpers(self, node):
        """Record the helpers an instantiated template calls."""
        spelled = {v: k for k, v in self.helper_names.items()}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in spelled:
                self.used_helpers.add(spelled[sub.id])

    def bind_cell(self, name, cell):
        """The name generated code uses for a closure cell (a callee's part, a user rule's
        helper), made once per cell."""
        for spelled, known in self.cells.items():
            if known is cell or _same_value(known, cell):
                return spelled
        spelled = self.namer.fresh(name)
        self.cells[spelled] = cell
        return spelled


class Reverse(Sweep):
    def __init__(self, fn: ir.Function, analysis: Analysis, namer, helper_names,
                 structured=True):
        self.fn = fn
        # the gradient of a list or tuple argument in the argument's structure (for the user);
        # a callee's backward part hands its caller the mutable lists the sweep adds into
        self.structured = structured
        self.an = analysis
        self.namer = namer
        self.helper_names = helper_names  # helper -> spelling in generated code
        self.used_helpers = set()
        self.gnames = {}  # value -> its gradient's name
        self.primal_of = {}  # gradient's name -> value
        self.temp_grads = set()  # gradients of temporaries: tidy may inline them
        self.fresh = set()  # array gradients holding an array no other name holds
        self.live = set()
        self.refs = {}  # id(block) -> primal names the backward code of that block reads
        self.primals = set(fn.params) | {n for s in ir.walk(fn.body) for n in ir.defined_by(s)}
        for s in ir.walk(fn.body):
            if isinstance(s, ir.Loop) and s.target:
                self.primals.add(s.target)
        self.stacks = {}  # id(loop) -> stack name
        self.counters = {}  # id(loop) -> counter name
        self.depth = 0  # how many loops the backward sweep is inside
        self.outer_loops = []  # (loop, its backward Compound): loops inside no other loop
        self.popped = set()  # stacks the backward sweep pops (the others it iterates)
        self.last_line = None
        self.in_loop = _assigned_in_loops(fn.body)
        self.shapes = {}  # shape name -> the value it is the shape of (saved in its place)
        self.calls = {}  # id(stmt) -> (forward function name, context name)
        self.alike = shapes.classes(fn, analysis)  # array -> an earlier array of its shape
        self.uniform = {}  # gradient holding one number for every element -> a value shaped
        self.top = id(fn.body)  # like it (np.sum's gradient before anything needs the array)
        self.cells = {}  # name -> closure cell of a callee's forward/backward part
        for name, lifted in getattr(fn, "lifted", {}).items():  # nested defs, lifted
            self.cells[name] = types.CellType(lifted)

    # ---------------------------------------------------------------- names and kinds

    def g(self, name):
        if name not in self.gnames:
            self.gnames[name] = self.namer.grad(name)
            self.primal_of[self.gnames[name]] = name
            if name in self.namer.temps:
                self.temp_grads.add(self.gnames[name])
        return self.gnames[name]

    def zero(self, name, frame):
        if self.an.kinds.get(name, ANY) != SCALAR:
            self.ref(name, frame)  # the zero is shaped like the value: the value is read
        return super().zero(name)

    def ref(self, name, frame):
        if name in self.primals:
            self.refs.setdefault(frame, set()).add(name)

    def ref_text(self, node, frame):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self.ref(sub.id, frame)

    # ---------------------------------------------------------------- accumulation

    def accumulate(self, atom, contribution, code, frame, uniform=False):
        """Add ``contribution`` (expression text) to the gradient of ``atom``; ``uniform``: the
        contribution is one number standing for every element of ``atom``."""
        if not self.an.active(atom):
            return
        name = atom.name
        gname = self.g(name)
        kind = self.an.kinds.get(name)
        if uniform and (gname not in self.live or gname in self.uniform):
            self.uniform[gname] = self.alike.get(name, name)
        else:
            self.uniform.pop(gname, None)  # a whole array added: the sum is a whole array
        if gname in self.live:
            if kind in (SEQ, ANY):
                code.append(f"{gname} = {self.helper('add')}({gname}, {contribution})")
            elif kind == SCALAR or gname in self.fresh:
                # a float, or an array this sweep made and nothing else holds: add in place
                code.append(f"{gname} += {contribution}")
            else:
                code.append(f"{gname} = {gname} + {_paren(contribution)}")
        else:
            code.append(f"{gname} = {contribution}")
            self.live.add(gname)
            if kind == ARRAY and _makes_new_array(contribution) and gname not in self.uniform:
                self.fresh.add(gname)
            else:
                self.fresh.discard(gname)

    def same_shape(self, a, b):
        return self.an.kinds.get(a) == ARRAY and self.alike.get(a, a) == self.alike.get(b, b)

    def reads_whole(self, node, target):
        """Whether an instantiated template reads an array shaped like ``target`` (then its
        value is a whole array even when ``g`` is one number)."""
        return any(isinstance(n, ast.Name) and (n.id == target or self.same_shape(n.id, target))
                   for n in ast.walk(node))

    def uniform_reduction(self, stmt, rule, bound, names, code, frame):
        """``s = np.sum(a)`` over every axis: ``a``'s gradient is ``ds`` itself, one number,
        until something needs the array (see :meth:`materialise`)."""
        if rule.uniform is None or frame != self.top:
            return False
        atom = next((bound[p] for p in rule.templates if isinstance(bound.get(p), ir.Var)), None)
        if atom is None or not self.an.active(atom) or self.an.kinds.get(atom.name) != ARRAY:
            return False
        if any(not _is_none_or_false(v) for p, v in bound.items() if p not in rule.templates):
            return False  # an axis, keepdims, dtype or out
        root = self.alike.get(atom.name, atom.name)
        node = templates.instantiate(rule.uniform, dict(names, a=root), True, self.helper_names)
        self.ref_text(node, frame)
        self.note_helpers(node)
        self.accumulate(atom, templates.text(node), code, frame, uniform=True)
        return True

    def materialise(self, gname, code, frame, final=False):
        """A one-number gradient made a whole array (a read-only view, no memory; a new
        array for a gradient handed to the user)."""
        root = self.uniform.pop(gname, None)
        if root is None:
            return
        self.ref(root, frame)
        np_ = self.helper("np")
        if final:
            code.append(f"{gname} = {np_}.full({np_}.shape({root}), {gname})")
            self.fresh.add(gname)
        else:
            code.append(f"{gname} = {np_}.broadcast_to({gname}, {np_}.shape({root}))")
            self.fresh.discard(gname)

    def ensure_live(self, name, code, frame):
        gname = self.g(name)
        if gname not in self.live:
            code.append(f"{gname} = {self.zero(name, frame)}")
            self.live.add(gname)
            if self.an.kinds.get(name) == ARRAY:
                self.fresh.add(gname)  # np.zeros_like: a new array

    # ---------------------------------------------------------------- entry

    def run(self):
        body = self.fn.body
        ret = body[-1] if body and isinstance(body[-1], ir.Return) else None
        result = ret.value if ret else ir.Const(None)
        seed_name = self.g(result.name) if isinstance(result, ir.Var) else self.namer.fresh("dy")
        top = id(body)
        self.blocks = {top: body}
        backward = []
        if self.an.active(result):
            self.live.add(seed_name)
            self.comment(ret, backward)
        backward += self.block(body[:-1] if ret else body, top)
        for p in self.an.wrt:
            self.materialise(self.g(p), backward, top, final=True)
        grads = {}
        for p in self.an.wrt:
            gname = self.g(p)
            grads[p] = gname if gname in self.live else self.zero(p, top)
            if self.an.kinds.get(p) == SEQ and self.structured:  # same structure back
                grads[p] = f"{self.helper('like')}({grads[p]}, {p})"
            elif self.an.kinds.get(p) == SEQ:
                grads[p] = f"{self.helper('mutable')}({grads[p]})"
        self.compute_saves()
        self.iterate_stacks()
        forward = self.forward(body[:-1] if ret else body, top, loop=None)
        # A merge of a name defined on one path only: its backward sweep may write a zero
        # shaped like it on the other path, so the name must exist there (as None).
        refs = set().union(*self.refs.values()) if self.refs else set()
        partial = [p.target for s in ir.walk(body) if isinstance(s, (ir.If, ir.Loop))
                   for p in s.phis if any(src is None for src in p.sources)
                   and (isinstance(s, ir.If) or p.target in refs)]
        forward = [f"{name} = None" for name in sorted(set(partial))] + forward
        gen = Generated(forward, backward, list(self.stacks.values()), result, grads, seed_name,
                        self.used_helpers, self.saves, self.temp_grads, self.cells,
                        self.split_saves())
        gen.popped = self.popped
        return gen

    def comment(self, stmt, code):
        line = getattr(stmt, "line", None)
        if line is None or line == self.last_line:
            return
        self.last_line = line
        text = self.fn.source.line_text(line) if self.fn.source else None
        code.append(f"# line {line}: {text}" if text else f"# line {line}")

    # ---------------------------------------------------------------- backward sweep

    def block(self, stmts, frame):
        self.blocks[frame] = stmts
        code = [PopMarker(frame)]
        for stmt in reversed(stmts):
            self.stmt(stmt, code, frame)
        return code

    def stmt(self, stmt, code, frame):
        if not isinstance(stmt, ir.Assign) and self.uniform:
            mentioned = _mentioned(stmt)
            for gname in list(self.uniform):  # branches and loops see whole arrays
                primal = self.primal_of.get(gname)
                if primal is None or primal in mentioned:  # a gradient the statement touches
                    self.materialise(gname, code, frame)
        if isinstance(stmt, ir.Assign):
            self.assign(stmt, code, frame)
        elif isinstance(stmt, ir.SetItem):
            self.setitem(stmt, code, frame)
        elif isinstance(stmt, ir.If):
            self.if_(stmt, code, frame)
        elif isinstance(stmt, ir.Loop):
            self.loop(stmt, code, frame)

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
                code.append(f"{self.g(value.args[0].name)}.append(0.0)")
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
            if gname in self.uniform and isinstance(value, ir.Var) and self.same_shape(
                value.name, stmt.target
            ):
                self.accumulate(value, gname, code, frame, uniform=True)
            else:
                self.materialise(gname, code, frame)
                self.accumulate(value, gname, code, frame)
            return
        fn = value.fn
        if gname in self.uniform and not _elementwise_rule(value):
            self.materialise(gname, code, frame)  # only element-wise rules read it as a number
        if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE:
            for i, a in enumerate(value.args):
                self.accumulate(a, f"{gname}[{i}]", code, frame)
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
        rule, bound = registry.find(fn, args, kwargs)
        if rule is None:
            if registry.is_nondiff(fn):
                return
            if functions.is_user_function(fn):
                self.user_call(stmt, gname, code, frame)
                return
            if functions.is_derivative(fn):
                self.derivative_call(stmt, gname, code, frame)
                return
            raise self.missing_rule(stmt, value)
        scalar = all(self.an.kind(a) == SCALAR for a in value.args if isinstance(
            a, (ir.Var, ir.Const)))
        names = {p: _text(a) for p, a in bound.items()}
        for p, a in bound.items():  # a bool in arithmetic: float(t), so 1.0 * t stays a float
            if isinstance(a, ir.Var) and a.name in self.an.bools and self.an.kind(a) == SCALAR:
                names[p] = f"float({a.name})"
        names["g"] = gname
        names["ans"] = stmt.target
        for p in rule.shape_only:  # read for its shape: the earliest array of that shape
            atom = bound.get(p)
            if isinstance(atom, ir.Var) and atom.name in self.alike:
                names[p] = self.alike[atom.name]
        for free, obj in rule.namespace.items():  # a user rule's own helpers
            names.setdefault(free, self.bind_cell(free, types.CellType(obj)))
        if self.uniform_reduction(stmt, rule, bound, names, code, frame):
            return
        # plain pass-throughs (a template that is just ``g``) last: a gradient that only
        # flows through is then a copy that tidy can fold away
        def last(item):
            atom = bound.get(item[0])
            named = isinstance(atom, ir.Var) and atom.name not in self.namer.temps
            return _is_plain_g(item[1]), named

        by_rank = rule.ranks.get(tuple(self.an.rank(bound.get(p)) for p in rule.params)) \
            if rule.ranks else None
        order = sorted((by_rank or rule.templates).items(), key=last)
        for param, template in order:
            atom = bound.get(param)
            if not isinstance(atom, ir.Var) or not self.an.active(atom):
                continue
            node = templates.instantiate(template, names, scalar, self.helper_names)
            uniform = False
            if gname in self.uniform and not self.reads_whole(node, stmt.target):
                # g * 2.0, -g: still one number per element, if the operand is result-shaped
                uniform = self.same_shape(atom.name, stmt.target) and frame == self.top
                if not uniform:
                    self.materialise(gname, code, frame)
                    node = templates.instantiate(template, names, scalar, self.helper_names)
            self.ref_text(node, frame)
            self.note_helpers(node)
            contribution = templates.text(node)
            if rule.broadcast and not uniform:
                contribution = self.unbroadcast(contribution, atom, stmt.target, bound, frame)
            self.accumulate(atom, contribution, code, frame, uniform=uniform)

    def user_call(self, stmt, gname, code, frame):
        """``y = helper(...)``: call the callee's backward part with what its forward kept."""
        prim = stmt.value
        try:
            arguments, passed, arity = functions.bind(prim.fn, prim.args, prim.kwargs)
        except TypeError as exc:
            raise self.unsupported(stmt, f"a call that does not fit the parameters of "
                                   f"{prim.spelling or prim.fn.__name__} ({exc})",
                                   "pass the arguments its def names") from exc
        kinds = {p: self.an.kind(a) if isinstance(a, (ir.Var, ir.Const)) else kind_of_value(a)
                 for p, a in arguments.items()}
        wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.an.active(a)]
        if not wrt:
            return
        entry = self.an.callees.split(prim.fn, wrt, kinds, arity)
        base = prim.fn.__name__
        fwd = self.bind_cell(f"{base}_fwd", entry.fwd)
        bwd = self.bind_cell(f"{base}_bwd", entry.bwd)
        ctx = self.namer.fresh(f"{stmt.target}_ctx")
        self.primals.add(ctx)
        call = functions.call_text(prim.fn, fwd, passed, arity) if arity else None
        self.calls[id(stmt)] = (fwd, ctx, call)
        self.ref(ctx, frame)
        self.call_backward([arguments[p] for p in wrt], f"{bwd}({ctx}, {gname})", code, frame)

    def call_backward(self, atoms, call, code, frame):
        """``da, db = call``: the gradients a callee's backward part returns, added in."""
        targets = []
        for atom in atoms:
            gname_arg = self.g(atom.name)
            if gname_arg in self.live or gname_arg in targets:
                part = self.namer.fresh(gname_arg + "_part")
                targets.append(part)
            else:
                targets.append(gname_arg)
        code.append(f"{', '.join(targets)} = {call}")
        for atom, target in zip(atoms, targets):
            if target == self.g(atom.name):
                self.live.add(target)
            else:
                self.accumulate(atom, target, code, frame)

    def derivative_call(self, stmt, gname, code, frame):
        """``y = d_f(x)`` with ``d_f = srcad.grad(f)``: its generated code (made for the
        argument types met at run time) is split like a callee's, by ``derivative_fwd``."""
        prim = stmt.value
        try:
            arguments, _, _ = functions.bind(prim.fn, prim.args, prim.kwargs)
        except TypeError as exc:
            raise self.unsupported(stmt, f"a call that does not fit the parameters of "
                                   f"{prim.spelling} ({exc})", "pass the arguments it takes"
                                   ) from exc
        wrt = [p for p, a in arguments.items() if isinstance(a, ir.Var) and self.an.active(a)]
        if not wrt:
            return
        ctx = self.namer.fresh(f"{stmt.target}_ctx")
        self.primals.add(ctx)
        passed = [str(a) for a in prim.args] + [f"{k}={a}" for k, a in prim.kwargs.items()]
        call = (f"{self.helper('derivative_fwd')}({prim.spelling}, {tuple(wrt)!r}, "
                f"{', '.join(passed)})")
        self.calls[id(stmt)] = (None, ctx, call)
        self.ref(ctx, frame)
        self.call_backward([arguments[p] for p in wrt],
                           f"{self.helper('derivative_bwd')}({ctx}, {gname})", code, frame)

    def list_arithmetic(self, stmt, gname, code, frame):
        """``a + b`` on lists: each side gets its slice of the gradient; ``[x] * n`` is
        refused (the gradient of a repeated element is the sum of its copies')."""
        a, b = stmt.value.args
        if stmt.value.fn is operator.mul:
            raise self.unsupported(stmt, "repeating a list that carries gradients ([x] * n)",
                                   "build it with a comprehension: [x for _ in range(n)]")
        self.ref(a.name if isinstance(a, ir.Var) else "", frame)
        size = f"len({a})"
        if isinstance(a, ir.Var):
            self.accumulate(a, f"{gname}[:{size}]", code, frame)
        if isinstance(b, ir.Var):
            self.accumulate(b, f"{gname}[{size}:]", code, frame)

    def unsupported(self, stmt, what, hint):
        from ..errors import UnsupportedSyntaxError

        src = self.fn.source
        return UnsupportedSyntaxError(
            f"srcad cannot differentiate {what}", filename=src.filename if src else None,
            lineno=stmt.line, construct=src.line_text(stmt.line) if src else None, hint=hint)

    def unbroadcast(self, contribution, atom, target, bound, frame):
        out_kind = self.an.kinds.get(target, ANY)
        kind = self.an.kind(atom)
        if out_kind == SCALAR:
            return contribution
        if kind == SCALAR:
            return f"{self.helper('np')}.sum({contribution})"
        others = [a for a in bound.values() if isinstance(a, (ir.Var, ir.Const)) and a != atom]
        if kind == ARRAY and all(self.an.kind(o) == SCALAR for o in others):
            return contribution
        if self.same_shape(atom.name, target):
            return contribution  # the operand has the result's shape: nothing to sum
        if atom.name in self.in_loop:
            # inside a loop, keep the shape, not the array: that is all unbroadcast reads
            shape = self.shape_name(atom.name)
            self.ref(shape, frame)
            return f"{self.helper('unbroadcast_to')}({contribution}, {shape})"
        self.ref(atom.name, frame)
        return f"{self.helper('unbroadcast')}({contribution}, {atom.name})"

    def shape_name(self, name):
        for shape, source in self.shapes.items():
            if source == name:
                return shape
        shape = self.namer.fresh(f"{name}_shape")
        self.shapes[shape] = name
        self.primals.add(shape)
        return shape

    def missing_rule(self, stmt, prim):
        return soundness.missing_rule(self.fn.source, stmt, prim)

    def getitem(self, stmt, gname, code, frame):
        obj, index = stmt.value.args
        if not self.an.active(obj):
            return
        kind = self.an.kind(obj)
        for v in ir.atoms_in(index):
            self.ref(v.name, frame)
        if kind == SEQ or isinstance(index, ir.Const) and isinstance(index.value, str):
            # a container (a string key: a dict, whatever the analysis knew of it)
            self.ensure_live(obj.name, code, frame)
            dobj = self.g(obj.name)
            elem = self.an.elems.get(obj.name, ANY)
            if isinstance(index, (ir.Slice, ir.Index)) or self.an.kind(index) != SCALAR:
                # a slice, or an index that may be a slice object: add structure to structure
                code.append(f"{dobj}[{index}] = {self.helper('add')}({dobj}[{index}], {gname})")
            elif elem == SCALAR:
                code.append(f"{dobj}[{index}] += {gname}")
            elif elem == ARRAY:
                code.append(f"{dobj}[{index}] = {dobj}[{index}] + {gname}")
            else:
                code.append(f"{dobj}[{index}] = {self.helper('add')}({dobj}[{index}], {gname})")
            return
        self.ref(obj.name, frame)
        contribution = f"{self.helper('scatter')}({gname}, {obj.name}, {_index_text(index)})"
        self.accumulate(obj, contribution, code, frame)

    def setitem(self, stmt, code, frame):
        target = ir.Var(stmt.target)
        if not self.an.active(target) or self.g(stmt.target) not in self.live:
            return
        self.comment(stmt, code)
        gname = self.g(stmt.target)
        for v in ir.atoms_in(stmt.index):
            self.ref(v.name, frame)
        value = stmt.value
        if self.an.active(value):
            self.ref(value.name, frame)
            whole = isinstance(stmt.index, ir.Const) and stmt.index.value is Ellipsis
            block = gname if whole else f"{gname}[{stmt.index}]"  # y[...] = v: all of g
            if _may_repeat(stmt.index, self.an) and isinstance(stmt.obj, ir.Var) and (
                    self.an.kind(stmt.obj) != SEQ):
                # y[[0, 2, 2]] = v: NumPy keeps one write per element, the others get nothing
                self.ref(stmt.obj.name, frame)
                block = (f"{self.helper('last_writes')}({block}, {stmt.obj}, "
                         f"{_index_text(stmt.index)})")
            part = f"{self.helper('unbroadcast')}({block}, {value.name})"
            self.accumulate(value, part, code, frame)
        if self.an.active(stmt.obj) and not (isinstance(stmt.index, ir.Const)
                                             and stmt.index.value is Ellipsis):  # overwritten
            cleared = f"{self.helper('cleared')}({gname}, {_index_text(stmt.index)})"
            self.accumulate(stmt.obj, cleared, code, frame)

    def append(self, stmt, code, frame):
        lst, value = stmt.value.args
        if not (isinstance(lst, ir.Var) and self.an.active(lst)):
            return
        self.comment(stmt, code)
        self.ensure_live(lst.name, code, frame)
        popped = f"{self.g(lst.name)}.pop()"
        if self.an.active(value):
            self.accumulate(value, popped, code, frame)
        else:
            code.append(popped)

    def pop(self, stmt, code, frame):
        """``v = xs.pop()``: the backward sweep pushes ``v``'s gradient back onto ``xs``'s."""
        lst = stmt.value.args[0]
        if not (isinstance(lst, ir.Var) and self.an.active(lst)):
            return
        self.comment(stmt, code)
        self.ensure_live(lst.name, code, frame)
        gname = self.g(stmt.target)
        if not (self.an.active(ir.Var(stmt.target)) and gname in self.live):
            gname = self.zero(stmt.target, frame)
        code.append(f"{self.g(lst.name)}.append({gname})")

    # ---------------------------------------------------------------- branches

    def if_(self, stmt, code, frame):
        live_before = set(self.live)
        inner_defs = {n for s in ir.walk(stmt.body + stmt.orelse) for n in ir.defined_by(s)}
        inner_grads = {self.g(n) for n in inner_defs | {p.target for p in stmt.phis}}
        arms = []
        fresh_before, fresh_after = set(self.fresh), []
        for side, block in ((0, stmt.body), (1, stmt.orelse)):
            self.live = set(live_before)
            self.fresh = set(fresh_before)
            arm = []
            for phi in stmt.phis:
                src = phi.sources[side]
                if self.an.active(ir.Var(phi.target)) and self.g(phi.target) in self.live:
                    if isinstance(src, ir.Var):
                        self.accumulate(src, self.g(phi.target), arm, id(block))
            arm += self.block(block, id(block))
            arms.append((arm, self.live - inner_grads, id(block)))
            fresh_after.append(set(self.fresh))
        merged = (arms[0][1] | arms[1][1])
        self.fresh = fresh_after[0] & fresh_after[1]  # a zero written at the merge is new too
        for arm, live, block_id in arms:
            for gname in sorted(merged - live):
                primal = self.primal_of[gname]
                arm.append(f"{gname} = {self.zero(primal, block_id)}")
        self.live = merged
        then_code, else_code = arms[0][0], arms[1][0]
        if not _has_code(then_code) and not _has_code(else_code):
            return
        for v in ir.atoms_in(stmt.test):
            self.ref(v.name, frame)
        self.comment(stmt, code)
        if _has_code(then_code):
            code.append(Compound(f"if {stmt.test}:", then_code,
                                 else_code if _has_code(else_code) else None))
        else:
            code.append(Compound(f"if not {stmt.test}:", else_code))


    # ---------------------------------------------------------------- loops

    def loop(self, stmt, code, frame):
        active_phis = [p for p in stmt.phis if self.an.active(ir.Var(p.target))]
        inner_defs = {n for s in ir.walk(stmt.body + stmt.header) for n in ir.defined_by(s)}
        inner_defs |= {p.target for p in stmt.phis} | ({stmt.target} if stmt.target else set())
        outer_reads = set()
        for s in ir.walk(stmt.body):
            for v in ir.reads_of(s):
                outer_reads.add(v.name)
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Prim):
                outer_reads |= {v.name for v in s.value.operands()}
            if isinstance(s, (ir.If, ir.Loop)):
                outer_reads |= {v.name for p in s.phis for src in p.sources
                                for v in ir.atoms_in(src)}
        for p in stmt.phis:
            outer_reads |= {v.name for v in ir.atoms_in(p.sources[1])}
        touched = sorted(n for n in outer_reads - inner_defs if self.an.active(ir.Var(n)))
        if not active_phis and not touched:
            return
        body_id = id(stmt.body)
        pre = []
        for p in active_phis:
            self.ensure_live(p.target, pre, frame)
        for name in touched:
            self.ensure_live(name, pre, frame)
        live_outside = set(self.live)
        body = [PopMarker(body_id)]
        # the gradient of each header name flows to its value at the end of the iteration
        latch_targets = {p.target for p in active_phis}
        needs_temps = any(isinstance(p.sources[1], ir.Var) and p.sources[1].name in latch_targets
                          for p in active_phis)
        carried = []
        for p in active_phis:
            gname = self.g(p.target)
            if needs_temps:
                tmp = self.namer.fresh(gname + "_next")
                body.append(f"{tmp} = {gname}")
                carried.append((p, tmp))
            else:
                carried.append((p, gname))
        for p, _ in carried:
            self.live.discard(self.g(p.target))
        for p, gsrc in carried:
            src = p.sources[1]
            if isinstance(src, ir.Var):
                if not needs_temps and self.g(src.name) not in self.live:
                    body.append(f"{self.g(src.name)} = {gsrc}")
                    self.live.add(self.g(src.name))
                else:
                    self.accumulate(src, gsrc, body, body_id)
        self.blocks[body_id] = stmt.body
        self.depth += 1
        inner = self.block(stmt.body, body_id)
        self.depth -= 1
        body += inner[1:]  # its PopMarker is already first
        for p in active_phis:
            self.ensure_live(p.target, body, body_id)
        self.live = live_outside | {self.g(p.target) for p in active_phis}
        if stmt.kind == "for" and stmt.exit is None:
            for v in stmt.iter.operands():
                self.ref(v.name, frame)
            header = f"for {stmt.target} in reversed({stmt.iter}):"
        else:
            counter = self.counter(stmt)
            self.ref(counter, frame)
            header = f"for _ in range({counter}):"
        self.comment(stmt, code)
        code.extend(pre)
        compound = Compound(header, body)
        code.append(compound)
        if self.depth == 0:
            self.outer_loops.append((stmt, compound))
        for p in active_phis:
            entry = p.sources[0]
            if isinstance(entry, ir.Var):
                self.accumulate(entry, self.g(p.target), code, frame)
            self.live.discard(self.g(p.target))

    def counter(self, stmt):
        if id(stmt) not in self.counters:
            name = self.namer.fresh("n_iter")
            self.counters[id(stmt)] = name
            self.primals.add(name)
        return self.counters[id(stmt)]

    def stack(self, loop):
        if id(loop) not in self.stacks:
            self.stacks[id(loop)] = self.namer.fresh("stack")
        return self.stacks[id(loop)]

    # ---------------------------------------------------------------- what to save

    def compute_saves(self):
        """For each block inside a loop: the values it defines that the backward sweep reads."""
        self.saves = {}
        self._saves_in(self.fn.body, loop=None)

    def _saves_in(self, stmts, loop, extra_defs=()):
        defs = set(extra_defs)
        subtree_refs = set(self.refs.get(id(stmts), ()))
        for stmt in stmts:
            defs |= set(ir.defined_by(stmt))
            if id(stmt) in self.calls:
                defs.add(self.calls[id(stmt)][1])
            if isinstance(stmt, ir.If):
                subtree_refs |= self._saves_in(stmt.body, loop)
                subtree_refs |= self._saves_in(stmt.orelse, loop)
            elif isinstance(stmt, ir.Loop):
                body_defs = [p.target for p in stmt.phis]
                if stmt.target and (stmt.kind != "for" or stmt.exit is not None):
                    body_defs.append(stmt.target)
                subtree_refs |= self._saves_in(stmt.body, stmt, body_defs)
                if id(stmt) in self.counters:
                    defs.add(self.counters[id(stmt)])
        defs |= {shape for shape, source in self.shapes.items() if source in defs}
        if loop is not None:
            names = sorted(defs & subtree_refs)
            if names:
                self.saves[id(stmts)] = (self.stack(loop), names)
        return subtree_refs

    def iterate_stacks(self):
        """A loop inside no other loop whose body alone pushes (once per iteration) walks its
        stack backwards, ``for a, b in reversed(stack):``, instead of popping it: no method
        call per iteration and no trip counter. Other stacks are popped."""
        iterated = set()
        for stmt, compound in self.outer_loops:
            stack = self.stacks.get(id(stmt))
            body_id = id(stmt.body)
            blocks = [b for b, (s, _) in self.saves.items() if s == stack]
            if stack is None or blocks != [body_id]:
                continue
            _, names = self.saves[body_id]
            plain_for = stmt.kind == "for" and stmt.exit is None
            if plain_for and stmt.target in self._subtree_refs(stmt.body):
                names = sorted(set(names) | {stmt.target})  # the target comes off the stack
                self.saves[body_id] = (stack, names)
            compound.header = f"for {', '.join(names)} in reversed({stack}):"
            compound.body[:] = [c for c in compound.body if not (
                isinstance(c, PopMarker) and c.block == body_id)]
            counter = self.counters.pop(id(stmt), None)
            if counter is not None:
                for refs in self.refs.values():
                    refs.discard(counter)
            iterated.add(stack)
        self.popped = set(self.stacks.values()) - iterated

    def _subtree_refs(self, stmts):
        refs = set(self.refs.get(id(stmts), ()))
        for s in ir.walk(stmts):
            if isinstance(s, ir.If):
                refs |= self.refs.get(id(s.body), set()) | self.refs.get(id(s.orelse), set())
            elif isinstance(s, ir.Loop):
                refs |= self.refs.get(id(s.body), set()) | self.refs.get(id(s.header), set())
        return refs

    def split_saves(self):
        """What a split forward part must hand its backward part: every value the backward
        sweep reads outside loop blocks (those are saved on stacks), plus the stacks."""
        in_loops = set()
        branch_defs = set()

        def visit(stmts, in_loop, in_branch):
            for stmt in stmts:
                names = list(ir.defined_by(stmt))
                if id(stmt) in self.calls:
                    names.append(self.calls[id(stmt)][1])
                if id(stmt) in self.counters:  # a loop's trip count, set where the loop is
                    names.append(self.counters[id(stmt)])
                for name in names:
                    if in_loop:
                        in_loops.add(name)
                    elif in_branch:
                        branch_defs.add(name)
                if isinstance(stmt, ir.If):
                    visit(stmt.body, in_loop, True)
                    visit(stmt.orelse, in_loop, True)
                elif isinstance(stmt, ir.Loop):
                    visit(stmt.body, True, in_branch)
                    visit(stmt.header, True, in_branch)
                    if stmt.target:
                        in_loops.add(stmt.target)

        visit(self.fn.body, False, False)
        for shape, source in self.shapes.items():
            if source in in_loops:
                in_loops.add(shape)
            if source in branch_defs:
                branch_defs.add(shape)
        refs = set().union(*self.refs.values()) if self.refs else set()
        names = sorted(n for n in refs - in_loops if n in self.primals)
        names += list(self.stacks.values())
        return names, sorted(set(names) & branch_defs)

    # ---------------------------------------------------------------- forward sweep

    def forward(self, stmts, block_id, loop):
        code = []
        for stmt in stmts:
            if isinstance(stmt, ir.Assign):
                if id(stmt) in self.calls:
                    fwd, ctx, call = self.calls[id(stmt)]
                    call = call or str(stmt.value).replace(stmt.value.spelling, fwd, 1)
                    code.append(f"{stmt.target}, {ctx} = {call}")
                else:
                    code.append(f"{stmt.value}" if stmt.target is None else
                                f"{stmt.target} = {stmt.value}")
                for shape, source in self.shapes.items():
                    if source == stmt.target:
                        code.append(f"{shape} = {source}.shape" if self.an.kinds.get(source)
                                    == ARRAY else f"{shape} = {self.helper('np')}.shape({source})")
            elif isinstance(stmt, ir.SetItem):
                code.append(f"{stmt.target} = {stmt.obj}.copy()")
                code.append(f"{stmt.target}[{stmt.index}] = {stmt.value}")
            elif isinstance(stmt, ir.If):
                then = self.forward(stmt.body, id(stmt.body), loop) + _phi_copies(stmt.phis, 0)
                other = self.forward(stmt.orelse, id(stmt.orelse), loop) + _phi_copies(
                    stmt.phis, 1)
                if then:
                    code.append(Compound(f"if {stmt.test}:", then, other or None))
                elif other:
                    code.append(Compound(f"if not {stmt.test}:", other))
            elif isinstance(stmt, ir.Loop):
                code += self.forward_loop(stmt)
            elif isinstance(stmt, ir.Raise):
                code.append(f"raise {stmt.value}")
            elif isinstance(stmt, ir.Return):
                code.append(f"return {stmt.value}")
        if block_id in self.saves:
            code.append(PushMarker(block_id))
        return code

    def forward_loop(self, stmt):
        code = [f"{p.target} = {p.sources[0]}" for p in stmt.phis if p.sources[0] is not None
                and str(p.sources[0]) != p.target]
        counter = self.counters.get(id(stmt))
        body = []
        if counter:
            code.append(f"{counter} = 0")
            body.append(f"{counter} += 1")
        body += self.forward(stmt.body, id(stmt.body), stmt)
        body += _phi_copies(stmt.phis, 1)
        if stmt.exit is not None:
            body.append(Compound(f"if {stmt.exit}:", ["break"]))
        if stmt.kind == "for":
            code.append(Compound(f"for {stmt.target} in {stmt.iter}:", body))
        elif stmt.header:
            head = self.forward(stmt.header, id(stmt.header), stmt)
            head.append(Compound(f"if not {stmt.test}:", ["break"]))
            code.append(Compound("while True:", head + body))
        else:
            code.append(Compound(f"while {stmt.test}:", body))
        return code


def _elementwise_rule(prim):
    """Whether ``prim`` is differentiated by an element-wise rule (an operator, a ufunc)."""
    fn = prim.fn
    if isinstance(fn, ir.Method):
        fn = registry.methods.get(fn.name, fn)
    elif isinstance(fn, ir.Attr):
        fn = registry.attributes.get(fn.name, fn)
    if fn is ir.BUILD_LIST or fn is ir.BUILD_TUPLE or fn is operator.getitem:
        return False
    rule, _ = registry.find(fn, list(prim.args), dict(prim.kwargs))
    return rule is not None and (rule.broadcast or isinstance(fn, np.ufunc))


def _is_none_or_false(value):
    if isinstance(value, ir.Const):
        value = value.value
    return value is None or value is False


def _makes_new_array(text):
    """Whether an expression certainly builds a new array (arithmetic on an array), so the
    name it is assigned to may be added into in place."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult)


def _assigned_in_loops(stmts, inside=False):
    """Names assigned (by a plain assignment) inside a loop body."""
    names = set()
    for stmt in stmts:
        if inside and isinstance(stmt, ir.Assign) and stmt.target:
            names.add(stmt.target)
        if isinstance(stmt, ir.If):
            names |= _assigned_in_loops(stmt.body, inside)
            names |= _assigned_in_loops(stmt.orelse, inside)
        elif isinstance(stmt, ir.Loop):
            names |= _assigned_in_loops(stmt.body, True)
    return names


def _text(value):
    """A bound argument as code: an atom as it prints, a default value by its repr."""
    if isinstance(value, (ir.Var, ir.Const, ir.Slice, ir.Index)):
        return str(value)
    if isinstance(value, tuple):
        return "(" + "".join(f"{_text(v)}, " for v in value) + ")"
    return repr(value)


def _mentioned(stmt):
    """Every name a statement reads or defines, at any depth (its phis' sources too)."""
    names = set()
    for s in ir.walk([stmt]):
        names.update(v.name for v in ir.reads_of(s) if isinstance(v, ir.Var))
        names.update(ir.defined_by(s))
        for phi in getattr(s, "phis", ()):
            names.update(v.name for src in phi.sources for v in ir.atoms_in(src))
        for part in (getattr(s, "test", None), getattr(s, "exit", None)):
            names.update(v.name for v in ir.atoms_in(part))
    return names


def _is_plain_g(template):
    return isinstance(template, ast.Name) and template.id == "g"


def _same_value(a, b):
    try:
        return a.cell_contents is b.cell_contents and not isinstance(
            a.cell_contents, type(None))
    except ValueError:
        return False


def _phi_copies(phis, side):
    """The assignments that realise phis at the end of one side. A loop's back edge may move
    values between its own names (``x, y = y, x``): those copies happen all at once."""
    pairs = [(p.target, str(p.sources[side])) for p in phis
             if p.sources[side] is not None and str(p.sources[side]) != p.target]
    return _parallel(pairs)


def _parallel(pairs):
    targets = {t for t, _ in pairs}
    if any(src in targets for _, src in pairs) and len(pairs) > 1:
        return [f"{', '.join(t for t, _ in pairs)} = {', '.join(s for _, s in pairs)}"]
    return [f"{t} = {s}" for t, s in pairs]


def _has_code(code):
    return any(not isinstance(c, PopMarker) for c in code)


def _paren(text):
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return f"({text})"
    if isinstance(node, (ast.BinOp, ast.IfExp, ast.BoolOp, ast.Compare, ast.UnaryOp)) and not (
        isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Pow))
    ):
        return f"({text})"
    return text


def _may_repeat(index, analysis):
    """Whether an index may name one element twice (an integer array or list)."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    for item in items:
        if isinstance(item, ir.Var) and analysis.kind(item) != SCALAR:
            return True
        if isinstance(item, ir.Const) and isinstance(item.value, (list, tuple, np.ndarray)):
            flat = np.asarray(item.value)
            if flat.dtype.kind in "iu" and len(np.unique(flat)) != flat.size:
                return True
    return False


def _index_text(index):
    if isinstance(index, ir.Slice):
        parts = [("None" if p is None else str(p)) for p in (index.lower, index.upper, index.step)]
        return f"slice({', '.join(parts)})"
    if isinstance(index, ir.Index):
        return "(" + ", ".join(_index_text(i) for i in index.items) + ",)"
    return str(index)
