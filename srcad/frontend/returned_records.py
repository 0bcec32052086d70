"""Records a function of the user's returns (issue 16): ``p = make(w, b)`` returning ``Lin(...)``.

A function of the user's each of whose ``return`` statements returns an object of one class
srcad reads field by field (a record class, or a plain class :mod:`.plain_classes` follows),
built there (``return Lin(2.0 * w, b)``) or named (``return p``), is called by the caller
that reads the result field by field (:mod:`.lower_records`) as a copy returning the fields:
``p = make(w, b)`` becomes ``p_w, p_b = make_fields(w, b)``, where in ``make_fields`` each
``return C(...)`` is ``make_result = C(...)`` then ``return make_result.w, make_result.b``
(``return p``: ``return p.w, p.b``), read field by field there in turn (:mod:`.lower_records`
on the copy, as on any function of the user's).
Exact: the copy computes what ``make`` computes and returns the object's attributes, which
are its fields. A generator, a function with a ``return`` of anything else (or none: it may
return None), or whose class is not known, is left as it is (its object refused where it is
differentiated).

A tuple of such objects (``enc, dec = make_model(w)``, every ``return`` of ``make_model`` a
tuple written in the statement with an object of one class at each place, or a value):
:func:`unpack_returned` calls a copy returning all their fields in order (``enc_W, dec_W,
dec_c = make_model_fields(w)``) and rebuilds each object from its fields just after
(``enc = made_of(Enc, W=enc_W)``), read field by field as any object built here; ``pair =
make_model(w)`` read only at constant indices (``pair[0](x)``) is unpacked so first.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.source`, :mod:`.built_records`,
:mod:`.plain_classes`, :mod:`.plain_lists` and :mod:`.passed_records` (the copy is run as
its copies are; :mod:`.passed_calls` and :mod:`.record_lists` where used).
"""

from __future__ import annotations

import copy
import inspect
import threading
import types
import weakref

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from ..errors import SrcadError
from . import plain_classes
from . import source as source_module
from .built_records import record_fields, resolve_any
from .plain_lists import stores_of
from .source import fresh_names

_LOCK = threading.RLock()
_MADE = weakref.WeakKeyDictionary()  # function -> {code: (entry, reads)}
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def fields_of(cls):
    """The fields of an object of ``cls`` read field by field, else None."""
    facts = record_fields(cls)
    if facts is not None:
        return facts[0]
    if plain_classes.user_class(cls):
        return plain_classes.fields_of(cls)
    return None


def own_nodes(top):
    """The nodes under ``top`` (a node: from its children on; a list of statements: from them
    on), not those of the functions, lambdas and classes defined there."""
    out, todo = [], list(top) if isinstance(top, list) else list(gast.iter_child_nodes(top))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(gast.iter_child_nodes(node))
    return out


def returned_class(fn, owner=None):
    """The one class whose objects every ``return`` of ``fn`` returns (see above), else
    None; ``owner``: the class a class method ``fn`` is called on (``cls(...)``, its first
    parameter never assigned, builds one)."""
    try:
        src = source_module.read(fn)
    except SrcadError:
        return None
    nodes = own_nodes(src.node)
    if any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in nodes):
        return None
    returns = [n for n in nodes if isinstance(n, gast.Return)]
    body = src.node.body
    if not returns or not isinstance(body[-1], (gast.Return, gast.Raise)):
        return None  # it may fall off its end and return None
    stores = {}
    for n in nodes:
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores.setdefault(n.id, []).append(n)
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}
    params = src.node.args.posonlyargs + src.node.args.args
    first = params[0].id if owner is not None and params and not any(
        isinstance(p.ctx, gast.Store) for p in stores.get(params[0].id, ())) else None
    classes = set()
    for ret in returns:
        value = ret.value
        if isinstance(value, gast.Name):
            assigns = [parents.get(s) for s in stores.get(value.id, ())]
            if not assigns or not all(isinstance(a, gast.Assign) and a.targets == [s]
                                      for a, s in zip(assigns, stores[value.id])):
                return None
            values = [a.value for a in assigns]
        else:
            values = [value]
        for v in values:
            if not isinstance(v, gast.Call):
                return None
            classes.add(owner if first is not None and isinstance(v.func, gast.Name) and
                        v.func.id == first else resolve_any(src, v.func))
    if len(classes) != 1:
        return None
    cls = classes.pop()
    return cls if isinstance(cls, type) and fields_of(cls) else None


def maker(fn, cls, owner=None):
    """The entry (``(cell, names, reads, label)``, as :func:`.passed_records.derived`
    gives) of the copy of ``fn`` returning the fields of the object it returns (a class
    method called on ``owner``: its first parameter that class, held by the copy)."""

    def rewrite(fdef, taken):
        result = f"{fn.__name__}_result"
        while result in taken:
            result += "_"
        _Returns(result, fields_of(cls)).visit(fdef)
        if owner is None:
            return {}
        args = fdef.args  # cls: the class it is called on, a cell of the copy
        first = (args.posonlyargs or args.args)[0]
        if args.posonlyargs:
            args.posonlyargs = args.posonlyargs[1:]
        else:
            args.args = args.args[1:]
        return {first.id: types.CellType(owner)}

    return _copy_returning(fn, (fn.__code__, owner), rewrite)


def _copy_returning(fn, key, rewrite):
    """The entry made for ``key`` (made again when a name it read is rebound): ``fn``'s
    source copied, ``rewrite(fdef, taken)`` (``taken``: the names ``fn`` uses) changing what
    it returns and giving the cells the copy reads, run as :func:`.passed_records._run`."""
    from . import passed_records

    with _LOCK:
        made = _MADE.setdefault(fn, {})
        known = made.get(key)
        if known is not None and not env.stale(known[2]):
            env.record_all(known[2])
            return known
        with env.collecting() as reads:
            env.record_all(env.code_reads({fn.__name__: fn}))
            src = source_module.read(fn)
            fdef = copy.deepcopy(src.node)
            taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | set(
                fn.__code__.co_varnames) | set(fn.__code__.co_names)
            cells = rewrite(fdef, taken)
            passed_records.bare_signature(fdef)
            out = passed_records._run(fdef, fn, src, cells, {"result": []}, fn.__name__)
        entry = (types.CellType(out), {}, tuple(reads.values()), fn.__name__)
        made[key] = entry
        return entry


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


class _Returns(gast.NodeTransformer):
    """``return e`` -> ``result = e; return result.a, result.b`` (not in nested functions)."""

    def __init__(self, result, fields):
        self.result, self.fields, self.depth = result, fields, 0

    def visit_FunctionDef(self, node):
        self.depth += 1
        if self.depth == 1:
            self.generic_visit(node)
        self.depth -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    def visit_Return(self, node):
        named = isinstance(node.value, gast.Name)  # return p: p's fields
        result = node.value.id if named else self.result
        assign = gast.copy_location(gast.Assign(
            targets=[_name(self.result, gast.Store())], value=node.value, type_comment=None),
            node)
        ret = gast.copy_location(gast.Return(value=gast.Tuple(elts=[gast.Attribute(
            value=_name(result), attr=f, ctx=gast.Load()) for f in self.fields],
            ctx=gast.Load())), node)
        for sub in walk_nodes(ret):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
        return [ret] if named else [assign, ret]


def clear():
    """Forget every copy (srcad.clear_cache)."""
    with _LOCK:
        _MADE.clear()


# ---------------------------------------------------------------- tuples of objects returned


def returned_classes(fn):
    """``enc, dec = make(w)``: when every ``return`` of ``fn`` returns a tuple written in the
    statement, of the same length, each item an object of one class read field by field
    (built there, or a name bound once in ``fn`` to it), or at that place in every
    ``return`` something else (left as it is): the class (or None) per place; None
    otherwise, or when no place holds such an object."""
    try:
        src = source_module.read(fn)
    except SrcadError:
        return None
    nodes = own_nodes(src.node)
    if any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in nodes):
        return None
    returns = [n for n in nodes if isinstance(n, gast.Return)]
    if not returns or not isinstance(src.node.body[-1], (gast.Return, gast.Raise)):
        return None
    stores = {}
    for n in nodes:
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores.setdefault(n.id, []).append(n)
    parents = {c: n for n in nodes for c in gast.iter_child_nodes(n)}

    def made(value):
        if isinstance(value, gast.Name):
            found = stores.get(value.id, ())
            assign = parents.get(found[0]) if len(found) == 1 else None
            if not (isinstance(assign, gast.Assign) and assign.targets == [found[0]]):
                return None
            value = assign.value
        if not isinstance(value, gast.Call):
            return None
        cls = resolve_any(src, value.func)
        return cls if isinstance(cls, type) and fields_of(cls) else None

    places = None
    for ret in returns:
        if not (isinstance(ret.value, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in ret.value.elts)):
            return None
        classes = tuple(made(e) for e in ret.value.elts)
        if places is None:
            places = classes
        elif classes != places:
            return None
    return places if places and any(c is not None for c in places) else None


def tuple_maker(fn, classes):
    """The entry of the copy of ``fn`` returning, for each place of the tuple it returns,
    the fields of the object there (:func:`returned_classes`: ``classes``), or the value."""

    def rewrite(fdef, taken):
        _TupleReturns(taken, fn.__name__, [
            None if c is None else fields_of(c) for c in classes]).visit(fdef)
        return {}

    return _copy_returning(fn, (fn.__code__, classes), rewrite)


class _TupleReturns(_Returns):
    """``return E0, E1, v`` -> ``make_0 = E0; make_1 = E1; make_2 = v; return make_0.w,
    make_1.w, make_1.b, make_2`` (a name kept: ``return enc.w, ...``)."""

    def __init__(self, taken, label, fields):
        super().__init__(None, None)
        self.taken, self.label, self.places = taken, label, fields

    def fresh(self, base):
        while base in self.taken:
            base += "_"
        self.taken.add(base)
        return base

    def visit_Return(self, node):
        out, elts = [], []
        for value, fields in zip(node.value.elts, self.places):
            if isinstance(value, gast.Name):
                held = value.id
            else:
                held = self.fresh(f"{self.label}_{len(out)}")
                out.append(gast.copy_location(gast.Assign(
                    targets=[_name(held, gast.Store())], value=value, type_comment=None),
                    node))
            elts += [_name(held)] if fields is None else [gast.Attribute(
                value=_name(held), attr=f, ctx=gast.Load()) for f in fields]
        ret = gast.copy_location(gast.Return(value=gast.Tuple(elts=elts, ctx=gast.Load())),
                                 node)
        out.append(ret)
        for stmt in out:
            for sub in walk_nodes(stmt):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    gast.copy_location(sub, node)
        return out


def unpack_returned(src, fdef, binder):
    """In the function differentiated: ``enc, dec = make(w)`` (at any depth; ``make`` a
    function of the user's returning a tuple of objects, :func:`returned_classes`) ->
    ``enc_w, dec_w, dec_b = make_fields(w)`` then ``enc = made_of(Enc, w=enc_w)`` (a
    record class: ``Enc(w=enc_w)``) for each object, read field by field by
    :mod:`.lower_records` (an object it does not follow is the object Python builds);
    ``binder(src, fdef)`` gives the ``bind`` naming the copy
    (:func:`.passed_records.binder`)."""
    from . import passed_calls
    from .record_lists import made_of

    local = passed_calls.bound_names(fdef)
    if not any(isinstance(n, gast.Assign) and isinstance(n.value, gast.Call) and (
               passed_calls.callee_function(fn := resolve_any(src, n.value.func, local)) or (
                   fn := _callee(src, n.value.func, fdef)[0]) is not None) and
               returned_classes(fn) for n in walk_nodes(fdef)):
        return  # (no call of a function of yours returning a tuple of objects)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}

    fresh = fresh_names(taken)

    held, bound = {}, []

    def bind(entry):
        if not bound:
            bound.append(binder(src, fdef))
        return bound[0](entry)

    def hold(value, base):
        if id(value) in held:
            return held[id(value)]
        name = fresh(base)
        src.closure[name] = value
        src.cells[name] = types.CellType(value)
        src.bound = {**getattr(src, "bound", {}), name: value}
        held[id(value)] = name
        return name

    _by_index(src, fdef, fresh)
    _as_display(src, fdef, fresh)
    for node in list(walk_nodes(fdef)):
        for _, value in gast.iter_fields(node):
            if not (isinstance(value, list) and value and isinstance(value[0], gast.stmt)):
                continue
            body = value
            for stmt in list(body):
                if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                        isinstance(stmt.targets[0], gast.Tuple) and
                        all(isinstance(t, gast.Name) for t in stmt.targets[0].elts) and
                        isinstance(stmt.value, gast.Call) and
                        not any(isinstance(a, gast.Starred) for a in stmt.value.args)):
                    continue
                fn, lead = _callee(src, stmt.value.func, fdef)
                classes = fn and returned_classes(fn)
                names = stmt.targets[0].elts
                if not classes or len(classes) != len(names):
                    continue
                try:
                    entry = tuple_maker(fn, classes)
                except SrcadError:
                    continue
                targets, after = [], []
                for target, cls in zip(names, classes):
                    if cls is None:
                        targets.append(_name(target.id, gast.Store()))
                        continue
                    leaves = [fresh(f"{target.id}_{f}") for f in fields_of(cls)]
                    targets += [_name(leaf, gast.Store()) for leaf in leaves]
                    keywords = [gast.keyword(arg=f, value=_name(leaf))
                                for f, leaf in zip(fields_of(cls), leaves)]
                    spelled = hold(cls, cls.__name__)
                    built = gast.Call(func=_name(spelled), args=[], keywords=keywords) \
                        if record_fields(cls) is not None else gast.Call(
                            func=_name(hold(made_of, "srcad_made_of")),
                            args=[_name(spelled)], keywords=keywords)
                    after.append(gast.Assign(targets=[_name(target.id, gast.Store())],
                                             value=built, type_comment=None))
                stmt.targets = [gast.Tuple(elts=targets, ctx=gast.Store())]
                stmt.value = gast.Call(func=_name(bind(entry)), args=lead + stmt.value.args,
                                       keywords=stmt.value.keywords)
                for new in [stmt] + after:
                    for sub in walk_nodes(new):
                        if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                            gast.copy_location(sub, stmt)
                k = body.index(stmt)
                display = body[k + 1] if k + 1 < len(body) else None
                if getattr(display, "_srcad_display", False):
                    # layers = [layers_0, layers_1] (_as_display): the objects built in it
                    built = {a.targets[0].id: a.value for a in after}
                    display.value.elts = [built.get(e.id, e) for e in display.value.elts]
                    after = [a for a in after if a.targets[0].id not in built]
                body[k + 1:k + 1] = after


def _by_index(src, fdef, fresh):
    """``pair = make(w)`` then only ``pair[0]``, ``pair[-1]`` (constant indices) read: ``pair_0,
    pair_1 = make(w)`` and ``pair_0`` read (then unpacked as above)."""
    from . import passed_calls

    stores, loads = {}, {}
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name):
            (loads if isinstance(node.ctx, gast.Load) else stores).setdefault(
                node.id, []).append(node)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            for name in node.names:
                stores.setdefault(name, []).extend([None, None])
    for name, found in stores.items():
        assign = parents.get(found[0]) if len(found) == 1 else None
        if not (isinstance(assign, gast.Assign) and assign.targets == [found[0]] and
                isinstance(assign.value, gast.Call) and name in loads):
            continue
        fn = passed_calls.callee(src, assign.value.func, fdef)
        classes = fn and returned_classes(fn)
        if not classes:
            continue
        places = []
        for use in loads[name]:
            sub = parents.get(use)
            k = passed_calls.constant_index(sub.slice) if isinstance(sub, gast.Subscript) \
                and sub.value is use and isinstance(sub.ctx, gast.Load) else None
            if k is None or not -len(classes) <= k < len(classes):
                break
            places.append((sub, k % len(classes)))
        else:
            names = [fresh(f"{name}_{k}") for k in range(len(classes))]
            assign.targets = [gast.copy_location(gast.Tuple(elts=[
                gast.copy_location(_name(n, gast.Store()), found[0]) for n in names],
                ctx=gast.Store()), found[0])]
            for sub, k in places:
                parent = parents[sub]
                for field, value in gast.iter_fields(parent):
                    if value is sub:
                        setattr(parent, field, gast.copy_location(_name(names[k]), sub))
                    elif isinstance(value, list) and sub in value:
                        value[value.index(sub)] = gast.copy_location(_name(names[k]), sub)


def _as_display(src, fdef, fresh):
    """``layers = make(w)`` (a name bound once, at the top level of a body), every ``return``
    of ``make`` a list (or every one a tuple) written in the statement, of objects
    :func:`returned_classes` finds: ``layers_0, layers_1 = make(w)`` then ``layers =
    [layers_0, layers_1]``, the same new list of the same objects (then unpacked as above, and
    ``layers`` a list display of objects built here, iterated or indexed as one)."""

    stores = stores_of(fdef)
    for node in list(walk_nodes(fdef)):
        for _, body in gast.iter_fields(node):
            if not (isinstance(body, list) and body and isinstance(body[0], gast.stmt)):
                continue
            for stmt in list(body):
                if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                        stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) and
                        len(stores.get(stmt.targets[0].id, ())) == 1 and not any(
                            isinstance(a, gast.Starred) for a in stmt.value.args)):
                    continue
                fn, _ = _callee(src, stmt.value.func, fdef)
                classes = fn and returned_classes(fn)
                kind = classes and _display_kind(fn)
                if not kind or kind is gast.Tuple and (None in classes or len(set(classes)) > 1):
                    continue  # (a tuple: read as a list of objects of one class only)
                target = stmt.targets[0]
                names = [fresh(f"{target.id}_{k}") for k in range(len(classes))]
                stmt.targets = [gast.copy_location(gast.Tuple(elts=[gast.copy_location(
                    _name(n, gast.Store()), target) for n in names], ctx=gast.Store()), target)]
                rebuilt = gast.Assign(targets=[_name(target.id, gast.Store())], value=kind(
                    elts=[_name(n) for n in names], ctx=gast.Load()), type_comment=None)
                for sub in walk_nodes(rebuilt):
                    if "lineno" in sub._attributes:
                        gast.copy_location(sub, stmt)
                rebuilt._srcad_display = True  # its names: the objects built in it (above)
                body.insert(body.index(stmt) + 1, rebuilt)


def _display_kind(fn):
    """``gast.List`` when every ``return`` of ``fn`` is a list display, ``gast.Tuple`` when
    every one is a tuple display (read as the list of its objects where :mod:`.record_tuples`
    finds every use followed; else left a tuple, its items' calls refused), else None."""
    try:
        node = source_module.read(fn).node
    except SrcadError:
        return None
    kinds = {type(n.value) for n in own_nodes(node) if isinstance(n, gast.Return)}
    return kinds.pop() if kinds in ({gast.List}, {gast.Tuple}) else None


def _callee(src, func, fdef):
    """The function of the user's a call's ``func`` names and the arguments to put first:
    :func:`.passed_calls.callee`'s, or ``self.make`` of a parameter ``self`` the code is made
    for an object of a known class (its ``Instance``), whose class's plain function ``make``
    is called with ``self`` first."""
    from . import passed_calls

    fn = passed_calls.callee(src, func, fdef)
    if fn is not None:
        return fn, []
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
        return None, []
    known = functions.fixed_of(getattr(src, "func", None)).get(func.value.id)
    if not isinstance(known, functions.Instance) or any(
            "__getattr__" in vars(k) or "__getattribute__" in vars(k) for k in known.cls.__mro__
            if k is not object):
        return None, []
    raw = inspect.getattr_static(known.cls, func.attr, None)
    if not passed_calls.callee_function(raw) or func.attr in dict(known.held):
        return None, []
    return raw, [_name(func.value.id)]
