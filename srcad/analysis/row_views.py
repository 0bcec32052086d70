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
  result), with the same index, taken after the write in the body's order;
* or (corpus28) the view is of an earlier row, ``B[..t - c..]`` (``c`` a constant ``>= 1``,
  at the write's axis, the whole of every other), of the array before the write or after
  it, anywhere in the body, where ``t - c >= 0`` certainly holds: ``t``'s lower bound is the
  range's start, raised by the tests of the ``if`` branches the view sits in (``else`` of
  ``if t == 0``, ``if t > 0``, ``if t >= c``, ``else`` of ``if t < c``, ...). Row ``t - c``
  is never written again by this write (later iterations write rows ``> t``), and is a row,
  not the last one counted from the end (``B[-1]`` at ``t = 0``, refused).

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
    found = _row_at(index, {var: 0})
    return found and found[:2]


def _row_at(index, offsets):
    """``(axis, count of items, offset)`` when ``index`` is one of the names ``offsets``
    maps (``t`` -> 0, ``t_7 = t - 1`` -> 1) at one axis and full slices elsewhere, else
    None."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    at = [k for k, i in enumerate(items) if isinstance(i, ir.Var) and i.name in offsets]
    if len(at) != 1:
        return None
    full = all(isinstance(i, ir.Slice) and i.lower is None and i.upper is None
               and i.step is None for k, i in enumerate(items) if k != at[0])
    return (at[0], len(items), offsets[items[at[0]].name]) if full else None


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


def _start(loop):
    """The first value of a :func:`_counting` loop's ``t``."""
    return loop.iter.args[0].value if len(loop.iter.args) >= 2 else 0


#: ``t OP k`` -> (lower bound of ``t`` where it holds, where it does not), ``t >= 0`` known
_BOUNDS = {operator.gt: lambda k: (k + 1, None), operator.ge: lambda k: (k, None),
           operator.lt: lambda k: (None, k), operator.le: lambda k: (None, k + 1),
           operator.eq: lambda k: (None, 1 if k == 0 else None),
           operator.ne: lambda k: (1 if k == 0 else None, None)}
#: ``k OP t``, the same test with ``t`` on the right
_FLIPPED = {operator.gt: operator.lt, operator.ge: operator.le, operator.lt: operator.gt,
            operator.le: operator.ge, operator.eq: operator.eq, operator.ne: operator.ne}


def _branch_bounds(test, var, defs):
    """Lower bounds of ``var`` (a counter ``>= 0``) in the two branches of ``if test``
    (None where the test tells nothing): ``t > k``, ``t >= k``, ``t < k``, ``t <= k``,
    ``t == 0``, ``t != 0``, ``t is 0``, ``t is not 0`` (either way round), ``if t``."""
    if isinstance(test, ir.Var) and test.name == var:
        return 1, None
    value = defs.get(test.name) if isinstance(test, ir.Var) else None
    if not isinstance(value, ir.Prim) or value.kwargs or len(value.args) != 2:
        return None, None
    fn, (a, b) = value.fn, value.args
    if fn in (operator.is_, operator.is_not):  # an int from range is 0 only if it is 0
        fn = operator.eq if fn is operator.is_ else operator.ne
        if not (_int(a) and a.value == 0 or _int(b) and b.value == 0):
            return None, None
    if isinstance(b, ir.Var) and b.name == var and _int(a) and fn in _FLIPPED:
        fn, a, b = _FLIPPED[fn], b, a
    if not (isinstance(a, ir.Var) and a.name == var and _int(b) and fn in _BOUNDS):
        return None, None
    return _BOUNDS[fn](b.value)


def _order(block, nested, out, low=0, var=None, defs=None):
    """The statements of ``block`` in the order of the body (pre-order), each with whether
    it sits in a loop nested in the one read, and a lower bound of the counter ``var``
    there (``low``, raised by the tests of the branches it sits in)."""
    for stmt in block:
        out.append((stmt, nested, low))
        if isinstance(stmt, ir.If) and var is not None:
            bounds = _branch_bounds(stmt.test, var, defs)
            for inner, bound in zip((stmt.body, stmt.orelse), bounds):
                _order(inner, nested, out, max(low, bound or 0), var, defs)
            continue
        for inner in ir.blocks_of(stmt):
            _order(inner, nested or isinstance(stmt, ir.Loop), out, low, var, defs)
    return out


def _offsets(loop):
    """The names the body binds to ``t - c`` (``c`` a constant ``>= 1``) -> ``c``, and
    ``t`` -> 0."""
    found = {loop.target: 0}
    for stmt in ir.walk(loop.body):
        value = getattr(stmt, "value", None)
        if isinstance(stmt, ir.Assign) and isinstance(value, ir.Prim) and (
                value.fn is operator.sub and not value.kwargs and len(value.args) == 2
                and isinstance(value.args[0], ir.Var) and value.args[0].name == loop.target
                and _int(value.args[1]) and value.args[1].value >= 1):
            found[stmt.target] = value.args[1].value
    return found


def _kept(stmt, write, form, offsets, low, after):
    """Whether ``stmt`` takes a view that ``write`` (of row ``t``) leaves alone: of the
    array it writes (after it) or of the one before it, with the write's form at a row
    certainly written no more: row ``t`` after the write, row ``t - c`` (``c <= low``,
    ``low`` a lower bound of ``t`` there) anywhere."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim)
            and stmt.value.fn is operator.getitem and len(stmt.value.args) == 2
            and isinstance(stmt.value.args[0], ir.Var)):
        return False
    base = stmt.value.args[0].name
    at = _row_at(stmt.value.args[1], offsets)
    if at is None or at[:2] != form:
        return False
    if at[2] == 0:
        return after and base == write.target
    return at[2] <= low and base in (write.target, write.obj.name)


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
        defs = {s.target: s.value for s in ir.walk(loop.body) if isinstance(s, ir.Assign)}
        order = _order(loop.body, False, [], _start(loop), loop.target, defs)
        offsets = _offsets(loop)
        for k, (write, nested, _) in enumerate(order):
            if nested or not isinstance(write, ir.SetItem) or self.an.kind(
                    write.obj) != ARRAY:
                continue
            form = _row_form(write.index, loop.target)
            own = self.aliases.own.get(write.obj.name, frozenset())
            if form is None or len(own) != 1 or next(iter(own))[0] != "new" or len(
                    next(iter(own))) != 2 or next(iter(own))[1] not in made:
                continue
            views = {s.target for j, (s, _, low) in enumerate(order)
                     if _kept(s, write, form, offsets, low, after=j > k)}
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
