"""Rows a counting loop writes one by one, and the views of them kept afterwards.

A recurrent network's forward pass written into a preallocated array::

    hs = np.zeros((T, H))
    for t in range(T):
        hs[t], c = step(x[t], h, W)
        h = hs[t]          # a view of the row just written
        cache.append(c)    # c holds h (a view of an earlier row)

Each write ``hs[t] = v`` changes the array while views of earlier rows are read afterwards
(``cache``), so :mod:`srcad.analysis.alias` would refuse it ("shares memory with cache").
Python's values are srcad's here: iteration ``t`` writes row ``t`` alone, and every view
kept was taken of a row already written (``t`` of an earlier iteration, or of this one
after its write), never written again. srcad's functional reading (``hs_2 = hs_1.copy();
hs_2[t] = v``) leaves such a view on the older version, whose row holds the same numbers,
and its gradient flows to that row.

:class:`Rows` tells, for a write ``B[..t..] = v`` and a value read after it, whether the value
shares memory with ``B`` only through such views. It holds when all of these do:

* the loop is ``for t in range(...)`` counting up from a constant ``>= 0`` (``range(n)``,
  ``range(1, n)``, ``range(0, n, 2)``): ``t`` takes each value once, and a negative index
  (``B[-1]``, the last row) never occurs;
* the write is in the loop's body, outside any loop nested in it (it runs at most once per
  iteration), into an array made by a statement just before the loop, in the same block
  (each run of the loop writes a new array: rows of an earlier run are another object);
* the index selects ``t`` at one axis and the whole of every other (``B[t]``,
  ``B[:, t, :]``), and the view is of the array just written (``B[..t..]`` of the write's
  result), with the same index, taken after the write in the body's order.

Every other write into the array or into the views is checked as before. Under these
conditions the views are read as new objects (:class:`_Apart`, a
:class:`srcad.analysis.memory.Aliases` solved again) and the value is asked again; anything
else that ties it to ``B`` still refuses.

Imports ``srcad.core`` and :mod:`srcad.analysis.memory` (and nothing above its layer).
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import ARRAY
from .memory import Aliases


def _row_form(index, var):
    """``(axis, count of items)`` when ``index`` is ``var`` at one axis and full slices
    elsewhere, else None."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    at = [k for k, i in enumerate(items) if isinstance(i, ir.Var) and i.name == var]
    if len(at) != 1:
        return None
    full = all(isinstance(i, ir.Slice) and i.lower is None and i.upper is None
               and i.step is None for k, i in enumerate(items) if k != at[0])
    return (at[0], len(items)) if full else None


def _int(atom):
    return isinstance(atom, ir.Const) and type(atom.value) is int


def _counting(loop):
    """Whether ``loop`` is ``for t in range(...)`` counting up from a constant ``>= 0``."""
    it = loop.iter
    if loop.kind != "for" or not loop.target or not isinstance(it, ir.Prim) or (
            it.fn is not range or it.kwargs or not 1 <= len(it.args) <= 3):
        return False
    if len(it.args) >= 2 and not (_int(it.args[0]) and it.args[0].value >= 0):
        return False
    return len(it.args) < 3 or _int(it.args[2]) and it.args[2].value > 0


def _order(block, nested, out):
    """The statements of ``block`` in the order of the body (pre-order), each with whether
    it sits in a loop nested in the one read."""
    for stmt in block:
        out.append((stmt, nested))
        for inner in ir.blocks_of(stmt):
            _order(inner, nested or isinstance(stmt, ir.Loop), out)
    return out


class _Apart(Aliases):
    """The memory model with the views ``apart`` read as new objects."""

    def __init__(self, fn, analysis, apart):
        self.apart = apart
        super().__init__(fn, analysis)

    def _assign(self, stmt):
        if stmt.target in self.apart:
            fresh = frozenset({("new", stmt.target)})
            self._set(stmt.target, fresh, fresh)
            return
        super()._assign(stmt)


class Rows:
    """For each write of the form above, the views it may leave apart (``views``: id of the
    write -> names); :meth:`__call__` answers for one write and one value read after it."""

    def __init__(self, fn, analysis, aliases):
        self.fn, self.an, self.aliases = fn, analysis, aliases
        self.views, self._solved = {}, {}
        self._blocks(fn.body)

    def _blocks(self, block):
        for k, stmt in enumerate(block):
            if isinstance(stmt, ir.Loop) and _counting(stmt):
                made = {s.target for s in block[:k] if isinstance(s, ir.Assign)}
                self._loop(stmt, made)
            for inner in ir.blocks_of(stmt):
                self._blocks(inner)

    def _loop(self, loop, made):
        order = _order(loop.body, False, [])
        for k, (write, nested) in enumerate(order):
            if nested or not isinstance(write, ir.SetItem) or self.an.kind(
                    write.obj) != ARRAY:
                continue
            form = _row_form(write.index, loop.target)
            own = self.aliases.own.get(write.obj.name, frozenset())
            if form is None or len(own) != 1 or next(iter(own))[0] != "new" or len(
                    next(iter(own))) != 2 or next(iter(own))[1] not in made:
                continue
            views = {s.target for s, _ in order[k + 1:] if isinstance(s, ir.Assign) and (
                isinstance(s.value, ir.Prim) and s.value.fn is operator.getitem
                and isinstance(s.value.args[0], ir.Var)
                and s.value.args[0].name == write.target
                and _row_form(s.value.args[1], loop.target) == form)}
            if views:
                self.views[id(write)] = frozenset(views)

    def __call__(self, stmt, other):
        """Whether ``other`` shares memory with what ``stmt`` writes only through views of
        rows it leaves alone."""
        views = self.views.get(id(stmt))
        if views is None:
            return False
        if views not in self._solved:
            self._solved[views] = _Apart(self.fn, self.an, views)
        apart = self._solved[views]
        memory = apart.mem(stmt.obj, apart.own)
        return bool(memory) and not apart.held.get(other, frozenset()) & memory
