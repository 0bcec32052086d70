"""``ys[k] += v`` on a list (or dict) whose places srcad cannot tell apart where it makes the
code: checked when the code runs that the item stands alone in its container.

Python's ``ys[k] += v`` takes the item out, changes it in place when it is an array
(``__iadd__``) and puts it back. srcad makes it ``ys[k] = ys[k] + v``, a new array at place
``k``: exact when nothing else sees the array. Other names are the alias analysis's
(:mod:`srcad.analysis.alias`), which knows the places of a list display (``[a * 1.0, b]``);
the places of a list built by a comprehension or by ``append`` in a loop
(``Ws = [np.zeros((n, n)) for _ in range(3)]``) it cannot tell apart: one statement made
every item. :func:`check_item_alone`, run just before the write, checks that no other item of
the container is the array, holds it (a list, tuple or dict among the items, looked into) or
shares memory with it (a view); anything it cannot see into (another object) raises too.
The analysis then counts the container as seeing the change at place ``k`` only
(``fn.checked_items``, :meth:`srcad.analysis.memory_places._Places.only_through`).

Imports gast, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`srcad.rules.registry` and
:mod:`.augmented_casts` and :mod:`.rebinding`.
"""

from __future__ import annotations

import gast
import numpy as np

from ..core import ir
from ..errors import MutationError
from ..rules.registry import registry as _registry
from . import augmented_casts
from .rebinding import immutable

_DEPTH = 4  # how deep nested lists, tuples and dicts among the items are looked into


def augmented_item(lw, target, value_node, node):
    """``ys[k] += v`` (desugared to ``ys[k] = ys[k] + v``) lowered by ``lw`` (the
    :class:`srcad.frontend.lower.Lowerer`): Python takes the item out, changes it in place if
    it is an array (``__iadd__``), and puts it back. The item's new value is recorded as that
    object changed in place (``augmented_items``, with the container): for a list or dict
    holding arrays, the alias analysis then refuses the write when another name, or another
    place of a list, holds the same array, unless the check emitted here (:func:`emit`)
    tells the places apart when the code runs. The index is evaluated once (Python's order:
    ``ys[i + 1] += v`` reads and writes at one place)."""
    left_node = value_node.left
    if isinstance(left_node, gast.Subscript) and left_node.slice is target.slice and \
            not isinstance(target.slice, (gast.Slice, gast.Tuple)) and \
            isinstance(target.value, gast.Name) and target.value.id in lw.env:
        index = lw.index(target.slice)  # one index for the read and the write
        if isinstance(index, (ir.Var, ir.Const)):
            lw.indices_once = {id(target.slice): index}
    try:
        value = lw.expr_BinOp(value_node)  # ys[k] first, then v, as Python does
        left = value.args[0]
        container = lw.env.get(target.value.id)
        user = isinstance(left, ir.Var) and isinstance(container, ir.Var) and not lw.generated
        text = (gast.unparse(target) if hasattr(gast, "unparse") else target.value.id).strip()
        # (srcad's own gradient lists hold arrays no one else holds: not checked)
        checked = user and emit(lw, container, left, text, node)
        after = lw.assign(value, None, node)
        if user and isinstance(after, ir.Var):  # the item's dtype kept, or NumPy's error
            augmented_casts.mark(lw, after.name, left, node)
        if user and isinstance(after, ir.Var):
            lw.augmented_items[after.name] = (left.name, container.name, text)
            lw.spellings.setdefault(left.name, text)  # (messages name ys[k], not t_2)
            lw.spellings.setdefault(after.name, text)
            if checked:  # alone in the container when the code runs: places told apart
                lw.checked_items.add(after.name)
        lw.bind_atom(target, after, node)
    finally:
        lw.indices_once = {}


def emit(lowerer, container, item, text, node):
    """Emit the check of ``text`` (``ys[k]``, as written) before its write: ``container``
    (the atom of ``ys``) and ``item`` (the atom of ``ys[k]`` read). Returns True."""
    where = (text, _op(node), lowerer.source.filename, node.lineno,
             lowerer.source.line_text(node.lineno))
    check = ir.Prim(check_item_alone, [container, item, lowerer.bound_const(where, "where")],
                    spelling=lowerer.bound_name(check_item_alone, "check_item_alone"))
    lowerer.emit(ir.Assign(None, check, node.lineno, effect=True))
    return True


def _op(node):
    op = getattr(getattr(node, "value", None), "op", None)
    return {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%",
            "Pow": "**", "MatMult": "@"}.get(type(op).__name__, "+")


def check_item_alone(container, item, where):
    """Raise :class:`MutationError` unless ``item`` (read from ``container``, a list, tuple
    or dict) is immutable, or is held by ``container`` at one place only with no other item
    sharing it. ``where``: (the target as written, op, file, line, the line's text)."""
    if immutable(item) or not isinstance(container, (list, tuple, dict)):
        return
    others = list(container.values() if isinstance(container, dict) else container)
    count = sum(1 for other in others if other is item)
    shared = count > 1 or any(other is not item and may_hold(other, item)
                              for other in others)
    if not shared:
        return
    text, op, filename, lineno, line = where
    what = f"an array (shape {item.shape})" if isinstance(item, np.ndarray) else \
        f"a {type(item).__name__}"
    raise MutationError(
        f"{text} {op}= ... (an augmented assignment): the item is {what}, which Python "
        "changes in place, and another item of the container is it, holds it or shares "
        "its memory when the code ran (srcad reads the line as a new value at that place "
        "only)", filename=filename, lineno=lineno, construct=line,
        hint=f"write {text} = {text} {op} ... (a new value), or build the items as "
        "separate arrays ([np.zeros(n) for _ in range(m)], not [a] * m)")


def may_hold(other, item, depth=_DEPTH):
    """Whether ``other`` (another item) may be ``item``, hold it or share its memory."""
    if other is item:
        return True
    if immutable(other):
        return False
    if isinstance(other, np.ndarray):
        return isinstance(item, np.ndarray) and bool(np.may_share_memory(other, item))
    if isinstance(other, (list, tuple, dict)) and depth > 0:
        inner = other.values() if isinstance(other, dict) else other
        return any(may_hold(o, item, depth - 1) for o in inner)
    return True  # an object srcad cannot see into


_registry.nondiff.add(check_item_alone)  # a check: no derivative
check_item_alone.srcad_item_check = True  # dropped where no write relies on it (analysis.alias)
