"""Reverse mode, symbolic zeros: a gradient that may not have been contributed to on the path
the run took holds a zero *and* a flag (a local bool, ``nz_dw``) that says whether anything
was contributed; the backward statements that read such a gradient run only when the flag is
set (``if nz_dw: dx += dw * partial``). A value that overflowed to inf or nan on a path that
did not reach the output then never meets its zero gradient (0 * inf = nan).

Which gradients may be uncontributed is decided while the backward sweep is generated (the
sweep already knows which gradients are assigned on every path: ``live``): a gradient becomes
*maybe-zero* where a zero is written for it — one arm of a branch that did not contribute, the
top of a reversed loop, the end of a reversed iteration — or where it is copied from a
maybe-zero one; it stops being one when something that is not zero is added to it. Flags are
written only then, so straight-line code, and branches and loops whose gradients are set on
every path, keep the code they had; a flag nothing reads goes with the dead code.

A loop's body is generated under an assumption about which carried gradients may be zero at
its top; if the end of the body breaks it, the body is generated again under the wider one
(the state of the sweep is put back first).

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import copy
import operator

from ..core import ir
from ..core.walk import walk_nodes
from . import nodes
from .nodes import assign, name


class _Guard:
    """An open ``if nz_dy:`` of the backward sweep, with the state before it."""

    def __init__(self, gname, test, live, fresh, maybe, frame, top, code):
        self.gname, self.test, self.frame, self.top, self.code = gname, test, frame, top, code
        self.live, self.fresh, self.maybe = live, fresh, maybe
        self.inner = []
        self.node = None
        self.done = set()  # the values whose statements it holds: their gradients are dead


class Zeros:
    """Maybe-zero gradients and their flags (see the module docstring). ``self.maybe`` maps
    each gradient that may be uncontributed on the current path to its flag's name."""

    def flag(self, gname):
        """The flag of ``gname``: one name for it everywhere (a loop carries it)."""
        if gname not in self.flags:
            self.flags[gname] = self.namer.fresh("nz_" + gname)
        return self.flags[gname]

    def set_flag(self, gname, value, code):
        value = nodes.constant(value) if isinstance(value, bool) else name(value)
        code.append(assign(self.flag(gname), value))

    def zero_flag(self, contribution):
        """The flag of the maybe-zero gradient a contribution copies (``dx = dx_2``,
        ``np.real(dx_2)``), or None (also where it reads two: not zero, to be safe)."""
        flags = {self.maybe[sub.id] for sub in walk_nodes(contribution)
                 if isinstance(sub, ast.Name) and sub.id in self.maybe}
        return flags.pop() if len(flags) == 1 else None

    def note_contribution(self, gname, was_live, zflag, code):
        """After ``gname`` was assigned (``was_live`` False) or added to: whether it may now
        be zero, and its flag where it may."""
        if not was_live:
            if zflag is not None:
                self.maybe[gname] = self.flag(gname)
                self.set_flag(gname, zflag, code)
            else:
                self.maybe.pop(gname, None)
        elif gname in self.maybe:
            if zflag is not None:
                code.append(nodes.if_(name(zflag), [assign(self.flag(gname),
                                                           nodes.constant(True))]))
            else:
                del self.maybe[gname]  # set on this path: a merge sets its flag

    def merge_arms(self, arms, keep=None):
        """Join paths. ``arms``: (code, live, maybe, frame) per path, each list of code open
        at its end. A gradient assigned on some path only gets a zero (and a false flag) on
        the others; one that may be zero after the join gets a true flag on the paths that
        set it. Returns the live set and the maybe-zero gradients after the join."""
        merged = set().union(*(live for _, live, _, _ in arms))
        if keep is not None:
            merged &= keep
        maybe_after = {g for g in merged for _, live, maybe, _ in arms
                       if g not in live or g in maybe}
        for code, live, maybe, frame in arms:
            for gname in sorted(merged - live):
                primal = self.primal_of[gname]
                code.append(assign(gname, self.zero(primal, frame)))
                self.set_flag(gname, False, code)
            for gname in sorted(maybe_after & live):
                if gname not in maybe:
                    self.set_flag(gname, True, code)
        return merged, {g: self.flag(g) for g in sorted(maybe_after)}

    # ---------------------------------------------------------------- guards

    def needs_guard(self, stmt):
        """Whether the backward code of ``stmt`` reads a maybe-zero gradient in more than a
        copy (a copy passes the flag on instead)."""
        if not isinstance(stmt, (ir.Assign, ir.SetItem)) or not stmt.target:
            return False
        gname = self.gnames.get(stmt.target)
        if gname is None or gname not in self.maybe or gname not in self.live:
            return False
        value = stmt.value
        if isinstance(stmt, ir.Assign) and (not isinstance(value, ir.Prim) or value.fn in (
                operator.getitem, ir.BUILD_LIST, ir.BUILD_TUPLE, ir.BUILD_DICT)):
            return False  # a copy, an item, a display: the flag is passed on instead
        if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name in ("pop", "append")):
            return False  # a list's gradient keeps its length
        return True

    def open_guard(self, stmt, code, frame):
        """Differentiate ``stmt`` inside ``if nz_dy:`` for the maybe-zero gradient ``dy`` it
        reads. The guard stays open for the next statements whose gradient was made inside
        it (a chain of temporaries); :meth:`close_guard` joins its two paths."""
        gname = self.gnames[stmt.target]
        for one in list(self.uniform):  # one number for an array: both paths must agree
            self.materialise(one, code, frame)
        test = self.maybe.pop(gname)
        guard = _Guard(gname, test, set(self.live), set(self.fresh), dict(self.maybe), frame,
                       self.top, code)
        guard.maybe[gname] = test
        guard.node = nodes.if_(name(test), guard.inner)
        code.append(guard.node)
        self.top = None  # no one-number gradients inside: both paths hold the same kind
        self.guard = guard
        self.guarded(stmt, frame)

    def guarded(self, stmt, frame):
        self.guard.done.add(stmt.target)
        self.differentiate(stmt, self.guard.inner, frame)

    def continues_guard(self, stmt):
        """Whether ``stmt``'s backward code reads only gradients made in the open guard."""
        guard = self.guard
        if not isinstance(stmt, (ir.Assign, ir.SetItem)) or not stmt.target:
            return False
        value = stmt.value
        if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                value.fn.name in ("pop", "append")):
            return False
        gname = self.gnames.get(stmt.target)
        return gname is None or gname not in guard.live and gname not in self.maybe

    def close_guard(self):
        guard, self.guard = self.guard, None
        if guard is None:
            return
        self.top = guard.top
        code = guard.code
        at = next(k for k, s in enumerate(code) if s is guard.node)
        if not any(s.__class__ not in (nodes.PopMarker, nodes.Comment) for s in guard.inner):
            # nothing to guard: as before it
            del code[at]
            self.live, self.fresh, self.maybe = guard.live, guard.fresh, guard.maybe
            return
        then_maybe = dict(self.maybe)
        then_maybe[guard.gname] = guard.test  # its flag is true there
        then_fresh = set(self.fresh)
        orelse = []
        dead = {self.gnames[t] for t in guard.done if t in self.gnames} - guard.live
        self.live, self.maybe = self.merge_arms(
            [(guard.inner, set(self.live), then_maybe, guard.frame),
             (orelse, guard.live, guard.maybe, guard.frame)], keep=self.live - dead)
        self.fresh = then_fresh & (guard.fresh | (self.live - guard.live))  # zeros: new
        guard.node.orelse = orelse
        if isinstance(guard.inner[0], nodes.Comment):  # the line's comment before the guard
            code.insert(at, guard.inner.pop(0))

    # ---------------------------------------------------------------- loops

    def snapshot(self):
        """The sweep's state, to generate a loop's body again."""
        saved = {}
        for key, value in vars(self).items():
            if key in ("fn", "an", "namer", "helper_names", "alike", "blocks"):
                continue
            if isinstance(value, dict):
                saved[key] = {k: set(v) if isinstance(v, set) else v for k, v in value.items()}
            elif isinstance(value, (set, list)):
                saved[key] = copy.copy(value)
            else:
                saved[key] = value
        return saved, copy.deepcopy(vars(self.namer))

    def restore(self, state):
        saved, namer = state
        for key in [k for k in vars(self) if k not in saved and k not in (
                "fn", "an", "namer", "helper_names", "alike", "blocks")]:
            delattr(self, key)
        vars(self).update(saved)
        vars(self.namer).clear()
        vars(self.namer).update(namer)
