"""The statement lists of a function's own body (for the rewrites that look for a statement
in whichever block it is).

Imports: gast.
"""

from __future__ import annotations

import gast


def own_blocks(fdef):
    """Every statement list of ``fdef``'s own body (not its nested functions')."""
    todo = [fdef]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                yield block
                todo.extend(s for s in block if not isinstance(
                    s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)))
        if isinstance(node, gast.Try):
            todo.extend(node.handlers)
