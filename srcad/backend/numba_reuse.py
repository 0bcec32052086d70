"""Numba backend: an item write into a copy of an array that nobody reads again writes into
the array itself (the forward sweep writes ``y[i] = v`` as ``y_1 = y.copy(); y_1[i] = v`` and
its tangent as ``dy_1 = copy_tangent(dy, y_1); dy_1[i] = dv``: two new arrays per write,
most of the time of a small-array loop's step under Numba).

The pair ``T = A.copy()`` (or ``T = copy_tangent(A, V)``) and, next in the same block,
``T[i] = e`` becomes ``T = A`` (or ``T = numba_reuse_tangent(A, V)``, the same values as
``copy_tangent`` without the copy where ``A`` is a float64 C array of ``V``'s shape) when the
code **proves** nothing can tell the difference:

- ``A`` is a local name (not a parameter) assigned once in the whole function, earlier in
  the same block, by a call making a new array (srcad's ``scatter``, ``copy_tangent``, a
  ``.copy()``, ``np.zeros`` and the others of :data:`NEW_ARRAYS`) or as the ``T`` of an
  earlier such pair: no other name holds its buffer;
- every read of ``A`` in the function is in the pair: in the copy, or inside ``e`` as
  ``A[c]`` with ``c`` an int constant (or a tuple of them) -- evaluated before the write,
  each the same element(s) as the write's or disjoint from them (``i`` is such a constant
  too), never kept in a name -- or earlier in the block, keeping no reference to ``A``: an
  item write ``A[c] = e``, or ``A`` as the value whose shape ``copy_tangent`` reads;
- so after the pair only ``T`` holds the buffer, and a loop running the block again makes
  ``A`` anew first.

Anything else keeps the copy. Imports ``srcad.transform.nodes``; no ``numba``.
"""

from __future__ import annotations

import ast

from ..transform import nodes


def _int_index(index):
    if index.__class__ is ast.Tuple:
        return bool(index.elts) and all(_int_index(e) for e in index.elts)
    return index.__class__ is ast.Constant and type(index.value) is int


def _copied(stmt, helper_of):
    """``(T, A, V)`` of ``T = A.copy()`` (V None) or ``T = copy_tangent(A, V)``, else None."""
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name):
        return None
    value = stmt.value
    if value.__class__ is not ast.Call or value.keywords:
        return None
    func = value.func
    if (func.__class__ is ast.Attribute and func.attr == "copy" and not value.args
            and func.value.__class__ is ast.Name):
        return stmt.targets[0].id, func.value.id, None
    if (func.__class__ is ast.Name and helper_of.get(func.id) == "copy_tangent"
            and len(value.args) == 2 and value.args[0].__class__ is ast.Name):
        return stmt.targets[0].id, value.args[0].id, value.args[1]
    return None


#: NumPy functions whose result is always a new array
NEW_ARRAYS = frozenset({"zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like",
                        "full", "eye", "array"})


def _fresh(stmt, helper_of, is_numpy):
    """Whether ``stmt`` is ``A = <a call making a new array>``."""
    value = stmt.value
    if value.__class__ is not ast.Call:
        return False
    func = value.func
    if func.__class__ is ast.Name:
        return helper_of.get(func.id) in ("scatter", "copy_tangent")
    return func.__class__ is ast.Attribute and (
        (func.attr == "copy" and not value.args) or (
            func.attr in NEW_ARRAYS and func.value.__class__ is ast.Name
            and is_numpy(func.value.id) and not any(k.arg == "copy" for k in value.keywords)))


def reuse(fdef, helper_of, numba_helper, is_numpy):
    """Rewrite the pairs described above in ``fdef`` (in place). ``helper_of``: srcad's helper
    by the name the code calls it; ``is_numpy(name)``: whether a name is NumPy's module."""
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    stores, loads = {}, {}
    for node in ast.walk(fdef):
        if node.__class__ is ast.Name:
            (loads if node.ctx.__class__ is ast.Load else stores).setdefault(
                node.id, []).append(node)
    reused = set()  # the T of pairs rewritten: fresh for the next pair in its block
    for block in _blocks(fdef):
        defined = {}  # A -> its position in this block, where assigned by a fresh value
        for k, stmt in enumerate(block):
            if stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and (
                    stmt.targets[0].__class__ is ast.Name):
                ident = stmt.targets[0].id
                if _fresh(stmt, helper_of, is_numpy) or ident in reused:
                    defined[ident] = k
            found = _copied(stmt, helper_of)
            if found is None or k + 1 >= len(block):
                continue
            target, source, like = found
            write = block[k + 1]
            if not (source in defined and source not in params
                    and len(stores.get(source, ())) == 1 and len(stores.get(target, ())) == 1
                    and write.__class__ is ast.Assign and len(write.targets) == 1
                    and write.targets[0].__class__ is ast.Subscript
                    and write.targets[0].value.__class__ is ast.Name
                    and write.targets[0].value.id == target
                    and _int_index(write.targets[0].slice)):
                continue
            if target == source or not _reads_confined(
                    block[:k], stmt, write, source, loads.get(source, ()), helper_of):
                continue
            if like is None:
                stmt.value = nodes.name(source)
            else:
                stmt.value.func = numba_helper("reuse_tangent")
            reused.add(target)
            defined[target] = k


def _reads_confined(before, copy, write, source, reads, helper_of):
    """Whether every read of ``source`` is the copy's own, inside ``write``'s value or index
    as ``source[c]`` with ``c`` int constants, or in a statement of the same block ``before``
    the copy that keeps no reference to it: an item write ``source[c] = e`` (``c`` int
    constants), or ``source`` as the value whose shape ``copy_tangent`` (or
    ``reuse_tangent``) reads."""
    in_copy = {id(n) for n in ast.walk(copy)}
    allowed = set()
    for node in ast.walk(write):
        if (node.__class__ is ast.Subscript and node.value.__class__ is ast.Name
                and node.value.id == source and node.ctx.__class__ is ast.Load
                and _int_index(node.slice)):
            allowed.add(id(node.value))
    for stmt in before:
        if stmt.__class__ is ast.Assign and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if (target.__class__ is ast.Subscript and target.value.__class__ is ast.Name
                    and target.value.id == source and _int_index(target.slice)):
                allowed.add(id(target.value))
            value = stmt.value
            if (value.__class__ is ast.Call and value.func.__class__ is ast.Name
                    and len(value.args) == 2 and value.args[1].__class__ is ast.Name
                    and value.args[1].id == source and (
                        helper_of.get(value.func.id) == "copy_tangent"
                        or value.func.id.startswith("numba_reuse_tangent"))):
                allowed.add(id(value.args[1]))
    return all(id(n) in in_copy or id(n) in allowed for n in reads)


def _blocks(fdef):
    """Every statement list of ``fdef`` (bodies of loops and branches too)."""
    found = [fdef.body]
    for node in ast.walk(fdef):
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if node is not fdef and isinstance(inner, list) and inner and isinstance(
                    inner[0], ast.stmt):
                found.append(inner)
    return found
