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
* ``L[k]`` (a constant), ``len(L)``, ``not L`` and ``if L:``, ``list(L)``, ``tuple(L)``, ``[e for l in L]`` and
  ``sum(e for l in L)`` (no ``if``), ``f(*L)``;
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
:mod:`.built_records`, :mod:`.plain_classes`, :mod:`.plain_lists`, :mod:`.passed_calls`,
:mod:`.passed_records` and :mod:`.inline_objects`.
"""

from __future__ import annotations

import copy
import threading
import types
import weakref

import gast

from ..core import env
from ..errors import SrcadError, UnsupportedSyntaxError
from . import plain_classes
from . import source as source_module
from .built_records import record_fields, resolve_any

_LOCK = threading.RLock()
_MADE = weakref.WeakKeyDictionary()  # function or class -> {key: entry}
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_CONSUMERS = ("sum", "list", "tuple", "max", "min", "any", "all")
_HINT = ("loop over the list with a for statement (for layer in layers: ...), index it "
         "with a constant (layers[0]), take its len, or pass it whole to a function or "
         "class of yours; build a new list in a local name for anything else")


def clear():
    """Forget every copy (srcad.clear_cache)."""
    with _LOCK:
        _MADE.clear()


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _locate(tree, where):
    for node in gast.walk(tree):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            gast.copy_location(node, where)
    return tree


def _display(items, where):
    """A list display of the items, marked as a list srcad reads item by item."""
    out = gast.List(elts=[copy.deepcopy(i) for i in items], ctx=gast.Load())
    out._srcad_objlist = True
    return _locate(out, where)


def _marked(node):
    return isinstance(node, (gast.List, gast.Tuple)) and getattr(node, "_srcad_objlist", False)


def _replace(parents, old, new):
    parent = parents[old]
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for k, v in enumerate(value):
                if v is old:
                    value[k] = new
                    return


def _body_of(parents, stmt):
    holder = parents.get(stmt)
    for _, value in gast.iter_fields(holder) if holder is not None else ():
        if isinstance(value, list) and any(v is stmt for v in value):
            return value
    return None


def _const_int(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _builtin(src, func, local, *names):
    """Whether ``func`` names one of the builtins ``names`` (not a name the function binds)."""
    import builtins

    return isinstance(func, gast.Name) and func.id in names and func.id not in local and \
        resolve_any(src, func, local) is getattr(builtins, func.id)


def followed_class(cls):
    """Whether objects of ``cls`` are followed field by field where they are built (a record
    class, a plain class of the user's :mod:`.plain_classes` follows)."""
    return isinstance(cls, type) and (record_fields(cls) is not None or (
        plain_classes.user_class(cls) and isinstance(plain_classes.describe(cls),
                                                     plain_classes.Plain)))


# ------------------------------------------------------------------ the rewrite of uses

class _Uses:
    """Every marked list display of ``fdef`` (see :func:`_display`) read item by item, or
    refused (:meth:`run`). ``bind(entry)`` names a copy where it is called."""

    def __init__(self, src, fdef, bind, init_self=None):
        self.src, self.fdef, self.bind = src, fdef, bind
        self.local = _bound(fdef)
        self.init_self = init_self  # __init__'s self: self.A = L stores the items
        self.stored = {}  # attribute -> number of items (self.A = L in __init__)

    def error(self, node, what, hint=_HINT):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(
            f"a list of {len(node.elts) if _marked(node) else 'several'} objects of yours "
            f"passed on (its length known where it is built) {what}", filename=self.src.filename,
            lineno=line, construct=self.src.line_text(line), hint=hint)

    def run(self):
        while True:
            parents = {c: n for n in gast.walk(self.fdef) for c in gast.iter_child_nodes(n)}
            node = next((n for n in gast.walk(self.fdef) if _marked(n)), None)
            if node is None:
                return
            self.one(node, parents)

    def one(self, node, parents):
        parent = parents.get(node)
        grand = parents.get(parent)
        n = len(node.elts)
        if isinstance(parent, gast.Call) and node in parent.args and not parent.keywords \
                and len(parent.args) == 1:
            if _builtin(self.src, parent.func, self.local, "len"):
                for_range = parents.get(grand) if isinstance(grand, gast.Call) and \
                    _builtin(self.src, grand.func, self.local, "range") and \
                    grand.args == [parent] and not grand.keywords else None
                if isinstance(for_range, gast.For) and for_range.iter is grand and \
                        isinstance(for_range.target, gast.Name):
                    return self.unroll(for_range, parents, [
                        {for_range.target.id: gast.Constant(value=k, kind=None)}
                        for k in range(n)], node)
                return _replace(parents, parent, gast.copy_location(
                    gast.Constant(value=n, kind=None), parent))
            if _builtin(self.src, parent.func, self.local, "list", "tuple"):
                return _replace(parents, parent, gast.copy_location(node, parent))
            if _builtin(self.src, parent.func, self.local, "reversed") and (
                    isinstance(grand, gast.For) and grand.iter is parent or
                    isinstance(grand, gast.comprehension) and grand.iter is parent):
                node.elts.reverse()
                return _replace(parents, parent, gast.copy_location(node, parent))
            if _builtin(self.src, parent.func, self.local, "enumerate") and \
                    isinstance(grand, gast.For) and grand.iter is parent and \
                    isinstance(grand.target, gast.Tuple) and len(grand.target.elts) == 2 and \
                    all(isinstance(e, gast.Name) for e in grand.target.elts):
                i, t = grand.target.elts
                return self.unroll(grand, parents, [
                    {i.id: gast.Constant(value=k, kind=None), t.id: item}
                    for k, item in enumerate(node.elts)], node)
        if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
            return _replace(parents, parent, gast.copy_location(
                gast.Constant(value=n == 0, kind=None), parent))  # not L: its length's
        if isinstance(parent, (gast.If, gast.IfExp, gast.While)) and parent.test is node:
            return _replace(parents, node, gast.copy_location(
                gast.Constant(value=n > 0, kind=None), node))  # if L:
        if isinstance(parent, gast.Subscript) and parent.value is node and \
                isinstance(parent.ctx, gast.Load):
            k = _const_int(parent.slice)
            if k is not None:
                if not -n <= k < n:
                    raise self.error(node, f"indexed past its end ([{k}] of {n} items)",
                                     hint="index an item the list holds")
                return _replace(parents, parent, gast.copy_location(
                    copy.deepcopy(node.elts[k]), parent))
            if isinstance(parent.slice, gast.Slice) and all(
                    p is None or _const_int(p) is not None
                    for p in (parent.slice.lower, parent.slice.upper, parent.slice.step)):
                bounds = [None if p is None else _const_int(p) for p in (
                    parent.slice.lower, parent.slice.upper, parent.slice.step)]
                if bounds[2] == 0:
                    raise self.error(node, "sliced with step 0", hint="give a step")
                node.elts = node.elts[slice(*bounds)]
                return _replace(parents, parent, gast.copy_location(node, parent))
            raise self.error(node, "indexed by something other than a constant",
                             hint="loop over the list (for i, layer in enumerate(layers)), "
                             "or index it with a constant")
        if isinstance(parent, gast.For) and parent.iter is node and \
                isinstance(parent.target, gast.Name):
            return self.unroll(parent, parents, [{parent.target.id: item}
                                                 for item in node.elts], node)
        if isinstance(parent, gast.comprehension) and parent.iter is node:
            return self.comprehension(node, parent, parents)
        if isinstance(parent, gast.Starred) and isinstance(grand, gast.Call) and \
                parent in grand.args:
            k = grand.args.index(parent)
            grand.args[k:k + 1] = [gast.copy_location(copy.deepcopy(e), parent)
                                   for e in node.elts]
            return passed_on(self.src, grand, self.bind, self.local, self.fdef)
        call = grand if isinstance(parent, gast.keyword) else parent
        if isinstance(call, gast.Call) and call.func is not node and (
                node in call.args or isinstance(parent, gast.keyword)):
            if passed_on(self.src, call, self.bind, self.local, self.fdef, node):
                return None
            raise self.error(node, "given to something srcad does not follow with it (only a "
                             "function or a class of yours, the list bound to a named "
                             "parameter, is given its items one by one)")
        if self.init_self is not None and isinstance(parent, gast.Assign) and \
                parent.value is node and len(parent.targets) == 1 and \
                isinstance(parent.targets[0], gast.Attribute) and \
                isinstance(parent.targets[0].value, gast.Name) and \
                parent.targets[0].value.id == self.init_self and \
                parent in self.fdef.body and parent.targets[0].attr not in self.stored:
            attr = parent.targets[0].attr
            self.stored[attr] = n
            body = self.fdef.body
            k = body.index(parent)
            body[k:k + 1] = [_locate(gast.Assign(targets=[gast.Attribute(
                value=_name(self.init_self), attr=f"{attr}__{j}", ctx=gast.Store())],
                value=copy.deepcopy(e), type_comment=None), parent)
                for j, e in enumerate(node.elts)]
            return None
        raise self.error(node, "used whole (aliased, returned, stored, written, a method "
                         "called, compared)")

    def unroll(self, loop, parents, bindings, node):
        """The loop's body once per binding (name -> the expression read for it)."""
        names = set(bindings[0]) if bindings else {
            t.id for t in gast.walk(loop.target) if isinstance(t, gast.Name)}
        for sub in _own(loop.body):
            if isinstance(sub, (gast.Break, gast.Continue)):
                raise self.error(node, "iterated by a loop with break or continue",
                                 hint="keep break and continue out of the loop over the "
                                 "list (a flag tested in the body)")
        stores = [n for n in gast.walk(self.fdef) if isinstance(n, gast.Name) and
                  n.id in names and not isinstance(n.ctx, gast.Load)]
        inner = {id(n) for n in gast.walk(loop)}
        loads = [n for n in gast.walk(self.fdef) if isinstance(n, gast.Name) and
                 n.id in names and isinstance(n.ctx, gast.Load)]
        nested = {id(n) for s in gast.walk(loop) if isinstance(s, _SCOPES)
                  for n in gast.walk(s)}
        declared = any(isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & names
                       for n in gast.walk(self.fdef))
        if declared or any(id(s) not in {id(t) for t in gast.walk(loop.target)}
                           for s in stores) or \
                any(id(n) not in inner or id(n) in nested for n in loads):
            raise self.error(node, f"iterated by a loop whose name "
                             f"({', '.join(sorted(names))}) is bound elsewhere too or read "
                             "after the loop or in a nested function",
                             hint="give the loop's item a name of its own, read only in "
                             "the loop's body")
        body = _body_of(parents, loop)
        out = []
        for binding in bindings:
            for stmt in loop.body:
                new = copy.deepcopy(stmt)
                up = {c: n for n in gast.walk(new) for c in gast.iter_child_nodes(n)}
                for sub in list(gast.walk(new)):
                    if isinstance(sub, gast.Name) and sub.id in binding:
                        value = gast.copy_location(copy.deepcopy(binding[sub.id]), sub)
                        if sub is new:
                            new = value
                        else:
                            _replace(up, sub, value)
                out.append(new)
        out += loop.orelse  # (no break: the else runs)
        if not out:
            out = [gast.copy_location(gast.Pass(), loop)]
        k = next(j for j, s in enumerate(body) if s is loop)
        body[k:k + 1] = out

    def comprehension(self, node, gen, parents):
        comp = parents.get(gen)
        target = gen.target
        if not isinstance(comp, (gast.ListComp, gast.GeneratorExp)) or \
                len(comp.generators) != 1 or gen.ifs or gen.is_async or \
                not isinstance(target, gast.Name):
            raise self.error(node, "iterated by a comprehension srcad does not take apart "
                             "(only [e for x in L] and sum(e for x in L), one for, no if)",
                             hint="write the loop as a for statement")
        if isinstance(comp, gast.GeneratorExp):
            call = parents.get(comp)
            if not (isinstance(call, gast.Call) and call.args == [comp] and
                    not call.keywords and _builtin(self.src, call.func, self.local,
                                                   *_CONSUMERS)):
                raise self.error(node, "iterated by a generator expression not given at "
                                 "once to sum, list, tuple, max, min, any or all",
                                 hint="write the loop as a for statement")
        if any(isinstance(s, _SCOPES) and any(
                isinstance(n, gast.Name) and n.id == target.id for n in gast.walk(s))
               for s in gast.walk(comp.elt)):
            raise self.error(node, f"iterated by a comprehension whose {target.id!r} is read "
                             "in a function defined in it (which reads the last item)",
                             hint="call the items in the comprehension itself "
                             "([l(x) for l in layers])")
        elts = []
        for item in node.elts:
            new = copy.deepcopy(comp.elt)
            if isinstance(new, gast.Name) and new.id == target.id:
                elts.append(gast.copy_location(copy.deepcopy(item), new))
                continue
            up = {c: n for n in gast.walk(new) for c in gast.iter_child_nodes(n)}
            for sub in list(gast.walk(new)):
                if isinstance(sub, gast.Name) and sub.id == target.id:
                    _replace(up, sub, gast.copy_location(copy.deepcopy(item), sub))
            elts.append(new)
        out = gast.List(elts=elts, ctx=gast.Load())
        if isinstance(comp.elt, gast.Name) and comp.elt.id == target.id:
            out._srcad_objlist = True  # [l for l in L]: the same list
        _replace(parents, comp, _locate(gast.copy_location(out, comp), comp))


def _own(body):
    """The nodes of ``body`` (statements) not inside a nested loop or scope."""
    todo, out = list(body), []
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, (gast.For, gast.While, gast.AsyncFor) + _SCOPES):
            todo.extend(node.orelse if hasattr(node, "orelse") and not isinstance(
                node, _SCOPES) else [])
            continue
        todo.extend(gast.iter_child_nodes(node))
    return out


def _bound(fdef):
    from .passed_calls import bound_names

    return bound_names(fdef)


# ------------------------------------------------------------------ calls passing them on

def _target(src, func, local):
    """``(function or class, is_class)`` a call's function names, when it is one of the
    user's whose copy can be made, else None."""
    from .passed_calls import callee_function

    if isinstance(func, gast.Attribute):
        root = func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or not isinstance(
                resolve_any(src, root, local), types.ModuleType):
            return None  # (obj.method(L): not followed)
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


def passed_on(src, call, bind, local, fdef, node=None):
    """Rewrite ``call`` passing the marked list ``node`` (or, ``node`` None, object items
    given for a ``*args`` parameter) to a function or class of the user's as a call of its
    copy taking the items one by one. Returns whether it did."""
    found = _target(src, call.func, local)
    if found is None:
        return False
    fn, is_class = found
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
        if param in with_default or any(_marked(a) for a in call.args if a is not node) or \
                any(_marked(k.value) for k in call.keywords if k.value is not node):
            return False  # (one list at a time: the copy's copy takes the next)
        n, star = len(node.elts), False
    else:
        if vararg is None or len(call.args) <= len(positional):
            return False
        param, n, star = vararg, len(call.args) - len(positional), True
    target = found[0]
    entry = copy_taking(target, param, n, star)
    name = bind(entry)
    call.func = gast.copy_location(_name(name), call.func)
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
    _locate(call, call)
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
    taken = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)} | set(
        fn.__code__.co_varnames) | set(fn.__code__.co_freevars) | set(fn.__code__.co_names)

    def fresh(base):
        while base in taken:
            base += "_"
        taken.add(base)
        return base

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
    new = [gast.copy_location(_name(p, gast.Param()), fdef) for p in names]
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
    parents = {c: n for n in gast.walk(fdef) for c in gast.iter_child_nodes(n)}
    for node in list(gast.walk(fdef)):
        if isinstance(node, gast.Name) and node.id == param:
            if isinstance(node.ctx, gast.Param):
                continue
            if not isinstance(node.ctx, gast.Load) or isinstance(node, gast.Name) and any(
                    isinstance(s, (gast.Global, gast.Nonlocal)) and param in s.names
                    for s in gast.walk(fdef)):
                line = getattr(node, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"the parameter {param!r}, given a list of objects of yours (its length "
                    "known where it is built), is assigned in the function",
                    filename=src.filename, lineno=line, construct=src.line_text(line),
                    hint="assign the new value to another name")
            _replace(parents, node, _display([_name(p) for p in names], node))


def _function_copy(fn, param, n, star, label):
    from . import passed_records

    env.record_all(env.code_reads({fn.__name__: fn}))
    src, fdef, fresh, cells, bind = _prepared(fn)
    if any(isinstance(s, _SCOPES[:3]) and s is not fdef and param in {
            n.id for n in gast.walk(s) if isinstance(n, gast.Name)}
           for s in gast.walk(fdef)):
        raise _nested(src, fdef, param)
    names = [fresh(f"{param}_{k}") for k in range(n)]
    _parameters(src, fdef, param, names, star)
    _Uses(src, fdef, bind).run()
    passed_records.bare_signature(fdef)
    return passed_records._run(fdef, fn, src, cells, {param: names}, label), names


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
    for node in gast.walk(fdef):  # super().__init__(...): the base of the class copied
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id == "super" and not node.args:
            holder = fresh(f"{owner.__name__}_class")
            cells[holder] = types.CellType(owner)
            node.args = [_name(holder), _name(self_name)]
    uses = _Uses(src, fdef, bind, init_self=self_name)
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
            namespace[name] = _method_copy(name, method, uses.stored, label)
        except SrcadError as exc:  # refused where the method is followed, not before
            namespace[name] = _refused_copy(method, exc)
    made = type(cls)(cls.__name__, (cls,), namespace)
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


def _refused_copy(method, exc):
    """The method (a property's getter) as it is, marked with the refusal of its copy: the
    copy :mod:`.passed_records` would make of it raises ``exc`` (:func:`refusal_of`)."""
    fn = method.fget if isinstance(method, property) else method
    out = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    out.__kwdefaults__, out.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    out.__srcad_objlists_refused__ = exc
    return property(out) if isinstance(method, property) else out


def refusal_of(fn):
    """The refusal a method of a class made here carries (:func:`_refused_copy`), else None."""
    return getattr(fn, "__srcad_objlists_refused__", None)


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


def _method_copy(name, method, stored, label):
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
    attrs = [node for node in gast.walk(src.node) if isinstance(node, gast.Attribute) and
             isinstance(node.value, gast.Name) and node.value.id == self_name and
             node.attr in stored]
    if not attrs:
        return method
    env.record_all(env.code_reads({name: fn}))
    src, fdef, fresh, cells, bind = _prepared(fn)
    parents = {c: n for n in gast.walk(fdef) for c in gast.iter_child_nodes(n)}
    for node in list(gast.walk(fdef)):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == self_name and node.attr in stored:
            if not isinstance(node.ctx, gast.Load):
                line = getattr(node, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"self.{node.attr}, a list of objects given to __init__, written in the "
                    f"method {name}", filename=src.filename, lineno=line,
                    construct=src.line_text(line),
                    hint="build the new list in a local name")
            _replace(parents, node, _display([gast.Attribute(
                value=_name(self_name), attr=f"{node.attr}__{k}", ctx=gast.Load())
                for k in range(stored[node.attr])], node))
    _Uses(src, fdef, bind).run()
    passed_records.bare_signature(fdef)
    made = passed_records._run(fdef, fn, src, cells, {self_name: []},
                                f"{label}_{name.strip('_') or 'method'}")
    return property(made) if isinstance(method, property) else made


# ------------------------------------------------------------------ in the function

def prepare(src, fdef):
    """In the function differentiated: each list of objects passed on (see above) taken
    apart where it is built, or the refusal kept for the lines building its objects."""
    from . import passed_records
    from .plain_lists import stores_of

    if not any(isinstance(n, gast.Call) for n in gast.walk(fdef)):
        return
    while True:
        found = _candidate(src, fdef, stores_of(fdef))
        if found is None:
            return
        work = copy.deepcopy(fdef)
        try:
            _take_apart(src, work, found, passed_records.binder(src, work))
        except SrcadError as exc:
            refusals = src.__dict__.setdefault("record_refusals", {})
            for line in found[-1]:
                refusals.setdefault(line, exc)
            _mark_done(fdef, found)
            continue
        fdef.body = work.body


def _mark_done(fdef, found):
    for node in gast.walk(fdef):
        if getattr(node, "_srcad_key", None) == found[1]:
            node._srcad_objlists_done = True
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
    """The next list to take apart: ``("name", name, statement, [lines])`` (a name bound
    once at the top level to a list written of objects, passed on) or ``("call", key,
    statement, [lines])`` (a list written of objects as an argument of a call of a function
    or class of the user's, or objects given for its ``*args``); else None."""
    local = _bound(fdef)
    skip = getattr(fdef, "_srcad_objlists_skip", set())
    objects = _top_objects(src, fdef, local, stores)
    parents = {c: n for n in gast.walk(fdef) for c in gast.iter_child_nodes(n)}
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name) and \
                len(stores.get(stmt.targets[0].id, ())) == 1 and \
                isinstance(stmt.value, (gast.List, gast.Tuple)) and stmt.value.elts and \
                all(_object_item(src, e, local, objects) for e in stmt.value.elts) and \
                ("name", stmt.targets[0].id) not in skip:
            name = stmt.targets[0].id
            uses = [n for n in gast.walk(fdef) if isinstance(n, gast.Name) and n.id == name
                    and isinstance(n.ctx, gast.Load)]
            if any(_passing(src, parents, u, local) for u in uses):
                return ("name", ("name", name), stmt, _lines(stmt.value))
        appends = _appended(src, fdef, stmt, stores, local, objects, parents)
        if appends and ("name", stmt.targets[0].id) not in skip:
            return ("appended", ("name", stmt.targets[0].id), stmt,
                    _lines(*[a.value.args[0] for a in appends]))
    for node in gast.walk(fdef):
        if not isinstance(node, gast.Call) or _target(src, node.func, local) is None:
            continue
        for arg in node.args + [k.value for k in node.keywords]:
            if isinstance(arg, (gast.List, gast.Tuple)) and arg.elts and not _marked(arg) and \
                    all(_object_item(src, e, local, objects) for e in arg.elts) and \
                    ("arg", id(arg)) not in skip:
                arg._srcad_key = ("arg", id(arg))
                return ("arg", ("arg", id(arg)), arg, _lines(arg))
        star = _star_items(src, node, local, objects)
        if star and ("star", id(node)) not in skip:
            node._srcad_key = ("star", id(node))
            return ("star", ("star", id(node)), node, _lines(*star))
    return None


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
    for node in gast.walk(fdef):
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
    if not appends or not uses or not any(_passing(src, parents, u, local) for u in uses):
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
    return sorted({getattr(n, "lineno", None) for node in nodes for n in gast.walk(node)
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


def _passing(src, parents, node, local):
    """Whether the use ``node`` of a list gives it to a function or class of the user's."""
    parent = parents.get(node)
    if isinstance(parent, gast.keyword):
        parent = parents.get(parent)
    elif isinstance(parent, gast.Starred):
        parent = parents.get(parent)
    return isinstance(parent, gast.Call) and parent.func is not node and \
        _target(src, parent.func, local) is not None


def _stores(fdef):
    from .plain_lists import stores_of

    return stores_of(fdef)


def _take_apart(src, fdef, found, bind):
    """Name each object of the list (in the copy ``fdef``), then read the list item by item
    (:class:`_Uses`); raises the refusal."""
    from .inline_objects import evaluated_first

    kind, key = found[0], found[1]
    local = _bound(fdef)
    taken = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)}

    def fresh(base):
        while base in taken:
            base += "_"
        taken.add(base)
        return base

    parents = {c: n for n in gast.walk(fdef) for c in gast.iter_child_nodes(n)}
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
            fdef.body[k] = _locate(gast.Assign(targets=[_name(items[-1], gast.Store())],
                                               value=e, type_comment=None), a)
        fdef.body.remove(stmt)
        parents = {c: n for n in gast.walk(fdef) for c in gast.iter_child_nodes(n)}
        for node in list(gast.walk(fdef)):
            if isinstance(node, gast.Name) and node.id == name:
                _replace(parents, node, _display([_name(i) for i in items], node))
        _Uses(src, fdef, bind).run()
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
            named.append(_locate(gast.Assign(targets=[_name(items[-1], gast.Store())],
                                             value=e, type_comment=None), stmt))
        fdef.body[k:k + 1] = named
        for node in list(gast.walk(fdef)):
            if isinstance(node, gast.Name) and node.id == name:
                _replace(parents, node, _display([_name(i) for i in items], node))
        _Uses(src, fdef, bind).run()
        return
    node = next(n for n in gast.walk(fdef) if getattr(n, "_srcad_key", None) == key)
    stmt = node
    while not isinstance(stmt, gast.stmt):
        stmt = parents[stmt]
    body = _body_of(parents, stmt)
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
        named.append(_locate(gast.Assign(targets=[_name(new, gast.Store())], value=e,
                                         type_comment=None), stmt))
        _replace(parents, e, gast.copy_location(_name(new), e))
    k = next(j for j, s in enumerate(body) if s is stmt)
    body[k:k] = named
    if kind == "arg":
        node._srcad_objlist = True
        _Uses(src, fdef, bind).run()
        return
    if not passed_on(src, node, bind, local, fdef):
        line = getattr(node, "lineno", None)
        raise UnsupportedSyntaxError(
            "objects of yours given for *args of a function or class srcad does not copy",
            filename=src.filename, lineno=line, construct=src.line_text(line), hint=_HINT)
    _Uses(src, fdef, bind).run()
