"""Reverse mode, a number written into an array (``y[i] = t``, ``y[1:] = t``): the number's
gradient is the written part of the array's, summed to one number. The backward sweep writes
it without reading ``t`` (``unbroadcast(dy[1:], t)`` read ``t`` only for its shape, which a
number's is: ``()``, so a callee's forward part handed ``t`` over and a loop saved it for
nothing):

* ``dy[i]`` alone where the write names one element (an array of known rank ``r``, ``r`` ints
  in the index): a number already, what ``unbroadcast`` returned unchanged;
* else the sum of the part, written as :meth:`Rules.unbroadcast` writes a number's
  (``total(dy[1:])``; Numba: ``np.sum``).

Imports: ``srcad.core``.
"""

from __future__ import annotations

from ..core import ir
from ..core.kinds import ARRAY, SCALAR


def number_part(sweep, stmt, block, frame):
    """The gradient of the number ``stmt.value`` written by ``stmt`` (an :class:`ir.SetItem`
    into an array) from ``block`` (the written part of the array's gradient), or None when
    the value is not certainly a number written into an array (the caller then writes
    ``unbroadcast(block, value)``)."""
    value, obj = stmt.value, stmt.obj
    if sweep.an.kind(value) != SCALAR or not isinstance(obj, ir.Var) or (
            sweep.an.kinds.get(obj.name) != ARRAY or sweep.an.kinds.get(stmt.target) != ARRAY):
        return None
    if _one_element(stmt.index, sweep.an.ranks.get(obj.name), sweep.an):
        return block
    return sweep.unbroadcast(block, value, stmt.target, {}, frame)


def _one_element(index, rank, an):
    """Whether ``index`` names one element of an array of rank ``rank``: as many items as the
    rank, each a known int (a bool, ``None`` or a slice adds or keeps an axis)."""
    items = index.items if isinstance(index, ir.Index) else (index,)
    return rank is not None and len(items) == rank and all(
        (isinstance(i, ir.Const) and type(i.value) is int) or (
            isinstance(i, ir.Var) and i.name in an.ints) for i in items)
