"""What the tuples on a stack hold: the kinds of ``v[k]`` for ``v`` taken off a list that
holds only tuples built in known places (and numbers, which cannot be indexed).

srcad's own generated code saves, per loop iteration, a tuple of values on a list (its
*stack*) and takes them back in the backward sweep (``v = stack.pop(); a = v[0]``, or
``for a, b in reversed(stack)``). One stack may hold tuples of several blocks and single
numbers (a branch's saved test), so the kind of what comes off it as a whole is not known;
but what is at position ``k`` of the tuple that comes off is: one of the values saved at
position ``k``. When that code is differentiated again, knowing those kinds keeps ``d += v``
on a number from being mistaken for a write into an array some other name may hold.

:func:`structure` finds the lists this applies to: made empty in the function (``s = []``)
or copied (``s = list(t)``) from such a list or from a list a parameter holds whose tuples'
kinds the caller recorded (a split function's context, ``__srcad_param_stacks__``), and read
by nothing but ``.append(v)``, ``.pop()``, ``s[j]`` (an item), ``len(s)``, a copy
``list(s)`` and ``check_positional(s)``. Any other use (a call given the list, a merge, an
item write, a slice) leaves the list out: then nothing is claimed about its items.

Imports only ``srcad.core``.
"""

from __future__ import annotations

import operator

from ..core import ir
from ..core.kinds import ANY, SCALAR, SEQ


class Stacks:
    """``appended[s]``: the atoms appended to the list ``s``; ``copied[s]``: the list ``s``
    is a copy of (with everything that list holds); ``taken[v]``: the list ``v`` is an item
    of; ``from_param[s]``: ``(parameter, index)`` when ``s = parameter[index]``."""

    def __init__(self):
        self.appended = {}
        self.copied = {}
        self.taken = {}
        self.from_param = {}


def structure(fn):
    """The :class:`Stacks` of ``fn``: only lists every use of which is understood."""
    out = Stacks()
    made, bad = set(), set()
    params = set(fn.params)
    for stmt in ir.walk(fn.body):
        if not (isinstance(stmt, ir.Assign) and stmt.target and isinstance(stmt.value, ir.Prim)):
            continue
        value = stmt.value
        if value.fn is ir.BUILD_LIST and not value.args and not value.kwargs:
            made.add(stmt.target)
        elif value.fn is list and len(value.args) == 1 and not value.kwargs and isinstance(
                value.args[0], ir.Var):
            out.copied[stmt.target] = value.args[0].name
        elif value.fn is operator.getitem and isinstance(value.args[0], ir.Var) and (
                value.args[0].name in params) and isinstance(value.args[1], ir.Const) and (
                type(value.args[1].value) is int):
            out.from_param[stmt.target] = (value.args[0].name, value.args[1].value)
    candidates = made | set(out.copied) | set(out.from_param)
    for stmt in ir.walk(fn.body):
        for var in _reads(stmt):
            if var.name in candidates and not _understood(stmt, var, out):
                bad.add(var.name)
    for name in candidates - bad:
        if name in out.copied and out.copied[name] not in candidates - bad:
            bad.add(name)  # a copy of a list not understood
    for name in bad:
        out.appended.pop(name, None)
        out.copied.pop(name, None)
        out.from_param.pop(name, None)
    out.lists = candidates - bad
    out.taken = {v: s for v, s in out.taken.items() if s in out.lists}
    return out


def _reads(stmt):
    atoms = list(ir.reads_of(stmt))
    atoms += [v for p in getattr(stmt, "phis", ()) for s in p.sources if s is not None
              for v in ir.atoms_in(s)]
    atoms += [v for part in (getattr(stmt, "test", None), getattr(stmt, "exit", None))
              if part is not None for v in ir.atoms_in(part)]
    return atoms


def _understood(stmt, var, out):
    """Whether ``stmt`` reads the list ``var`` in one of the ways :func:`structure` allows
    (recording what it appends or takes)."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Prim)):
        return False
    value = stmt.value
    args = value.args
    if value.kwargs or not args or args[0] != var or var in args[1:]:
        return False
    fn = value.fn
    if fn == ir.Method("append") and len(args) == 2 and stmt.target is None:
        out.appended.setdefault(var.name, []).append(args[1])
        return True
    if fn == ir.Method("pop") and len(args) == 1 and stmt.target:
        out.taken[stmt.target] = var.name
        return True
    if fn is operator.getitem and len(args) == 2 and not isinstance(args[1], (ir.Slice, ir.Index)):
        if stmt.target:
            out.taken[stmt.target] = var.name
        return True
    if fn in (len, list) and len(args) == 1:
        return True
    return len(args) == 1 and getattr(fn, "__name__", None) == "check_positional" and (
        getattr(fn, "__module__", "") or "").startswith("srcad.")  # raises, or returns None


def stacked_item(an, obj, index):
    """For the :class:`srcad.analysis.analyse.Analysis` ``an`` (while it solves, or after):
    ``(kind, rank)`` of ``obj[index]`` for ``obj`` taken off a list that holds only
    tuples and numbers (see the module docstring) and an int constant ``index >= 0``:
    joined over what stands at that place of every tuple the list may hold (a number
    cannot be indexed, a shorter tuple raises); None when not known (yet)."""
    if not (isinstance(obj, ir.Var) and isinstance(index, ir.Const)
            and type(index.value) is int and index.value >= 0):
        return None
    lst = an.stacks.taken.get(obj.name)
    entries = _entries(an, lst, set()) if lst is not None else None
    if entries is None:
        return None
    found = []
    for entry in entries:
        if isinstance(entry, dict):
            if index.value in entry:
                found.append(entry[index.value])
        elif entry is None:
            return None  # not worked out yet
        elif entry != SCALAR:
            return ANY, None  # a list or an array saved alone: indexing it reads an item
    kinds = {k for k, _ in found}
    ranks = {r for _, r in found}
    if len(kinds) != 1:
        return ANY, None
    return kinds.pop(), ranks.pop() if len(ranks) == 1 else None


def _entries(an, lst, seen):
    """What the list ``lst`` may hold: for each tuple, ``{position: (kind, rank)}``; for
    anything else, its kind. None when not known."""
    if lst in seen:
        return []
    seen.add(lst)
    entries = []
    for atom in an.stacks.appended.get(lst, ()):
        items = an.tuple_items.get(atom.name) if isinstance(atom, ir.Var) and (
            an.kind(atom) == SEQ) else None
        entries.append(dict(items) if items else an.kind(atom))
    if lst in an.stacks.copied:
        more = _entries(an, an.stacks.copied[lst], seen)
        if more is None:
            return None
        entries += more
    if lst in an.stacks.from_param:
        param, i = an.stacks.from_param[lst]
        recorded = an.param_stacks.get(param, {}).get(i)
        if recorded is None:
            return None
        entries += [dict(e) if isinstance(e, dict) else e for e in recorded]
    return entries
