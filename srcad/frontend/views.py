"""Writes through basic-index views of a local array: ``v = y[1:3]; v *= 3`` (issue 16).

NumPy's basic indexing (integers, slices, ``...``) gives a *view*: ``v = y[1:3]`` shares
memory with ``y``, so ``v *= 3`` changes ``y`` too, and a write into ``y`` changes ``v``.
srcad's SSA reads every write as making a new value, exact only when nothing else sees the
old object (:mod:`srcad.analysis.alias` refuses the rest). This pass (on the parsed tree,
before desugaring) rewrites the writes through such a view into writes into its base, so the
SSA sees only writes into the base, which srcad differentiates:

* ``v = y[I]`` stays, after ``check_view(y, I', where)`` (when the code runs: ``y`` is an
  array, ``I`` integers and slices, the view not one number; anything else, a list or an
  index array, is refused there: the rewrite would not be Python's meaning), when ``I`` is
  constants and names the statements after it do not bind: it is read again as written.
  Otherwise (a name bound again later, a call, an attribute; a view of a view) it becomes
  ``v_at = view_at(y, I', where)`` / ``v = y[v_at]``: the index evaluated once, where the
  view is taken, into one integer or slice per axis of ``y``;
* ``v op= e``, ``v[...] op= e``, ``np.f(..., out=v)`` become ``y[I] op= e`` (``y[v_at]``);
* ``v[W] = e``, ``v[W] op= e`` become ``y[I ∘ W] = e``: as written where that is exact
  whatever the values (:func:`.view_text.composed`: ``A[i][j]`` is ``A[i, j]``, ``A[:, j][k]``
  is ``A[k, j]``, every item certainly an integer or a slice), else ``v_ix =
  view_within(y, v_at, W', where)`` / ``y[v_ix] = e``: basic indices compose axis by axis
  through Python's ``range``, which slices exactly as NumPy does, negative steps too; an
  index array or mask picks the places the view's elements have in ``y``;
* after every write into ``y`` (through any of its views, or ``y[k] = e``, ``y op= e``,
  ``np.copyto(y, e)``, ``np.f(..., out=y)`` directly) each view of ``y`` is read again:
  ``v = y[I]`` (a view: no copy is made, also where nothing reads it);
* ``w = v[J]``, a view of a view, is a view of ``y`` at the composed index;
* ``None`` (``np.newaxis``) in ``I`` or ``W``: a new axis of length one, ``None`` in the
  index into ``y`` as well (:func:`.view_indices.view_within` composes through it).

A view is rewritten so when its name is bound once, by that statement, used only in the
statements after it in the same block (not in nested functions), written only as above,
and its base is a local name (a parameter never rebound is the argument: a write into it
stays refused by the alias analysis, as does a view that escapes, stored in a list or passed
to a function that writes into it: those still share the base's memory after the rewrite),
read again after the view is taken or the view taken in a loop (else nothing but the view
reads the base, and the code stays as written: the alias analysis differentiates the
write). A view taken by integers only (``row = A[i]``, a number when ``A`` is 1-D) is
rewritten only when it is written by item (``row[j] = e``, which Python refuses on a
number) or when the text shows ``A`` has more axes than the integers take
(``np.zeros((2, n))``, ``x.reshape(3, 4)``, ``np.outer``). A base rebound while one of its
views is still used (``v = y[1:]; y = y * 2; v[0] = 1``) is refused here
(:class:`MutationError`): Python's ``v`` would keep the old array. Views made by
``reshape``, ``.T``, ``ravel`` are not rewritten (the alias analysis refuses their writes,
with the hint :func:`_hints` leaves: the write into the base to make instead).

The code it writes calls :mod:`.view_indices`; what the text shows is read by
:mod:`.view_text`.

Imports: the standard library, gast, :mod:`srcad.errors`, :mod:`.source`, :mod:`.view_indices`
and :mod:`.view_text`.
"""

from __future__ import annotations

import builtins
import copy
import types

import gast

from ..core.walk import walk_nodes
from ..errors import MutationError
from .source import fresh_names
from .view_indices import check_view, view_at, view_within
from .view_text import (
    BLOCKS,
    OPS,
    SCOPES,
    Text,
    call_write,
    composed,
    const,
    index_items,
    keeps_axes,
    load,
    located,
    plain_item,
    store,
    walk_scope,
    whole_index,
    write_of,
)


class _View:
    def __init__(self, name, root, at, where, rank, index=None):
        self.name, self.root, self.at, self.where = name, root, at, where
        self.rank = rank  # the view's rank at least (0: not known)
        self.index = index  # the index as written, when it is read again as written

    def at_node(self):
        """The view's index into its base: as written, or the name holding it."""
        return copy.deepcopy(self.index) if self.index is not None else load(self.at)


class _Views(Text):
    """The rewrite of one function's body (see the module's docstring)."""

    def __init__(self, src):
        super().__init__(src)
        self.loops = 0  # how many loops the statements at work are in
        names = {n.id for n in walk_nodes(self.fdef) if isinstance(n, gast.Name)}
        self.fresh = fresh_names(set(names) | set(src.closure) | set(src.globals))
        self.helpers = {}
        self.written_back = getattr(src.func, "__srcad_written_back__", ())
    # ------------------------------------------------------------ names bound for the code

    def helper(self, obj, base):
        if base not in self.helpers:
            name = self.fresh(base)
            self.src.closure[name] = obj
            self.src.cells[name] = types.CellType(obj)
            self.src.bound = {**getattr(self.src, "bound", {}), name: obj}
            self.helpers[base] = name
        return load(self.helpers[base])

    def constant(self, value, base):
        name = self.fresh(base)
        self.src.closure[name] = value
        self.src.cells[name] = types.CellType(value)
        self.src.bound = {**getattr(self.src, "bound", {}), name: value}
        return load(name)

    def runtime(self, index):
        """``index`` as an expression whose value is the index (slices as ``slice(...)``)."""
        if isinstance(index, gast.Tuple):
            return gast.Tuple(elts=[self.runtime(i) for i in index.elts], ctx=gast.Load())
        if isinstance(index, gast.Slice):
            shadowed = "slice" in self.stores or "slice" in self.src.globals or \
                "slice" in self.src.closure
            func = self.helper(builtins.slice, "srcad_slice") if shadowed else load("slice")
            return gast.Call(func=func, args=[b if b is not None else const(None) for b in
                                              (index.lower, index.upper, index.step)],
                             keywords=[])
        return index

    # ------------------------------------------------------------ blocks

    def block(self, body, active):
        out = []
        for k, stmt in enumerate(body):
            made = self.binding(body, k, stmt, active)
            if made is None:
                made = self.statement(stmt, active)
            out.extend(made)
        body[:] = out

    def statement(self, stmt, active):
        if isinstance(stmt, SCOPES) or isinstance(stmt, gast.ClassDef):
            return [stmt]
        written = write_of(stmt)
        called = call_write(stmt)
        if called is not None:
            name, how = called
            if name in active and how == "out":  # np.f(..., out=v): v[...] = np.f(...)
                call = stmt.value
                call.keywords = []
                stmt = located(gast.copy_location(gast.Assign(
                    targets=[gast.Subscript(value=load(name), slice=const(Ellipsis),
                                            ctx=gast.Store())],
                    value=call, type_comment=None), stmt), stmt)
                written = (name, stmt.targets[0].slice)
            elif any(v.root == name for v in active.values()):
                written = (name, None)  # a write into the base: the views read again
        if written is None:
            looped = isinstance(stmt, (gast.For, gast.While))
            self.loops += looped
            for field in BLOCKS:
                sub = getattr(stmt, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], gast.stmt):
                    self.block(sub, dict(active))
            self.loops -= looped
            for handler in getattr(stmt, "handlers", ()):
                self.block(handler.body, dict(active))
            return [stmt]
        name, index = written
        if name in active:
            view = active[name]
            stmt = self.through(view, index, stmt)
            root = view.root
        elif any(v.root == name for v in active.values()):
            root = name
            stmt = [stmt]
        else:
            return [stmt]
        self.done = True
        return stmt + [self.reread(v, stmt[-1]) for v in active.values() if v.root == root]

    def reread(self, view, like):
        return located(gast.Assign(
            targets=[store(view.name)], value=gast.Subscript(
                value=load(view.root), slice=view.at_node(), ctx=gast.Load()),
            type_comment=None), like)

    def through(self, view, index, stmt):
        """``v[W] = e`` (or ``op=``, or ``v op= e``) as writes into the view's base."""
        made = []
        line = getattr(stmt, "lineno", None)
        self.src.view_hints = {**getattr(self.src, "view_hints", {}), (line, view.root): (
            f"write {view.name} = {view.name}.copy() before changing it ({view.name} is a view "
            f"of {view.root}, and another value holds {view.root} or shares its memory), or "
            "build a new array (np.concatenate, np.where)")}
        literal = None if index is None or whole_index(index) or view.index is None else \
            composed(view.index, index, self.integer)
        if index is None or whole_index(index):
            at = view.at_node()
        elif literal is not None:
            at = literal
        else:
            ix = self.fresh(view.name + "_ix")
            made.append(located(gast.Assign(targets=[store(ix)], value=gast.Call(
                func=self.helper(view_within, "view_within"), args=[
                    load(view.root), load(view.at), self.runtime(index),
                    load(view.where)], keywords=[]), type_comment=None), stmt))
            at = load(ix)
        target = gast.Subscript(value=load(view.root), slice=at, ctx=gast.Store())
        if isinstance(stmt, gast.AugAssign):
            new = gast.AugAssign(target=target, op=stmt.op, value=stmt.value)
        else:
            new = gast.Assign(targets=[target], value=stmt.value, type_comment=None)
        made.append(located(gast.copy_location(new, stmt), stmt))
        return made

    # ------------------------------------------------------------ which names are views

    def binding(self, body, k, stmt, active):
        """The statements for ``v = b[I]`` when ``v`` is read as a view (else None)."""
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and
                isinstance(stmt.value, gast.Subscript) and
                isinstance(stmt.value.value, gast.Name)):
            return None
        v, b, index = stmt.targets[0].id, stmt.value.value.id, stmt.value.slice
        items = index_items(index)
        if not items or not all(plain_item(i) for i in items) or self.arrays(index):
            return None
        if v in self.params or v in self.declared or v in self.nested or \
                self.stores.get(v) != 1 or v == b:
            return None
        outer = active.get(b)
        root = outer.root if outer is not None else b
        if outer is None and (b in self.declared or b in self.nested or b in self.lists or not (
                self.stores.get(b) or b in self.written_back)):
            return None  # a parameter never rebound: the argument (a copy's: written_args)
        region = body[k + 1:]
        inside = {id(n) for s in region for n in walk_scope(s) if isinstance(n, gast.Name)}
        if any(id(n) not in inside for n in self.names.get(v, ()) if n is not stmt.targets[0]):
            return None  # read before it is bound, or in another block
        if not any(id(n) in inside for n in self.names.get(v, ())):
            return None  # never used: nothing to read again
        by_item, whole, allowed = False, False, set()
        nodes = [n for s in region for n in walk_scope(s)]
        for node in nodes:
            written = write_of(node) if isinstance(node, gast.stmt) else None
            if written is not None and written[0] == v:
                by_item |= written[1] is not None
                whole |= written[1] is None
                allowed.add(id(node.target if isinstance(node, gast.AugAssign) else
                               node.targets[0]))
            elif call_write(node) == (v, "out"):
                by_item = True  # np.f(..., out=v): v[...] = np.f(...), refused on a number
        for node in nodes:
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    node.value.id == v and not isinstance(node.ctx, gast.Load) and \
                    id(node) not in allowed:
                return None  # a write in another form (a tuple target, del)
        ints = sum(1 for i in items if not isinstance(i, gast.Slice) and not (
            isinstance(i, gast.Constant) and i.value in (Ellipsis, None)))
        ints -= sum(1 for i in items if isinstance(i, gast.Constant) and i.value is None)
        base_rank = outer.rank if outer is not None else self.rank(load(b))
        # a view whatever the base's rank (a slice or ... in it), or of a base that has more
        # axes than the integers take
        keeps = keeps_axes(index) or base_rank > ints
        base_written = self.base_written(
            {root, v} | {a.name for a in active.values() if a.root == root}, region)
        if not (by_item or (whole and keeps) or (keeps and base_written) or
                (outer is not None and (by_item or whole))):
            if whole:  # v op= e on v = A[i]: a number when A is 1-D (a new value), else a
                self._hint_whole(v, b, nodes)  # write into A, which the text does not show
            return None
        if outer is None and not self.loops and self._alone(root, stmt):
            return None  # the base is not read again: a write through the view is seen by
            # nobody else, as the alias analysis finds (the code stays as written)
        self._refuse_rebound(v, root, body, k, stmt)
        line = getattr(stmt, "lineno", None)
        where = self.constant((v, root, self.src.filename, line, self.src.line_text(line)),
                              v + "_where")
        if self._literal(index, region, v, root, outer):
            view = _View(v, root, None, where.id, max(base_rank - ints, 0), index)
            check = gast.Expr(value=gast.Call(func=self.helper(check_view, "check_view"), args=[
                load(root), self.runtime(copy.deepcopy(index)), where], keywords=[]))
            active[v] = view
            self.done = True
            return [located(check, stmt), self.reread(view, stmt)]
        at = self.fresh(v + "_at")
        view = _View(v, root, at, where.id, max(base_rank - ints, 0))
        if outer is None:
            value = gast.Call(func=self.helper(view_at, "view_at"),
                              args=[load(root), self.runtime(index), where], keywords=[])
        else:
            value = gast.Call(func=self.helper(view_within, "view_within"), args=[
                load(root), load(outer.at), self.runtime(index), where, const(True)],
                keywords=[])
        active[v] = view
        self.done = True
        return [located(gast.Assign(targets=[store(at)], value=value, type_comment=None),
                         stmt), self.reread(view, stmt)]

    def _alone(self, root, stmt):
        """Whether ``root`` is used nowhere but in bindings before ``stmt`` (``v = root[I]``,
        not in a loop) and ``stmt`` itself: no value but the view reads it afterwards."""
        line = getattr(stmt, "lineno", None)
        for n in self.names.get(root, ()):
            if n is stmt.value.value:
                continue
            if line is None or not isinstance(n.ctx, gast.Store) or \
                    getattr(n, "lineno", line) >= line:
                return False
        return True

    def _literal(self, index, region, v, root, outer):
        """Whether the view is read again, and written through, with its index as written:
        a view of the base itself, no view taken of it, an index of constants and names the
        region does not bind (its value is the same wherever it is read), and every write
        through it whole or :func:`composed`."""
        if outer is not None:
            return False
        names = set()
        for node in walk_nodes(index):
            if isinstance(node, gast.Name):
                names.add(node.id)
            elif not isinstance(node, (gast.Constant, gast.Slice, gast.Tuple, gast.BinOp,
                                       gast.UnaryOp, gast.operator, gast.unaryop,
                                       gast.expr_context)):
                return False
        if names & {v, root}:
            return False
        for s in region:
            for node in walk_scope(s):
                if isinstance(node, gast.Name) and node.id in names and isinstance(
                        node.ctx, (gast.Store, gast.Del)):
                    return False
                if isinstance(node, gast.Assign) and isinstance(node.value, gast.Subscript) \
                        and isinstance(node.value.value, gast.Name) and \
                        node.value.value.id == v:
                    return False  # a view of the view: its index composes at run time
                written = write_of(node) if isinstance(node, gast.stmt) else None
                if written is not None and written[0] == v and written[1] is not None and \
                        not whole_index(written[1]) and composed(
                            index, written[1], self.integer) is None:
                    return False
        return True

    def _hint_whole(self, v, b, nodes):
        """For ``v op= e`` on a view taken by integers of a base of rank unknown here
        (refused by the alias analysis when it is a view and the base is read afterwards):
        write through it by item, which srcad reads as a write into the base."""
        hints = dict(getattr(self.src, "view_hints", {}))
        for node in nodes:
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
                    node.target.id == v:
                op = OPS.get(type(node.op), "+")
                hints[(node.lineno, v)] = (
                    f"write {v}[...] {op}= ... to change {b} through the view (srcad reads it "
                    f"as a write into {b}; {v} = {b}[...] taken by integers may be a number, "
                    f"whose {op}= makes a new value), or {v} = {v}.copy() first if {b} should "
                    "keep its values")
        self.src.view_hints = hints

    def _refuse_rebound(self, v, root, body, k, stmt):
        """A base rebound while the view is still used: Python's view keeps the old array."""
        last = max(j for j in range(k + 1, len(body)) if any(
            isinstance(n, gast.Name) and n.id == v for n in walk_scope(body[j])))
        for j in range(k + 1, last + 1):
            s = body[j]
            compound = any(isinstance(getattr(s, f, None), list) and getattr(s, f) for f in
                           BLOCKS)
            if j == last and not compound:
                break
            for node in walk_scope(s):
                if isinstance(node, gast.Name) and node.id == root and isinstance(
                        node.ctx, gast.Store) and not (isinstance(s, gast.AugAssign) and
                                                       s.target is node):
                    line = getattr(node, "lineno", None) or getattr(s, "lineno", None)
                    if any(isinstance(a, gast.AugAssign) and a.target is node
                           for a in walk_scope(s)):
                        continue
                    raise MutationError(
                        f"{root} is bound to a new value while {v}, a view of it taken at "
                        f"line {stmt.lineno}, is still used: Python's {v} keeps the old "
                        f"array ({v} = {root}[...] read as a view of {root})",
                        filename=self.src.filename, lineno=line,
                        construct=self.src.line_text(line),
                        hint=f"give the new value another name, or copy the view first "
                        f"({v} = {v}.copy()) if it should keep the old values")


#: views srcad does not rewrite, and what to write instead of a write through them
_RESHAPED = {"T": "transposed", "transpose": "transposed", "mT": "transposed",
             "swapaxes": "transposed", "reshape": "reshaped", "ravel": "reshaped"}


def _reshaped(value):
    """``(base, how)`` for ``y.T``, ``y.transpose(...)``, ``y.reshape(...)``, ``y.ravel()``,
    ``np.reshape(y, ...)``, ``np.ravel(y)``, ``np.transpose(y)``; else None."""
    if isinstance(value, gast.Attribute) and value.attr in ("T", "mT") and isinstance(
            value.value, gast.Name):
        return value.value.id, "transposed"
    if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Attribute):
        return None
    how = _RESHAPED.get(value.func.attr)
    if how is None:
        return None
    if isinstance(value.func.value, gast.Name) and value.func.value.id not in ("np",
                                                                               "numpy"):
        return value.func.value.id, how
    if value.args and isinstance(value.args[0], gast.Name):
        return value.args[0].id, how
    return None


def _hints(src):
    """``src.view_hints``: for each write through a view by ``.T``, ``reshape``, ``ravel``
    (refused by the alias analysis when the base is read afterwards), the write into the base
    to make instead, keyed by (line, view)."""
    hints = {}
    for node in walk_nodes(src.node):
        if not (isinstance(node, gast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], gast.Name)):
            continue
        found = _reshaped(node.value)
        if found is None:
            continue
        v, (y, how) = node.targets[0].id, found
        if how == "transposed":
            hint = (f"write into {y} itself at the transposed place ({y}[j, i] = ... for "
                    f"{v}[i, j] = ...; {y} op= (...).T for the whole view), or copy the view "
                    f"first ({v} = {v}.copy()) if {y} should keep its values")
        else:
            hint = (f"write into {y} itself ({y}[np.unravel_index(k, {y}.shape)] = ... for "
                    f"{v}[k] = ...; {y} op= ... for the whole view), or copy the view first "
                    f"({v} = {v}.copy()) if {y} should keep its values")
        for stmt in walk_nodes(src.node):
            written = write_of(stmt) if isinstance(stmt, gast.stmt) else None
            if written is not None and written[0] == v:
                hints[(stmt.lineno, v)] = hint
    if hints:
        src.view_hints = {**getattr(src, "view_hints", {}), **hints}


def lower(src):
    """Rewrite the writes through views of ``src`` (a :class:`.source.Source`) in place."""
    _hints(src)
    if not any(isinstance(n, gast.AugAssign) or (isinstance(n, gast.Subscript) and not
                                                  isinstance(n.ctx, gast.Load)) or
               call_write(n) is not None for n in walk_nodes(src.node)):
        return  # no write: nothing to rewrite
    views = _Views(src)
    views.block(src.node.body, {})
