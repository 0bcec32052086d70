"""Reverse mode, values read again instead of saved: an item of an array nothing changes.

A loop's block saves, per step, the values it defines that its backward code reads
(:mod:`.saves`). Some of them are cheap to make again where the backward code starts (at the
block's pop), with the very value the forward sweep had: ``t_2 = x[i]`` inside ``for i in
range(n):`` when ``x`` is an array nothing changes, since the backward loop walks ``i`` back
(``for i in reversed(range(n)):``). Those are read again there instead of being pushed and
popped: the backward code reads ``dx[i] += 2.0 * x[i]``, as a person writes it, and a loop
whose stack empties loses it.

A value defined by a statement of the block itself is read again when its expression is
one of (and any ``t`` it reads is read again too, from the same block, earlier):

* an item or a slice ``a[k]``, ``a[k, j]``, ``a[k:k + 2]`` of a *stable* array ``a``, each
  index but a slice the target of a loop walking that axis of ``a`` (``for k in
  range(len(a))``, ``range(a.shape[1])``, the size assigned at the top level): the forward
  read cannot fail then, and what only the discarded output made of it goes from the forward
  sweep (:mod:`srcad.backend.tidy_bounds`); any other item stays saved, since its forward read
  would stay, with the values made of it,
* ``k + 1``, ``k - j``, ``2 * k`` ... of Python ints (loop counters, their sums),
* a comparison ``t > 0.5`` (a branch's flag: tested again rather than saved; measured in
  docs/performance.md),

whose operands are constants, the targets of the plain ``for`` loops around the block (the
backward loop binds each to the value of the same step), or stable names. A *stable* name is
a parameter or a name assigned at the function's top level (not in a branch or a loop, so one
value for the whole call) that is a number, or an array whose memory nothing may change: every
value that may share its memory (:class:`srcad.analysis.memory.Aliases`: itself, a view, a
second name, a loop's carried copy) is only read by an item read, an operator, ``len``, an
attribute read, a NumPy ufunc or one of a few NumPy functions without ``out=``, copied, merged,
tested, iterated or returned. A write into it (``a[k] = v``, in place or not), a method call,
a call of any other function (a user function could write it), a list or tuple holding it:
the value stays saved. A list's item, an object's attribute, a global, a value of a branch
or a loop (a name SSA rebinds) are never stable.

The backward code must bind every loop target it needs where the block's pop stands (checked
on the code: a loop the backward sweep counts instead of walking, ``while`` or ``break``,
keeps its saves). Runs after :meth:`.saves.Saves.compute_saves` and before
:meth:`.saves.Saves.iterate_stacks`: it takes the names out of ``saves``, puts their
statements after the block's ``PopMarker``, records the names they read in ``refs`` (a loop
target comes off an iterated stack; a split callee's forward part hands a stable array to its
backward part), and drops a stack nothing is pushed on any more.

Imports ``srcad.analysis`` (:class:`.memory.Aliases`), ``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..analysis.memory import Aliases
from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from . import nodes

#: flags (comparisons) are tested again rather than saved (docs/performance.md measures it)
RETEST_FLAGS = True

_COMPARE = {operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne}
_INDEX_ARITH = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
                operator.neg}
#: what reading an array (or a value sharing its memory) may be handed to without a change
_PURE_CALLS = {len, np.sum, np.dot, np.mean, np.prod, np.max, np.min, np.amax, np.amin,
               np.shape, np.size, np.ndim, np.transpose, np.reshape, np.ravel, np.outer,
               np.inner, np.trace, np.diag, np.linalg.norm, np.linalg.det, np.linalg.inv,
               np.linalg.solve, np.linalg.slogdet, np.exp, np.log, np.sqrt, np.abs}


def read_again(sweep, backward):
    """Take out of ``sweep.saves`` the values its backward code ``backward`` can read again
    (see the module docstring) and put their statements where each block's backward code
    starts. ``sweep``: the :class:`.reverse.Reverse` after ``compute_saves``."""
    if not sweep.saves:
        return
    fn = sweep.fn
    blocks = {}  # id(block) -> (the statements, the plain for loops around it)
    _blocks(fn.body, (), blocks)
    pops = {}  # id(block) -> (the code list holding its PopMarker, the for targets bound)
    _pops(backward, frozenset(), pops)
    stable = _Stable(sweep)
    changed = False
    for block_id, (stack, names) in list(sweep.saves.items()):
        if block_id not in blocks or block_id not in pops:
            continue
        stmts, loops = blocks[block_id]
        code, bound = pops[block_id]
        walked = {loop.target: loop for loop in loops if loop.target in bound}
        made = _Remade(stmts, walked, stable, sweep)
        again = [n for n in names if made.can(n)]
        if not again:
            continue
        chosen = made.statements(again)
        marker = next(k for k, s in enumerate(code) if isinstance(
            s, nodes.PopMarker) and s.block == block_id)
        _rename(code[marker + 1:], {s.target: _fresh(sweep.namer, s.target) for s in chosen},
                        made_code := [_again(nodes.statement(s)) for s in chosen])
        code[marker + 1:marker + 1] = made_code
        refs = sweep.refs.setdefault(block_id, set())
        for s in chosen:
            refs |= {v.name for v in s.value.operands() if v.name in sweep.primals}
        kept = [n for n in names if n not in again]
        if kept:
            sweep.saves[block_id] = (stack, kept)
        else:
            del sweep.saves[block_id]
        changed = True
    if changed:
        used = {stack for stack, _ in sweep.saves.values()}
        for loop_id in [k for k, s in sweep.stacks.items() if s not in used]:
            del sweep.stacks[loop_id]


def _fresh(namer, name_):
    """A new name for ``name_`` made again (the function's tidy passes inline a temporary
    assigned once: ``dx[i] += 2.0 * x[i]``)."""
    return namer.temp(name_) if name_ in namer.temps else namer.fresh(name_)


def _again(stmt):
    """``stmt`` marked as a read made again: it cannot fail (the forward sweep made the same
    read of the same values), so the tidy passes drop it when nothing reads it."""
    stmt.srcad_again = True
    return stmt


def _rename(code, new, made):
    """Read ``new[n]`` for ``n`` in the backward code ``code`` and the statements ``made``."""
    for stmt in list(code) + made:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in new:
                node.id = new[node.id]


def _blocks(stmts, loops, out):
    """``out[id(block)] = (block, the plain for loops around it)`` for every block."""
    out[id(stmts)] = (stmts, loops)
    for stmt in stmts:
        if isinstance(stmt, ir.If):
            _blocks(stmt.body, loops, out)
            _blocks(stmt.orelse, loops, out)
        elif isinstance(stmt, ir.Loop):
            plain = stmt.kind == "for" and stmt.exit is None and stmt.target
            _blocks(stmt.body, loops + ((stmt,) if plain else ()), out)
            _blocks(stmt.header, loops, out)


def _pops(code, bound, out):
    """``out[block] = (the list holding PopMarker(block), the names the ``for`` loops
    around it bind)`` in the backward code ``code``."""
    for stmt in code:
        if isinstance(stmt, nodes.PopMarker):
            out[stmt.block] = (code, bound)
        elif isinstance(stmt, ast.For):
            inner = bound | {n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)}
            _pops(stmt.body, inner, out)
            _pops(stmt.orelse, bound, out)
        elif isinstance(stmt, (ast.If, ast.While)):
            _pops(stmt.body, bound, out)
            _pops(stmt.orelse, bound, out)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, stmt.orelse, stmt.finalbody):
                _pops(part, bound, out)


class _Remade:
    """Which values of one block can be made again where its backward code starts."""

    def __init__(self, stmts, walked, stable, sweep):
        self.targets, self.stable, self.sweep = walked, stable, sweep
        self.defs = {}  # name -> (position, statement) of the block's plain assignments
        for k, s in enumerate(stmts):
            if isinstance(s, ir.Assign) and s.target and not s.effect and isinstance(
                    s.value, ir.Prim) and id(s) not in sweep.calls and not sweep.kept.get(id(s)):
                self.defs[s.target] = (k, s)
        self.known = {}

    def can(self, name_):
        if name_ not in self.known:
            self.known[name_] = False  # (no cycle: SSA)
            self.known[name_] = name_ in self.defs and self._expression(self.defs[name_][1])
        return self.known[name_]

    def _expression(self, stmt):
        prim, kinds = stmt.value, self.sweep.an.kinds
        if prim.kwargs:
            return False
        if prim.fn is operator.getitem and len(prim.args) == 2:
            array, index = prim.args
            return isinstance(array, ir.Var) and kinds.get(array.name) == ARRAY and (
                self.stable.array(array.name)) and all(
                self._operand(v) for v in ir.atoms_in(index)) and self._walked(array, index)
        if prim.fn in _INDEX_ARITH and stmt.target in self.sweep.an.ints:
            return all(self._int(a) for a in prim.args)
        if prim.fn in _COMPARE and RETEST_FLAGS and len(prim.args) == 2:
            return all(self._number(a) for a in prim.args)
        return False

    def _walked(self, array, index):
        """Whether each index of ``array[index]`` but slices is the target of a loop around
        walking that axis of ``array`` (``for i in range(len(x))``, ``range(x.shape[1])``):
        the forward sweep's read cannot fail then, so what only the discarded output made of
        it goes from the forward sweep (``backend/tidy_bounds.py``); any other item stays
        saved (its forward read would stay, and the value made of it with it)."""
        parts = index.items if isinstance(index, ir.Index) else (index,)
        return all(isinstance(p, ir.Slice) or isinstance(p, ir.Var) and p.name in (
            self.targets) and self.stable.axis(self.targets[p.name].iter) == (array.name, k)
            for k, p in enumerate(parts))

    def _int(self, atom):
        if isinstance(atom, ir.Const):
            return type(atom.value) is int
        return atom.name in self.sweep.an.ints and self._operand(atom)

    def _number(self, atom):
        if isinstance(atom, ir.Const):
            return type(atom.value) in (int, float, bool)
        return self.sweep.an.kinds.get(atom.name) == SCALAR and self._operand(atom)

    def _operand(self, var):
        name_ = var.name
        if name_ in self.targets:
            return True
        if name_ in self.defs:
            return self.can(name_)
        return self.stable.name(name_)

    def statements(self, names):
        """The block's statements making ``names`` (and what they read of the block), in
        their order."""
        wanted, todo = set(), list(names)
        while todo:
            n = todo.pop()
            if n in wanted:
                continue
            wanted.add(n)
            todo += [v.name for v in self.defs[n][1].value.operands() if v.name in self.defs]
        return [s for _, s in sorted(self.defs[n] for n in wanted)]


class _Stable:
    """The names holding one value for the whole call, whose memory nothing changes."""

    def __init__(self, sweep):
        self.sweep = sweep
        fn = sweep.fn
        self.defs = {s.target: s.value for s in fn.body if isinstance(s, ir.Assign)
                     and s.target and not s.effect}  # (the top level's)
        self.top = set(fn.params) | set(self.defs)
        self.arrays = {}
        self.aliases = None

    def axis(self, walked):
        """``(p, k)`` of a loop's ``range(n)`` with ``n`` ``len(p)`` or ``p.shape[k]``
        (assigned at the top level; ``p`` stable), else None."""
        if not (isinstance(walked, ir.Prim) and walked.fn is range and len(
                walked.args) == 1 and not walked.kwargs and isinstance(walked.args[0], ir.Var)):
            return None
        size = self.defs.get(walked.args[0].name)
        if not isinstance(size, ir.Prim) or size.kwargs:
            return None
        if size.fn is len and len(size.args) == 1 and isinstance(size.args[0], ir.Var):
            return (size.args[0].name, 0) if self.array(size.args[0].name) else None
        if size.fn is operator.getitem and isinstance(size.args[0], ir.Var) and isinstance(
                size.args[1], ir.Const) and type(size.args[1].value) is int:
            shape = self.defs.get(size.args[0].name)
            if isinstance(shape, ir.Prim) and isinstance(shape.fn, ir.Attr) and (
                    shape.fn.name == "shape") and isinstance(shape.args[0], ir.Var) and (
                    self.array(shape.args[0].name)):
                return shape.args[0].name, size.args[1].value
        return None

    def name(self, name_):
        kind = self.sweep.an.kinds.get(name_)
        if name_ not in self.top:
            return False
        if kind == SCALAR:
            return True
        return kind == ARRAY and self.array(name_)

    def array(self, name_):
        if name_ not in self.top:
            return False
        if name_ not in self.arrays:
            self.arrays[name_] = self._unchanged(name_)
        return self.arrays[name_]

    def _unchanged(self, name_):
        if self.aliases is None:
            self.aliases = Aliases(self.sweep.fn, self.sweep.an)
        aliases = self.aliases
        own = aliases.own.get(name_)
        if not own or name_ in aliases.opaque or any(t[0] not in ("new", "arg") or len(t) != 2
                                                     for t in own):
            return False

        def shares(atom):
            return isinstance(atom, ir.Var) and (
                atom.name == name_ or aliases.mem(atom, aliases.held) & own)

        for stmt in ir.walk(self.sweep.fn.body):
            if isinstance(stmt, ir.SetItem):
                if shares(stmt.obj) or any(shares(v) for v in ir.atoms_in(stmt.value)):
                    return False
            elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim):
                if any(shares(v) for v in stmt.value.operands()) and not self._reads_only(
                        stmt):
                    return False
            elif isinstance(stmt, ir.Raise) and any(shares(v) for v in ir.atoms_in(
                    stmt.value)):
                return False
        return True

    def _reads_only(self, stmt):
        prim = stmt.value
        if id(stmt) in self.sweep.calls or "out" in prim.kwargs or stmt.effect:
            return False
        fn = prim.fn
        if isinstance(fn, ir.Attr):
            return True
        if isinstance(fn, (ir.Method, ir.Build, ir.BoolOp)) or fn is ir.ASSERT:
            return False
        if fn is operator.getitem or fn in ir.BINARY or fn in ir.UNARY:
            return True
        if isinstance(fn, np.ufunc):
            return True
        try:
            return fn in _PURE_CALLS
        except TypeError:  # (an unhashable callable)
            return False
