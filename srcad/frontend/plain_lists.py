"""List and object fields of plain classes (issue 16): ``self.layers = [Layer(W, b) for W, b
in ...]``, ``self.fc1 = Dense(W1, b1)``.

A plain class (:mod:`.plain_classes`) whose ``__init__`` sets an attribute to a list of
records of one class, written the usual way::

    class Net:
        def __init__(self, Ws, bs):
            self.layers = [Layer(W, b) for W, b in zip(Ws, bs)]
            # (or self.layers = [] then, in a loop, self.layers.append(Layer(W, b)),
            # or self.layers = [Layer(W1, b1), Layer(W2, b2)])
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

holds, for srcad, one list per field of the item class in the attribute's place (structure
of arrays, as :mod:`.record_lists` does for a list in the function): ``Net``'s fields are
``layers__W, layers__b`` (:func:`find`). The copy of ``__init__`` (:mod:`.plain_inits`)
builds ``self_layers`` as written and then takes it apart (:func:`taken_apart`:
``for item in self_layers: self_layers__W.append(item.W); ...``); the copy of a method
taking the fields (:mod:`.passed_records`) first rebuilds the list from its fields
(:func:`rebuild_reads`: ``layers = []; for W, b in zip(self.layers__W, self.layers__b):
layers.append(Layer(W=W, b=b))``, a class built by its ``__init__`` through
:func:`made_of`) and reads it where the method reads ``self.layers``; so does the function
differentiated for ``net.layers`` (:func:`rebuild_in_function`). Both lists are then read
item by item by :mod:`.record_lists` in their function: each item's fields are locals, the
gradient flows through them exactly. An attribute set to one object (``self.fc1 =
Dense(...)``, read in ``__init__`` only by its attributes or called) is the same with one
item (``fc1__W, fc1__b``; rebuilt as ``made_of(Dense, W=..., b=...)``). Items may hold list
and object fields of their own (their columns, read from objects Python built by
:func:`field_of`); a field every item gives the same function (``act=np.tanh``) is held by
the class, not a column (``Plain.item_functions``), so the items' calls are made for it.

Only an attribute bound once, at the top level of ``__init__``, to a list comprehension
building the records, a list written of them, or ``[]`` then only appended to
(``self.layers.append(C(...))`` as a statement, anywhere after), is such a field; a method
may iterate it (``for``, a comprehension, through ``enumerate``/``zip``/``reversed``), index
it (``self.layers[k]``, a constant slice) and take its ``len`` (an object field: read its
attributes, call it, pass it to a function of yours): any other use of it in a method (an
append, an alias ``ls = self.layers``, passing the list on), and any attribute written where
one is read, is refused at its line (:class:`~srcad.errors.UnsupportedSyntaxError`): the
method's objects are copies of the object's, which such a use could change or miss.

Imports the standard library, gast, :mod:`srcad.errors`, :mod:`.plain_classes`,
:mod:`.function_fields`, :mod:`.built_records`, :mod:`.iterators_passed` and
:mod:`.passed_calls`; it adds its finding of list, object and function fields to
``plain_classes.EXTRAS``.
"""

from __future__ import annotations

import types

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import function_fields, plain_classes
from .built_records import bind_fields, record_fields, resolve_any
from .iterators_passed import fixed_function
from .passed_calls import bound_names, callee
from .plain_dicts import SEP as _SEP
from .plain_dicts import (
    by_key,
    dict_entries,
    item_fields,
    refuse_dict,
    self_attr,
)
from .plain_dicts import name_node as _name
from .source import fresh_names


def find(info):
    """The list fields of the ``__init__`` ``info`` (a run :class:`.plain_classes._Init`):
    ``((attribute, item class, ((item field, field), ...)), ...)``; an attribute used
    otherwise stays a field of its own (as before: its items are not followed)."""
    body, self_name = info.src.node.body, info.self_name
    parents = {c: n for n in walk_nodes(info.src.node) for c in gast.iter_child_nodes(n)}
    local = {n.id for n in walk_nodes(info.src.node) if isinstance(n, gast.Name) and
             not isinstance(n.ctx, gast.Load)}
    out, consts = [], []
    for field in info.fields:
        nodes = [n for n in walk_nodes(info.src.node) if self_attr(n, self_name) and
                 n.attr == field]
        stores = [n for n in nodes if not isinstance(n.ctx, gast.Load)]
        if len(stores) != 1:
            continue
        assign = parents.get(stores[0])
        if not (isinstance(assign, gast.Assign) and assign.targets == [stores[0]] and
                assign in body):
            continue
        value, loads = assign.value, [n for n in nodes if n is not stores[0]]
        if isinstance(value, gast.Dict):  # {"enc": Dense(...), ...}: an object per key
            out += dict_entries(info, field, value, loads, local)
            continue
        calls, kind = [], "list"
        if isinstance(value, gast.Call) and all(  # self.l1 = Dense(W, b): one object,
                isinstance(parents.get(n), gast.Attribute) or  # read in __init__ only by
                isinstance(parents.get(n), gast.Call) and parents[n].func is n  # attribute
                for n in loads):  # or called (not aliased: the copy's object is its own)
            calls, kind = [value], "one"
        elif isinstance(value, gast.List) and value.elts and not loads and all(
                isinstance(e, gast.Call) for e in value.elts):  # [Dense(...), Dense(...)]
            calls = list(value.elts)
        elif isinstance(value, gast.ListComp) and not loads and \
                len(value.generators) >= 1 and isinstance(value.elt, gast.Call):
            calls = [value.elt]
        elif isinstance(value, gast.List) and not value.elts and loads:
            for load in loads:
                attr, call = parents.get(load), parents.get(parents.get(load))
                if not (isinstance(attr, gast.Attribute) and attr.attr == "append" and
                        isinstance(call, gast.Call) and call.func is attr and
                        len(call.args) == 1 and not call.keywords and
                        isinstance(parents.get(call), gast.Expr) and
                        isinstance(call.args[0], gast.Call)):
                    calls = []
                    break
                calls.append(call.args[0])
        classes = set()
        for call in calls:
            func = call.func
            root = func
            while isinstance(root, gast.Attribute):
                root = root.value
            if not isinstance(root, gast.Name) or root.id in local:
                classes.add(None)
                continue
            classes.add(info.lookup(func))
        if len(classes) != 1:
            continue
        cls = classes.pop()
        subs = item_fields(cls) if isinstance(cls, type) else None
        if not subs:
            continue
        held = _item_functions(info, cls, calls, local)  # act=np.tanh in every item: held
        subs = tuple(sub for sub in subs if sub not in held)
        names = tuple(f"{field}{_SEP}{sub}" for sub in subs)
        if not subs or any(n in info.fields or hasattr(info.cls, n) for n in names):
            continue  # (a name of another attribute: the field stays one)
        out.append((field, cls, tuple(zip(subs, names)), kind))
        if held:
            consts.append((field, tuple(held.items())))
    return tuple(out), tuple(consts)


def _item_functions(info, cls, calls, local):
    """``{item field: function}`` of the fields of the items ``calls`` build (in ``__init__``,
    ``info``) holding one function, the same in every item (the default, or one named
    there): held by the class, not a column (its items' calls are then made for it)."""
    found = None
    for call in calls:
        facts = record_fields(cls)
        if facts is not None:
            funcs = {}

            def hold(value, base, funcs=funcs):
                funcs[base] = value
                return base

            bound = bind_fields(call, facts[0], facts[1], hold)
            for f, value in bound or ():
                if isinstance(value, gast.Name) and value.id in funcs:
                    funcs[f] = funcs.pop(value.id)
                elif _chain(value) is not None and _chain(value) not in local and \
                        fixed_function(info.lookup(value)):
                    funcs[f] = info.lookup(value)
            funcs = {k: v for k, v in funcs.items() if k in facts[0]}
        else:
            plain = plain_classes.describe(cls)
            funcs = function_fields.known_values(info.src, plain, call, local) if isinstance(
                plain, plain_classes.Plain) else {}
        found = funcs if found is None else {k: v for k, v in found.items()
                                             if funcs.get(k) is v}
    return found or {}


def _chain(node):
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def taken_apart(lists, locals_, fresh, where, hold):
    """The statements ending the copy of ``__init__``: each list field's list (``locals_``:
    attribute or field -> its local) taken apart into one list per item field, each object
    field into its fields (a field of the item that is itself a column of its own list or
    object fields read by :func:`field_of`; ``hold(value, base)`` names it in the copy)."""
    out = []

    def read(obj, item, sub):
        if not _expanded(item, sub):
            return gast.Attribute(value=_name(obj), attr=sub, ctx=gast.Load())
        return gast.Call(func=_name(hold(field_of, "srcad_field_of")), args=[
            _name(obj), gast.Constant(value=sub, kind=None)], keywords=[])

    for field, cls, subs, kind in lists:
        if kind != "list":  # self_l1__W = self_l1.W (a dict's object too: self_parts__enc)
            out += [gast.Assign(targets=[_name(locals_[e], gast.Store())],
                                value=read(locals_[field], cls, sub), type_comment=None)
                    for sub, e in subs]
            continue
        item = fresh("item")
        out.append(gast.Assign(targets=[gast.Tuple(elts=[
            _name(locals_[e], gast.Store()) for _, e in subs], ctx=gast.Store())],
            value=gast.Tuple(elts=[gast.List(elts=[], ctx=gast.Load()) for _ in subs],
                             ctx=gast.Load()), type_comment=None))
        out.append(gast.For(target=_name(item, gast.Store()), iter=_name(locals_[field]),
                            body=[gast.Expr(value=gast.Call(func=gast.Attribute(
                                value=_name(locals_[e]), attr="append", ctx=gast.Load()),
                                args=[read(item, cls, sub)], keywords=[]))
                                for sub, e in subs], orelse=[], type_comment=None))
    for stmt in out:
        for node in walk_nodes(stmt):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, where)
    return out


def _expanded(cls, name):
    """Whether ``name`` is a column of a list or object field of ``cls``, not an attribute."""
    found = plain_classes.describe(cls) if plain_classes.user_class(cls) else None
    return isinstance(found, plain_classes.Plain) and any(
        e == name for _, _, subs, _ in found.lists for _, e in subs)


def field_of(obj, name):
    """The field ``name`` of ``obj``, an object of a plain class: its attribute, or a column
    of one of its list or object fields (``layers__W``: the ``W`` of each item of
    ``obj.layers``) read from the objects Python holds. :mod:`.lower_records` reads
    ``field_of(net, "layers__W")`` as the field ``net.layers__W`` of an object it follows
    field by field; this runs only for one it does not."""
    found = plain_classes.describe(type(obj))
    for field, _, subs, kind in (found.lists if isinstance(found, plain_classes.Plain)
                                 else ()):
        for sub, e in subs:
            if e == name:
                part = getattr(obj, kind[1])[kind[2]] if isinstance(kind, tuple) else \
                    getattr(obj, field)
                return [field_of(item, sub) for item in part] if kind == "list" else \
                    field_of(part, sub)
    return getattr(obj, name)


_ITERS = ("enumerate", "zip", "reversed")


def _part_ok(src, node, parents):
    """Whether the read ``node`` of an object field reads an attribute of it, calls it, or
    passes it to a function of the user's (whose copy follows it, or refuses)."""
    parent = parents.get(node)
    if isinstance(parent, gast.Attribute) and parent.value is node:
        return True
    if isinstance(parent, gast.Call) and parent.func is node:
        return True
    if isinstance(parent, gast.keyword):
        parent = parents.get(parent)
    return isinstance(parent, gast.Call) and parent.func is not node and \
        callee(src, parent.func) is not None


def _read_ok(node, parents):
    """Whether the read ``node`` of a list field only reads the list (iterated, indexed,
    its length)."""
    parent = parents.get(node)
    if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, gast.Subscript) and parent.value is node and \
            isinstance(parent.ctx, gast.Load):
        return True
    if isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
            node in parent.args and not parent.keywords:
        if parent.func.id == "len" and len(parent.args) == 1:
            return True
        if parent.func.id in _ITERS:
            return _read_ok(parent, parents)
    return False


def _attribute_write(fdef):
    """The first statement target of ``fdef`` writing an attribute (``l.W = v``,
    ``l.n += 1``, ``del l.W``), else None: an item of a list rebuilt from its fields is not
    the object Python's list holds, so a write into one would be lost."""
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, (gast.Store, gast.Del)):
            return node
    return None


def _refuse_write(src, node, base, field):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(
        f"an attribute written (.{node.attr}) where {base}.{field}, an object (or a list of "
        "objects) built in __init__, is read: srcad reads such objects from their fields, "
        "copies of the objects the attribute holds, so the write would not reach them",
        filename=src.filename,
        lineno=line, construct=src.line_text(line),
        hint="compute the new value in a local name (w = layer.W * 2.0) and use it, or "
        "build the objects again in __init__; keep writes out of the function that reads "
        "the list")


def rebuild_reads(src, fdef, param, spec, hold, fresh):
    """In the copy ``fdef`` of a method taking the record ``param`` (of ``spec``) field by
    field: each read of a list field ``param.layers`` read from a list rebuilt at the start
    from the fields (see above); ``hold(value, base)`` names a value in the copy's cells.
    Nothing when the record's class has no list fields."""
    cls = spec[0]
    found = plain_classes.describe(cls) if plain_classes.user_class(cls) else None
    if not isinstance(found, plain_classes.Plain) or not found.lists or \
            tuple(f for f, _ in spec[2]) != found.fields:
        return
    lists = {field: (item, subs, kind) for field, item, subs, kind in found.lists}
    other = by_key(fdef, param, {f: (f,) + v for f, v in lists.items()})
    if other is not None:
        raise refuse_dict(src, other, param)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    made = {}
    for node in list(walk_nodes(fdef)):
        if not (self_attr(node, param) and node.attr in lists and
                isinstance(node.ctx, gast.Load)):
            continue
        if lists[node.attr][2] != "list" and not _part_ok(src, node, parents):
            line = getattr(node, "lineno", None)
            raise UnsupportedSyntaxError(
                f"{param}.{node.attr}, an object built in {cls.__name__}.__init__, used other "
                "than by reading its attributes, calling it or its methods, or passing it to "
                "a function of yours: srcad follows it through a copy built from its fields, "
                "which this use could change or keep", filename=src.filename, lineno=line,
                construct=src.line_text(line),
                hint=f"read its attributes or call it ({param}.{node.attr}(x), "
                f"{param}.{node.attr}.W) where it is used")
        if lists[node.attr][2] == "list" and not _read_ok(node, parents):
            line = getattr(node, "lineno", None)
            raise UnsupportedSyntaxError(
                f"{param}.{node.attr}, a list of {lists[node.attr][0].__name__} objects "
                f"built in {cls.__name__}.__init__, used other than iterated, indexed or "
                "measured (len) in a method: srcad follows its items through a copy of the "
                "list, which this use could change or hand on", filename=src.filename,
                lineno=line, construct=src.line_text(line),
                hint=f"iterate it (for item in {param}.{node.attr}: ...), index it or take "
                "its len; build a new list in a local name for anything else, and keep "
                "__init__ the only place that fills it")
        if node.attr not in made:
            made[node.attr] = fresh(f"{param}_{node.attr}")
        parent = parents[node]
        for name, value in gast.iter_fields(parent):
            if value is node:
                setattr(parent, name, gast.copy_location(_name(made[node.attr]), node))
            elif isinstance(value, list) and node in value:
                value[value.index(node)] = gast.copy_location(_name(made[node.attr]), node)
    written = _attribute_write(fdef) if made else None
    if written is not None:
        raise _refuse_write(src, written, param, next(iter(made)))
    first = []
    for field, local in made.items():
        first += _rebuild(param, local, *lists[field], hold, fresh,
                          dict(found.item_functions).get(field, ()))
    where = fdef.body[0] if fdef.body else fdef
    for stmt in first:
        for node in walk_nodes(stmt):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                gast.copy_location(node, where)
    docstring = fdef.body[:1] if fdef.body and isinstance(fdef.body[0], gast.Expr) and \
        isinstance(fdef.body[0].value, gast.Constant) else []
    fdef.body[len(docstring):len(docstring)] = first


def _rebuild(base, local, item, subs, kind, hold, fresh, consts=()):
    """``local = []; for W, b in zip(base.f__W, base.f__b): local.append(Item(W=W, b=b))``
    (a class built by its ``__init__``: ``made_of(Item, W=W, b=b)``); one object:
    ``local = Item(W=base.f__W, b=base.f__b)``."""
    cls_name = hold(item, item.__name__)
    leaves = [fresh(sub) for sub, _ in subs]
    values = [_name(leaf) for leaf in leaves] if kind == "list" else [
        gast.Attribute(value=_name(base), attr=e, ctx=gast.Load()) for _, e in subs]
    keywords = [gast.keyword(arg=sub, value=v) for (sub, _), v in zip(subs, values)] + [
        gast.keyword(arg=sub, value=_name(hold(fn, f"srcad_{getattr(fn, '__name__', 'fn')}")))
        for sub, fn in consts]  # act=np.tanh, held: the items' calls are made for it
    if record_fields(item) is not None:
        built = gast.Call(func=_name(cls_name), args=[], keywords=keywords)
    else:
        built = gast.Call(func=_name(hold(made_of, "srcad_made_of")), args=[_name(cls_name)],
                          keywords=keywords)
    if kind != "list":
        return [gast.Assign(targets=[_name(local, gast.Store())], value=built,
                            type_comment=None)]
    columns = [gast.Attribute(value=_name(base), attr=e, ctx=gast.Load()) for _, e in subs]
    return [
        gast.Assign(targets=[_name(local, gast.Store())],
                    value=gast.List(elts=[], ctx=gast.Load()), type_comment=None),
        gast.For(target=_name(leaves[0], gast.Store()) if len(leaves) == 1 else gast.Tuple(
            elts=[_name(leaf, gast.Store()) for leaf in leaves], ctx=gast.Store()),
            iter=columns[0] if len(columns) == 1 else gast.Call(
                func=_name("zip"), args=columns, keywords=[]),
            body=[gast.Expr(value=gast.Call(func=gast.Attribute(
                value=_name(local), attr="append", ctx=gast.Load()), args=[built],
                keywords=[]))], orelse=[], type_comment=None)]


def rebuilt(cls, fields):
    """``fields`` (a dict, changed in place) of an object of ``cls`` with its list fields'
    columns made the lists of items again (:func:`.record_lists.made_of`)."""
    found = plain_classes.describe(cls)
    for field, item, subs, kind in (found.lists if isinstance(found, plain_classes.Plain)
                                    else ()):
        columns = [fields.pop(e) for _, e in subs]
        names = [s for s, _ in subs]
        rows = [columns] if kind != "list" else zip(*columns)
        held = dict(dict(found.item_functions).get(field, ()))
        made = [item(**dict(zip(names, values)), **held) if record_fields(item) is not None
                else made_of(item, **dict(zip(names, values)), **held) for values in rows]
        if isinstance(kind, tuple):  # a dict's object: under its key
            fields.setdefault(kind[1], {})[kind[2]] = made[0]
        else:
            fields[field] = made[0] if kind == "one" else made
    return fields


def rebuild_in_function(src, fdef):
    """In the function differentiated: each read of a list field ``net.layers`` (iterated,
    indexed, its ``len``) of a name bound once, at the top level, to an object of a class
    with list fields built there, read from a list rebuilt from the object's fields just
    after it is built (as in a method's copy: :func:`rebuild_reads`). Returns ``{name:
    first read}`` for :func:`check_followed`."""
    if not any(isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and
               plain_classes.list_fields(resolve_any(src, stmt.value.func), kinds=True)
               for stmt in fdef.body):
        return {}  # (no object of a class with list or object fields built here)
    local = bound_names(fdef)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    stores = stores_of(fdef)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}

    fresh = fresh_names(taken)

    out = {}
    for stmt in list(fdef.body):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and
                len(stores.get(stmt.targets[0].id, ())) == 1 and
                isinstance(stmt.value, gast.Call)):
            continue
        name = stmt.targets[0].id
        cls = resolve_any(src, stmt.value.func, local)
        lists = plain_classes.list_fields(cls, kinds=True) if plain_classes.user_class(
            cls) else {}
        other = by_key(fdef, name, {f: (f,) + v for f, v in lists.items()})
        if other is not None:
            raise refuse_dict(src, other, name)
        parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
        reads = [n for n in walk_nodes(fdef) if self_attr(n, name) and n.attr in lists and
                 isinstance(n.ctx, gast.Load) and (
                     _read_ok(n, parents) if lists[n.attr][2] == "list" else
                     _part_ok(src, n, parents))]
        if not reads:
            continue
        written = _attribute_write(fdef)
        if written is not None:
            raise _refuse_write(src, written, name, reads[0].attr)
        made = {}

        def hold(value, base, made=made):
            found = next((k for k, v in made.items() if v is value), None)
            if found is not None:
                return found
            spelled = fresh(base)
            src.closure[spelled] = value
            src.cells[spelled] = types.CellType(value)
            src.bound = {**getattr(src, "bound", {}), spelled: value}
            made[spelled] = value
            return spelled

        first, locals_ = [], {}
        for r in reads:
            if r.attr not in locals_:
                locals_[r.attr] = fresh(f"{name}_{r.attr}")
                first += _rebuild(name, locals_[r.attr], *lists[r.attr], hold, fresh,
                                  dict(plain_classes.describe(cls).item_functions).get(
                                      r.attr, ()))
            parent = parents[r]
            for field, value in gast.iter_fields(parent):
                if value is r:
                    setattr(parent, field, gast.copy_location(_name(locals_[r.attr]), r))
                elif isinstance(value, list) and r in value:
                    value[value.index(r)] = gast.copy_location(_name(locals_[r.attr]), r)
        for new in first:
            for node in walk_nodes(new):
                if "lineno" in node._attributes and not hasattr(node, "lineno"):
                    gast.copy_location(node, stmt)
        k = fdef.body.index(stmt)
        fdef.body[k + 1:k + 1] = first
        out[name] = reads[0]
    return out


def check_followed(src, rebuilt, built, why):
    """Refuse a list field read in the function (:func:`rebuild_in_function`) of an object
    :mod:`.lower_records` does not follow field by field: its list is read from the fields."""
    for name, read in rebuilt.items():
        if name in built:
            continue
        use = why.get(name)
        line = getattr(read, "lineno", None)
        also = f" (because of its use on line {use.lineno})" if getattr(
            use, "lineno", None) else ""
        raise UnsupportedSyntaxError(
            f"{name}.{read.attr}, a list of objects built in __init__, read in the function "
            f"where {name} is not followed field by field{also}",
            filename=src.filename, lineno=line, construct=src.line_text(line),
            hint=f"read {name}'s attributes, call its methods or pass it to a function of "
            "yours only (no other use of the object), or loop over the list in a method of "
            "its class")


def made_of(cls, **fields):
    """The object of ``cls`` (a plain class :mod:`.plain_classes` follows: its ``__init__``
    sets exactly its fields) whose attributes are ``fields`` (its list and object fields'
    columns made their objects again): what an item of a list of them is, rebuilt from the
    lists of its fields (:mod:`.lower_records` reads it field by field: this runs only when
    it does not)."""
    obj = object.__new__(cls)
    obj.__dict__.update(rebuilt(cls, dict(fields)))
    return obj


made_of.__srcad_builds_record__ = True  # refused as a record not followed (analysis.soundness)


def _extras(info):
    lists, item_functions = find(info)
    return {"lists": lists, "item_functions": item_functions,
            "functions": function_fields.find(info)}


plain_classes.EXTRAS.append(_extras)


def stores_of(fdef):
    """Each name ``fdef`` binds -> its binding nodes (a ``global``/``nonlocal`` name counts
    as bound twice: never one binding)."""
    stores = {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores.setdefault(node.id, []).append(node)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            for name in node.names:
                stores.setdefault(name, []).extend([None, None])
    return stores
