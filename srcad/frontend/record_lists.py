"""Lists of records built in the function (issue 16): ``layers.append(Layer(W[i], b[i]))``.

A list the function fills with records of one class whose fields are the constructor's
arguments (:func:`.built_records.record_fields`: a dataclass, a named tuple, a plain class
built as one; or a plain class built by its ``__init__``: the item taken apart after it is
built, ``c = Gauss(m, s); L_mu.append(c.mu)``, and rebuilt with :func:`made_of`) and then
reads item by item is, before :mod:`.lower_records`, a list per field
(structure of arrays; exact, nothing is approximated)::

    layers = []                              layers_W, layers_b = [], []
    for i in range(n):                       for i in range(n):
        layers.append(Layer(W[i], b[i]))         layers_W.append(W[i]); layers_b.append(b[i])
    for layer in layers:                     for layer_W, layer_b in zip(layers_W, layers_b):
        x = layer(x)                             layer = Layer(W=layer_W, b=layer_b)
                                                 x = layer(x)

so the item is a record built in the function again, read field by field
(:mod:`.lower_records`: ``layer(x)`` is the copy of ``Layer.__call__`` taking ``layer_W,
layer_b``). Also ``layer = layers[k]`` (``k`` a name or a constant) and ``len(layers)``. Only
when the list is bound once, at the top level, to ``[]`` (a list comprehension building the
records is first made the loop of appends it is: :func:`_as_loops`), and every other use of
it is one of those (one class throughout; an append's arguments in the order of the fields
or free of calls, so that they run in the order they did; no attribute written of a name an
item is taken into: the write would have to change the list's object). Any other list is
left as it is (a record built from differentiated values in it stays refused at its line).

Also read item by item: ``for`` over ``reversed(L)``, ``enumerate(L)``, ``zip(L, ys)`` or
a constant slice; ``L[k]`` inside an expression (taken into a name just before its
statement); a comprehension over ``L`` evaluated first in its statement (a ``for`` loop
building the list just before it); a list written of records (``[C(a), C(b)]``, made the
appends it is); a field every record gives the same function named there (``act=np.tanh``)
is not a list of its own but that function where an item is rebuilt.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.built_records`,
:mod:`.plain_classes`, :mod:`.function_fields`, :mod:`.iterators_passed` and
:mod:`.plain_lists` (``made_of``, ``stores_of``).
"""

from __future__ import annotations

import copy
import types

import gast

from ..core.walk import walk_nodes
from ..errors import MissingRuleError
from . import function_fields, held_items, plain_classes
from .built_records import bind_fields, record_fields, resolve_any
from .iterators_passed import fixed_function
from .plain_lists import made_of, stores_of  # (made_of: an item rebuilt, lower_records)

_PURE = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Subscript, gast.Slice,
         gast.Attribute, gast.Tuple, gast.operator, gast.unaryop, gast.expr_context)


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _pure(node, src=None):
    """Whether ``node`` reads names, items and attributes, with arithmetic and ``len(...)``
    (evaluating it once more, or in another order, changes nothing)."""
    for n in walk_nodes(node):
        if isinstance(n, gast.Call) and src is not None and not n.keywords and \
                resolve_any(src, n.func) is len:
            continue
        if not isinstance(n, _PURE):
            return False
    return True


def prepare(src, fdef):
    """Rewrite, in place, each list of records read so (see above)."""
    from .passed_calls import bound_names

    local = bound_names(fdef)
    parents = {child: node for node in walk_nodes(fdef) for child in gast.iter_child_nodes(node)}
    stores = stores_of(fdef)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    fdef.body = [new for stmt in fdef.body for new in (
        _as_loops(src, stmt, local, taken) if isinstance(stmt, gast.Assign) and
        len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and
        len(stores.get(stmt.targets[0].id, ())) == 1 else [stmt])]
    parents = {child: node for node in walk_nodes(fdef) for child in gast.iter_child_nodes(node)}
    for stmt in list(fdef.body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                len(stores.get(stmt.targets[0].id, ())) == 1:
            _List(src, fdef, stmt, local, parents, taken).run()


class _List:
    def __init__(self, src, fdef, stmt, local, parents, taken):
        self.src, self.fdef, self.stmt, self.local = src, fdef, stmt, local
        self.parents, self.taken = parents, taken
        self.name, self.cls, self.general = stmt.targets[0].id, None, False
        self.held = None  # fields holding one function in every item (see functions)
        self.written = set()  # see run (a walk of the function, only for a list made empty)

    def fresh(self, base):
        while base in self.taken:
            base += "_"
        self.taken.add(base)
        return base

    def record(self, node):
        """``[(field, value)]`` when ``node`` builds a record of the list's one class (and
        :meth:`functions` notes the fields it gives a function named there)."""
        bound = self._record(node)
        if bound is not None:
            self.functions(node, bound)
        return bound

    def functions(self, node, bound):
        """Keep in ``self.held`` (field -> (expression, function)) the fields every item
        built so far gives one function, the same, named where it is built (``act=np.tanh``,
        a default, a function a class holds: :mod:`.function_fields`): not a list per field,
        the expression itself where an item is rebuilt, so that its calls are made for it."""
        found = {}
        given = {k.arg: k.value for k in node.keywords} if self.general and \
            resolve_any(self.src, node.func, self.local) is made_of else None
        if given is not None:
            pairs = given.items()
        elif self.general:
            plain = plain_classes.describe(self.cls)
            hold = function_fields.holder(self.src, self.taken)
            pairs = [*function_fields.at_construction(self.src, plain, node, self.local, hold)
                     .items(), *held_items.given_lists(self, plain, node)]
        else:
            pairs = bound
        for field, value in pairs:
            if isinstance(value, (gast.Name, gast.Attribute)):
                fn = resolve_any(self.src, value, self.local)
                if fixed_function(fn):
                    found[field] = (value, fn)
                elif self.general or given is None:  # nets.append(Net(w, self.acts))
                    found.update(held_items.found(self, node, field, value))
        if self.held is None:
            self.held = found
        else:
            self.held = {f: v for f, v in self.held.items()
                         if f in found and found[f][1] is v[1]}

    def _record(self, node):
        if not isinstance(node, gast.Call):
            return None
        cls = resolve_any(self.src, node.func, self.local)
        if cls is made_of and len(node.args) == 1 and node.keywords:  # an item rebuilt
            cls = resolve_any(self.src, node.args[0], self.local)
            fields = plain_classes.fields_of(cls) if plain_classes.user_class(cls) else None
            if self.cls not in (None, cls) or not fields or \
                    sorted(k.arg for k in node.keywords) != sorted(fields):
                return None
            self.cls, self.func, self.general = cls, node.args[0], True
            return [(f, None) for f in fields]
        facts = record_fields(cls)
        if self.cls not in (None, cls):
            return None
        if facts is None and plain_classes.user_class(cls) and plain_classes.fields_of(cls):
            self.cls, self.func, self.general = cls, node.func, True  # built by its __init__
            return [(f, None) for f in plain_classes.fields_of(cls)]
        if facts is None or not facts[0]:
            return None
        bound = bind_fields(node, *facts[:2])
        if bound is None:
            return None
        given = node.args + [k.value for k in node.keywords]
        order = [next(i for i, (_, v) in enumerate(bound) if v is g) for g in given]
        if order != sorted(order) and not all(_pure(v) for _, v in bound):
            return None
        self.cls, self.func = cls, node.func
        return bound

    def run(self):
        value, uses = self.stmt.value, []
        if not isinstance(value, gast.List) or value.elts:
            return
        # names whose attributes the function writes: an item taken into one is not
        # rebuilt from the lists (a write to it would have to change the list's object)
        self.written = {n.value.id for n in walk_nodes(self.fdef) if isinstance(
            n, gast.Attribute) and not isinstance(n.ctx, gast.Load) and isinstance(
            n.value, gast.Name)}
        for node in walk_nodes(self.fdef):
            if isinstance(node, gast.Name) and node.id == self.name and \
                    isinstance(node.ctx, gast.Load):
                use = self.use(node)
                if use is None:
                    self.refuse(node)
                    return
                uses.append(use)
        if self.cls is None:
            return
        fields = [f for f in _fields(self.cls) if f not in (self.held or {})]
        if not fields:
            return
        lists = {f: self.fresh(f"{self.name}_{f}") for f in fields}
        self.stmt.targets = [gast.Tuple(elts=[_name(lists[f], gast.Store()) for f in fields],
                                        ctx=gast.Store())]
        self.stmt.value = gast.Tuple(elts=[gast.List(elts=[], ctx=gast.Load())
                                           for _ in fields], ctx=gast.Load())
        for use in uses:
            use(lists)
        held_items.apply(self)  # check_items(self.acts, (f, g)) where each item is built
        for node in walk_nodes(self.stmt):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, self.stmt)

    def refuse(self, node):
        """Keep, for the lines appending a record to the list, why it is not read so
        (``src.record_refusals``: the error if a record there is differentiated)."""
        line = getattr(node, "lineno", None)
        exc = MissingRuleError(
            f"the list {self.name!r} of objects built from differentiated values is used in "
            "a way srcad does not follow item by item (it follows L.append(C(...)) as a "
            "statement, for x in L: as a for statement, x = L[k] and len(L), L bound once "
            "to [] or a list comprehension over range)", filename=self.src.filename,
            lineno=line, construct=self.src.line_text(line),
            hint=f"loop over it with a for statement (for item in {self.name}: ...), take an "
                 f"item into a name first (item = {self.name}[k]), or keep the values in "
                 "lists of their own (ws.append(w)) and build the object where it is used")
        refusals = self.src.__dict__.setdefault("record_refusals", {})
        for n in walk_nodes(self.fdef):
            if isinstance(n, gast.Attribute) and n.attr == "append" and isinstance(
                    n.value, gast.Name) and n.value.id == self.name and hasattr(n, "lineno"):
                refusals.setdefault(n.lineno, exc)

    # ------------------------------------------------------------------ uses

    def use(self, node):
        """A function rewriting the use ``node`` of the list (given the lists' names), or
        None when the use is not one read so."""
        parent = self.parents.get(node)
        grand = self.parents.get(parent)
        if isinstance(parent, gast.Attribute) and parent.attr == "append" and \
                isinstance(grand, gast.Call) and grand.func is parent and \
                len(grand.args) == 1 and not grand.keywords and \
                isinstance(self.parents.get(grand), gast.Expr):
            bound = self.record(grand.args[0])
            return None if bound is None else lambda lists: self.append(
                self.parents[grand], bound, lists)
        if isinstance(parent, gast.For) and parent.iter is node and \
                isinstance(parent.target, gast.Name) and parent.target.id not in self.written:
            return lambda lists: self.loop(parent, lists)
        found = _wrapped_loop(self, node)
        if found is not None:
            return found
        if isinstance(parent, gast.comprehension) and parent.iter is node:
            return _comprehension(self, parent)
        if isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                parent.func.id == "len" and parent.args == [node] and not parent.keywords:
            return lambda lists: setattr(parent, "args", [gast.copy_location(
                _name(next(iter(lists.values()))), node)])
        if isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(grand, gast.Assign) and grand.value is parent and \
                len(grand.targets) == 1 and isinstance(grand.targets[0], gast.Name) and \
                grand.targets[0].id not in self.written and \
                isinstance(parent.slice, (gast.Name, gast.Constant, gast.UnaryOp)) and \
                _pure(parent.slice):
            return lambda lists: self.item(grand, parent, lists)
        if isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, gast.Load) and \
                isinstance(parent.slice, (gast.Name, gast.Constant, gast.UnaryOp)) and \
                _pure(parent.slice):
            return _hoisted(self, parent)
        return None

    def append(self, expr, bound, lists):
        """``L.append(C(a, b))`` -> ``L_w.append(a); L_b.append(b)`` in its place (a class
        built by its ``__init__``: ``c = C(a, b); L_w.append(c.w); ...``)."""
        holder = self.parents[expr]
        made = []
        if self.general:
            item = self.fresh(f"{self.cls.__name__.lower()}_item")
            made = [gast.copy_location(gast.Assign(targets=[_name(item, gast.Store())],
                                                   value=expr.value.args[0],
                                                   type_comment=None), expr)]
            bound = [(f, gast.Attribute(value=_name(item), attr=f, ctx=gast.Load()))
                     for f, _ in bound]
        for _, body in gast.iter_fields(holder):
            if isinstance(body, list) and expr in body:
                k = body.index(expr)
                bound = [(f, v) for f, v in bound if f in lists]
                body[k:k + 1] = made + [gast.copy_location(gast.Expr(value=gast.Call(
                    func=gast.Attribute(value=_name(lists[f]), attr="append",
                                        ctx=gast.Load()), args=[v], keywords=[])), expr)
                    for f, v in bound]
                for node in body[k:k + len(made) + len(bound)]:
                    for sub in walk_nodes(node):
                        if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                            gast.copy_location(sub, expr)
                return

    def constructed(self, values):
        """``C(f=v, ...)`` of the list's class, named as the function names it (a class built
        by its ``__init__``: ``made_of(C, f=v, ...)``, the object of those fields)."""
        keywords = [gast.keyword(arg=f, value=v) for f, v in values] + [
            gast.keyword(arg=f, value=copy.deepcopy(expr))
            for f, (expr, _) in (self.held or {}).items()]  # act=np.tanh: as written
        if not self.general:
            return gast.Call(func=copy.deepcopy(self.func), args=[], keywords=keywords)
        name = "srcad_made_of"
        if self.src.closure.get(name, made_of) is not made_of:
            name = self.fresh(name)
        self.src.closure[name] = made_of
        self.src.cells[name] = types.CellType(made_of)
        self.src.bound = {**getattr(self.src, "bound", {}), name: made_of}
        return gast.Call(func=_name(name), args=[copy.deepcopy(self.func)], keywords=keywords)

    def loop(self, loop, lists):
        """``for l in L:`` -> ``for l_w, l_b in zip(L_w, L_b): l = C(w=l_w, b=l_b)``."""
        target, fields = loop.target.id, list(lists)
        leaves = {f: self.fresh(f"{target}_{f}") for f in fields}
        if len(fields) == 1:
            loop.target = gast.copy_location(_name(leaves[fields[0]], gast.Store()), loop.target)
            loop.iter = gast.copy_location(_name(lists[fields[0]]), loop.iter)
        else:
            loop.target = gast.copy_location(gast.Tuple(elts=[
                _name(leaves[f], gast.Store()) for f in fields], ctx=gast.Store()), loop.target)
            loop.iter = gast.copy_location(gast.Call(func=_name("zip"), args=[
                _name(lists[f]) for f in fields], keywords=[]), loop.iter)
        rebuilt = gast.Assign(targets=[_name(target, gast.Store())], value=self.constructed(
            [(f, _name(leaves[f])) for f in fields]), type_comment=None)
        loop.body.insert(0, rebuilt)
        for node in walk_nodes(loop):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, loop)

    def item(self, assign, subscript, lists):
        """``l = L[k]`` -> ``l = C(w=L_w[k], b=L_b[k])``."""
        assign.value = gast.copy_location(self.constructed([
            (f, gast.Subscript(value=_name(name), slice=copy.deepcopy(subscript.slice),
                               ctx=gast.Load())) for f, name in lists.items()]), subscript)
        for node in walk_nodes(assign):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, assign)


def _fields(cls):
    facts = record_fields(cls)
    return facts[0] if facts is not None else plain_classes.fields_of(cls)


def _as_loops(src, stmt, local, taken):
    """``L = [C(a, b) for t in xs if c]`` (``C`` a record class) -> ``L = []`` then ``for t_ in
    xs: if c: L.append(C(a, b))``, the comprehension's names given fresh names (they are its
    own), so that the appends are read as any; ``L = [C(a), C(b)]`` -> ``L = []`` then the
    appends in order; ``[stmt]`` otherwise."""
    comp = stmt.value
    if isinstance(comp, gast.List) and comp.elts and all(
            isinstance(e, gast.Call) and _fields(resolve_any(src, e.func, local))
            for e in comp.elts):  # [C(a), C(b)]: L = [] then L.append(C(a)), in order
        name = stmt.targets[0].id
        stmt.value = gast.List(elts=[], ctx=gast.Load())
        out = [stmt] + [gast.Expr(value=gast.Call(func=gast.Attribute(
            value=_name(name), attr="append", ctx=gast.Load()), args=[e], keywords=[]))
            for e in comp.elts]
        for node in out:
            for sub in walk_nodes(node):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    gast.copy_location(sub, stmt)
        return out
    if not isinstance(comp, gast.ListComp) or any(g.is_async for g in comp.generators) or \
            not isinstance(comp.elt, gast.Call) or \
            not _fields(resolve_any(src, comp.elt.func, local)):
        return [stmt]
    own = {n.id for g in comp.generators for n in walk_nodes(g.target) if isinstance(n, gast.Name)}
    inner = [n for part in [comp.elt] + [g for g in comp.generators] for n in walk_nodes(part)
             if isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                               gast.GeneratorExp, gast.NamedExpr))]
    if inner:
        return [stmt]
    fresh = {}
    for name in sorted(own):
        new = f"{name}_"
        while new in taken:
            new += "_"
        taken.add(new)
        fresh[name] = new
    first_iter = comp.generators[0].iter
    for node in walk_nodes(gast.Tuple(elts=[comp.elt] + [g.target for g in comp.generators] +
                                     [c for g in comp.generators for c in g.ifs] +
                                     [g.iter for g in comp.generators[1:]], ctx=gast.Load())):
        if isinstance(node, gast.Name) and node.id in fresh:
            node.id = fresh[node.id]
    name = stmt.targets[0].id
    body = [gast.Expr(value=gast.Call(func=gast.Attribute(
        value=_name(name), attr="append", ctx=gast.Load()), args=[comp.elt], keywords=[]))]
    for g in reversed(comp.generators):
        for cond in reversed(g.ifs):
            body = [gast.If(test=cond, body=body, orelse=[])]
        body = [gast.For(target=g.target, iter=g.iter if g is not comp.generators[0]
                         else first_iter, body=body, orelse=[], type_comment=None)]
    stmt.value = gast.List(elts=[], ctx=gast.Load())
    out = [stmt] + body
    for node in out:
        for sub in walk_nodes(node):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, stmt)
    return out


# L[k] read in an expression: taken into a name of its own just before its statement

def _hoisted(lst, subscript):
    """``... L[k].f(x) ...`` -> ``item = L[k]`` then ``... item.f(x) ...`` when the
    statement evaluates the expression once, where it stands (an assignment, a return,
    an expression statement, an ``if``'s test, a ``for``'s iterable; not in a nested
    scope or a comprehension, nor after a call or a named expression of the statement
    that could change ``k``), else None."""
    stmt, node = None, subscript
    while True:
        up = lst.parents.get(node)
        if up is None or isinstance(up, (gast.Lambda, gast.ListComp, gast.SetComp,
                                         gast.DictComp, gast.GeneratorExp,
                                         gast.IfExp, gast.BoolOp)):
            return None
        if isinstance(up, gast.stmt):
            stmt = up
            break
        node = up
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return,
                         gast.Expr)):
        pass
    elif isinstance(stmt, gast.If) and stmt.test is node or \
            isinstance(stmt, gast.For) and stmt.iter is node:
        pass
    else:
        return None
    if any(isinstance(n, gast.NamedExpr) for n in walk_nodes(stmt)):
        return None
    holder = lst.parents.get(stmt)
    body = next((v for _, v in gast.iter_fields(holder) if isinstance(v, list) and
                 stmt in v), None) if holder is not None else None
    if body is None:
        return None

    def rewrite(lists):
        item = lst.fresh(f"{lst.name}_item")
        assign = gast.copy_location(gast.Assign(
            targets=[_name(item, gast.Store())], value=subscript, type_comment=None),
            stmt)
        parent = lst.parents[subscript]
        for field, value in gast.iter_fields(parent):
            if value is subscript:
                setattr(parent, field, gast.copy_location(_name(item), subscript))
            elif isinstance(value, list) and subscript in value:
                value[value.index(subscript)] = gast.copy_location(_name(item), subscript)
        body.insert(body.index(stmt), assign)
        lst.item(assign, subscript, lists)

    return rewrite

# for l in reversed(L) / enumerate(L) / zip(L, ys) / L[1:]

def _wrapped_loop(lst, node):
    """A rewrite of a ``for`` whose iterable holds ``node`` (the list) as the argument of
    ``reversed``, ``enumerate`` or ``zip``, or sliced by constants (any nesting of
    those), the loop's target binding its item to a name; else None."""
    path, cur = [], node
    while True:
        up = lst.parents.get(cur)
        if isinstance(up, gast.Subscript) and up.value is cur and \
                isinstance(up.slice, gast.Slice) and isinstance(up.ctx, gast.Load) and \
                all(part is None or isinstance(part, gast.Constant) or (
                    isinstance(part, gast.UnaryOp) and
                    isinstance(part.operand, gast.Constant))
                    for part in (up.slice.lower, up.slice.upper, up.slice.step)) and \
                not path:
            path.append(("slice", up))
        elif isinstance(up, gast.Call) and isinstance(up.func, gast.Name) and \
                up.func.id in ("reversed", "enumerate", "zip") and \
                up.func.id not in lst.local and cur in up.args and \
                not any(isinstance(a, gast.Starred) for a in up.args) and \
                all(k.arg == "start" for k in up.keywords) and \
                (up.func.id != "enumerate" or up.args[0] is cur) and \
                (up.func.id != "reversed" or len(up.args) == 1):
            path.append((up.func.id, up))
        elif isinstance(up, gast.For) and up.iter is cur and path:
            break
        else:
            return None
        cur = up
    loop, target = up, up.target
    for j in reversed(range(len(path))):  # from the loop's target down to the item
        kind, call = path[j]
        if kind == "enumerate":
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
                return None
            target = target.elts[1]
        elif kind == "zip":
            child = node if j == 0 else path[j - 1][1]
            k = next(i for i, a in enumerate(call.args) if a is child)
            if not (isinstance(target, gast.Tuple) and
                    len(target.elts) == len(call.args)):
                return None
            target = target.elts[k]
    if not isinstance(target, gast.Name) or target.id in lst.written:
        return None
    inner = path[0][1] if path[0][0] == "slice" else None

    def rewrite(lists):
        fields = list(lists)
        leaves = {f: lst.fresh(f"{target.id}_{f}") for f in fields}

        def column(f):
            col = _name(lists[f])
            if inner is not None:
                col = gast.Subscript(value=col, slice=copy.deepcopy(inner.slice),
                                     ctx=gast.Load())
            return col

        items = column(fields[0]) if len(fields) == 1 else gast.Call(
            func=_name("zip"), args=[column(f) for f in fields], keywords=[])
        replaced = inner if inner is not None else node
        holder = lst.parents[replaced]
        for field, value in gast.iter_fields(holder):
            if value is replaced:
                setattr(holder, field, gast.copy_location(items, replaced))
            elif isinstance(value, list) and replaced in value:
                value[value.index(replaced)] = gast.copy_location(items, replaced)
        parent = lst.parents[target]
        new = _name(leaves[fields[0]], gast.Store()) if len(fields) == 1 else gast.Tuple(
            elts=[_name(leaves[f], gast.Store()) for f in fields], ctx=gast.Store())
        if isinstance(parent, gast.Tuple):
            parent.elts[parent.elts.index(target)] = gast.copy_location(new, target)
        else:
            loop.target = gast.copy_location(new, target)
        rebuilt = gast.Assign(targets=[_name(target.id, gast.Store())],
                              value=lst.constructed([(f, _name(leaves[f]))
                                                      for f in fields]), type_comment=None)
        loop.body.insert(0, rebuilt)
        for sub in walk_nodes(loop):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, loop)

    return rewrite


_CONSUMERS = ("sum", "list", "tuple", "max", "min")


def _comprehension(lst, gen):
    """``[f(l) for l in L if c]`` (or ``sum(f(l) for l in L)``, a generator expression given
    to ``sum``, ``list``, ``tuple``, ``max``, ``min``) evaluated first in its statement
    (:func:`.inline_objects.evaluated_first`): a list built by a ``for`` statement just
    before it (``l`` given a fresh name: the comprehension's own), read so; else None."""
    from .inline_objects import evaluated_first

    comp = lst.parents.get(gen)
    if not isinstance(comp, (gast.ListComp, gast.GeneratorExp)) or len(comp.generators) != 1 \
            or gen.is_async or not isinstance(gen.target, gast.Name) or \
            gen.target.id in lst.written:
        return None
    if isinstance(comp, gast.GeneratorExp):
        call = lst.parents.get(comp)
        if not (isinstance(call, gast.Call) and call.args == [comp] and not call.keywords and
                isinstance(call.func, gast.Name) and call.func.id in _CONSUMERS and
                call.func.id not in lst.local):
            return None
    stmt = comp
    while stmt is not None and not isinstance(stmt, gast.stmt):
        stmt = lst.parents.get(stmt)
    holder = lst.parents.get(stmt)
    body = next((v for _, v in gast.iter_fields(holder) if isinstance(v, list) and
                 stmt in v), None) if holder is not None else None
    if body is None or not evaluated_first(lst.src, stmt, comp, lst.local):
        return None

    def rewrite(lists):
        made, item = lst.fresh(f"{lst.name}_made"), lst.fresh(f"{gen.target.id}_")
        for n in walk_nodes(gast.Tuple(elts=[comp.elt] + gen.ifs, ctx=gast.Load())):
            if isinstance(n, gast.Name) and n.id == gen.target.id:
                n.id = item
        inner = [gast.Expr(value=gast.Call(func=gast.Attribute(
            value=_name(made), attr="append", ctx=gast.Load()), args=[comp.elt], keywords=[]))]
        for cond in reversed(gen.ifs):
            inner = [gast.If(test=cond, body=inner, orelse=[])]
        loop = gast.For(target=_name(item, gast.Store()), iter=gen.iter, body=inner,
                        orelse=[], type_comment=None)
        first = [gast.Assign(targets=[_name(made, gast.Store())],
                             value=gast.List(elts=[], ctx=gast.Load()), type_comment=None),
                 loop]
        for new in first:
            for sub in walk_nodes(new):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    gast.copy_location(sub, stmt)
        up = lst.parents[comp]
        for field, value in gast.iter_fields(up):
            if value is comp:
                setattr(up, field, gast.copy_location(_name(made), comp))
            elif isinstance(value, list) and comp in value:
                value[value.index(comp)] = gast.copy_location(_name(made), comp)
        body[body.index(stmt):body.index(stmt)] = first
        lst.loop(loop, lists)

    return rewrite
