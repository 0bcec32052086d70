"""Tidy: a saved value the backward sweep never reads leaves its stack.

The reverse sweep saves, per loop iteration, the values its backward loop may need
(``stack.append((t, t_3))`` ... ``for t, t_3 in reversed(stack):``). When the other rewrites
have left a position unread (``if t_3: dv_1 = dv else: dv_1 = dv`` became ``dv_1 = dv``), the
position goes from every ``append`` and from the loop's target: ``stack.append(t)``,
``for t in reversed(stack):``. A stack is rewritten only when it is used in exactly those
three ways (made empty, appended tuples of one length, walked once in reverse), and a position
only when its name is read nowhere from that loop on. One position always stays (the loop
still runs once per saved iteration).

Imports: the standard library and :mod:`.tidy_walk`.
"""

from __future__ import annotations

import ast

from .tidy_walk import _FIELDS, _fields


def _drop_unread_saves(fdef):
    """Drop the unread positions of every stack of ``fdef`` (see the module docstring);
    whether anything changed."""
    if not _unpacking_loops(fdef):
        return False  # (no loop walks a stack back: the ordered walk of every node is not made)
    order, uses, loops, appends, empty = {}, {}, {}, {}, {}
    for k, node in enumerate(_in_order(fdef)):  # one walk, in the order of the text
        if isinstance(node, ast.Name):
            order[id(node)] = k  # (only names and loops are placed)
            uses.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.For) and _reversed_name(node.iter) and isinstance(
                node.target, ast.Tuple):
            order[id(node)] = k
            loops.setdefault(_reversed_name(node.iter), []).append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, ast.Name) and \
                len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Tuple):
            appends.setdefault(node.func.value.id, []).append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):  # stack = []
            empty[node.targets[0].id] = isinstance(node.value, ast.List) and not node.value.elts
    changed = False
    for stack, found in loops.items():
        if len(found) != 1 or stack not in appends:
            continue
        loop = found[0]
        width = len(loop.target.elts)
        if not all(isinstance(e, ast.Name) for e in loop.target.elts) or any(
                len(a.args[0].elts) != width or any(isinstance(e, ast.Starred)
                                                    for e in a.args[0].elts)
                for a in appends[stack]):
            continue
        if len(uses[stack]) != 1 + len(appends[stack]) + 1 or not empty.get(stack):
            continue  # made once, appended to, walked once: nothing else touches it
        start = order[id(loop)]
        unread = [k for k, e in enumerate(loop.target.elts)
                  if not any(order[id(n)] > start and isinstance(n.ctx, ast.Load)
                             for n in uses.get(e.id, ()))]
        if not unread:
            continue
        if len(unread) == width:
            unread = unread[1:]  # one stays: the loop runs once per saved iteration
            if not unread:
                continue
        keep = [k for k in range(width) if k not in unread]
        for call in appends[stack]:
            items = [call.args[0].elts[k] for k in keep]
            call.args[0] = items[0] if len(items) == 1 else ast.Tuple(elts=items,
                                                                      ctx=ast.Load())
        targets = [loop.target.elts[k] for k in keep]
        loop.target = targets[0] if len(targets) == 1 else ast.Tuple(elts=targets,
                                                                     ctx=ast.Store())
        changed = True
    return changed


def _unpacking_loops(fdef):
    """Whether some ``for a, b in reversed(s):`` is among the statements of ``fdef`` (a walk
    of the statements only)."""
    todo = [fdef]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.For) and _reversed_name(node.iter) and isinstance(
                node.target, ast.Tuple):
            return True
        names = _FIELDS.get(node.__class__)
        for name in _fields(node.__class__) if names is None else names:
            child = getattr(node, name, None)
            if child.__class__ is list and child and isinstance(child[0], _BLOCK_ITEMS):
                todo.extend(child)
    return False


_BLOCK_ITEMS = (ast.stmt, ast.excepthandler, ast.match_case)


def _reversed_name(node):
    """``s`` when ``node`` is ``reversed(s)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "reversed" and len(node.args) == 1 and not node.keywords and \
            isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _in_order(node):
    """Every node of ``node``, in the order of the text (a node before what it holds; tidy's
    own walk goes level by level), as a list; not the ``ctx`` and operator nodes, which hold
    no name (:func:`.tidy_walk._fields`)."""
    out, todo = [], [node]
    AST = ast.AST
    fields = _FIELDS
    while todo:
        node = todo.pop()
        out.append(node)
        children = []
        names = fields.get(node.__class__)
        for name in _fields(node.__class__) if names is None else names:
            child = getattr(node, name, None)
            if isinstance(child, AST):
                children.append(child)
            elif isinstance(child, list):
                children.extend([c for c in child if isinstance(c, AST)])
        children.reverse()
        todo.extend(children)
    return out
