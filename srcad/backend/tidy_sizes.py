"""Tidy, sizes: a size taken once. ``for i in range(len(x)):`` around ``len_2 = len(x)``
(an inner loop's ``range(len(x))``) takes ``len(x)`` once, before the outer loop, as a
person writes ``n = len(x)``; and a name assigned once at the function's top level is not
saved per iteration (``stack_1.append((i, len_2))``): every unpacking would bind it to the
value it has.

``len(p)`` is the same at every turn when ``p`` is a name bound once (a parameter, or
assigned once) that nothing may change: no item or attribute of it written, no ``p += ...``,
no method of it called, not passed to any call but NumPy's, ``math``'s and srcad's pure
helpers (:func:`.tidy_values._pure_call`), nor copied into another name. The size moves
only where the loop's own header takes ``len(p)`` already (``range(len(x))``), so nothing
is evaluated that was not.

Imports: :mod:`.tidy_reads` (what a stack's calls are), :mod:`.tidy_values` (what is pure),
:mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from .tidy_reads import _Saves
from .tidy_values import _pure_call
from .tidy_walk import _count_names, _walk


def sizes_once(fdef):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    changed = _hoist_sizes(fdef)
    return _drop_constant_saves(fdef) or changed


def _hoist_sizes(fdef):
    loops = [(k, s) for k, s in enumerate(fdef.body) if s.__class__ is ast.For]
    if not loops:
        return False
    stores = None
    changed = False
    for _, loop in loops:
        header = _len_call(loop.iter.args[0]) if _range_of_one(loop.iter) else None
        if header is None:
            continue
        for inner in loop.body:
            size = _size_stmt(inner)
            if size is None or size[1] != header:
                continue
            if stores is None:
                stores = _count_names(fdef)[0]
                saves = _Saves(fdef)
                fixed = _unchanged(fdef, stores)
            name = size[0]
            if header not in fixed or stores.get(name, 0) - saves.unpacked.get(name, 0) != 1:
                continue
            loop.body.remove(inner)
            loop.body[:] = loop.body or [ast.Pass()]
            k = fdef.body.index(loop)
            fdef.body.insert(k, inner)
            loop.iter.args[0] = ast.Name(id=name, ctx=ast.Load())
            changed = True
            break
    return changed


def _drop_constant_saves(fdef):
    """A name assigned once at the top level, before any loop reads it, leaves the saves
    (``for i, len_2 in reversed(stack_1):`` -> ``for i in reversed(stack_1):``)."""
    saves = _Saves(fdef)
    if not saves.unpacked:
        return False
    stores = _count_names(fdef)[0]
    top = {s.targets[0].id for s in fdef.body if s.__class__ is ast.Assign
           and len(s.targets) == 1 and s.targets[0].__class__ is ast.Name}
    changed = False
    for name, n in list(saves.unpacked.items()):
        if n and name in top and stores.get(name) == 1 + n and saves.drop(name):
            changed = True
    return changed


def _unchanged(fdef, stores):
    """The names bound once whose length nothing in ``fdef`` may change."""
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    names = {n for n, c in stores.items() if c == 1} | {p for p in params
                                                        if stores.get(p) == 1}
    for node in _walk(fdef):
        cls = node.__class__
        if cls in (ast.Subscript, ast.Attribute) and node.value.__class__ is ast.Name:
            if node.ctx.__class__ is not ast.Load or cls is ast.Attribute:
                names.discard(node.value.id)  # x[i] = v, x.append(v), x.attr
        elif cls is ast.AugAssign and node.target.__class__ is ast.Name:
            names.discard(node.target.id)
        elif cls is ast.Call and not (node.func.__class__ is ast.Name
                                      and node.func.id in ("len", "range")
                                      or _pure_call(node, ("np", "math"))):
            for arg in node.args + [k.value for k in node.keywords]:
                for sub in _walk(arg):
                    if sub.__class__ is ast.Name:
                        names.discard(sub.id)
        elif cls is ast.Assign and node.value.__class__ is ast.Name:
            names.discard(node.value.id)  # a copy: changed through its other name
        elif cls is ast.Delete:
            for sub in _walk(node):
                if sub.__class__ is ast.Name:
                    names.discard(sub.id)
    return names


def _range_of_one(node):
    return (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id == "range" and len(node.args) == 1 and not node.keywords)


def _len_call(node):
    """``p`` of ``len(p)``, else ``None``."""
    if (node.__class__ is ast.Call and node.func.__class__ is ast.Name
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords
            and node.args[0].__class__ is ast.Name):
        return node.args[0].id
    return None


def _size_stmt(stmt):
    """``(n, p)`` of ``n = len(p)``, else ``None``."""
    if (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name):
        p = _len_call(stmt.value)
        return None if p is None else (stmt.targets[0].id, p)
    return None

