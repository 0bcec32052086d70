"""Records built in the function holding records built there (issue 16): an object holding another.

``m = MLP(Lin(w, b), Lin(v, c))`` or ``l1 = Lin(w, b); m = MLP(l1, l2)``, then ``m(x)``,
``m.first.out(x)``, ``apply(m, x)``. Before :mod:`.lower_records` reads names field by field,
:func:`prepare` rewrites the function's top-level statements, exactly:

* *hoisting*: ``m = MLP(Lin(w, b), Lin(v, c), s)``, ``MLP`` a class whose fields are its
  arguments (:func:`.built_records.record_fields`: a dataclass, a named tuple, a plain class
  built as one), becomes ``m_first = Lin(w, b)``, ``m_second = Lin(v, c)``, ``m = MLP(m_first,
  m_second, s)`` when the arguments before the last one taken out are names, constants and
  arithmetic of them (so everything runs in the order it did, and nothing between);
* *aliasing*: where ``m = MLP(..., l1, ...)`` binds the name ``l1`` to the field ``first``,
  both names assigned once, at the top level, ``l1`` first, neither declared global or
  nonlocal, no field of ``m`` written or deleted, a read ``m.first`` in a statement after
  ``m``'s is ``l1`` (in Python the same object).

:func:`held` then tells :mod:`.lower_records` which fields of a record read field by field hold
another one read so: the record's spec nests that one's (its leaves are that one's locals),
so ``m(x)`` calls the copy of ``MLP.__call__`` taking every leaf, and ``self.first(x)`` in it
the copy of ``Lin.__call__`` (:mod:`.passed_records`).

Imports gast, :mod:`.built_records` and :mod:`.plain_classes`.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes
from . import plain_classes
from .built_records import bind_fields, record_fields, resolve_any

_SIMPLE = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.operator, gast.unaryop,
           gast.expr_context)


def _name(id_, ctx):
    return gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None)


def _record_call(src, node, local):
    """``(cls, [(field, value)])`` when ``node`` builds a record whose fields are its
    arguments, named by a free name (not one of ``local``), else None."""
    if not isinstance(node, gast.Call):
        return None
    cls = resolve_any(src, node.func, local)
    facts = record_fields(cls)
    bound = None if facts is None else bind_fields(node, *facts[:2])
    return None if bound is None else (cls, bound)


def _builds_object(src, node, local):
    """Whether ``node`` calls a class of the user's (a record or a plain class)."""
    if not isinstance(node, gast.Call):
        return False
    cls = resolve_any(src, node.func, local)
    return record_fields(cls) is not None or plain_classes.user_class(cls)


def _assigned(fdef):
    """name -> how many times the function binds it (any way, nested functions too)."""
    count = {}
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            count[node.id] = count.get(node.id, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            for name in node.names:
                count[name] = count.get(name, 0) + 2
    return count


def prepare(src, fdef):
    """Hoist, then alias (see above); rewrites ``fdef`` in place."""
    from .passed_calls import bound_names

    local = bound_names(fdef)
    taken = {n.id for n in walk_nodes(fdef) if isinstance(n, gast.Name)}
    body = []
    for stmt in fdef.body:
        body += _hoisted(src, stmt, local, taken)
    fdef.body = body
    for k, stmt in enumerate(body):  # (held: a record held is built before its holder)
        stmt._srcad_order = k
    _alias(src, fdef, bound_names(fdef))


def _hoisted(src, stmt, local, taken):
    """``stmt`` and the assignments taken out of it before it (see above)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name)):
        return [stmt]
    found = _record_call(src, stmt.value, local)
    if found is None:
        return [stmt]
    call, name = stmt.value, stmt.targets[0].id
    args = call.args + [k.value for k in call.keywords]
    out = [i for i, a in enumerate(args) if _builds_object(src, a, local)]
    if not out or any(i not in out and not all(isinstance(n, _SIMPLE) for n in walk_nodes(a))
                      for i, a in enumerate(args[:out[-1]])):
        return [stmt]
    field_of = {id(value): field for field, value in found[1]}
    before = []
    for i in out:
        new = f"{name}_{field_of.get(id(args[i]), i)}"
        while new in taken:
            new += "_"
        taken.add(new)
        before.append(gast.copy_location(gast.Assign(
            targets=[gast.copy_location(_name(new, gast.Store()), args[i])], value=args[i],
            type_comment=None), stmt))
        use = gast.copy_location(_name(new, gast.Load()), args[i])
        if i < len(call.args):
            call.args[i] = use
        else:
            call.keywords[i - len(call.args)].value = use
    return [b for a in before for b in _hoisted(src, a, local, taken)] + [stmt]


def _alias(src, fdef, local):
    """``m.first`` -> ``l1`` (see above)."""
    count = _assigned(fdef)
    written = {n.value.id for n in walk_nodes(fdef) if isinstance(n, gast.Attribute) and
               not isinstance(n.ctx, gast.Load) and isinstance(n.value, gast.Name)}
    at = {}  # name -> index of the top-level statement assigning it
    for k, stmt in enumerate(fdef.body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            at[stmt.targets[0].id] = k
    aliases = {}  # (record name, field) -> held name
    for name, k in at.items():
        if count.get(name) != 1 or name in written:
            continue
        found = _record_call(src, fdef.body[k].value, local)
        if found is None:
            continue
        for field, value in found[1]:
            if isinstance(value, gast.Name) and value.id != name and \
                    count.get(value.id) == 1 and at.get(value.id, k) < k:
                aliases[name, field] = value.id
    if not aliases:
        return
    for k, stmt in enumerate(fdef.body):
        for node in walk_nodes(stmt):
            for field, child in gast.iter_fields(node):
                nodes = child if isinstance(child, list) else [child]
                for i, sub in enumerate(nodes):
                    held = _held_read(sub, aliases, at, k)
                    if held is None:
                        continue
                    new = gast.copy_location(_name(held, gast.Load()), sub)
                    if isinstance(child, list):
                        child[i] = new
                    else:
                        setattr(node, field, new)


def _held_read(node, aliases, at, k):
    if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and \
            isinstance(node.value, gast.Name) and (node.value.id, node.attr) in aliases and \
            at[node.value.id] < k:
        return aliases[node.value.id, node.attr]
    return None


def held(built, kinds_of, name):
    """``{field: name}`` of the fields of the record ``name`` (read field by field, in
    ``built``) that hold a record read so too, assigned before it: its one construction binds
    the field to that name (``kinds_of(kind)``: a construction's bound ``(field, value)``
    pairs, else None)."""
    items = built.get(name)
    if not items or len(items) != 1:
        return {}
    bound = kinds_of(items[0][1])
    if bound is None:
        return {}
    order = getattr(items[0][0], "_srcad_order", None)
    return {field: value.id for field, value in bound if order is not None and
            isinstance(value, gast.Name) and value.id != name and
            len(built.get(value.id, ())) == 1 and
            getattr(built[value.id][0][0], "_srcad_order", order) < order}
