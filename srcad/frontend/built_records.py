"""Records built the standard way, and a record built in the function holding records.

:func:`record_fields` tells whether a class builds its objects the standard way (a named
tuple's own ``__new__``; a dataclass's generated ``__init__``, no ``__post_init__``, no
``init=False`` or ``default_factory`` fields): then ``Pt(a, b=c)`` makes an object whose fields
are exactly the arguments (:mod:`.lower_records` reads its fields as locals).

:func:`construction` reads such a call's arguments as the fields' values. A record built in
the function whose fields hold records or containers of records (``net = Net(layers=layers,
scale=s)``, ``layers`` a ``wrt`` list of records) is followed by :mod:`.passed_trees` like a
``wrt`` record: its spec is built from its arguments' specs, and the call becomes the dict
of its fields (:func:`as_dict`), read as a ``wrt`` record is (``net["layers"]``).

Imports the standard library, gast, :mod:`srcad.rules.registry` (to declare
:func:`out_of_range` constant) and :mod:`.dotted_names`.
"""

from __future__ import annotations

import dataclasses
import inspect

import gast

from ..rules.registry import registry as _registry
from . import plain_classes
from .dotted_names import name_path


def record_fields(cls):
    """``(fields, defaults, mutable)`` of a record class built the standard way, else None
    (also of a plain class of the user's built as a dataclass is:
    :func:`.plain_classes.direct_fields`)."""
    if not isinstance(cls, type):
        return None
    if cls.__getattribute__ is not object.__getattribute__ and \
            cls.__getattribute__ is not tuple.__getattribute__:
        return None
    if issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        new = cls.__new__
        if not getattr(new, "__globals__", {}).get("__name__", "").startswith("namedtuple_"):
            return None
        if any(type(inspect.getattr_static(cls, f)).__name__ != "_tuplegetter"
               for f in cls._fields):
            return None
        return tuple(cls._fields), dict(cls._field_defaults), False
    if not dataclasses.is_dataclass(cls):  # a plain class whose __init__ only copies its
        return plain_classes.direct_fields(cls)  # parameters to self: built as a dataclass
    if hasattr(cls, "__post_init__"):
        return None
    init = cls.__init__
    if getattr(getattr(init, "__code__", None), "co_filename", None) != "<string>":
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init or f.default_factory is not dataclasses.MISSING for f in fields):
        return None
    if any(isinstance(inspect.getattr_static(cls, f.name, None), property) for f in fields):
        return None
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    frozen = cls.__dataclass_params__.frozen
    return tuple(f.name for f in fields), defaults, not frozen


def resolve_any(src, node, local=()):
    """The object a name or dotted name ``node`` of ``src``'s body refers to now (the read
    recorded), else None (also when its first name is one of ``local``, bound in the body)."""
    named = name_path(node, local)
    if named is None:
        return None
    try:
        return src.lookup(*named)
    except (KeyError, AttributeError):
        return None


def construction(src, local, call):
    """``(cls, ordered, [(field, value expression), ...])`` when ``call`` builds a record of
    a class built the standard way (:func:`record_fields`) named by a free name (not one of
    ``local``), with arguments that bind to its fields (a field left out: a default that is
    a constant); else None."""
    if not isinstance(call, gast.Call):
        return None
    cls = resolve_any(src, call.func, local)
    facts = record_fields(cls)
    if facts is None:
        return None
    out = bind_fields(call, *facts[:2])
    return None if out is None else (cls, issubclass(cls, tuple), out)


def bind_fields(call, fields, defaults, hold=None):
    """``[(field, value expression), ...]`` of the record class's ``fields`` that the call
    ``call`` gives (by position or keyword; a field left out: its default, when that is a
    constant, or, given ``hold(value, base)`` naming a value in the function's cells, a
    function: ``act: Callable = np.tanh``), else None (a star, an unknown or repeated
    keyword, a field without a value)."""
    if any(isinstance(a, gast.Starred) for a in call.args) or len(call.args) > len(fields):
        return None
    given = dict(zip(fields, call.args))
    for k in call.keywords:
        if k.arg is None or k.arg in given or k.arg not in fields:
            return None
        given[k.arg] = k.value
    out = []
    for f in fields:
        if f in given:
            out.append((f, given[f]))
        elif f in defaults and isinstance(defaults[f], (int, float, bool, str, type(None))):
            out.append((f, gast.Constant(value=defaults[f], kind=None)))
        elif f in defaults and hold is not None and _function(defaults[f]):
            label = getattr(defaults[f], "__name__", "fn")
            out.append((f, gast.Name(id=hold(defaults[f], f"srcad_{label}" if isinstance(
                label, str) and label.isidentifier() else "srcad_fn"), ctx=gast.Load(),
                annotation=None, type_comment=None)))
        else:
            return None
    return out


def _function(value):
    from .iterators_passed import fixed_function

    return fixed_function(value)


def as_dict(call, fields):
    """The dict display of ``fields`` (``[(field, value expression), ...]``) in place of the
    record ``call`` builds."""
    return gast.copy_location(gast.Dict(
        keys=[gast.Constant(value=f, kind=None) for f, _ in fields],
        values=[v for _, v in fields]), call)


def out_of_range(seq, index):
    """What :mod:`.passed_trees` reads ``seq[index]`` as where the index is past the end of
    a list of records (``layers[0]`` in the copy made for the empty list): Python's
    IndexError (what the code does with it after is never reached)."""
    raise IndexError(f"{type(seq).__name__} index {index} out of range (of {len(seq)})")


_registry.nondiff.add(out_of_range)
