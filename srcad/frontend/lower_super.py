"""``super().method(...)`` in a method srcad reads: the base class's method, found statically.

In a method of class ``C`` (the class Python's compiler gives the method as ``__class__``),
``super().m(args)`` and ``super(C, self).m(args)`` call the ``m`` the classes after ``C`` in
the MRO of ``self``'s class define. When ``self``'s class is known where the method is read
(the method was called on an object whose class the specialisation fixes), that ``m`` is a
plain function, called as ``m(self, args)`` (a ``staticmethod``: ``m(args)``; a
``classmethod``: ``m(type(self), args)``); the reads are recorded, so the code is made again
when a class comes to hold another method. Anything else (self's class unknown, a property,
an attribute that is not a method) keeps the refusal.

``cls.m(args)``, ``cls`` a class of the user's known where the code is read (a classmethod's
``cls``, fixed by the call): its static or class method ``m``, as ``Model.m(args)``.

Imports the standard library, gast and :mod:`srcad.core`.
"""

from __future__ import annotations

import inspect

import gast

from ..core import functions
from ..core.ir import Const, Var


def class_method(lw, obj, attr, node, hint):
    """``cls.m(...)``, ``obj`` a constant class of the user's: a call of its static or class
    method ``m``; None for anything else."""
    raw = lw.class_attribute(obj.value, attr) if functions.user_class(obj.value) else None
    if not isinstance(raw, (staticmethod, classmethod)):
        return None
    lead = [obj] if isinstance(raw, classmethod) else []
    return lw.call_value(raw.__func__, None, lead, {}, node, hint)


def call(lw, node):
    """The operation for ``node`` (a call ``super(...).m(...)``), or ``None``."""
    func = node.func
    head = func.value
    if head.keywords:
        return None
    if not head.args:
        params = lw.source.node.args.posonlyargs + lw.source.node.args.args
        if not params:
            return None
        self_name = params[0].id
        try:
            where = lw.source.closure.get("__class__")
        except AttributeError:
            return None
    elif len(head.args) == 2 and isinstance(head.args[1], gast.Name) and \
            isinstance(head.args[0], (gast.Name, gast.Attribute)):
        self_name = head.args[1].id
        where = lw.resolve_dotted(head.args[0])
    else:
        return None
    if not isinstance(where, type) or self_name in lw.local_functions:
        return None
    obj = lw.expr(gast.copy_location(gast.Name(id=self_name, ctx=gast.Load(), annotation=None,
                                               type_comment=None), node))
    if isinstance(obj, Var) and obj.name in lw.classes:
        cls = lw.classes[obj.name]
    elif isinstance(obj, Const) and not isinstance(obj.value, type):
        cls = type(obj.value)
    else:
        return None
    mro = getattr(cls, "__mro__", ())
    if where not in mro:
        return None
    raw = None
    for base in mro[mro.index(where) + 1:]:
        lw.class_attribute(base, func.attr)  # recorded: another method there makes it again
        if func.attr in vars(base):
            raw = vars(base)[func.attr]
            break
    if isinstance(raw, staticmethod):
        return lw.call_value(raw.__func__, None, [], {}, node)
    if isinstance(raw, classmethod):
        return lw.call_value(raw.__func__, None, [Const(cls, lw.bound_name(
            cls, cls.__name__))], {}, node)
    if inspect.isfunction(raw):
        return lw.call_value(raw, None, [obj], {}, node)
    return None
