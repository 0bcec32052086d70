"""Tidy, sizes: a size taken once. ``for i in range(len(x)):`` around ``len_2 = len(x)``
(an inner loop's ``range(len(x))``) takes ``len(x)`` once, before the outer loop, as a
person writes ``n = len(x)``; and a name assigned once at the function's top level is not
saved per iteration (``stack_1.append((i, len_2))``): every unpacking would bind it to the
value it has. A top-level loop's stack of its index alone is ``reversed(range(n))``.

``len(p)`` is the same at every turn when ``p`` is a name bound once (a parameter, or
assigned once) that nothing may change: no item or attribute of it written, no ``p += ...``,
no method of it called, not passed to any call but NumPy's, ``math``'s and srcad's pure
helpers (:func:`.tidy_values._pure_call`), nor copied into another name. The size moves
only where the loop's own header takes ``len(p)`` already (``range(len(x))``), so nothing
is evaluated that was not; or where ``n = len(x)``, bound once before the loop at the top
level, is what the header reads (``range(n)``): ``len_2`` is then ``n``.

Imports: :mod:`.tidy_reads` (what a stack's calls are), :mod:`.tidy_values` (what is pure),
:mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from .tidy_reads import _Saves
from .tidy_values import _pure_call
from .tidy_walk import _count_names, _rename, _walk


def sizes_once(fdef):
    """Rewrite ``fdef`` in place as the module docstring says; whether anything changed."""
    changed = _hoist_sizes(fdef)
    saves = _Saves(fdef)
    if _drop_constant_saves(fdef, saves):  # (a drop changes the saves: read again)
        changed, saves = True, _Saves(fdef)
    return _index_stacks(fdef, saves) or changed


def _index_stacks(fdef, saves):
    """A top-level ``for i in range(n):`` that saves only ``i`` (``stack_1.append(i)``, once
    a turn: no ``break``, ``continue``, ``return`` or ``raise`` in it, ``i`` not bound there,
    ``n`` a literal or a name bound once) is walked back as ``for i in
    reversed(range(n)):``, without the stack. ``saves``: the function's
    :class:`.tidy_reads._Saves`."""
    stores = None
    changed = False
    for stack in saves.stacks:
        if len(saves.appends[stack]) != 1 or len(saves.unpacks[stack]) != 1:
            continue
        holder, field = saves.unpacks[stack][0]
        back = holder if field == "target" else None
        if back not in fdef.body or back.target.__class__ is not ast.Name:
            continue
        loop = next((s for s in fdef.body if s.__class__ is ast.For and not s.orelse
                     and s.target.__class__ is ast.Name and _range_of_one(s.iter)
                     and any(_appends(b, stack) for b in s.body)), None)
        if loop is None:
            continue
        append = next(b for b in loop.body if _appends(b, stack))
        size = loop.iter.args[0]
        if stores is None:
            stores = _count_names(fdef)[0]
        if not (append.value.args[0].__class__ is ast.Name
                and append.value.args[0].id == loop.target.id) or not (
                size.__class__ is ast.Constant or size.__class__ is ast.Name
                and stores.get(size.id) == 1) or any(
                n.__class__ in (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield)
                or n.__class__ is ast.Name and n.id == loop.target.id
                and n.ctx.__class__ is ast.Store for b in loop.body for n in _walk(b)):
            continue
        made = next((s for s in fdef.body if s.__class__ is ast.Assign
                     and s.targets[0].__class__ is ast.Name and s.targets[0].id == stack), None)
        if made is None or fdef.body.index(made) > fdef.body.index(loop):
            continue
        loop.body.remove(append)
        loop.body[:] = loop.body or [ast.Pass()]
        fdef.body.remove(made)
        back.iter = ast.Call(func=ast.Name(id="reversed", ctx=ast.Load()), args=[ast.Call(
            func=ast.Name(id="range", ctx=ast.Load()), args=[_copy(size)], keywords=[])],
            keywords=[])
        changed = True
    return changed


def _appends(stmt, stack):
    return (stmt.__class__ is ast.Expr and stmt.value.__class__ is ast.Call
            and stmt.value.func.__class__ is ast.Attribute
            and stmt.value.func.attr == "append"
            and stmt.value.func.value.__class__ is ast.Name
            and stmt.value.func.value.id == stack)


def _copy(node):
    return ast.Constant(value=node.value) if node.__class__ is ast.Constant else ast.Name(
        id=node.id, ctx=ast.Load())


def _hoist_sizes(fdef):
    loops = [(k, s) for k, s in enumerate(fdef.body) if s.__class__ is ast.For]
    if not loops:
        return False
    stores = None
    changed = False
    sizes = {}  # n -> p of a top-level n = len(p)
    for stmt in fdef.body:
        size = _size_stmt(stmt)
        if size is not None:
            sizes[size[0]] = size[1]
    for _, loop in loops:
        arg = loop.iter.args[0] if _range_of_one(loop.iter) else None
        named = arg.id if arg.__class__ is ast.Name and arg.id in sizes else None
        header = sizes[named] if named else _len_call(arg) if arg is not None else None
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
            if named and stores.get(named, 0) - saves.unpacked.get(named, 0) != 1:
                continue
            loop.body.remove(inner)
            loop.body[:] = loop.body or [ast.Pass()]
            if named:  # n = len(x) before the loop already: len_2 is n
                _rename(fdef, name, named)
            else:
                fdef.body.insert(fdef.body.index(loop), inner)
                loop.iter.args[0] = ast.Name(id=name, ctx=ast.Load())
            changed = True
            break
    return changed


def _drop_constant_saves(fdef, saves):
    """A name assigned once at the top level, before any loop reads it, leaves the saves
    (``for i, len_2 in reversed(stack_1):`` -> ``for i in reversed(stack_1):``; ``saves``:
    the function's :class:`.tidy_reads._Saves`, unchanged where nothing left them)."""
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

