"""Which calls are calls of a function of yours that srcad reads and differentiates, and how
such a call binds to the function's parameters: one predicate and one binder, which every
pass asks (kinds, ranks, dtypes, complex values, memory, effects, soundness) and the sweeps
too, so no two of them can disagree about a call (a disagreement is a wrong gradient: one pass
reading a function's code while another applies its rule).

A call is a *user call* when its callee is a plain Python function srcad can read
(:func:`srcad.core.functions.is_user_function`: not a builtin, not NumPy's, math's or a
numerical library's, not a derivative srcad made) and has **no** derivative rule: a function
with a rule (``copy.copy``, one you registered with ``srcad.extend.defvjp``) is its rule's,
in every form; a form the rule does not take is refused, never read. A function declared
constant (``nondiff``) is still a user call here: the passes read its code for what it
returns; the sweeps give it no derivative.

Imports ``srcad.core``, ``srcad.rules``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import functions, ir
from ..core.kinds import COMPLEX, DictItems, is_complex_value, kind_of_value
from ..rules import registry

_NOT_CALLABLES = (ir.Method, ir.Attr, ir.Build, ir.BoolOp)


def user_callee(fn):
    """Whether ``fn`` (a call's callee) is a function of yours srcad reads and differentiates."""
    if isinstance(fn, _NOT_CALLABLES) or fn is ir.ASSERT:
        return False
    return functions.is_user_function(fn) and not registry.has_rule(fn)


def is_user_call(prim):
    """Whether the call ``prim`` is a call of a function of yours (see the module's text)."""
    return isinstance(prim, ir.Prim) and user_callee(prim.fn)


@dataclass(frozen=True)
class Bound:
    """A user call bound to its callee's parameters: ``arguments`` (parameter -> atom, or the
    default's value where the call gives none; the items of ``*args``/``**kwargs`` as
    parameters of their own), ``passed`` (the same, for what the call gives), ``arity`` (see
    :class:`srcad.core.functions.Arity`) and ``kinds`` (parameter -> kind, with the
    ``COMPLEX`` entry where a parameter may be complex): the key of the callee's
    specialisation that the sweeps make for this call."""

    fn: object
    arguments: dict
    passed: dict
    arity: object
    kinds: dict



def _immutable(value):
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, complex, str, bytes))


def default_atom(argument, spelling=None):
    """A bound call's argument (:attr:`Bound.arguments`) as an atom of the caller's: the atom
    itself, or, for a parameter the call leaves to its default (``def k(X, y=None, s=1.0)``
    called ``k(X, s=v)``), the default's value as a constant when srcad knows what object it
    is (a number, None, a string, a tuple of those: no object; a list, a dict, a set or an
    array: that one object, which every call shares); None for any other default (an object
    of yours: what it may hold or be is not known) and for a slice or an index."""
    if isinstance(argument, (ir.Var, ir.Const)):
        return argument
    if _immutable(argument) or isinstance(argument, (list, dict, set, np.ndarray, bytearray)):
        return ir.Const(argument, spelling)
    return None


def bind_call(prim, kind, is_complex=None):
    """Bind the user call ``prim``; ``kind(atom)`` gives an atom's kind, ``is_complex(atom)``
    whether it may be complex (None: no complex values; a default's value tells for itself).
    None when the call does not fit the
    callee's parameters (each pass then takes its own safe answer; the sweeps refuse it)."""
    try:
        arguments, passed, arity = functions.bind(prim.fn, prim.args, prim.kwargs)
    except TypeError:
        return None
    kinds = {p: kind(a) if isinstance(a, (ir.Var, ir.Const)) else kind_of_value(a)
             for p, a in arguments.items()}
    if is_complex is not None:
        names = tuple(sorted(p for p, a in arguments.items() if _complex(a, is_complex)))
        if names:
            kinds[COMPLEX] = names
    an = getattr(kind, "__self__", None)  # (an Analysis's kind: the dicts it is sure of)
    dicts = tuple(sorted(p for p, a in arguments.items() if isinstance(a, ir.Var) and (
        is_dict(an, a.name)))) if hasattr(an, "items") and hasattr(an, "fn") else ()
    if dicts:
        kinds[DICTS] = dicts
    return Bound(prim.fn, arguments, passed, arity, kinds)


#: the key of a kinds dict naming the parameters certainly given a dict (outside27): a
#: sorted tuple of names, so that ``for k in params`` in a callee reads the dict's keys
#: (:mod:`.orders`), as it does for a dict argument of the function differentiated
DICTS = "*dicts"


def is_dict(an, name):
    """Whether ``name`` certainly holds a dict in the code ``an`` analyses: a dict argument
    (or a parameter the caller gave one, :data:`DICTS`), or a name bound to a dict display
    or ``dict(...)`` there."""
    if isinstance(an.items.get(name), DictItems):
        return True
    built = getattr(an, "_dicts_built", None)
    if built is None:
        built = an._dicts_built = {
            s.target for s in ir.walk(an.fn.body) if isinstance(s, ir.Assign) and isinstance(
                s.value, ir.Prim) and (s.value.fn is ir.BUILD_DICT or s.value.fn is dict)}
    return name in built


def _complex(argument, is_complex):
    if isinstance(argument, (ir.Var, ir.Const)):
        return is_complex(argument)
    if isinstance(argument, (ir.Slice, ir.Index)):
        return any(is_complex(a) for a in ir.atoms_in(argument))
    return is_complex_value(argument)  # a default of the callee's


def misfit(prim):
    """Why the call ``prim`` does not fit its callee's parameters (for an error message)."""
    try:
        functions.bind(prim.fn, prim.args, prim.kwargs)
    except TypeError as exc:
        return str(exc)
    return "it fits"
