"""Gradients of an array read in slices that cover it once: where the backward sweep makes
``dg = scatter(v0, g, slice(c, None, None))`` and then adds ``dg[b:c] += v1``,
``dg[0:b] += v2`` into it, and the slices provably split the array into pieces (``0 <= b <=
c``), each piece is written once into an empty array instead::

    dg = np.empty(g.shape)
    dg[c:] = v0
    dg[b:c] = v1
    dg[0:b] = v2

(no array of zeros, no additions: the gradient of ``np.split``-like reads such as
``gates[0:h]``, ``gates[h:2 * h]``, ``gates[2 * h:]``).

The proof is on the function's IR (SSA: every name has one definition): each bound is a sum
of integer multiples of numbers known not to be negative (``len(x)``, ``a.shape[k]`` of an
array, non-negative integer literals), the pieces in order start at 0 (or no bound), each
starts where the one before it ends (the same sum), each ends no earlier than it starts (the
difference a sum of non-negative terms), and the last has no upper bound. Python's slices
clip bounds past the end to the end, which keeps such pieces in order and covering.

Only in code that runs (the Python backend on NumPy arrays, not a form srcad differentiates
again: a derivative of the code reads its plain form, which keeps the zeros). Also here, the
additions in place into such an array (:func:`in_place`: ``dg[i] += v``, ``add_row``,
``add_into`` where the index's form is known only when the code runs). Imports:
``srcad.core``, :mod:`.nodes`.
"""

from __future__ import annotations

import ast
import operator

from ..core import ir
from ..core.kinds import ARRAY
from ..core.walk import walk_nodes
from . import nodes


class Pieces:
    """The writes of one gradient made by ``scatter`` from a slice: the scatter's
    assignment and each ``+=`` into a slice after it, with their IR indices."""

    def __init__(self, gname, like, stmt, index, frame):
        self.gname, self.like, self.frame = gname, like, frame
        self.writes = [(stmt, index)]


def made_zeros(sweep, dobj, like, code, contribution, index, frame):
    """The sweep made ``dobj = scatter(...)`` (``contribution``) in ``code``, a new array of
    zeros: ``dobj`` is fresh (the next reads add into it), and a new group of writes starts
    where the index is a slice, in code that only runs."""
    sweep.fresh.add(dobj)
    made_by = [s for s in code[-3:] if isinstance(s, ast.Assign) and s.value is contribution]
    sweep.piece_groups.pop(dobj, None)
    if sweep.runs_only and isinstance(index, ir.Slice) and made_by:
        group = Pieces(dobj, like, made_by[0], index, frame)
        sweep.pieces.append(group)
        sweep.piece_groups[dobj] = group


def added(sweep, dobj, index, gname, obj=None):
    """``dobj[index] += g`` into the new array ``dobj``, noted in its group of writes (a
    write noted in a group that is no longer the array's is never found after the group's
    ``scatter`` with nothing reading the array between: see :func:`rewrite`).

    In code that only runs, where ``index`` is one int and ``obj`` (whose gradient ``dobj``
    is) has rank 2 or more, ``add_row(dobj, index, g)`` instead (:mod:`srcad.runtime.items`):
    ``dobj[index]`` is a view of a row, added into in place, not written back onto itself
    (a derivative of the code reads its plain form, ``operators_written``)."""
    if sweep.runs_only and _one_int(index, sweep.an) and isinstance(obj, ir.Var) and (
            sweep.an.rank(obj) or 0) >= 2:
        sweep.operators_written = True
        return ast.Expr(value=nodes.call(sweep.helper("add_row"), dobj, nodes.expr(index),
                                         gname))
    stmt = nodes.add_to(nodes.subscript(dobj, nodes.expr(index)), gname)
    if dobj in sweep.piece_groups:
        sweep.piece_groups[dobj].writes.append((stmt, index))
    return stmt


def in_place(sweep, obj, dobj, index, index_node, gname, code, basic):
    """Add ``g`` into ``dobj``, the gradient of the array ``obj`` read at ``index``, in place
    (into ``code``; True) where ``dobj`` is an array this sweep made and nothing else holds:
    ``dobj[index] += g`` (:func:`added`) where the index is basic (``basic``: ints and
    slices, ``obj`` real); in code that only runs, where the index's form is known only
    when the code runs (an item of a list: ``A[rows[0], cols[j]]``) and ``obj`` is real,
    ``add_into(dobj, index, g)`` (:mod:`srcad.runtime.items`: ``np.add.at`` for an array
    index), not ``dobj += scatter(g, obj, index)`` (an array of zeros per read; a derivative
    of the code reads its plain form, ``operators_written``)."""
    if dobj not in sweep.live or dobj not in sweep.fresh or dobj in sweep.uniform:
        return False
    if basic:
        code.append(added(sweep, dobj, index, gname, obj))
    elif sweep.runs_only and sweep.an.kind(obj) == ARRAY and obj.name not in sweep.an.complex:
        sweep.operators_written = True
        code.append(ast.Expr(value=nodes.call(sweep.helper("add_into"), dobj, index_node,
                                              gname)))
    else:
        return False
    sweep.note_contribution(dobj, True, sweep.zero_flag(nodes.name(gname)), code)
    return True


def _one_int(index, an):
    """Whether ``index`` is one int (a literal, or a name the analysis knows holds one)."""
    if isinstance(index, ir.Const):
        return type(index.value) is int
    return isinstance(index, ir.Var) and index.name in an.ints


def rewrite(sweep, backward):
    """Rewrite each recorded group of slice writes of ``backward`` (a list of statements,
    nested blocks inside) whose slices cover the array once; whether any was rewritten."""
    groups = [g for g in sweep.pieces if len(g.writes) > 1]
    if not groups:
        return False
    defs = {s.target: s.value for s in ir.walk(sweep.fn.body)
            if isinstance(s, ir.Assign) and s.target is not None and not s.effect}
    by_stmt = {id(g.writes[0][0]): g for g in groups}
    done = []
    for block in _blocks(backward):
        k = 0
        while k < len(block):
            group = by_stmt.get(id(block[k]))
            if group is not None and _rewrite_at(block, k, group, defs, sweep):
                done.append((group, block[k].value))
            k += 1
    _shapes_only(sweep, backward, done)
    return bool(done)


def _shapes_only(sweep, backward, done):
    """Where the backward sweep now reads an array only for ``np.empty(a.shape)``, and the
    array would be kept for it (pushed in a loop, or handed over in a callee's context),
    keep its shape instead (``a_shape``, assigned where ``a`` is): the tuple, not the array
    (an LSTM cell's ``gates``, four times the state, once a step)."""
    if getattr(sweep.an.callees, "compiles_all", False):  # Numba: its own contexts
        return
    for like in {group.like for group, _ in done}:
        if sweep.an.kinds.get(like) != ARRAY or not (like in sweep.in_loop or (
                not sweep.structured and like in sweep.assigned)):
            continue
        empties = [made for group, made in done if group.like == like]
        reads = sum(1 for stmt in backward for n in walk_nodes(stmt)
                    if isinstance(n, ast.Name) and n.id == like)
        if reads != len(empties):
            continue  # the array is read for something else too: kept anyway
        shape = sweep.shape_name(like)
        for made in empties:
            made.args[0] = nodes.name(shape)
        for frame in {group.frame for group, _ in done if group.like == like}:
            sweep.ref(shape, frame)
        for refs in sweep.refs.values():
            refs.discard(like)


def _blocks(stmts):
    yield stmts
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.AST):
                yield from _blocks(inner)


def _rewrite_at(block, k, group, defs, sweep):
    """Rewrite the group whose scatter is ``block[k]`` if its writes that follow it in
    ``block``, before anything else reads or writes the gradient, cover the array once."""
    gname = group.gname
    recorded = {id(stmt): index for stmt, index in group.writes[1:]}
    found = [(k, group.writes[0][1])]
    for j in range(k + 1, len(block)):
        stmt = block[j]
        if id(stmt) in recorded and not _mentions(stmt.value, gname):
            found.append((j, recorded[id(stmt)]))
        elif _mentions(stmt, gname):
            break
    if len(found) < 2 or not covers([index for _, index in found], defs, sweep.an):
        return False
    scatter = block[k].value
    value, _, index = scatter.args
    np_ = sweep.helper_names.get("np", "np")
    sweep.used_helpers.add("np")
    block[k].value = nodes.call(nodes.attr(np_, "empty"), nodes.attr(group.like, "shape"))
    first = ast.Assign(targets=[nodes.subscript(gname, _slice_of(index))], value=value)
    first.targets[0].ctx = nodes.STORE
    for j, _ in found[1:]:
        aug = block[j]
        block[j] = ast.Assign(targets=[aug.target], value=aug.value)
    block.insert(k + 1, first)
    return True


def _slice_of(call):
    """``a:b`` of the node ``slice(a, b, None)``."""
    lower, upper, step = call.args
    none = [isinstance(p, ast.Constant) and p.value is None for p in (lower, upper, step)]
    return ast.Slice(lower=None if none[0] else lower, upper=None if none[1] else upper,
                     step=None if none[2] else step)


def _mentions(tree, gname):
    return any(isinstance(n, ast.Name) and n.id == gname for n in walk_nodes(tree))


# ---------------------------------------------------------------- the proof

def covers(indices, defs, an):
    """Whether slices with these IR indices (``ir.Slice``), in some order, split an array
    into pieces that cover it once (see the module docstring)."""
    pieces = []
    for index in indices:
        if not isinstance(index, ir.Slice) or not _unit(index.step):
            return False
        lower = ({}, 0) if index.lower is None else _form(index.lower, defs, an)
        upper = None if index.upper is None else _form(index.upper, defs, an)
        if lower is None or index.upper is not None and upper is None:
            return False
        if not _nonnegative(lower) or upper is not None and not (
                _nonnegative(upper) and _nonnegative(_minus(upper, lower))):
            return False
        pieces.append((lower, upper))
    at, left = ({}, 0), pieces
    while left:
        starting = [p for p in left if _same(p[0], at)]
        if len(starting) != 1:
            return False
        left = [p for p in left if p is not starting[0]]
        at = starting[0][1]
        if at is None:
            return not left  # the piece to the end: the last one
    return False


def _unit(step):
    return step is None or isinstance(step, ir.Const) and type(step.value) is int and (
        step.value == 1)


#: sums of multiples of non-negative numbers: ({name: coefficient}, constant)
def _form(atom, defs, an, depth=0):
    """``atom`` as a sum of integer multiples of names of non-negative numbers plus an
    integer, or None where it is not known to be one."""
    if depth > 20:
        return None
    if isinstance(atom, ir.Const):
        return ({}, atom.value) if type(atom.value) is int else None
    if not isinstance(atom, ir.Var):
        return None
    value = defs.get(atom.name)
    if isinstance(value, (ir.Var, ir.Const)):
        return _form(value, defs, an, depth + 1)
    if not isinstance(value, ir.Prim) or value.kwargs:
        return None
    fn, args = value.fn, value.args
    if _counts(value, defs, an):
        return ({atom.name: 1}, 0)
    if fn in (operator.add, operator.sub) and len(args) == 2:
        a, b = (_form(x, defs, an, depth + 1) for x in args)
        if a is None or b is None:
            return None
        return _plus(a, b) if fn is operator.add else _minus(a, b)
    if fn is operator.mul and len(args) == 2:
        for k, other in ((args[0], args[1]), (args[1], args[0])):
            if isinstance(k, ir.Const) and type(k.value) is int:
                form = _form(other, defs, an, depth + 1)
                if form is None:
                    return None
                return ({n: c * k.value for n, c in form[0].items()}, form[1] * k.value)
    return None


def _counts(prim, defs, an):
    """Whether ``prim`` is ``len(x)`` or ``a.shape[k]`` of an array ``a`` (a non-negative
    integer)."""
    if prim.fn is len and len(prim.args) == 1:
        return True
    if prim.fn is operator.getitem and len(prim.args) == 2 and isinstance(
            prim.args[0], ir.Var) and isinstance(prim.args[1], ir.Const) and (
            type(prim.args[1].value) is int):
        shape = defs.get(prim.args[0].name)
        return isinstance(shape, ir.Prim) and isinstance(shape.fn, ir.Attr) and (
            shape.fn.name == "shape") and len(shape.args) == 1 and isinstance(
            shape.args[0], ir.Var) and an.kinds.get(shape.args[0].name) == ARRAY
    return False


def _plus(a, b):
    terms = dict(a[0])
    for n, c in b[0].items():
        terms[n] = terms.get(n, 0) + c
    return ({n: c for n, c in terms.items() if c}, a[1] + b[1])


def _minus(a, b):
    return _plus(a, ({n: -c for n, c in b[0].items()}, -b[1]))


def _nonnegative(form):
    return form[1] >= 0 and all(c >= 0 for c in form[0].values())


def _same(a, b):
    return b is not None and not _minus(a, b)[0] and _minus(a, b)[1] == 0
