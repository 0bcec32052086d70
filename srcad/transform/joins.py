"""Reverse mode, joined arrays: the gradient of ``np.concatenate`` of a tuple display written
as slices of the result's gradient (a rule's ``pieces``, see :mod:`srcad.rules.registry`).

A piece of :class:`srcad.transform.reverse.Reverse`. Imports: ``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

import ast

from ..core import ir
from ..core.kinds import ARRAY
from . import nodes
from .nodes import call, name


class Joins:
    """Joined arrays' pieces (see the module docstring)."""

    def joined_pieces(self, stmt, rule, bound, gname, code, frame):
        """``y = np.concatenate((a, b, c))`` of a tuple display of real arrays along a
        constant axis (each array of a rank above it, or the forward sweep's call raised; a
        negative axis where the ranks are known): the tuple's gradient is ``[g[:n1],
        g[n1:n2], g[n2:]]`` (``g[:, n1:n2]`` along axis 1), slices between the arrays' summed
        lengths along the axis, which the forward sweep keeps after the join (``n1 =
        len(a)``, ``n2 = n1 + len(b)``; ``a.shape[1]`` along axis 1) in place of the tuple's
        layout. That is what
        the rule's helper returns then (views of ``g``, one per array), without a call that
        checks every piece again (a microsecond a call on small arrays). Anything else (a
        list, an axis not a constant, a complex or unknown operand, Numba, the array API):
        the rule."""
        seq, axis_param = rule.pieces
        atom, axis = bound.get(seq), bound.get(axis_param)
        if getattr(self.an.callees, "compiles_all", False) or getattr(
                self.an.callees, "standard", False):
            return False
        if not (isinstance(atom, ir.Var) and self.an.active(atom)):
            return False
        axis = axis.value if isinstance(axis, ir.Const) else axis  # a default: the value
        items = self.displays.get(atom.name)
        if type(axis) is not int or not items or len(items) < 2 or (
                stmt.target in self.an.complex):
            return False
        for item in items:
            if not isinstance(item, ir.Var) or self.an.kinds.get(item.name) != ARRAY or (
                    self.an.is_complex(item)):
                return False
        # the lengths may be read before the join (tidy moves a value to where it is used):
        # on arrays NumPy joins along the axis, never an error of their own. Along axis 0
        # an array of unknown rank will do (a 0-d one, which NumPy refuses, gives len's
        # TypeError there instead of NumPy's ValueError); along another, every rank known
        ranks = {self.an.rank(item) for item in items}
        rank = next(iter(ranks)) if len(ranks) == 1 else None
        if axis < 0 and type(rank) is int:
            axis += rank  # counted from the end
        if axis < 0 or 0 in ranks or axis > 0 and not (type(rank) is int and axis < rank):
            return False
        if gname in self.uniform:
            self.materialise(gname, code, frame)  # one number for every element: an array
        cuts = self.cut_names(stmt.target, items, axis)
        for cut in cuts:
            self.ref(cut, frame)
        ends = [None] + [name(cut) for cut in cuts] + [None]
        lead = [ast.Slice(lower=None, upper=None, step=None) for _ in range(axis)]
        pieces = [nodes.subscript(gname, ast.Tuple(elts=lead + [ast.Slice(
            lower=lo, upper=hi, step=None)], ctx=ast.Load()) if axis else ast.Slice(
            lower=lo, upper=hi, step=None)) for lo, hi in zip(ends, ends[1:])]
        dname = self.g(atom.name)
        if self.read_once.get(atom.name) == id(stmt) and dname not in self.live:
            # the display is read here only, in its own block: its items' gradients are
            # these pieces themselves (``dinp = dconcatenate[:n1]``), not a list of them
            # read back item by item (Rules' displays take them from self.display_pieces)
            self.display_pieces[dname] = pieces
            self.live.add(dname)
            return True
        self.accumulate(atom, ast.List(elts=pieces, ctx=ast.Load()), code, frame)
        return True

    def cut_names(self, source, items, axis):
        """The names of the summed lengths along ``axis`` of ``items``, the arrays joined into
        ``source``, but the last (see :meth:`joined_pieces`), made in the forward sweep after
        ``source`` is (so a join NumPy refuses, a 0-d array or an axis out of range, raises
        NumPy's error, not one of ``len``'s)."""
        made = [cut for cut, of in self.shapes.items() if of == source and (
            self.cut_axes.get(cut) == axis)]
        if made:
            return made
        before = None
        for item in items[:-1]:
            cut = self.namer.fresh(f"{source}_cut")
            length = call("len", item.name) if axis == 0 else nodes.subscript(
                nodes.attr(item.name, "shape"), nodes.constant(axis))
            self.cuts[cut] = length if before is None else nodes.plus(before, length)
            self.cut_axes[cut] = axis
            self.shapes[cut] = source
            self.primals.add(cut)
            made.append(cut)
            before = cut
        return made


def read_once(fn):
    """Tuple displays read by one statement only, in the display's own block (not in a loop
    or branch inside it, nor by a phi): name -> id of that statement. Its gradient is then
    what that statement's rule gives and nothing else (see :meth:`Joins.joined_pieces`)."""
    found, counts = {}, {}

    def visit(block):
        displays = {s.target for s in block if isinstance(s, ir.Assign) and isinstance(
            s.value, ir.Prim) and s.value.fn is ir.BUILD_TUPLE and not s.value.kwargs}
        for s in block:
            for n in names_read(s):
                counts[n] = counts.get(n, 0) + 1
                if n in displays:
                    found[n] = id(s)
            for inner in ir.blocks_of(s):
                visit(inner)

    visit(fn.body)
    return {n: at for n, at in found.items() if counts[n] == 1}


def names_read(s):
    """The names statement ``s`` reads at its own level, each read once per place: its
    operands, its phis' sources (every one, not only a loop's entry) and an if's or loop's
    test and exit."""
    reads = [v.name for v in ir.reads_of(s) if isinstance(v, ir.Var)]
    for phi in getattr(s, "phis", ()):
        reads += [v.name for src in phi.sources for v in ir.atoms_in(src)]
    for part in (getattr(s, "test", None), getattr(s, "exit", None)):
        reads += [v.name for v in ir.atoms_in(part)]
    return reads
