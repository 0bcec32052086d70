"""``x += v`` where ``x`` holds a value read from an attribute or a global: in place or not.

Python's ``x += v`` calls ``x.__iadd__(v)`` when the object has one (an array, a list, a
user object): the object itself changes, and whatever else holds it (the attribute it was
read from, the global) sees the change. An immutable value (a number, a string, a tuple,
None, a NumPy scalar) has none: ``x += v`` binds ``x`` to a new object and nothing else
changes. srcad reads ``x += v`` as ``x = x + v``, a new value, which is exact in the second
case, or when nothing else holds the object (:mod:`srcad.analysis.alias` works that out from
the kinds of the values, and refuses the rest).

A value whose kind is not known where the code is made would be refused there, wrongly when
it is a number (``index = self.D; index += k``: Python never changes an int). Two sources:

* a global, a closure value or a global object's attribute (a ``Const``): its type is known
  where the code is made and is part of what the code was made for (:mod:`srcad.core.env`
  fingerprints it). An immutable value is rebound; a list, dict, set or array is the global
  itself, and any other object's ``+=`` may change it: refused here (:func:`refuse_global`);
* an attribute of an object (``self.D``), an item of one, or a merge of those: read when the
  code runs, of any type. :func:`check_rebinds` checks at run time, before ``x = x + v``,
  that the value is immutable (so the statement is a rebinding and the alias analysis does
  not count it as a write); any other value raises :class:`MutationError` at the line.

Imports NumPy, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import operator

import gast
import numpy as np

from ..core import ir
from ..core.ir import Const, Var
from ..errors import MutationError
from ..rules.registry import registry as _registry

#: the types whose ``+=`` (every augmented operator) always makes a new object
IMMUTABLE_TYPES = (int, float, complex, bool, str, bytes, tuple, frozenset, type(None))

#: attributes of arrays srcad knows (views or new values of known kinds): not an object's
#: own attribute, handled by the alias analysis as it is
_ARRAY_ATTRS = {"T", "mT", "real", "imag", "flat", "base", "data", "shape", "ndim", "size",
                "dtype", "nbytes", "itemsize", "strides"}

_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
            gast.Mod: "%", gast.Pow: "**", gast.MatMult: "@", gast.BitAnd: "&",
            gast.BitOr: "|", gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


def immutable(value):
    """Whether ``x += v`` on ``value`` certainly binds ``x`` to a new object: a value of one
    of :data:`IMMUTABLE_TYPES` exactly, or a NumPy scalar (``np.float64(1.0)``, ``np.int32``,
    ``np.bool_``). A subclass, an array (of any shape), a list or any other object is not:
    its ``__iadd__`` may change it, and srcad cannot know."""
    kind = type(value)
    if kind in IMMUTABLE_TYPES:
        return True
    return isinstance(value, (np.number, np.bool_)) and kind.__module__ == "numpy"


def check_rebinds(value, where):
    """Raise :class:`MutationError` unless ``value`` is :func:`immutable`: srcad made
    ``name op= ...`` as ``name = name op ...``, a new value, which Python makes only of an
    immutable value; an array, a list or another object read from an attribute (``origin``,
    as written: ``self.W``) may change in place, and the object it came from with it.
    ``where``: (name, op, origin, file, line, the line's text)."""
    if immutable(value):
        return
    name, op, origin, filename, lineno, text = where
    if isinstance(value, (np.ndarray, list, dict, set, bytearray)):
        what = f"an array ({value.dtype}, shape {value.shape})" if isinstance(
            value, np.ndarray) else f"a {type(value).__name__}"
        how = "Python changes it in place"
        copy = f"{origin}.copy()" if isinstance(value, np.ndarray) else \
            f"{type(value).__name__}({origin})"
    else:
        what = f"a {type(value).__name__}"
        how = f"srcad cannot know whether its {op}= changes it in place"
        copy = None
    hint = f"write {name} = {name} {op} ... (a new value, {origin} left alone)"
    if copy:
        hint += f", or copy it first ({name} = {copy})"
    raise MutationError(
        f"{name} {op}= ... (an augmented assignment) on {origin}, {what} when the code ran: "
        f"{how}, and with it the object it was read from (srcad reads {op}= as a new value and "
        "does not change objects outside the function)", filename=filename, lineno=lineno,
        construct=text, hint=hint)


_registry.nondiff.add(check_rebinds)  # a check: no derivative


def guard_augmented(lowerer, target, before, node):
    """Before ``target += v`` (``node``, desugared to ``target = target + v``) whose old value
    is ``before``: refuse a global that is not immutable (:func:`refuse_global`), or emit
    :func:`check_rebinds` for a value read from an attribute. Returns True when the
    statement is then certainly a rebinding (not recorded as a write in place)."""
    for const in _constants(lowerer, before):
        if not immutable(const.value):
            refuse_global(lowerer, target, const, node)
    if not isinstance(before, Var) or before.name not in lowerer.attribute_values:
        return isinstance(before, Const)
    where = (target.id, _op(node), lowerer.attribute_values[before.name],
             lowerer.source.filename, node.lineno, lowerer.source.line_text(node.lineno))
    check = ir.Prim(check_rebinds, [before, lowerer.bound_const(where, "where")],
                    spelling=lowerer.bound_name(check_rebinds, "check_rebinds"))
    lowerer.emit(ir.Assign(None, check, node.lineno, effect=True))
    return True


def _constants(lowerer, atom):
    """The constants ``atom`` may be: itself, or the known sources of the merges it is."""
    seen, out, todo = set(), [], [atom]
    while todo:
        atom = todo.pop()
        if isinstance(atom, Const):
            out.append(atom)
        elif isinstance(atom, Var) and atom.name not in seen:
            seen.add(atom.name)
            todo.extend(s for s in lowerer.phi_sources.get(atom.name, ()) if s is not None)
    return out


def refuse_global(lowerer, target, const, node):
    """``x += v`` where ``x`` holds the global (closure value, global object's attribute)
    ``const``, which is not immutable: Python changes that object (a list, an array) or may
    (any other object's ``__iadd__``); srcad does not change values outside the function."""
    name = target.id
    spelling = const.spelling or type(const.value).__name__
    op = _op(node)
    value = const.value
    if isinstance(value, (list, dict, set, bytearray, np.ndarray)):
        what = "an array" if isinstance(value, np.ndarray) else f"a {type(value).__name__}"
        copy = f"{spelling}.copy()" if isinstance(value, np.ndarray) else \
            f"{type(value).__name__}({spelling})"
        message = (f"{name} {op}= ... changes the global (or closure) value {spelling} in place "
                   f"({what}: Python's {op}= changes the object itself)")
    else:
        copy = None
        message = (f"{name} {op}= ... on the global (or closure) value {spelling}, a "
                   f"{type(value).__name__}: srcad cannot know whether its {op}= changes it "
                   "in place")
    hint = f"write {name} = {name} {op} ... (a new value, {spelling} left alone)"
    if copy:
        hint += f", or copy it first ({name} = {copy})"
    raise lowerer.error(node, message, hint=hint, cls=MutationError)


def _op(node):
    """The operator of the augmented assignment ``node`` (desugared: ``x = x op v``)."""
    return _SYMBOLS.get(type(getattr(getattr(node, "value", None), "op", None)), "+")


def note_value(lowerer, name, value):
    """Record ``name`` (assigned ``value``) as read from an attribute, with how the code
    spells it: ``self.D``, an item of such a value (``self.sizes[i]``), a plain attribute of
    an object (not one of an array's, :data:`_ARRAY_ATTRS`)."""
    if not isinstance(value, ir.Prim):
        return
    fn, args = value.fn, value.args
    if isinstance(fn, ir.Attr) and fn.name not in _ARRAY_ATTRS and args:
        base = args[0]
        known = lowerer.attribute_values.get(getattr(base, "name", None))
        if known is None:
            known = base.name if isinstance(base, Var) and base.name in (
                lowerer.namer.user_names) else "an object"
        lowerer.attribute_values[name] = f"{known}.{fn.name}"
    elif fn is operator.getitem and isinstance(args[0], Var) and (
            args[0].name in lowerer.attribute_values):
        lowerer.attribute_values[name] = f"{lowerer.attribute_values[args[0].name]}[...]"


def note_merge(lowerer, target, sources):
    """A merge (``phi``) ``target`` of ``sources`` (a list a loop fills in later): its
    constants are looked through (:func:`_constants`), and it is read from an attribute when
    a source is."""
    lowerer.phi_sources[target] = sources
    for s in sources:
        if isinstance(s, Var) and s.name in lowerer.attribute_values:
            lowerer.attribute_values[target] = lowerer.attribute_values[s.name]
            return
