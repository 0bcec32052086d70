"""Reverse mode: generate the forward sweep and the backward sweep of an SSA function.

The result is a :class:`~.sweep.Generated` holding code as lists of ``ast`` statements
(:mod:`.nodes`), with markers where a block pushes and pops what it saves. What holds of it:

* straight-line code and branches outside loops keep every value in a local: nothing is
  pushed anywhere; a branch's backward sweep takes the branch its forward sweep took (the
  test is a local);
* inside a loop, each block pushes, at its end, only the values it defines that the backward
  sweep reads, as one tuple on the loop's stack; the backward block pops them first;
* a gradient that is known to be zero is not computed, initialised or added; the first
  contribution to a gradient assigns it, later ones add; zeros are written only where two
  paths meet (the end of a branch, the top of a reversed loop);
* every backward statement comes after a comment naming the user's line it differentiates.

:class:`Reverse` is assembled from one piece per family of statements, each a module:
this one (names, accumulation, the walk), :mod:`.reverse_rules` (assignments through the
rule registry), :mod:`.reverse_data` (containers, writes, calls of user functions),
:mod:`.reverse_flow` (branches and loops), :mod:`.joins` (joined arrays' pieces),
:mod:`.guards` (``unbroadcast`` left out where shapes match at run time),
:mod:`.sparse` (list gradients that start as ``None``), :mod:`.reuse` (templates reading
forward values) and :mod:`.saves` (what is saved, and the forward sweep that saves it);
:mod:`.same_numbers` runs first.

Imports: ``srcad.core``, ``srcad.analysis``, the rules registry, :mod:`srcad.errors` (the user's
line of a copy's comment), and the modules named above.
"""

from __future__ import annotations

import ast
import types

from .. import errors
from ..analysis import shapes
from ..analysis.analyse import Analysis
from ..core import ir
from ..core.kinds import ANY, ARRAY, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..rules import registry
from . import added_back, exp_quotients, into, loop_sums, nodes, partition, same_numbers
from .guards import ShapeGuards, guard_frames
from .joins import Joins, names_read, read_once
from .nodes import Comment, PopMarker, add_to, assign, call, name
from .reads_again import read_again
from .reuse import Reuse
from .reverse_data import Data, display_items
from .reverse_flow import Flow
from .reverse_rules import Rules, unshape_kept
from .saves import Saves
from .sparse import SparseLists, sparse_lists
from .sweep import Generated, Sweep
from .zeros import Zeros


class Reverse(Rules, Joins, Data, Flow, Saves, Zeros, ShapeGuards, SparseLists, Reuse, Sweep):
    def __init__(self, fn: ir.Function, analysis: Analysis, namer, helper_names,
                 structured=True, into=(), alike=(), runs_only=False):
        same_numbers.merge(fn, analysis)  # t_5 = i + 1 after t_2 = i + 1: a copy
        # a / (c + exp(u)): u's gradient from the quotient (.exp_quotients); y[i] = x[i] + b:
        # x's gradient is y's whole, x[i]'s none (.added_back)
        self.exp_quotients, (self.added_back, self.unread) = exp_quotients.find(
            fn, analysis), added_back.find(fn, analysis)
        self.fn = fn
        # parameters whose gradients start as arrays the caller passes, added into in place
        # (a backward part's variant: see .into); the calls made here of such variants
        self.into = tuple(into)
        self.into_parts = set()
        self.parts_called = False  # a callee's backward part is called: its code may add into
        # the gradient of a list or tuple argument in the argument's structure (for the user);
        # a callee's backward part hands its caller the mutable lists the sweep adds into
        self.structured = structured
        # code that only runs (the Python backend on NumPy arrays, not a form srcad reads
        # again): gradients of arrays read in slices covering them once written into empty
        # arrays (.partition)
        self.runs_only = runs_only
        self.pieces, self.piece_groups = [], {}  # partition.Pieces; gradient -> open group
        self.an = analysis
        self.namer = namer
        self.helper_names = helper_names  # helper -> spelling in generated code
        self.used_helpers = set()
        self.gnames = {}  # value -> its gradient's name
        self.primal_of = {}  # gradient's name -> value
        self.temp_grads = set()  # gradients of temporaries: tidy may inline them
        self.fresh = set()  # array gradients holding an array no other name holds
        self.items_made = {}  # container gradient -> (its items_at statement, indices, values)
        # scalar gradients that may hold an object someone else holds: bound to a container's
        # item (dx = dt[0]), to the seed (a backward part's or vjp's parameter: the caller's),
        # to what a callee's backward part returns, or copied from one of these. They are
        # added to by dx = dx + v, never dx += v: that code differentiated again could not
        # tell it from a write into the caller's array (MutationError, issue 14's over-refusal)
        self.borrowed, self.live, self.whole_parts = set(), set(), {}  # (.whole_lists)
        self.guard = None  # the open guard of a maybe-zero gradient (see .zeros)
        self.maybe = {}  # gradient that may be uncontributed on this path -> its flag
        self.flags = {}  # gradient -> the name of its flag (see .zeros)
        self.refs = {}  # id(block) -> primal names the backward code of that block reads
        self.primals = set(fn.params) | {n for s in ir.walk(fn.body) for n in ir.defined_by(s)}
        for s in ir.walk(fn.body):
            if isinstance(s, ir.Loop) and s.target:
                self.primals.add(s.target)
        self.stacks, self.counters = {}, {}  # id(loop) -> stack name, counter name
        self.depth = 0  # how many loops the backward sweep is inside
        self.outer_loops = []  # (loop, its backward ast.For): loops inside no other loop
        self.popped = set()  # stacks the backward sweep pops (the others it iterates)
        self.last_line = None
        self.in_loop = _assigned_in_loops(fn.body)
        self.assigned = _assigned_in_loops(fn.body, True)  # by a plain assignment, anywhere
        self.fixed_displays = _read_for_layout_only(fn)
        self.shapes = {}  # shape name -> the value it is the shape of (saved in its place)
        self.part_shapes = {}  # those made for a callee part's top-level unbroadcast
        self.layouts = set()  # the shape names that are stand-ins (layout(value)) instead
        self.cuts = {}  # shape names that are a display's summed lengths -> the expression
        self.cut_axes = {}  # those names -> the axis they are lengths along
        self.displays = {s.target: list(s.value.args) for s in ir.walk(fn.body) if isinstance(
            s, ir.Assign) and isinstance(s.value, ir.Prim) and s.value.fn is ir.BUILD_TUPLE
            and not s.value.kwargs}  # tuple displays: name -> the items
        self.read_once, self.display_pieces = read_once(fn), {}  # (.joins)
        self.calls = {}  # id(stmt) -> (forward function name, context name, call or None)
        self.kept = {}  # id(stmt) -> [(name, list, "len" or "list")]: see Rules.kept_read
        # array -> an earlier array of its shape; ``alike``: groups of parameters of one shape
        self.alike = shapes.classes(fn, analysis, alike)
        # parameter -> its class in the shape partition (different: known different shapes)
        self.apart = {p: k for k, group in enumerate(alike) for p in group
                      if p in fn.params and analysis.kinds.get(p) == ARRAY}
        self.uniform = {}  # gradient holding one number for every element -> a value shaped
        self.uniform_made = {}  # those made in a loop's body -> (body, how): .loop_sums
        self.top = id(fn.body)  # like it (np.sum's gradient before anything needs the array)
        self.guard_names = guard_frames(fn)  # block -> arrays a guard may read: see .guards
        self.guard_sites = []  # (block, operands' classes, the test's name node)
        self.block_guards = {}  # block -> the statements computing its guards
        self.sparse = sparse_lists(fn, analysis)  # lists whose gradients start as Nones
        self.sparse_used = False  # see .sparse
        self.sparse_stored = {}  # sparse list -> constant indices stored (None: unknown)
        self.cells = {}  # name -> closure cell of a callee's forward/backward part
        for name_, lifted in getattr(fn, "lifted", {}).items():  # nested defs, lifted
            self.cells[name_] = types.CellType(lifted)

    # ---------------------------------------------------------------- names and kinds

    def g(self, name_):
        if name_ not in self.gnames:
            self.gnames[name_] = self.namer.grad(name_)
            self.primal_of[self.gnames[name_]] = name_
            if name_ in self.namer.temps:
                self.temp_grads.add(self.gnames[name_])
        return self.gnames[name_]

    def zero(self, name_, frame):
        if self.an.kinds.get(name_, ANY) != SCALAR:
            self.ref(name_, frame)  # the zero is shaped like the value: the value is read
        return self.sparse_zero(name_) or super().zero(name_)

    def ref(self, name_, frame):
        if name_ in self.primals:
            self.refs.setdefault(frame, set()).add(name_)

    def ref_names(self, tree, frame):
        for sub in walk_nodes(tree):
            if isinstance(sub, ast.Name):
                self.ref(sub.id, frame)

    # ---------------------------------------------------------------- accumulation

    def accumulate(self, atom, contribution, code, frame, uniform=False):
        """Add ``contribution`` (a node, or a name) to the gradient of ``atom``; ``uniform``:
        the contribution is one number standing for every element of ``atom``."""
        if not self.an.active(atom) or atom.name in self.unread:  # (.added_back)
            return
        name_ = atom.name
        gname = self.g(name_)
        kind = self.an.kinds.get(name_)
        contribution = nodes.node(contribution)
        was_live, zflag = gname in self.live, self.zero_flag(contribution)
        if uniform and (gname not in self.live or gname in self.uniform):
            self.uniform[gname] = self.alike.get(name_, name_)
        else:
            self.uniform.pop(gname, None)  # a whole array added: the sum is a whole array
        if gname in self.live:
            if kind in (SEQ, ANY):
                code.append(assign(gname, call(self.helper("add"), gname, contribution)))
            elif kind == SCALAR and gname not in self.borrowed or gname in self.fresh and (
                    name_ not in self.an.complex):
                # a float, or an array this sweep made and nothing else holds: add in place
                # (not to a float read from a container's gradient: that code differentiated
                # again could not tell it from an array the container shares; not to a value
                # that may be complex: real when the code runs, its gradient so far may be a
                # real array that a complex contribution cannot be added into)
                code.append(add_to(gname, contribution))
            else:
                code.append(assign(gname, nodes.plus(gname, contribution)))
                if kind == ARRAY and gname not in self.uniform:
                    # the sum is a new array nothing else holds: the next ones add into it
                    # (a loop's exit keeps this only where it held before the loop)
                    self.fresh.add(gname)
        else:
            code.append(assign(gname, contribution))
            self.live.add(gname)
            self.borrowed |= _borrowed(gname, kind, contribution, self)
            if kind == ARRAY and _makes_new_array(contribution, self, name_) and (
                    gname not in self.uniform):
                self.fresh.add(gname)
            else:
                self.fresh.discard(gname)
        self.note_contribution(gname, was_live, zflag, code)

    def same_shape(self, a, b):
        return self.an.kinds.get(a) == ARRAY and self.alike.get(a, a) == self.alike.get(b, b)

    def reads_whole(self, tree, target):
        """Whether an instantiated template reads an array shaped like ``target`` (then its
        value is a whole array even when ``g`` is one number)."""
        return any(isinstance(n, ast.Name) and (n.id == target or self.same_shape(n.id, target))
                   for n in walk_nodes(tree))

    def materialise(self, gname, code, frame, final=False):
        """A one-number gradient made a whole array (a read-only view, no memory; a new
        array for a gradient handed to the user)."""
        if gname in self.uniform and loop_sums.materialised(self, gname, code, frame):
            return  # made in a loop's body: as the rule makes it there
        root = self.uniform.pop(gname, None)
        if root is None:
            return
        self.ref(root, frame)
        np_ = self.helper_names.get("np", "np")
        self.used_helpers.add("np")
        shape = self.broadcast_shape(root, frame) or call(nodes.attr(np_, "shape"), root)
        if final:
            code.append(assign(gname, call(nodes.attr(np_, "full"), shape, gname)))
            self.fresh.add(gname)
        else:
            code.append(assign(gname, call(nodes.attr(np_, "broadcast_to"), gname, shape)))
            self.fresh.discard(gname)

    def ensure_live(self, name_, code, frame):
        gname = self.g(name_)
        if gname not in self.live:
            code.append(assign(gname, self.zero(name_, frame)))
            self.live.add(gname)
            if self.an.kinds.get(name_) == ARRAY:
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
        for p in self.into:  # the caller's array: live, new, added into (see .into)
            self.live.add(self.g(p))
            self.fresh.add(self.g(p))
        if self.an.active(result):
            self.live.add(seed_name)
            self.borrowed.add(seed_name)  # the caller's (a parameter), or check_scalar's
            self.comment(ret, backward)
        backward += self.block(body[:-1] if ret else body, top)
        display_items(self, backward, {seed_name, *map(self.g, self.into)})  # the caller's
        partitioned = self.runs_only and partition.rewrite(self, backward)
        for p in self.an.wrt:
            self.materialise(self.g(p), backward, top, final=True)
        grads = {}
        for p in into.returned(self.an.wrt, self.into):
            gname = self.g(p)
            grads[p] = name(gname) if gname in self.live else self.zero(p, top)
            if p in self.sparse:  # .sparse: a new list of arrays
                grads[p] = self.sparse_return(p, grads[p])
                if self.structured:
                    grads[p] = call(self.helper("like"), grads[p], p)
            elif self.an.kinds.get(p) == SEQ and self.structured:  # same structure back
                grads[p] = call(self.helper("like"), grads[p], p)
            elif self.an.kinds.get(p) == SEQ:
                grads[p] = call(self.helper("mutable"), grads[p])
        self.finish_guards()
        self.fold_guards(backward)
        unshape_kept(self, backward)
        self.guard_only_shapes(backward + list(grads.values()))  # .guards
        self.compute_saves()
        read_again(self, backward)  # items of unchanged arrays: read, not saved
        self.iterate_stacks()
        self.backward_code = backward  # (.owned_writes: which values it reads whole)
        forward = self.forward(body[:-1] if ret else body, top, loop=None)
        # A merge of a name defined on one path only: its backward sweep may write a zero
        # shaped like it on the other path, so the name must exist there (as None).
        refs = set().union(*self.refs.values()) if self.refs else set()
        # (or a loop nested in the loop reads it on entry: r_1 = r, r set only inside it)
        refs |= {n.id for stmt in forward for n in walk_nodes(stmt) if isinstance(
            n, ast.Name) and isinstance(n.ctx, ast.Load)}
        partial = [p.target for s in ir.walk(body) if isinstance(s, (ir.If, ir.Loop))
                   for p in s.phis if any(src is None for src in p.sources)
                   and (isinstance(s, ir.If) or p.target in refs)]
        forward = [assign(n, nodes.constant(None)) for n in sorted(set(partial))] + forward
        gen = Generated(forward, backward, list(self.stacks.values()), result, grads, seed_name,
                        self.used_helpers, self.saves, self.temp_grads, self.cells,
                        self.split_saves())
        gen.popped = self.popped
        gen.into_parts = self.into_parts
        # a derivative of this code reads its plain form: no variants called, no sparse lists,
        # no shape guards (conditional expressions: larger, slower), no writes in place
        gen.parts_called = self.parts_called or self.sparse_used or bool(self.guard_sites) or (
            partitioned or getattr(self, "operators_written", False) or
            bool(getattr(self, "owned_writes", None)))
        gen.buffers = {p: self.g(p) for p in self.into}
        gen.keeps = _keeps(self)
        return gen

    def comment(self, stmt, code):
        line = getattr(stmt, "line", None)
        if line is None or line == self.last_line:
            return
        self.last_line = line
        shown = _shown_line(self.fn.source, line)
        if shown != getattr(self, "last_shown", None):  # (two lines of a copy srcad made
            self.last_shown = shown  # naming one of the user's: update's return added)
            code.append(Comment(f"line {shown[0]}: {shown[1]}" if shown[1] else
                                f"line {shown[0]}", line))

    # ---------------------------------------------------------------- backward sweep

    def block(self, stmts, frame):
        self.blocks[frame] = stmts
        code = [PopMarker(frame)]
        for stmt in reversed(stmts):
            if self.guard is not None:
                if self.continues_guard(stmt) and not self.needs_guard(stmt):
                    self.guarded(stmt, frame)
                    continue
                self.close_guard()
            self.stmt(stmt, code, frame)
        self.close_guard()
        return code

    def stmt(self, stmt, code, frame):
        if not isinstance(stmt, ir.Assign) and self.uniform:
            mentioned = _mentioned(stmt)
            for gname in list(self.uniform):  # branches and loops see whole arrays
                primal = self.primal_of.get(gname)
                if primal is None or primal in mentioned:  # a gradient the statement touches
                    self.materialise(gname, code, frame)
        if self.needs_guard(stmt):  # it reads a gradient that may be a symbolic zero
            self.open_guard(stmt, code, frame)
        elif isinstance(stmt, (ir.Assign, ir.SetItem)):
            self.differentiate(stmt, code, frame)
        elif isinstance(stmt, ir.If):
            self.if_(stmt, code, frame)
        elif isinstance(stmt, ir.Loop):
            self.loop(stmt, code, frame)


    def differentiate(self, stmt, code, frame):
        self.dead_after = {self.gnames.get(n) for n in ir.defined_by(stmt)}  # (_borrowed)
        (self.assign if isinstance(stmt, ir.Assign) else self.setitem)(stmt, code, frame)
        self.dead_after = ()


def _keeps(sweep):
    """The names of the generated code that may hold arrays, lists or a callee's context
    (never a number): values, their gradients, contexts, layouts' stand-ins
    (:mod:`srcad.backend.free_early` frees them where last read)."""
    kinds = sweep.an.kinds
    keeps = {n for n in sweep.primals if kinds.get(n, ANY) in (ARRAY, SEQ, ANY)}
    keeps |= {g for g, p in sweep.primal_of.items() if kinds.get(p, ANY) in (ARRAY, SEQ, ANY)}
    keeps |= {ctx for _, ctx, _ in sweep.calls.values()}
    return (keeps - set(sweep.shapes)) | sweep.layouts  # (a shape is a small tuple)


def _borrowed(gname, kind, contribution, sweep):
    """The float gradients not to be added into in place once ``gname = contribution`` is
    made: ``gname`` where the float was read out of a container's gradient or is a borrowed
    one; (forms35) both where it is another live gradient still read later (``ddE = dEi``:
    that code differentiated again could not tell the float from an array both names hold,
    ``dEi += v`` changing ``ddE`` too). Not where that gradient is ``dead`` once the
    statement is done (the gradient of the value it defines: ``dw = db`` for ``b = w + 1``,
    then ``dw += da``, as a person writes it; ``dead_after``, set by
    :meth:`Reverse.differentiate`)."""
    borrowed, live, dead = sweep.borrowed, sweep.live, getattr(sweep, "dead_after", ())
    if kind != SCALAR:
        return set()
    if isinstance(contribution, ast.Subscript) or isinstance(
            contribution, ast.Name) and contribution.id in borrowed:
        return {gname}
    if isinstance(contribution, ast.Name) and contribution.id in live and (
            contribution.id not in dead):
        return {gname, contribution.id}
    return set()


def _makes_new_array(tree, sweep=None, primal=None):
    """Whether an expression certainly builds a new array (arithmetic on an array, or, in
    NumPy's and Dask's code, ``unbroadcast`` of it to the shape of ``primal``, an array of
    rank 1 or more: that array itself, a sum of it or a new one, never a number; the array
    API's may broadcast, Numba's differ), so the name it is assigned to may be added into in
    place."""
    spellings = sweep.helper_names if sweep is not None and getattr(
        sweep.an.callees, "guards", False) and sweep.an.rank(ir.Var(primal)) else None
    if isinstance(tree, ast.Call) and spellings is not None and len(tree.args) == 2 and (
            isinstance(tree.func, ast.Name)) and tree.func.id in (
            spellings.get("unbroadcast", "unbroadcast"),
            spellings.get("unbroadcast_to", "unbroadcast_to")):
        tree = tree.args[0]
    return isinstance(tree, ast.BinOp) and not isinstance(tree.op, ast.MatMult)


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


def _read_for_layout_only(fn):
    """Lists and tuples built by a display (``(a, b)``, ``[a, b]``) whose every read is an
    argument that a rule reads only for its layout (``np.concatenate([a, b])``): nothing
    changes them after they are built, so a stand-in made there stands for them where they
    are read (see ``Rules.keeps_layout``)."""
    built = {s.target for s in ir.walk(fn.body) if isinstance(s, ir.Assign) and s.target
             and isinstance(s.value, ir.Prim) and s.value.fn in (ir.BUILD_TUPLE, ir.BUILD_LIST)}
    other = set()
    for s in ir.walk(fn.body):
        for_layout = []
        value = getattr(s, "value", None)
        if isinstance(s, ir.Assign) and isinstance(value, ir.Prim) and not isinstance(
                value.fn, (ir.Method, ir.Attr, ir.Build, ir.BoolOp)):
            rule, bound = registry.find(value.fn, list(value.args), dict(value.kwargs))
            if rule is not None:
                for_layout = [a.name for p, a in bound.items()
                              if p in rule.shape_only and isinstance(a, ir.Var)]
        for n in names_read(s):
            if n in for_layout:
                for_layout.remove(n)  # one read as that argument
            else:
                other.add(n)
    return built - other


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


def _shown_line(src, line):
    """``(line, text)`` of the user's source a comment names for ``line`` (of a copy srcad
    made: the user's line it was copied from)."""
    where = errors.user_line(src.filename, line) if src is not None else None
    if where is not None:
        return where[1], where[2]
    return line, src.line_text(line) if src else None
