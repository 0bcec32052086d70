"""The caller's seed, copied where a backward part changes it: a callee returning a list
gets its list's gradient from its caller and pops from it (one item per append), so the
backward part pops from a copy (``dy = list(dy)``), and where the list is inside a returned
tuple (``return xs, ys``), from a copy of that list (``dxs = list(dy[0])``): the
caller's cotangent stays whole (srcad differentiating this code again refuses a change of an
argument in place). Used by :func:`srcad.pipeline.make_split`. Imports :mod:`srcad.transform.nodes`.
"""

from __future__ import annotations

import ast

from ..core.walk import walk_nodes
from ..transform import nodes
from ..transform.nodes import assign, call


def copy_seed(backward, seed, numba=False):
    """The statements that copy ``seed`` first (none where the code leaves it whole); a list
    inside it that the code changes is copied where it is read from it (``backward`` is changed
    in place)."""
    if _changes_in_place(backward, seed):  # the caller's list: pop from a copy of it
        return [assign(seed, call("list", seed))]
    if numba:  # Numba's lists: popped where they are (its code is not differentiated again)
        return []
    for part, binding in _parts_of(backward, seed).items():
        if _changes_in_place(backward, part):  # a list inside the caller's tuple: a copy
            binding.value = call("list", binding.value)
    return []


def _changes_in_place(trees, name_):
    """Whether code changes the list ``name_`` itself: ``name_.pop()``, ``name_.append(v)``,
    ``name_[i] = v`` (a backward part popping the gradient of the list its callee returns)."""
    for node in (sub for tree in trees for sub in walk_nodes(tree)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("pop", "append")) and nodes.is_name(node.func.value, name_):
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if (
            isinstance(node, ast.AugAssign)) else []
        if any(isinstance(t, ast.Subscript) and nodes.is_name(t.value, name_) for t in targets):
            return True
    return False


def _parts_of(trees, name_):
    """The names bound to items of ``name_`` (``dt = dy[0]``), and to items of those: name
    -> its binding (the first, if several)."""
    parts, found = {name_: None}, True
    while found:
        found = False
        for node in (sub for tree in trees for sub in walk_nodes(tree)):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Name) and isinstance(node.value, ast.Subscript) and (
                    isinstance(node.value.value, ast.Name)) and node.value.value.id in parts \
                    and node.targets[0].id not in parts:
                parts[node.targets[0].id] = node
                found = True
    del parts[name_]
    return parts
