"""A record passed to a function of the user's, built into another object there (issue 16).

In the copy :mod:`.passed_records` makes of ``crit(X, k, V)`` (``k`` a record, taken as its
leaves ``k_s2``), ``f = FSSD(k, V)`` passes the record whole to the constructor of a class of
the user's: an object built in the function, holding the record. The copy's record has no
object to pass, so here it gets one again: at the copy's entry ``k_obj = object_of(KG,
s2=k_s2)`` (``KG(s2=k_s2)`` for a named tuple or a dataclass: its constructor takes exactly its
fields), and the constructor is given ``k_obj``. :mod:`.lower_records` then reads ``k_obj``
and ``f`` field by field as any objects built in a function (``f_k_s2 = k_s2``), so the
gradient flows through the record's leaves as through any parameter; a use of them it does
not follow is refused there, at its line (:func:`object_of` is never differentiated whole).

Only for a record parameter passed whole (not ``p.layer``), of a class whose fields are
leaves (a field holding a record or a container is not rebuilt: refused as before), given to
the constructor of a class :mod:`.lower_records` builds field by field.

A record built so, or built in the function, may also be held by an object of a class built
by the copy of its ``__init__`` (``FSSD(p, k, V)``, whose ``__init__`` calls
``super().__init__``): :func:`init_bound` tells which fields an ``__init__`` sets to an
argument unchanged, so :mod:`.lower_records` reads that field through the record's own leaves
(as for a dataclass holding one) and gives the copy of ``__init__`` None in its place; a name
given unchanged to a field the class's methods use as an object (``self.p.grad_log(X)``) is
the field's value where the object is built, so its class is known there (:func:`verbatim`).

Imports gast, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`, :mod:`.source`, :mod:`.built_records`,
:mod:`.passed_calls`, :mod:`.plain_classes` and :mod:`.plain_lists` (``made_of``).
"""

from __future__ import annotations

import copy

import gast
import numpy as np

from ..core import functions
from ..core.walk import walk_nodes
from ..errors import SrcadError
from . import plain_classes, plain_lists
from . import source as source_module
from .built_records import record_fields, resolve_any
from .passed_calls import _name, bound_names


def object_of(cls, **fields):
    """The object of ``cls`` whose fields are ``fields``: a record passed to the function,
    rebuilt (:mod:`.lower_records` reads it field by field, as ``made_of``'s; this runs only
    when it does not, and is then refused: analysis.soundness)."""
    return plain_lists.made_of(cls, **fields)


object_of.__srcad_builds_record__ = True


def _built_here(cls):
    """Whether :mod:`.lower_records` builds an object of ``cls`` field by field."""
    return isinstance(cls, type) and (record_fields(cls) is not None or (
        plain_classes.user_class(cls) and plain_classes.fields_of(cls) is not None))


def _fields(spec):
    """The fields of a record of ``spec`` when an object of its class can be rebuilt from
    them (every field a leaf, exactly the fields its class builds), else None."""
    cls, _, fields = spec
    if not _built_here(cls) or any(sub is not None for _, sub in fields):
        return None
    names = [field for field, _ in fields]
    known = record_fields(cls)
    known = known[0] if known is not None else plain_classes.fields_of(cls)
    return names if known is not None and sorted(known) == sorted(names) else None


class Rebuilt:
    """The records of one copy rebuilt as objects: ``hold(value, base)`` names a constant of
    the copy, ``fresh(base)`` a new local name."""

    def __init__(self, src, fdef, records, hold, fresh):
        self.src, self.fdef, self.records = src, fdef, records
        self.hold, self.fresh = hold, fresh
        self.made = {}  # parameter -> (its object's local name, the assignment)

    def constructor_args(self, call):
        """``C(p, x)``: each record parameter ``p`` given whole to the constructor ``C`` of a
        class built field by field is given its rebuilt object instead. Returns whether the
        call passes no other record (then nothing is left for the caller to refuse)."""
        target = resolve_any(self.src, call.func, bound_names(self.fdef))
        if not _built_here(target):
            return False
        slots = [(call.args, i) for i in range(len(call.args))] + [
            (call.keywords, i) for i in range(len(call.keywords))]
        todo = []
        for where, i in slots:
            node = where[i].value if where is call.keywords else where[i]
            if isinstance(node, gast.Starred):
                node = node.value
            if isinstance(node, gast.Name) and node.id in self.records:
                if _fields(self.records[node.id][0]) is None:
                    return False
                todo.append((where, i, node))
            elif _reads_record(node, self.records):
                return False  # a nested record (p.layer) or a record inside an expression
        for where, i, node in todo:
            new = gast.copy_location(_name(self.local(node.id)), node)
            if where is call.keywords:
                where[i].value = new
            elif isinstance(where[i], gast.Starred):
                where[i].value = new
            else:
                where[i] = new
        return bool(todo)

    def local(self, param):
        """The local name of ``param``'s object, its assignment made once."""
        if param not in self.made:
            spec, leaves = self.records[param]
            cls = spec[0]
            keywords = [gast.keyword(arg=field, value=leaf)
                        for field, leaf in zip(_fields(spec), leaves())]
            spelled = self.hold(cls, cls.__name__)
            if record_fields(cls) is not None:  # its constructor takes exactly its fields
                value = gast.Call(func=_name(spelled), args=[], keywords=keywords)
            else:
                value = gast.Call(func=_name(self.hold(object_of, "srcad_object_of")),
                                  args=[_name(spelled)], keywords=keywords)
            name = self.fresh(f"{param}_obj")
            assign = gast.Assign(targets=[_name(name, gast.Store())], value=value,
                                 type_comment=None)
            self.made[param] = (name, assign)
        return self.made[param][0]

    def put(self):
        """The assignments at the copy's entry (after its docstring)."""
        body = self.fdef.body
        at = 1 if body and isinstance(body[0], gast.Expr) and isinstance(
            body[0].value, gast.Constant) and isinstance(body[0].value.value, str) else 0
        new = [assign for _, assign in self.made.values()]
        for assign in new:
            for node in walk_nodes(assign):
                if "lineno" in node._attributes and not hasattr(node, "lineno"):
                    gast.copy_location(node, body[at] if at < len(body) else self.fdef)
        body[at:at] = new


def _reads_record(node, records):
    return any(isinstance(n, gast.Name) and n.id in records for n in walk_nodes(node))


# ------------------------------------------------- a record held by an object built by __init__

def init_bound(cls, call):
    """``[(field, argument)]`` of the fields of ``cls`` (a plain class built by the copy of its
    ``__init__``, :mod:`.plain_inits`) that ``call`` sets to one of its arguments unchanged: an
    ``__init__`` parameter whose one use is ``self.field = param`` at the top level of its body
    (``FSSD(p, k, V)``: ``self.k = k``), or passing it on to ``super().__init__(...)`` (or
    ``Base.__init__(self, ...)``) whose parameter is so, bound by position or keyword. The
    object then holds that argument as it is: a record built before it is read through its own
    leaves (:mod:`.nested_records`; the copy of ``__init__`` is given None in its place,
    :func:`held_as_none`), and a name or a constant is the field's value (:func:`verbatim`)."""
    found = plain_classes.describe(cls)
    if not isinstance(found, plain_classes.Plain) or \
            any(isinstance(a, gast.Starred) for a in call.args):
        return None
    if not all(k.arg for k in call.keywords):
        return None
    bound = _bound_in(cls, found.owner, call.args, {k.arg: k.value for k in call.keywords},
                      set(found.fields), 0)
    return None if bound is None else bound[0]


def _bound_in(cls, owner, args, keywords, fields, depth):
    """``(pairs, set)``: :func:`init_bound` for the ``__init__`` of ``owner`` (a class of
    ``cls``'s MRO) given ``args`` by position and ``keywords`` (name -> expression), and every
    attribute that ``__init__`` and the bases' it calls set (a field set twice is not bound:
    its value is the last one); None when that is not known."""
    init = vars(owner).get("__init__") if depth < 20 else None
    try:
        node = source_module.read(init).node
    except (SrcadError, TypeError):
        return None
    params = node.args
    if params.posonlyargs or params.vararg is not None or not params.args or \
            len(args) > len(params.args) - 1:
        return None
    me = params.args[0].id
    names = [a.id for a in params.args[1:]] + [a.id for a in params.kwonlyargs]
    given = dict(zip(names, args))
    for name, value in keywords.items():
        if name in given or name not in names:
            return None
        given[name] = value
    out, inner, below = [], [], set()
    assigned = {}
    for sub in walk_nodes(node):
        if isinstance(sub, gast.Attribute) and not isinstance(sub.ctx, gast.Load) and \
                isinstance(sub.value, gast.Name) and sub.value.id == me:
            assigned[sub.attr] = assigned.get(sub.attr, 0) + 1
    tops = {id(stmt.value) for stmt in node.body if isinstance(stmt, gast.Expr)}
    if any(isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) and
           sub.func.attr == "__init__" and id(sub) not in tops for sub in walk_nodes(node)):
        return None  # a base's __init__ called inside a branch, a loop, an expression
    for stmt in node.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Attribute) and \
                isinstance(stmt.targets[0].value, gast.Name) and \
                stmt.targets[0].value.id == me and isinstance(stmt.value, gast.Name) and \
                stmt.value.id in given and stmt.targets[0].attr in fields and \
                _one_use(node, stmt.value.id):
            out.append((stmt.targets[0].attr, given[stmt.value.id]))
        base = _base_init(cls, owner, stmt, me, node)
        if base is not None:  # super().__init__(p, alpha): what the base sets from them
            call = stmt.value
            passed = [given.get(a.id) if isinstance(a, gast.Name) and _one_use(node, a.id)
                      else None for a in call.args[base[1]:]]
            known = {k.arg: given.get(k.value.id) for k in call.keywords
                     if k.arg and isinstance(k.value, gast.Name) and _one_use(node, k.value.id)}
            if any(isinstance(a, gast.Starred) for a in call.args) or \
                    any(k.arg is None for k in call.keywords):
                continue
            found = _bound_in(cls, base[0], [a if a is not None else _OTHER for a in passed],
                              {k: v for k, v in known.items() if v is not None}, fields,
                              depth + 1)
            if found is None:
                return None
            inner += [(f, v) for f, v in found[0] if v is not _OTHER]
            below |= found[1]
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and \
                isinstance(stmt.value.func, gast.Attribute) and \
                stmt.value.func.attr == "__init__":
            return None  # a base's __init__ called in a form not read here
    out = [(f, v) for f, v in out if assigned.get(f) == 1 and f not in below]
    out += [(f, v) for f, v in inner if f not in assigned]
    return out, below | set(assigned)


_OTHER = gast.Constant(value=None, kind=None)  # an argument not passed on unchanged


def _base_init(cls, owner, stmt, me, fdef):
    """``(base, skip)`` for ``super().__init__(...)``, ``super(C, self).__init__(...)``
    (``base`` the next class of ``cls``'s MRO after ``owner`` defining ``__init__``, skip 0)
    or ``Base.__init__(self, ...)`` (skip 1), a statement of its own; else None."""
    call = stmt.value if isinstance(stmt, gast.Expr) else None
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            call.func.attr == "__init__"):
        return None
    target = call.func.value
    if isinstance(target, gast.Call) and isinstance(target.func, gast.Name) and \
            target.func.id == "super" and not target.keywords and (
                not target.args or len(target.args) == 2 and
                isinstance(target.args[1], gast.Name) and target.args[1].id == me):
        if target.args:  # super(C, self): C is the class whose __init__ this is
            named = _init_globals(owner).get(getattr(target.args[0], "id", None))
            if named is not owner:
                return None
        mro = cls.__mro__
        return (plain_classes._init_owner(cls, mro.index(owner) + 1), 0) \
            if owner in mro else None
    if isinstance(target, gast.Name) and call.args and isinstance(call.args[0], gast.Name) \
            and call.args[0].id == me:
        base = _init_globals(owner).get(target.id)
        if isinstance(base, type) and base in cls.__mro__:
            return plain_classes._init_owner(base, 0), 1
    return None


def _init_globals(owner):
    """The globals ``owner``'s ``__init__`` reads names in."""
    init = vars(owner).get("__init__")
    return getattr(init, "__globals__", {})


def _one_use(fdef, param):
    """Whether ``param`` is read once in ``fdef`` (nested functions too) and never bound."""
    uses = [n for n in walk_nodes(fdef) if isinstance(n, gast.Name) and n.id == param and
            not isinstance(n.ctx, gast.Param)]
    return len(uses) == 1 and isinstance(uses[0].ctx, gast.Load)


def held_as_none(call, bound, held):
    """``(args, keywords)`` of ``call`` (of the copy of ``__init__``) with the arguments of
    the fields in ``held`` (records held, read through their own leaves) given as None: the
    copy only stores them (:func:`init_bound`) into a field whose value is not used."""
    drop = {id(value) for field, value in bound if field in held}

    def none(node):
        return gast.copy_location(gast.Constant(value=None, kind=None), node)

    return [none(a) if id(a) in drop else a for a in call.args], [
        gast.keyword(arg=kw.arg, value=none(kw.value)) if id(kw.value) in drop else kw
        for kw in call.keywords]


def verbatim(assign, cls, bound, held, fields, spare):
    """``f_p, f_k = F_fields(D, w)`` (``assign``, :mod:`.lower_records`, after
    ``function_fields.bind_known``) -> ``(f_p_set, f_k), f_p = F_fields(D, w), D``: a field
    the object holds as the call gives it (:func:`init_bound`), a name, is that value, named
    where the object is built, when the class's methods use the field as an object
    (:func:`object_fields`): its class is known there (``self.p.grad_log(X)`` in a method is
    the method of ``D``'s class); not a record held (read through its leaves). ``spare(base)``
    gives a new name."""
    used = object_fields(cls)
    given = {f: v for f, v in bound or () if f not in held and f in used and
             isinstance(v, gast.Name)}
    inner = assign.targets[0] if isinstance(assign.value, gast.Call) else \
        assign.targets[0].elts[0]
    if not given or not isinstance(inner, gast.Tuple) or len(inner.elts) != len(fields) or \
            any(isinstance(n, gast.NamedExpr) for n in walk_nodes(assign.value)):
        return  # (f(p, p := q): the name read after the call is not the argument)
    stored = {n.id for n in walk_nodes(assign.targets[0]) if isinstance(n, gast.Name)}
    pairs = [(k, f) for k, f in enumerate(fields) if f in given and not (
        isinstance(given[f], gast.Name) and given[f].id in stored)]
    if not pairs:
        return
    out = []
    for k, _ in pairs:
        out.append(inner.elts[k].id)
        inner.elts[k] = gast.Name(id=spare(f"{inner.elts[k].id}_set"), ctx=gast.Store(),
                                  annotation=None, type_comment=None)
    assign.targets = [gast.Tuple(elts=[assign.targets[0]] + [
        gast.Name(id=n, ctx=gast.Store(), annotation=None, type_comment=None) for n in out],
        ctx=gast.Store())]
    assign.value = gast.Tuple(elts=[assign.value] + [copy.deepcopy(given[f]) for _, f in pairs],
                              ctx=gast.Load())


def object_fields(cls):
    """The fields of ``cls`` its functions (through its MRO) read an attribute of that an
    array does not have (``self.p.grad_log``): fields used as objects."""
    out = set()
    for klass in cls.__mro__[:-1]:
        for value in vars(klass).values():
            fn = getattr(value, "__func__", value)
            if not functions.is_user_function(fn):
                continue
            try:
                node = source_module.read(fn).node
            except SrcadError:
                continue
            args = node.args.posonlyargs + node.args.args
            me = args[0].id if args else None
            for sub in walk_nodes(node):
                if isinstance(sub, gast.Attribute) and isinstance(sub.value, gast.Attribute) \
                        and isinstance(sub.value.value, gast.Name) and \
                        sub.value.value.id == me and not hasattr(np.ndarray, sub.attr):
                    out.add(sub.value.attr)
    return out
