"""Lists and dicts of functions a transformation reads, guarded by their items (issue 16,
outside24 item 4).

A call of an item of a list or dict of functions read from a global, a closure cell, or an
attribute of an object of the user's (``ACTS[k](x)``, ``self.fs[0](x)`` in a method
differentiated as ``srcad.grad(model.loss)``) is made for the functions the container held
when the code was made. The container may change in place afterwards (``model.fs[1] =
np.exp``, ``ACTS.append(relu)``), or the name be bound to another one, which no read of the
name by identity sees: :func:`record` notes an :class:`srcad.core.env.ItemsRead` for each such
container reached from a name (its own attributes and those of the user objects it holds,
to :data:`DEPTH` levels), so the derivative is made again for the functions it holds now
instead of finding the ones it was made for gone (``check_choice``'s error, which stays for
a change made while the code runs).

Imports :mod:`srcad.core` and :mod:`.iterators_passed` (what a function is).
"""

from __future__ import annotations

from ..core import env, functions
from .iterators_passed import fixed_function, is_instance

#: how many levels of attributes down the lists are looked for
DEPTH = 3
#: at most this many attributes (items) are looked at
MOST = 64


def _functions(container):
    """Whether ``container`` is a list, or a dict, of functions (at most :data:`MOST`), or a
    list of functions and ``None`` (:func:`functions_or_none`)."""
    kind = type(container)
    if kind not in (list, dict) or not 0 < len(container) <= MOST:
        return False
    items = container.values() if kind is dict else container
    return all(_function(v) for v in items) or functions_or_none(container)


def _function(v):
    return fixed_function(v) and not is_instance(v)


def functions_or_none(container):
    """Whether ``container`` is a list of functions and ``None`` (``[np.tanh, None]``: a
    layer's activation or none, closures29), at least one a function."""
    return type(container) is list and 0 < len(container) <= MOST and all(
        v is None or _function(v) for v in container) and any(v is not None for v in container)


def record(namespace, cell, name, attrs, value, depth=DEPTH, seen=()):
    """Note an :class:`~srcad.core.env.ItemsRead` for ``value`` (read as ``name`` then
    ``attrs``) if it is a list or dict of functions, and for those an object of the user's
    holds in attributes of its own (recursively)."""
    if _functions(value):
        env.record(env.ItemsRead(namespace, cell, name, attrs, value))
        # a function of the user's held there given other code (ACTS[0].__code__ = ...): made
        # again, as a callee named directly is (sound24: the old derivative ran before)
        items = value.values() if type(value) is dict else value
        env.record_all(env.code_reads({f"{name}[{k}]": fn for k, fn in enumerate(items)
                                       if fn is not None}))
        return
    if depth <= 0 or functions.user_instance_class(value) is None or id(value) in seen:
        return
    own = getattr(value, "__dict__", None)
    if not isinstance(own, dict) or len(own) > MOST:
        return
    for attr, held in list(own.items()):
        if type(attr) is str and attr.isidentifier():
            record(namespace, cell, name, tuple(attrs) + (attr,), held, depth - 1,
                   seen + (id(value),))
