"""A list method called with arguments no list takes: ``log.append("ll is zero", i)``.

Python runs such a call and raises ``TypeError`` there (``list.append() takes exactly one
argument``); a program may hold one in a branch that never runs (a warning logged into a list
of messages when a value overflows). srcad's list analyses read ``xs.append(v)`` and
``xs.extend(vs)`` as writing one item (or items) into a list, so the call is not left to them:
it becomes a check that raises where the call would run, Python's ``TypeError`` when the
object is a list, and an :class:`~srcad.errors.UnsupportedSyntaxError` at the line for any other
object (srcad cannot tell what its method does with the values). Its arguments are evaluated
first, as Python does; nothing is written, and the call gives no value (the code after it does
not run).

Imports: gast, :mod:`srcad.core`, :mod:`srcad.errors` and :mod:`srcad.rules.registry`.
"""

from __future__ import annotations

import gast

from ..core import ir
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
