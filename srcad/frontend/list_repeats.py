"""A list display repeated: ``[x] * n``, ``n * [a, b]`` (issue 16, outside24).

``[a, b] * n`` is the list of ``a, b`` ``n`` times, the same objects; srcad's reverse sweep
refused it where the items carry gradients ("repeating a list that carries gradients"). When
the items and ``n`` are names, constants and arithmetic, subscripts and attributes of them
(evaluating them again changes nothing; ``n`` also ``len(...)`` of such), not all
constants (outside27: items may also call functions, ``n * [np.sin(w)]``, where Python's
order of evaluation is kept: the display first, or ``n`` a constant or a local name that no
call rebinds), it is rewritten as the comprehension that makes
that list, ``[t for ts in ((a, b),) for _ in range(repeat_count(n, where)) for t in ts]``
(each copy's gradient added into the item's), which srcad differentiates. The items are
evaluated once, as Python evaluates the display: each copy is the same object (``xs[0] is
xs[1]`` of ``[w * 1.5] * 2``; ``for t in (a, b)`` inside the loop made a new array per copy,
sound24). :func:`repeat_count` checks
when the code runs that ``n`` is a Python ``int`` (or ``bool``), or (outside26) a NumPy
integer that Python's repetition takes (``np.int64(3)``: ``[x] * n`` repeats the list as
for ``int(n)``): ``[x] * k`` of another NumPy number or an array is NumPy's product, not a
repetition, and is refused there
(``UnsupportedSyntaxError`` at the line) rather than read as one.

Imports the standard library, gast, NumPy, :mod:`srcad.errors`, :mod:`srcad.rules.registry`
(the check has no derivative) and :mod:`.source` (fresh names).
"""

from __future__ import annotations

import builtins
import types

import gast
import numpy as np

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from .source import fresh_names

_PURE = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Subscript, gast.Attribute,
         gast.Slice, gast.Tuple, gast.operator, gast.unaryop, gast.expr_context)


def repeat_count(n, where):
    """``n`` when it is a Python ``int`` or ``bool`` (``[x] * n`` repeats the list), else the
    refusal at ``where`` (``(file, line, text)``)."""
    if type(n) in (int, bool):
        return n
    if isinstance(n, np.integer) and _repeats(n):
        return int(n)  # (outside26) a NumPy integer: Python repeats the list by its index
    filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f"[...] * n with n a {type(n).__name__}: srcad reads [...] * n of a list display as "
        "the list repeated, which it is for a Python int or a NumPy integer only (NumPy "
        "multiplies by its other numbers and its arrays)", filename=filename, lineno=lineno,
        construct=text, hint="write int(n) for a repetition, or np.array([...]) * n for a product")


_registry.nondiff.add(repeat_count)


def _repeats(n):
    """Whether ``[x] * n`` and ``n * [x]`` repeat the list for this NumPy integer (NumPy 2's
    integers leave a list to Python's repetition; older ones made an array of the product)."""
    try:
        return type([0.5] * n) is list and type(n * [0.5]) is list
    except TypeError:
        return False


def _pure(node, lengths=False):
    """Whether evaluating ``node`` again changes nothing (``lengths``: ``len(...)`` of such
    an expression too, ``len`` being Python's)."""
    if lengths and isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == "len" and len(node.args) == 1 and not node.keywords:
        return _pure(node.args[0])
    return all(isinstance(n, _PURE) for n in walk_nodes(node))


def _calls_ok(items, count, first, local):
    """Whether items with calls (``[np.sin(w)]``, evaluated once either way) may be evaluated
    before ``count``: Python does so for ``[...] * n`` (``first``: the display is on the
    left); for ``n * [...]`` only where nothing they do can change ``count`` (a constant, or
    a name ``local`` to the function)."""
    if not all(isinstance(n, _PURE + (gast.Call, gast.keyword)) for e in items
               for n in walk_nodes(e)):
        return False  # (no display: [[0.0] * 3] * 3's rows are one list, read as before)
    return first or isinstance(count, gast.Constant) or (
        isinstance(count, gast.Name) and count.id in local)


def _repeated(node, lengths, local=frozenset()):
    """``(items, count)`` of ``[items] * count`` or ``count * [items]``, else None."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)):
        return None
    for display, count in ((node.left, node.right), (node.right, node.left)):
        if isinstance(display, gast.List) and display.elts and not any(
                isinstance(e, gast.Starred) for e in display.elts) and (all(
                    _pure(e) for e in display.elts) or _calls_ok(
                    display.elts, count, display is node.left, local)) and \
                _pure(count, lengths) and \
                not all(isinstance(e, gast.Constant) for e in display.elts) and \
                not isinstance(count, (gast.List, gast.Tuple)):
            return display.elts, count
    return None


def lower(src):
    """Rewrite, in place, each repeated list display of ``src``'s function (see above), when
    ``range`` is Python's own there."""
    fdef = src.node
    if src.closure.get("range", src.globals.get("range", builtins.range)) is not builtins.range \
            or any(isinstance(n, gast.Name) and n.id == "range" and not isinstance(
                n.ctx, gast.Load) for n in walk_nodes(fdef)):
        return
    lengths = src.closure.get("len", src.globals.get("len", builtins.len)) is builtins.len \
        and not any(isinstance(n, gast.Name) and n.id == "len" and not isinstance(
            n.ctx, gast.Load) for n in walk_nodes(fdef))
    # (names of the function's own, which no call it makes rebinds; none declared global)
    local = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name) and isinstance(
        n.ctx, (gast.Store, gast.Param))} - {
        name for n in walk_nodes(fdef) if isinstance(n, (gast.Global, gast.Nonlocal))
        for name in n.names}
    found = [n for n in walk_nodes(fdef) if _repeated(n, lengths, local) is not None]
    if not found:
        return
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    fresh = fresh_names(taken | set(src.closure) | set(src.globals))
    check = fresh("srcad_repeat_count")
    src.closure[check] = repeat_count
    src.cells[check] = types.CellType(repeat_count)
    src.bound = {**getattr(src, "bound", {}), check: repeat_count}
    replaced = {}
    for node in found:
        items, count = _repeated(node, lengths, local)
        line = getattr(node, "lineno", None)
        where = fresh("srcad_repeat_where")
        value = (src.filename, line, src.line_text(line))
        src.closure[where] = value
        src.cells[where] = types.CellType(value)
        src.bound = {**src.bound, where: value}
        item, skip, held = fresh("repeated"), fresh("_"), fresh("repeated_items")
        rng = gast.Call(func=gast.Name("range", gast.Load(), None, None), args=[gast.Call(
            func=gast.Name(check, gast.Load(), None, None), args=[
                count, gast.Name(where, gast.Load(), None, None)], keywords=[])], keywords=[])
        once = gast.Tuple(elts=[gast.Tuple(elts=items, ctx=gast.Load())], ctx=gast.Load())
        comp = gast.ListComp(elt=gast.Name(item, gast.Load(), None, None), generators=[
            gast.comprehension(target=gast.Name(held, gast.Store(), None, None), iter=once,
                               ifs=[], is_async=0),
            gast.comprehension(target=gast.Name(skip, gast.Store(), None, None), iter=rng,
                               ifs=[], is_async=0),
            gast.comprehension(target=gast.Name(item, gast.Store(), None, None),
                               iter=gast.Name(held, gast.Load(), None, None), ifs=[],
                               is_async=0)])
        for sub in walk_nodes(comp):
            if "lineno" in sub._attributes:
                gast.copy_location(sub, node)
        replaced[id(node)] = comp
    for node in walk_nodes(fdef):
        for field, child in gast.iter_fields(node):
            if isinstance(child, list):
                child[:] = [replaced.get(id(c), c) for c in child]
            elif id(child) in replaced:
                setattr(node, field, replaced[id(child)])
