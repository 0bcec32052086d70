"""What the text of a function shows about the names :mod:`.views` may read as views: the
parsed-tree helpers it shares, :func:`composed` (the index into the base of ``base[view][write]``
as written, when that is exact), and :class:`Text`, the facts of one function (parameters,
names bound once, names nested functions read, names the text shows are lists, the least rank
of an array as far as the text shows, whether a region writes into a base).

Imports gast only.
"""

from __future__ import annotations

import copy

import gast

from ..core.walk import walk_nodes

SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
BLOCKS = ("body", "orelse", "finalbody")
OPS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
        gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@"}
_LIST_MAKERS = frozenset({"list", "sorted"})
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "remove"})


def load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def const(value):
    return gast.Constant(value=value, kind=None)


def located(node, like):
    for sub in walk_nodes(node):
        if getattr(sub, "lineno", None) is None:
            gast.copy_location(sub, like)
    return node


def walk_scope(node):
    """The nodes under ``node``, not those of nested functions and lambdas."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in gast.iter_child_nodes(n):
            if not isinstance(child, SCOPES):
                todo.append(child)


def index_items(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def plain_item(item):
    """Syntactically an integer, a slice or ``...`` (what it is is checked when it runs)."""
    if isinstance(item, gast.Slice):
        return True
    if isinstance(item, gast.Constant):  # (None: a new axis of length one)
        return item.value in (Ellipsis, None) or (type(item.value) is int)
    return isinstance(item, (gast.Name, gast.BinOp, gast.UnaryOp, gast.Call, gast.Attribute,
                             gast.Subscript))


def keeps_axes(index):
    """Whether ``y[index]`` is an array whatever ``y``'s rank: a slice, ``...`` or ``None``
    in it."""
    return any(isinstance(i, gast.Slice) or (isinstance(i, gast.Constant) and i.value in (
        Ellipsis, None)) for i in index_items(index))


def whole_index(index):
    """``...``, ``:``, ``:, :``: every element of the view."""
    return all((isinstance(i, gast.Slice) and i.lower is None and i.upper is None and
                i.step is None) or (isinstance(i, gast.Constant) and i.value is Ellipsis)
               for i in index_items(index))


def write_of(stmt):
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


#: NumPy calls that write into their first argument (:mod:`.writes` reads them as writes)
_FIRST_WRITTEN = frozenset({"copyto", "fill_diagonal"})


def call_write(stmt):
    """``(name, how)`` for a NumPy call on its own line that writes into the array ``name``:
    ``np.f(..., out=name)`` (how ``"out"``: only that keyword), ``np.copyto(name, ...)``,
    ``np.fill_diagonal(name, ...)``, ``np.add.at(name, ...)`` (how ``"call"``); else None.
    :mod:`.writes` reads each as a write into ``name``."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return None
    call = stmt.value
    func, owner = call.func, call.func
    while isinstance(owner, gast.Attribute):
        owner = owner.value
    if not (isinstance(func, gast.Attribute) and isinstance(owner, gast.Name) and
            owner.id in ("np", "numpy")):
        return None
    outs = [k for k in call.keywords if k.arg == "out"]
    if outs:
        value = outs[0].value
        if isinstance(value, gast.Name):
            return value.id, "out" if len(call.keywords) == 1 else "call"
        return None
    if (func.attr in _FIRST_WRITTEN or (func.attr == "at" and isinstance(
            func.value, gast.Attribute) and func.value.attr == "add")) and call.args and \
            isinstance(call.args[0], gast.Name):
        return call.args[0].id, "call"
    return None


def composed(view, write, integer):
    """The index into the base of ``base[view][write]`` as written, when that is exact
    whatever the values are: every item an integer (``integer(item)``: certainly one, as the
    text shows; a name may hold a tuple or an array, which index otherwise) or a slice, the
    view's slices whole: ``A[i][j]`` is ``A[i, j]``, ``A[:, j][k]`` is ``A[k, j]``,
    ``A[:, j][1:]`` is ``A[1:, j]``; else None (:func:`.view_indices.view_within` composes
    them when the code runs)."""
    view, write = index_items(view), index_items(write)
    if not all(_full(i) or (_int_like(i) and integer(i)) for i in view) or not all(
            isinstance(i, gast.Slice) or (_int_like(i) and integer(i)) for i in write):
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


class Text:
    """The facts of ``src``'s function that the rewrite reads."""

    def __init__(self, src):
        self.src, self.fdef = src, src.node
        args = self.fdef.args
        self.params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
        self.declared, self.nested, self.stores = set(), set(), {}
        augmented = set()
        for node in walk_nodes(self.fdef):
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                self.declared.update(node.names)
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                augmented.add(id(node.target))
        for scope in walk_nodes(self.fdef):
            if isinstance(scope, SCOPES) and scope is not self.fdef:
                self.nested.update(n.id for n in walk_nodes(scope) if isinstance(n, gast.Name))
        self.names = {}  # name -> its Name nodes in this scope
        for node in walk_scope(self.fdef):
            if isinstance(node, gast.Name):
                self.names.setdefault(node.id, []).append(node)
                if isinstance(node.ctx, (gast.Store, gast.Del)) and id(node) not in augmented:
                    self.stores[node.id] = self.stores.get(node.id, 0) + 1
        self.lists = self._lists()
        self.bindings = {}  # name -> what each binding binds it to (None: not known here)
        for node in walk_scope(self.fdef):
            if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                ranged = isinstance(node.iter, gast.Call) and isinstance(
                    node.iter.func, gast.Name) and node.iter.func.id == "range" and \
                    "range" not in self.stores and "range" not in self.src.globals
                self.bindings.setdefault(node.target.id, []).append(
                    gast.Constant(value=0, kind=None) if ranged else None)
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                self.bindings.setdefault(node.target.id, []).append(gast.BinOp(
                    left=node.target, op=node.op, right=node.value))
        for node in walk_scope(self.fdef):
            if isinstance(node, gast.Assign):
                for t in node.targets:
                    if isinstance(t, gast.Name):
                        self.bindings.setdefault(t.id, []).append(node.value)
                    else:  # a, b = ...: not known here
                        for n in walk_nodes(t):
                            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                                self.bindings.setdefault(n.id, []).append(None)
            elif isinstance(node, (gast.NamedExpr, gast.comprehension, gast.With,
                                   gast.AnnAssign, gast.Delete)):
                for n in walk_nodes(node.target if hasattr(node, "target") else node):
                    if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                        self.bindings.setdefault(n.id, []).append(None)
            elif isinstance(node, gast.For) and not isinstance(node.target, gast.Name):
                for n in walk_nodes(node.target):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        self.bindings.setdefault(n.id, []).append(None)
        self.assigned = {}  # name -> the values of its plain assignments
        for node in walk_scope(self.fdef):
            if isinstance(node, gast.Assign):
                for t in node.targets:
                    if isinstance(t, gast.Name):
                        self.assigned.setdefault(t.id, []).append(node.value)

    def _lists(self):
        """Names that are lists, as far as the text shows: bound to a list display or
        comprehension, ``list(...)``, ``sorted(...)``, or given list methods' calls."""
        out = set()
        for node in walk_scope(self.fdef):
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

    def integer(self, node, seen=frozenset()):
        """Whether ``node`` is certainly an integer, as the text shows: an int constant, a
        ``len(...)``, a name every binding of which is a ``for`` over ``range(...)`` or such
        an expression, arithmetic of those (not a parameter: it may be a tuple or an array)."""
        if isinstance(node, gast.Constant):
            return type(node.value) is int
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, (gast.USub, gast.UAdd)) and self.integer(node.operand,
                                                                                 seen)
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv,
                                        gast.Mod)) and self.integer(node.left, seen) and \
                self.integer(node.right, seen)
        if isinstance(node, gast.Call):
            return isinstance(node.func, gast.Name) and node.func.id == "len" and \
                "len" not in self.stores and "len" not in self.src.globals
        if not isinstance(node, gast.Name) or node.id in self.params or node.id in \
                self.declared:
            return False
        if node.id in seen:
            return True  # i = i + 1: an integer if its other bindings are
        bindings = self.bindings.get(node.id, ())
        return bool(bindings) and all(
            value is not None and self.integer(value, seen | {node.id}) for value in bindings)

    def arrays(self, index):
        """Whether a name in ``index`` is bound to what the text shows is a list or an array
        (a list display, ``np.array(...)``, a comparison): ``y[idx]`` is then a copy."""
        for node in walk_nodes(index):
            if isinstance(node, gast.Name):
                for value in self.assigned.get(node.id, ()):
                    if isinstance(value, (gast.List, gast.ListComp, gast.Compare, gast.Tuple)) \
                            or (isinstance(value, gast.Call) and isinstance(
                                value.func, gast.Attribute) and isinstance(
                                value.func.value, gast.Name) and value.func.value.id in (
                                    "np", "numpy")):
                        return True
        return False

    def base_written(self, viewed, region):
        """Whether ``region`` writes into one of ``viewed`` (the base, its views) or into a
        view taken of them there."""
        viewed = set(viewed)
        for s in region:
            for node in walk_scope(s):
                if isinstance(node, gast.Assign) and isinstance(node.value, gast.Subscript) \
                        and isinstance(node.value.value, gast.Name) and \
                        node.value.value.id in viewed:
                    viewed.update(t.id for t in node.targets if isinstance(t, gast.Name))
        for s in region:
            for node in walk_scope(s):
                if isinstance(node, gast.stmt):
                    written = write_of(node) or call_write(node)
                    if written is not None and written[0] in viewed:
                        return True
        return False
