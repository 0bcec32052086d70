"""``M[i][j] = v`` and ``M[i][j] op= v`` where ``M`` is a list (or dict) of lists or arrays.

Python writes into the row object ``M[i]`` itself: every other holder of that row sees the
change (the other places of ``M`` when its rows are one list, ``[[0.0] * n] * m``; a name
bound to the row). srcad reads the line as Python runs it, with the row named and put back:

    row = M[i]                      (the index evaluated once)
    check_row_alone(M, row, where)  (when the code runs)
    row[j] = v                      (srcad: a new row, a copy with place j written)
    M[i] = row                      (the same object put back: a no-op in Python)

which is Python's ``M[i][j] = v`` exactly. srcad's functional writes make the row a new
object, so this is exact when nothing else holds the row: other names are the alias
analysis's (:mod:`srcad.analysis.alias`; the container, which sees the change through place
``i`` only, is told apart by ``fn.row_writes`` and
:meth:`srcad.analysis.memory_places._Places.only_through`); the other places of ``M`` are
checked when the code runs (:func:`check_row_alone`): ``M`` must be a list or a dict, the row
a list, a dict or an array, held at no other place of ``M``, by no other item, and sharing
no memory with another item. A matrix ``A`` of NumPy (``A[i][j] = v`` where the text does
not show ``A`` is an array, :mod:`.nested_writes`) fails the check: ``A[mask][0] = v`` writes
into a copy, which the put back would not. The check is dropped where the analysis does not
rely on it.

Imports gast, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.rules.registry`,
:mod:`.augmented_casts`, :mod:`.item_checks` and :mod:`.rebinding`.
"""

from __future__ import annotations

import operator

import gast
import numpy as np

from ..core import ir
from ..errors import MutationError
from ..rules.registry import registry as _registry
from . import augmented_casts, item_checks


def handles(lw, target):
    """Whether ``target`` is ``M[i][j]`` with ``M`` a local name and ``i`` a plain index."""
    outer = getattr(target, "value", None)
    return isinstance(target, gast.Subscript) and isinstance(outer, gast.Subscript) and (
        isinstance(outer.value, gast.Name)) and not isinstance(
        outer.slice, (gast.Slice, gast.Tuple)) and isinstance(
        lw.env.get(outer.value.id), ir.Var) and not lw.generated


def write(lw, target, value, node):
    """``M[i][j] = value`` (``value`` lowered already, as Python evaluates it first)."""
    container, index, row, text = _row(lw, target, node)
    _store(lw, target, container, index, row, lw.index(target.slice), value, text, node)


def augmented(lw, target, value_node, node):
    """``M[i][j] op= v`` (desugared to ``M[i][j] = M[i][j] op v``): the row and ``j`` are
    evaluated once, the item read from the row, as Python does."""
    container, index, row, text = _row(lw, target, node)
    j = lw.index(target.slice)
    lw.rows_once = {id(target.value): row}
    if isinstance(j, (ir.Var, ir.Const)):
        lw.indices_once = {id(target.slice): j}
    try:
        value = lw.expr(value_node)
    finally:
        lw.rows_once, lw.indices_once = {}, {}
    if isinstance(value, ir.Var):  # the item's dtype kept, or NumPy's error
        augmented_casts.mark(lw, value.name, None, node)
    _store(lw, target, container, index, row, j, value, text, node)


def _row(lw, target, node):
    outer = target.value
    container = lw.env[outer.value.id]
    index = lw.index(outer.slice)
    row = lw.assign(ir.Prim(operator.getitem, [container, index]), None, node)
    text = gast.unparse(target).strip() if hasattr(gast, "unparse") else outer.value.id
    row_text = gast.unparse(outer).strip() if hasattr(gast, "unparse") else outer.value.id
    lw.spellings[row.name] = row_text
    where = (text, row_text, outer.value.id, lw.source.filename, node.lineno,
             lw.source.line_text(node.lineno))
    check = ir.Prim(check_row_alone, [container, row, lw.bound_const(where, "where")],
                    spelling=lw.bound_name(check_row_alone, "check_row_alone"))
    lw.emit(ir.Assign(None, check, node.lineno, effect=True))
    return container, index, row, row_text


def _store(lw, target, container, index, row, j, value, text, node):
    changed = lw.namer.temp("row")
    lw.emit(ir.SetItem(changed, row, j, value, node.lineno))
    name = lw.namer.version(target.value.value.id)
    lw.emit(ir.SetItem(name, container, index, ir.Var(changed), node.lineno))
    lw.env[target.value.value.id] = ir.Var(name)
    if container.name in lw.dicts_built:
        lw.dicts_built.add(name)  # still a dict built here
    lw.spellings[changed] = text
    lw.row_writes[changed] = (row.name, container.name, text)
    lw.checked_items.add(changed)


def check_row_alone(container, row, where):
    """Raise :class:`MutationError` unless ``container`` is a list or a dict and ``row``
    (read from it) a list, a dict or an array that no other item of it is, holds or shares
    memory with. ``where``: (the target as written, the row as written, the container's
    name, file, line, the line's text)."""
    text, row_text, name, filename, lineno, line = where
    if not isinstance(container, (list, dict)):
        what = f"an array (shape {np.shape(container)})" if isinstance(
            container, np.ndarray) else f"a {type(container).__name__}"
        problem, hint = f"{name} is {what} when the code ran, not a list or dict", \
            f"index it once: {name}[i, j] = v (an array), or name the row: " \
            f"row = {row_text}; row[j] = v"
        if isinstance(container, np.ndarray) and isinstance(row, np.ndarray) and \
                not np.may_share_memory(row, container):  # A[mask][0] = v
            problem += (f"; and {row_text} is a copy (an index array or a mask), so Python's "
                        f"write changes the copy only, never {name}: the line does nothing")
            hint = f"to change {name}, index it once: {name}[np.flatnonzero(mask)[k]] = v; " \
                "to change nothing, delete the line"
    elif not isinstance(row, (list, dict, np.ndarray)):
        problem, hint = f"the row {row_text} is a {type(row).__name__} when the code ran", \
            "write into a list, dict or array"
    else:
        others = list(container.values() if isinstance(container, dict) else container)
        count = sum(1 for other in others if other is row)
        if count <= 1 and not any(other is not row and item_checks.may_hold(other, row)
                                  for other in others):
            return
        problem = (f"the row {row_text} is also another item of {name}, is held by one or "
                   "shares its memory when the code ran (Python writes into that one row "
                   "object, so every place holding it changes)")
        hint = (f"build the rows as separate lists: {name} = [[0.0] * n for _ in range(m)], "
                f"not [[0.0] * n] * m; or copy the row: row = list({row_text}); row[j] = v; "
                f"{row_text} = row")
    raise MutationError(f"{text} = ... (a write into a row of {name}): {problem}",
                        filename=filename, lineno=lineno, construct=line, hint=hint)


_registry.nondiff.add(check_row_alone)  # a check: no derivative
check_row_alone.srcad_item_check = True  # dropped where no write relies on it (analysis.alias)
