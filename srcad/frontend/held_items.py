"""A list of functions every item of a list of objects is built with (issue 16, objects29).

``nets.append(DNN(w, self.acts))`` in a loop, ``self.acts`` a list of functions (an attribute
of an object whose class the specialisation knows: its :class:`~srcad.core.functions.HeldList`;
or a global or closure list, read with its items guarded, :mod:`.held_lists`): the field is
not a list of its own in :mod:`.record_lists` but a display of those functions (bound in the
function's cells) where an item is rebuilt, so the items' method calls are made for them
(``self.acts[i](h)`` a choice among them, as for a list written in ``__init__``). Exact while
the list holds the same functions: where each item was built, ``check_items(self.acts,
(f0, f1))`` raises if the list holds others then.

Imports the standard library, gast, :mod:`srcad.core`, :mod:`.built_records`,
:mod:`.iterators_passed`, :mod:`.function_fields` and :mod:`.held_checks`.
"""

from __future__ import annotations

import copy
import types

import gast

from ..core import functions
from .built_records import resolve_any
from .held_checks import check_items
from .iterators_passed import fixed_function, is_instance

_MOST = 64


def _functions(items):
    return 0 < len(items) <= _MOST and all(
        fixed_function(v) and not is_instance(v) for v in items)


def resolve(src, value, local):
    """``(key, items, kind)`` when ``value`` (a name or dotted name) reads a list or tuple of
    functions known where the code is made (``key``: the same object for the same list),
    else None."""
    found = resolve_any(src, value, local)
    if type(found) in (list, tuple) and _functions(found):
        return found, tuple(found), type(found)
    if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name):
        known = functions.fixed_of(getattr(src, "func", None)).get(value.value.id)
        held = dict(known.held).get(value.attr) if isinstance(
            known, functions.Instance) else None
        if isinstance(held, functions.HeldList) and _functions(held):
            return held, tuple(held), list
    return None


def display(src, hold, items, kind):
    """The display of ``items`` (each bound in ``src``'s cells by ``hold``)."""
    from .function_fields import _label

    names = [gast.Name(id=hold(v, _label(v)), ctx=gast.Load(), annotation=None,
                       type_comment=None) for v in items]
    return (gast.List if kind is list else gast.Tuple)(elts=names, ctx=gast.Load())


def given_lists(lst, plain, call):
    """``[(field, argument)]`` for the fields of ``plain`` (a
    :class:`.plain_classes.Plain`) that ``__init__`` sets to a parameter unchanged and that
    ``call`` gives a name or dotted name reading a list of functions (:func:`resolve`)."""
    import inspect

    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return []
    try:
        bound = inspect.signature(plain.init).bind_partial(None, *call.args, **{
            k.arg: k.value for k in call.keywords})
    except TypeError:
        return []
    out = []
    for field, how in plain.functions:
        node = bound.arguments.get(how[1]) if how[0] == "param" else None
        if isinstance(node, (gast.Name, gast.Attribute)) and \
                resolve(lst.src, node, lst.local) is not None:
            out.append((field, node))
    return out


def found(lst, call, field, value):
    """``{field: (display, key)}`` when the construction ``call`` of a :mod:`.record_lists`
    list gives ``field`` the list of functions ``value`` reads (the argument wrapped in its
    check by :func:`apply`), else ``{}``."""
    known = resolve(lst.src, value, lst.local)
    if known is None:
        return {}
    key, items, kind = known
    if not hasattr(lst, "hold"):
        from .function_fields import holder

        lst.hold = holder(lst.src, lst.taken)
    shown = display(lst.src, lst.hold, items, kind)

    def wrap():
        checked = check(lst.src, value, shown, value)
        for part in ("args", "keywords"):
            for k, arg in enumerate(getattr(call, part)):
                given = arg.value if part == "keywords" else arg
                if given is value or gast.dump(given) == gast.dump(value):
                    if part == "keywords":
                        arg.value = checked
                    else:
                        call.args[k] = checked

    lst.__dict__.setdefault("pending", []).append((field, wrap))
    return {field: (shown, key)}


def apply(lst):
    """Once :mod:`.record_lists` reads the list so: each construction's argument of a field
    still held wrapped in its check (:func:`found`)."""
    for field, wrap in getattr(lst, "pending", ()):
        if field in (lst.held or {}):
            wrap()


def check(src, value, shown, where):
    """``check_items(value, (f0, f1))`` (which returns ``value``) at ``where``."""
    name = "srcad_check_items"
    while src.closure.get(name, check_items) is not check_items:
        name += "_"
    src.closure[name] = check_items
    src.cells[name] = types.CellType(check_items)
    src.bound = {**getattr(src, "bound", {}), name: check_items}
    items = gast.Tuple(elts=copy.deepcopy(shown.elts), ctx=gast.Load())
    stmt = gast.Call(func=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                    type_comment=None),
                     args=[copy.deepcopy(value), items], keywords=[])
    for node in gast.walk(stmt):
        if "lineno" in node._attributes:
            gast.copy_location(node, where)
    return stmt
