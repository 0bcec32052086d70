"""NumPy's checks of an advanced index, before Numba indexes with it.

Numba (0.68, with bounds checks) indexes an array by a boolean mask *shorter* than the axis
without a word: ``x[mask]`` reads, and ``x[mask] = v`` writes, the first places of the axis,
where NumPy raises ``IndexError`` (a longer mask, and an int of an index array out of range,
raise Numba's IndexError, without NumPy's words). So every subscript of the adjoint whose
index may hold an array is checked first, by :func:`checked_index` (a Numba overload in
:mod:`.numba_index_overload`, one implementation per type of array and index, made when Numba
types the call): for each
boolean array among the indices, its shape against the axes it indexes; for each int
array, every int in range after counting negatives from the end; each with NumPy's message.
For an index with no array (ints, slices, None, Ellipsis) and a value that is not an array,
it does nothing (returns the index; Numba compiles it away).

:func:`add_checks` puts the checks in the code: ``numba_checked_index(x, i)`` as a
statement before the statement holding ``x[i]`` where the index is made of names,
constants and slices (the subscript itself unchanged: a name Numba reads as a constant
stays one), or as the subscript's index, ``x[numba_checked_index(x, y > 0)]``, where it is
computed there (computed once) or sits in a ``while`` test (checked at each test). No check
where the index is a name that only ever holds ints (:func:`int_names`: a range loop's
target, an item of srcad's stack of them, a counter): the backward sweep's stack reads.

Imports the standard library only (``import srcad`` must not import Numba, nor through it
SciPy); imported by :mod:`.numba_backend` (:func:`add_checks`), :mod:`.numba_index_overload`
and :mod:`.numba_masks` (which puts :func:`checked_index` in :mod:`.numba_helpers`'
``HELPERS``).
"""

from __future__ import annotations

import ast
from copy import deepcopy

SIMPLE = (ast.Name, ast.Constant, ast.Slice, ast.UnaryOp)


def checked_index(array, index):
    """Stub: ``index``, checked as NumPy checks it for ``array[index]`` (see the module)."""
    raise NotImplementedError


def _may_hold_array(index):
    if index.__class__ is ast.Tuple:
        return any(_may_hold_array(e) for e in index.elts)
    return not (index.__class__ in (ast.Constant, ast.Slice)
                or index.__class__ is ast.UnaryOp and index.operand.__class__ is ast.Constant)


def _simple(index):
    elts = index.elts if index.__class__ is ast.Tuple else [index]
    return all(e.__class__ in SIMPLE and (e.__class__ is not ast.UnaryOp
                                           or e.operand.__class__ is ast.Constant)
               and (e.__class__ is not ast.Slice or all(
                   p is None or p.__class__ in (ast.Name, ast.Constant)
                   for p in (e.lower, e.upper, e.step))) for e in elts)


def add_checks(fdef, body, numba_helper, skip=frozenset()):
    """``body`` (``fdef``'s statements) with :func:`checked_index` before (or in) every
    subscript whose index may hold an array (see the module; not at a name that holds only
    ints, :func:`int_names`); ``skip``: names of arrays not to check."""
    def call(value, index):
        return ast.Call(func=numba_helper("checked_index"), args=[value, index], keywords=[])

    args = fdef.args
    ints = int_names(body, [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
                     + [a.arg for a in (args.vararg, args.kwarg) if a is not None])

    def subscripts(node):
        return [n for n in ast.walk(node) if n.__class__ is ast.Subscript
                and not (n.value.__class__ is ast.Name and n.value.id in skip)
                and _may_hold_array(n.slice) and not (
                    n.slice.__class__ is ast.Name and n.slice.id in ints)]

    def block(stmts):
        out = []
        for stmt in stmts:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, block(getattr(stmt, field)))
            heads = [getattr(stmt, f) for f in ("test", "iter") if isinstance(
                getattr(stmt, f, None), ast.AST)] if hasattr(stmt, "body") else [stmt]
            before, seen = [], set()
            for head in heads:
                for node in subscripts(head):
                    pure = node.value.__class__ is ast.Name and _simple(node.slice)
                    key = ast.dump(node.value) + ast.dump(node.slice)
                    if pure and stmt.__class__ is not ast.While:
                        if key in seen:
                            continue
                        seen.add(key)
                        before.append(ast.Expr(value=call(
                            ast.Name(id=node.value.id, ctx=ast.Load()),
                            _load_copy(node.slice))))
                    else:
                        node.slice = call(_load_copy(node.value), _load_copy(node.slice))
            out += before + [stmt]
        return out

    return block(body)


def int_names(body, params=()):
    """The names that only ever hold ints: bound only as the target of ``for n in range(...)``,
    as ``n = S[j]`` of a list ``S`` (``S = []``) whose appends are only of such names
    (srcad's stack of a loop counter), or as int constants and such names added, subtracted
    or multiplied (``pushed = 0``, ``pushed += 1``); the greatest such set."""
    binds, appends = {p: [None] for p in params}, {}
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if node.__class__ is ast.For:
            ranged = (node.iter.__class__ is ast.Call and node.iter.func.__class__ is ast.Name
                      and node.iter.func.id == "range" and node.target.__class__ is ast.Name)
            for t in _bound(node.target):
                binds.setdefault(t.id, []).append("range" if ranged else None)
        elif node.__class__ in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr):
            value = node.value
            stack = (value.value.id if value is not None and value.__class__ is ast.Subscript
                     and value.value.__class__ is ast.Name else None)
            empty = value.__class__ is ast.List and not value.elts
            counted = _int_arith(value)  # n = 0, n += 1, n = k + 1: of ints (None: other)
            for target in getattr(node, "targets", None) or [node.target]:
                for t in _bound(target):
                    binds.setdefault(t.id, []).append(
                        ("stack", stack) if stack and target is t and len(
                            getattr(node, "targets", [t])) == 1
                        and node.__class__ is ast.Assign else "empty" if empty
                        and target is t else ("arith", counted) if counted is not None
                        and target is t else None)
        elif node.__class__ in (ast.comprehension, ast.withitem, ast.ExceptHandler, ast.arg,
                                ast.Global, ast.Nonlocal, ast.Delete, ast.Import,
                                ast.ImportFrom):  # (refused by numba_backend: to be safe)
            for t in ast.walk(node):
                if t.__class__ is ast.Name:
                    binds.setdefault(t.id, []).append(None)
            if node.__class__ is ast.ExceptHandler and node.name:
                binds.setdefault(node.name, []).append(None)
        elif (node.__class__ is ast.Call and node.func.__class__ is ast.Attribute
              and node.func.value.__class__ is ast.Name):
            appends.setdefault(node.func.value.id, []).append(
                node.args[0] if node.func.attr == "append" and len(node.args) == 1 else None)
    ints = {k for k, v in binds.items() if all(b is not None for b in v)}
    changed = True
    while changed:
        def fine(b, ints):
            if b == "range":
                return True
            if b == "empty":
                return False
            if b[0] == "arith":
                return b[1] <= ints
            stack = b[1]
            return all(b2 == "empty" for b2 in binds.get(stack, [None])) and all(
                a is not None and a.__class__ is ast.Name and a.id in ints
                for a in appends.get(stack, [None]))
        kept = {k for k in ints if all(fine(b, ints) for b in binds[k])}
        changed, ints = kept != ints, kept
    return ints


def _bound(target):
    """The names a target binds (``a``, ``a, b``; not the ``i`` of ``x[i] = v``)."""
    if target.__class__ is ast.Name:
        return [target]
    if target.__class__ in (ast.Tuple, ast.List):
        return [n for e in target.elts for n in _bound(e)]
    return _bound(target.value) if target.__class__ is ast.Starred else []


def _int_arith(value):
    """The names ``value`` reads if it is ints and names added, subtracted or multiplied
    (``0``, ``k + 1``), else None."""
    if value is None:
        return None
    if value.__class__ is ast.Constant:
        return set() if type(value.value) is int else None
    if value.__class__ is ast.Name:
        return {value.id}
    if value.__class__ is ast.BinOp and value.op.__class__ in (ast.Add, ast.Sub, ast.Mult):
        left, right = _int_arith(value.left), _int_arith(value.right)
        return None if left is None or right is None else left | right
    return None


def _load_copy(node):
    """A copy of ``node`` to read as a value: loads, and ``1:n`` as ``slice(1, n, None)``."""
    if node.__class__ is ast.Slice:
        none = ast.Constant(value=None)
        return ast.Call(func=ast.Name(id="slice", ctx=ast.Load()), args=[
            none if p is None else _load_copy(p) for p in (node.lower, node.upper, node.step)],
            keywords=[])
    if node.__class__ is ast.Tuple:
        return ast.Tuple(elts=[_load_copy(e) for e in node.elts], ctx=ast.Load())
    copy = deepcopy(node)
    for n in ast.walk(copy):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return copy
