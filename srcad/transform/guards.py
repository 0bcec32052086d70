"""Reverse mode, shape guards: ``unbroadcast`` left out at run time where the arrays of an
element-wise operation have one shape.

The shape classes (:mod:`srcad.analysis.shapes`) prove two arrays alike only when one was
computed from the other by element-wise operations; arrays the function is given, or slices
of them, have shapes no class relates (``cell * forget`` in an LSTM cell, where ``cell`` is an
argument). An element-wise operation ``y = op(a, b, ...)`` whose array operands all have one
shape gives a result of that shape, so the gradient flowing back to each operand (``g * b``,
of ``y``'s shape) needs no ``unbroadcast``: what the static classes prove, checked here where
the program runs.

Guards are made where code runs many times a call: in loop bodies, and at the top level of a
function called from differentiated code (its forward and backward parts run once a call of
it, as an LSTM's cell does once a step); not at the top level of the function differentiated
itself, which runs once, where a guard would save one ``unbroadcast``'s own shape check at
the price of a line to read. Each such operation at the top level of a block (not inside a
branch) makes its operands' classes one *guard class*, unless two of them are parameters the
specialisation knows to have different shapes (:func:`srcad.backend.keys.shape_partition`):
then the guard is false at every call, and the code is the plain ``unbroadcast`` (a class
joined from such sites is folded away the same way, :meth:`ShapeGuards.fold_guards`). The
forward sweep, at the block's end, computes one boolean per guard class, ``alike = a.shape ==
b.shape == c.shape`` (each array's shape read once; ``len(a) == len(b)`` where all are
vectors by the ranks the code is made for, no tuple each), and the backward sweep reads ``dA =
g * b if alike else unbroadcast(g * b, a)``: the unbroadcast only where the shapes differ, as
before. Nothing else changes: the operands the general path reads are read as before, and
the guard is one saved boolean.

:meth:`ShapeGuards.broadcast_shape` is the other use of the same facts: the shape of an
element-wise result whose operands' classes differ, ``shape_of(a, b)``, where a gradient that
is one number must become a whole array, instead of computing ``a * b`` for its shape.

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``,
and :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import copy
import operator

import numpy as np

from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from . import nodes
from .nodes import assign

#: Python's operators that broadcast their operands (NumPy's ufuncs are found by their class)
_ELEMENTWISE = frozenset((operator.add, operator.sub, operator.mul, operator.truediv,
                          operator.pow, operator.mod, operator.floordiv))


class ShapeGuards:
    """Run-time shape guards for ``unbroadcast`` (see the module docstring)."""

    def shape_guarded(self, plain, contribution, value, frame):
        """``contribution if guard else plain`` when ``value`` (the primal operation whose
        operand ``plain`` unbroadcasts to) is element-wise over arrays defined at the top
        level and known alike-or-not only at run time; else ``plain``."""
        roots = self._guard_roots(value, frame)
        if roots is None:
            return plain
        test = ast.Name(id="alike", ctx=ast.Load())  # named in finish_guards
        self.guard_sites.append((frame, roots, test))
        return ast.IfExp(test=test, body=copy.deepcopy(contribution), orelse=plain)

    def broadcast_shape(self, root, frame):
        """``shape_of(a, b)``, the shape ``root = op(a, b)`` has when ``op`` is element-wise
        over arrays of classes the static ones do not join (a known shape: the array itself
        need not be computed nor kept only for it, ``np.shape(c * b)``); else ``None``."""
        if not getattr(self.an.callees, "guards", False):  # NumPy's, Dask's code only
            return None
        stmt = next((s for s in self.fn.body if isinstance(s, ir.Assign)
                     and s.target == root), None)  # defined at the top level
        if stmt is None or not _elementwise(stmt.value):
            return None
        operands = {}  # class -> the first operand of it
        for a in stmt.value.args:
            kind = self.an.kinds.get(a.name) if isinstance(a, ir.Var) else None
            if kind == ARRAY:
                operands.setdefault(self.alike.get(a.name, a.name), a.name)
            elif not (kind == SCALAR or isinstance(a, ir.Const) and type(a.value) in (
                    int, float)):
                return None
        if len(operands) < 2:
            return None
        for a in operands.values():
            self.ref(a, frame)
        return nodes.call(self.helper("shape_of"), *operands.values())

    def _guard_roots(self, value, frame):
        defined = self.guard_names.get(frame)
        if frame == self.top and self.structured:
            # the function's own top level runs once a call: a guard would save one
            # unbroadcast's check (a fraction of a microsecond) at the price of a line to read
            return None
        if defined is None or not getattr(self.an.callees, "guards", False):
            # only code srcad runs with the Python backend (NumPy's, Dask's: Callees.guards);
            # not Numba's or the array API standard's (their own forms), nor code read again
            # (a derivative of a derivative reads its plain form)
            return None
        if not _elementwise(value):
            return None
        roots = []
        for a in value.args:
            kind = self.an.kinds.get(a.name) if isinstance(a, ir.Var) else None
            if kind == ARRAY and a.name in defined and not self.an.is_complex(a):
                roots.append(self.alike.get(a.name, a.name))
            elif kind == SCALAR or isinstance(a, ir.Const) and type(a.value) in (int, float):
                continue
            else:
                return None  # an operand of unknown shape or kind
        if len(set(roots)) < 2 or self.known_apart(roots):
            return None
        return roots

    def known_apart(self, roots):
        """Whether two of ``roots`` are parameters the specialisation knows to have different
        shapes (classes of its shape partition, :func:`srcad.backend.keys.shape_partition`):
        then the guard is false at every call, and the plain ``unbroadcast`` is the code."""
        seen = {self.apart[r] for r in roots if r in self.apart}
        return len(seen) > 1

    def finish_guards(self):
        """Name each guard class and keep, per block, the statements that compute them
        (``block_guards``: the forward sweep appends them at the block's end, where every
        operand holds the value the operation read, and pushes them with the block's saves
        inside a loop)."""
        parent = {}

        def find(key):
            while parent.get(key, key) != key:
                key = parent[key]
            return key

        for frame, roots, _ in self.guard_sites:
            for r in roots[1:]:
                a, b = find((frame, roots[0])), find((frame, r))
                if a != b:
                    parent[b] = a
        names = {}
        for frame, roots, test in self.guard_sites:
            cls = find((frame, roots[0]))
            if cls not in names and self.known_apart(
                    [r for f, rs, _ in self.guard_sites for r in rs if f == frame
                     and find((f, r)) == cls]):
                names[cls] = _FALSE  # sites apart, joined: false at every call (fold_guards)
            if cls not in names:
                members = sorted({r for f, rs, _ in self.guard_sites for r in rs
                                  if f == frame and find((f, r)) == cls})
                guard = names[cls] = self.namer.fresh("alike")
                self.primals.add(guard)
                self.ref(guard, frame)
                shapes_ = _sizes(members, self.an)
                self.block_guards.setdefault(frame, []).append(assign(guard, ast.Compare(
                    left=shapes_[0], ops=[ast.Eq() for _ in shapes_[1:]],
                    comparators=shapes_[1:])))
            test.id = names[cls]

    def fold_guards(self, code):
        """``plain`` in place of each ``contribution if guard else plain`` whose guard is false
        at every call (see :meth:`finish_guards`), in the statements ``code``."""
        folder = _Fold()
        for i, stmt in enumerate(code):
            code[i] = folder.visit(stmt)

    def guard_only_shapes(self, trees):
        """The shapes (``a_shape``, kept for ``unbroadcast_to``) that ``trees`` (the backward
        sweep and the returned gradients) read only where one guard is false: in the
        ``plain`` of ``contribution if alike else plain`` -> that guard. The forward sweep
        then keeps ``a_shape = None if alike else a.shape`` beside the guard, at the block's
        end (:meth:`deferred_shapes`), instead of a new tuple per call or iteration that
        the backward sweep reads only where the shapes differ. A layout's stand-in
        (``a_layout``, a sum's ``shape_only`` operand) likewise: ``None if alike else
        layout(a)``, and ``a`` itself, read for nothing else, may then go as dead code."""
        candidates = {s for s, src in self.shapes.items() if s not in self.cuts
                      and self.an.kinds.get(src) == ARRAY}
        found = {}  # shape -> guard, or None where read elsewhere
        for tree in trees:
            for shape, guard in _shape_reads(tree, candidates):
                found[shape] = guard if found.get(shape, guard) == guard else None
        self.guarded_shapes = {s: g for s, g in found.items() if g not in (None, _FALSE)}

    def deferred_shapes(self, code, block_id):
        """Move each shape of :meth:`guard_only_shapes` that ``code`` (a block's forward
        sweep, before its guards) assigns at its own level, where its guard is one of the
        block's, to after the guards, as ``a_shape = None if alike else a.shape``: the value
        ``a`` holds there is the one the operation read (as the guard's own ``a.shape``
        reads it: the names of a block are assigned once in it)."""
        guards = self.guards_defined(block_id)
        shapes = getattr(self, "guarded_shapes", {})
        moved = []
        for stmt in list(code):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(
                stmt.targets) == 1 else None
            if isinstance(target, ast.Name) and shapes.get(target.id) in guards and (
                    isinstance(stmt.value, ast.Attribute) and stmt.value.attr == "shape"
                    or target.id in self.layouts):
                code.remove(stmt)
                moved.append(assign(target.id, ast.IfExp(
                    test=ast.Name(id=shapes[target.id], ctx=ast.Load()),
                    body=ast.Constant(value=None), orelse=stmt.value)))
        return moved

    def guards_defined(self, block_id):
        """The guard names the forward sweep defines at the end of a block."""
        return {s.targets[0].id for s in self.block_guards.get(block_id, ())}


def _sizes(members, an):
    """What a guard compares of each of ``members``: ``len(a)`` where every one of them is an
    array of rank 1 (the rank the code is specialised on: two vectors have one shape exactly
    when they have one length, and ``len`` makes no tuple), else ``a.shape``."""
    if all(an.kinds.get(m) == ARRAY and an.ranks.get(m) == 1 for m in members):
        return [nodes.call("len", m) for m in members]
    return [nodes.attr(m, "shape") for m in members]


def _shape_reads(tree, names):
    """``(name, guard)`` for each read of one of ``names`` in ``tree``: ``guard`` the test of
    the innermost ``body if guard else plain`` whose ``plain`` holds it, else ``None``."""
    out = []

    def walk(node, guard):
        if isinstance(node, ast.Name) and node.id in names:
            out.append((node.id, guard))
        elif isinstance(node, ast.IfExp) and isinstance(node.test, ast.Name):
            walk(node.test, None)
            walk(node.body, None)
            walk(node.orelse, node.test.id)
            return
        for child in ast.iter_child_nodes(node):
            walk(child, None if isinstance(node, (ast.Lambda, ast.FunctionDef)) else guard)

    walk(tree, None)
    return out


def _elementwise(value):
    """Whether ``value`` is an element-wise operation: Python's arithmetic or a NumPy ufunc
    of one result, all its operands positional."""
    return isinstance(value, ir.Prim) and not value.kwargs and (
        value.fn in _ELEMENTWISE or isinstance(value.fn, np.ufunc) and (
            value.fn.nin == len(value.args) and value.fn.nout == 1
            and value.fn.signature is None))  # np.matmul: a generalised ufunc, not element-wise


_FALSE = "__srcad_false_guard"  # the test of a guard folded away


class _Fold(ast.NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        if isinstance(node.test, ast.Name) and node.test.id == _FALSE:
            return node.orelse
        return node


def guard_frames(fn):
    """The blocks whose element-wise operations may be guarded -> the arrays defined there
    for the whole of the block: the top level (the parameters, its plain assignments, and
    the merges of its branches and loops that every path defines), and each loop's body
    (those names, the body's own plain assignments and the loop's merges, as they are in
    the iteration, before the next one's values are copied in). Each is defined once before
    the block's end, whichever way its branches went."""
    top = set(fn.params) | _defined_at(fn.body)
    frames = {id(fn.body): top}

    def visit(stmts, outer):
        for stmt in stmts:
            if isinstance(stmt, ir.Loop):
                inner = outer | _defined_at(stmt.body) | {p.target for p in stmt.phis}
                frames[id(stmt.body)] = inner
                visit(stmt.body, inner)
            elif isinstance(stmt, ir.If):
                visit(stmt.body, outer)
                visit(stmt.orelse, outer)

    visit(fn.body, top)
    return frames


def _defined_at(stmts):
    names = set()
    for stmt in stmts:
        if isinstance(stmt, ir.Assign) and stmt.target:
            names.add(stmt.target)
        elif isinstance(stmt, (ir.If, ir.Loop)):  # a merge: its value after the statement
            names.update(p.target for p in stmt.phis
                         if all(src is not None for src in p.sources))
    return names
