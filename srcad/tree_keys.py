"""The one-lookup path of a derivative called with containers or records (a dict of
parameters, a list, a named tuple, a dataclass): :class:`ByTree`.

A derivative called with numbers and arrays finds its code by one lookup on the argument
types (:mod:`srcad.specialise`); with a container, the code depends on what it holds too (its
keys, their order, the kinds of its items: :func:`srcad.backend.keys.cache_key`), and every
call took the full path (binding the arguments to the signature, the checks of ``wrt``
values, the full cache key: ~50 µs for a dict of two numbers, a hundred times the code).

Here, a call whose arguments are all of the kinds in :func:`tree_key`'s reach is keyed by
them (:func:`call_key`: every container's and record's exact classes, keys in order and leaf
classes, every array's rank and dtype, which top-level arrays share a shape) and finds the
function the full path gave for a call with an equal key. Such a key holds all the full path
reads of the arguments (their types, ``cache_key``, what the ``wrt`` checks and the dtype
guard test), so an equal key means the full path would make the same decisions; the function
is remembered only after the full path ran it on exactly these arguments (none converted,
none taken from a default). Anything else (a key of another kind, an object, a duck array,
an int for a ``wrt`` parameter, keywords) takes the full path, which makes the code or
refuses the call. Names the code read are guarded where they were (the dispatcher's line
(0), ``Transformed.__call__``).

Imports NumPy, :mod:`srcad.pytrees` (which classes are records) and
:mod:`srcad.backend.keys` (the arrays' part of a key).
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from . import pytrees
from .backend.keys import layouts

#: leaves keyed by their class alone (an array: by its rank and dtype too)
_LEAVES = frozenset({float, int, np.float64, bool, complex, type(None), str})
#: dict keys keyed by their value (exact classes only: 1, 1.0 and True are equal keys)
_KEYS = frozenset({str, int})
#: a record class -> "tuple" (a named tuple) or "fields" (a dataclass with a __dict__)
_RECORDS = {}
#: top-level argument classes the key covers besides containers, records and arrays
_PLAIN = frozenset({float, int, np.float64})
#: how many functions one table of argument classes keeps (then it starts again)
MOST = 64


class _Unkeyed(Exception):
    """A value :func:`tree_key` does not reach: the call takes the full path."""


def _record_kind(cls):
    kind = _RECORDS.get(cls)
    if kind is None:
        if len(_RECORDS) > 1000:  # (classes made on the fly: bounded)
            _RECORDS.clear()
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            kind = "tuple"
        elif dataclasses.is_dataclass(cls) and not hasattr(cls, "__slots__"):
            kind = "fields"
        else:
            kind = ""
        _RECORDS[cls] = kind
    return kind if cls not in pytrees._REGISTERED else ""  # (its own flatten: any fields)


def _key(value):
    cls = type(value)
    if cls in _LEAVES:
        return cls
    if cls is np.ndarray:
        return (value.ndim, value.dtype.char)
    if cls is dict:
        out = [dict]
        for k, v in value.items():
            if type(k) not in _KEYS:
                raise _Unkeyed
            out.append(k)
            out.append(_key(v))
        return tuple(out)
    if cls is list or cls is tuple:
        return (cls,) + tuple([_key(v) for v in value])
    kind = _record_kind(cls)
    if kind == "tuple":
        return (cls,) + tuple([_key(v) for v in value])
    if kind == "fields":
        own = value.__dict__
        return (cls,) + tuple([(k, _key(v)) for k, v in own.items()])
    raise _Unkeyed


def tree_key(value):
    """The key of a container or record ``value``: its classes, keys (in order), fields and
    leaf kinds, all the way down; None when it holds anything else (an object, a function, a
    duck array, a dict key not a str or int, a registered pytree, a value holding itself)."""
    try:
        return _key(value)
    except (_Unkeyed, RecursionError):
        return None


def compiled_test(groups):
    """``same(*names)``: whether the values passed have the :func:`tree_key` that
    ``groups``' values have now (``[(name, values)]``: a parameter of ``same`` and the values
    of its items, whose number is tested too); None when a value has no such test."""
    space, conds = {}, []
    for name, values in groups:
        conds.append(f"len({name}) == {len(values)}")
        for i, value in enumerate(values):
            found = key_test(value, f"{name}[{i}]", space)
            if found is None:
                return None
            conds += found
    params = ", ".join(name for name, _ in groups)
    text = f"def same({params}):\n    return {' and '.join(conds)}\n"
    exec(compile(text, "<srcad structure test>", "exec"), space)  # noqa: S102
    same = space["same"]
    same.__srcad_source__ = text  # (for reading)
    return same


def key_test(value, spelled, space):
    """The conditions (texts, to be joined by ``and``) that the value named ``spelled`` has
    ``value``'s :func:`tree_key` (its classes, dict keys in order, record fields, leaf
    classes), its classes put in ``space``; None when ``value`` holds an array or anything
    :func:`tree_key` does not reach. (A dict key of a ``str`` subclass passes as its ``str``.)"""
    cls = type(value)
    name = f"C{len(space)}"
    if cls in _LEAVES:
        if value is None:
            return [f"{spelled} is None"]
        space[name] = cls
        return [f"{spelled}.__class__ is {name}"]
    if cls is dict:
        keys = tuple(value)
        if not all(type(k) in _KEYS for k in keys):
            return None
        space[name] = keys
        out = [f"{spelled}.__class__ is dict", f"len({spelled}) == {len(keys)}",
               f"tuple({spelled}) == {name}"]
        if any(type(k) is not str for k in keys):
            space[name + "t"] = tuple(map(type, keys))
            out.append(f"tuple(map(type, {spelled})) == {name}t")
        items = [(f"{spelled}[{k!r}]", v) for k, v in value.items()]
    elif cls is list or cls is tuple or _record_kind(cls) == "tuple":
        space[name] = cls
        out = [f"{spelled}.__class__ is {name}", f"len({spelled}) == {len(value)}"]
        items = [(f"{spelled}[{i}]", v) for i, v in enumerate(value)]
    elif _record_kind(cls) == "fields":
        space[name], space[name + "f"] = cls, tuple(value.__dict__)
        out = [f"{spelled}.__class__ is {name}", f"tuple({spelled}.__dict__) == {name}f"]
        items = [(f"{spelled}.__dict__[{k!r}]", v) for k, v in value.__dict__.items()]
    else:
        return None
    for text, v in items:
        inner = key_test(v, text, space)
        if inner is None:
            return None
        out += inner
    return out


def keyed_classes(types):
    """Whether a call with arguments of ``types`` may be keyed here: one of them a container
    or a record, each other one a number or a NumPy array."""
    tree = False
    for t in types:
        if t is dict or t is list or t is tuple or _record_kind(t):
            tree = True
        elif t not in _PLAIN and t is not np.ndarray:
            return False
    return tree


def call_key(args):
    """The key of a call's positional ``args`` (classes :func:`keyed_classes` accepts): each
    container's and record's :func:`tree_key`, each top-level array's rank, dtype and the
    position of the first array of its shape (:func:`srcad.backend.keys.layouts`, as the
    full path's key compares them); None when a value is out of reach."""
    if len(args) == 1 and type(args[0]) not in _PLAIN and type(args[0]) is not np.ndarray:
        # (one tree, the common case: no loop, no frame of tree_key's)
        try:
            return (_key(args[0]),)
        except (_Unkeyed, RecursionError):
            return None
    out, arrays = [], None
    for a in args:
        cls = type(a)
        if cls is np.ndarray:
            if arrays is None:
                arrays = iter(layouts([a for a in args if type(a) is np.ndarray]))
            out.append(next(arrays))
        elif cls not in _PLAIN:
            key = tree_key(a)
            if key is None:
                return None
            out.append(key)
    return tuple(out)


def keep(table, key, value):
    """``table[key] = value``, the table emptied first when it holds :data:`MOST` entries
    (a function called with ever new structures keeps a bounded number)."""
    if len(table) >= MOST:
        table.clear()
    table[key] = value


class ByTree:
    """The cache entry of a derivative for one tuple of argument classes with containers or
    records among them: the function for each :func:`call_key`, looked up on every call
    (``call``, a plain function); a key not found, or keywords, take ``slow`` (the full
    path)."""

    def __init__(self, slow):
        fns = self.fns = {}

        def call(*args, **kwargs):
            if not kwargs:
                try:
                    fn = fns.get(call_key(args))
                except TypeError:  # pragma: no cover - keys are hashable by construction
                    fn = None
                if fn is not None:
                    return fn(*args)
            return slow(args, kwargs)

        call.by_tree = self
        self.call = call

    def add(self, args, fn):
        """Find ``fn`` for calls keyed like ``args`` (the full path ran it on them)."""
        key = call_key(args)
        if key is not None:
            keep(self.fns, key, fn)


def remember(cache, lock, slow, args, bound, fn, head=0):
    """Let a derivative's ``cache`` (keyed by argument types) find ``fn`` for calls keyed like
    ``args``, which its full path (``slow``) ran ``fn`` on, when they are containers, records,
    numbers and arrays all given and as they were given (``bound``'s, after ``head``, a
    ``vjp`` code's cotangent); returns whether it did."""
    types = tuple(map(type, args))
    if len(args) != len(bound.args) + head or bound.kwargs or not keyed_classes(types) or not all(
            map(operator.is_, args[head:], bound.args)):
        return False
    with lock:
        by_tree = getattr(cache.get(types), "by_tree", None)
        if by_tree is None:
            by_tree = ByTree(slow)
            cache[types] = by_tree.call
        by_tree.add(args, fn)
    return True
