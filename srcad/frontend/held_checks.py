"""Run-time checks of the functions an object held when srcad made the code of its methods
(generated code calls them; :mod:`.lower_callees` emits them): ``obj.method(...)`` resolved on
the class must not be hidden by an attribute of the object's own, and ``obj.f`` holding a
function must still hold it, and a list of functions the items of a list of objects were
built with must hold the same ones. Each raises a :class:`srcad.errors.SrcadError` naming the line
of the call (``where``: ``(file, line, text)``) and saying what to do.

Imports :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

from ..errors import SrcadError
from ..rules.registry import registry as _registry


def check_method(obj, name, where=None):
    """Raise unless ``obj.name`` is the function of ``obj``'s class (an attribute of the
    object's own would hide it, and srcad differentiated the class's): generated code
    checks this at each ``obj.method(...)`` it resolved by the class."""
    own = getattr(obj, "__dict__", None)
    if own is not None and name in own:
        raise _error(where, f"srcad differentiated {type(obj).__name__}.{name}, but this "
                     f"object has an attribute {name!r} of its own that Python calls instead "
                     "(it was set after the code was made)",
                     "make the derivative again after setting the attribute, or give the "
                     "attribute another name")


def check_held(obj, name, fn, where=None):
    """Raise unless ``obj.name`` is still ``fn``, the function srcad made the code for (the
    object held it in an attribute of its own when the code was made)."""
    if getattr(obj, name, None) is not fn:
        raise _error(where, f"srcad made this code for {type(obj).__name__}.{name} holding "
                     f"{getattr(fn, '__name__', fn)!r}, but this object holds another value "
                     "there now (it was changed after the code was made)",
                     "make the derivative again after changing the attribute "
                     "(srcad.grad(obj.method)), or pass the function as an argument")


def check_items(value, items, where=None):
    """``value``, after raising unless it is a list or tuple holding exactly ``items`` (by
    identity): a list of functions the objects of a list were built with, which srcad made
    their calls for (:mod:`.held_items`)."""
    if type(value) not in (list, tuple) or len(value) != len(items) or any(
            a is not b for a, b in zip(value, items)):
        raise _error(where, "srcad made this code for the functions the list held when the "
                     "code was made, but it holds others now (it was changed while the code "
                     "ran)", "change the list before making the derivative, or pass the "
                     "functions as a tuple")
    return value


def _error(where, message, hint):
    filename, line, text = where or (None, None, None)
    return SrcadError(message, filename=filename, lineno=line, construct=text, hint=hint)


_registry.nondiff.update((check_method, check_held, check_items))  # checks: no derivative
