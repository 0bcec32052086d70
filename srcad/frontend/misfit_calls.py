"""Calls whose arguments do not fit what is called: a list method called with arguments no
list takes (``log.append("ll is zero", i)``), and a function of yours called with arguments
its parameters do not take (``logprob(samples)`` for ``def logprob(x, t)``).

Python runs such a call and raises ``TypeError`` there (``list.append() takes exactly one
argument``); a program may hold one in a branch that never runs (a warning logged into a list
of messages when a value overflows). srcad's list analyses read ``xs.append(v)`` and
``xs.extend(vs)`` as writing one item (or items) into a list, so the call is not left to them:
it becomes a check that raises where the call would run, Python's ``TypeError`` when the
object is a list, and an :class:`~srcad.errors.UnsupportedSyntaxError` at the line for any other
object (srcad cannot tell what its method does with the values). Its arguments are evaluated
first, as Python does; nothing is written, and the call gives no value (the code after it does
not run).

A function of yours called with arguments that do not fit its parameters raises Python's
``TypeError`` where the call runs, before any of its code does; a program may hold such a call
on a path that never runs. srcad binds each call of your function to read the function for
it, so the call is not left to the passes (they would refuse it where it stands): it becomes a
check, :func:`misfit_call`, that binds the values where the call runs and raises Python's
``TypeError``; the function is never run by it. Should the values fit where srcad read a
misfit, the check refuses (``UnsupportedSyntaxError`` at the line), never runs the call
undifferentiated.

Imports: gast, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import inspect

import gast

from ..core import functions, ir
from ..core.ir import Const
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry

#: list methods that take exactly one positional argument and no keyword (``deque`` and
#: ``array.array`` take the same; ``insert``, ``pop``, ``remove``, ``sort`` have other
#: meanings with other arities elsewhere: ``df.insert(0, "c", v)``, ``d.pop(k, None)``)
ONE_ITEM = frozenset({"append", "extend"})


def misfit_list_call(obj, name, given, where):
    """Raise where ``obj.name(...)`` with ``given`` positional arguments (or keywords) runs:
    Python's TypeError for a list, a refusal for anything else."""
    if isinstance(obj, list):
        raise TypeError(f"list.{name}() takes exactly one argument ({given} given)")
    filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f".{name}() with {given} arguments on a {type(obj).__name__}: srcad reads "
        f".{name}() as a list's, which takes one", filename=filename, lineno=lineno,
        construct=text, hint=f"call .{name}() with one argument, or call the method "
        "outside the function you differentiate")


_registry.nondiff.add(misfit_list_call)  # a check that raises: no derivative


def lower(lw, obj, node):
    """``obj.append(...)``/``obj.extend(...)`` with other than one positional argument (or
    with keywords): the check, after the arguments are evaluated; ``None`` for other calls."""
    name = node.func.attr
    if name not in ONE_ITEM or (len(node.args) == 1 and not node.keywords) or any(
            isinstance(a, gast.Starred) for a in node.args):
        return None
    for a in list(node.args) + [k.value for k in node.keywords]:
        lw.expr(a)  # evaluated first, as Python does
    line = getattr(node, "lineno", None)
    where = (lw.source.filename, line, lw.source.line_text(line))
    prim = ir.Prim(misfit_list_call, [obj, Const(name), Const(len(node.args)),
                                      lw.bound_const(where, "where")],
                   spelling=lw.bound_name(misfit_list_call, "misfit_list_call"))
    lw.emit(ir.Assign(None, prim, line, effect=True))
    return Const(None)


def misfit_call(fn, where, /, *args, **kwargs):
    """Raise where the call ``fn(*args, **kwargs)`` runs: Python's TypeError when the values do
    not fit ``fn``'s parameters (``fn`` is not called), a refusal if they do."""
    try:
        inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{getattr(fn, '__qualname__', fn)}() {exc}") from None
    filename, lineno, text = where
    raise UnsupportedSyntaxError(
        f"a call of {getattr(fn, '__name__', fn)} that srcad read as not fitting its "
        "parameters fits them where it runs", filename=filename, lineno=lineno,
        construct=text, hint="pass the arguments its def names, by name")


_registry.nondiff.add(misfit_call)  # a check that raises: no derivative


def user_calls(lw, body):
    """Each call in ``body`` of a function of yours (read and differentiated by srcad) whose
    arguments do not fit its parameters, as :func:`misfit_call` (in place)."""
    for stmt in ir.walk(body):
        prim = getattr(stmt, "value", None) if isinstance(stmt, ir.Assign) else None
        if not (isinstance(prim, ir.Prim) and functions.is_user_function(prim.fn)) or (
                _registry.has_rule(prim.fn)):
            continue
        try:
            functions.bind(prim.fn, prim.args, prim.kwargs)
            continue
        except TypeError:
            pass
        where = (lw.source.filename, stmt.line, lw.source.line_text(stmt.line))
        callee = lw.bound_const(prim.fn, getattr(prim.fn, "__name__", "fn"))
        stmt.value = ir.Prim(misfit_call, [callee, lw.bound_const(where, "where"), *prim.args],
                             dict(prim.kwargs), spelling=lw.bound_name(misfit_call,
                                                                       "misfit_call"))
        stmt.effect = True
