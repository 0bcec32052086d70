"""A list written by position while ``enumerate`` walks it (issue 16, outside24)::

    for i, v in enumerate(xs):        for i in range(len(xs)):
        xs[i] = v * (i + 1)               v = xs[i]
                                          xs[i] = v * (i + 1)

Python's list iterator reads ``xs[k]`` from the list as it is at step ``k`` and stops when
``k`` reaches the list's length then; when the body changes no length (no ``append``,
``pop``, ``extend``, ``insert``, ``remove``, ``clear``, ``del``, slice write) and does not
bind ``xs`` again, that is ``v = xs[i]`` at each ``i`` of ``range(len(xs))``, which reads the
write of an earlier step as Python's loop does. srcad's ``for`` over a sequence reads the
items of the list it started with, and the alias analysis refuses a write into the list it
walks ("changes xs while the for loop iterates over it"); the loop over positions is what it
differentiates. Only for ``for i, v in enumerate(xs)`` (``xs`` a name, no ``start`` or a
constant integer one: ``i`` is then ``k + start``) whose body writes an item of ``xs``; an
array walked so is read the same way (``xs[i]`` is the row the iteration gives).

The length is taken through :func:`walked_length`, which checks when the code runs that
``xs`` is a list or an array (a dict's ``enumerate`` yields its keys, and ``xs[i]`` would read
a value: refused there, ``UnsupportedSyntaxError`` at the line).

Imports the standard library, gast, NumPy, :mod:`srcad.errors`, :mod:`srcad.rules.registry`
(the check has no derivative) and :mod:`.returned_records` (``own_nodes``).
"""

from __future__ import annotations

import types

import gast
import numpy as np

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from .returned_records import own_nodes


def walked_length(xs, where):
    """``len(xs)`` of a list or a NumPy array (what the rewrite above reads by position),
    else the refusal at ``where`` (``(file, line, text)``)."""
    if type(xs) is list or isinstance(xs, np.ndarray):
        return len(xs)
    filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f"for i, v in enumerate(xs) writing xs[...] is read as a loop over the positions of a "
        f"list or array, but xs is a {type(xs).__name__} when the code runs",
        filename=filename, lineno=lineno, construct=text,
        hint="loop over the positions yourself: for i in range(len(xs)): v = xs[i] ...")


_registry.nondiff.add(walked_length)

_RESIZE = frozenset({"append", "pop", "extend", "insert", "remove", "clear", "sort", "reverse"})


def _name(id_, ctx):
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def _walked(loop):
    """``(xs, start)`` when ``loop`` is ``for i, v in enumerate(xs[, start])`` as above."""
    it, target = loop.iter, loop.target
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and
            it.func.id == "enumerate" and it.args and isinstance(it.args[0], gast.Name) and
            len(it.args) + len(it.keywords) <= 2 and
            isinstance(target, gast.Tuple) and len(target.elts) == 2 and
            isinstance(target.elts[0], gast.Name)):
        return None
    start = it.args[1] if len(it.args) == 2 else (
        it.keywords[0].value if it.keywords and it.keywords[0].arg == "start" else None)
    if it.keywords and start is None:
        return None
    if start is not None and not (isinstance(start, gast.Constant) and type(start.value) is int):
        return None
    return it.args[0].id, (0 if start is None else start.value)


def _writes_by_item(body, xs, i):
    """Whether ``body`` writes an item of ``xs`` and otherwise leaves its length and name
    alone (nor rebinds ``i``, read as the position)."""
    nodes = own_nodes(body)
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    written = False
    for node in nodes:
        if isinstance(node, gast.Name) and node.id in (xs, i) and not isinstance(
                node.ctx, gast.Load):
            return False
        if isinstance(node, (gast.Global, gast.Nonlocal)) and xs in node.names:
            return False
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                node.value.id == xs and not isinstance(node.ctx, gast.Load):
            if isinstance(node.ctx, gast.Del) or isinstance(node.slice, gast.Slice):
                return False
            written = True
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == xs and node.attr in _RESIZE and \
                isinstance(parents.get(node), gast.Call):
            return False
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
                node.target.id == xs:
            return False
    return written


class _Loops(gast.NodeTransformer):
    def __init__(self, src, check):
        self.src, self.check = src, check

    def length(self, xs, node):
        """``walked_length(xs, where)``, ``where`` a constant of the function."""
        line = getattr(node, "lineno", None)
        name = f"{self.check}_at_{line}"
        value = (self.src.filename, line, self.src.line_text(line))
        self.src.closure[name] = value
        self.src.cells[name] = types.CellType(value)
        self.src.bound = {**getattr(self.src, "bound", {}), name: value}
        return gast.Call(func=_name(self.check, gast.Load()), args=[
            _name(xs, gast.Load()), _name(name, gast.Load())], keywords=[])

    def visit_For(self, node):
        self.generic_visit(node)
        found = _walked(node)
        if found is None:
            return node
        xs, start = found
        index, item = node.target.elts
        if not _writes_by_item(node.body, xs, index.id):
            return node
        at = _name(index.id, gast.Load())
        position = at if start == 0 else gast.BinOp(
            left=at, op=gast.Sub(), right=gast.Constant(value=start, kind=None))
        read = gast.Assign(targets=[item], value=gast.Subscript(
            value=_name(xs, gast.Load()), slice=position, ctx=gast.Load()), type_comment=None)
        bounds = [gast.Constant(value=start, kind=None), gast.BinOp(
            left=self.length(xs, node), op=gast.Add(),
            right=gast.Constant(value=start, kind=None))] if start else [self.length(xs, node)]
        node.iter = gast.Call(func=_name("range", gast.Load()), args=bounds, keywords=[])
        node.target = index
        node.body = [read] + node.body
        for sub in walk_nodes(node):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
        return node


def lower(src):
    """Rewrite, in place, each loop of ``src``'s function read so (see above), when
    ``enumerate`` and ``range`` are Python's own there."""
    import builtins

    for name, fn in (("enumerate", enumerate), ("range", range)):
        if src.closure.get(name, src.globals.get(name, getattr(builtins, name))) is not fn:
            return
    names = {n.id for n in walk_nodes(src.node) if isinstance(n, gast.Name)}
    if any(isinstance(n, gast.Name) and n.id in ("enumerate", "range") and
           not isinstance(n.ctx, gast.Load) for n in walk_nodes(src.node)):
        return
    if not any(isinstance(n, gast.For) and _walked(n) for n in walk_nodes(src.node)):
        return
    check = "srcad_walked_length"
    while check in names or check in src.closure or check in src.globals:
        check += "_"
    src.closure[check] = walked_length
    src.cells[check] = types.CellType(walked_length)
    src.bound = {**getattr(src, "bound", {}), check: walked_length}
    _Loops(src, check).visit(src.node)
