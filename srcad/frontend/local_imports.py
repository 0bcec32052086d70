"""Imports inside the function (``import numpy as np``, ``from scipy.special import expit``
among its statements), before the checks (issue 16).

Python runs such a statement at each call and binds a local name to the module or object;
the module is imported once and kept in ``sys.modules``, so every call binds the same object.
srcad imports it while it makes the code and gives the name that object as a constant (as
a closure value of the function), the statement removed. Taken where the statement is among
the function's own statements (not in a branch or a loop, which may not run it) and the names
it binds are bound nowhere else in the function and read only after it; ``from m import *``
never. Anything else stays refused by the checks, with the rewrite (import at module level).

Imports the standard library and gast.
"""

from __future__ import annotations

import importlib

import gast

from ..core.walk import walk_nodes


def lower(src):
    """Take the imports of ``src.node``'s own statements out, their names bound as constants."""
    body = src.node.body
    if not any(isinstance(s, (gast.Import, gast.ImportFrom)) for s in body):
        return
    stores, first_read = {}, {}
    for node in walk_nodes(src.node):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, (gast.Store, gast.Del)):
                stores[node.id] = stores.get(node.id, 0) + 1
            elif hasattr(node, "lineno"):
                first_read[node.id] = min(first_read.get(node.id, node.lineno), node.lineno)
    params = {a.id for a in src.node.args.posonlyargs + src.node.args.args
              + src.node.args.kwonlyargs}
    kept = []
    for stmt in body:
        bound = _bound(stmt, src.globals) if isinstance(stmt, (gast.Import,
                                                               gast.ImportFrom)) else None
        if bound is None or any(
                stores.get(name) or name in params or first_read.get(name, stmt.lineno + 1)
                <= stmt.lineno for name in bound):
            kept.append(stmt)
            continue
        src.closure.update(bound)  # constants of the code, like a closure's values
        src.imported = getattr(src, "imported", frozenset()) | set(bound)
    if len(kept) != len(body):
        src.node.body = kept or [gast.Pass()]


def _bound(stmt, globals_):
    """``{name: object}`` the import statement binds, or None (not taken: ``*``, a module or
    name that cannot be imported, a relative import outside a package)."""
    out = {}
    try:
        if isinstance(stmt, gast.Import):
            for alias in stmt.names:
                module = importlib.import_module(alias.name)
                if alias.asname:
                    out[alias.asname] = module
                else:  # import a.b binds a
                    top = alias.name.split(".")[0]
                    out[top] = importlib.import_module(top)
            return out
        package = globals_.get("__package__") if stmt.level else None
        name = "." * stmt.level + (stmt.module or "")
        module = importlib.import_module(name, package)
        for alias in stmt.names:
            if alias.name == "*":
                return None
            if hasattr(module, alias.name):
                value = getattr(module, alias.name)
            else:
                value = importlib.import_module(f"{module.__name__}.{alias.name}")
            out[alias.asname or alias.name] = value
        return out
    except (ImportError, TypeError, ValueError):
        return None
