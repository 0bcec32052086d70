"""``dataclasses.replace(p, w=v)`` of a record argument (issue 16, outside23 item 6).

Python's ``dataclasses.replace(p, **changes)`` builds ``type(p)(**fields)``, each init field
taken from ``changes`` or else from ``p``. For a record parameter ``p`` of a dataclass whose
fields are all set by its ``__init__`` and that has no ``__post_init__`` (nothing runs beside
storing the fields), the call is rewritten before the record's reads are, to the construction
``Rec(w=v, b=p.b)`` with ``Rec`` a free name of the function bound to that very class: a record
built in the function (:mod:`.built_records`), whose field reads srcad follows, and the fields
of ``p`` read as any other. Any other form (``replace`` of something else, a class with
``__post_init__`` or ``init=False`` fields, a class not named where the function can see it,
a changed field that is not one of the init fields, ``**kw``) is left alone (and refused as a
use of the record srcad does not follow).

Imports the standard library and gast.
"""

from __future__ import annotations

import dataclasses

import gast

from ..core.walk import walk_nodes


def rewrite(fdef, records, source):
    """Rewrite each ``dataclasses.replace(p, ...)`` / ``replace(p, ...)`` of a record
    parameter ``p`` (``records``: name -> an example record) in ``fdef``, in place."""
    names = {}
    for name, value in records.items():
        cls = type(value)
        if not dataclasses.is_dataclass(value) or hasattr(cls, "__post_init__"):
            continue
        fields = dataclasses.fields(cls)
        if not all(f.init for f in fields):
            continue
        spelled = _name_of(cls, source)
        if spelled is not None:
            names[name] = (spelled, [f.name for f in fields])
    if not names:
        return
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Call) and _is_replace(node.func, source) and len(
                node.args) == 1 and isinstance(node.args[0], gast.Name) and (
                    node.args[0].id in names):
            spelled, fields = names[node.args[0].id]
            changes = {k.arg: k.value for k in node.keywords}
            if None in changes or not set(changes) <= set(fields):
                continue
            obj = node.args[0].id
            node.func = gast.copy_location(gast.Name(spelled, gast.Load(), None, None), node)
            node.args = []
            node.keywords = [gast.keyword(f, changes[f] if f in changes else gast.copy_location(
                gast.Attribute(gast.Name(obj, gast.Load(), None, None), f, gast.Load()), node))
                for f in fields]
            for part in walk_nodes(node):
                gast.copy_location(part, node)


def _is_replace(func, source):
    """Whether ``func`` names ``dataclasses.replace``."""
    try:
        if isinstance(func, gast.Name):
            return source.lookup(func.id) is dataclasses.replace
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            return source.lookup(func.value.id, [func.attr]) is dataclasses.replace
    except (KeyError, AttributeError):
        return False
    return False


def _name_of(cls, source):
    """A free name the function can read that is bound to ``cls`` (None if none is)."""
    for name in (cls.__name__, *sorted(source.globals)):
        try:
            if name.isidentifier() and source.lookup(name) is cls:
                return name
        except KeyError:
            continue
    return None
