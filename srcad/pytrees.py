"""Dataclasses, named tuples and registered classes as ``wrt`` arguments (pytrees).

``srcad.grad(loss)(params, x)`` with ``params`` a dataclass instance returns a dataclass of
gradients, as JAX does with its pytrees. A class is a *record* here: its values have named
fields the code reads as attributes (``params.w``). Dataclasses and named tuples are records
by themselves; any other class is made one with :func:`register_pytree`::

    srcad.register_pytree(Layer, lambda layer: {"w": layer.w, "b": layer.b},
                          lambda fields: Layer(fields["w"], fields["b"]))

Records may sit inside lists, tuples and dicts, and hold them, at any depth (``[Layer(...),
Layer(...)]``, ``Net(layers=[...])``): every record in the argument is passed as the dict of its
fields, and a field read whose base is known to be such a record (``layers[i].w``, ``for layer
in layers: layer.w``, ``l0 = p.layers[0]; l0.w``) reads the key
(:mod:`srcad.frontend.passed_trees`); the gradient has the argument's structure.

How: when a ``wrt`` argument is a record, the function's tree (as read) is changed so that
each ``params.w`` reads ``params["w"]`` (through nested records: ``params.layer.w`` reads
``params["layer"]["w"]``), the record is passed as that dict, and the dict of gradients is
made a record again. A record passed whole to a function of the user's (``predict(p, x)``,
``layer(p.layer, x)``) calls a copy of that function taking the record's fields as parameters
(:mod:`srcad.frontend.passed_records`: ``predict(p["w"], p["b"], x)``); a named tuple is unpacked
(``w, b = p``) field by field. A record parameter used any other way (returned, indexed,
assigned, a method called, passed to something not a function of the user's) is refused: srcad
could not see what is read of it, and a gradient must never be silently lost.

Imports: the standard library, gast, NumPy, :mod:`srcad.errors` and :mod:`srcad.frontend`
(``passed_calls``, ``passed_records``, ``passed_trees``).
"""

from __future__ import annotations

import dataclasses

import gast
import numpy as np

from .core.walk import walk_nodes
from .errors import UnsupportedSyntaxError
from .frontend import passed_calls, passed_records, passed_trees, plain_classes, record_replace

__all__ = ["register_pytree"]

_REGISTERED = {}  # class -> (flatten: obj -> dict of fields, unflatten: dict -> obj)


def register_pytree(cls, flatten, unflatten):
    """Make instances of ``cls`` differentiable as ``wrt`` arguments: ``flatten(obj)`` returns
    a dict ``{field name: value}`` of the attributes the code reads, ``unflatten(fields)``
    builds an instance from such a dict (srcad builds the gradient with it)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree takes a class, got {cls!r}")
    _REGISTERED[cls] = (flatten, unflatten)
    _KINDS.clear()
    plain_classes.REGISTERED.add(cls)  # (its objects may hold attributes besides the leaves)


#: class -> whether its objects are records, and a dataclass's field names (a class's own
#: facts, read once per class: registering a class starts again)
_KINDS, _NAMES, _INIT = {}, {}, {}  # (_INIT: a dataclass's fields set by __init__)


def is_record(value):
    cls = type(value)
    known = _KINDS.get(cls)
    if known is None:
        if len(_KINDS) > 1000:  # (classes made on the fly: bounded)
            for table in (_KINDS, _NAMES, _INIT):
                table.clear()
        known = _KINDS[cls] = (cls in _REGISTERED or dataclasses.is_dataclass(cls) and (
            cls is not type) or issubclass(cls, tuple) and hasattr(cls, "_fields"))
    return known


def _fields_of(value):
    cls = type(value)
    if cls in _REGISTERED:
        return dict(_REGISTERED[cls][0](value))
    if isinstance(value, tuple):
        return dict(zip(cls._fields, value))
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return {name: getattr(value, name) for name in names}


_LEAVES = frozenset({float, int, complex, bool, type(None), np.ndarray, np.float64,
                     np.float32, np.complex128})  # (never records: checked at once)


def has_records(value):
    """Whether ``value`` is a record or a list, tuple or dict holding one (at any depth)."""
    cls = type(value)
    if cls in _LEAVES:
        return False
    if cls is list or cls is tuple:
        return any(type(v) not in _LEAVES and has_records(v) for v in value)
    if cls is dict:
        return any(type(v) not in _LEAVES and has_records(v) for v in value.values())
    return is_record(value)


def flatten(value):
    """``value`` with every record in it (itself, or inside lists, tuples, dicts and
    records) read as the dict of its fields; ``value`` itself when it holds none."""
    if type(value) in _LEAVES:
        return value
    if is_record(value):  # (a leaf as it is: no call for it)
        return {k: v if type(v) in _LEAVES else flatten(v) for k, v in _fields_of(value).items()}
    if type(value) in (list, tuple) and has_records(value):
        return type(value)(flatten(v) for v in value)
    if type(value) is dict and has_records(value):
        return {k: flatten(v) for k, v in value.items()}
    return value


def shape(value):
    """The records' classes and places in ``value`` (for a cache key: the leaves' kinds are
    in the key of what :func:`flatten` gives)."""
    return spec(value)


def unflatten(like, grads):
    """``grads`` (shaped as :func:`flatten` gives ``like``) with each dict in the place of a
    record of ``like`` made a record of its class again."""
    if is_record(like) and isinstance(grads, dict):
        example = _fields_of(like)
        return _made_like(like, {k: unflatten(example[k], v) if k in example and type(
            example[k]) not in _LEAVES else v for k, v in grads.items()})
    if type(like) in (list, tuple) and isinstance(grads, (list, tuple)) and \
            len(grads) == len(like) and has_records(like):
        return type(grads)(unflatten(a, g) for a, g in zip(like, grads))
    if type(like) is dict and isinstance(grads, dict) and has_records(like):
        return {k: unflatten(like[k], g) if k in like else g for k, g in grads.items()}
    return grads


def _field(record, name):
    return _fields_of(record)[name]


def rewrite(source, records):
    """Change ``source.node`` so that the parameters in ``records`` (name -> an example
    record, or a container holding records) are read as dicts: ``p.w`` -> ``p["w"]``,
    ``layers[0].w`` -> ``layers[0]["w"]``. Refuses any other use of them."""
    fdef = source.node
    for node in walk_nodes(fdef):  # a nested function whose own parameter has the name
        if node is not fdef and isinstance(node, (gast.FunctionDef, gast.Lambda)):
            args = node.args
            own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
            own |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
            if own & set(records):
                line = getattr(node, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"a nested function's parameter is named like the record "
                    f"{sorted(own & set(records))[0]!r}", filename=source.filename,
                    lineno=line, construct=source.line_text(line),
                    hint="give the nested function's parameter another name")
    source.records = dict(records)  # (the lowering of this tree is not kept: pipeline.to_ssa)
    trees = {name: _as_read(spec(value)) for name, value in records.items()}
    records = {name: value for name, value in records.items() if is_record(value)}
    record_replace.rewrite(fdef, records, source)  # dataclasses.replace(p, w=v): Rec(...)
    _passed_on(fdef, records, source)
    _replace_reads(fdef, records, source)
    local = passed_calls.bound_names(fdef)  # model.predict(p, x), model a local
    methods = {id(a) for call in walk_nodes(fdef) if isinstance(call, gast.Call) and
               isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name)
               and call.func.value.id in local
               for a in call.args + [k.value for k in call.keywords]}
    for node in walk_nodes(fdef):  # what is left: a use srcad cannot follow
        if isinstance(node, gast.Name) and node.id in records and not getattr(
                node, "_srcad_record", False):
            if isinstance(node.ctx, gast.Param):
                continue
            line = getattr(node, "lineno", None)
            if id(node) in methods:  # model.predict(p, x), model not known here
                raise UnsupportedSyntaxError(
                    f"the record {node.id!r} ({type(records[node.id]).__name__}) is passed "
                    "to a method of an object srcad does not know where the function is made",
                    filename=source.filename, lineno=line, construct=source.line_text(line),
                    hint="differentiate the bound method (srcad.grad(model.loss)), whose "
                    "object srcad knows, or make it a module-level function or a static "
                    "method called through its class (Model.predict(p, x))")
            raise UnsupportedSyntaxError(
                f"the record {node.id!r} ({type(records[node.id]).__name__}) is differentiated "
                "when the function reads its fields (p.w) or passes it whole to a function of "
                "yours, not when it is used whole otherwise (returned, indexed, assigned, a "
                "method called, passed to something else)",
                filename=source.filename, lineno=line, construct=source.line_text(line),
                hint=f"read the fields here ({node.id}.field) and pass them on one by one, or "
                "pass the record to a function of yours that reads them")
    passed_trees.rewrite(source, fdef, trees, passed_records.binder(source, fdef),
                         passed_records)
    return source


def spec(value):
    """What ``value`` holds, for :mod:`srcad.frontend.passed_calls` and
    :mod:`srcad.frontend.passed_trees` (a *tree spec*): for a record, its class, whether it is
    read by position (a named tuple), its fields' specs; for a list or tuple holding records
    ``("seq", type, items' specs)``, for a dict ``("dict", dict, ((key, spec), ...))``; None
    for a value holding no record (a leaf)."""
    if is_record(value):
        ordered = type(value) not in _REGISTERED and isinstance(value, tuple)
        return (type(value), ordered, tuple((k, spec(v)) for k, v in _fields_of(value).items()))
    if type(value) in (list, tuple):
        items = tuple(spec(v) for v in value)
        return ("seq", type(value), items) if items.count(None) != len(items) else None
    if type(value) is dict:
        items = tuple((k, spec(v)) for k, v in value.items())
        return ("dict", dict, items) if any(s is not None for _, s in items) else None
    return None


def _as_read(tree):
    """The spec of a ``wrt`` argument as the function reads it after :func:`rewrite`: a
    record (``p["layers"]``) as a dict; None when nothing in it is a record any more."""
    if tree is None or tree[0] in ("seq", "dict"):
        return tree
    fields = tuple((k, s if s is None or s[0] in ("seq", "dict") else _as_read(s))
                   for k, s in tree[2])
    return ("dict", dict, fields) if any(s is not None for _, s in fields) else None


def _passed_on(fdef, records, source):
    """``predict(p, x)`` -> ``predict_fields(p["w"], p["b"], x)`` (a copy of ``predict``
    taking the fields: :mod:`srcad.frontend.passed_records`); ``w, b = p`` (a named tuple) ->
    ``w, b = p["w"], p["b"]``."""
    specs = {name: spec(value) for name, value in records.items()}

    def record(node):
        chain = []
        while isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
            chain.insert(0, node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id not in specs or \
                not isinstance(node.ctx, gast.Load):
            return None
        top = at = specs[node.id]
        for attr in chain:
            at = dict(at[2]).get(attr)
            if not passed_calls.is_record_spec(at):
                return None
        root, prefix = node, tuple(chain)

        def leaves():
            made = []
            for path in passed_calls.leaf_paths(top):
                if path[:len(prefix)] != prefix:
                    continue
                out = gast.Name(id=root.id, ctx=gast.Load(), annotation=None, type_comment=None)
                out._srcad_record = True
                for key in path:
                    out = gast.Subscript(value=out, slice=gast.Constant(value=key, kind=None),
                                         ctx=gast.Load())
                made.append(out)
            return made

        return at, leaves

    bind = passed_records.binder(source, fdef)
    objects = passed_calls.constant_objects(source, fdef)  # a bound method's object

    class PassedOn(gast.NodeTransformer):
        def visit_Attribute(self, node):  # p.total, a property: its getter's copy
            found = passed_records.rewrite_record_property(source, node, record, bind,
                                                           objects=objects)
            return found if found is not None else self.generic_visit(node)

        def visit_Call(self, node):
            if not passed_records.rewrite_record_method(source, node, record, bind,
                                                        objects=objects):
                passed_records.rewrite_call(source, node, record, bind, objects=objects)
            self.generic_visit(node)
            return node

        def visit_Assign(self, node):
            passed_calls.unpacked(node, record)
            self.generic_visit(node)
            return node

        def visit_Subscript(self, node):  # p[0] (a named tuple): the field
            found = passed_calls.by_index(node, record)
            if found is not None:
                return found
            self.generic_visit(node)
            return node

    PassedOn().visit(fdef)


def _replace_reads(node, records, source):
    for field, child in gast.iter_fields(node):
        items = child if isinstance(child, list) else [child]
        for i, item in enumerate(items):
            if not isinstance(item, gast.AST):
                continue
            new = _read(item, records, source)
            if new is item:
                _replace_reads(item, records, source)
            elif isinstance(child, list):
                child[i] = new
            else:
                setattr(node, field, new)


def _read(node, records, source):
    """``node`` with the record read it is (``p.a.b``) turned into subscripts, else itself."""
    chain, root = [], node
    while isinstance(root, gast.Attribute):
        chain.insert(0, root)
        root = root.value
    if not chain or not isinstance(root, gast.Name) or root.id not in records:
        return node
    value, out = records[root.id], gast.Name(id=root.id, ctx=gast.Load(), annotation=None,
                                              type_comment=None)
    out._srcad_record = True
    gast.copy_location(out, root)
    for k, attr in enumerate(chain):
        if not is_record(value):  # a field's own attributes: p.w.shape is p["w"].shape
            for rest in chain[k:]:
                out = gast.copy_location(gast.Attribute(value=out, attr=rest.attr,
                                                        ctx=rest.ctx), rest)
            _replace_reads(out, records, source)
            return out
        if not isinstance(attr.ctx, gast.Load):
            break
        fields = flatten(value)
        if attr.attr not in fields:
            line = getattr(attr, "lineno", None)
            method = callable(getattr(type(value), attr.attr, None))
            raise UnsupportedSyntaxError(
                f"{attr.attr!r} is not a field of the record {root.id!r} "
                f"({type(value).__name__}: {sorted(fields)})" + (
                    ": a method taken as a value" if method else ""),
                filename=source.filename, lineno=line, construct=source.line_text(line),
                hint=f"call it where it is read: {root.id}.{attr.attr}(v), "
                f"map(lambda v: {root.id}.{attr.attr}(v), xs)" if method else
                "read its fields, its properties, or call its methods")
        key = gast.Constant(value=attr.attr, kind=None)
        out = gast.copy_location(gast.Subscript(value=out, slice=key, ctx=gast.Load()), attr)
        value = _field(value, attr.attr)
    else:
        return out
    line = getattr(node, "lineno", None)
    raise UnsupportedSyntaxError(
        f"writing a field of the record {root.id!r}", filename=source.filename,
        lineno=line, construct=source.line_text(line),
        hint="build the new value in a local name and return it")


def records_among(values, wrt):
    """The ``wrt`` arguments that are records or hold records (in lists, tuples, dicts):
    name -> the value."""
    return {name: values[name] for name in wrt if has_records(values.get(name))}


def wrap(fn, params, records, mode, single, wrt, flat=True):
    """``fn`` (generated for the records as dicts) called with the records themselves: they
    go in as dicts, their gradients come out as records again, of the example's classes
    (the cache key holds the classes and the fields' kinds, so every call's are the same);
    ``grad`` of records holding none: :func:`_wrap_flat` (``flat``)."""
    seed = 1 if mode == "vjp" else 0  # a vjp's code takes the output's gradient first
    positions = {params.index(name) + seed: name for name in records}
    if flat and mode in ("grad", "value_and_grad") and flat_records(records):
        return _wrap_flat(fn, params, records, single, wrt, positions, mode)

    def with_records(*args, **kwargs):
        args = list(args)
        if seed and args and has_records(args[0]):  # the gradient of a derivative's record
            args[0] = flatten(args[0])
        for i, name in positions.items():
            if i < len(args):
                args[i] = flatten(args[i])
            elif name in kwargs:
                kwargs[name] = flatten(kwargs[name])
        return as_records(fn(*args, **kwargs), records, mode, single, wrt)

    return with_records


def _wrap_flat(fn, params, records, single, wrt, positions, mode):
    """:func:`wrap` for ``grad`` (``value_and_grad``: the value beside) of records holding no
    record (the cache key holds their
    classes and the places of records in them, so every call's are such): each goes in as
    the dict of its fields (what :func:`flatten` gives), each gradient that is a dict comes
    out as a record of its example's class (what :func:`unflatten` makes); keywords or fewer
    arguments take the general wrapper."""
    order = [records.get(w) for w in wrt]
    at = [(i, _fields_of) for i in positions]
    general = wrap(fn, params, records, mode, single, wrt, flat=False)
    pair = mode == "value_and_grad"

    def with_flat_records(*args, **kwargs):
        if kwargs or len(args) != len(params):
            return general(*args, **kwargs)
        args = list(args)
        for i, read in at:
            args[i] = read(args[i])
        grads = fn(*args)
        if pair:
            value, grads = grads
            return value, as_flat_records(grads, order, single)
        return as_flat_records(grads, order, single)

    return with_flat_records


def flat_records(records):
    """Whether ``records`` (name -> value) are all records holding no record."""
    return all(is_record(r) and not any(map(has_records, _fields_of(r).values()))
               for r in records.values())


def as_flat_records(grads, order, single):
    """:func:`as_records` of ``grad``'s ``grads`` for :func:`flat_records` (``order``: each
    ``wrt`` argument's example record, or None): each dict made a record of its class."""
    if single:
        like = order[0]
        return _made_like(like, grads) if like is not None and isinstance(grads, dict) else grads
    return tuple([_made_like(like, g) if like is not None and isinstance(g, dict) else g
                  for like, g in zip(order, grads)])


def as_records(result, records, mode, single, wrt):
    """``result`` of a derivative made for ``records`` read as dicts (see :func:`wrap`) with
    the gradients of the records made records again."""
    order = [records.get(w) for w in wrt]
    if mode == "grad_aux":  # (gradients, aux); value_and_grad's: ((value, aux), gradients)
        return as_records(result[0], records, "grad", single, wrt), result[1]
    value, grads = result if mode.startswith("value_and_grad") else (None, result)
    items = [grads] if single else list(grads)
    items = [unflatten(like, g) if like is not None else g for like, g in zip(order, items)]
    grads = items[0] if single else tuple(items)
    return (value, grads) if mode.startswith("value_and_grad") else grads


def flatten_records(values, positions=None):
    """``values`` with each record among them (those at ``positions``: any holding records)
    read as its dict (:func:`flatten`)."""
    if positions is not None:
        return [flatten(v) if i in positions else v for i, v in enumerate(values)]
    return [flatten(v) if is_record(v) else v for v in values]


# ---------------------------------------------------------------- trees of values (Jacobians)


def is_tree(value):
    """Whether ``value`` is a container of values (tuple, list, dict or record), not a leaf."""
    return isinstance(value, (tuple, list, dict)) or is_record(value)


def leaves(value):
    """``(leaves, build)``: the numbers and arrays in ``value`` (tuples, lists, dicts and
    records, nested; a dict's and a record's in the order of their fields), and a function
    building a value of the same structure from as many leaves."""
    if not is_tree(value):
        return [value], lambda items: items[0]
    if is_record(value):
        keys, parts = list(_fields_of(value)), list(_fields_of(value).values())
    elif isinstance(value, dict):
        keys, parts = list(value), list(value.values())
    else:
        keys, parts = None, list(value)
    found, builds, counts = [], [], []
    for part in parts:
        items, build = leaves(part)
        found += items
        builds.append(build)
        counts.append(len(items))

    def build(items):
        made, start = [], 0
        for count, part_build in zip(counts, builds):
            made.append(part_build(items[start:start + count]))
            start += count
        if is_record(value):
            return _made_like(value, dict(zip(keys, made)))
        if isinstance(value, dict):
            return dict(zip(keys, made))
        return type(value)(made) if type(value) in (tuple, list) else tuple(made)

    return found, build


def _made_like(like, fields):
    """A record of ``like``'s class holding ``fields`` (its nested records already made)."""
    cls = type(like)
    if cls in _REGISTERED:
        return _REGISTERED[cls][1](fields)
    if isinstance(like, tuple):
        return cls(**fields)
    init = _INIT.get(cls)
    if init is None:
        init = _INIT[cls] = frozenset(f.name for f in dataclasses.fields(like) if f.init)
    made = cls(**{k: v for k, v in fields.items() if k in init})
    for k, v in fields.items():  # fields not set by __init__
        if k not in init:
            object.__setattr__(made, k, v)
    return made

fields_of, made_like = _fields_of, _made_like  # (read by srcad.jacobian_leaves)
