"""Records passed whole to a function of the user's (issue 16): scalar replacement across calls.

``predict(p, x)``, ``p`` a record whose fields srcad reads one by one (a ``wrt`` record, read as
a dict by :mod:`srcad.pytrees`, or a record built in the function, its fields locals after
:mod:`.lower_records`), becomes ``predict_fields(p_w, p_b, x)``: a copy of ``predict``
made here (:func:`derived`), taking the record's leaves (its fields, through nested records:
``p_layer_w``) as parameters in the record's place, in which

* ``p.w`` reads ``p_w`` (``p.w.shape`` reads ``p_w.shape``; ``p.layer.w`` reads ``p_layer_w``);
* ``layer(p.layer, x)`` and ``predict(p, x)``, passing the record (or a nested record) on to a
  function of the user's, call that function's copy the same way (any depth, recursion too);
* ``w, b = p`` and ``p[0]`` (a named tuple) read the fields by position;
* ``self.predict(p, x)``, ``self`` an object whose class the copy knows (the object of a bound
  method srcad differentiates, read by its shim from a cell, and passed down: a spec
  ``("object", class)``), calls the copy of the class's function (a subclass's own; a static
  method too), after ``check_method(self, "predict")`` (an attribute of the object's own
  would hide the method).

So the gradient flows through each field as through any parameter: exact, nothing is
approximated, and the copy is differentiated as any callee (both modes, second order). Any
other use of the record in the function it is passed to (returned, rebound, a field written,
a method or property, ``isinstance``, stored in a container, passed to something not a
function of the user's) is refused at its line with a hint: a field srcad did not see read
must never lose its gradient.

What a record holds (a *spec*), where it is passed and how it binds: :mod:`.passed_calls`.

Copies are kept per (function, code, which parameters are records of which specs) while what
making them read is unchanged. A record whose fields the caller writes (``p.b = e``, a record
built in the function) is not passed on (:mod:`.lower_records`): a closure or a generator the
function returns would read the field after the write, where its copy holds the value before.
The copy's text is registered in linecache; an error at one of its lines names the user's
file and line.

Imports the standard library, gast, :mod:`srcad.core` and :mod:`srcad.errors`, :mod:`.source`,
:mod:`.passed_calls` and :mod:`.held_checks` (``check_method``).
"""

from __future__ import annotations

import copy
import itertools
import sys
import threading
import types
import weakref

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import passed_trees, plain_classes, plain_lists, rebuilt_records, record_aliases
from . import source as source_module
from .held_checks import check_method
from .passed_calls import (
    _name,
    binding,
    bound_names,
    by_index,
    callee,
    class_method,
    is_record_spec,
    leaf_paths,
    leaf_specs,
    method_receiver,
    objects_of,
    record_method,
    record_property,
    sub_leaves,
    unpacked,
)
from .source import fresh_names

_count = itertools.count(1)
_DERIVED = weakref.WeakKeyDictionary()  # function -> {key: an entry of derived()}
_LOCK = threading.RLock()


def clear():
    """Forget every copy made (srcad.clear_cache): they are made again when next needed."""
    with _LOCK:
        _DERIVED.clear()
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_HINT = ("read its fields there (p.w), pass it on whole to a function of yours, or pass "
         "the fields one by one")


def rewrite_call(src, call, records, bind, fdef=None, objects=None, fn=None):
    """Make ``call`` (in ``fdef``, else ``src.node``) a call of the copy of its function
    (``fn`` when given) taking the fields of its record arguments (see :func:`binding`);
    ``bind(entry)`` spells the copy where the call is (an entry of :func:`derived`);
    ``objects(node)``: the class of an argument that is an object of the user's (the copy
    follows the record into its methods). Returns whether it did."""
    fn = fn or callee(src, call.func, fdef)
    found = fn and binding(fn, call, records)
    if not found:
        return False
    specs = objects_of(fn, call, objects)
    specs.update((p, spec) for p, (spec, _, _) in found.items())
    entry = derived(fn, specs)
    names = entry[1]
    args, keywords = [], []
    for i, arg in enumerate(call.args):
        param = next((p for p, rec in found.items() if rec[2] == i), None)
        args += [arg] if param is None else [
            gast.copy_location(node, arg) for node in found[param][1]()]
    for kw in call.keywords:
        if kw.arg not in found:
            keywords.append(kw)
            continue
        keywords += [gast.keyword(arg=leaf, value=gast.copy_location(node, kw.value))
                     for leaf, node in zip(names[kw.arg], found[kw.arg][1]())]
    call.func = gast.copy_location(_name(bind(entry)), call.func)
    call.args, call.keywords = args, keywords
    call._srcad_fields = True  # (srcad.frontend.passed_trees: a copy's call)
    for node in walk_nodes(call):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            gast.copy_location(node, call)
    return True


def rewrite_record_method(src, call, records, bind, fdef=None, objects=None):
    """``p.predict(x)``, ``p`` a record (``records(node)``: its spec and leaves) of a class
    whose method ``predict`` is (not one of its fields; ``p(x)``: ``__call__``):
    ``Params.predict(p, x)``, a call of
    the copy of the method taking the record's fields (:func:`rewrite_call`). Returns whether
    it did. Not for a class that changes attribute reads or sets attributes after its
    fields (``__getattr__``, ``__setattr__``, ``__post_init__``): an attribute of the
    object's own could then hide the method."""
    receiver, attr = method_receiver(call, records)
    if receiver is None:
        return False
    method = record_method(records(receiver)[0][0], attr)
    if method is None:
        return False
    made = gast.copy_location(gast.Call(func=call.func, args=[receiver] + call.args,
                                        keywords=call.keywords), call)
    if not rewrite_call(src, made, records, bind, fdef, objects, method):
        return False
    call.func, call.args, call.keywords = made.func, made.args, made.keywords
    call._srcad_fields = True
    return True


def rewrite_record_property(src, node, records, bind, fdef=None, objects=None):
    """``p.total``, ``p`` a record whose class makes ``total`` a property (a getter of the
    user's): the call of the getter's copy taking the record's fields, else None."""
    if not isinstance(node, gast.Attribute) or not isinstance(node.ctx, gast.Load):
        return None
    found = records(node.value)
    if not found or not is_record_spec(found[0]) or node.attr in dict(found[0][2]):
        return None
    getter = record_property(found[0][0], node.attr)
    call = gast.copy_location(gast.Call(func=node, args=[node.value], keywords=[]), node)
    if getter is None or not rewrite_call(src, call, records, bind, fdef, objects, getter):
        return None
    call._srcad_fields = True
    return call


def binder(src, fdef):
    """``bind`` for :func:`rewrite_call` in the function differentiated (``src``, its tree
    ``fdef``): the copy becomes a constant of its code (``src.closure``, bound through cells:
    ``src.bound``; a cell of its own, so that a nested function calling it holds it as the
    function's closure variables are held) under ``name_fields``, a name the function does
    not use."""
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}

    def bind(entry):
        made, name = entry[0].cell_contents, f"{entry[3]}_fields"
        while name in taken or src.closure.get(name, made) is not made:
            name += "_"
        src.closure[name] = made
        src.cells[name] = types.CellType(made)  # a nested function holds it as a closure's
        src.bound = {**getattr(src, "bound", {}), name: made}
        return name

    return bind

# ---------------------------------------------------------------- copies of functions


def derived(fn, specs):
    """``(cell, {parameter: its leaves' parameter names}, reads, name)``: the cell holds the
    copy of ``fn`` whose parameters in ``specs`` (name -> spec) are records, taken as their
    leaves (one thread at a time: a copy being made is handed out only to its own calls)."""
    with _LOCK:
        return _derived(fn, specs)


def _derived(fn, specs):
    refused = getattr(fn, "__srcad_refused__", None)
    if refused is not None:  # a method whose copy was refused where its class was made
        raise refused  # (.list_copies: reading a list of objects in a way not followed)
    key = (fn.__code__, tuple(sorted(specs.items(), key=lambda item: item[0])))
    known = _DERIVED.setdefault(fn, {}).get(key)
    if known is not None and (known[2] is None or not env.stale(known[2])):
        env.record_all(known[2] or ())
        return known
    src = source_module.read(fn)
    fdef = copy.deepcopy(src.node)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)} | set(
        fn.__code__.co_varnames) | set(fn.__code__.co_freevars) | set(fn.__code__.co_names)

    fresh = fresh_names(taken)

    names = {p: [fresh("_".join((p,) + path)) for path in leaf_paths(spec)]
             for p, spec in specs.items() if is_record_spec(spec)}
    trees = {p: spec[1] for p, spec in specs.items() if spec[0] == "tree"}
    names.update((p, [p]) for p in trees)  # a container of records: itself, read inside
    for p, spec in specs.items():  # a field holding one: its leaf's parameter
        if is_record_spec(spec):
            trees.update((n, sub) for n, sub in zip(names[p], leaf_specs(spec)) if sub)
    cell = types.CellType()
    label = fn.__name__ if fn.__name__.isidentifier() else "lambda"
    entry = (cell, names, None, label)
    _DERIVED[fn][key] = entry
    try:
        with env.collecting() as reads:
            env.record_all(env.code_reads({fn.__name__: fn}))
            records = {p: (spec, _leaf_names(names[p])) for p, spec in specs.items()
                       if is_record_spec(spec)}
            objects = {p: spec[1] for p, spec in specs.items() if spec[0] == "object"}
            cells = {}

            def bind(other):
                name = fresh(f"{other[3]}_fields")
                cells[name] = other[0]
                return name

            def hold(value, base):
                name = fresh(base)
                cells[name] = types.CellType(value)
                return name

            for p, spec in specs.items():  # self.layers, a list field: rebuilt first
                if is_record_spec(spec):
                    plain_lists.rebuild_reads(src, fdef, p, spec, hold, fresh)
            body = _Body(src, records, bind, objects, hold, fresh)
            body.run(fdef)
            if body.checked:  # check_method(obj, name) before a method followed
                cells["srcad_check_method"] = types.CellType(check_method)
            _parameters(fdef, names)
            passed_trees.rewrite(src, fdef, trees, bind, sys.modules[__name__])
            bare_signature(fdef)
            made = _run(fdef, fn, src, cells, names, label)
        cell.cell_contents = made
        entry = (cell, names, tuple(reads.values()), label)
        _DERIVED[fn][key] = entry
        return entry
    except BaseException:
        _DERIVED[fn].pop(key, None)
        raise


def _leaf_names(names):
    def made():
        return [_name(n) for n in names]

    return made


def _parameters(fdef, names):
    """The record parameters of ``fdef`` replaced, in place, by their leaves' parameters."""
    args = fdef.args
    for field in ("posonlyargs", "args", "kwonlyargs"):
        params = getattr(args, field)
        new, defaults = [], []
        for i, param in enumerate(params):
            if param.id not in names:
                new.append(param)
                continue
            new += [gast.copy_location(_name(n, gast.Param()), param) for n in names[param.id]]
            if field == "kwonlyargs":
                defaults.append((i, len(names[param.id])))
        setattr(args, field, new)
        for i, count in reversed(defaults):  # a keyword-only record has no default: checked
            args.kw_defaults[i:i + 1] = [None] * count


def bare_signature(fdef):
    """A copy's signature as :func:`_run` wants it: annotations and the return annotation
    dropped (not read: not evaluated), each default a ``None`` placeholder (the defaults are
    ``fn``'s values, given by ``_run``, not evaluated again where the copy is made)."""
    for node in walk_nodes(fdef.args):
        if isinstance(node, gast.Name):
            node.annotation = None
    fdef.returns = None
    fdef.args.defaults = [gast.Constant(value=None, kind=None) for _ in fdef.args.defaults]
    fdef.args.kw_defaults = [d and gast.Constant(value=None, kind=None)
                             for d in fdef.args.kw_defaults]


def _run(fdef, fn, src, cells, names, label):
    """The copy: ``fdef`` run in ``fn``'s globals, its free names ``fn``'s own cells (read
    live) and ``cells`` (copies it calls), ``fn``'s defaults."""
    import ast

    free = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    fdef.name = f"{label}_fields"
    fdef.decorator_list = []
    tree = gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))
    func = tree.body[0]
    outer = list(cells) + [n for n in free if n not in cells]
    if outer:  # a function defining them, so that the def reads them as closure variables
        tree.body = [ast.FunctionDef(
            name="srcad_cells", args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=n) for n in outer], vararg=None,
                kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[func, ast.Return(value=ast.Name(id=func.name, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[], lineno=fdef.lineno)]
    filename = (f"<srcad: {label} of {src.filename}:{src.first_line} taking the fields "
                f"of {', '.join(names)} #{next(_count)}>")
    namespace = functions.run_tree(tree, filename, src.globals, src.filename)
    made = namespace["srcad_cells"](*[None] * len(outer)) if outer else namespace[func.name]
    closure = None
    if made.__closure__:
        closure = tuple(cells.get(n) or free.get(n) or c for n, c in zip(
            made.__code__.co_freevars, made.__closure__))
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    defaults = dict(zip(positional[len(positional) - len(fn.__defaults__ or ()):],
                        fn.__defaults__ or ()))
    out = types.FunctionType(made.__code__, src.globals, func.name, tuple(
        defaults[p] for p in positional if p in defaults) or None, closure)
    out.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    out.__srcad_shown__ = functions.shown_name(fn)
    weakref.finalize(out, functions.forget_source, filename)
    return out


class _Body:
    """Every use of the record parameters in a copy's body: rewritten, or refused."""

    def __init__(self, src, records, bind, objects=None, hold=None, fresh=None):
        self.src, self.records, self.bind = src, records, bind
        self.objects = dict(objects or {})  # parameter -> the class of the object it is
        self.pending, self.checked = [], False  # check_method statements to put before one
        self.hold, self.fresh, self.rebuilt = hold, fresh, None

    def object_of(self, node):
        return self.objects.get(node.id) if isinstance(node, gast.Name) else None

    def method(self, node):
        """``(function, static)``: the function ``obj.m(...)`` (``node.func``, ``obj`` a
        parameter the copy knows the class of) calls, read on the class (the reads recorded),
        and whether it is a static method (not given ``obj``); else None."""
        func = node.func
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
            return None
        return class_method(self.objects.get(func.value.id), func.attr)

    def statements(self, items):
        """A statement list visited, each statement after the checks its calls need."""
        out = []
        for item in items:
            if not isinstance(item, gast.stmt):
                out.append(self.visit(item) if isinstance(item, gast.AST) else item)
                continue
            saved, self.pending = self.pending, []
            new = self.visit(item)
            for obj, name in self.pending:
                out.append(gast.copy_location(gast.Expr(value=gast.Call(
                    func=_name("srcad_check_method"), args=[
                        _name(obj), gast.Constant(value=name, kind=None)], keywords=[])),
                    item))
            out.append(new)
            self.pending = saved
        return out

    def error(self, node, message, hint=_HINT):
        line = getattr(node, "lineno", None)
        return UnsupportedSyntaxError(message, filename=self.src.filename, lineno=line,
                                      construct=self.src.line_text(line), hint=hint)

    def run(self, fdef):
        for node in walk_nodes(fdef):
            if isinstance(node, _SCOPES) and node is not fdef:
                args = node.args
                own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
                own |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
                if own & set(self.records):
                    raise self.error(node, f"a nested function's parameter is named like the "
                                     f"record {sorted(own & set(self.records))[0]!r}",
                                     hint="give the nested function's parameter another name")
            elif isinstance(node, (gast.Global, gast.Nonlocal)) and \
                    set(node.names) & set(self.records):
                raise self.error(node, "a record parameter declared global or nonlocal")
        stored = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name) and
                  isinstance(n.ctx, (gast.Store, gast.Del))}
        stored |= {n for node in walk_nodes(fdef) if isinstance(node, (
            gast.Global, gast.Nonlocal)) for n in node.names}
        stored |= {a.id for node in walk_nodes(fdef) if isinstance(node, _SCOPES) and
                   node is not fdef for a in node.args.posonlyargs + node.args.args +
                   node.args.kwonlyargs}
        for name in stored & set(self.objects):  # rebound: its class is not known
            del self.objects[name]
        self.fdef = fdef
        self.aliases = record_aliases.candidates(fdef)  # k = self.k: another name of it
        if self.hold is not None:  # FSSD(k, V): the record k built again as an object
            self.rebuilt = rebuilt_records.Rebuilt(self.src, fdef, self.records, self.hold,
                                                   self.fresh)
        fdef.body = self.statements(fdef.body)
        if self.rebuilt is not None:
            self.rebuilt.put()

    def expr(self, node):
        """``(spec, leaves)`` when ``node`` is a record (a parameter, a nested record of
        one), else None."""
        chain = []
        while isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
            chain.insert(0, node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id not in self.records:
            return None
        spec, leaves = self.records[node.id]
        top, path = spec, ()
        for attr in chain:
            sub = dict(spec[2]).get(attr)
            if not is_record_spec(sub):
                return None
            spec, path = sub, path + (attr,)
        return spec, sub_leaves(leaves, top, path)

    def visit(self, node):
        if isinstance(node, gast.Call):  # p.predict(x): the copy of Params.predict
            rewrite_record_method(self.src, node, self.expr, self.bind, self.fdef,
                                  self.object_of)
            found = self.method(node) if any(
                self.expr(a) for a in node.args + [k.value for k in node.keywords]) else None
            if found is not None:  # obj.m(p, x) -> m_fields(obj, p_w, p_b, x), checked first
                (fn, static), obj, attr = found, node.func.value, node.func.attr
                call = gast.copy_location(gast.Call(func=node.func, args=[
                    gast.copy_location(_name(obj.id), obj)] * (not static) + node.args,
                    keywords=node.keywords), node)
                if rewrite_call(self.src, call, self.expr, self.bind, self.fdef,
                                self.object_of, fn):
                    node.func, node.args, node.keywords = call.func, call.args, call.keywords
                    self.pending.append((obj.id, attr))
                    self.checked = True
            if any(self.expr(a) for a in node.args + [k.value for k in node.keywords]):
                if not rewrite_call(self.src, node, self.expr, self.bind, self.fdef,
                                    self.object_of) and not (
                        self.rebuilt is not None and self.rebuilt.constructor_args(node)):
                    method = isinstance(node.func, gast.Attribute) and isinstance(
                        node.func.value, gast.Name) and node.func.value.id in bound_names(
                            self.fdef)  # self.predict(p, x)
                    raise self.error(
                        node, "a record is passed to something srcad does not follow (only a "
                        "function of yours, its record arguments bound to named parameters "
                        "without a default)" + (": a method of an object" if method else ""),
                        hint="make it a module-level function or a static method called "
                        "through its class (Model.predict(p, x)), which srcad follows"
                        if method else _HINT)
        elif isinstance(node, gast.Assign):
            name = node.targets[0].id if id(node) in self.aliases else None
            found = name is not None and name not in self.records and self.expr(node.value)
            if found:  # k = self.k: k reads the record's leaves from here on
                self.records[name] = found
                return gast.copy_location(gast.Pass(), node)
            unpacked(node, self.expr)
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            found = by_index(node, self.expr)
            if found is not None:
                return found
        elif isinstance(node, gast.Attribute) or isinstance(node, gast.Name):
            found = rewrite_record_property(self.src, node, self.expr, self.bind, self.fdef,
                                            self.object_of) or self._read(node)
            if found is not None:
                return found
        for field, child in gast.iter_fields(node):
            if isinstance(child, list):
                setattr(node, field, self.statements(child))
            elif isinstance(child, gast.AST):
                setattr(node, field, self.visit(child))
        return node

    def _through_class(self, cls, attr):
        """``Model.K`` for ``self.K`` when that is the same value
        (:func:`.plain_classes.class_constant`; the class held in a cell of the copy), else
        None."""
        if not plain_classes.class_constant(cls, attr):
            return None
        name = self.bind((types.CellType(cls), {}, None, f"{cls.__name__}_class"))
        return gast.Attribute(value=_name(name), attr=attr, ctx=gast.Load())

    def _read(self, node):
        """``p.w`` -> ``p_w`` (``p.w.shape`` -> ``p_w.shape``); None: not a record read."""
        chain, root = [], node
        while isinstance(root, gast.Attribute):
            chain.insert(0, root)
            root = root.value
        if not isinstance(root, gast.Name) or root.id not in self.records:
            return None
        spec, leaves = self.records[root.id]
        top, path = spec, ()
        kind = spec[0].__name__
        if isinstance(root.ctx, (gast.Store, gast.Del)):
            raise self.error(node, f"the record parameter {root.id!r} ({kind}) is assigned or "
                             "deleted in the function it is passed to",
                             hint="assign the new value to another name")
        for k, attr in enumerate(chain):
            fields = dict(spec[2])
            if attr.attr not in fields and isinstance(attr.ctx, gast.Load) and \
                    hasattr(spec[0], attr.attr):  # self.K, K a class attribute
                through = self._through_class(spec[0], attr.attr)
                if through is not None:  # Model.K, read when the code runs
                    out = gast.copy_location(through, attr)
                    for rest in chain[k + 1:]:
                        out = gast.copy_location(gast.Attribute(
                            value=out, attr=rest.attr, ctx=rest.ctx), rest)
                    return out
                raise self.error(attr, f"{attr.attr!r} is an attribute of the class {kind}, "
                                 f"not a field of the record {root.id!r} ({sorted(fields)}): "
                                 "srcad does not know that the object holds no attribute of "
                                 "that name of its own", hint=f"read it through the class "
                                 f"({kind}.{attr.attr}), or pass the value as an argument")
            if attr.attr not in fields and isinstance(attr.ctx, gast.Load):
                raise self.error(attr, f"{attr.attr!r} is not a field of the record "
                                 f"{root.id!r} ({kind}: {sorted(fields)})",
                                 hint="read its fields or call its methods (a property is not "
                                 "followed)")
            if not isinstance(attr.ctx, gast.Load):
                raise self.error(attr, f"writing a field of the record {root.id!r} "
                                 f"({kind}) in the function it is passed to, or in a method "
                                 "(srcad follows objects whose attributes only __init__ sets)",
                                 hint="build the new value in a local name and return it")
            path += (attr.attr,)
            if not is_record_spec(fields[attr.attr]):  # a leaf: the rest reads its attributes
                paths = leaf_paths(top)
                out = gast.copy_location(leaves()[paths.index(path)], root)
                for rest in chain[k + 1:]:
                    out = gast.copy_location(gast.Attribute(value=out, attr=rest.attr,
                                                            ctx=rest.ctx), rest)
                return out
            spec = fields[attr.attr]
        raise self.error(node, f"the record {root.id!r} ({kind}) is passed to a function of "
                         "yours, which uses it whole (returned, assigned, indexed, stored, "
                         "compared, isinstance, a method called)")
