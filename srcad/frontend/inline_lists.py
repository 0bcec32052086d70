"""Lists of objects crossing a call (issue 16, objects29): the callee's body written in place.

A list of objects of a class srcad reads field by field (:mod:`.record_lists`: ``L = []``
then ``L.append(C(...))``) is taken apart into a list per field only inside one function.
Programs build such a list in one method and use it in others::

    def sample(self, w):                    def energy(self, w, x):
        nets = []                               nets = self.sample(w)
        for k in range(self.K):                 lls = self.likelihoods(nets, x)
            nets.append(Net(w * k, self.acts))  ...
        return nets                         def likelihoods(self, nets, x):
                                                return [nets[k].run(x) for k in ...]

so before :mod:`.record_lists`, a call at the top level of the function (``t = f(...)``,
``a, b = f(...)`` or ``f(...)`` as a statement; a call returning such a list evaluated first
in a top-level statement, ``for n in self.sample(w):``, ``g(self.sample(w), x)``, is first
assigned to a name of its own just before it) of a function of the user's is replaced by
the function's body when the function returns such a list (its last statement ``return L``,
its only ``return``) or is given one (an argument naming a list built so in the caller):
the callee's own names renamed (fresh, or the caller's target for the list returned), its
parameters bound to the arguments in order (a name given is read as that name; any other
argument assigned to the parameter's new name first, in order, as Python evaluates them;
a default left out, when it is a number, a string, None or a bool), ``return e`` the
assignment of ``e`` to the targets. The list is then built and used in one function and
read item by item there (again for a callee of the inlined body given the list: any depth,
at most :data:`MOST` calls). Exact: the statements run are the callee's, in its order, on
the same values.

Only a plain function of the user's (a free name, or ``self.m`` of a parameter whose class
the specialisation knows: the class's function, after ``check_method(self, "m")`` where the
call ran), with the caller's globals and file, no closure (no ``super()``), no ``*args`` or
``**kwargs``, no nested function, class, lambda, generator, ``global`` or ``nonlocal``, none
of its free names bound in the caller or held in its closure, not recursive; its code is
guarded as a callee's is. Any other call is left as it is (and the list refused where it is
passed or returned, as before).

Also here: ``sum(L[k].m(x) for k in range(K))`` is the loop building the list summed, and
``n = C(...)`` then ``L.append(n)`` (the next statement, ``n`` read nowhere else)
is ``L.append(C(...))``, the form :mod:`.record_lists` reads.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.source`, :mod:`.built_records`,
:mod:`.dotted_names`, :mod:`.passed_calls`, :mod:`.plain_lists`, :mod:`.held_checks`,
:mod:`.validate` and the passes run before it (:mod:`.local_imports`, :mod:`.matches`,
:mod:`.frozen_dists`, :mod:`.nonlocals`), on the callee as on any function.
"""

from __future__ import annotations

import copy
import inspect
import types

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from . import passed_calls
from . import source as source_module
from .built_records import record_fields, resolve_any
from .dotted_names import name_path
from .held_checks import check_method
from .plain_lists import stores_of

#: at most this many calls are written in place in one function
MOST = 12
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_CONSTANTS = (int, float, complex, bool, str, type(None))


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _located(nodes, where):
    for node in nodes:
        for sub in walk_nodes(node):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, where)
    return nodes


def _followed(src, func, local):
    """Whether the call's ``func`` builds an object of a class :mod:`.record_lists` reads."""
    from . import plain_classes

    cls = resolve_any(src, func, local)
    if not isinstance(cls, type):
        return False
    facts = record_fields(cls)
    return bool(facts[0]) if facts is not None else bool(
        plain_classes.user_class(cls) and plain_classes.fields_of(cls))


def lower(src):
    """Rewrite ``src.node`` in place (see above)."""
    fdef = src.node
    calls, appends, named, comprehensions = [], False, False, False
    stored = set()  # (most of the names the function binds: enough for a quick look)
    for n in walk_nodes(fdef):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stored.add(n.id)
        elif isinstance(n, gast.alias):
            stored.add((n.asname or n.name).partition(".")[0])
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef, gast.Global, gast.Nonlocal)):
            stored.update(getattr(n, "names", [getattr(n, "name", None)]))
        elif isinstance(n, gast.Call):
            calls.append(n)
            if _append_of(n):
                appends = True
                named = named or isinstance(n.args[0], gast.Name)
        elif isinstance(n, (gast.ListComp, gast.GeneratorExp)):
            comprehensions = True
    if not calls:
        return
    if named:
        _named_appends(src, fdef)
    if appends or any(_may_build(src, c.func, stored) for c in calls):
        chain = frozenset({getattr(src, "func", None)})
        marks = {}  # id(statement) -> (statement, the functions whose bodies it comes from)
        for _ in range(MOST):
            if not _inline_one(src, fdef, chain, marks):
                break
    if comprehensions:
        _indexed_comprehensions(src, fdef)


def _may_build(src, func, stored):
    """Whether the call's ``func`` may be a function of the user's that appends (a quick
    look, before the names the function binds are known: a method of an object the code is
    made for, or a free name, or ``module.name``, read once each)."""
    chain = []
    while isinstance(func, gast.Attribute):
        chain.insert(0, func.attr)
        func = func.value
    if not isinstance(func, gast.Name):
        return False
    if isinstance(functions.fixed_of(getattr(src, "func", None)).get(func.id),
                  functions.Instance):
        return True
    if func.id in stored:
        return False
    seen = src.__dict__.setdefault("srcad_inline_may", {})
    key = (func.id, *chain)
    if key not in seen:
        fn = resolve_any(src, _dotted(key))
        seen[key] = isinstance(fn, types.FunctionType) and "append" in fn.__code__.co_names
    return seen[key]


def _dotted(key):
    node = _name(key[0])
    for attr in key[1:]:
        node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
    return node


# ----------------------------------------------------------------- sum(L[k].m(x) for k in ...)

def _length(parents, name):
    call = parents.get(name)
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and \
        call.func.id == "len" and call.args == [name] and not call.keywords

_CONSUMERS = ("sum", "list", "tuple", "max", "min")


def _indexed_comprehensions(src, fdef):
    """``sum(L[k].m(x) for k in range(K))`` (a list comprehension, or a generator expression
    given to ``sum``, ``list``, ``tuple``, ``max`` or ``min``; one ``for``, no ``if`` on
    ``L``), ``L`` a list of objects (:func:`object_list`) indexed in the element, evaluated
    first in its statement (:func:`.inline_objects.evaluated_first`) of the function's
    body: the list built by a ``for`` statement just before it (``k`` given a fresh name),
    so :mod:`.record_lists` reads ``L[k]`` there item by item."""
    from .inline_objects import evaluated_first

    local = passed_calls.bound_names(fdef)
    lists = {s.targets[0].id for s in fdef.body if isinstance(s, gast.Assign) and
             len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
             isinstance(s.value, (gast.List, gast.ListComp))}
    lists = {name for name in lists if object_list(src, fdef, name, local)}
    if not lists:
        return
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | local
    fresh = source_module.fresh_names(taken)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for comp in [n for n in walk_nodes(fdef) if isinstance(n, (gast.ListComp,
                                                                 gast.GeneratorExp))]:
        if len(comp.generators) != 1 or comp.generators[0].is_async or \
                not isinstance(comp.generators[0].target, gast.Name) or not any(
                    isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and
                    n.value.id in lists for n in walk_nodes(comp.elt)) or any(
                    isinstance(n, gast.Name) and n.id in lists and not _length(parents, n)
                    for n in walk_nodes(comp.generators[0])):
            continue
        up = parents.get(comp)
        if isinstance(comp, gast.GeneratorExp) and not (
                isinstance(up, gast.Call) and up.args == [comp] and not up.keywords and
                isinstance(up.func, gast.Name) and up.func.id in _CONSUMERS and
                up.func.id not in local):
            continue
        stmt = comp
        while stmt is not None and not isinstance(stmt, gast.stmt):
            stmt = parents.get(stmt)
        holder = parents.get(stmt)
        body = next((v for _, v in gast.iter_fields(holder) if isinstance(v, list) and
                     stmt in v), None) if holder is not None else None
        if body is None or not evaluated_first(src, stmt, comp, local):
            continue
        gen = comp.generators[0]
        made, item = fresh("srcad_items"), fresh(f"{gen.target.id}_")
        for n in walk_nodes(gast.Tuple(elts=[comp.elt] + gen.ifs, ctx=gast.Load())):
            if isinstance(n, gast.Name) and n.id == gen.target.id:
                n.id = item
        inner = [gast.Expr(value=gast.Call(func=gast.Attribute(
            value=_name(made), attr="append", ctx=gast.Load()), args=[comp.elt],
            keywords=[]))]
        for cond in reversed(gen.ifs):
            inner = [gast.If(test=cond, body=inner, orelse=[])]
        first = [gast.Assign(targets=[_name(made, gast.Store())],
                             value=gast.List(elts=[], ctx=gast.Load()), type_comment=None),
                 gast.For(target=_name(item, gast.Store()), iter=gen.iter, body=inner,
                          orelse=[], type_comment=None)]
        for field, value in gast.iter_fields(up):
            if value is comp:
                setattr(up, field, gast.copy_location(_name(made), comp))
            elif isinstance(value, list) and comp in value:
                value[value.index(comp)] = gast.copy_location(_name(made), comp)
        body[body.index(stmt):body.index(stmt)] = _located(first, stmt)
        return _indexed_comprehensions(src, fdef)  # (the tree changed: walk it again)


# ----------------------------------------------------------------- n = C(...); L.append(n)

def _named_appends(src, fdef):
    stores = stores_of(fdef)
    loads = {}
    for n in walk_nodes(fdef):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            loads[n.id] = loads.get(n.id, 0) + 1
    local = passed_calls.bound_names(fdef)
    for node in list(walk_nodes(fdef)):
        for _, body in gast.iter_fields(node):
            if not (isinstance(body, list) and body and isinstance(body[0], gast.AST)):
                continue
            k = 0
            while k + 1 < len(body):
                first, second = body[k], body[k + 1]
                if isinstance(first, gast.Assign) and len(first.targets) == 1 and \
                        isinstance(first.targets[0], gast.Name) and \
                        isinstance(first.value, gast.Call) and \
                        isinstance(second, gast.Expr) and _append_of(second.value) and \
                        isinstance(second.value.args[0], gast.Name) and \
                        second.value.args[0].id == first.targets[0].id and \
                        len(stores.get(first.targets[0].id, ())) == 1 and \
                        loads.get(first.targets[0].id) == 1 and \
                        second.value.func.value.id != first.targets[0].id and \
                        _followed(src, first.value.func, local):
                    second.value.args = [first.value]
                    del body[k]
                k += 1


def _append_of(call):
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "append" and isinstance(call.func.value, gast.Name) and \
        len(call.args) == 1 and not call.keywords


def object_list(src, fdef, name, local=None, looped=False):
    """Whether ``name`` is, in ``fdef``, a list of objects built as :mod:`.record_lists`
    reads it: bound once, at the top level, to ``[]``, a list written of objects or a list
    comprehension building them, of a class it reads field by field, any appends of such
    objects too (at least one object); ``looped``: one of them appended in a loop or a
    branch."""
    stores = stores_of(fdef)
    if len(stores.get(name, ())) != 1:
        return False
    bound = next((s.value for s in fdef.body if isinstance(s, gast.Assign) and
                  len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                  s.targets[0].id == name), None)
    if isinstance(bound, gast.ListComp):
        bound = gast.List(elts=[bound.elt], ctx=gast.Load())
    if not isinstance(bound, gast.List):
        return False
    local = passed_calls.bound_names(fdef) if local is None else local
    made = [a.args[0] for a in walk_nodes(fdef) if _append_of(a) and a.func.value.id == name]
    if looped and not any(isinstance(s, gast.Expr) and _append_of(s.value) and
                          s.value.func.value.id == name for s in walk_nodes(fdef)
                          if s not in fdef.body):
        return False  # (its length known where it is built: .object_lists takes it apart)
    made += bound.elts
    return bool(made) and all(isinstance(c, gast.Call) and _followed(src, c.func, local)
                              for c in made)


# ----------------------------------------------------------------- calls written in place

def _inline_one(src, fdef, chain, marks):
    if not any(isinstance(stmt, (gast.Assign, gast.Expr, gast.Return, gast.For)) and any(
            isinstance(n, gast.Call) for n in walk_nodes(
                stmt.iter if isinstance(stmt, gast.For) else stmt.value))
               for stmt in fdef.body if getattr(stmt, "value", True) is not None):
        return False
    local = passed_calls.bound_names(fdef)
    lists = {s.targets[0].id for s in fdef.body if isinstance(s, gast.Assign) and
             len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
             isinstance(s.value, (gast.List, gast.ListComp))}
    if lists and any(_append_of(n) for n in walk_nodes(fdef)):
        lists = {name for name in lists if object_list(src, fdef, name, local, True)}
    else:
        lists = set()
    if _hoist(src, fdef, chain, marks, local, lists):
        return True
    for k, stmt in enumerate(fdef.body):
        call = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
        if not isinstance(call, gast.Call):
            continue
        if isinstance(stmt, gast.Assign) and not (len(stmt.targets) == 1 and all(
                isinstance(t, gast.Name) for t in walk_nodes(stmt.targets[0])
                if isinstance(t, gast.expr) and not isinstance(t, (gast.Tuple, gast.List)))):
            continue
        given = any(isinstance(a, gast.Name) and a.id in lists
                    for a in call.args + [kw.value for kw in call.keywords])
        found = _callee(src, fdef, call, local)
        if found is None:
            continue
        fn, first, method = found
        mark = marks.get(id(stmt))
        within = mark[1] if mark is not None and mark[0] is stmt else chain
        if fn in within or not given and "append" not in fn.__code__.co_names:
            continue
        callee = _read(fn, src)
        if callee is None:
            continue
        ret = _returned(callee.node)
        if ret is False:
            continue
        returns = ret is not None and isinstance(ret.value, gast.Name) and object_list(
            callee, callee.node, ret.value.id)
        if not (given or returns):
            continue
        body = _body(src, fdef, stmt, call, fn, first, callee, ret, local)
        if body is None:
            continue
        if method is not None:
            check = _check(src, first[0], method, stmt)
            if check is None:
                continue
            body.insert(0, check)
        env.record_all(env.code_reads({fn.__name__: fn}))
        fdef.body[k:k + 1] = _located(body, stmt)
        for new in body:  # (a call in them is not written from fn again: no recursion)
            marks[id(new)] = (new, within | {fn})
        return True
    return False


def _hoist(src, fdef, chain, marks, local, lists):
    """A call of a function returning a list of objects, or given one of ``lists``
    (:func:`_inline_one`), inside a top-level statement rather than its whole value (``for
    net in self.sample(w):``, ``return g(self.lik(nets, x))``), evaluated first there:
    assigned to a fresh name just before the statement (so written in place next); whether
    one was."""
    from .inline_objects import evaluated_first

    for k, stmt in enumerate(fdef.body):
        if isinstance(stmt, gast.For):
            found = [stmt.iter] if isinstance(stmt.iter, gast.Call) else []
        elif isinstance(stmt, (gast.Assign, gast.Expr, gast.Return)) and stmt.value is not None:
            found = [n for n in walk_nodes(stmt.value) if isinstance(n, gast.Call) and (
                n is not stmt.value or isinstance(stmt, gast.Return))]
        else:
            continue
        mark = marks.get(id(stmt))
        within = mark[1] if mark is not None and mark[0] is stmt else chain
        for call in found:
            given = any(isinstance(a, gast.Name) and a.id in lists
                        for a in call.args + [kw.value for kw in call.keywords])
            known = _callee(src, fdef, call, local)
            if known is None or known[0] in within or not given and \
                    "append" not in known[0].__code__.co_names:
                continue
            callee = _read(known[0], src)
            ret = callee and _returned(callee.node)
            if ret is False or callee is None or not given and not (
                    ret and isinstance(ret.value, gast.Name) and object_list(
                        callee, callee.node, ret.value.id)):
                continue
            if not (isinstance(stmt, gast.For) or evaluated_first(src, stmt, call, local)):
                continue
            taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | local
            name = source_module.fresh_names(taken)(f"{known[0].__name__}_list")
            for parent in walk_nodes(stmt):
                for field, value in gast.iter_fields(parent):
                    if value is call:
                        setattr(parent, field, gast.copy_location(_name(name), call))
                    elif isinstance(value, list) and call in value:
                        value[value.index(call)] = gast.copy_location(_name(name), call)
            new = gast.copy_location(gast.Assign(targets=[_name(name, gast.Store())],
                                                 value=call, type_comment=None), stmt)
            fdef.body.insert(k, new)
            marks[id(new)] = (new, within)
            return True
    return False


def _callee(src, fdef, call, local):
    """``(function, [first argument], method name or None)`` of a call written in place
    (``local``: the names ``fdef`` binds)."""
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            kw.arg is None for kw in call.keywords):
        return None
    func = call.func
    named = name_path(func)
    if named is None:
        return None
    if named[0] not in local:  # a free name or module.name: passed_calls.callee's reading
        key = (named[0], *named[1])
        seen = src.__dict__.setdefault("srcad_inline_callees", {})
        if key not in seen:  # (read once per name: np.sin in a long function)
            fn = resolve_any(src, func, local)
            seen[key] = (fn, [], None) if passed_calls.callee_function(fn) else None
        return seen[key]
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
        return None
    known = functions.fixed_of(getattr(src, "func", None)).get(func.value.id)
    if not isinstance(known, functions.Instance) or any(
            "__getattr__" in vars(k) or "__getattribute__" in vars(k) for k in known.cls.__mro__
            if k is not object) or func.attr in dict(known.held):
        return None
    resolved = passed_calls.class_method(known.cls, func.attr)
    if resolved is None or resolved[1]:
        return None
    return resolved[0], [_name(func.value.id)], func.attr


def _check(src, obj, method, where):
    name = "srcad_check_method"
    if src.closure.get(name, check_method) is not check_method:
        return None
    src.closure[name] = check_method
    src.cells[name] = types.CellType(check_method)
    src.bound = {**getattr(src, "bound", {}), name: check_method}
    return gast.copy_location(gast.Expr(value=gast.Call(
        func=_name(name), args=[copy.deepcopy(obj), gast.Constant(value=method, kind=None)],
        keywords=[])), where)


def _read(fn, src):
    """The callee's source, after the passes run before :mod:`.rewrites` and its
    validation, when it may be written in place (see above), else None."""
    from . import frozen_dists, local_imports, matches, nonlocals
    from .validate import validate

    if fn.__closure__ or fn.__globals__ is not src.globals or \
            functions.fixed_of(fn) or not functions.is_user_function(fn):
        return None
    code = fn.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR |
                        inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return None
    try:
        callee = source_module.read(fn)
        if callee.filename != src.filename or callee.closure:
            return None
        for n in walk_nodes(callee.node):
            if n is not callee.node and isinstance(n, _SCOPES) or isinstance(
                    n, (gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom, gast.Await)):
                return None
        local_imports.lower(callee)
        matches.lower(callee)
        frozen_dists.lower(callee)
        nonlocals.lower(callee)
        validate(callee)
        _named_appends(callee, callee.node)
    except Exception:  # noqa: BLE001 (not written in place: the call is read as before)
        return None
    if callee.closure or callee.node.decorator_list:
        return None
    return callee


def _returned(node):
    """The last statement of the callee when it is its only ``return`` (with a value);
    None when it has no ``return``; False otherwise."""
    returns = [n for n in walk_nodes(node) if isinstance(n, gast.Return)]
    if not returns:
        return None
    if len(returns) != 1 or node.body[-1] is not returns[0] or returns[0].value is None:
        return False
    return returns[0]


def _body(src, fdef, stmt, call, fn, first, callee, ret, local):
    """The statements replacing ``stmt``, else None."""
    node = copy.deepcopy(callee.node)
    try:
        bound = inspect.signature(fn).bind(*first, *call.args,
                                           **{kw.arg: kw.value for kw in call.keywords})
    except TypeError:
        return None
    params = inspect.signature(fn).parameters
    own = passed_calls.bound_names(node) | set(params)
    free = {n.id for n in walk_nodes(node) if isinstance(n, gast.Name) and n.id not in own}
    for name in free:  # read in the caller as in the callee: the same object
        if name in local or name in src.closure:
            return None
        try:
            if callee.lookup(name) is not src.lookup(name):
                return None
        except (KeyError, AttributeError):
            return None
    stores = stores_of(node)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | local | own | free
    fresh = source_module.fresh_names(taken)
    rename, before = {}, []
    for pname, param in params.items():
        if pname in bound.arguments:
            value = bound.arguments[pname]
            if isinstance(value, gast.Name) and len(stores.get(pname, ())) <= 1:
                rename[pname] = value.id
                continue
        elif param.default is not param.empty and type(param.default) in _CONSTANTS:
            value = gast.Constant(value=param.default, kind=None)
        else:
            return None
        rename[pname] = fresh(f"{pname}_{fn.__name__}")
        before.append(gast.copy_location(gast.Assign(
            targets=[_name(rename[pname], gast.Store())], value=copy.deepcopy(value),
            type_comment=None), stmt))
    result = None
    if ret is not None and isinstance(ret.value, gast.Name) and ret.value.id in stores and \
            ret.value.id not in params and isinstance(stmt, gast.Assign) and \
            isinstance(stmt.targets[0], gast.Name) and \
            len(stores_of(fdef).get(stmt.targets[0].id, ())) == 1 and \
            stmt.targets[0].id not in rename.values():
        rename[ret.value.id] = result = stmt.targets[0].id  # the list built under its name
    for name in sorted(own - set(rename)):
        rename[name] = fresh(f"{name}_{fn.__name__}")
    for n in walk_nodes(node):
        if isinstance(n, gast.Name) and n.id in rename:
            n.id = rename[n.id]
    body = node.body
    if ret is not None:
        last = body.pop()
        if result is None and isinstance(stmt, gast.Assign):
            body.append(gast.copy_location(gast.Assign(
                targets=stmt.targets, value=last.value, type_comment=None), stmt))
        elif result is None:
            body.append(gast.copy_location(gast.Expr(value=last.value), stmt))
    elif isinstance(stmt, gast.Assign):
        body.append(gast.copy_location(gast.Assign(
            targets=stmt.targets, value=gast.Constant(value=None, kind=None),
            type_comment=None), stmt))
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    return before + (body or [gast.copy_location(gast.Pass(), stmt)])
