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

Imports gast, :mod:`.built_records`, :mod:`.passed_calls`, :mod:`.plain_classes` and
:mod:`.plain_lists` (``made_of``).
"""

from __future__ import annotations

import gast

from . import plain_classes, plain_lists
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
            for node in gast.walk(assign):
                if "lineno" in node._attributes and not hasattr(node, "lineno"):
                    gast.copy_location(node, body[at] if at < len(body) else self.fdef)
        body[at:at] = new


def _reads_record(node, records):
    return any(isinstance(n, gast.Name) and n.id in records for n in gast.walk(node))
