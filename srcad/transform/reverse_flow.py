"""Reverse mode, control flow: a branch's backward sweep takes the branch its forward sweep
took and routes the merged values' gradients back into each arm; a loop's backward sweep
runs the body's adjoint as many times as the forward ran it (walking the loop's own iterable
backwards, or counting), carrying the gradients of the loop-carried names.

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``,
:mod:`.nodes`.
"""

from __future__ import annotations

from ..core import ir
from . import nodes
from .nodes import PopMarker, assign, call, has_code, name


class Flow:
    """Branches and loops (see the module docstring)."""

    def if_(self, stmt, code, frame):
        live_before, maybe_before = set(self.live), dict(self.maybe)
        inner_defs = {n for s in ir.walk(stmt.body + stmt.orelse) for n in ir.defined_by(s)}
        inner_grads = {self.g(n) for n in inner_defs | {p.target for p in stmt.phis}}
        arms = []
        fresh_before, fresh_after = set(self.fresh), []
        for side, block in ((0, stmt.body), (1, stmt.orelse)):
            self.live = set(live_before)
            self.fresh = set(fresh_before)
            self.maybe = dict(maybe_before)
            arm = []
            for phi in stmt.phis:
                src = phi.sources[side]
                if self.an.active(ir.Var(phi.target)) and self.g(phi.target) in self.live:
                    if isinstance(src, ir.Var):
                        self.accumulate(src, self.merged_grad(phi, src), arm, id(block))
            arm += self.block(block, id(block))
            arms.append((arm, self.live - inner_grads, dict(self.maybe), id(block)))
            fresh_after.append(set(self.fresh))
        self.fresh = fresh_after[0] & fresh_after[1]  # a zero written at the merge is new too
        # a gradient set on one arm only: a zero, and a false flag, on the other
        self.live, self.maybe = self.merge_arms(arms)
        then_code, else_code = arms[0][0], arms[1][0]
        if not has_code(then_code) and not has_code(else_code):
            return
        for v in ir.atoms_in(stmt.test):
            self.ref(v.name, frame)
        self.comment(stmt, code)
        if has_code(then_code):
            code.append(nodes.if_(nodes.expr(stmt.test), then_code,
                                  else_code if has_code(else_code) else None))
        else:
            code.append(nodes.if_(nodes.not_(nodes.expr(stmt.test)), else_code))

    def loop(self, stmt, code, frame):
        """The reversed loop; its body is generated again while the gradients that may be
        zero at the end of an iteration are not all assumed so at its top (see .zeros)."""
        assumed = set()
        for _ in range(100):
            state = self.snapshot()
            out = []
            wider = self.loop_once(stmt, out, frame, assumed)
            if not wider:
                break
            self.restore(state)
            assumed |= wider
        code.extend(out)

    def loop_once(self, stmt, code, frame, assumed):
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
            return set()
        body_id = id(stmt.body)
        pre = []
        for name_ in [p.target for p in active_phis] + touched:
            self.carry_in(name_, pre, frame)  # a zero written here may stay zero
        for gname in sorted(assumed):
            if gname in self.live and gname not in self.maybe:
                self.set_flag(gname, True, pre)
                self.maybe[gname] = self.flag(gname)
        live_outside = set(self.live)
        maybe_top = dict(self.maybe)
        fresh_outside = set(self.fresh)
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
                body.append(assign(tmp, name(gname)))
                if gname in self.maybe:
                    self.maybe[tmp] = self.flag(tmp)
                    self.set_flag(tmp, self.maybe[gname], body)
                carried.append((p, tmp))
                if gname in self.borrowed:
                    self.borrowed.add(tmp)
            else:
                carried.append((p, gname))
        for p, _ in carried:
            self.live.discard(self.g(p.target))
        for p, gsrc in carried:
            src = p.sources[1]
            if isinstance(src, ir.Var):
                if not needs_temps and self.g(src.name) not in self.live:
                    body.append(assign(self.g(src.name), name(gsrc)))
                    self.live.add(self.g(src.name))
                    if gsrc in self.fresh:  # the array moves to it: only it holds it now
                        self.fresh.add(self.g(src.name))
                    else:
                        self.fresh.discard(self.g(src.name))
                    self.note_contribution(self.g(src.name), False, self.maybe.get(gsrc), body)
                    if gsrc in self.borrowed:
                        self.borrowed.add(self.g(src.name))
                else:
                    self.accumulate(src, self.merged_grad(p, src, gsrc), body, body_id)
        for p, gsrc in carried:
            if self.g(p.target) not in self.live:
                self.maybe.pop(self.g(p.target), None)
            if gsrc != self.g(p.target):
                self.maybe.pop(gsrc, None)
        self.blocks[body_id] = stmt.body
        self.depth += 1
        inner = self.block(stmt.body, body_id)
        self.depth -= 1
        body += inner[1:]  # its PopMarker is already first
        for p in active_phis:
            self.carry_in(p.target, body, body_id)
        # the back edge: what may be zero at the end must have been assumed at the top
        wider = {g for g in live_outside if g in self.maybe and g not in maybe_top}
        if wider:
            return wider
        for gname in sorted(maybe_top):
            if gname in self.live and gname not in self.maybe:
                self.set_flag(gname, True, body)
        self.live = live_outside | {self.g(p.target) for p in active_phis}
        self.maybe = maybe_top
        for gname in [g for g in self.uniform if g not in self.live]:
            del self.uniform[gname]  # one number per iteration (.loop_sums), dead after it:
            self.uniform_made.pop(gname, None)  # never made an array after the loop
        if stmt.kind == "for" and stmt.exit is None:
            for v in stmt.iter.operands():
                self.ref(v.name, frame)
            loop = nodes.for_(stmt.target, call("reversed", nodes.expr(stmt.iter)), body)
        else:
            counter = self.counter(stmt)
            self.ref(counter, frame)
            loop = nodes.for_("_", call("range", counter), body)
        self.comment(stmt, code)
        code.extend(pre)
        code.append(loop)
        # after no iteration a gradient is what it was before the loop: new only if it was
        self.fresh &= fresh_outside
        if self.depth == 0:
            self.outer_loops.append((stmt, loop))
        for p in active_phis:
            entry = p.sources[0]
            if isinstance(entry, ir.Var):
                self.accumulate(entry, self.merged_grad(p, entry), code, frame)
            self.live.discard(self.g(p.target))
            self.maybe.pop(self.g(p.target), None)
        return set()

    def carry_in(self, name_, code, frame):
        """The gradient of ``name_`` made live where a loop needs it: a zero, maybe-zero."""
        gname = self.g(name_)
        if gname not in self.live:
            self.ensure_live(name_, code, frame)
            self.set_flag(gname, False, code)
            self.maybe[gname] = self.flag(gname)

    def merged_grad(self, phi, src, grad=None):
        """The gradient of the merged value ``phi.target`` flowing to ``src``: its real part
        for a real ``src`` of a value that may be complex (JAX's convention)."""
        grad = grad or self.g(phi.target)
        if phi.target in self.an.complex and not self.an.is_complex(src):
            return self.real_of(src, grad)
        return grad

    def counter(self, stmt):
        if id(stmt) not in self.counters:
            name_ = self.namer.fresh("n_iter")
            self.counters[id(stmt)] = name_
            self.primals.add(name_)
        return self.counters[id(stmt)]

    def stack(self, loop):
        if id(loop) not in self.stacks:
            self.stacks[id(loop)] = self.namer.fresh("stack")
        return self.stacks[id(loop)]
