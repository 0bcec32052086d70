"""Lists of objects passed on (issue 16): ``Seq([Dense(a), Dense(b)])``, ``run(layers, x)``.

A list (or tuple) of objects of the user's whose length is known where it is built (a list
written of them, ``layers = [Dense(W1 * w, b1), Dense(W2, b2)]``; ``[]`` then appends as
statements of the function's top level; the objects given for a ``*layers`` parameter) and
that is passed on, to a function of the user's or to a class of the user's, is taken apart
where it is built: each object gets a name of its own (``layers_0 = Dense(W1 * w, b1)``,
followed field by field by :mod:`.lower_records`), and the call becomes a call of a copy of
the function (or of a subclass made of the class) taking the objects one by one::

    def run(layers, x):               def run_2(layers_0, layers_1, x):
        for l in layers:                  x = layers_0(x)
            x = l(x)                      x = layers_1(x)
        return x                          return x

In the function (and in each copy, and in each method of a class holding the list), every
use of the list is one that reads it item by item, each rewritten where the length is known:

* ``for l in L`` (also over ``enumerate(L)``, ``reversed(L)``, a constant slice, and
  ``for i in range(len(L))``): the body once per item, ``l`` read as that item (``i`` the
  constant index); only when ``l`` (``i``) is bound by that loop only and read in its body
  only, not in a nested function, and the body has no ``break``/``continue`` of its own;
* ``L[k]`` (a constant), ``len(L)``, ``not L`` and ``if L:``, ``list(L)``, ``tuple(L)``,
  ``[e for l in L]`` and ``sum(e for l in L)`` (no ``if``), ``f(*L)`` (:mod:`.list_uses`);
* ``f(L, ...)``, ``C(L)``: passed on again (a copy again, any depth: a list of ``Seq``s);
* in ``__init__``, ``self.layers = L`` (or ``list(L)``, ``tuple(L)``) at its top level:
  the subclass's objects hold the items as fields ``layers__0``, ``layers__1``; each method
  reading ``self.layers`` is copied with the same rewrites. Only for a class whose
  ``__init__`` then only stores its parameters (``self.layers = layers``, ``self.s = s``):
  its objects are built as dataclasses are (:func:`.built_records.record_fields`), so the
  items are records held in fields (:mod:`.nested_records`).

Items may be of different classes (each item is an object of its own). Any other use of such
a list (aliased, appended to after it is passed, returned, indexed by a variable, a method of
it, ``zip``) is refused at its line (:class:`~srcad.errors.UnsupportedSyntaxError`, with the
rewrite); in the function differentiated, the refusal is kept for the lines building the
objects (the error if one of them is differentiated: a list of constants goes on as before).

Imports the standard library, gast, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`.source`,
:mod:`.built_records`, :mod:`.plain_classes`, :mod:`.list_uses` (the uses' rewrite),
:mod:`.list_copies` (the copies) and, where used, :mod:`.plain_lists`,
:mod:`.passed_records` and :mod:`.inline_objects`.
"""

from __future__ import annotations

import copy
import functools
import types

import gast

from ..core.walk import walk_nodes
from ..errors import SrcadError, UnsupportedSyntaxError
from . import plain_classes
from .built_records import record_fields, resolve_any
from .list_copies import HELD, _init_of, _signature, _target, clear, passed_on
from .list_uses import HINT, Uses, body_of, bound, display, locate, marked, name_node, replace
from .source import fresh_names

__all__ = ["clear", "followed_class", "prepare"]


def followed_class(cls):
    """Whether objects of ``cls`` are followed field by field where they are built (a record
    class, a plain class of the user's :mod:`.plain_classes` follows)."""
    return isinstance(cls, type) and (record_fields(cls) is not None or (
        plain_classes.user_class(cls) and isinstance(plain_classes.describe(cls),
                                                     plain_classes.Plain)))



def prepare(src, fdef):
    """In the function differentiated: each list of objects passed on (see above) taken
    apart where it is built, or the refusal kept for the lines building its objects."""
    from . import passed_records
    from .plain_lists import stores_of

    if not any(isinstance(n, gast.Call) for n in walk_nodes(fdef)):
        return
    while True:
        found = _candidate(src, fdef, stores_of(fdef))
        if found is None:
            return
        work = copy.deepcopy(fdef)
        try:
            _take_apart(src, work, found, passed_records.binder(src, work))
        except Exception as exc:  # (a list of constants goes on as before)
            if not isinstance(exc, SrcadError):
                line = found[-1][0] if found[-1] else None
                exc = UnsupportedSyntaxError(
                    f"srcad could not take apart this list of objects of yours passed on "
                    f"({type(exc).__name__}: {exc})", filename=src.filename, lineno=line,
                    construct=src.line_text(line), hint=HINT)
            refusals = src.__dict__.setdefault("record_refusals", {})
            for line in found[-1]:
                refusals.setdefault(line, exc)
            _mark_done(fdef, found)
            continue
        fdef.body = work.body


def _mark_done(fdef, found):
    """Note that the list ``found`` is not taken apart (its refusal is kept)."""
    fdef._srcad_objlists_skip = getattr(fdef, "_srcad_objlists_skip", set()) | {found[1]}


def _object_item(src, node, local, objects):
    if isinstance(node, gast.Name):
        return node.id in objects
    if not isinstance(node, gast.Call):
        return False
    cls = resolve_any(src, node.func, local)
    return followed_class(cls)


def _top_objects(src, fdef, local, stores):
    """Names bound once, at the top level, to an object built of a followed class."""
    out = set()
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                len(stores.get(stmt.targets[0].id, ())) == 1 and \
                _object_item(src, stmt.value, local, out):
            out.add(stmt.targets[0].id)
    return out


def _candidate(src, fdef, stores):
    """The next list to take apart, ``(kind, key, node, [lines of its objects])``: kind
    ``"name"`` (a name bound once at the top level to a list written of objects, passed on),
    ``"appended"`` (``[]`` then appends, :func:`_appended`), ``"arg"`` (a list written of
    objects as an argument of a call of a function, class or method that may take it apart)
    or ``"star"`` (objects given for the ``*args`` of one); else None. A comprehension over
    a constant range passed on is first written out (:func:`_over_range`)."""
    local = bound(fdef)
    skip = getattr(fdef, "_srcad_objlists_skip", set())
    objects = _top_objects(src, fdef, local, stores)
    owner = _owners(src, fdef)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                len(stores.get(stmt.targets[0].id, ())) == 1 and \
                _over_range(src, stmt.value, local) is not None and any(
                    _passing(src, parents, u, local, owner) for u in walk_nodes(fdef) if isinstance(
                        u, gast.Name) and u.id == stmt.targets[0].id):
            stmt.value = _over_range(src, stmt.value, local)  # [C(W[i]) for i in range(3)]
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                len(stores.get(stmt.targets[0].id, ())) == 1 and \
                isinstance(stmt.value, (gast.List, gast.Tuple)) and stmt.value.elts and \
                all(_object_item(src, e, local, objects) for e in stmt.value.elts) and \
                ("name", stmt.targets[0].id) not in skip:
            name = stmt.targets[0].id
            uses = [n for n in walk_nodes(fdef) if isinstance(n, gast.Name) and n.id == name
                    and isinstance(n.ctx, gast.Load)]
            if any(_passing(src, parents, u, local, owner) for u in uses):
                return ("name", ("name", name), stmt, _lines(stmt.value))
        appends = _appended(src, fdef, stmt, stores, local, objects, parents)
        if appends and ("name", stmt.targets[0].id) not in skip:
            return ("appended", ("name", stmt.targets[0].id), stmt,
                    _lines(*[a.value.args[0] for a in appends]))
    for node in walk_nodes(fdef):
        if not isinstance(node, gast.Call) or not _callable(src, node.func, local, owner):
            continue
        for k, arg in enumerate(node.args):
            if _over_range(src, arg, local) is not None:
                node.args[k] = arg = _over_range(src, arg, local)
        for arg in node.args + [k.value for k in node.keywords]:
            if isinstance(arg, (gast.List, gast.Tuple)) and arg.elts and not marked(arg) and \
                    all(_object_item(src, e, local, objects) for e in arg.elts) and \
                    ("arg", id(arg)) not in skip:
                arg._srcad_key = ("arg", id(arg))
                return ("arg", ("arg", id(arg)), arg, _lines(arg))
        star = _star_items(src, node, local, objects)
        if star and ("star", id(node)) not in skip:
            node._srcad_key = ("star", id(node))
            return ("star", ("star", id(node)), node, _lines(*star))
    return None


#: at most this many objects are written out of a comprehension over a constant range
MOST = 64


def _over_range(src, node, local):
    """``[C(W[i], b) for i in range(3)]`` (one ``for`` over ``range`` of constants, its name
    read in ``C(...)`` and not in a function defined there, no ``if``; ``C`` a class whose
    objects are followed) as the list written of its objects (``[C(W[0], b), C(W[1], b),
    C(W[2], b)]``: the same objects built in the same order), else None."""
    if not (isinstance(node, gast.ListComp) and len(node.generators) == 1):
        return None
    gen = node.generators[0]
    it = gen.iter
    if gen.ifs or gen.is_async or not isinstance(gen.target, gast.Name) or \
            not isinstance(it, gast.Call) or it.keywords or \
            not _builtin_range(src, it.func, local) or not 1 <= len(it.args) <= 3 or \
            any(not (isinstance(a, gast.Constant) and type(a.value) is int) for a in it.args):
        return None
    values = range(*[a.value for a in it.args])
    if not 0 < len(values) <= MOST or not isinstance(node.elt, gast.Call) or \
            not followed_class(resolve_any(src, node.elt.func, local)) or any(
                isinstance(n, (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.SetComp,
                               gast.DictComp, gast.GeneratorExp, gast.NamedExpr))
                for n in walk_nodes(node.elt)):
        return None
    elts = []
    for v in values:
        new = copy.deepcopy(node.elt)
        up = {c: n for n in walk_nodes(new) for c in gast.iter_child_nodes(n)}
        for sub in list(walk_nodes(new)):
            if isinstance(sub, gast.Name) and sub.id == gen.target.id:
                replace(up, sub, gast.copy_location(gast.Constant(value=v, kind=None), sub))
        elts.append(new)
    return locate(gast.copy_location(gast.List(elts=elts, ctx=gast.Load()), node), node)


def _builtin_range(src, func, local):
    import builtins

    return isinstance(func, gast.Name) and func.id == "range" and func.id not in local and \
        resolve_any(src, func, local) is builtins.range


def _appended(src, fdef, stmt, stores, local, objects, parents):
    """The statements ``L.append(obj)`` of ``L = []`` (``stmt``, at the top level), when
    they are statements of the top level, each appending an object, before every other use
    of ``L``, one of which passes it on; else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and
            len(stores.get(stmt.targets[0].id, ())) == 1 and
            isinstance(stmt.value, gast.List) and not stmt.value.elts):
        return None
    name, body = stmt.targets[0].id, fdef.body
    appends, last, uses = [], body.index(stmt), []
    for node in walk_nodes(fdef):
        if not (isinstance(node, gast.Name) and node.id == name and
                isinstance(node.ctx, gast.Load)):
            continue
        attr, call = parents.get(node), parents.get(parents.get(node))
        expr = parents.get(call)
        if isinstance(attr, gast.Attribute) and attr.attr == "append" and \
                isinstance(call, gast.Call) and call.func is attr and len(call.args) == 1 \
                and not call.keywords and isinstance(expr, gast.Expr) and expr in body:
            if not _object_item(src, call.args[0], local, objects):
                return None
            appends.append(expr)
        else:
            uses.append(node)
    if not appends or not uses or not any(_passing(src, parents, u, local, _owners(
            src, fdef)) for u in uses):
        return None
    last = max(body.index(a) for a in appends)
    for use in uses:
        top = use
        while parents.get(top) is not fdef:
            top = parents[top]
        if body.index(top) <= last:
            return None
    return sorted(appends, key=body.index)


def _lines(*nodes):
    return sorted({getattr(n, "lineno", None) for node in nodes for n in walk_nodes(node)
                   if getattr(n, "lineno", None) is not None})


def _star_items(src, call, local, objects):
    """The arguments of ``call`` given for the ``*args`` of the function or class of the
    user's it calls, when they are all objects (at least one built there), else None."""
    found = _target(src, call.func, local)
    if found is None or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    fn, is_class = found
    if is_class:
        fn = _init_of(fn)[1]
        if not isinstance(fn, types.FunctionType):
            return None
    positional, vararg, *_ = _signature(fn, is_class)
    items = call.args[len(positional):]
    if vararg is None or not items or not all(
            _object_item(src, a, local, objects) for a in items):
        return None
    return items


def _passing(src, parents, node, local, owner=None):
    """Whether the use ``node`` of a list gives it to a function or class of the user's (or
    to a method of an object built here: ``owner``, see :func:`_owners`)."""
    parent = parents.get(node)
    if isinstance(parent, gast.keyword):
        parent = parents.get(parent)
    elif isinstance(parent, gast.Starred):
        parent = parents.get(parent)
    return isinstance(parent, gast.Call) and parent.func is not node and \
        _callable(src, parent.func, local, owner)


def _callable(src, func, local, owner):
    """Whether a call of ``func`` may take a list apart (see :func:`_passing`)."""
    return _target(src, func, local) is not None or owner is not None and isinstance(
        func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        owner(func.value.id) is not None


def _read_all(src, fdef, bind):
    """Every marked display read item by item, and then each ``net.layers`` of an object
    of a class made here (:func:`_held_lists`) too; ``m.run(L, x)``, ``m`` an object built
    here (:func:`_owners`), passed on to the copy of its class's ``run``."""
    pass_on = functools.partial(passed_on, owner=_owners(src, fdef))
    Uses(src, fdef, bind, pass_on).run()
    while _held_lists(src, fdef):
        Uses(src, fdef, bind, pass_on).run()


def _owners(src, fdef):
    """``owner`` for :func:`.list_copies.passed_on`: a name bound once, at the top level, to
    an object of a class the function follows field by field -> ``(class, its fields)``."""
    stores, local = _stores(fdef), bound(fdef)

    def owner(name):
        if len(stores.get(name, ())) != 1:
            return None
        for stmt in fdef.body:
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name and \
                    isinstance(stmt.value, gast.Call):
                cls = resolve_any(src, stmt.value.func, local - {
                    n.id for n in walk_nodes(stmt.value.func) if isinstance(n, gast.Name)})
                if not followed_class(cls):
                    return None
                facts = record_fields(cls)
                return cls, set(facts[0] if facts else plain_classes.fields_of(cls))
        return None

    return owner


def _held_lists(src, fdef):
    """``net.layers`` read in the function, ``net`` bound once (at the top level) to an
    object of a class made by :mod:`.list_copies` holding the list as its items: the marked
    display of ``net.layers__0``, ... (read item by item). Returns whether one was."""
    stores, found = _stores(fdef), False
    for stmt in fdef.body:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], gast.Name) and
                len(stores.get(stmt.targets[0].id, ())) == 1 and
                isinstance(stmt.value, gast.Call)):
            continue
        cls = resolve_any(src, stmt.value.func, ())
        held = HELD.get(cls) if isinstance(cls, type) else None
        if not held:
            continue
        obj = stmt.targets[0].id
        parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
        for node in list(walk_nodes(fdef)):
            if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                    node.value.id == obj and node.attr in held and \
                    isinstance(node.ctx, gast.Load):
                replace(parents, node, display([gast.Attribute(
                    value=name_node(obj), attr=f"{node.attr}__{k}", ctx=gast.Load())
                    for k in range(held[node.attr])], node))
                found = True
    return found


def _stores(fdef):
    from .plain_lists import stores_of

    return stores_of(fdef)


def _take_apart(src, fdef, found, bind):
    """Name each object of the list (in the copy ``fdef``), then read the list item by item
    (:class:`_Uses`); raises the refusal."""
    from .inline_objects import evaluated_first

    kind, key = found[0], found[1]
    local = bound(fdef)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}

    fresh = fresh_names(taken)

    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    if kind == "appended":
        stmt = next(s for s in fdef.body if isinstance(s, gast.Assign) and
                    isinstance(s.targets[0], gast.Name) and s.targets[0].id == key[1])
        name = key[1]
        appends = _appended(src, fdef, stmt, _stores(fdef), local, _top_objects(
            src, fdef, local, _stores(fdef)), parents)
        items = []
        for a in appends:
            e = a.value.args[0]
            if isinstance(e, gast.Name):
                items.append(e.id)
                fdef.body.remove(a)
                continue
            items.append(fresh(f"{name}_{len(items)}"))
            k = fdef.body.index(a)
            fdef.body[k] = locate(gast.Assign(targets=[name_node(items[-1], gast.Store())],
                                               value=e, type_comment=None), a)
        fdef.body.remove(stmt)
        parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
        for node in list(walk_nodes(fdef)):
            if isinstance(node, gast.Name) and node.id == name:
                replace(parents, node, display([name_node(i) for i in items], node))
        _read_all(src, fdef, bind)
        return
    if kind == "name":
        stmt = next(s for s in fdef.body if isinstance(s, gast.Assign) and
                    isinstance(s.targets[0], gast.Name) and s.targets[0].id == key[1])
        name, elts = key[1], stmt.value.elts
        k = fdef.body.index(stmt)
        items, named = [], []
        for j, e in enumerate(elts):
            if isinstance(e, gast.Name):
                items.append(e.id)
                continue
            items.append(fresh(f"{name}_{j}"))
            named.append(locate(gast.Assign(targets=[name_node(items[-1], gast.Store())],
                                             value=e, type_comment=None), stmt))
        fdef.body[k:k + 1] = named
        for node in list(walk_nodes(fdef)):
            if isinstance(node, gast.Name) and node.id == name:
                replace(parents, node, display([name_node(i) for i in items], node))
        _read_all(src, fdef, bind)
        return
    node = next(n for n in walk_nodes(fdef) if getattr(n, "_srcad_key", None) == key)
    stmt = node
    while not isinstance(stmt, gast.stmt):
        stmt = parents[stmt]
    body = body_of(parents, stmt)
    elts = node.elts if kind == "arg" else list(node.args)  # (the arguments before the
    # objects for *args are evaluated before them: named first too)
    first = next((e for e in elts if not isinstance(e, (gast.Name, gast.Constant))), None)
    if body is None or first is not None and not evaluated_first(src, stmt, first, local):
        line = getattr(node, "lineno", None)
        raise UnsupportedSyntaxError(
            "a list of objects of yours built inside an expression, where srcad cannot "
            "name its objects first (something before them in the statement may run code)",
            filename=src.filename, lineno=line, construct=src.line_text(line),
            hint="build the list on a line of its own (layers = [Dense(...), ...]) and "
            "pass the name")
    named = []
    base = (node.func.id if isinstance(getattr(node, "func", None), gast.Name) else
            "item").lower() if kind == "star" else "items"
    for j, e in enumerate(elts):
        if isinstance(e, (gast.Name, gast.Constant)):
            continue
        new = fresh(f"{base}_{j}")
        named.append(locate(gast.Assign(targets=[name_node(new, gast.Store())], value=e,
                                         type_comment=None), stmt))
        replace(parents, e, gast.copy_location(name_node(new), e))
    k = next(j for j, s in enumerate(body) if s is stmt)
    body[k:k] = named
    if kind == "arg":
        node._srcad_objlist = True
        _read_all(src, fdef, bind)
        return
    if not passed_on(src, node, bind, local, fdef):
        line = getattr(node, "lineno", None)
        raise UnsupportedSyntaxError(
            "objects of yours given for *args of a function or class srcad does not copy",
            filename=src.filename, lineno=line, construct=src.line_text(line), hint=HINT)
    _read_all(src, fdef, bind)
