"""Reject what srcad cannot differentiate, before any transformation, with one table.

After this pass the function body holds none of the constructs in :data:`UNSUPPORTED`. Each
entry says what the construct is and what to write instead; the error points at the user's
file and line.

Imports: gast and :mod:`srcad.errors` only; it reads the tree and resolves nothing.
"""

from __future__ import annotations

import gast

from ..errors import UnsupportedSyntaxError

#: construct -> (what it is, what to do instead)
UNSUPPORTED = {
    gast.Try: ("try/except", "move the try/except outside the function you differentiate"),
    gast.With: ("a with block", "open resources outside the differentiated function"),
    gast.AsyncFunctionDef: ("async code", "differentiate a plain (synchronous) function"),
    gast.Await: ("await", "differentiate a plain (synchronous) function"),
    gast.AsyncFor: ("async for", "differentiate a plain (synchronous) function"),
    gast.AsyncWith: ("async with", "differentiate a plain (synchronous) function"),
    gast.Yield: ("a generator (yield)", "return a list of the values instead"),
    gast.YieldFrom: ("a generator (yield from)", "return a list of the values instead"),
    gast.Global: ("a global statement", "pass the value in as an argument and return the "
                  "new value"),
    gast.Nonlocal: ("a nonlocal statement", "pass the value in as an argument and return the "
                    "new value"),
    gast.Delete: ("del", "leave the name alone or assign it a new value"),
    gast.ClassDef: ("a class defined inside the function", "define the class at module level"),
    gast.Import: ("an import inside the function", "import at module level"),
    gast.ImportFrom: ("an import inside the function", "import at module level"),
    gast.NamedExpr: ("an assignment expression (:=)", "assign on a line of its own"),
    gast.DictComp: ("a dict comprehension", "build the dict with a for loop"),
    gast.SetComp: ("a set comprehension", "use a list"),
    gast.Set: ("a set literal", "use a list or tuple"),
    # a dict literal: refused where it is lowered (f(**{"a": x}) splices it)
}
if hasattr(gast, "Match"):
    UNSUPPORTED[gast.Match] = ("a match statement", "use if/elif/else")


#: calls whose effect on values srcad cannot see (they read or write variables by name)
UNSUPPORTED_CALLS = {
    "eval": "write the expression itself", "exec": "write the statements themselves",
    "locals": "use the variables directly", "globals": "use the names directly",
    "vars": "use the attributes or variables directly", "compile": "write the code itself",
    "setattr": "return the new value instead", "delattr": "leave the attribute alone",
}


def validate(source):
    """Raise :class:`UnsupportedSyntaxError` for the first unsupported construct."""
    for node in _walk_body(source.node):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and (
            node.func.id in UNSUPPORTED_CALLS
            and node.func.id not in _assigned_names(source.node)
        ):
            line = getattr(node, "lineno", None)
            raise UnsupportedSyntaxError(
                f"srcad cannot differentiate through {node.func.id}(): the names it reads or "
                "writes are not visible in the source", filename=source.filename,
                lineno=line, construct=source.line_text(line),
                hint=UNSUPPORTED_CALLS[node.func.id])
        entry = UNSUPPORTED.get(type(node))
        if entry is None:
            continue
        what, instead = entry
        line = getattr(node, "lineno", None)
        raise UnsupportedSyntaxError(
            f"srcad cannot differentiate {what}",
            filename=source.filename,
            lineno=line,
            construct=source.line_text(line),
            hint=instead,
        )


def _assigned_names(fdef):
    names = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs}
    return names | {n.id for n in gast.walk(fdef)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _walk_body(fdef):
    for stmt in fdef.body:
        yield from gast.walk(stmt)
    for default in fdef.args.defaults + [d for d in fdef.args.kw_defaults if d is not None]:
        yield from gast.walk(default)
