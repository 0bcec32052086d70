"""Writes through basic-index views of a local array: ``v = y[1:3]; v *= 3`` (issue 16).

NumPy's basic indexing (integers, slices, ``...``) gives a *view*: ``v = y[1:3]`` shares
memory with ``y``, so ``v *= 3`` changes ``y`` too, and a write into ``y`` changes ``v``.
srcad's SSA reads every write as making a new value, exact only when nothing else sees the
old object (:mod:`srcad.analysis.alias` refuses the rest). This pass (on the parsed tree,
before desugaring) rewrites the writes through such a view into writes into its base, so the
SSA sees only writes into the base, which srcad differentiates:

* ``v = y[I]`` becomes ``v_at = view_at(y, I', where)`` / ``v = y[v_at]``: the index is
  evaluated once, where the view is taken, into one integer or slice per axis of ``y``
  (:func:`view_at`, which checks when the code runs that ``y`` is an array and ``I`` a basic
  index; anything else, a list or an index array, is refused there: the rewrite would not be
  Python's meaning);
* ``v[W] = e``, ``v[W] op= e`` become ``v_ix = view_within(y, v_at, W', where)`` /
  ``y[v_ix] = e``: the index into ``y`` of those elements of the view (:func:`view_within`:
  basic indices compose axis by axis through Python's ``range``, which slices exactly as
  NumPy does, negative steps too; an index array or mask picks the positions the view's
  elements have in ``y``), and ``v op= e``, ``v[...] op= e`` become ``y[v_at] op= e``;
* after every write into ``y`` (through any of its views, or ``y[k] = e``, ``y op= e``
  directly) each view of ``y`` read later is read again: ``v = y[v_at]``;
* ``w = v[J]``, a view of a view, is a view of ``y`` at the composed index.

A view is rewritten so when its name is bound once, by that statement, used only in the
statements after it in the same block (not in nested functions), written only as above,
and its base is a local name (not a parameter: a write into an argument stays refused by
the alias analysis, as does a view that escapes, stored in a list or passed to a function
that writes into it: those still share the base's memory after the rewrite). A view taken
by integers only (``row = A[i]``, a number when ``A`` is 1-D) is rewritten only when it is
written by item (``row[j] = e``, which Python refuses on a number). A base rebound while one
of its views is still used (``v = y[1:]; y = y * 2; v[0] = 1``) is refused here
(:class:`MutationError`): Python's ``v`` would keep the old array. Views made by ``reshape``,
``.T``, ``ravel`` are not rewritten (the alias analysis refuses their writes).

Imports: gast, NumPy, :mod:`srcad.errors`, :mod:`srcad.rules.registry` and :mod:`.source`.
"""

from __future__ import annotations

import builtins
import copy
import operator
import types

import gast
import numpy as np

from ..errors import MutationError
from ..rules.registry import registry as _registry
from .source import fresh_names

# ------------------------------------------------------------------ run time


def _refuse(where, what, hint):
    view, base, filename, lineno, text = where
    raise MutationError(what, filename=filename, lineno=lineno, construct=text, hint=hint)


def _integer(item):
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _basic(item):
    if item is Ellipsis or _integer(item):
        return True
    return isinstance(item, slice) and all(
        b is None or _integer(b) for b in (item.start, item.stop, item.step))


def _items(index):
    return index if type(index) is tuple else (index,)


def _as_slice(r):
    """The slice of a ``range`` of nonnegative positions (a negative step's end is None)."""
    stop = r.stop if r.stop >= 0 else None
    return slice(r.start, stop, r.step)


def _as_range(s):
    return range(s.start, -1 if s.stop is None else s.stop, s.step)


def _expand(items, ndim, where, name):
    """``items`` (basic) with its ``...`` spread to full slices over ``ndim`` axes."""
    ellipses = sum(1 for i in items if i is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    given = len(items) - ellipses
    if given > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{given} were indexed")
    out = []
    for i in items:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - given))
        else:
            out.append(i)
    out.extend([slice(None)] * (ndim - len(out)))
    return out


def _compose(ranges, items):
    """The index into the base of ``view[items]`` (basic items), the view's axes being the
    positions ``ranges`` (one ``range`` per axis of the view) of the base's axes."""
    out = []
    for r, item in zip(ranges, items):
        if isinstance(item, slice):
            out.append(r[item])
        else:
            out.append(r[operator.index(item)])  # IndexError past the end, as NumPy
    return out


def view_at(base, index, where):
    """The index ``base[index]`` takes, one integer or slice per axis of ``base`` (each
    nonnegative, evaluated now), for a name srcad reads as a view of ``base``; refused when
    ``base`` is not an array or ``index`` not basic (then Python's value is a copy, or not an
    array's, and the writes through it were read as writes into ``base``). ``where``: (view,
    base, file, line, text)."""
    view, name = where[0], where[1]
    if not isinstance(base, np.ndarray):
        _refuse(where, f"{view} = {name}[...] is read as a view of the array {name}, "
                f"but {name} is a {type(base).__name__} when the code runs",
                f"write {view} = {name}[...] where {name} is an array, or change a copy "
                f"({view} = list({name}[...]))")
    items = _items(index)
    if not all(_basic(i) for i in items):
        _refuse(where, f"{view} = {name}[...] is written through, but its index is not "
                "integers and slices when the code runs (an index array or mask makes a "
                "copy, not a view)", f"write {view} = {name}[...].copy() if a copy is meant, "
                f"or write into {name} at those places")
    if not any(i is Ellipsis for i in items) and sum(1 for i in items if _integer(i)) \
            >= base.ndim:
        _refuse(where, f"{view} = {name}[...] is one number (the index takes every axis of "
                f"{name}), not a view, yet it is written by item",
                f"index {name} itself: {name}[...] = ...")
    out = []
    for n, item in zip(base.shape, _expand(items, base.ndim, where, view)):
        r = range(n)
        out.append(_as_slice(r[item]) if isinstance(item, slice) else r[operator.index(item)])
    return tuple(out)


def check_view(base, index, where):
    """:func:`view_at`'s checks, for a view read again with its index as written."""
    view_at(base, index, where)


def view_within(base, at, index, where, view=False):
    """The index into ``base`` of the elements ``index`` picks of the view ``base[at]``
    (``at`` from :func:`view_at`): integers and slices composed axis by axis; an index array,
    a mask or ``None`` pick the positions those elements have in ``base``
    (``np.unravel_index``). ``view``: the result is bound as a view itself (``w = v[J]``),
    so the index must be basic."""
    items = _items(index)
    ranges = [_as_range(a) for a in at if isinstance(a, slice)]
    if all(_basic(i) for i in items):
        return _compose_at(at, _compose(ranges, _expand(items, len(ranges), where, where[0])))
    if view:
        _refuse(where, f"{where[0]} = ...[...] is read as a view, but its index is not "
                "integers and slices when the code runs", "write ... .copy() if a copy is "
                "meant")
    positions = np.arange(base.size).reshape(base.shape)[at]
    return np.unravel_index(positions[index], base.shape)


def _compose_at(at, composed):
    """``at`` with its slices replaced by ``composed`` (ranges or integers) in turn."""
    out, k = [], 0
    for a in at:
        if isinstance(a, slice):
            c = composed[k]
            k += 1
            out.append(_as_slice(c) if isinstance(c, range) else c)
        else:
            out.append(a)
    return tuple(out)


for _check in (view_at, view_within, check_view):
    _registry.nondiff.add(_check)  # indices: no derivative


# ------------------------------------------------------------------ the rewrite

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_BLOCKS = ("body", "orelse", "finalbody")
_OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
        gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@"}
_LIST_MAKERS = frozenset({"list", "sorted"})
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove"})


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def _const(value):
    return gast.Constant(value=value, kind=None)


def _located(node, like):
    for sub in gast.walk(node):
        if getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, like)
    return node


def _walk_scope(node):
    """The nodes under ``node``, not those of nested functions and lambdas."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in gast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                todo.append(child)


def _index_items(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _plain_item(item):
    """Syntactically an integer, a slice or ``...`` (what it is is checked when it runs)."""
    if isinstance(item, gast.Slice):
        return True
    if isinstance(item, gast.Constant):
        return item.value is Ellipsis or (type(item.value) is int)
    return isinstance(item, (gast.Name, gast.BinOp, gast.UnaryOp, gast.Call, gast.Attribute,
                             gast.Subscript))


def _keeps_axes(index):
    """Whether ``y[index]`` is an array whatever ``y``'s rank: a slice or ``...`` in it."""
    return any(isinstance(i, gast.Slice) or (isinstance(i, gast.Constant) and i.value is
                                             Ellipsis) for i in _index_items(index))


def _whole(index):
    """``...``, ``:``, ``:, :``: every element of the view."""
    return all((isinstance(i, gast.Slice) and i.lower is None and i.upper is None and
                i.step is None) or (isinstance(i, gast.Constant) and i.value is Ellipsis)
               for i in _index_items(index))


def _written(stmt):
    """``(name, index)`` for a write ``name[index] = e`` / ``name[index] op= e`` (index None
    for ``name op= e``), or None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, gast.AugAssign):
        target = stmt.target
        if isinstance(target, gast.Name):
            return target.id, None
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
        return target.value.id, target.slice
    return None


class _View:
    def __init__(self, name, root, at, where, rank, index=None):
        self.name, self.root, self.at, self.where = name, root, at, where
        self.rank = rank  # the view's rank at least (0: not known)
        self.index = index  # the index as written, when it is read again as written

    def at_node(self):
        """The view's index into its base: as written, or the name holding it."""
        return copy.deepcopy(self.index) if self.index is not None else _load(self.at)


def _int_like(item):
    return not isinstance(item, gast.Slice) and not (
        isinstance(item, gast.Constant) and item.value is Ellipsis)


def _full(item):
    return isinstance(item, gast.Slice) and item.lower is None and item.upper is None and \
        item.step is None


def _constant_int(item):
    if isinstance(item, gast.UnaryOp) and isinstance(item.op, gast.USub):
        item = item.operand
    return isinstance(item, gast.Constant) and type(item.value) is int


def composed(view, write):
    """The index into the base of ``base[view][write]`` as written, when that is exact
    whatever the values are: ``A[i][j]`` is ``A[i, j]`` (the view taken by integers; a
    ``write`` item that may be an array comes before any slice in it, so NumPy places the
    picked axes where the view would), ``A[:, j][k]`` is ``A[k, j]`` (the view's axes all
    of the base's, each write item an integer constant or a slice); else None (a partial
    slice composed with an index needs the base's shape: :func:`view_within`)."""
    view, write = _index_items(view), _index_items(write)
    if any(isinstance(i, gast.Constant) and i.value in (Ellipsis, None) for i in write) or \
            any(isinstance(i, (gast.Starred, gast.Tuple, gast.List)) for i in write):
        return None
    if not all(_int_like(i) or _full(i) for i in view):
        return None
    if all(_int_like(i) for i in view):
        sliced = False
        for item in write:
            if isinstance(item, gast.Slice):
                sliced = True
            elif sliced and not _constant_int(item):
                return None
        items = list(view) + list(write)
    else:
        if not all(isinstance(i, gast.Slice) or _constant_int(i) for i in write):
            return None
        write = list(write)
        items = [write.pop(0) if _full(i) and write else i for i in view] + write
    items = [copy.deepcopy(i) for i in items]
    return items[0] if len(items) == 1 else gast.Tuple(elts=items, ctx=gast.Load())


#: NumPy functions making an array of the shape given first (a tuple display: its length)
_SHAPED = frozenset({"zeros", "ones", "empty", "full"})
#: NumPy functions whose result has their first argument's rank
_SAME_RANK = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "copy", "array",
                        "asarray", "tanh", "sin", "cos", "exp", "log", "sqrt", "abs", "where"})
_MATRICES = frozenset({"outer", "eye", "identity", "vstack", "column_stack", "atleast_2d"})


class _Views:
    def __init__(self, src):
        self.src, self.fdef = src, src.node
        names = {n.id for n in gast.walk(self.fdef) if isinstance(n, gast.Name)}
        self.fresh = fresh_names(set(names) | set(src.closure) | set(src.globals))
        args = self.fdef.args
        self.params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
        self.declared, self.nested, self.stores = set(), set(), {}
        augmented = set()
        for node in gast.walk(self.fdef):
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                self.declared.update(node.names)
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                augmented.add(id(node.target))
        for scope in gast.walk(self.fdef):
            if isinstance(scope, _SCOPES) and scope is not self.fdef:
                self.nested.update(n.id for n in gast.walk(scope) if isinstance(n, gast.Name))
        self.names = {}  # name -> its Name nodes in this scope
        for node in _walk_scope(self.fdef):
            if isinstance(node, gast.Name):
                self.names.setdefault(node.id, []).append(node)
                if isinstance(node.ctx, (gast.Store, gast.Del)) and id(node) not in augmented:
                    self.stores[node.id] = self.stores.get(node.id, 0) + 1
        self.lists = self._lists()
        self.assigned = {}  # name -> the values of its plain assignments
        for node in _walk_scope(self.fdef):
            if isinstance(node, gast.Assign):
                for t in node.targets:
                    if isinstance(t, gast.Name):
                        self.assigned.setdefault(t.id, []).append(node.value)
        self.helpers = {}
        self.done = False

    def _lists(self):
        """Names that are lists, as far as the text shows: bound to a list display or
        comprehension, ``list(...)``, ``sorted(...)``, or given list methods' calls."""
        out = set()
        for node in _walk_scope(self.fdef):
            if isinstance(node, gast.Assign):
                v = node.value
                if isinstance(v, (gast.List, gast.ListComp)) or (
                        isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and
                        v.func.id in _LIST_MAKERS):
                    out.update(t.id for t in node.targets if isinstance(t, gast.Name))
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    node.func.attr in _LIST_METHODS and isinstance(node.func.value, gast.Name):
                out.add(node.func.value.id)
        return out

    # ------------------------------------------------------------ ranks the text shows

    def rank(self, node, seen=frozenset()):
        """The least rank the array ``node`` computes may have, as far as the text shows (0
        when it does not): ``np.zeros((2, n))`` 2, ``x.reshape(3, 4)`` 2, ``np.outer(a, b)``
        2, ``A * 2.0`` that of ``A``, a name the least over its assignments."""
        if isinstance(node, gast.Name):
            if node.id in seen or node.id in self.params:
                return None if node.id in seen else 0
            values = self.assigned.get(node.id, ())
            ranks = [self.rank(v, seen | {node.id}) for v in values]
            ranks = [r for r in ranks if r is not None]
            return min(ranks) if ranks else 0
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            ranks = [self.rank(n, seen) for n in (node.left, node.right)]
            return max((r for r in ranks if r is not None), default=None)
        if isinstance(node, gast.UnaryOp):
            return self.rank(node.operand, seen)
        if isinstance(node, gast.Attribute) and node.attr in ("T", "real"):
            return self.rank(node.value, seen)
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
            return 0
        attr, owner, args = node.func.attr, node.func.value, node.args
        numpy = isinstance(owner, gast.Name) and owner.id in ("np", "numpy")
        if attr == "reshape":
            shape = args[1:] if numpy else args
            if len(shape) == 1 and isinstance(shape[0], (gast.Tuple, gast.List)):
                return len(shape[0].elts)
            return len(shape) if len(shape) > 1 or (shape and isinstance(
                shape[0], gast.Constant)) else 0
        if not numpy:
            return self.rank(owner, seen) if attr in ("copy", "astype") else 0
        if attr in _SHAPED and args:
            shape = args[0]
            return len(shape.elts) if isinstance(shape, (gast.Tuple, gast.List)) else 1 \
                if isinstance(shape, gast.Constant) else 0
        if attr in _SAME_RANK and args:
            if isinstance(args[0], gast.List):
                return self._display_rank(args[0], seen)
            return self.rank(args[0], seen) or 0
        if attr in _MATRICES:
            return 2
        if attr == "stack" and args and isinstance(args[0], (gast.List, gast.Tuple)):
            return 1 + min((self.rank(e, seen) or 0 for e in args[0].elts), default=0)
        return 0

    def _display_rank(self, node, seen):
        if isinstance(node, (gast.List, gast.Tuple)):
            return 1 + min((self._display_rank(e, seen) for e in node.elts), default=0)
        return self.rank(node, seen) or 0

    # ------------------------------------------------------------ names bound for the code

    def helper(self, obj, base):
        if base not in self.helpers:
            name = self.fresh(base)
            self.src.closure[name] = obj
            self.src.cells[name] = types.CellType(obj)
            self.src.bound = {**getattr(self.src, "bound", {}), name: obj}
            self.helpers[base] = name
        return _load(self.helpers[base])

    def constant(self, value, base):
        name = self.fresh(base)
        self.src.closure[name] = value
        self.src.cells[name] = types.CellType(value)
        self.src.bound = {**getattr(self.src, "bound", {}), name: value}
        return _load(name)

    def runtime(self, index):
        """``index`` as an expression whose value is the index (slices as ``slice(...)``)."""
        if isinstance(index, gast.Tuple):
            return gast.Tuple(elts=[self.runtime(i) for i in index.elts], ctx=gast.Load())
        if isinstance(index, gast.Slice):
            shadowed = "slice" in self.stores or "slice" in self.src.globals or \
                "slice" in self.src.closure
            func = self.helper(builtins.slice, "srcad_slice") if shadowed else _load("slice")
            return gast.Call(func=func, args=[b if b is not None else _const(None) for b in
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
        if isinstance(stmt, _SCOPES) or isinstance(stmt, gast.ClassDef):
            return [stmt]
        written = _written(stmt)
        if written is None:
            for field in _BLOCKS:
                sub = getattr(stmt, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], gast.stmt):
                    self.block(sub, dict(active))
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
        return _located(gast.Assign(
            targets=[_store(view.name)], value=gast.Subscript(
                value=_load(view.root), slice=view.at_node(), ctx=gast.Load()),
            type_comment=None), like)

    def through(self, view, index, stmt):
        """``v[W] = e`` (or ``op=``, or ``v op= e``) as writes into the view's base."""
        made = []
        line = getattr(stmt, "lineno", None)
        self.src.view_hints = {**getattr(self.src, "view_hints", {}), (line, view.root): (
            f"write {view.name} = {view.name}.copy() before changing it ({view.name} is a view "
            f"of {view.root}, and another value holds {view.root} or shares its memory), or "
            "build a new array (np.concatenate, np.where)")}
        literal = None if index is None or _whole(index) or view.index is None else \
            composed(view.index, index)
        if index is None or _whole(index):
            at = view.at_node()
        elif literal is not None:
            at = literal
        else:
            ix = self.fresh(view.name + "_ix")
            made.append(_located(gast.Assign(targets=[_store(ix)], value=gast.Call(
                func=self.helper(view_within, "view_within"), args=[
                    _load(view.root), _load(view.at), self.runtime(index),
                    _load(view.where)], keywords=[]), type_comment=None), stmt))
            at = _load(ix)
        target = gast.Subscript(value=_load(view.root), slice=at, ctx=gast.Store())
        if isinstance(stmt, gast.AugAssign):
            new = gast.AugAssign(target=target, op=stmt.op, value=stmt.value)
        else:
            new = gast.Assign(targets=[target], value=stmt.value, type_comment=None)
        made.append(_located(gast.copy_location(new, stmt), stmt))
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
        items = _index_items(index)
        if not items or not all(_plain_item(i) for i in items) or self._arrays(index):
            return None
        if v in self.params or v in self.declared or v in self.nested or \
                self.stores.get(v) != 1 or v == b:
            return None
        outer = active.get(b)
        root = outer.root if outer is not None else b
        if outer is None and (b in self.declared or b in self.nested or not self.stores.get(b)
                              or b in self.lists):  # a parameter never rebound: an argument
            return None
        region = body[k + 1:]
        inside = {id(n) for s in region for n in _walk_scope(s) if isinstance(n, gast.Name)}
        if any(id(n) not in inside for n in self.names.get(v, ()) if n is not stmt.targets[0]):
            return None  # read before it is bound, or in another block
        if not any(id(n) in inside for n in self.names.get(v, ())):
            return None  # never used: nothing to read again
        by_item, whole, allowed = False, False, set()
        nodes = [n for s in region for n in _walk_scope(s)]
        for node in nodes:
            written = _written(node) if isinstance(node, gast.stmt) else None
            if written is not None and written[0] == v:
                by_item |= written[1] is not None
                whole |= written[1] is None
                allowed.add(id(node.target if isinstance(node, gast.AugAssign) else
                               node.targets[0]))
        for node in nodes:
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    node.value.id == v and not isinstance(node.ctx, gast.Load) and \
                    id(node) not in allowed:
                return None  # a write in another form (a tuple target, del)
        ints = sum(1 for i in items if not isinstance(i, gast.Slice) and not (
            isinstance(i, gast.Constant) and i.value is Ellipsis))
        base_rank = outer.rank if outer is not None else self.rank(_load(b))
        # a view whatever the base's rank (a slice or ... in it), or of a base that has more
        # axes than the integers take
        keeps = _keeps_axes(index) or base_rank > ints
        base_written = self._base_written(
            {root, v} | {a.name for a in active.values() if a.root == root}, region)
        if not (by_item or (whole and keeps) or (keeps and base_written) or
                (outer is not None and (by_item or whole))):
            if whole:  # v op= e on v = A[i]: a number when A is 1-D (a new value), else a
                self._hint_whole(v, b, nodes)  # write into A, which the text does not show
            return None
        self._refuse_rebound(v, root, body, k, stmt)
        line = getattr(stmt, "lineno", None)
        where = self.constant((v, root, self.src.filename, line, self.src.line_text(line)),
                              v + "_where")
        if self._literal(index, region, v, root, outer):
            view = _View(v, root, None, where.id, max(base_rank - ints, 0), index)
            check = gast.Expr(value=gast.Call(func=self.helper(check_view, "check_view"), args=[
                _load(root), self.runtime(copy.deepcopy(index)), where], keywords=[]))
            active[v] = view
            self.done = True
            return [_located(check, stmt), self.reread(view, stmt)]
        at = self.fresh(v + "_at")
        view = _View(v, root, at, where.id, max(base_rank - ints, 0))
        if outer is None:
            value = gast.Call(func=self.helper(view_at, "view_at"),
                              args=[_load(root), self.runtime(index), where], keywords=[])
        else:
            value = gast.Call(func=self.helper(view_within, "view_within"), args=[
                _load(root), _load(outer.at), self.runtime(index), where, _const(True)],
                keywords=[])
        active[v] = view
        self.done = True
        return [_located(gast.Assign(targets=[_store(at)], value=value, type_comment=None),
                         stmt), self.reread(view, stmt)]

    def _literal(self, index, region, v, root, outer):
        """Whether the view is read again, and written through, with its index as written:
        a view of the base itself, no view taken of it, an index of constants and names the
        region does not bind (its value is the same wherever it is read), and every write
        through it whole or :func:`composed`."""
        if outer is not None:
            return False
        names = set()
        for node in gast.walk(index):
            if isinstance(node, gast.Name):
                names.add(node.id)
            elif not isinstance(node, (gast.Constant, gast.Slice, gast.Tuple, gast.BinOp,
                                       gast.UnaryOp, gast.operator, gast.unaryop,
                                       gast.expr_context)):
                return False
        if names & {v, root}:
            return False
        for s in region:
            for node in _walk_scope(s):
                if isinstance(node, gast.Name) and node.id in names and isinstance(
                        node.ctx, (gast.Store, gast.Del)):
                    return False
                if isinstance(node, gast.Assign) and isinstance(node.value, gast.Subscript) \
                        and isinstance(node.value.value, gast.Name) and \
                        node.value.value.id == v:
                    return False  # a view of the view: its index composes at run time
                written = _written(node) if isinstance(node, gast.stmt) else None
                if written is not None and written[0] == v and written[1] is not None and \
                        not _whole(written[1]) and composed(index, written[1]) is None:
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
                op = _OPS.get(type(node.op), "+")
                hints[(node.lineno, v)] = (
                    f"write {v}[...] {op}= ... to change {b} through the view (srcad reads it "
                    f"as a write into {b}; {v} = {b}[...] taken by integers may be a number, "
                    f"whose {op}= makes a new value), or {v} = {v}.copy() first if {b} should "
                    "keep its values")
        self.src.view_hints = hints

    def _arrays(self, index):
        """Whether a name in ``index`` is bound to what the text shows is a list or an array
        (a list display, ``np.array(...)``, a comparison): ``y[idx]`` is then a copy."""
        for node in gast.walk(index):
            if isinstance(node, gast.Name):
                for value in self.assigned.get(node.id, ()):
                    if isinstance(value, (gast.List, gast.ListComp, gast.Compare, gast.Tuple)) \
                            or (isinstance(value, gast.Call) and isinstance(
                                value.func, gast.Attribute) and isinstance(
                                value.func.value, gast.Name) and value.func.value.id in (
                                    "np", "numpy")):
                        return True
        return False

    def _base_written(self, viewed, region):
        """Whether ``region`` writes into one of ``viewed`` (the base, its views) or into a
        view taken of them there."""
        viewed = set(viewed)
        for s in region:
            for node in _walk_scope(s):
                if isinstance(node, gast.Assign) and isinstance(node.value, gast.Subscript) \
                        and isinstance(node.value.value, gast.Name) and \
                        node.value.value.id in viewed:
                    viewed.update(t.id for t in node.targets if isinstance(t, gast.Name))
        for s in region:
            for node in _walk_scope(s):
                if isinstance(node, gast.stmt):
                    written = _written(node)
                    if written is not None and written[0] in viewed:
                        return True
        return False

    def _refuse_rebound(self, v, root, body, k, stmt):
        """A base rebound while the view is still used: Python's view keeps the old array."""
        last = max(j for j in range(k + 1, len(body)) if any(
            isinstance(n, gast.Name) and n.id == v for n in _walk_scope(body[j])))
        for j in range(k + 1, last + 1):
            s = body[j]
            compound = any(isinstance(getattr(s, f, None), list) and getattr(s, f) for f in
                           _BLOCKS)
            if j == last and not compound:
                break
            for node in _walk_scope(s):
                if isinstance(node, gast.Name) and node.id == root and isinstance(
                        node.ctx, gast.Store) and not (isinstance(s, gast.AugAssign) and
                                                       s.target is node):
                    line = getattr(node, "lineno", None) or getattr(s, "lineno", None)
                    if any(isinstance(a, gast.AugAssign) and a.target is node
                           for a in _walk_scope(s)):
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
    for node in gast.walk(src.node):
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
        for stmt in gast.walk(src.node):
            written = _written(stmt) if isinstance(stmt, gast.stmt) else None
            if written is not None and written[0] == v:
                hints[(stmt.lineno, v)] = hint
    if hints:
        src.view_hints = {**getattr(src, "view_hints", {}), **hints}


def lower(src):
    """Rewrite the writes through views of ``src`` (a :class:`.source.Source`) in place."""
    _hints(src)
    if not any(isinstance(n, (gast.Subscript, gast.AugAssign)) and not isinstance(
            getattr(n, "ctx", gast.Load()), gast.Load) or isinstance(n, gast.AugAssign)
            for n in gast.walk(src.node)):
        return
    views = _Views(src)
    views.block(src.node.body, {})
