"""Loops over values whose type lowering could not see: checked, or read through the keys.

Lowering reads ``for v in seq`` as ``for i in range(len(seq)): v = seq[i]``, which is what
Python iterates for a list, a tuple, an array, a string, but not for a dict (its keys) or
another iterable. Where lowering cannot tell (a parameter, an item of one, an attribute) it
writes ``keys = check_positional(seq)`` before the loop (:mod:`srcad.frontend.lower_loops`),
which raises at run time for anything else. With the kinds of the arguments known:

* a dict argument's loops read its keys: the check becomes ``keys = dict_keys(seq)`` and the
  loop's reads ``seq[i]`` become ``keys[i]`` (:func:`dict_keys_for_loops`, before the kinds
  are solved, so the keys get their kind);
* a check of an array, or of a list or tuple argument, is dropped (:func:`drop_known`, after
  the kinds are solved); every other check stays in the generated code.

Imports: the standard library and :mod:`srcad.core`, :mod:`srcad.runtime`.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import ARRAY, DictItems
from ..runtime import containers


def _is_check(stmt, orders):
    return isinstance(stmt, ir.Assign) and stmt.target in orders and isinstance(
        stmt.value, ir.Prim) and getattr(stmt.value.fn, "__name__", "") == "check_positional"


def dict_keys_for_loops(fn, items):
    """Turn the checks of dict arguments into their keys, and the loops' reads into reads of
    the keys."""
    orders = getattr(fn, "orders", None)
    dicts = {name for name, its in (items or {}).items() if isinstance(its, DictItems)}
    if not orders or not dicts or not set(orders.values()) & dicts:
        return
    _rewrite(fn.body, orders, dicts, fn)


def _rewrite(stmts, orders, dicts, fn):
    pending = {}  # dict argument -> the name of its keys, for the loop that follows
    for stmt in stmts:
        if _is_check(stmt, orders) and orders[stmt.target] in dicts:
            seq = orders[stmt.target]
            spelling = next((k for k, v in getattr(fn, "lifted", {}).items()
                             if v is containers.dict_keys), None)
            stmt.value = ir.Prim(containers.dict_keys, [ir.Var(seq)], spelling=spelling)
            stmt.effect = False
            pending[seq] = stmt.target
        elif isinstance(stmt, ir.Loop):
            if pending and stmt.target is not None:
                for inner in stmt.body:
                    value = getattr(inner, "value", None)
                    if isinstance(inner, ir.Assign) and isinstance(value, ir.Prim) and \
                            value.fn is operator.getitem and isinstance(value.args[0], ir.Var) \
                            and value.args[0].name in pending and value.args[1] == ir.Var(
                                stmt.target):
                        value.args = [ir.Var(pending[value.args[0].name]), value.args[1]]
                iterated = getattr(fn, "iterated", {}).get(stmt.target)
                if iterated is not None:
                    elements = [ir.Var(pending[a.name]) if isinstance(a, ir.Var)
                                and a.name in pending else a for a in iterated[0]]
                    fn.iterated[stmt.target] = (elements, iterated[1])
                pending = {}
            _rewrite(stmt.header, orders, dicts, fn)
            _rewrite(stmt.body, orders, dicts, fn)
        elif isinstance(stmt, ir.If):
            _rewrite(stmt.body, orders, dicts, fn)
            _rewrite(stmt.orelse, orders, dicts, fn)


def drop_known(fn, analysis):
    """Drop the checks of sequences whose kind makes them positional: arrays, and list or
    tuple arguments."""
    orders = getattr(fn, "orders", None)
    if not orders:
        return

    def positional(name):
        if analysis.kinds.get(name) == ARRAY:
            return True
        its = analysis.items.get(name)
        return name in fn.params and its is not None and not isinstance(its, DictItems)

    def sweep(stmts):
        kept = []
        for stmt in stmts:
            if _is_check(stmt, orders) and positional(orders[stmt.target]):
                continue
            for block in ("body", "orelse", "header"):
                if isinstance(getattr(stmt, block, None), list):
                    setattr(stmt, block, sweep(getattr(stmt, block)))
            kept.append(stmt)
        return kept

    fn.body = sweep(fn.body)
