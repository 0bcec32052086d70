"""Dict keys carry no derivative: a dict's gradient is a dict of its values' gradients, keyed
as the dict. :func:`check` refuses a key that depends on a differentiated value (found by the
analysis's ``varied`` set), which would otherwise lose its derivative where the keys come back
out. Called by :class:`srcad.analysis.analyse.Analysis` once activity is known.

Imports: :mod:`srcad.core`, :mod:`srcad.runtime` (``dict_items``), :mod:`srcad.errors`.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..errors import UnsupportedSyntaxError
from ..runtime import containers


def is_append(prim):
    """Whether ``prim`` is ``xs.append(v)`` (shared with :mod:`.analyse`): one item appended
    (``xs.append(a, b)``, which Python refuses when it runs, is a call like any other)."""
    return isinstance(prim, ir.Prim) and isinstance(prim.fn, ir.Method) and prim.fn.name == (
        "append") and len(prim.args) == 2 and not prim.kwargs


def check(self):
    """A dict's gradient is a dict of its values' gradients, by key: a key has none. So a
    key that depends on a differentiated value would lose its derivative where the keys
    come back out (iteration, ``items()``, ``list(d)``, ``max(d)``): refuse it, wherever
    the dict is read (a display's key, ``d[k] = v``, a comprehension's key,
    ``dict(zip(keys, values))``)."""
    # a key read back from a dict's items (``for k, v in d.items()``): a key of a dict,
    # which this check keeps free of differentiated values, though the items list is varied
    defs = {s.target: s.value for s in ir.walk(self.fn.body)
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Prim)}

    def read_key(name):
        value = defs.get(name)
        if value is None or value.fn is not operator.getitem or not (isinstance(
                value.args[1], ir.Const) and value.args[1].value == 0):
            return False
        pair = defs.get(getattr(value.args[0], "name", None))
        if pair is None or pair.fn is not operator.getitem:
            return False
        items = defs.get(getattr(pair.args[0], "name", None))
        return items is not None and items.fn is containers.dict_items

    def varied(atom):
        return any(a.name in self.varied and a.name not in self.ints and not read_key(
            a.name) for a in ir.atoms_in(atom))

    dicts = set()  # the names of dicts built here: a display, then writes, merges
    changed = True
    while changed:
        size = len(dicts)
        for stmt in ir.walk(self.fn.body):
            value = getattr(stmt, "value", None)
            if isinstance(stmt, ir.Assign) and isinstance(value, ir.Prim) and (
                    value.fn is ir.BUILD_DICT or isinstance(value.fn, ir.Method) and (
                        value.fn.name == "copy") and getattr(
                        value.args[0], "name", None) in dicts):
                dicts.add(stmt.target)
            elif isinstance(stmt, ir.SetItem) and stmt.obj.name in dicts:
                dicts.add(stmt.target)
            elif isinstance(stmt, (ir.If, ir.Loop)):
                dicts |= {p.target for p in stmt.phis if any(
                    isinstance(v, ir.Var) and v.name in dicts for v in p.sources)}
        changed = len(dicts) != size
    pairs, keyed = set(), set()  # (key, value) tuples with a varied key; lists of them
    for stmt in ir.walk(self.fn.body):
        value = getattr(stmt, "value", None)
        if not (isinstance(stmt, ir.Assign) and isinstance(value, ir.Prim)):
            continue
        if value.fn is ir.BUILD_TUPLE and len(value.args) == 2 and varied(value.args[0]):
            pairs.add(stmt.target)
        elif value.fn is ir.BUILD_LIST and any(
                isinstance(a, ir.Var) and a.name in pairs for a in value.args):
            keyed.add(stmt.target)
        elif is_append(value) and isinstance(value.args[0], ir.Var) and isinstance(
                value.args[1], ir.Var) and value.args[1].name in pairs:
            keyed.add(value.args[0].name)
    for stmt in ir.walk(self.fn.body):
        if isinstance(stmt, ir.SetItem):
            keys = [stmt.index]
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
                stmt.value.fn is dict) and stmt.value.args and isinstance(
                stmt.value.args[0], ir.Var) and stmt.value.args[0].name in keyed:
            keys = stmt.value.args[:1]  # dict(zip(keys, values))
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim) and (
                stmt.value.fn is ir.BUILD_DICT):
            keys = stmt.value.args[::2]
        else:
            continue
        if isinstance(stmt, ir.SetItem) and stmt.obj.name not in dicts:
            continue  # an index into an array or a list (ints: no derivative to lose)
        for key in keys:
            if varied(key):
                src = self.fn.source
                raise UnsupportedSyntaxError(
                    "a dict key that depends on a differentiated value (a key has no "
                    "derivative in the dict's gradient)", filename=src.filename,
                    lineno=stmt.line, construct=src.line_text(stmt.line),
                    hint="key the dict by constants (names, indices) and keep the "
                    "differentiated number as a value: {i: (k, v)} or a list of pairs")

