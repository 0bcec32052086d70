"""The caller's seed, copied where a backward part changes it: a callee returning a list
gets its list's gradient from its caller and pops from it (one item per append), so the
backward part pops from a copy (``dy = list(dy)``), and where the list is inside a returned
tuple (``return xs, ys``), from a copy of that list (``dxs = mutable(dy[0])``), as where the
popped list is the seed under another name (``dresult_4 = dy`` in one branch: ``dy =
mutable(dy)``; ``mutable`` copies a list and leaves an array or a number, the gradient of a
result that is a list in one branch and an array in another, as it is): the
caller's cotangent stays whole (srcad differentiating this code again refuses a change of an
argument in place). Used by :func:`srcad.pipeline.make_split`. Imports :mod:`srcad.core.kinds`,
:mod:`srcad.transform.nodes`.
"""

from __future__ import annotations

import ast

from ..core.kinds import ARRAY, SCALAR, SEQ
from ..core.walk import walk_nodes
from ..transform.nodes import assign, call


def copy_seed(backward, seed, numba=False, spelled=None, helpers=None, kind=None):
    """The statements that copy ``seed`` first (none where the code leaves it whole); a list
    inside it that the code changes is copied where it is read from it (``backward`` is changed
    in place). ``mutable``, called for a copy, is added to ``helpers``. ``kind``: the kind of
    the result ``seed`` is the gradient of (:mod:`srcad.core.kinds`)."""
    if kind in (ARRAY, SCALAR):  # a number, or an array the sweep adds into only once it
        return []  # made it (``dy = cleared(dy, i) + ...`` then ``dy[j] += g``): never a list
        # (``list(dy)`` of an array gave its rows, items the sweep cannot add an array to)
    if _changes_in_place(backward, seed, direct=True):  # the caller's list: pop from a copy
        if kind in (None, SEQ):
            return [assign(seed, call("list", seed))]
        if helpers is not None:  # a list, or an array or a number: a copy if a list
            helpers.add("mutable")
        return [assign(seed, call(_mutable(spelled), seed))]
    if numba:  # Numba's lists: popped where they are (its code is not differentiated again)
        return []
    copied = []
    if _changes_in_place(backward, seed):  # through another name, the list of one branch's
        # result (another's may be an array or a number): a copy if a list
        copied = [assign(seed, call(_mutable(spelled), seed))]  # (runtime.helpers)
    for part, binding in [] if copied else _parts_of(backward, seed).items():
        if _changes_in_place(backward, part):  # a list inside the caller's tuple: a copy
            binding.value = call(_mutable(spelled), binding.value)  # (outside28: if a list,
            # the gradient of a result that is a list in one branch, an array in another)
            copied.append(None)
    if copied and helpers is not None:
        helpers.add("mutable")
    return [c for c in copied if c is not None]


def _mutable(spelled):
    return (spelled or {}).get("mutable", "mutable")


def _changes_in_place(trees, name_, direct=False):
    """Whether code changes the list ``name_`` itself: ``name_.pop()``, ``name_.append(v)``,
    ``name_[i] = v`` (a backward part popping the gradient of the list its callee returns),
    also through another name bound to it (``dresult_4 = dresult_7``: the gradient of a list
    a branch returns, outside28)."""
    names = {name_} if direct else _names_of(trees, name_)
    for node in (sub for tree in trees for sub in walk_nodes(tree)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("pop", "append")) and isinstance(
                node.func.value, ast.Name) and node.func.value.id in names:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if (
            isinstance(node, ast.AugAssign)) else []
        if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and (
                t.value.id in names) for t in targets):
            return True
    return False


def _names_of(trees, name_):
    """``name_`` and the names bound to it (``a = name_``, ``b = a``), to a fixed point."""
    names, found = {name_}, True
    while found:
        found = False
        for node in (sub for tree in trees for sub in walk_nodes(tree)):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and (
                    node.value.id in names):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id not in names:
                        names.add(t.id)
                        found = True
    return names


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
