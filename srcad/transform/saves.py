"""Reverse mode, what is saved: for each block inside a loop, the values it defines that the
backward sweep reads (pushed at the block's end, popped at the start of its adjoint); loops
that walk their stack backwards instead of popping it; what a callee's forward part hands its
backward part; and the forward sweep itself, which does the pushing.

Runs after the backward sweep (which records what it reads, by block, in ``refs``). A piece
of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``, :mod:`.nodes`,
:mod:`.sweep`.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ANY, ARRAY, SCALAR
from ..core.walk import walk_nodes
from . import nodes, owned_writes
from .nodes import PopMarker, PushMarker, assign, call, name
from .sweep import phi_copies

#: element-wise arithmetic: an ARRAY operand makes the result an array
_ARITH = (operator.add, operator.sub, operator.mul, operator.truediv, np.add, np.subtract,
          np.multiply, np.divide)


class Saves:
    """Saving for the backward sweep, and the forward sweep (see the module docstring)."""

    def compute_saves(self):
        """For each block inside a loop: the values it defines that the backward sweep reads."""
        self.saves = {}
        self._saves_in(self.fn.body, loop=None)

    def _saves_in(self, stmts, loop, extra_defs=()):
        defs = set(extra_defs) | self.guards_defined(id(stmts))
        subtree_refs = set(self.refs.get(id(stmts), ()))
        for stmt in stmts:
            defs |= set(ir.defined_by(stmt))
            if id(stmt) in self.calls:
                defs.add(self.calls[id(stmt)][1])
            defs |= {kept for kept, _, _ in self.kept.get(id(stmt), ())}
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
        for stmt, loop in self.outer_loops:
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
            loop.target = nodes.store(names[0] if len(names) == 1 else names)
            loop.iter = call("reversed", stack)
            loop.body[:] = [c for c in loop.body if not (
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
                names += [kept for kept, _, _ in self.kept.get(id(stmt), ())]
                if id(stmt) in self.counters:  # a loop's trip count, set where the loop is
                    names.append(self.counters[id(stmt)])
                for name_ in names:
                    if in_loop:
                        in_loops.add(name_)
                    elif in_branch:
                        branch_defs.add(name_)
                if isinstance(stmt, ir.If):
                    visit(stmt.body, in_loop, True)
                    visit(stmt.orelse, in_loop, True)
                elif isinstance(stmt, ir.Loop):
                    visit(stmt.body, True, in_branch)
                    visit(stmt.header, True, in_branch)
                    if stmt.target:
                        in_loops.add(stmt.target)

        visit(self.fn.body, False, False)
        for block_id in self.block_guards:  # .guards: a loop body's are pushed
            if block_id != id(self.fn.body):
                in_loops |= self.guards_defined(block_id)
        carried = {p.target for s in ir.walk(self.fn.body) if isinstance(s, ir.Loop)
                   for p in s.phis}
        for shape, source in self.shapes.items():
            if source in in_loops or source in carried:  # (carried: .carried_in)
                in_loops.add(shape)
            if source in branch_defs:
                branch_defs.add(shape)
        refs = set().union(*self.refs.values()) if self.refs else set()
        names = sorted(n for n in refs - in_loops if n in self.primals)
        names += list(self.stacks.values())
        return names, sorted(set(names) & branch_defs)

    # ---------------------------------------------------------------- forward sweep

    def forward_statement(self, stmt):
        """The forward sweep's copy of ``stmt``; ``np.sum(a)`` of an array ``a`` as the method
        ``a.sum()``, which NumPy's function calls for any other class anyway, without its
        Python layer (a few microseconds, most of a small array's sum)."""
        value = stmt.value
        if stmt.target is not None and isinstance(value, ir.Prim) and value.fn is np.sum and (
                len(value.args) == 1 and not value.kwargs) and isinstance(
                value.args[0], ir.Var) and self.an.kinds.get(value.args[0].name) == ARRAY and (
                not getattr(self.an.callees, "compiles_all", False)) and (
                not getattr(self.an.callees, "standard", False)):  # the standard: no methods
            return assign(stmt.target, call(nodes.attr(value.args[0].name, "sum")))
        return nodes.statement(stmt)

    def forward(self, stmts, block_id, loop):
        code = []
        for stmt in stmts:
            start = len(code)
            self.forward_one(stmt, code, loop)
            for node in code[start:]:  # the line it came from (srcad.backend.emit)
                if getattr(stmt, "line", None) and not hasattr(node, "srcad_line"):
                    node.srcad_line = stmt.line
        moved = self.deferred_shapes(code, block_id)  # .guards: shapes read where unlike
        code += self.block_guards.get(block_id, ())  # .guards: where every operand exists
        code += moved
        if block_id in self.saves:
            code.append(PushMarker(block_id))
        return code

    def forward_one(self, stmt, code, loop):
        """Append the forward sweep's code for one statement to ``code``."""
        if isinstance(stmt, ir.Assign):
            if id(stmt) in self.calls:
                fwd, ctx, forward = self.calls[id(stmt)]
                if forward is None:
                    forward = nodes.prim(stmt.value, func=name(fwd))
                code.append(assign([stmt.target, ctx], forward))
            elif stmt.target and self.compiled_call(stmt):
                fwd = self.compiled_call(stmt)
                code.append(assign([stmt.target, self.namer.fresh("unused_ctx")],
                                   nodes.prim(stmt.value, func=name(fwd))))
            else:
                code.append(self.forward_statement(stmt))
            for shape, source in self.shapes.items():
                if source == stmt.target:
                    code.append(assign(shape, self._shape_value(shape, source)))
            for kept, source, how in self.kept.get(id(stmt), ()):  # Rules.kept_read
                code.append(assign(kept, call(how, source)))
        elif isinstance(stmt, ir.SetItem):
            if getattr(self, "owned_writes", None) is None:
                self.owned_writes = owned_writes.in_place(self)
            copied = nodes.expr(stmt.obj) if id(stmt) in self.owned_writes else nodes.method(
                nodes.expr(stmt.obj), "copy")  # (an array only this loop holds: in place)
            code.append(assign(stmt.target, copied))
            code.append(assign(nodes.subscript(stmt.target, nodes.expr(stmt.index)),
                               nodes.expr(stmt.value)))
        elif isinstance(stmt, ir.If):
            then = self.forward(stmt.body, id(stmt.body), loop) + phi_copies(stmt.phis, 0)
            other = self.forward(stmt.orelse, id(stmt.orelse), loop) + phi_copies(
                stmt.phis, 1)
            code += nodes.either(nodes.expr(stmt.test), then, other)
        elif isinstance(stmt, ir.Loop):
            code += self.forward_loop(stmt)
        elif isinstance(stmt, ir.Raise):
            code.append(ast.Raise(exc=nodes.expr(stmt.value), cause=None))
        elif isinstance(stmt, ir.Return):
            code.append(ast.Return(value=nodes.expr(stmt.value)))

    def _shape_value(self, shape, source):
        """What the forward sweep assigns to ``shape``, kept for ``source``."""
        if shape in self.cuts:  # Rules.joined_pieces
            return self.cuts[shape]
        if shape in self.layouts:
            return call(self.helper("layout"), source)
        if self.an.kinds.get(source) == ARRAY:
            return nodes.attr(source, "shape")
        if getattr(self.an.callees, "compiles_all", False):  # Numba
            return call(nodes.attr(self.helper("np"), "shape"), source)
        return call(self.helper("shape_of"), source)

    def carried_in(self, name_, frame):
        """Whether ``name_`` is the carried value (a phi) of a loop whose body holds the block
        ``frame``, a number or an array on entry and after each step (``total = 0``, then
        ``total += row``) that is an array after a step (:func:`_array_carried`): read there
        for its shape alone, the loop keeps its shape, assigned as the body starts
        (:meth:`forward_loop`; the value there is the one the body reads), not the array (a
        whole array per step, kept for an ``unbroadcast``). A value not known to be an array
        (det's ``total``, a number in practice) is kept itself: pushing it costs nothing, its
        shape a call. Not Numba's (its own stacks)."""
        carried = getattr(self, "_carried", None)
        if carried is None:
            carried = self._carried = {}
            self._carried_blocks = {}
            for loop in (s for s in ir.walk(self.fn.body) if isinstance(s, ir.Loop)):
                names = {p.target for p in loop.phis if _array_carried(self, p)}
                blocks = _blocks_in(loop.body)
                for block in blocks:
                    carried.setdefault(block, set()).update(names)
                for carried_name in names:
                    self._carried_blocks[carried_name] = blocks
        return name_ in carried.get(frame, ()) and not getattr(
            self.an.callees, "compiles_all", False)

    def carried_kept(self):
        """The shapes of :meth:`carried_in` whose value the backward sweep of its loop reads
        anyway (saved per step for that): shape -> the value, which ``unbroadcast`` then reads
        (one item saved, not two)."""
        blocks = getattr(self, "_carried_blocks", {})
        return {shape: source for shape, source in self.shapes.items() if source in blocks and (
            shape not in self.layouts and shape not in self.cuts) and any(
            source in self.refs.get(b, ()) for b in blocks[source])}

    def forward_loop(self, stmt):
        code = [assign(p.target, nodes.expr(p.sources[0])) for p in stmt.phis
                if p.sources[0] is not None and str(p.sources[0]) != p.target]
        counter = self.counters.get(id(stmt))
        body = [assign(shape, self._shape_value(shape, source))  # .carried_in
                for p in stmt.phis for shape, source in self.shapes.items()
                if source == p.target]
        if counter:
            code.append(assign(counter, nodes.constant(0)))
            body.append(nodes.add_to(counter, nodes.constant(1)))
        body += self.forward(stmt.body, id(stmt.body), stmt)
        body += phi_copies(stmt.phis, 1)
        if stmt.exit is not None:
            body.append(nodes.break_if(nodes.expr(stmt.exit)))
        head = self.forward(stmt.header, id(stmt.header), stmt) if (
            stmt.kind != "for" and stmt.header) else None
        code.append(forward_loop_node(stmt, body, head))
        return code


def forward_loop_node(stmt, body, head):
    """The loop statement of the forward sweep (both modes): ``for``, ``while test``, or, when
    the test needs statements of its own (``head``), ``while True`` opening with them."""
    if stmt.kind == "for":
        return nodes.for_(stmt.target, nodes.expr(stmt.iter), body)
    if head is not None:
        head.append(nodes.break_if(nodes.not_(nodes.expr(stmt.test))))
        return nodes.while_(nodes.constant(True), head + body)
    return nodes.while_(nodes.expr(stmt.test), body)


def pushed(tree, stack, analysis):
    """What the code ``tree`` pushes on the list ``stack``, as ``analysis`` (of the function
    that code was made from) knows it: per push, ``{position: (kind, rank)}`` for a tuple,
    else the kind of the value pushed alone; ANY for what the analysis did not type (an
    expression, a name of the sweep's own); None when the code uses ``stack`` otherwise than
    by ``stack = []``, pushes and handing it on whole. Recorded on a split function's backward
    part (``__srcad_param_stacks__``), for when that part is differentiated in turn."""
    def kind(node):
        if isinstance(node, ast.Name) and analysis.kinds.get(node.id) is not None:
            rank = analysis.ranks.get(node.id) if analysis.kinds[node.id] == ARRAY else None
            return analysis.kinds[node.id], rank
        return ANY, None

    entries = []
    for node in walk_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                nodes.is_name(node.func.value, stack)):
            if node.func.attr != "append" or len(node.args) != 1 or node.keywords:
                return None
            item = node.args[0]
            if isinstance(item, ast.Tuple):
                entries.append({i: kind(e) for i, e in enumerate(item.elts)})
            else:
                entries.append(kind(item)[0])
    for node in walk_nodes(tree):  # a store other than ``stack = []``: not known
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if any(nodes.is_name(t, stack) for t in walk_nodes(target)) and not (
                        isinstance(node, ast.Assign) and isinstance(node.value, ast.List)
                        and not node.value.elts):
                    return None
    return entries


def _blocks_in(stmts):
    """The ids of ``stmts`` and of the blocks nested in it whose reads its saves cover (arms,
    loop bodies; not an inner loop's header)."""
    found = [id(stmts)]
    for stmt in stmts:
        if isinstance(stmt, ir.If):
            found += _blocks_in(stmt.body) + _blocks_in(stmt.orelse)
        elif isinstance(stmt, ir.Loop):
            found += _blocks_in(stmt.body)
    return found


def _array_carried(sweep, phi):
    """Whether a loop's carried value ``phi`` is a number or an array on entry and an array
    after a step: its kind ARRAY, or ANY with its step's value ARRAY or arithmetic with an
    ARRAY operand (``total = 0``, then ``total = total + row ** 2``)."""
    kinds = sweep.an.kinds
    if kinds.get(phi.target) not in (ARRAY, ANY) or not all(
            (isinstance(a, ir.Const) and type(a.value) in (int, float)) or (
                isinstance(a, ir.Var) and kinds.get(a.name) in (ARRAY, SCALAR, ANY))
            for a in phi.sources):
        return False
    if kinds.get(phi.target) == ARRAY:
        return True
    step = phi.sources[-1]
    if not isinstance(step, ir.Var):
        return False
    if kinds.get(step.name) == ARRAY:
        return True
    made = next((s.value for s in ir.walk(sweep.fn.body) if isinstance(s, ir.Assign) and (
        s.target == step.name)), None)
    return isinstance(made, ir.Prim) and made.fn in _ARITH and any(
        isinstance(a, ir.Var) and kinds.get(a.name) == ARRAY for a in made.args)
