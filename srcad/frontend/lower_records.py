"""Records built inside the function: named tuples and dataclasses read field by field.

``p = Pt(x, y)`` / ``return p.x * p.y`` (``Pt`` a named tuple or a dataclass) is, after this
pass (on the parsed tree, before desugaring), ``p_x, p_y = x, y`` / ``return p_x * p_y``: each
field is a local name of its own, so the gradient flows through the fields as through any
local (scalar replacement of an aggregate; exact, nothing is approximated). Also read so:

* ``Pt(*vals)`` and ``Pt._make(vals)``: ``p_x, p_y = vals``;
* keyword arguments and the class's constant defaults (``Pt(y=b, x=a)``);
* ``q = p._replace(x=e)`` and ``q = dataclasses.replace(p, x=e)``: ``q_x, q_y = e, p_y``;
* ``p.x = e`` (a dataclass that is not frozen) in the function's own body: ``p_x = e``;
* ``predict(Pt(a, b), x)``, a record built as the argument of a function of the user's (nested
  records too): ``predict_fields(a, b, x)``, the copy of :mod:`.passed_records`;
* ``predict(p, x)``, the record passed whole to a function of the user's: a call of a copy of
  ``predict`` taking the fields, ``predict_fields(p_x, p_y, x)`` (:mod:`.passed_records`); not
  for a record whose fields the function writes (what ``predict`` keeps of it, a closure or a
  generator, would read them later), nor when the copy is refused (the refusal is kept: it is
  the error if the record is differentiated; a record of constants goes whole, as before);
* ``a, b = p`` and ``p[0]`` (a named tuple): the fields by position.

A name is read so only when every binding of it is one of those forms (of one class) and every
use reads a field: a record used whole (returned, passed on, aliased, a method called) keeps
the call, which is then refused at the user's line with a hint. The class must build its
instances the standard way: a named tuple's own ``__new__``, a dataclass's generated
``__init__`` without ``__post_init__`` or ``init=False`` fields, plain attribute access.

Imports: the standard library, gast, :mod:`srcad.errors`, :mod:`.passed_calls` and
:mod:`.passed_records`.
"""

from __future__ import annotations

import dataclasses
import inspect
import types

import gast

from ..core.walk import walk_nodes
from ..errors import MissingRuleError, SrcadError
from . import (
    function_fields,
    inline_objects,
    nested_records,
    object_lists,
    passed_calls,
    passed_records,
    plain_classes,
    plain_inits,
    plain_lists,
    rebuilt_records,
    record_lists,
    record_tuples,
    record_uses,
    returned_records,
)
from .built_records import bind_fields, record_fields, resolve_any

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


class _AnyNames(dict):
    def __missing__(self, key):
        return "_"


_ANY = _AnyNames()


def _name(id_, ctx):
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def lower(src):
    """Rewrite ``src.node`` in place, see above."""
    fdef = src.node
    returned_records.unpack_returned(src, fdef, passed_records.binder)  # a, b = two(w)
    _built_in_place(src, fdef)
    object_lists.prepare(src, fdef)  # Seq([Dense(a), Dense(b)]): the list taken apart
    inline_objects.prepare(src, fdef)  # C(a).m(x): the object named first
    rebuilt = plain_lists.rebuild_in_function(src, fdef)  # for l in net.layers: rebuilt
    record_tuples.prepare(src, fdef)  # (Layer(a), Layer(b)) read item by item: a list
    record_lists.prepare(src, fdef)  # layers.append(Layer(w, b)): a list per field
    nested_records.prepare(src, fdef)  # m = MLP(Lin(w, b), l2): records held, read so too
    stores, bad = {}, set()
    parents, local = {}, passed_calls.bound_names(fdef)  # (what follows reads the tree only)
    for node in walk_nodes(fdef):
        for child in gast.iter_child_nodes(node):
            parents[child] = node
    for node in walk_nodes(fdef):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            bad.update(node.names)
        elif isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            parent = parents.get(node)
            if isinstance(node.ctx, gast.Store) and isinstance(parent, gast.Assign) and \
                    parent.targets == [node]:
                stores.setdefault(node.id, []).append(parent)
            else:
                bad.add(node.id)
    built = {}  # name -> (class, [(assign, how)])
    for name, assigns in stores.items():
        if name in bad:
            continue
        kinds = [_construct(src, a.value, local) for a in assigns]
        if all(k is not None for k in kinds):
            built[name] = list(zip(assigns, kinds))
    changed, why = True, {}
    while changed:  # a _replace of a name not read so, or classes that differ: not read so
        changed = False
        for name, items in list(built.items()):
            classes = {_class_of(k, built) for _, k in items}
            if len(classes) != 1 or None in classes or not _uses_ok(
                    src, fdef, name, built, parents, classes, why, _holders(built),
                    local) or any(_values(
                        k, *_facts(next(iter(classes)))[:2], _ANY, _check_hold) is None
                    for _, k in items):
                del built[name]
                changed = True
    _keep_plain_refusals(src, fdef, built, stores, why)
    plain_lists.check_followed(src, rebuilt, built, why)
    if not built:
        return
    bind = None
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    names = {}
    for name, items in built.items():
        cls = _class_of(items[0][1], built)
        held = _held(built, name)
        for field in _facts(cls)[0]:
            if field in held:
                continue  # its leaves are the held record's locals
            new = f"{name}_{field}"
            while new in taken:
                new += "_"
            taken.add(new)
            names[name, field] = new
    hold = None
    for name, items in built.items():
        cls = _class_of(items[0][1], built)
        fields, defaults, _ = _facts(cls)
        for assign, kind in items:
            hold = hold or function_fields.holder(src, taken)
            values = _values(kind, fields, defaults, names, hold)
            if kind[0] in ("init", "returned"):  # g_mu, g_sigma = Gaussian_fields(mu, s)
                bind = bind or passed_records.binder(src, fdef)
                entry = plain_inits.maker(cls) if kind[0] == "init" else \
                    returned_records.maker(kind[3], cls, kind[4])
                values = gast.Call(func=_name(bind(entry), gast.Load()),
                                   args=kind[2].args, keywords=kind[2].keywords)
            held = _held(built, name)
            if held and kind[0] == "init":  # FSSD(p, k, V): k given as None, its value unused
                values.args, values.keywords = rebuilt_records.held_as_none(
                    kind[2], _bound(kind), held)
                targets = [_name(names[name, f] if f not in held else _spare(
                    f"{name}_{f}_held", taken), gast.Store()) for f in fields]
            elif held:  # m_scale = s: the records held are read through their own locals
                values = [v for f, v in zip(fields, values) if f not in held]
            if not held or kind[0] != "init":
                targets = [_name(names[name, f], gast.Store()) for f in fields
                           if f not in held]
            assign.targets = [gast.Tuple(elts=targets, ctx=gast.Store())]
            assign.value = values if not isinstance(values, list) else gast.Tuple(
                elts=values, ctx=gast.Load())
            if kind[0] == "init":  # m_act: the function the call gives, named here
                hold = hold or function_fields.holder(src, taken)
                function_fields.bind_known(src, fdef, assign, kind[2], cls, fields, [
                    names.get((name, f), f"{name}_{f}") for f in fields], taken, hold)
                rebuilt_records.verbatim(assign, cls, _bound(kind), held, fields,
                                         lambda base: _spare(base, taken))
            for node in walk_nodes(assign):
                if not hasattr(node, "lineno"):
                    gast.copy_location(node, assign)
    _Fields(src, built, names).visit(fdef)


def _keep_plain_refusals(src, fdef, built, stores, why):
    """For each object of a plain class of the user's built here and not read field by
    field: why (``src.record_refusals``, the error if it is differentiated), the class's
    refusal (:func:`.plain_classes.describe`) or the use srcad does not follow."""
    followed = {id(assign.value) for items in built.values() for assign, _ in items}
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    named = {id(assign.value): name for name, assigns in stores.items() for assign in assigns}
    for node in walk_nodes(fdef):
        if not isinstance(node, gast.Call) or id(node) in followed or \
                not hasattr(node, "lineno"):
            continue
        cls = resolve_any(src, node.func)
        rebuilt = cls is record_lists.made_of and node.args  # an item of a list of them
        passed = cls is rebuilt_records.object_of and node.args  # a record passed here
        if rebuilt or passed:
            cls = resolve_any(src, node.args[0])
        if not plain_classes.user_class(cls) or dataclasses.is_dataclass(cls) or \
                issubclass(cls, tuple):
            continue
        spelled = cls.__name__
        found = plain_classes.describe(cls)
        if isinstance(found, plain_classes.Refused):
            record_uses.keep_refusal(src, found.error(spelled, cls), [node.lineno])
            continue
        if found is None:
            continue
        use = why.get(named.get(id(node)))
        at = use if use is not None and hasattr(use, "lineno") else node
        what = ("an item of a list of them, " if rebuilt else "") + (
            "a record passed to this function, " if passed else "") + (
            "used in a way srcad does not follow field by field" if use is not None else
                "not assigned to a name of its own (built inside an expression, a container, "
                "or a name bound to other values too)")
        holder = record_uses.holder_class(src, node, parents)  # Seq([Dense(...), ...])
        record_uses.keep_refusal(src, MissingRuleError(
            f"an object of your class {spelled} built from differentiated values, {what}: "
            "srcad follows such an object when every use reads an attribute, calls a method "
            "or property, or passes it to a function of yours",
            filename=src.filename, lineno=at.lineno, construct=src.line_text(at.lineno),
            hint=f"build the {spelled} objects in {holder}.__init__ from the values it is "
            f"given (self.layers = [{spelled}(W, b) for W, b in zip(Ws, bs)], or self.fc1 = "
            f"{spelled}(W, b)), which srcad follows" if holder else
            f"name it (g = {spelled}(...)) and read its attributes, call its methods or "
            "pass it to a function of yours; do not return it, store it in a container, "
            "compare it, write its attributes or alias it; or pass the values themselves"),
            [node.lineno])


def _built_in_place(src, fdef):
    """``predict(Pt(a, b), x)`` -> ``predict_fields(a, b, x)`` (nested records built in place
    too): a record built as an argument of a function of the user's. (A rewritten call binds
    no name: ``local`` holds for the whole walk.)"""
    bind, local = None, passed_calls.bound_names(fdef)

    def record(node):
        return _in_place(src, node, local)

    for call in [n for n in walk_nodes(fdef) if isinstance(n, gast.Call)]:
        if any(record(a) for a in call.args + [k.value for k in call.keywords]):
            bind = bind or passed_records.binder(src, fdef)
            try:
                passed_records.rewrite_call(src, call, record, bind)
            except SrcadError as exc:  # left as it is (a constant record is passed whole)
                record_uses.keep_refusal(src, exc, [made.lineno for node in call.args + [
                    k.value for k in call.keywords] for made in walk_nodes(node)
                    if isinstance(made, gast.Call) and hasattr(made, "lineno")])


def _in_place(src, node, local):
    """``(spec, leaves)`` of ``node`` when it builds a record (``Pt(a, b)``; its arguments
    in the order of its fields, so that they run in the order they did; a constant default
    for a field not given), else None; an argument building a record is read so too. A class
    named by a name in ``local`` (bound in the function) is not looked up."""
    func = getattr(node, "func", None)
    while isinstance(func, gast.Attribute):
        func = func.value
    if isinstance(func, gast.Name) and func.id in local:
        return None
    kind = _construct(src, node, local)
    if kind is None or kind[0] != "new":
        return None
    cls, call = kind[1], kind[2]
    fields, defaults, _ = record_fields(cls)
    values = _values(kind, fields, defaults, _ANY)
    if not isinstance(values, list):
        return None
    given = call.args + [k.value for k in call.keywords]
    places = [next(i for i, v in enumerate(values) if v is g) for g in given]
    if places != sorted(places):
        return None
    inner = [_in_place(src, v, local) for v in values]
    spec = (cls, issubclass(cls, tuple), tuple(
        (f, sub[0] if sub else None) for f, sub in zip(fields, inner)))

    def leaves():
        out = []
        for value, sub in zip(values, inner):
            out += sub[1]() if sub else [value]
        return out

    return spec, leaves


def spec_of(cls):
    """The :mod:`.passed_calls` spec of a record of ``cls`` read so (its fields leaves)."""
    return (cls, issubclass(cls, tuple), tuple((f, None) for f in _facts(cls)[0]))


def _construct(src, value, local=None):
    """What ``value`` (an assigned expression) builds: ("new", cls, call), ("make", cls,
    arg), ("replace", name, keywords) or None. ``local``: the names ``src.node`` binds
    (:func:`.passed_calls.bound_names`), when the caller has them."""
    if not isinstance(value, gast.Call):
        return None
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "_replace" and \
            isinstance(func.value, gast.Name) and not value.args:
        return ("replace", func.value.id, value.keywords)
    if isinstance(func, gast.Attribute) and func.attr == "_make" and len(value.args) == 1 \
            and not value.keywords:
        cls = _resolve(src, func.value)
        if cls is not None and issubclass(cls, tuple):
            return ("make", cls, value.args[0])
        return None
    target = resolve_any(src, func)
    if target is dataclasses.replace:
        if len(value.args) == 1 and isinstance(value.args[0], gast.Name) and \
                all(k.arg for k in value.keywords):
            return ("replace", value.args[0].id, value.keywords)
        return None
    if isinstance(target, type) and record_fields(target) is not None:
        return ("new", target, value)
    if plain_classes.user_class(target) and plain_classes.fields_of(target) is not None:
        return ("init", target, value)  # built by the copy of its __init__
    if target in (record_lists.made_of, rebuilt_records.object_of) and value.args and \
            len(value.args) == 1:
        cls = resolve_any(src, value.args[0])  # an item of a list of records, rebuilt
        if plain_classes.fields_of(cls) is not None:
            return ("fields", cls, value)
        return None
    if local is None:
        local = passed_calls.bound_names(src.node)
    fn, owner = passed_calls.callee(src, value.func, local=local), None
    if fn is None:  # Lin.create(w), a class method of the user's: cls is Lin
        bound = resolve_any(src, value.func, local)
        if inspect.ismethod(bound) and isinstance(bound.__self__, type) and \
                passed_calls.callee_function(bound.__func__):
            fn, owner = bound.__func__, bound.__self__
    cls = fn and returned_records.returned_class(fn, owner)
    if cls is not None and not any(isinstance(a, gast.Starred) for a in value.args):
        return ("returned", cls, value, fn, owner)  # p = make(w, b): its copy returns fields
    return None


def _facts(cls):
    """``(fields, defaults, mutable)`` of a record class (:func:`record_fields`) or of a plain
    class built by the copy of its ``__init__`` (no defaults read: the copy binds them; its
    fields are written only by ``__init__``)."""
    facts = record_fields(cls)
    if facts is None and plain_classes.fields_of(cls) is not None:
        return plain_classes.fields_of(cls), {}, False
    return facts


def _resolve(src, node):
    cls = resolve_any(src, node)
    return cls if isinstance(cls, type) and record_fields(cls) is not None else None


def _class_of(kind, built):
    """The one class ``kind`` builds (through the names a replace copies), else None."""
    todo, seen, classes = [kind], set(), set()
    while todo:
        k = todo.pop()
        if k[0] != "replace":
            classes.add(k[1])
            continue
        if k[1] not in built:
            return None
        if k[1] not in seen:
            seen.add(k[1])
            todo.extend(other for _, other in built[k[1]])
    return classes.pop() if len(classes) == 1 else None


def _uses_ok(src, fdef, name, built, parents, classes, why=None, holders=frozenset(),
             local=None):
    """Every use of ``name`` reads (or, mutable and in the function's own body, writes) a
    field, is the record a ``_replace``/``replace`` of a name read so copies, passes the record
    whole to a function of the user's (:mod:`.passed_records`), or (a named tuple) unpacks it
    or reads a field by a constant index, or (not written) is held in a field of a record
    read so (``holders``: those uses). ``why`` (a dict) gets the first use that is none
    of those, under ``name``. ``local``: the names ``fdef`` binds, when the caller has them."""
    cls = next(iter(classes))
    fields, _, mutable = _facts(cls)

    def record(node):
        if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load):
            return _spec(built, name), list
        return None

    held = _held(built, name)

    # a field written here (p.x = e): the record is not passed on (the function it is passed
    # to could keep it, in a closure or a generator, and read the field after the write)
    written = any(isinstance(n, gast.Attribute) and not isinstance(n.ctx, gast.Load) and
                  isinstance(n.value, gast.Name) and n.value.id == name
                  for n in walk_nodes(fdef))
    for node in _walk_scoped(fdef):
        node, nested = node
        if not isinstance(node, gast.Name) or node.id != name or \
                not isinstance(node.ctx, gast.Load):
            continue
        parent = parents.get(node)
        if id(node) in holders and not written:
            continue  # m = MLP(l1, l2): l1 read through its own locals
        if isinstance(parent, gast.Attribute) and parent.value is node:
            if parent.attr in held:  # (a read nested_records did not make the held name's)
                return _bad(why, name, node)
            if parent.attr == "_replace" and isinstance(parent.ctx, gast.Load):
                continue  # checked below
            if parent.attr not in fields:
                if isinstance(parent.ctx, gast.Load) and not isinstance(
                        parents.get(parent), gast.Call) and \
                        plain_classes.class_constant(cls, parent.attr):
                    continue  # p.K, a value of the class: read through the class
                if record_uses.method_call_copied(
                        src, parent, parents, node, record, written, built[name]) or \
                        record_uses.property_copied(src, parent, node, record, written,
                                                    built[name]):
                    continue  # p.predict(x), p.total: the copy of the class's function
                return _bad(why, name, node)
            if isinstance(parent.ctx, gast.Load):
                continue
            if isinstance(parent.ctx, gast.Store) and mutable and not nested:
                continue
            return _bad(why, name, node)
        call = parent
        if isinstance(call, gast.Call) and call.args and call.args[0] is node and \
                record_uses.is_replace_source(call, parents, built):
            continue
        if record_uses.field_read(src, call, node) in fields:
            continue  # field_of(p, "layers__W"): the field (plain_lists)
        if isinstance(parent, gast.keyword):
            call = parents.get(parent)
        if isinstance(call, gast.Call) and call.func is node and record_uses.method_call_copied(
                src, node, parents, node, record, written, built[name], "__call__"):
            continue  # p(x): the copy of the class's __call__
        if isinstance(call, gast.Call) and call.func is not node and not written:
            fn = passed_calls.callee(src, call.func, local=local)
            found = fn is not None and passed_calls.binding(fn, call, record)
            if found and record_uses.copied(src, fn, found, built[name]):
                continue  # passed whole to a function of the user's
        if issubclass(cls, tuple) and record_uses.by_position(node, parent, len(fields)):
            continue
        return _bad(why, name, node)
    for node, _ in _walk_scoped(fdef):  # p._replace(...) only as a record read so
        if isinstance(node, gast.Attribute) and node.attr == "_replace" and \
                isinstance(node.value, gast.Name) and node.value.id == name:
            call = parents.get(node)
            if not (isinstance(call, gast.Call) and
                    record_uses.is_replace_source(call, parents, built)):
                return False
    return True


def _bound(kind):
    """The ``(field, value)`` pairs a construction ``Pt(a, b)`` binds (of ``FSSD(p, k, V)``,
    built by its ``__init__``: those set to an argument unchanged), else None."""
    if kind[0] == "init":
        return rebuilt_records.init_bound(kind[1], kind[2])
    facts = record_fields(kind[1]) if kind[0] == "new" else None
    return None if facts is None else bind_fields(kind[2], *facts[:2])


def _spare(base, taken):
    """A new name (a field's value not used)."""
    while base in taken:
        base += "_"
    taken.add(base)
    return base


def _held(built, name):
    return nested_records.held(built, _bound, name)


def _holders(built):
    """The ids of the names given to a field of a record read so that holds them."""
    out = set()
    for name, items in built.items():
        held = _held(built, name)
        out.update(id(value) for field, value in _bound(items[0][1]) or ()
                   if field in held)
    return out


def _spec(built, name):
    """The spec of the record ``name`` reads (the records its fields hold nested)."""
    cls = _class_of(built[name][0][1], built)
    held = _held(built, name)
    return (cls, issubclass(cls, tuple), tuple(
        (f, _spec(built, held[f]) if f in held else None) for f in _facts(cls)[0]))


def _leaves(built, names, name):
    """The locals of the leaves of the record ``name`` reads, in spec order."""
    cls = _class_of(built[name][0][1], built)
    held, out = _held(built, name), []
    for f in _facts(cls)[0]:
        out += _leaves(built, names, held[f]) if f in held else [
            _name(names[name, f], gast.Load())]
    return out


def _bad(why, name, node):
    if why is not None:
        why.setdefault(name, node)
    return False


def _walk_scoped(fdef):
    """(node, inside a nested function) for every node of ``fdef``."""
    todo = [(fdef, False)]
    while todo:
        node, nested = todo.pop()
        yield node, nested
        inner = nested or (node is not fdef and isinstance(node, _SCOPES))
        todo.extend((c, inner) for c in gast.iter_child_nodes(node))


def _check_hold(value, base):
    """A ``hold`` for checks only: the name is not used."""
    return base


def _values(kind, fields, defaults, names, hold=None):
    """The assigned value(s) for the fields: a list of expressions, or one expression
    unpacked (``*vals``), or None when the arguments do not fit."""
    if kind[0] == "make":
        return kind[2]
    if kind[0] in ("init", "returned"):
        return kind[2]  # (the call of the copy of __init__ or of the function: lower)
    if kind[0] == "fields":  # made_of(C, w=v, ...): the values, in the order of the fields
        given = {k.arg: k.value for k in kind[2].keywords}
        return [given[f] for f in fields] if set(given) == set(fields) else None
    if kind[0] == "replace":
        given = {k.arg: k.value for k in kind[2]}
        if set(given) - set(fields):
            return None
        return [given.get(f) or _name(names[kind[1], f], gast.Load()) for f in fields]
    call = kind[2]
    if len(call.args) == 1 and isinstance(call.args[0], gast.Starred) and not call.keywords:
        return call.args[0].value
    bound = bind_fields(call, fields, defaults, hold)
    return None if bound is None else [value for _, value in bound]


class _Fields(gast.NodeTransformer):
    """``p.x`` -> ``p_x`` for the names read so; ``predict(p, x)`` -> a call of ``predict``'s
    copy taking the fields; ``a, b = p`` -> ``a, b = p_x, p_y``; ``p[0]`` -> ``p_x``."""

    def __init__(self, src, built, names):
        self.src, self.built, self.names = src, built, names

    def record(self, node):
        """``(spec, leaves)`` of a name read so, else None (see :mod:`.passed_calls`)."""
        if not (isinstance(node, gast.Name) and node.id in self.built and
                isinstance(node.ctx, gast.Load)):
            return None
        return _spec(self.built, node.id), lambda: _leaves(self.built, self.names, node.id)

    def visit_Call(self, node):
        field = record_uses.field_read(self.src, node, node.args[0] if node.args else None)
        if field is not None and self.record(node.args[0]) and \
                (node.args[0].id, field) in self.names:  # field_of(p, "layers__W"): p_...
            return gast.copy_location(_name(self.names[node.args[0].id, field],
                                            gast.Load()), node)
        if passed_calls.method_receiver(node, self.record)[0] is not None:
            self.bind = getattr(self, "bind", None) or passed_records.binder(
                self.src, self.src.node)
            passed_records.rewrite_record_method(self.src, node, self.record, self.bind)
        if any(self.record(a) for a in node.args + [k.value for k in node.keywords]):
            self.bind = getattr(self, "bind", None) or passed_records.binder(
                self.src, self.src.node)
            passed_records.rewrite_call(self.src, node, self.record, self.bind)
        self.generic_visit(node)
        return node

    def visit_Assign(self, node):
        passed_calls.unpacked(node, self.record)
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        found = passed_calls.by_index(node, self.record)
        if found is not None:
            return found
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        if self.record(node.value) and (node.value.id, node.attr) not in self.names:
            self.bind = getattr(self, "bind", None) or passed_records.binder(
                self.src, self.src.node)
            found = passed_records.rewrite_record_property(self.src, node, self.record,
                                                           self.bind)
            if found is not None:
                return found
            cls = _class_of(self.built[node.value.id][0][1], self.built)
            if isinstance(node.ctx, gast.Load) and plain_classes.class_constant(cls, node.attr):
                held = self.bind((types.CellType(cls), {}, None, f"{cls.__name__}_class"))
                return gast.copy_location(gast.Attribute(  # p.K: Model.K
                    value=_name(held, gast.Load()), attr=node.attr, ctx=gast.Load()), node)
        if isinstance(node.value, gast.Name) and (node.value.id, node.attr) in self.names:
            ctx = gast.Store() if isinstance(node.ctx, gast.Store) else gast.Load()
            return gast.copy_location(_name(self.names[node.value.id, node.attr], ctx), node)
        self.generic_visit(node)
        return node
