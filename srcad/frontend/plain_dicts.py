"""Dicts of objects built in a plain class's ``__init__`` (issue 16): ``self.parts =
{"enc": Dense(W1, b1), "dec": Dense(W2, b2)}``, then ``self.parts["enc"](x)`` in a method.

Each key's object is an object field of its own (:mod:`.plain_lists`), named ``parts__enc``
(:func:`dict_entries`): the copy of ``__init__`` builds the objects one by one in the
order Python builds the dict (:func:`split_dict`), and a method's copy (or the function
differentiated, for ``net.parts["enc"]``) reads ``self.parts["enc"]`` as that object field
(:func:`by_key`). Any other use of the dict there (a key not written as a string, its
``values()``, iterating it) is refused at its line: each object is a copy rebuilt from its
fields. Also the small helpers :mod:`.plain_lists` shares.

Imports gast, :mod:`srcad.errors`, :mod:`.plain_classes` and :mod:`.built_records`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import plain_classes
from .built_records import record_fields

SEP = "__"


def name_node(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def self_attr(node, self_name):
    return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
        node.value.id == self_name


def item_fields(cls):
    """The fields of an item class read field by field (a record class, or a plain class,
    its list and object fields as their columns), else None."""
    facts = record_fields(cls)
    if facts is not None:
        return tuple(facts[0]) or None
    found = plain_classes.describe(cls) if plain_classes.user_class(cls) else None
    if isinstance(found, plain_classes.Plain) and found.fields:
        return found.fields  # (its own list fields as their columns: rebuilt by made_of)
    return None


def dict_entries(info, field, value, loads, local):
    """The entries of a dict of objects written in ``__init__`` (``self.parts = {"enc":
    Dense(...), "dec": Dense(...)}``, string keys, never read there): one object field per
    key, named ``parts__enc`` (kind ``("key", "parts", "enc")``), each read where a method
    reads ``self.parts["enc"]`` (:func:`by_key`); none if one key's object is not read so."""
    keys = [k.value if isinstance(k, gast.Constant) and isinstance(k.value, str) and
            k.value.isidentifier() else None for k in value.keys]
    if loads or not keys or None in keys or len(set(keys)) != len(keys) or not all(
            isinstance(v, gast.Call) for v in value.values):
        return []
    out = []
    for key, call in zip(keys, value.values):
        root = call.func
        while isinstance(root, gast.Attribute):
            root = root.value
        cls = info.lookup(call.func) if isinstance(root, gast.Name) and \
            root.id not in local else None
        subs = item_fields(cls) if isinstance(cls, type) else None
        part = f"{field}{SEP}{key}"
        names = tuple(f"{part}{SEP}{sub}" for sub in subs or ())
        if not subs or part in info.fields or hasattr(info.cls, part) or any(
                n in info.fields or hasattr(info.cls, n) for n in names):
            return []
        out.append((part, cls, tuple(zip(subs, names)), ("key", field, key)))
    return out


def by_key(fdef, base, lists):
    """``base.parts["enc"]`` -> ``base.parts__enc`` (the object field of that key) in
    ``fdef``; the first other read of such a dict (not at a constant key of it), else
    None."""
    keys = {(kind[1], kind[2]): part for part, _, _, kind in lists.values()
            if isinstance(kind, tuple)} if isinstance(lists, dict) else {}
    dicts = {f for f, _ in keys}
    parents = {c: n for n in walk_nodes(fdef) for c in gast.iter_child_nodes(n)}
    for node in list(walk_nodes(fdef)):
        if not (self_attr(node, base) and node.attr in dicts):
            continue
        sub = parents.get(node)
        key = sub.slice.value if isinstance(sub, gast.Subscript) and sub.value is node and \
            isinstance(sub.ctx, gast.Load) and isinstance(sub.slice, gast.Constant) else None
        if (node.attr, key) not in keys or not isinstance(node.ctx, gast.Load):
            return node
        up = parents[sub]
        new = gast.copy_location(gast.Attribute(value=node.value, attr=keys[
            node.attr, key], ctx=gast.Load()), sub)
        for name, value in gast.iter_fields(up):
            if value is sub:
                setattr(up, name, new)
            elif isinstance(value, list) and sub in value:
                value[value.index(sub)] = new
    return None


def refuse_dict(src, node, base):
    line = getattr(node, "lineno", None)
    return UnsupportedSyntaxError(
        f"{base}.{node.attr}, a dict of objects built in __init__, used other than indexed by "
        "one of its keys written as a string: srcad follows each object through a copy "
        "built from its fields", filename=src.filename, lineno=line,
        construct=src.line_text(line),
        hint=f'index it by a key ({base}.{node.attr}["enc"](x)); to loop over the objects, '
        "hold them in a list (self.layers = [...])")


def split_dict(fdef, self_name, lists):
    """In the copy of ``__init__``: ``self.parts = {"enc": Dense(a), "dec": Dense(b)}`` ->
    ``self.parts__enc = Dense(a)``, ``self.parts__dec = Dense(b)`` (in the order Python
    builds them), for the dicts of objects :func:`dict_entries` found."""
    parts = {(kind[1], kind[2]): part for part, _, _, kind in lists
             if isinstance(kind, tuple)}
    if not parts:
        return
    out = []
    for stmt in fdef.body:
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and \
            len(stmt.targets) == 1 else None
        if self_attr(target, self_name) and isinstance(stmt.value, gast.Dict) and \
                (target.attr, getattr(stmt.value.keys[0], "value", None)) in parts:
            for k, v in zip(stmt.value.keys, stmt.value.values):
                out.append(gast.copy_location(gast.Assign(targets=[gast.copy_location(
                    gast.Attribute(value=name_node(self_name), attr=parts[target.attr, k.value],
                                   ctx=gast.Store()), target)], value=v, type_comment=None),
                    stmt))
            continue
        out.append(stmt)
    fdef.body = out
