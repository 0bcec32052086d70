"""A local name for a record in a copy of :mod:`.passed_records` (issue 16): ``k = self.k``.

In a method of an object srcad reads field by field (``feature_tensor(self, X)``, ``self`` a
record whose field ``k`` holds another record), ``k = self.k`` then ``k.eval(X, V)``, or
``layer = p.layer`` then ``layer.w``, names the record held rather than reading a field of it:
refused before ("used whole"). Here such a name becomes another name of that record: its reads
(``k.s2``, ``k.eval(X)``, ``apply(k, x)``) are read as those of ``self.k`` (the record's leaves,
the copies of its class's methods), and the assignment is dropped. In Python the name is the
same object, whose fields only ``__init__`` sets (the classes followed): nothing can differ.

Only where the name is bound once in the function (by that assignment, at the top level of its
body, to a name that is not a parameter), and not read before it: every read of it is after
the assignment, as Python reads it there.

Imports gast.
"""

from __future__ import annotations

import gast

from ..core.walk import walk_nodes


def candidates(fdef):
    """The ids of the top-level statements ``name = <expression>`` of ``fdef`` that may name a
    record: the name bound only there (nowhere else, nested functions too), not a parameter,
    not declared global or nonlocal, not read in an earlier statement."""
    args = fdef.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    stores, declared = {}, set()
    for node in walk_nodes(fdef):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)) and \
                node is not fdef:
            inner = node.args
            for a in inner.posonlyargs + inner.args + inner.kwonlyargs + [
                    a for a in (inner.vararg, inner.kwarg) if a is not None]:
                stores[a.id] = stores.get(a.id, 0) + 1
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                stores[node.name] = stores.get(node.name, 0) + 1
    out, read = set(), set()
    for stmt in fdef.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            if stores.get(name) == 1 and name not in params and name not in declared and \
                    name not in read:
                out.add(id(stmt))
        read.update(n.id for n in walk_nodes(stmt) if isinstance(n, gast.Name) and
                    isinstance(n.ctx, gast.Load))
    return out
