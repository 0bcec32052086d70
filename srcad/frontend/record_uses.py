"""What :mod:`.lower_records` accepts as a use of a record built in the function: a method
or property whose copy taking the fields is made, unpacking a named tuple, a field read by
:func:`.plain_lists.field_of`; and the refusals it keeps for the lines building records it
does not follow (``src.record_refusals``, read by analysis.soundness).

Imports gast, :mod:`srcad.errors`, :mod:`.built_records`, :mod:`.passed_calls`,
:mod:`.passed_records` and :mod:`.plain_lists`.
"""

from __future__ import annotations

import gast

from ..errors import SrcadError
from . import passed_calls, passed_records, plain_lists
from .built_records import resolve_any


def method_call_copied(src, attr, parents, node, record, written, items, name=None):
    """Whether ``attr`` (``p.predict``; ``p`` for ``p(x)``, ``name`` ``"__call__"``) is the
    function of a call of a method of the record's class whose copy taking the fields is made
    (:func:`.passed_calls.record_method`)."""
    call = parents.get(attr)
    if written or not isinstance(attr.ctx, gast.Load) or not isinstance(call, gast.Call) or \
            call.func is not attr:
        return False
    fn = passed_calls.record_method(record(node)[0][0], name or attr.attr)
    if fn is None:
        return False
    whole = gast.Call(func=attr, args=[node] + call.args, keywords=call.keywords)
    found = passed_calls.binding(fn, whole, record)
    return bool(found) and copied(src, fn, found, items)


def property_copied(src, attr, node, record, written, items):
    """Whether ``attr`` (``p.total``) reads a property of the record's class whose getter's
    copy taking the fields is made."""
    getter = None if written or not isinstance(attr.ctx, gast.Load) else \
        passed_calls.record_property(record(node)[0][0], attr.attr)
    if getter is None:
        return False
    found = passed_calls.binding(getter, gast.Call(func=attr, args=[node], keywords=[]),
                                 record)
    return bool(found) and copied(src, getter, found, items)


def copied(src, fn, found, items):
    """Whether the copy of ``fn`` taking the record arguments ``found`` (see
    :func:`.passed_calls.binding`) is made. If it is refused, the record is not read field by
    field (as a constant it may still be passed whole) and the refusal is kept for the lines
    ``items`` build it on (``src.record_refusals``: the error if it is differentiated)."""
    try:
        passed_records.derived(fn, {p: rec[0] for p, rec in found.items()})
    except SrcadError as exc:
        keep_refusal(src, exc, [assign.lineno for assign, _ in items])
        return False
    return True


def keep_refusal(src, exc, lines):
    """Keep ``exc``, the refusal of a callee's copy, for the lines that build the record
    (``src.record_refusals``, read by analysis.soundness: the error if it is
    differentiated); the first refusal of a line stays."""
    refusals = src.__dict__.setdefault("record_refusals", {})
    for line in lines:
        refusals.setdefault(line, exc)


def by_position(node, parent, count):
    """``a, b = p`` (as many names as fields) or ``p[i]`` (a constant index in range)."""
    if isinstance(parent, gast.Assign) and parent.value is node:
        targets = parent.targets
        return len(targets) == 1 and isinstance(targets[0], (gast.Tuple, gast.List)) and \
            len(targets[0].elts) == count and \
            not any(isinstance(t, gast.Starred) for t in targets[0].elts)
    if not isinstance(parent, gast.Subscript):
        return False
    index = passed_calls.constant_index(parent.slice)
    return parent.value is node and isinstance(parent.ctx, gast.Load) and \
        index is not None and -count <= index < count


def is_replace_source(call, parents, built):
    """Whether ``call`` is a ``_replace``/``replace`` of a name read so (not a record built
    from a record: ``m = MLP(l1, l2)`` uses ``l1`` whole)."""
    assign = parents.get(call)
    return isinstance(assign, gast.Assign) and assign.value is call and \
        len(assign.targets) == 1 and isinstance(assign.targets[0], gast.Name) and \
        any(a is assign and kind[0] == "replace" for a, kind in built.get(
            assign.targets[0].id, ()))


def field_read(src, call, node):
    """The field ``call`` reads when it is ``field_of(node, "name")``
    (:func:`.plain_lists.field_of`), else None."""
    if not (isinstance(call, gast.Call) and len(call.args) == 2 and not call.keywords and
            call.args[0] is node and isinstance(call.args[1], gast.Constant) and
            isinstance(call.args[1].value, str)):
        return None
    return call.args[1].value if resolve_any(src, call.func) is plain_lists.field_of \
        else None


def holder_class(src, node, parents):
    """The name of the plain class of the user's whose construction ``node`` (an object
    built) is an argument of, directly, in a list or tuple written there, or spread
    (``Seq([Dense(...), Dense(...)])``, ``Seq(Dense(...), Dense(...))``), else None."""
    from . import plain_classes

    up = parents.get(node)
    while isinstance(up, (gast.List, gast.Tuple, gast.Starred, gast.keyword)):
        up = parents.get(up)
    if not isinstance(up, gast.Call) or up.func is node:
        return None
    cls = resolve_any(src, up.func)
    return cls.__name__ if plain_classes.user_class(cls) and not (
        hasattr(cls, "__dataclass_fields__") or issubclass(cls, tuple)) else None
