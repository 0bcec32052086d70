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

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.source`, :mod:`.built_records`,
:mod:`.plain_classes` and :mod:`.passed_records` (the copy is run as its copies are).
"""

from __future__ import annotations

import copy
import threading
import types
import weakref

import gast

from ..core import env
from ..errors import SrcadError
from . import plain_classes
from . import source as source_module
from .built_records import record_fields, resolve_any

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


def _own(fdef):
    out, todo = [], list(gast.iter_child_nodes(fdef))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(gast.iter_child_nodes(node))
    return out


def returned_class(fn):
    """The one class whose objects every ``return`` of ``fn`` returns (see above), else
    None."""
    try:
        src = source_module.read(fn)
    except SrcadError:
        return None
    nodes = _own(src.node)
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
            classes.add(resolve_any(src, v.func))
    if len(classes) != 1:
        return None
    cls = classes.pop()
    return cls if isinstance(cls, type) and fields_of(cls) else None


def maker(fn, cls):
    """The entry (``(cell, names, reads, label)``, as :func:`.passed_records.derived`
    gives) of the copy of ``fn`` returning the fields of the object it returns."""
    from . import passed_records

    with _LOCK:
        made = _MADE.setdefault(fn, {})
        known = made.get(fn.__code__)
        if known is not None and not env.stale(known[2]):
            env.record_all(known[2])
            return known
        with env.collecting() as reads:
            env.record_all(env.code_reads({fn.__name__: fn}))
            src = source_module.read(fn)
            fdef = copy.deepcopy(src.node)
            taken = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)} | set(
                fn.__code__.co_varnames) | set(fn.__code__.co_names)
            result = f"{fn.__name__}_result"
            while result in taken:
                result += "_"
            fields = fields_of(cls)
            _Returns(result, fields).visit(fdef)
            for node in gast.walk(fdef.args):
                if isinstance(node, gast.Name):
                    node.annotation = None
            fdef.returns = None
            fdef.args.defaults = [gast.Constant(value=None, kind=None)
                                  for _ in fdef.args.defaults]
            fdef.args.kw_defaults = [d and gast.Constant(value=None, kind=None)
                                     for d in fdef.args.kw_defaults]
            out = passed_records._run(fdef, fn, src, {}, {"result": []}, fn.__name__)
        entry = (types.CellType(out), {}, tuple(reads.values()), fn.__name__)
        made[fn.__code__] = entry
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
        for sub in gast.walk(ret):
            if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                gast.copy_location(sub, node)
        return [ret] if named else [assign, ret]


def clear():
    """Forget every copy (srcad.clear_cache)."""
    with _LOCK:
        _MADE.clear()
