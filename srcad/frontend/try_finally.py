"""``try: ... finally: ...`` (no ``except``) as the statements Python runs when nothing raises.

When the body runs to its end, Python runs the body and then the ``finally`` block; when the
body leaves the ``try`` by ``return v``, ``break`` or ``continue``, Python computes ``v``, runs
the ``finally`` block, and then leaves. :func:`lower` writes exactly that, before the
validation (which refuses ``try``):

    try:                               y = g(x)
        y = g(x)                       if y > 0:
        if y > 0:                          srcad_finally_1 = y * 2.0
            return y * 2.0       ->        log.append(1)
    finally:                               return srcad_finally_1
        log.append(1)                  log.append(1)

so the ``finally`` block is copied to each way out of the body (its lines kept: errors and
source maps point at the user's ``finally`` lines). Where the body raises, the derivative
raises the same exception without running the ``finally`` block (a derivative that raises
where the function raises). A ``finally`` block that itself leaves (``return``, ``break``,
``continue``: it would swallow the body's exception or override its ``return``) is refused;
``try`` with ``except`` stays refused by :mod:`.validate`.

Imports the standard library, gast and :mod:`srcad.errors`.
"""

from __future__ import annotations

import copy

import gast

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_LOOPS = (gast.For, gast.While, gast.AsyncFor)


def lower(source):
    """Rewrite every ``try``/``finally`` without ``except`` in ``source``'s function (and the
    functions nested in it) in place."""
    _Finally(source).visit(source.node)


class _Finally(gast.NodeTransformer):
    def __init__(self, source):
        self.source = source
        self.names = {n.id for n in walk_nodes(source.node) if isinstance(n, gast.Name)}
        self.count = 0

    def visit_Try(self, node):
        self.generic_visit(node)  # a try inside the body or the finally block: first
        if node.handlers or node.orelse or not node.finalbody:
            return node  # with except: refused by the validation
        for stmt in node.finalbody:
            leaving = next(_exits(stmt, in_loop=False), None)
            if leaving is not None:
                line = getattr(leaving, "lineno", None)
                raise UnsupportedSyntaxError(
                    f"srcad cannot differentiate a finally block that leaves it "
                    f"({type(leaving).__name__.lower()}): it would cancel an exception the "
                    "try body raises", filename=self.source.filename, lineno=line,
                    construct=self.source.line_text(line),
                    hint="leave after the try statement: set a flag or a value in the finally "
                    "block and return or break after it")
        return self.through(node.body, node.finalbody, in_loop=False) + self.copy(
            node.finalbody)

    def through(self, stmts, final, in_loop):
        """``stmts`` with ``final`` copied before each ``return``, ``break``, ``continue``
        that leaves the try (``in_loop``: inside a loop of the try body, whose ``break`` and
        ``continue`` stay inside)."""
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Return):
                if stmt.value is None:
                    out += self.copy(final) + [stmt]
                    continue
                name = self.fresh()
                out.append(gast.copy_location(gast.Assign(
                    targets=[_name(name, gast.Store(), stmt)], value=stmt.value,
                    type_comment=None), stmt))
                out += self.copy(final)
                out.append(gast.copy_location(gast.Return(value=_name(name, gast.Load(), stmt)),
                                              stmt))
                continue
            if isinstance(stmt, (gast.Break, gast.Continue)) and not in_loop:
                out += self.copy(final) + [stmt]
                continue
            if isinstance(stmt, _SCOPES):
                out.append(stmt)
                continue
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], gast.stmt):
                    # a loop's body keeps its own break/continue; its else clause does not
                    setattr(stmt, field, self.through(
                        sub, final, in_loop or (field == "body" and isinstance(stmt, _LOOPS))))
            for handler in getattr(stmt, "handlers", ()):
                handler.body = self.through(handler.body, final, in_loop)
            out.append(stmt)
        return out

    def copy(self, final):
        return [copy.deepcopy(s) for s in final]

    def fresh(self):
        while True:
            self.count += 1
            name = f"srcad_finally_{self.count}"
            if name not in self.names:
                self.names.add(name)
                return name


def _exits(node, in_loop):
    """The ``return``/``break``/``continue`` statements under ``node`` that leave a block
    it stands in (a nested function's are its own; a loop's ``break`` its own)."""
    if isinstance(node, gast.Return) or (isinstance(node, (gast.Break, gast.Continue))
                                         and not in_loop):
        yield node
        return
    if isinstance(node, _SCOPES):
        return
    for field in ("body", "orelse", "finalbody", "handlers"):
        for sub in getattr(node, field, None) or ():
            yield from _exits(sub, in_loop or (field == "body" and isinstance(node, _LOOPS)))


def _name(name, ctx, at):
    return gast.copy_location(gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None),
                              at)
