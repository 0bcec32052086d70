"""Tuple results unpacked where they are made (session 34, forms34).

A call of a callee's forward part binds its tuple result to a name srcad invented, which the
statements after it take apart item by item::

    g, g_ctx = g_fwd(a, x)              (r, a_1), g_ctx = g_fwd(a, x)
    r = g[0]                     ->
    a_1 = g[1]

and so does a tuple written out (an inlined part's ``h_2 = (np.sin(p), p * 2.0)``; forward
mode's ``g, dg = g_jvp(a, x, dx)`` with ``r = g[0]; dr = dg[0]; ...``). Rewritten when the name
is srcad's, bound once, read nowhere but by those item reads (each index once, a constant),
and the tuple's length is known (a display's, or what the analysis knows of the call's result:
:attr:`srcad.analysis.analyse.Analysis.tuple_items`; a tangent ``dg`` of a pair ``g, dg =
...`` has ``g``'s). An item nothing reads is ``_`` (when the function names nothing ``_``).
The statements between the call and the item reads may only be copies of names (``h_ctx =
(p,)``, the saves an inlined part makes): the call moves down past them when they change
nothing it reads and read nothing it binds. Exact: the values are the same, the tuple is
unpacked where Python would have indexed it.

Imports: the standard library and :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from .tidy_walk import _blocks, _nodes

_FILL = "_"


def unpack_results(fdef, temps, lengths=None):
    """Rewrite ``fdef`` in place (see above); ``lengths``: name -> the length of the tuple it
    holds, or None where unknown. Returns whether anything changed."""
    stores, loads = {}, {}
    for sub in _nodes(fdef):
        if sub.__class__ is ast.Name:
            table = stores if sub.ctx.__class__ is ast.Store else loads
            table[sub.id] = table.get(sub.id, 0) + 1
        elif sub.__class__ is ast.AugAssign and sub.target.__class__ is ast.Name:
            stores[sub.target.id] = stores.get(sub.target.id, 0) + 2
        elif sub.__class__ is ast.arg:
            stores[sub.arg] = stores.get(sub.arg, 0) + 2
    fill = _FILL not in stores and _FILL not in loads
    changed = False
    for block, _ in list(_blocks(fdef)):
        k = 0
        while k < len(block):
            done = _unpack_at(block, k, temps, lengths, stores, loads, fill)
            changed |= done
            k += 1
    return changed


def tuple_lengths(facts):
    """name -> the length of the tuple the analysis behind ``facts`` (tidy's ``arrays``, a
    :class:`srcad.analysis.raise_facts.Facts`) knows it holds, else None."""
    items = getattr(getattr(facts, "analysis", None), "tuple_items", None)
    if not items:
        return None

    def length(name):
        known = items.get(name)
        return len(known) if known and set(known) == set(range(len(known))) else None
    return length


def unpacked_items(stmt, part_call):
    """``(names, ctx)`` for ``(p, q), ctx = call`` where ``part_call(call)`` (a call of a part
    :mod:`.inline` writes in, which this module's rewrite made so), else None."""
    target = stmt.targets[0] if stmt.__class__ is ast.Assign and len(
        stmt.targets) == 1 else None
    if target.__class__ is not ast.Tuple or len(target.elts) != 2:
        return None
    items, ctx = target.elts
    if items.__class__ is not ast.Tuple or ctx.__class__ is not ast.Name or not all(
            e.__class__ is ast.Name for e in items.elts) or part_call(stmt.value) is None:
        return None
    return [e.id for e in items.elts], ctx.id


def item_reads(whole, names):
    """``p = whole[0]``, ``q = whole[1]`` ... (``_``: no read): :func:`unpacked_items` undone,
    for the part written in."""
    return [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=ast.Subscript(
        value=ast.Name(id=whole, ctx=ast.Load()), slice=ast.Constant(value=k),
        ctx=ast.Load()), lineno=0) for k, n in enumerate(names) if n != _FILL]


def _targets(stmt):
    """The names ``stmt`` binds as ``n = e`` or ``n1, n2 = e``, else None."""
    if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if target.__class__ is ast.Name:
        return [target.id]
    if target.__class__ is ast.Tuple and target.elts and all(
            e.__class__ is ast.Name for e in target.elts):
        return [e.id for e in target.elts]
    return None


def _item_read(stmt, names):
    """``(x, n, k)`` for ``x = n[k]`` with ``n`` in ``names`` and ``k`` an int constant."""
    if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1 or \
            stmt.targets[0].__class__ is not ast.Name:
        return None
    value = stmt.value
    if value.__class__ is not ast.Subscript or value.value.__class__ is not ast.Name or \
            value.value.id not in names:
        return None
    index = value.slice
    if index.__class__ is not ast.Constant or type(index.value) is not int or index.value < 0:
        return None
    return stmt.targets[0].id, value.value.id, index.value


def _copy_of_names(stmt):
    """The name ``stmt`` binds and the names it reads, for ``n = m`` or ``n = (m1, m2, 1.0)``
    (nothing to raise or to change), else None."""
    if stmt.__class__ is not ast.Assign or len(stmt.targets) != 1 or \
            stmt.targets[0].__class__ is not ast.Name:
        return None
    read = set()
    for sub in ast.walk(stmt.value):
        if sub.__class__ is ast.Name:
            read.add(sub.id)
        elif sub.__class__ not in (ast.Tuple, ast.Constant, ast.Load):
            return None
    return stmt.targets[0].id, read


def _length(name, stmt, names, lengths):
    if len(names) == 1 and stmt.value.__class__ is ast.Tuple and not any(
            e.__class__ is ast.Starred for e in stmt.value.elts):
        return len(stmt.value.elts)
    known = lengths(name) if lengths else None
    if known is None and len(names) == 2 and name == "d" + names[0] and lengths:
        known = lengths(names[0])  # (g, dg = g_jvp(...): the tangent of a tuple, as long)
    return known


def _unpack_at(block, k, temps, lengths, stores, loads, fill):
    stmt = block[k]
    names = _targets(stmt)
    if not names:
        return False
    wanted = {n for n in names if n in temps and stores.get(n) == 1 and loads.get(n)}
    if not wanted:
        return False
    reads = {n: {} for n in wanted}  # name -> index -> the name it is read into
    between, last = [], None
    bound = set(names)
    for j in range(k + 1, len(block)):
        item = _item_read(block[j], wanted)
        if item is not None:
            x, n, index = item
            if index in reads[n] or x in bound:
                break
            reads[n][index] = x
            bound.add(x)
            last = j
            continue
        copy = _copy_of_names(block[j])
        if copy is None:
            break
        between.append((j, copy, set(bound)))  # (what is bound before it, once moved)
    if last is None:
        return False
    value_reads = {s.id for s in ast.walk(stmt.value) if s.__class__ is ast.Name}
    for j, (target, read), before in between:  # the call moves past them: they must not
        if j < last and (target in value_reads or target in bound or read & before):
            return False  # meet it (a copy reading p before p = g[0] reads the old p)
    shapes = {}
    for n, items in reads.items():
        length = _length(n, stmt, names, lengths)
        if not items or length is None or loads.get(n) != len(items) or max(items) >= length \
                or (len(items) < length and not fill):
            continue
        shapes[n] = [items.get(i, _FILL) for i in range(length)]
    if not shapes:
        return False
    elts = []
    for n in names:
        if n in shapes:
            elts.append(ast.Tuple(elts=[ast.Name(id=x, ctx=ast.Store()) for x in shapes[n]],
                                  ctx=ast.Store()))
        else:
            elts.append(ast.Name(id=n, ctx=ast.Store()))
    target = elts[0] if len(elts) == 1 else ast.Tuple(elts=elts, ctx=ast.Store())
    new = ast.Assign(targets=[target], value=stmt.value)
    ast.copy_location(new, stmt)
    new.__dict__.update({key: v for key, v in stmt.__dict__.items() if key not in (
        "targets", "value", "lineno", "col_offset", "end_lineno", "end_col_offset",
        "type_comment")})
    moved = block[k + 1:last + 1]
    copies = [s for s in moved if _item_read(s, wanted) is None]
    others = [s for s in moved if _item_read(s, wanted) and _item_read(s, set(shapes)) is None]
    block[k:last + 1] = copies + [new] + others  # (the other names' reads: after it)
    for n in shapes:
        loads[n] = 0
    return True
