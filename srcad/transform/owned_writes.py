"""Writes made in place: ``y[i] = v`` into an array this function alone holds and reads no more.

SSA reads a write ``y[i] = v`` as a new value, and the forward sweep writes it so: ``y_2 =
y_1.copy(); y_2[i] = v``. In a loop filling an array element by element (``out =
np.zeros(n)``, then ``out[k] = f(x[k])`` for every ``k``) that copies the whole array at
every step: O(n²) work for an O(n) loop. The copy can go, and ``y_2`` be ``y_1`` itself,
written in place, when nothing can tell the difference:

* ``y_1``'s memory is owned: every object it may be, or be a view of, was made in this
  function (an argument's or a global's would be the caller's; :mod:`srcad.analysis.memory`);
* no value that may share that memory (``y_1`` itself, a view of it, a second name, a list
  holding it) is read after the write by the forward sweep (:class:`.alias.Liveness`),
  except the written value ``y_2`` (and, through it, the loop's next step);
* no such value is read by the backward sweep (``refs``: saved on a stack, or kept alive to
  the end), handed to a callee whose context the backward sweep reads, or kept otherwise,
  unless it is made after the write's outermost loop ends, or it is that loop's carried
  value read only by the backward code of statements after the loop (the array as the loop
  left it, which the writes made);
* neither the written value nor the index may share that memory (a part of ``y_1`` written
  over ``y_1``: overlapping memory, which not every array library copies first).

The old array read after the write (``z = out * 2`` after ``out[k] = v`` reads the new one;
SSA's old ``out_1`` read after it), saved (``out[k] = out[k - 1] * x[k]`` on rows: the row
read for ``x``'s gradient is a view of ``out_1``), aliased, returned or handed to a callee:
the copy stays. A write not in a loop is judged the same way, the array it writes being
what the backward sweep may read after it (``out = np.zeros(n); out[0] = x[0]`` before the
loop: no ``out_1 = out.copy()``). Only in code that only runs (``runs_only``: the Python
backend on NumPy arrays): the form srcad differentiates again keeps its copies (its alias
checks would see ``out_2 = out_1`` share one array and refuse the write).

Imports ``srcad.analysis`` (:class:`.memory.Aliases`, the liveness of :mod:`.alias`),
``srcad.core``, ``srcad.runtime`` (``scatter``: its tangent a new array).
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..analysis.alias import Liveness
from ..analysis.memory import Aliases
from ..core import ir
from ..core.kinds import ARRAY, SCALAR
from ..runtime import helpers as runtime


def in_place(sweep):
    """The ids of the ``SetItem`` statements of ``sweep.fn`` the forward sweep writes in
    place (see the module docstring). ``sweep``: the :class:`.reverse.Reverse` after its
    backward sweep (``refs``, ``calls``, ``kept`` filled)."""
    fn, an = sweep.fn, sweep.an
    if not sweep.runs_only:
        return set()  # a form srcad reads again: its alias checks would see shared arrays
    writes = []
    _find(fn.body, (), writes)
    if not writes:
        return set()
    aliases = Aliases(fn, an)
    after = Liveness(fn).live()
    places, ends = {}, {}
    _number(fn.body, places, ends, [0])
    read_in = {}  # name -> ids of the blocks whose backward code reads it
    for block, names in sweep.refs.items():
        for n in names:
            read_in.setdefault(n, set()).add(block)
    handed = []  # (place, names whose memory a kept context or copy may hold)
    for stmt in ir.walk(fn.body):
        if id(stmt) in sweep.calls and isinstance(stmt, ir.Assign) and isinstance(
                stmt.value, ir.Prim):
            handed.append((places[id(stmt)], {v.name for v in stmt.value.operands()}))
        for _, source, _ in sweep.kept.get(id(stmt), ()):
            handed.append((places[id(stmt)], {source}))
    whole, looped = _whole_reads(getattr(sweep, "backward_code", None), sweep.helper_names)
    if whole is not None:  # names read for their shape alone are not read here
        read_in = {n: (blocks if n in looped else set())
                   for n, blocks in read_in.items() if n in whole}
    chosen = set()
    for stmt, loops in writes:
        if _owned_write(stmt, loops, an, aliases, after, places, ends, read_in, handed):
            chosen.add(id(stmt))
    return chosen


#: calls reading only the shape of their arguments at these positions (None: every one):
#: ``np.shape(v)``, ``len(v)``, srcad's helpers' ``like`` (``scatter(g, like, i)``: zeros
#: shaped like ``like``; ``unbroadcast(g, like)``: ``g`` summed to ``like``'s shape)
_SHAPE_CALLS = {"shape": None, "shape_of": None, "size": None, "ndim": None, "len": None,
                "zeros_like": None, "zeros_array": None, "scatter": {1}, "unbroadcast": {1}}
_SHAPE_ATTRS = ("shape", "size", "ndim", "dtype")


def _whole_reads(code, spellings):
    """``(read, read in a loop)``: the names ``code`` (the backward sweep's statements)
    reads for more than their shape anywhere, and inside one of its loops (a write in place
    changes no shape: ``np.broadcast_to(g, np.shape(out))``, the uniform gradient of
    ``np.sum(out)``, reads ``out`` for its shape alone; ``scatter(g, out_2, k)``, the gradient
    of ``out_2[k]``, likewise). ``spellings``: helper -> its spelling in the code."""
    if code is None:
        return None, None
    helpers = {spellings.get(h, h): positions for h, positions in _SHAPE_CALLS.items()}
    shape_reads, names, looped = set(), [], set()
    stack = [(stmt, False) for stmt in code]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, ast.Call) and not node.keywords:
            func = node.func
            spelled = func.attr if isinstance(func, ast.Attribute) else getattr(
                func, "id", None)
            positions = (_SHAPE_CALLS if isinstance(func, ast.Attribute) else helpers).get(
                spelled, ())
            shape_reads |= {id(a) for k, a in enumerate(node.args) if isinstance(
                a, ast.Name) and (positions is None or k in positions)}
        elif isinstance(node, ast.Attribute) and node.attr in _SHAPE_ATTRS and isinstance(
                node.value, ast.Name):
            shape_reads.add(id(node.value))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.append((node, in_loop))
        inner = in_loop or isinstance(node, (ast.For, ast.While))
        stack += [(child, inner) for child in ast.iter_child_nodes(node)]
    read = {n.id for n, _ in names if id(n) not in shape_reads}
    looped = {n.id for n, in_loop in names if in_loop and id(n) not in shape_reads}
    return read, looped


def _find(stmts, loops, out):
    """``(write, the loops around it, outermost first)`` for each array write."""
    for stmt in stmts:
        if isinstance(stmt, ir.SetItem):
            out.append((stmt, loops))
        if isinstance(stmt, ir.Loop):
            _find(stmt.header, loops + (stmt,), out)
            _find(stmt.body, loops + (stmt,), out)
        elif isinstance(stmt, ir.If):
            _find(stmt.body, loops, out)
            _find(stmt.orelse, loops, out)


def _number(stmts, places, ends, count):
    """Program order: ``places[name or id(stmt)]`` the position where it is defined (an
    ``if``'s merges after its arms, a loop's carried values at its head), ``ends[id(loop)]``
    the last position inside a loop."""
    for stmt in stmts:
        count[0] += 1
        places[id(stmt)] = count[0]
        if isinstance(stmt, ir.Loop):
            for p in stmt.phis:
                places[p.target] = count[0]
            if stmt.target:
                places[stmt.target] = count[0]
        for block in ir.blocks_of(stmt):
            _number(block, places, ends, count)
        if isinstance(stmt, ir.Loop):
            ends[id(stmt)] = count[0]
        elif isinstance(stmt, ir.If):
            count[0] += 1
            for p in stmt.phis:
                places[p.target] = count[0]
        else:
            for n in ir.defined_by(stmt):
                places[n] = count[0]


def _blocks_in(stmts):
    found = {id(stmts)}
    for stmt in ir.walk(stmts):
        found |= {id(b) for b in ir.blocks_of(stmt)}
    return found


def _unread(stmt, an, aliases, after):
    """``shares(name)`` (whether a value may share the memory of ``stmt.obj``) when the
    old array is owned and nothing sharing it is read after the write ``stmt`` (in the
    code that runs forward), else None."""
    obj = stmt.obj
    if not isinstance(obj, ir.Var) or an.kinds.get(obj.name) != ARRAY or (
            obj.name in aliases.opaque):
        return None
    memory = aliases.own.get(obj.name, frozenset())
    if not memory or any(token[0] != "new" for token in memory):
        return None  # the caller's, a global's, or not known

    def shares(n):
        return bool((aliases.own.get(n, frozenset()) | aliases.held.get(n, frozenset()))
                    & memory)

    atoms = [*ir.atoms_in(stmt.index), *ir.atoms_in(stmt.value)]
    if any(isinstance(a, ir.Var) and shares(a.name) for a in atoms):
        return None  # a part of obj written over obj
    if any(n != stmt.target and shares(n) for n in after.get(id(stmt), ())):
        return None  # the old array, or something sharing it, read after the write
    return shares


def _owned_write(stmt, loops, an, aliases, after, places, ends, read_in, handed):
    shares = _unread(stmt, an, aliases, after)
    if shares is None:
        return False
    if loops:
        outer = loops[0]
        end = ends[id(outer)]
        inside = _blocks_in(outer.body) | _blocks_in(outer.header)
        carried = {p.target for p in outer.phis}
    else:  # not in a loop: the written array itself holds what the write made
        end, inside, carried = places[id(stmt)], set(), {stmt.target}
    for n, blocks in read_in.items():
        if not shares(n) or places.get(n, 0) > end:
            continue  # made after the loop: it holds what the writes made
        if n in carried and not blocks & inside:
            continue  # the array as the loop left it, read after the loop (or the write)
        return False
    return not any(place <= end and any(shares(n) for n in names) for place, names in handed)


#: calls whose tangent is a new array: a copy (``x.copy()``, ``np.copy(x)``, ``np.array(x)``:
#: the tangent is the same call of the tangent)
_COPIES = (np.copy, np.array)


def forward_in_place(fwd):
    """``{id of a SetItem: whether its tangent is written in place too}``: the writes of
    ``fwd.fn`` forward mode's code makes in place (computed once a sweep; see the module
    docstring). ``fwd``: the :class:`.forward.Forward` sweep."""
    found = getattr(fwd, "owned_arrays", None)
    if found is not None:
        return found
    found = fwd.owned_arrays = {}
    fwd.owned_sharing = {}  # id of such a write -> (the names, the tangents' names) sharing
    if not getattr(fwd, "runs_only", False):
        return found  # (set by srcad.pipeline.tangents: NumPy arrays, the Python backend)
    fn, an = fwd.fn, fwd.an
    writes = []
    _find(fn.body, (), writes)
    if not writes:
        return found
    aliases = Aliases(fn, an)
    after = Liveness(fn).live()
    edges = _tangent_edges(fn, an, fwd)
    tangents = getattr(fwd, "tangents_in_place", True)  # (BatchedForward: k directions)
    for stmt, _ in writes:
        shares = _unread(stmt, an, aliases, after)
        if shares is None:
            continue
        shared = _tangent_shared(stmt, shares, edges, aliases.own)
        found[id(stmt)] = tangents and fwd.varied(stmt.obj) and not any(
            an.is_complex(a) for a in (stmt.obj, ir.Var(stmt.target), stmt.value)) and (
            _fresh(stmt.obj.name, fwd, aliases.defs, set())) and not any(
            n != stmt.target and n in shared for n in after.get(id(stmt), ()))
        fwd.owned_sharing[id(stmt)] = ({n for n in aliases.own if shares(n)}, shared)
    return found


def mark_writes(fwd, stmt, made):
    """Mark the writes in place among ``made`` (the code of the write ``stmt``) with the
    names that may share the array or its tangent: the tidy pass moves no read of them past
    the write (``dt_1 = dt * 2 * t`` with ``t = y[1:3]``, put into ``dy_1[1:3] = ...``
    after ``y[1:3] = t ** 2``, would read the new ``t``)."""
    sharing = getattr(fwd, "owned_sharing", {}).get(id(stmt))
    if sharing is None or id(stmt) not in fwd.owned_arrays:
        return
    values, tangents = sharing
    writes = [node for node in made if isinstance(node, ast.Assign) and isinstance(
        node.targets[0], ast.Subscript)]  # the value's write, then its tangent's
    for node, names in zip(writes, (values, {fwd.tnames[n] for n in tangents
                                             if n in fwd.tnames})):
        node.srcad_writes_into = names


def _tangent_edges(fn, an, fwd):
    """``(names read, name)`` pairs: a value whose tangent may be, view or hold the
    tangent of one of the values it is made from (``y = x + 1.0``: ``dy = dx``), numbers'
    left out (a number's tangent is a number)."""
    edges = []
    for stmt in ir.walk(fn.body):
        reads = {v.name for v in ir.reads_of(stmt) if isinstance(v, ir.Var)}
        if isinstance(stmt, ir.Assign) and stmt.target is None:
            edges += [(reads, n) for n in reads]  # lst.append(row): lst holds it now
        elif isinstance(stmt, ir.Loop) and stmt.target and an.kinds.get(
                stmt.target) != SCALAR:  # for row in out: a view
            edges.append(({v.name for v in ir.atoms_in(stmt.iter)} if not isinstance(
                stmt.iter, ir.Prim) else {v.name for v in stmt.iter.operands()}, stmt.target))
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
                _new_tangent(stmt.value, fwd) or stmt.value.fn is operator.getitem):
            continue  # (dx[i] is a view of dx where x[i] is one of x: shares tells)
        elif isinstance(stmt, (ir.Assign, ir.SetItem)):
            edges += [(reads, n) for n in ir.defined_by(stmt) if an.kinds.get(n) != SCALAR]
        for p in getattr(stmt, "phis", ()):
            edges.append(({v.name for v in p.sources if isinstance(v, ir.Var)}, p.target))
    return edges


def _tangent_shared(stmt, shares, edges, names):
    """The names of the values whose tangent may share the memory of the tangent ``stmt``
    writes (``names``: every name, those sharing the array's memory first)."""
    shared = {n for n in names if shares(n)} | {stmt.obj.name, stmt.target}
    grown = True
    while grown:
        grown = False
        for reads, n in edges:
            if n not in shared and reads & shared:
                shared.add(n)
                grown = True
    return shared


def _fresh(name, fwd, defs, seen):
    """Whether the tangent of ``name`` is an array no other value's tangent began as: made
    by the code (a zero for a value with no tangent, a copy's tangent), or written from such
    a tangent (a loop's carried value: taken so at its back edge)."""
    if name in seen or not fwd.varied(ir.Var(name)):
        return True  # (no tangent: a zero made where it is read)
    seen.add(name)
    made = defs.get(name)
    if isinstance(made, ir.Phi):
        return all(not isinstance(s, ir.Var) or _fresh(s.name, fwd, defs, seen)
                   for s in made.sources if s is not None)
    if isinstance(made, ir.SetItem) and made.target == name and isinstance(made.obj, ir.Var):
        return _fresh(made.obj.name, fwd, defs, seen)
    if isinstance(made, ir.Assign) and made.target == name:
        value = made.value
        if isinstance(value, ir.Var):
            return _fresh(value.name, fwd, defs, seen)
        if not isinstance(value, ir.Prim) or value.kwargs:
            return False
        if value.fn is operator.getitem and isinstance(value.args[0], ir.Var):
            return _fresh(value.args[0].name, fwd, defs, seen)  # dx[i]: a part of dx
        if value.fn is runtime.scatter:
            return True  # scatter(v, like, i): zeros with v at i; its tangent, dv's, too
        return _new_tangent(value, fwd) or len(value.args) == 1 and (
            value.fn == ir.Method("copy") or any(value.fn is f for f in _COPIES))
    return False


def _new_tangent(prim, fwd):
    """Whether the tangent of ``prim`` (an :class:`ir.Prim`) is a new object: ``a + b``'s
    ``da + db`` with both varying (``a + 1.0``'s is ``da`` itself), ``a * b``'s ``da * b``
    (``b`` a value, not a literal the code may fold away), ``-a``'s ``-da``."""
    if prim.kwargs or not all(isinstance(a, ir.Var) for a in prim.args):
        return False
    if prim.fn in (operator.add, operator.sub):
        return all(fwd.varied(a) for a in prim.args)
    return prim.fn in (operator.mul, operator.truediv, operator.neg)
