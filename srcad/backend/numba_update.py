"""Numba backend: ``N = N + E`` computed into ``N``'s own array where nothing else can see it.

A loop's update of an array it carries, ``xdot_1 = xdot_1 + DELTA_T * xddot_1`` (or srcad's
``add(dxdot_1, dxddot_1 * DELTA_T)`` of two tangents), makes a new array each step, and the old
one is freed: for arrays of a few elements the allocation is most of the step's time under
Numba. When the code **proves** that no other name, container, callee or view can hold the
old array, writing the sum into it is the same program: the statement becomes
``N = numba_fused_wn_<code>(N, ...)`` (:func:`.numba_fuse.helper`, target ``w``), which writes
the elementwise expression into ``N`` in one loop where the types allow (every array operand a
float64 array of ``N``'s shape, ``N`` mutable, rank 1 or C-contiguous, sharing no memory with
``N`` unless it is ``N`` itself element for element), and otherwise returns the new array
``N + E`` makes, as before.

**Owned** names (checked on the whole function, flow-insensitively; anything else is not):

- not a parameter (the caller holds its value) and never declared ``global``/``nonlocal``;
- every store a single-name assignment of a new value: an arithmetic operation (``+``, ``-``,
  ``*``, ``/``, ... and unary ones: NumPy makes a new array), ``np.array``/``np.zeros`` and the
  others of :data:`.numba_reuse.NEW_ARRAYS` (no ``copy=``), ``.copy()``, srcad's ``scatter``,
  ``copy_tangent``, ``zeros_float``, ``add``; or an owned name ``M`` stored once, in the
  same block, and read otherwise only between its store and this assignment, or for its
  shape (the array handed over, its values never read through ``M`` after it); or an
  in-place ``N += e`` (the same array);
- every read keeps no reference: an operand of an arithmetic operation or comparison, an
  item ``N[c]`` with ``c`` int constants (a number: the helper writes in place only into
  arrays of rank 1 where such reads exist, see below), the array of an item write
  ``N[c] = e``, ``N.shape``, an argument of srcad's ``add``, ``scatter``, ``copy_tangent``,
  ``zeros_float`` or of a NumPy function of :data:`NEW_VALUES` or ``NEW_ARRAYS`` (keywords
  ``dtype``, ``axis`` only: each returns a new array or a number), or the copy handing it
  to another owned name. Passing it to anything else (a callee, a stack, a tuple,
  ``return``) disqualifies it.

An array an owned name holds was made fresh and reached only owned names by hand-overs, so
its rank is the one it was made with: where the helper sees a rank-1 array, every ``N[c]``
read of it was a number. A rank > 1 array is written in place only where no such item read
exists, of the name or of one that handed it the array.

Imports :mod:`.numba_reuse` (NEW_ARRAYS, its blocks), :mod:`.numba_fuse` (its prefix code);
no ``numba``.
"""

from __future__ import annotations

import ast

from . import numba_fuse
from .numba_reuse import NEW_ARRAYS, _blocks

#: NumPy functions of arrays whose result is a new array or a number, never an argument
NEW_VALUES = frozenset({"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh",
                        "abs", "absolute", "negative", "square", "sum", "prod", "dot",
                        "max", "min", "mean", "arctan", "arcsin", "arccos", "log1p", "expm1"})
#: srcad helpers: the argument positions read without keeping a reference
_HELPER_READS = {"add": (0, 1), "scatter": (0, 1), "copy_tangent": (0, 1),
                 "zeros_float": (0,), "reuse_tangent": (1,)}
#: srcad helpers: the argument positions whose shape only is read
_SHAPE_READS = {"scatter": (1,), "copy_tangent": (1,), "zeros_float": (0,),
                "reuse_tangent": (1,), "kept_dtype": (1,)}  # (its dtype, y op= v's cast)
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like"})
_FRESH_HELPERS = frozenset({"add", "scatter", "copy_tangent", "zeros_float"})
_VALUE_OPS = (ast.BinOp, ast.UnaryOp, ast.Compare)


def owned(fdef, helper_of, is_numpy):
    """The names of ``fdef`` owned as the module docstring says, each mapped to whether an
    item of it is read (``N[c]``)."""
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    for extra in (fdef.args.vararg, fdef.args.kwarg):
        if extra is not None:
            params.add(extra.arg)
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    stores, loads, bad = {}, {}, set(params)
    for node in ast.walk(fdef):
        if node.__class__ in (ast.Global, ast.Nonlocal):
            bad.update(node.names)
        elif node.__class__ is ast.Name:
            (loads if node.ctx.__class__ is ast.Load else stores).setdefault(
                node.id, []).append(node)
    candidates, items, hands, kinds = {}, {}, {}, {}
    for ident, found in stores.items():
        if ident in bad:
            continue
        sources = []
        for node in found:
            stmt = parents.get(id(node))
            if stmt.__class__ is ast.AugAssign and stmt.target is node:
                continue  # in place: the same array
            if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
                    and stmt.targets[0] is node):
                break
            value = stmt.value
            if value.__class__ is ast.Name:
                sources.append((value.id, value))
            elif not _fresh(value, helper_of, is_numpy):
                break
        else:
            candidates[ident] = sources
    for ident in candidates:
        item, hands[ident] = False, []
        for node in loads.get(ident, ()):
            kind = kinds[id(node)] = _read(node, parents, helper_of, is_numpy)
            if kind is None:
                break
            item = item or kind == "item"
            if kind == "hand":
                hands[ident].append(parents[id(node)].targets[0].id)
        else:
            items[ident] = item
    result = dict(items)
    blocks = _blocks(fdef)
    changed = True
    while changed:  # the greatest set closed under hand-overs
        changed = False
        for ident in list(result):
            # each source handed over is owned, and that hand-over is its only read; each
            # name this one is handed to is owned (and checks the same from its side)
            fine = all(s in result and _last_read(s, node, stores, loads, parents, blocks,
                                                   kinds)
                       for s, node in candidates[ident])
            if not (fine and all(t in result for t in hands[ident])):
                del result[ident]
                changed = True
    changed = True
    while changed:  # an item read of a name handed over is one of the array's (a view of a
        changed = False  # row, were it of rank 2): the write in place then rank 1 only
        for ident in result:
            if not result[ident] and any(result[s] for s, _ in candidates[ident]):
                result[ident] = changed = True
    return result


def _last_read(source, node, stores, loads, parents, blocks, kinds):
    """Whether the hand-over ``N = source`` (``node`` its read of ``source``) is the last
    read of ``source``: ``source`` stored once, in the hand-over's block, and read otherwise
    only in the statements of that block between its store and the hand-over, or for its
    shape (which no write in place changes)."""
    if len(stores.get(source, ())) != 1:
        return False
    handover = parents[id(node)]
    store = parents[id(stores[source][0])]
    for block in blocks:
        if any(stmt is handover for stmt in block):
            break
    else:
        return False
    ids = [id(stmt) for stmt in block]
    if id(store) not in ids or ids.index(id(store)) > ids.index(id(handover)):
        return False
    between = {id(n) for stmt in block[ids.index(id(store)):ids.index(id(handover)) + 1]
               for n in ast.walk(stmt)}
    return all(id(read) in between or kinds[id(read)] == "shape"
               for read in loads.get(source, ()))


def _fresh(value, helper_of, is_numpy):
    """Whether the expression ``value`` makes a new value (see the module docstring)."""
    if value.__class__ in _VALUE_OPS:
        return True
    if value.__class__ is not ast.Call or any(k.arg == "copy" for k in value.keywords):
        return False
    func = value.func
    if func.__class__ is ast.Name and helper_of.get(func.id) == "kept_dtype":
        return len(value.args) == 3 and _fresh(value.args[0], helper_of, is_numpy)
    if func.__class__ is ast.Name:
        return helper_of.get(func.id) in _FRESH_HELPERS
    return func.__class__ is ast.Attribute and (
        (func.attr == "copy" and not value.args and not value.keywords) or (
            func.attr in NEW_ARRAYS and func.value.__class__ is ast.Name
            and is_numpy(func.value.id)))


def _int_index(index):
    if index.__class__ is ast.Tuple:
        return bool(index.elts) and all(_int_index(e) for e in index.elts)
    return index.__class__ is ast.Constant and type(index.value) is int


def _read(node, parents, helper_of, is_numpy):
    """How the load ``node`` reads its name: ``"value"`` (no reference kept), ``"item"``
    (``N[c]`` as an operand), ``"hand"`` (``M = N``), or None (anything else)."""
    parent = parents.get(id(node))
    cls = parent.__class__
    if cls in _VALUE_OPS:
        return "value"
    if cls is ast.Assign and parent.value is node and len(parent.targets) == 1 and (
            parent.targets[0].__class__ is ast.Name):
        return "hand"
    if cls is ast.Attribute and parent.attr == "shape":
        return "shape"
    if cls is ast.Subscript and parent.value is node and _int_index(parent.slice):
        if parent.ctx.__class__ is ast.Store:
            return "value"  # N[c] = e: writes into N's own array
        return "item"  # (a number where the helper writes in place: rank 1)
    if cls is ast.Call and node in parent.args:
        func = parent.func
        if func.__class__ is ast.Name and not parent.keywords:
            helper, at = helper_of.get(func.id), parent.args.index(node)
            return "shape" if at in _SHAPE_READS.get(helper, ()) else (
                "value" if at in _HELPER_READS.get(helper, ()) else None)
        if (func.__class__ is ast.Attribute and func.value.__class__ is ast.Name
                and is_numpy(func.value.id) and all(k.arg in ("dtype", "axis")
                                                    for k in parent.keywords)
                and func.attr in NEW_VALUES | NEW_ARRAYS):
            return "shape" if func.attr in _LIKE and parent.args[0] is node else "value"
    return None


def in_place(stmt, owned_names, helper_of, numba_helper):
    """``stmt`` as ``N = numba_fused_w<r>_<code>(N, ...)`` where it is ``N = N + E`` or
    ``N = add(N, E)`` (srcad's ``add``) of an owned ``N``, else ``stmt`` itself. ``<r>``:
    ``n``, or ``i`` where an item of ``N`` is read (the helper then writes rank 1 only).
    A user's ``y += v`` carrying its cast, ``N = kept_dtype(N + E, N, '+')``, is
    ``N = kept_dtype(numba_fused_w<r>_<code>(N, ...), N, '+')``: written into ``N`` where
    the types allow (a float64 ``N``: the cast is then the identity), else the new sum cast
    to ``N``'s dtype as before."""
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name
            and stmt.targets[0].id in owned_names):
        return stmt
    ident, value = stmt.targets[0].id, stmt.value
    if value.__class__ is ast.Call and value.func.__class__ is ast.Name and helper_of.get(
            value.func.id) == "kept_dtype" and len(value.args) == 3 and not value.keywords:
        cast, (value, old, _) = value, value.args  # N = kept_dtype(N + E, N, '+'): y += v
        if not (old.__class__ is ast.Name and old.id == ident):
            return stmt
        stmt.value = value  # (the cast's value alone)
        cast.args[0] = in_place(stmt, owned_names, helper_of, numba_helper).value
        stmt.value = cast  # the sum into N where the types allow, then N's dtype
        return stmt
    adds = frozenset(k for k, v in helper_of.items() if v == "add")
    if value.__class__ is ast.BinOp and value.op.__class__ is ast.Add:
        left = value.left
    elif numba_fuse._added(value, adds):
        left = value.args[0]
    else:
        return stmt
    if not (left.__class__ is ast.Name and left.id == ident):
        return stmt
    operands = []
    code = numba_fuse._code(value, operands, adds)
    if len(operands) > numba_fuse.MAX_EXPRESSION or operands[0] is not left:
        return stmt
    wrap = "i" if owned_names[ident] else "n"
    stmt.value = ast.copy_location(ast.Call(func=numba_helper(f"fused_w{wrap}_{code}"),
                                            args=operands, keywords=[]), value)
    return stmt
