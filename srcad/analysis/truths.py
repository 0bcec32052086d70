"""A branch on a list the function changes in place keeps the truth value it took.

``if ys: v = ys.pop()`` branches on ``ys`` being non-empty; the backward sweep takes the same
branch by testing the same name again, but by then the ``pop`` (or an ``append``) has changed
the list, so it would take the other one. Every ``if`` whose test is a list that some
``append``/``pop`` changes (or a version of it: SSA merges) is rewritten to branch on
``t = bool(ys)``, computed just before it: the forward and the backward sweeps read ``t``.

Runs on the SSA form, before the analysis. Imports ``srcad.core``.
"""

from __future__ import annotations

from ..core import ir


def keep_truths(fn: ir.Function, namer) -> None:
    changed = _changed_in_place(fn)
    if changed:
        _rewrite(fn.body, changed, namer)


def _changed_in_place(fn):
    """Names of lists an ``append``/``pop`` changes, and every version linked to them by a
    merge or a plain copy of the name (they may be the same object)."""
    names = set()
    links = []
    for stmt in ir.walk(fn.body):
        if isinstance(stmt, ir.Assign):
            value = stmt.value
            if isinstance(value, ir.Prim) and isinstance(value.fn, ir.Method) and (
                    value.fn.name in ("append", "pop")) and value.args and isinstance(
                    value.args[0], ir.Var):
                names.add(value.args[0].name)
            elif isinstance(value, ir.Var) and stmt.target is not None:
                links.append((value.name, stmt.target))
        for phi in getattr(stmt, "phis", ()):
            links += [(v.name, phi.target) for v in phi.sources if isinstance(v, ir.Var)]
    grown = bool(names)
    while grown:
        grown = False
        for a, b in links:
            if (a in names) != (b in names):
                names |= {a, b}
                grown = True
    return names


def _rewrite(stmts, changed, namer):
    at = 0
    while at < len(stmts):
        stmt = stmts[at]
        for block in ir.blocks_of(stmt):
            _rewrite(block, changed, namer)
        if isinstance(stmt, ir.If) and isinstance(stmt.test, ir.Var) and (
                stmt.test.name in changed):
            truth = namer.fresh("nonempty")
            stmts.insert(at, ir.Assign(truth, ir.Prim(bool, [stmt.test], spelling="bool"),
                                       line=stmt.line))
            stmt.test = ir.Var(truth)
            at += 1
        at += 1
