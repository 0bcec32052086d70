"""Where a record is passed (issue 16; for :mod:`.passed_records`): which function a call
calls, how its record arguments bind to the function's parameters, the leaves of a record,
and the reads by position of a named tuple (``a, b = p``, ``p[0]``).

A *spec* says what a record holds: ``(class, ordered, ((field, spec or None), ...))``, None for
a leaf, ``ordered`` when ``p[i]`` and ``a, b = p`` read the fields in that order (a named
tuple); ``("object", class)`` for an object of the user's whose class is known (its methods are
followed). A record expression is given as ``(spec, leaves)``, ``leaves()`` making the nodes of
the leaves in :func:`leaf_paths` order.

Imports the standard library, gast, :mod:`srcad.core` and :mod:`.dotted_names`.
"""

from __future__ import annotations

import abc
import sys
import types

import gast

from ..core import env, functions
from ..core.walk import walk_nodes
from . import source as source_module
from .dotted_names import name_path


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def is_record_spec(spec):
    """Whether ``spec`` is a record's (not None, an object's, a container's: a field holding
    a list of records is a leaf here, read whole, :mod:`.passed_trees`)."""
    return spec is not None and isinstance(spec[0], type)


def leaf_paths(spec, prefix=()):
    """The paths (tuples of field names) of the leaves of a record of ``spec``, in order."""
    out = []
    for field, sub in spec[2]:
        out += leaf_paths(sub, prefix + (field,)) if is_record_spec(sub) else [prefix + (field,)]
    return out


def leaf_specs(spec):
    """The spec of each leaf of a record of ``spec`` (None, or a container of records'), in
    :func:`leaf_paths` order."""
    out = []
    for _, sub in spec[2]:
        out += leaf_specs(sub) if is_record_spec(sub) else [sub]
    return out


def sub_leaves(leaves, spec, path):
    """``leaves`` (of a record of ``spec``) restricted to the nested record at ``path``."""
    paths = leaf_paths(spec)

    def made():
        return [node for p, node in zip(paths, leaves()) if p[:len(path)] == path]

    return made


def callee(src, func, fdef=None, local=None):
    """The function of the user's ``func`` (a call's function in ``fdef``, else in
    ``src.node``: a free name, ``module.name``) calls, whose copy :func:`derived` can make,
    else None. A name the function binds (a parameter, assigned, imported) is not looked up
    (``local``: those names, when the caller has them: :func:`bound_names` of that tree)."""
    named = name_path(func)
    if named is None or named[0] in (
            bound_names(fdef or src.node) if local is None else local):
        return None
    try:
        fn = src.lookup(*named)
    except (KeyError, AttributeError):
        return None
    return fn if callee_function(fn) else None


def callee_function(fn):
    """Whether ``fn`` is a plain function of the user's whose copy :func:`derived` can make
    (not the standard library's, not one srcad made)."""
    return isinstance(fn, types.FunctionType) and functions.is_user_function(fn) and not (
        source_module.made_by_srcad(fn) or functions.fixed_of(fn) or
        (fn.__module__ or "").partition(".")[0] in sys.stdlib_module_names)


def bound_names(fdef):
    """Every name ``fdef`` (or a function in it) binds: parameters, assigned, deleted,
    defined, imported, declared global or nonlocal."""
    names = set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            names.add(node.id)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and \
                node is not fdef:  # (its own name is not bound in it: a recursive call)
            names.add(node.name)
        elif isinstance(node, gast.alias):
            names.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, gast.arguments):
            names.update(a.id for a in (node.vararg, node.kwarg) if a is not None)
    return names


def constant_objects(src, fdef):
    """``objects`` for :func:`rewrite_call` in ``fdef``: the class of a free name holding an
    object of the user's (a global, a closure variable: a bound method's object, read by the
    shim srcad differentiates; the read of its class is recorded by ``src.lookup``)."""
    local = bound_names(fdef)

    def objects(node):
        if not isinstance(node, gast.Name) or node.id in local:
            return None
        try:
            value = src.lookup(node.id)
        except (KeyError, AttributeError):
            return None
        return functions.user_instance_class(value)

    return objects


def objects_of(fn, call, objects):
    """``{parameter: ("object", class)}`` for the arguments of ``call`` that ``objects(node)``
    knows the class of (an object of the user's), bound to named parameters of ``fn``."""
    if objects is None:
        return {}
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    found = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, gast.Starred):
            return {}
        cls = objects(arg)
        if cls is not None and i < len(positional):
            found[positional[i]] = ("object", cls)
    for kw in call.keywords:
        cls = objects(kw.value) if kw.arg is not None else None
        if cls is not None and kw.arg in code.co_varnames[:code.co_argcount +
                                                          code.co_kwonlyargcount]:
            found[kw.arg] = ("object", cls)
    return found


def binding(fn, call, records):
    """``{parameter: (spec, leaves, where)}`` for the record arguments of ``call`` (``where``:
    a position or a keyword; ``records(node)`` gives ``(spec, leaves)`` of a record
    expression, else None), or None when they do not bind to named parameters of ``fn`` (a
    ``*``/``**`` argument, a record for ``*args``, a parameter with a default) or there are
    none."""
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    keywords = set(positional[code.co_posonlyargcount:]) | set(
        code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount])
    defaults = set(positional[len(positional) - len(fn.__defaults__ or ()):]) | set(
        fn.__kwdefaults__ or {})
    found = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, gast.Starred):
            return None
        rec = records(arg)
        if rec is not None:
            if i >= len(positional):
                return None
            found[positional[i]] = rec + (i,)
    for kw in call.keywords:
        if kw.arg is None:
            return None
        rec = records(kw.value)
        if rec is not None:
            if kw.arg not in keywords:
                return None
            found[kw.arg] = rec + (kw.arg,)
    if not found or set(found) & defaults:
        return None
    return found



def unpacked(assign, records):
    """``a, b = p`` (``p`` a named tuple): the fields' leaves as a tuple, set as the value;
    returns whether it did. A field that is itself a record is not unpacked so."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], (gast.Tuple, gast.List)):
        return False
    targets = assign.targets[0].elts
    rec = records(assign.value)
    if rec is None or any(isinstance(t, gast.Starred) for t in targets):
        return False
    spec, leaves = rec
    if not spec[1] or len(spec[2]) != len(targets) or any(is_record_spec(s) for _, s in spec[2]):
        return False
    assign.value = gast.copy_location(gast.Tuple(elts=[gast.copy_location(
        n, assign.value) for n in leaves()], ctx=gast.Load()), assign.value)
    return True


def constant_index(node):
    """The int ``node`` spells (``1``, ``-1``), else None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def by_index(node, records):
    """``p[i]`` (``node``; ``p`` a named tuple, ``i`` a constant in range, its field a leaf):
    the field's leaf, else None."""
    rec = records(node.value) if isinstance(node, gast.Subscript) and isinstance(
        node.ctx, gast.Load) else None
    index = constant_index(getattr(node, "slice", None))
    if rec is None or index is None:
        return None
    spec, leaves = rec
    if not spec[1] or not -len(spec[2]) <= index < len(spec[2]) or \
            is_record_spec(spec[2][index][1]):
        return None
    return gast.copy_location(leaves()[index % len(spec[2])], node)


def class_method(cls, attr):
    """``(function, static)``: the user's function ``obj.attr(...)`` calls for an object of
    class ``cls``, read on the class (the reads recorded: code made for it is made again when
    the class comes to hold another), and whether it is a static method; else None."""
    raw = _class_attribute(cls, attr)
    static = isinstance(raw, staticmethod)
    raw = raw.__func__ if static else raw
    if not isinstance(raw, types.FunctionType) or not functions.is_user_function(raw):
        return None
    return raw, static


def method_receiver(call, records):
    """``(record, method name)`` when ``call`` calls a method of a record (``p.predict(x)``;
    ``p(x)``: ``__call__``, which Python reads on the class), else ``(None, None)``."""
    func = call.func
    found = records(func)
    if found and is_record_spec(found[0]):
        return func, "__call__"
    if not isinstance(func, gast.Attribute) or not isinstance(func.ctx, gast.Load):
        return None, None
    found = records(func.value)
    if not found or not is_record_spec(found[0]) or func.attr in dict(found[0][2]):
        return None, None
    return func.value, func.attr


def record_method(cls, attr):
    """The user's function ``attr`` is on the record class ``cls`` (a method taking the
    object first: not static, not a class method), else None."""
    if any(hasattr(cls, name) for name in ("__getattr__", "__post_init__")) or \
            cls.__setattr__ is not object.__setattr__ and not _frozen_dataclass(cls):
        return None
    resolved = class_method(cls, attr)
    return None if resolved is None or resolved[1] else resolved[0]


def _frozen_dataclass(cls):
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.frozen


def record_property(cls, attr):
    """The user's getter of the property ``attr`` of the record class ``cls`` (read on the
    class, the reads recorded; a property is a data descriptor, which no attribute of the
    object's own hides), else None."""
    raw = _class_attribute(cls, attr)
    getter = raw.fget if isinstance(raw, property) else None
    if not isinstance(getter, types.FunctionType) or not functions.is_user_function(getter):
        return None
    return getter


def constant_slice(node):
    """``slice(...)`` of a constant slice (``[1:]``, ``[:-1]``, ``[::2]``), else None."""
    if not isinstance(node, gast.Slice):
        return None
    parts = []
    for part in (node.lower, node.upper, node.step):
        if part is None or isinstance(part, gast.Constant) and part.value is None:
            parts.append(None)
            continue
        index = constant_index(part)
        if index is None:
            return None
        parts.append(index)
    return slice(*parts)


def _class_attribute(cls, attr):
    """What ``attr`` is on the class ``cls`` (the first class of its MRO defining it; the
    reads recorded, so code made for it is made again when the class comes to hold
    another), for a class whose attribute reads are Python's own (its metaclass ``type``, or
    ``abc.ABCMeta``, which changes only ``isinstance`` and ``issubclass``); else None."""
    if cls is None or type(cls) not in (type, abc.ABCMeta) or cls.__getattribute__ not in (
            object.__getattribute__, tuple.__getattribute__):
        return None
    raw = None
    for space, value in functions.method_reads(cls, attr):
        env.record(env.Read(space, None, attr, (), value))
        if value is not functions.ClassNamespace.ABSENT:
            raw = value
    return raw
