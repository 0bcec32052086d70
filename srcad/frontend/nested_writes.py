"""A write through two subscripts of an array: ``A[i][j] = v``, ``A[:, 0][k] += v``
(issue 16, outside24).

NumPy's ``A[i]`` (basic indexing) is a view of ``A``, so ``A[i][j] = v`` writes into ``A``.
srcad refused an assignment into a subscript of an expression; when the text shows ``A`` is
an array with an axis left after the first index (``np.zeros((n, m))``, ``np.outer``,
``x.reshape(3, 4)``: :meth:`.view_text.Text.rank` at least 2, or a slice or ``...`` in the
first index), the statement is written with the view named, ``A_row = A[i]`` then
``A_row[j] = v`` (the value evaluated first, as Python does: ``A_value = v`` before), which
:mod:`.views` reads as the write into ``A`` at the composed index (checked when the code runs
to be a view of an array: an index array, or a list, is refused at the line there). A list
of lists (``M[i][j] = v``) keeps the refusal.

Imports gast, :mod:`.source` (fresh names) and :mod:`.view_text`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from .source import fresh_names
from .view_text import Text, keeps_axes, located, store, walk_scope


def _target(stmt):
    """``(A, first, second)`` of ``A[first][second] = ...`` / ``op=``, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Subscript) and \
            isinstance(target.value.value, gast.Name):
        return target.value.value.id, target.value.slice, target.slice
    return None


def lower(src):
    """Rewrite, in place, each such write of ``src``'s function (see above)."""
    fdef = src.node
    places = [n for n in walk_scope(fdef) if _target(n) is not None]
    if not places:
        return
    text = Text(src)
    fresh = fresh_names({n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} |
                        set(src.closure) | set(src.globals))
    wanted = set()
    for stmt in places:
        name, first, _ = _target(stmt)
        if name in text.lists or name in text.declared or name in text.nested:
            continue
        if (text.rank(gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                type_comment=None)) or 0) >= 2 or keeps_axes(first):
            wanted.add(id(stmt))
    if not wanted:
        return
    for node in list(walk_scope(fdef)):
        for field, body in gast.iter_fields(node):
            if not (isinstance(body, list) and body and isinstance(body[0], gast.stmt)):
                continue
            out = []
            for stmt in body:
                if id(stmt) not in wanted:
                    out.append(stmt)
                    continue
                name, first, second = _target(stmt)
                row = fresh(f"{name}_row")
                made = []
                if isinstance(stmt, gast.Assign):
                    value = fresh(f"{name}_value")
                    made.append(gast.Assign(targets=[store(value)], value=stmt.value,
                                            type_comment=None))
                    stmt.value = gast.Name(id=value, ctx=gast.Load(), annotation=None,
                                           type_comment=None)
                made.append(gast.Assign(targets=[store(row)], value=gast.Subscript(
                    value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                    type_comment=None), slice=first, ctx=gast.Load()),
                    type_comment=None))
                new_target = gast.Subscript(value=gast.Name(
                    id=row, ctx=gast.Load(), annotation=None, type_comment=None),
                    slice=second, ctx=gast.Store())
                if isinstance(stmt, gast.Assign):
                    stmt.targets = [new_target]
                else:
                    stmt.target = new_target
                out += [located(m, stmt) for m in made] + [located(stmt, stmt)]
            setattr(node, field, out)
