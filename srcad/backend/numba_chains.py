"""Elementwise chains joined into one expression (the Numba backend), before
:func:`.numba_fuse.expressions` makes each expression one loop.

SSA gives each operation a statement of its own, so an elementwise chain is spread over
statements (``t_9 = 2 * k2``, ``t_10 = k1 + t_9``, ``t_12 = t_10 + t_11``, ...), each making an
array that the next reads once; compiled, every statement is a pass over the elements and a
new array. :func:`joined` puts such a temporary's expression in the place where it is read,
so that the chain becomes one expression and then one loop::

    t_9 = 2 * k2_1                           y_2 = y_1 + t_8 * (k1_1 + 2 * k2_1 + ...)
    t_9_shape = t_9.shape           ->       t_9_shape = numba_fused_hn_m_0_1(2, k2_1)
    t_10 = k1_1 + t_9
    ...

**When** (every condition checked on the tree, nothing assumed): ``T = E`` with ``T`` a name
bound once in the function, ``E`` a tree of ``+``, ``-``, ``*`` and unary ``-`` whose leaves
are names and constants; ``T`` read once more in the function, later in the same block,
as an operand of ``+``, ``-``, ``*`` or unary ``-`` in a simple statement's expression, and
otherwise only as ``S = T.shape`` between the two (the backward sweep keeps shapes for
``unbroadcast_to``): those become ``S = fused_hn_<code>(leaves)``, the shape ``E`` would have,
read from its operands (:func:`.numba_fuse.helper`). Every statement between the two is
an assignment to names that are not ``E``'s leaves, whose expression only reads (names,
constants, arithmetic, subscripts, ``.shape``, tuples, comparisons, srcad's ``unbroadcast``,
``unbroadcast_to`` and ``layout``): no call that could write into an array ``E`` reads, no
in-place addition, no rebinding of a leaf. So ``E`` computes the same numbers where it is
read as where it was written, and nothing else ever saw the array it made. The operations
keep their order (each element goes through the same operations as NumPy's, see
:mod:`.numba_fuse`); what moves is only where the array would have been made.

Imports ``srcad.transform.nodes`` (``Comment``), :mod:`.numba_fuse` (its prefix code) and
:mod:`.numba_stacks` (``walk_values``); no ``numba``.
"""

from __future__ import annotations

import ast
import copy

from ..transform.nodes import Comment
from .numba_fuse import _code
from .numba_stacks import walk_values

_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult)
_READS = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Compare,
          ast.Subscript, ast.Slice, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop)
_PURE_HELPERS = {"unbroadcast", "unbroadcast_to", "layout", "add"}  # (they write nothing)


def joiner(fdef, helper_of, numba_helper):
    """``join(stmts)``: :func:`joined` for the blocks of ``fdef`` (read as it is now)."""
    loads, stores = counts(fdef)
    params = {a.arg for a in fdef.args.args}
    return lambda stmts: joined(stmts, loads, stores, params, helper_of, numba_helper)


def join_all(fdef, helper_of, numba_helper):
    """:func:`joined` for every block of ``fdef``, outer blocks first (in place)."""
    join = joiner(fdef, helper_of, numba_helper)

    def visit(stmts):
        stmts[:] = join(stmts)
        for stmt in stmts:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner)

    visit(fdef.body)


def counts(fdef):
    """``(loads, stores)``: how often each name is read, and bound, in ``fdef``."""
    loads, stores = {}, {}
    for node in ast.walk(fdef):
        if node.__class__ is ast.Name:
            into = loads if node.ctx.__class__ is ast.Load else stores
            into[node.id] = into.get(node.id, 0) + 1
    return loads, stores


def joined(stmts, loads, stores, params, helper_of, numba_helper):
    """``stmts`` (one block) with single-use elementwise temporaries put where they are read
    (see the module docstring). ``loads``/``stores``: :func:`counts` of the whole function;
    ``params``: its parameters' names."""
    stmts = list(stmts)
    i = 0
    while i < len(stmts):
        if not _join(stmts, i, loads, stores, params, helper_of, numba_helper):
            i += 1
    return stmts


def _elementwise(node):
    return (node.__class__ is ast.BinOp and node.op.__class__ in _ELEMENTWISE) or (
        node.__class__ is ast.UnaryOp and node.op.__class__ is ast.USub)


def _join(stmts, i, loads, stores, params, helper_of, numba_helper):
    stmt = stmts[i]
    if not (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and _elementwise(stmt.value)):
        return False
    temp = stmt.targets[0].id
    operands = []
    code = _code(stmt.value, operands)
    if stores.get(temp) != 1 or temp in params or not all(
            o.__class__ in (ast.Name, ast.Constant) for o in operands):
        return False
    leaves = {o.id for o in operands if o.__class__ is ast.Name}
    if temp in leaves:
        return False
    shapes, use = [], None
    for j in range(i + 1, len(stmts)):
        later = stmts[j]
        if later.__class__ is Comment:
            continue
        if later.__class__ is ast.If:  # into a branch: where E cannot raise (one name)
            found = _in_branch(later, temp, leaves, helper_of) if len(leaves) <= 1 else False
            if found is None:
                continue
            if found is False:
                return False
            use = found
            break
        if later.__class__ not in (ast.Assign, ast.AugAssign, ast.Expr, ast.Return):
            return False  # a loop: the end of what is looked at
        if _shape_of(later, temp):
            if later.targets[0].id in leaves:
                return False
            shapes.append(later)
            continue
        found = _use(later, temp, helper_of)
        if found is not None:
            if found is False:
                return False
            use = found
            break
        if not _reads_only(later, leaves | {temp}, helper_of):
            return False
    if use is None or loads.get(temp) != 1 + len(shapes):
        return False
    parent, node = use
    for field in ("left", "right", "operand"):
        if getattr(parent, field, None) is node:
            setattr(parent, field, stmt.value)
    for shape in shapes:
        shape.value = ast.Call(func=numba_helper(f"fused_hn_{code}"),
                               args=[copy.deepcopy(o) for o in operands], keywords=[])
    del stmts[i]
    return True


def _use(later, temp, helper_of):
    """In the simple statement ``later``: the ``(parent, node)`` where ``temp`` is read, as
    the one operand of an elementwise operation with only reads evaluated before it; None
    where ``later`` does not read it; False otherwise."""
    value = getattr(later, "value", None)
    if value is None:
        return None
    spots = [(parent, node) for parent in walk_values([value])
             for node in ast.iter_child_nodes(parent)
             if node.__class__ is ast.Name and node.id == temp]
    direct = [n for n in walk_values([value]) if n.__class__ is ast.Name and n.id == temp]
    if not direct:
        return None
    if not (len(direct) == 1 and len(spots) == 1 and _elementwise(spots[0][0])):
        return False
    before = _before(value, direct[0]) + (
        [later.target] if later.__class__ is ast.AugAssign else [])
    if not all(_reads(node, helper_of) for node in before):
        return False  # a call made before the expression is read could change it
    return spots[0]


def _in_branch(branch, temp, leaves, helper_of):
    """The use of ``temp`` inside the ``if`` statement ``branch`` (its test only reads, and
    does not read ``temp``; each branch's statements, up to the use, simple assignments
    that only read and bind neither ``temp`` nor a leaf, or such branches again): the
    ``(parent, node)``, None where it reads ``temp`` nowhere, False otherwise."""
    if not _reads(branch.test, helper_of) or any(
            n.__class__ is ast.Name and n.id == temp for n in ast.walk(branch.test)):
        return False
    found = None
    for block in (branch.body, branch.orelse):
        for later in block:
            if later.__class__ is Comment:
                continue
            if later.__class__ is ast.If:
                inner = _in_branch(later, temp, leaves, helper_of)
            elif later.__class__ in (ast.Assign, ast.AugAssign, ast.Expr):
                inner = _use(later, temp, helper_of)
                if inner is None and not _reads_only(later, leaves | {temp}, helper_of):
                    return False
            else:
                return False
            if inner is False or (inner is not None and found is not None):
                return False
            if inner is not None:
                found = inner
                break
    return found


def _shape_of(stmt, temp):
    """Whether ``stmt`` is ``S = temp.shape``."""
    value = getattr(stmt, "value", None)
    return (stmt.__class__ is ast.Assign and len(stmt.targets) == 1
            and stmt.targets[0].__class__ is ast.Name and value.__class__ is ast.Attribute
            and value.attr == "shape" and value.value.__class__ is ast.Name
            and value.value.id == temp)


def _before(root, node):
    """The subtrees of ``root`` Python evaluates before ``node`` (one of its nodes): those
    left of the path to it (children in field order: left before right, a call's function
    and arguments before the call)."""
    out = []
    for child in ast.iter_child_nodes(root):
        if child is node or any(n is node for n in ast.walk(child)):
            return out + ([] if child is node else _before(child, node))
        out.append(child)
    return out


def _reads_only(stmt, kept, helper_of):
    """Whether ``stmt`` binds names outside ``kept`` and only reads (see the module
    docstring)."""
    if stmt.__class__ is not ast.Assign:
        return False
    for target in stmt.targets:
        names = target.elts if target.__class__ is ast.Tuple else [target]
        if not all(n.__class__ is ast.Name and n.id not in kept for n in names):
            return False
    return _reads(stmt.value, helper_of)


def _reads(tree, helper_of):
    """Whether evaluating ``tree`` only reads (names, constants, arithmetic, subscripts,
    ``.shape``, tuples, comparisons, srcad's pure helpers)."""
    for node in ast.walk(tree):
        if node.__class__ is ast.Attribute:
            if node.attr != "shape":
                return False
        elif node.__class__ is ast.Call:
            func = node.func
            if not (func.__class__ is ast.Name and helper_of.get(func.id) in _PURE_HELPERS):
                return False
        elif not isinstance(node, _READS):
            return False
    return True
