"""A list changed in place by one of its methods while it is an item of a container the code
reads afterwards: ``h[0].append(v)`` (SSA's ``t_1 = h[0]; t_1.append(v)``), ``t = h[0];
t.pop()``, then ``h[0][0]`` read.

SSA reads ``t_1.append(v)`` as a change of ``t_1`` alone; ``h``, which holds the same list,
keeps its old value and activity there, so what is read through ``h`` afterwards (the item
appended) carried no gradient: a wrong gradient (``np.sum(h[0][0] * x)`` after
``h[0].append(x * 2.0)``: ``2x`` for ``4x``), in first order as in the forward mode. Refused
here (:func:`refuse`) where the change carries a gradient (the list or what the method is
given is differentiated) and a container the list was read out of (``h``, or ``g`` of ``h =
g[1]``) is read afterwards other than at another constant place (``p[1]`` after ``ys =
p[0]; ys.pop()`` reads an item the change leaves alone). The rewrite: a new list put back,
``h[0] = h[0] + [v]`` (what :mod:`srcad.frontend.lower_groups` writes for a dict's lists).
Not in srcad's own code read again (a second derivative): the user's code was checked first,
and the reads srcad adds (a split's context tuple, ``items_at(p, ...)``) are for structure.

Imports ``operator`` and :mod:`srcad.core`.
"""

from __future__ import annotations

import operator

from ..core import ir


def refuse(fn, stmt, obj, analysis, live_after, refuse_at, label):
    """Refuse ``stmt`` (``obj.m(...)``, a list method changing ``obj``, no result bound) as
    the module docstring says. ``live_after``: the names read after ``stmt``;
    ``refuse_at(stmt, message, hint)`` raises."""
    args = [a for a in stmt.value.args if isinstance(a, ir.Var)]
    if not any(a.name in analysis.varied for a in args):  # (not active: h's reads are not)
        return
    if hasattr(getattr(fn.source, "func", None), "__srcad_param_kinds__"):
        return  # srcad's own code read again: the user's was checked (its reads are srcad's:
        # a split's context tuple holds the container for the backward part's items_at)
    defs = {s.target: s for s in ir.walk(fn.body) if isinstance(s, ir.Assign) and s.target}
    chain, name = [], obj.name
    while name not in {c for c, _, _ in chain}:  # (a cycle: a loop's own names)
        made = defs.get(name)
        value = getattr(made, "value", None)
        if not (isinstance(value, ir.Prim) and value.fn is operator.getitem and len(
                value.args) == 2 and isinstance(value.args[0], ir.Var)):
            break
        chain.append((value.args[0].name, value.args[1], made))
        name = value.args[0].name
    taken = {id(made) for _, _, made in chain}
    for container, index, _ in chain:
        if container in live_after and not _apart(fn, container, index, taken):
            shown = f"{label(container)}[{_spelled(index, label)}]"
            method = stmt.value.fn.name
            refuse_at(stmt, f".{method}() changes {shown} in place, a list {label(container)} "
                      "holds and is read afterwards: srcad would not see the change there",
                      f"build the new list and put it back: {shown} = {shown} + [v]" if
                      method == "append" else f"build the new list and put it back into "
                      f"{shown} ({shown} = {shown}[:-1] for pop())")


def _apart(fn, container, index, taken):
    """Whether every read of ``container`` other than the statements ``taken`` (the reads
    of the chain) is an item at a constant place other than ``index`` (a constant)."""
    if not (isinstance(index, ir.Const) and type(index.value) in (int, str)):
        return False
    for stmt in ir.walk(fn.body):
        if id(stmt) in taken:
            continue
        reads = [v for v in ir.reads_of(stmt) if v.name == container]
        reads += [v for p in getattr(stmt, "phis", ()) for src in p.sources
                  if src is not None for v in ir.atoms_in(src) if v.name == container]
        if not reads:
            continue
        value = getattr(stmt, "value", None)
        if not (len(reads) == 1 and isinstance(stmt, ir.Assign) and isinstance(
                value, ir.Prim) and value.fn is operator.getitem and len(value.args) == 2 and (
                value.args[0] == ir.Var(container)) and isinstance(value.args[1], ir.Const)
                and value.args[1].value != index.value):
            return False
    return True


def _spelled(index, label):
    return repr(index.value) if isinstance(index, ir.Const) else label(getattr(
        index, "name", str(index)))
