"""Copies of the functions and classes a list of objects is passed to (issue 16, objlists19).

``run(layers, x)`` given a list of ``n`` objects (its length known where it is built,
:mod:`.object_lists`) calls ``run_n(layers_0, ..., x)``: a copy of ``run`` (made here, kept
while what making it read is unchanged) whose parameter ``layers`` is ``n`` parameters, each
read of it the marked display of their names, read item by item by
:class:`.list_uses.Uses`. A class given the list (``Seq(layers)``, ``Seq(*layers)``) is
a subclass made here (``Seq_n``), whose ``__init__`` is the copy of the class's taking the
items one by one and storing them as fields ``layers__0``, ... (where it stored
``self.layers = layers``, ``list(layers)``, ``tuple(layers)``), and whose methods reading
``self.layers`` are copies reading those fields. Only a class whose ``__init__`` copy then only
stores its parameters (its objects built as dataclasses are,
:func:`.built_records.record_fields`: the items are records held in fields, followed by
:mod:`.nested_records`) is made so; a method whose copy is refused carries the refusal
(``__srcad_refused__``), raised where it is followed (:mod:`.passed_records`), not before.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`.source`,
:mod:`.built_records`, :mod:`.plain_classes`, :mod:`.list_uses` and (where used)
:mod:`.passed_calls` and :mod:`.passed_records`.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import threading
import types
import weakref

import gast

from ..core import env
from ..core.walk import walk_nodes
from ..errors import SrcadError, UnsupportedSyntaxError
from . import plain_classes
from . import source as source_module
from .built_records import record_fields, resolve_any
from .list_uses import SCOPES, Uses, display, locate, marked, name_node, replace
from .source import fresh_names

_LOCK = threading.RLock()
_MADE = weakref.WeakKeyDictionary()  # function or class -> {key: entry}
#: a class made here -> {attribute: number of items} (``self.layers`` stored as its items)
HELD = weakref.WeakKeyDictionary()


def clear():
    """Forget every copy (srcad.clear_cache: through :func:`.plain_inits.clear`)."""
    with _LOCK:
        _MADE.clear()


def _target(src, func, local):
    """``(function or class, is_class)`` a call's function names, when it is one of the
    user's whose copy can be made, else None."""
    from .passed_calls import callee_function

    if isinstance(func, gast.Attribute):
        root = func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or not isinstance(
                resolve_any(src, root, local), (types.ModuleType, type)):
            return None  # (obj.method(L): not followed; Model.static(L) is)
    value = resolve_any(src, func, local)
    if isinstance(value, type):
        return (value, True) if plain_classes.user_class(value) else None
    return (value, False) if callee_function(value) else None


def _signature(fn, is_class):
    """``(positional names, vararg name, keyword-only names, defaults)`` of the function
    (``__init__`` without ``self``)."""
    code = fn.__code__
    positional = list(code.co_varnames[:code.co_argcount])
    kwonly = list(code.co_varnames[code.co_argcount:code.co_argcount +
                                   code.co_kwonlyargcount])
    vararg = code.co_varnames[code.co_argcount + code.co_kwonlyargcount] if \
        code.co_flags & 0x04 else None
    with_default = set(positional[len(positional) - len(fn.__defaults__ or ()):])
    return (positional[1:] if is_class else positional), vararg, kwonly, with_default, \
        code.co_posonlyargcount - (1 if is_class else 0)


def _init_of(cls):
    owner = plain_classes._init_owner(cls, 0)
    init = vars(owner).get("__init__") if owner is not object else None
    return owner, init


def passed_on(src, call, bind, local, fdef, node=None, owner=None):
    """Rewrite ``call`` passing the marked list ``node`` (or, ``node`` None, object items
    given for a ``*args`` parameter) to a function or class of the user's as a call of its
    copy taking the items one by one; ``obj.m(L, x)`` too, ``owner(name)`` giving the class
    of ``obj`` and its fields (``self`` in a method of a class made here, an object built in
    the function), as the copy of the class's ``m`` given ``obj`` first. Returns whether it
    did."""
    found = _target(src, call.func, local)
    if found is None and owner is not None:
        func = call.func
        known = owner(func.value.id) if isinstance(func, gast.Attribute) and isinstance(
            func.value, gast.Name) else None
        if known is None or func.attr in known[1]:
            return False
        from .passed_calls import class_method

        method = class_method(known[0], func.attr)
        if method is None:
            return False
        trial = gast.copy_location(gast.Call(func=func, args=[gast.copy_location(
            name_node(func.value.id), func)] * (not method[1]) + call.args,
            keywords=call.keywords), call)
        if not _pass(src, trial, bind, (method[0], False), node):
            return False
        call.func, call.args, call.keywords = trial.func, trial.args, trial.keywords
        return True
    return found is not None and _pass(src, call, bind, found, node)


def _pass(src, call, bind, found, node):
    fn, is_class = found
    if is_class and (dataclasses.is_dataclass(fn) or issubclass(fn, tuple)):
        line = getattr(call, "lineno", None)
        raise UnsupportedSyntaxError(
            f"a list of objects of yours given to the dataclass (or named tuple) "
            f"{fn.__name__}: srcad takes such a list apart for a class whose __init__ is "
            "written in Python (self.layers = layers)", filename=src.filename, lineno=line,
            construct=src.line_text(line),
            hint=f"write {fn.__name__}.__init__ by hand (def __init__(self, layers): "
            "self.layers = layers), or pass the list to a function of yours")
    if is_class:
        owner, fn = _init_of(fn)
        if fn is None or not isinstance(fn, types.FunctionType):
            return False
    positional, vararg, kwonly, with_default, posonly = _signature(fn, is_class)
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return False
    if node is not None:
        if any(a is node for a in call.args):
            k = next(j for j, a in enumerate(call.args) if a is node)
            if k >= len(positional):
                return False
            param = positional[k]
        else:
            kw = next(k for k in call.keywords if k.value is node)
            if kw.arg not in positional[posonly:] and kw.arg not in kwonly:
                return False
            param = kw.arg
        if param in with_default or any(marked(a) for a in call.args if a is not node) or \
                any(marked(k.value) for k in call.keywords if k.value is not node):
            return False  # (one list at a time: the copy's copy takes the next)
        n, star = len(node.elts), False
    else:
        if vararg is None or len(call.args) <= len(positional):
            return False
        param, n, star = vararg, len(call.args) - len(positional), True
    target = found[0]
    entry = copy_taking(target, param, n, star)
    name = bind(entry)
    call.func = gast.copy_location(name_node(name), call.func)
    if node is not None:
        if any(a is node for a in call.args):
            k = next(j for j, a in enumerate(call.args) if a is node)
            call.args[k:k + 1] = [gast.copy_location(copy.deepcopy(e), node)
                                  for e in node.elts]
        else:
            names = entry[1]
            kw = next(k for k in call.keywords if k.value is node)
            j = call.keywords.index(kw)
            call.keywords[j:j + 1] = [gast.keyword(arg=p, value=gast.copy_location(
                copy.deepcopy(e), node)) for p, e in zip(names, node.elts)]
    locate(call, call)
    return True


# ------------------------------------------------------------------ copies

def copy_taking(target, param, n, star):
    """``(cell, parameter names, reads, label)`` (an entry as
    :func:`.passed_records.derived` gives) of the copy of the function ``target`` (or the
    subclass made of the class ``target``) taking the ``n`` items of the list parameter
    ``param`` (``star``: the ``*param`` parameter) one by one."""
    with _LOCK:
        made = _MADE.setdefault(target, {})
        code = (_init_of(target)[1] if isinstance(target, type) else target).__code__
        key = (code, param, n, star)
        known = made.get(key)
        if known is not None and (known[2] is None or not env.stale(known[2])):
            env.record_all(known[2] or ())
            return known
        cell = types.CellType()
        label = f"{target.__name__}_{n}"
        entry = (cell, [], None, label)
        made[key] = entry
        try:
            with env.collecting() as reads:
                if isinstance(target, type):
                    value, names = _class_copy(target, param, n, star, label)
                else:
                    value, names = _function_copy(target, param, n, star, label)
            cell.cell_contents = value
            entry = (cell, names, tuple(reads.values()), label)
            made[key] = entry
            return entry
        except BaseException:
            made.pop(key, None)
            raise


def _prepared(fn):
    src = source_module.read(fn)
    fdef = copy.deepcopy(src.node)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | set(
        fn.__code__.co_varnames) | set(fn.__code__.co_freevars) | set(fn.__code__.co_names)

    fresh = fresh_names(taken)

    cells = {}

    def bind(entry):
        name = fresh(f"{entry[3]}_items")
        cells[name] = entry[0]
        return name

    return src, fdef, fresh, cells, bind


def _parameters(src, fdef, param, names, star):
    """The parameter ``param`` of ``fdef`` replaced by ``names`` (positional), and every
    read of it by the marked display of their names; refused when it is assigned."""
    args = fdef.args
    new = [gast.copy_location(name_node(p, gast.Param()), fdef) for p in names]
    if star and args.defaults:
        line = getattr(fdef, "lineno", None)
        raise UnsupportedSyntaxError(
            f"objects of yours given for *{param}, after parameters with defaults",
            filename=src.filename, lineno=line, construct=src.line_text(line),
            hint=f"take the objects as one list parameter ({param}) instead of *{param}")
    if star:
        args.vararg = None
        args.args = args.args + new
    else:
        for field in ("posonlyargs", "args", "kwonlyargs"):
            params = getattr(args, field)
            for k, p in enumerate(params):
                if p.id == param:
                    params[k:k + 1] = new
                    if field == "kwonlyargs":
                        args.kw_defaults[k:k + 1] = [None] * len(new)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for node in list(walk_nodes(fdef)):
        if isinstance(node, gast.Name) and node.id == param:
            if isinstance(node.ctx, gast.Param):
                continue
            if not isinstance(node.ctx, gast.Load) or isinstance(node, gast.Name) and any(
                    isinstance(s, (gast.Global, gast.Nonlocal)) and param in s.names
                    for s in walk_nodes(fdef)):
                line = getattr(node, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"the parameter {param!r}, given a list of objects of yours (its length "
                    "known where it is built), is assigned in the function",
                    filename=src.filename, lineno=line, construct=src.line_text(line),
                    hint="assign the new value to another name")
            replace(parents, node, display([name_node(p) for p in names], node))


def _function_copy(fn, param, n, star, label):
    from . import passed_records

    env.record_all(env.code_reads({fn.__name__: fn}))
    src, fdef, fresh, cells, bind = _prepared(fn)
    if any(isinstance(s, SCOPES[:3]) and s is not fdef and param in {
            n.id for n in walk_nodes(s) if isinstance(n, gast.Name)}
           for s in walk_nodes(fdef)):
        raise _nested(src, fdef, param)
    names = [fresh(f"{param}_{k}") for k in range(n)]
    _parameters(src, fdef, param, names, star)
    Uses(src, fdef, bind, passed_on).run()
    passed_records.bare_signature(fdef)
    return _named(passed_records._run(fdef, fn, src, cells, {param: names}, label), label), \
        names


def _named(fn, label):
    """``fn`` named ``label`` (``run_2``: the copies of it are named from it)."""
    fn.__name__ = fn.__qualname__ = label
    return fn


def _nested(src, fdef, param):
    line = getattr(fdef, "lineno", None)
    return UnsupportedSyntaxError(
        f"the list of objects {param!r} is read in a nested function", filename=src.filename,
        lineno=line, construct=src.line_text(line),
        hint="pass the list to the nested function as an argument")


def _class_copy(cls, param, n, star, label):
    """The subclass of ``cls`` whose ``__init__`` takes the items one by one and stores
    them as fields, its methods reading them so."""
    from . import passed_records

    owner, init = _init_of(cls)
    env.record_all(env.code_reads({"__init__": init}))
    src, fdef, fresh, cells, bind = _prepared(init)
    self_name = (fdef.args.posonlyargs + fdef.args.args)[0].id
    attr = next((s.targets[0].attr for s in fdef.body if isinstance(s, gast.Assign) and
                 len(s.targets) == 1 and isinstance(s.targets[0], gast.Attribute) and
                 isinstance(s.targets[0].value, gast.Name) and
                 s.targets[0].value.id == self_name and _reads_whole(s.value, param)), None)
    names = [fresh(f"{attr or param}__{k}") for k in range(n)]
    _parameters(src, fdef, param, names, star)
    for node in walk_nodes(fdef):  # super().__init__(...): the base of the class copied
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id == "super" and not node.args:
            holder = fresh(f"{owner.__name__}_class")
            cells[holder] = types.CellType(owner)
            node.args = [name_node(holder), name_node(self_name)]
    uses = Uses(src, fdef, bind, passed_on, init_self=self_name)
    uses.run()
    passed_records.bare_signature(fdef)
    given = fdef.args.posonlyargs + fdef.args.args
    values = dict(zip(init.__code__.co_varnames[:init.__code__.co_argcount][
        init.__code__.co_argcount - len(init.__defaults__ or ()):], init.__defaults__ or ()))
    for param_node, default in zip(given[len(given) - len(fdef.args.defaults):],
                                   list(fdef.args.defaults)):  # the source states the
        value = values.get(param_node.id)  # constant defaults (read as a dataclass's are)
        if isinstance(value, (int, float, bool, str, type(None))):
            default.value = value
    namespace = {"__init__": passed_records._run(fdef, init, src, cells, {param: names},
                                                 f"{label}_init"),
                 "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__}
    for name, method in _methods(cls):
        try:
            namespace[name] = _method_copy(cls, name, method, uses.stored, label)
        except SrcadError as exc:  # refused where the method is followed, not before
            namespace[name] = _refused_copy(method, exc)
    for attr_, count in uses.stored.items():  # net.layers where net is not followed
        if not any(attr_ in vars(klass) for klass in cls.__mro__):
            namespace[attr_] = property(_getter(src, attr_, count, f"{label}_{attr_}"))
    made = type(cls)(cls.__name__, (cls,), namespace)
    HELD[made] = dict(uses.stored)
    if record_fields(made) is None:
        line = getattr(src.node, "lineno", None)
        raise UnsupportedSyntaxError(
            f"{cls.__name__} is given a list of objects of yours (its length known where it is "
            f"built), and its __init__ does more than store its parameters "
            f"(self.{attr or param} = {param}) in order: srcad follows objects held in "
            "an object's fields when __init__ only stores them", filename=src.filename,
            lineno=line, construct=src.line_text(line),
            hint=f"make {owner.__name__}.__init__ store its parameters only (self.layers = "
            "layers), and compute the other values in a method or a function of yours")
    return made, names


def _getter(src, attr, n, label):
    """``def layers(self): return [self.layers__0, ...]``: the list an object of the class
    made here holds, read where srcad does not follow the object (built of constants; a new
    list at each read). Where it is followed, reading it so is refused (a list of records)."""
    from ..core import functions

    where = src.node
    fdef = gast.FunctionDef(
        name=attr, args=gast.arguments(
            args=[gast.Name(id="self", ctx=gast.Param(), annotation=None, type_comment=None)],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[]),
        body=[gast.Return(value=gast.List(elts=[gast.Attribute(
            value=name_node("self"), attr=f"{attr}__{k}", ctx=gast.Load()) for k in range(n)],
            ctx=gast.Load()))], decorator_list=[], returns=None, type_comment=None,
        type_params=[])
    locate(fdef, where)
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    filename = f"<srcad: {label} of {src.filename}:{src.first_line}>"
    return functions.run_tree(tree, filename, src.globals, src.filename)[attr]


def _refused_copy(method, exc):
    """The method (a property's getter) as it is, marked with the refusal of its copy: the
    copy :mod:`.passed_records` would make of it raises ``exc``."""
    fn = method.fget if isinstance(method, property) else method
    out = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    out.__kwdefaults__, out.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    out.__srcad_refused__ = exc
    return property(out) if isinstance(method, property) else out


def _reads_whole(value, param):
    if isinstance(value, gast.Name) and value.id == param:
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
        value.func.id in ("list", "tuple") and len(value.args) == 1 and \
        not value.keywords and _reads_whole(value.args[0], param)


def _methods(cls):
    """``(name, function or property)`` of each method of ``cls`` (its MRO's nearest) other
    than ``__init__``."""
    seen, out = set(), []
    for klass in cls.__mro__[:-1]:
        for name, value in vars(klass).items():
            if name in seen or name == "__init__":
                continue
            seen.add(name)
            if isinstance(value, types.FunctionType) or isinstance(value, property) and \
                    isinstance(value.fget, types.FunctionType) and value.fset is None:
                out.append((name, value))
    return out


def _method_copy(cls, name, method, stored, label):
    """The copy of a method (or a property's getter) whose reads of ``self.A`` (``A`` in
    ``stored``: the attribute -> its number of items) read the items' fields; the method
    itself when it reads none."""
    from . import passed_records

    fn = method.fget if isinstance(method, property) else method
    src = source_module.read(fn)
    args = src.node.args.posonlyargs + src.node.args.args
    if not args or not stored:
        return method
    self_name = args[0].id
    attrs = [node for node in walk_nodes(src.node) if isinstance(node, gast.Attribute) and
             isinstance(node.value, gast.Name) and node.value.id == self_name and
             node.attr in stored]
    if not attrs:
        return method
    env.record_all(env.code_reads({name: fn}))
    src, fdef, fresh, cells, bind = _prepared(fn)
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for node in list(walk_nodes(fdef)):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == self_name and node.attr in stored:
            if not isinstance(node.ctx, gast.Load):
                line = getattr(node, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"self.{node.attr}, a list of objects given to __init__, written in the "
                    f"method {name}", filename=src.filename, lineno=line,
                    construct=src.line_text(line),
                    hint="build the new list in a local name")
            replace(parents, node, display([gast.Attribute(
                value=name_node(self_name), attr=f"{node.attr}__{k}", ctx=gast.Load())
                for k in range(stored[node.attr])], node))
    fields = {f"{a}__{k}" for a, count in stored.items() for k in range(count)}
    Uses(src, fdef, bind, functools.partial(passed_on, owner=lambda name: (
        cls, fields) if name == self_name else None)).run()
    passed_records.bare_signature(fdef)
    made = _named(passed_records._run(fdef, fn, src, cells, {self_name: []},
                                       f"{label}_{name.strip('_') or 'method'}"),
                  f"{label}_{name.strip('_') or 'method'}")
    return property(made) if isinstance(method, property) else made


# ------------------------------------------------------------------ in the function
