"""Lowering the in-place methods of dicts the function builds: ``update`` and ``setdefault``.

A mixin of :class:`srcad.frontend.lower.Lowerer` (see there for the state it shares). For a
dict made in the function (a display, a comprehension, ``dict(...)``; :attr:`dicts_built`):

* ``d.update({"k": v, ...})`` (a display written in the call) and ``d.update(k=v, ...)`` are
  the writes ``d["k"] = v`` one after the other, each a new version of ``d`` as any
  ``d[k] = v`` is (the alias analysis checks nobody else sees the dict);
* ``d.setdefault(k, v)`` is ``if k not in d: d[k] = v`` followed by a read of ``d[k]``
  (both arguments evaluated first, as Python does).

Other receivers and other forms (``d.update(other)`` of a dict whose keys are not written in
the call) are left to the general method call, which the alias analysis refuses when the dict
carries a gradient.

Imports: gast, the standard library and :mod:`srcad.core`.
"""

from __future__ import annotations

import operator

import gast

from ..core import ir
from ..core.ir import Var
from .lower_spread import Atom


class DictWrites:
    """``d.update(...)`` and ``d.setdefault(...)`` on a dict built in the function."""

    def built_dict(self, func):
        """The name of the dict ``func`` (``d.method``) is a method of, if built here."""
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
            return None
        atom = self.env.get(func.value.id)
        if isinstance(atom, Var) and atom.name in self.dicts_built:
            return func.value.id
        return None

    def dict_update(self, call, node):
        """``d.update(...)`` as a statement: the writes it makes. Whether it was lowered."""
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr == "update"):
            return False
        name = self.built_dict(call.func)
        if name is None or len(call.args) > 1 or any(k.arg is None for k in call.keywords):
            return False
        pairs = []
        if call.args:
            other = call.args[0]
            if not isinstance(other, gast.Dict) or any(k is None for k in other.keys):
                return False  # d.update(other), d.update({**o}): the general method call
            pairs = [(self.expr(k), self.expr(v)) for k, v in zip(other.keys, other.values)]
        pairs += [(ir.Const(k.arg), self.expr(k.value)) for k in call.keywords]
        for key, value in pairs:
            self.dict_write(name, key, value, node)
        return True

    def dict_write(self, name, key, value, node):
        target = gast.Subscript(value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                slice=Atom(key), ctx=gast.Store())
        gast.copy_location(target, node)
        self.bind_atom(target, value, node)

    def dict_setdefault(self, call, node):
        """``d.setdefault(k, v)``: ``d[k]`` after writing ``v`` there if ``k`` was absent;
        ``None`` when ``call`` is not one on a dict built here."""
        if not (isinstance(call.func, gast.Attribute) and call.func.attr == "setdefault"
                and 1 <= len(call.args) <= 2 and not call.keywords):
            return None
        name = self.built_dict(call.func)
        if name is None:
            return None
        key = self.expr(call.args[0])
        value = self.expr(call.args[1]) if len(call.args) == 2 else ir.Const(None)
        present = self.assign(ir.Prim(operator.contains, [self.env[name], key]), "present",
                              node)
        target = gast.Subscript(value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                slice=Atom(key), ctx=gast.Store())
        write = gast.copy_location(gast.Assign(targets=[gast.copy_location(target, node)],
                                               value=Atom(value), type_comment=None), node)
        self.branch(present, [], [write], node)
        return ir.Prim(operator.getitem, [self.env[name], key])
