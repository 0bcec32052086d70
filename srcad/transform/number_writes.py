"""Reverse mode, a number written into an array (``y[i] = t``, ``y[1:] = t``): the number's
gradient is the written part of the array's, summed to one number. The backward sweep writes
it without reading ``t`` (``unbroadcast(dy[1:], t)`` read ``t`` only for its shape, which a
number's is: ``()``, so a callee's forward part handed ``t`` over and a loop saved it for
nothing):

* ``dy[i]`` alone where the write names one element (an array of known rank ``r``, ``r`` ints
  in the index): a number already, what ``unbroadcast`` returned unchanged;
* else the sum of the part, written as :meth:`Rules.unbroadcast` writes a number's
  (``total(dy[1:])``; Numba's code keeps its ``unbroadcast``, which may be given a number).

The written part's gradient flowing past the write to the old array is zeroed
(``cleared(dy, i)``: a copy of ``dy``, O(n) for each element of an element-by-element fill);
where ``dy`` is an array this sweep made and nothing else holds, the element (or the part
a basic index names, ``dy[k, :]``, the value's gradient read from a copy of it) is zeroed
in place (:func:`cleared_in_place`).

Imports: ``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from . import nodes
from .nodes import assign, call, name, subscript


def value_part(sweep, stmt, block, frame):
    """The gradient of the value ``stmt.value`` written by ``stmt`` (an :class:`ir.SetItem`)
    from ``block`` (the written part of the array's gradient): a number's into an array as
    above, else ``unbroadcast(block, value)`` (the value read for its shape)."""
    value, obj = stmt.value, stmt.obj
    if sweep.an.kind(value) == SCALAR and isinstance(obj, ir.Var) and (
            sweep.an.kinds.get(obj.name) == ARRAY == sweep.an.kinds.get(stmt.target)):
        if _one_element(stmt.index, sweep.an.ranks.get(obj.name), sweep.an):
            return block
        if not getattr(sweep.an.callees, "compiles_all", False):  # (Numba: its unbroadcast)
            return sweep.unbroadcast(block, value, stmt.target, {}, frame)
    sweep.ref(value.name, frame)
    return call(sweep.helper("unbroadcast"), block, value.name)


def _one_element(index, rank, an):
    """Whether ``index`` names one element of an array of rank ``rank``: as many items as the
    rank, each a known int (a bool, ``None`` or a slice adds or keeps an axis)."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    return rank is not None and len(items) == rank and all(
        (isinstance(i, ir.Const) and type(i.value) is int) or (
            isinstance(i, ir.Var) and i.name in an.ints) for i in items)


def _basic(index, an):
    """Whether ``index`` is a basic index of ints and slices (``k, :``, ``1:k``): its
    gradient's part a view, written in place by ``dy[i] = 0.0`` (an array of indices may
    repeat one: ``last_writes``)."""
    items = index.items if isinstance(index, ir.Index) else (index,)

    def known(atom):
        return atom is None or isinstance(atom, ir.Const) and type(atom.value) is int or (
            isinstance(atom, ir.Var) and atom.name in an.ints)

    return all(known(i) or isinstance(i, ir.Slice) and known(i.lower) and known(i.upper) and (
        known(i.step)) for i in items)


def _clears_in_place(sweep, stmt, gname):
    """Whether the backward sweep zeroes the written part of ``dy_1`` in place (see
    :func:`cleared_in_place`): ``"element"`` for one element (its gradient a number),
    ``"part"`` for a slice (its gradient a view: :func:`kept_part` copies it), or None."""
    an, obj = sweep.an, stmt.obj
    if not getattr(an.callees, "guards", False) or gname not in sweep.fresh or (
            gname in sweep.borrowed or gname in sweep.uniform or gname in sweep.maybe) or (
            an.kinds.get(stmt.target) != ARRAY or an.kinds.get(obj.name) != ARRAY) or (
            stmt.target in an.complex or obj.name in an.complex) or (
            sweep.g(obj.name) in sweep.live):
        return None
    if _one_element(stmt.index, an.ranks.get(obj.name), an):
        return "element"
    return "part" if _basic(stmt.index, an) else None


def kept_part(sweep, stmt, gname, block):
    """``block`` (``dy_1[i]``, the written part of the gradient, read for the value's) as
    the value's gradient reads it: a copy of a view the zeroing in place would change
    (``dy_1[k, :].copy()``; a number's ``total(...)`` sums it first: as it is)."""
    if sweep.an.kind(stmt.value) == SCALAR or _clears_in_place(sweep, stmt, gname) != "part":
        return block
    return nodes.method(block, "copy")


def cleared_in_place(sweep, stmt, gname, code, frame):
    """For ``y_1 = y`` with ``y_1[i] = v`` (``stmt``), ``y``'s gradient as ``dy_1[i] = 0.0``
    then ``dy = dy_1`` in place of ``dy = cleared(dy_1, i)``, where that is the same: ``dy_1``
    (``gname``) an array this sweep made that no other name holds (``fresh``: not the
    caller's seed, not a read-only broadcast, not a maybe-zero number), ``i`` one element of
    an array of known rank (what ``v``'s gradient read, ``dy_1[i]``, is a number, not a view
    the zero would change), ``y``'s gradient not yet live (it becomes ``dy_1``'s array, which
    nothing else reads once this write's adjoint is done); NumPy's and Dask's code. A basic
    index of ints and slices too (``y_1[k, :] = v``: ``dy_1[k, :] = 0.0``), the value's
    gradient read from a copy of the part (:func:`kept_part`). Whether it did so."""
    obj = stmt.obj
    if _clears_in_place(sweep, stmt, gname) is None:
        return False
    code.append(assign(subscript(gname, nodes.expr(stmt.index)), nodes.constant(0.0)))
    sweep.accumulate(obj, name(gname), code, frame)
    sweep.fresh.add(sweep.g(obj.name))  # the array moves to it: only it holds it now
    return True
