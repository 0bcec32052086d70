"""Copies of a list the function writes: ``c = v[:]`` and ``c = v.copy()`` as ``list(v)``.

For a list, ``v[:]``, ``v.copy()`` and ``list(v)`` make the same new list of the same items.
srcad follows the items of ``list(v)`` of a list display (:func:`.lower_spread.frozen_names`:
``c[1] += x`` then changes the item at place 1 alone, told apart from the others by the
memory model), while ``v[:]`` read as a slice, and ``v.copy()`` as a method, give a list
whose items may be any of ``v``'s: ``c[1] += x`` on an array item was refused ("c may hold
it too"). A name every binding of which is a list display, a list comprehension or
``list(...)`` (a top-level ``v = [...]`` or in a block, never a parameter, a loop target,
``v += ...``, a ``with`` or walrus target, nor read by a nested function or lambda) holds a
list wherever it is read, so its ``v[:]`` and ``v.copy()`` are rewritten ``list(v)``
(``list`` being the builtin where the function reads it). The item writes that follow are
then judged as they are for ``list(v)``: taken when ``v``'s items are not read afterwards,
refused when they are (Python changes them too).

Imports gast and the standard library.
"""

from __future__ import annotations

import builtins

import gast

from ..core.walk import walk_nodes


def lower(src):
    """Rewrite ``src.node``'s whole-list copies in place, see above."""
    fdef = src.node
    if src.globals.get("list", builtins.list) is not builtins.list or "list" in getattr(
            src, "closure", {}):
        return
    lists = _list_names(fdef)
    if not lists:
        return
    for node in walk_nodes(fdef):
        for field, child in gast.iter_fields(node):
            if isinstance(child, list):
                child[:] = [_rewritten(c, lists) for c in child]
            elif isinstance(child, gast.AST):
                setattr(node, field, _rewritten(child, lists))


def _rewritten(node, lists):
    name = _copied(node)
    if name is None or name not in lists:
        return node
    call = gast.Call(gast.Name("list", gast.Load(), None, None),
                     [gast.Name(name, gast.Load(), None, None)], [])
    for part in walk_nodes(call):
        gast.copy_location(part, node)
    return call


def _copied(node):
    """``v`` of ``v[:]`` or ``v.copy()``, else None."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and isinstance(
            node.ctx, gast.Load) and isinstance(node.slice, gast.Slice) and (
            node.slice.lower is None and node.slice.upper is None and node.slice.step is None):
        return node.value.id
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and (
            node.func.attr == "copy" and isinstance(node.func.value, gast.Name)
            and not node.args and not node.keywords):
        return node.func.value.id
    return None


def _list_names(fdef):
    """The names every binding of which makes a list (see the module's docstring)."""
    good, bad = set(), set()
    args = fdef.args
    bad |= {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    bad |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    for node in walk_nodes(fdef):
        if isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)) and node is not fdef:
            bad |= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)}
        elif isinstance(node, gast.Assign):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    (good if len(node.targets) == 1 and _makes_list(node.value) else bad).add(
                        target.id)
                else:
                    bad |= {n.id for n in walk_nodes(target) if isinstance(n, gast.Name)
                            and not isinstance(n.ctx, gast.Load)}
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.For, gast.comprehension,
                               gast.NamedExpr, gast.withitem, gast.Global, gast.Nonlocal,
                               gast.Delete, gast.ExceptHandler, gast.Import,
                               gast.ImportFrom)):
            bad |= {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)
                    and not isinstance(n.ctx, gast.Load)}
            bad |= set(getattr(node, "names", ()) if isinstance(
                node, (gast.Global, gast.Nonlocal)) else ())
    return good - bad


def _makes_list(node):
    return isinstance(node, (gast.List, gast.ListComp)) or isinstance(
        node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "list"
