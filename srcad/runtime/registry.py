"""The one registry of runtime helpers: every function generated code may call by its plain
name (``unbroadcast``, ``grad_sum``, ...), whichever module of :mod:`srcad.runtime` defines it.

A helper module marks each such function with ``@helper(family)``; the family says what kind
of helper it is: ``"runtime"`` for the general ones of :mod:`srcad.runtime.helpers`,
``"numpy"`` for the gradients of NumPy functions (:mod:`srcad.runtime.numpy_helpers` lists
them). Code elsewhere asks :func:`family_of` about a function object instead of comparing
module names, so moving a helper between modules changes nothing.

Imports nothing from srcad.
"""

from __future__ import annotations

#: name -> function, every helper generated code may call (the backend binds them by name)
HELPERS = {}
_FAMILY = {}  # name -> family


def helper(family):
    """A decorator entering a function in :data:`HELPERS` under its ``__name__``."""

    def register(fn):
        name = fn.__name__
        if name in HELPERS and HELPERS[name] is not fn:
            raise ValueError(f"two srcad runtime helpers are named {name!r}")
        HELPERS[name] = fn
        _FAMILY[name] = family
        return fn

    return register


def family_of(fn):
    """The family of ``fn`` if it is a registered helper (this very object), else ``None``."""
    name = getattr(fn, "__name__", None)
    if isinstance(name, str) and HELPERS.get(name) is fn:
        return _FAMILY[name]
    return None
