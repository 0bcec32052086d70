"""``value_and_grad``'s code called directly for containers and records of floats, for the
eager ``vjp`` of a dict of parameters, a list, a named tuple or a dataclass
(:func:`srcad.fast_calls.eager_vjp`, made by :func:`srcad.api._vg_of`).

``value_and_grad``'s dispatcher finds the code for a container by its structure
(:func:`srcad.tree_keys.call_key`, ~1 µs of a dict of two numbers' 3.9). Here, after the
dispatcher ran on arguments all of floats in containers and records (the full path made
the code for them, or refused them), the code made for that structure is called directly
while a test compiled for it (:func:`srcad.tree_keys.key_test`: every container's and
record's class, keys in order, leaf classes, what ``call_key`` holds of such arguments)
passes and every name the code read finds what it found (:func:`srcad.fast_checks.checks`);
any other call goes to the dispatcher, which keeps its checks and errors.

Imports :mod:`srcad.tree_keys`, :mod:`srcad.pytrees`, :mod:`srcad.fast_checks` and
:mod:`srcad.errors`.
"""

from __future__ import annotations

from . import pytrees, tree_keys
from .errors import SrcadError
from .fast_checks import checks


def direct(t):
    """``t``'s function (a ``Transformed``'s dispatcher), calling the code made for the
    structure of the first call's arguments directly while they have it (see above)."""
    general = t.function
    kept = []  # [(code, test, same, ok)] or [None]: tried

    def by_structure(*args):
        if kept:
            found = kept[0]
            if found is not None and found[1](args) and (found[2]() or found[3]()):
                return found[0](*args)
            return general(*args)
        out = general(*args)  # (the full path first: it makes the code or refuses)
        kept.append(_kept(t, args))
        return out

    by_structure.__srcad__ = getattr(general, "__srcad__", None)
    by_structure.kept = kept  # (srcad.tree_vjps: vjp's front calls the code kept)
    return by_structure


def _kept(t, args):
    """``(code, test, same, ok)`` for ``args`` (floats in containers and records, all of
    ``t``'s parameters given positionally), else None."""
    code = getattr(t._user, "__code__", None)
    if code is None or code.co_argcount != len(args) or code.co_kwonlyargcount or (
            code.co_flags & 0x0C) or not all(map(floats, args)) or not tree_keys.keyed_classes(
            map(type, args)):
        return None
    try:
        t._check_env()
        fn = t._specialise(t._bind(args, {}))
    except SrcadError:
        return None
    same = tree_keys.compiled_test((("a", args),))
    if same is None:
        return None
    return (fn, same, *checks(fn.__srcad_reads__))


def floats(value):
    """Whether ``value`` is a float or a container or record of floats (at any depth)."""
    cls = type(value)
    if cls is float:
        return True
    if cls is dict:
        return all(map(floats, value.values()))
    if cls is list or cls is tuple:
        return all(map(floats, value))
    if pytrees.is_record(value) and tree_keys.tree_key(value) is not None:
        return all(map(floats, pytrees.fields_of(value).values()))
    return False
