"""Reject what srcad cannot differentiate, before any transformation, with one table.

After this pass the function body holds none of the constructs in :data:`UNSUPPORTED`. Each
entry says what the construct is and what to write instead; the error points at the user's
file and line.

Before the check, :func:`strip_neutral_with` replaces each ``with`` block whose context manager
changes no value (:data:`NEUTRAL`: ``np.errstate``, ``np.printoptions``,
``warnings.catch_warnings``, ``contextlib.suppress()`` of nothing, ``contextlib.nullcontext``)
by its body: the derivative is that of the body, and the context manager is not entered (the
forward sweep may show warnings the block silenced). Any other ``with`` is refused.

Imports: gast, the standard library, :mod:`srcad.errors` and :mod:`.built_records`
(``resolve_any``); the context managers are looked up through the
:class:`srcad.frontend.source.Source` it is given.
"""

from __future__ import annotations

import contextlib
import warnings

import gast
import numpy as np

from ..core.walk import walk_nodes
from ..errors import UnsupportedSyntaxError
from . import generators, try_finally
from .built_records import resolve_any

#: construct -> (what it is, what to do instead)
UNSUPPORTED = {
    gast.Try: ("try/except (which branch runs depends on an exception raised somewhere in "
               "the try body, and srcad's sweeps would not see where; try/finally without "
               "except is differentiated)",
               "test the condition with an if before the operation (if np.all(x > 0): ...), "
               "or catch the error around the call of the derivative: try: g = "
               "srcad.grad(f)(x) except ...; drop the except clauses if try/finally is what "
               "you mean"),
    gast.With: ("a with block", "open resources outside the differentiated function (srcad "
                "reads through np.errstate, np.printoptions, warnings.catch_warnings, "
                "contextlib.suppress() and contextlib.nullcontext blocks only)"),
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
    gast.Delete: ("del of an item or an attribute (del name is read: the name is gone)",
                  "leave the name alone or assign it a new value; for an item build the new "
                  "list or dict"),
    gast.ClassDef: ("a class defined inside the function", "define the class at module level"),
    gast.Import: ("an import inside a branch or a loop of the function (or binding a name "
                  "the function reads before it or binds again)", "import at module level, or "
                  "among the function's own statements before its names are read"),
    gast.ImportFrom: ("an import inside a branch or a loop of the function, a * import (or "
                      "one binding a name the function reads before it or binds again)",
                      "import at module level, or among the function's own statements before "
                      "its names are read"),
    gast.SetComp: ("a set comprehension", "use a list"),
    gast.Set: ("a set literal", "use a list or tuple"),
}
if hasattr(gast, "Match"):
    UNSUPPORTED[gast.Match] = ("a match statement", "use if/elif/else")
if hasattr(gast, "TryStar"):  # try/except* (Python 3.11): a try like any other
    UNSUPPORTED[gast.TryStar] = UNSUPPORTED[gast.Try]


#: calls whose effect on values srcad cannot see (they read or write variables by name)
UNSUPPORTED_CALLS = {
    "eval": "write the expression itself", "exec": "write the statements themselves",
    "locals": "use the variables directly", "globals": "use the names directly",
    "vars": "use the attributes or variables directly", "compile": "write the code itself",
    "setattr": "return the new value instead", "delattr": "leave the attribute alone",
}


def _name_deletes(body):
    """The ids of ``del name`` statements among ``body``, its ``if`` branches and its loops'
    bodies: on a path that skips one the name stays; a read where it may be gone raises
    UnboundLocalError at run time as in Python (lower_stmts.unbound_check)."""
    for s in body:
        if isinstance(s, gast.Delete) and all(isinstance(t, gast.Name) for t in s.targets):
            yield id(s)
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            yield from _name_deletes(s.body)
            yield from _name_deletes(s.orelse)


def validate(source):
    """Raise :class:`UnsupportedSyntaxError` for the first unsupported construct (after
    dropping the value-neutral ``with`` lines)."""
    strip_neutral_with(source)
    try_finally.lower(source)  # try/finally without except: the body, then the finally block
    source.nested_generators = getattr(source, "nested_generators", set()) | (
        generators.rewrite_nested(source))  # each generator defined inside: as its list
    # del name among the function's own statements, branches and loops: the name is gone
    # (lower_stmts.stmt_Delete; a read where it may be gone is checked at run time)
    top = set(_name_deletes(source.node.body))
    top |= generators.deeper_yields(source)  # read when their function is lowered
    scoped = _scoped_named_exprs(source.node)
    for node in _walk_body(source.node):
        if id(node) in top:
            continue
        if id(node) in scoped:
            line = getattr(node, "lineno", None)
            raise UnsupportedSyntaxError(
                "srcad cannot differentiate an assignment expression (:=) in a comprehension, "
                "a lambda or a default", filename=source.filename, lineno=line,
                construct=source.line_text(line),
                hint="write the loop out and assign on a line of its own")
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
        held = _holds_itself(node)
        if held is not None:
            line = getattr(node, "lineno", None)
            raise UnsupportedSyntaxError(
                f"srcad cannot differentiate a list that holds itself ({held} put into "
                f"{held}): its gradient would be a list holding itself, without end",
                filename=source.filename, lineno=line, construct=source.line_text(line),
                hint=f"hold a copy ({held}.append(list({held}))) or keep the values in "
                     "another list")
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


def _held(value, name):
    """Whether ``value`` is the name ``name`` or a display holding it (at any depth)."""
    if isinstance(value, gast.Name):
        return value.id == name
    if isinstance(value, gast.Starred):
        return _held(value.value, name)
    if isinstance(value, (gast.List, gast.Tuple)):
        return any(_held(e, name) for e in value.elts)
    if isinstance(value, gast.Dict):
        return any(_held(e, name) for e in value.values)
    return False


def _holds_itself(node):
    """The name of a list that ``node`` puts into itself (``a.append(a)``, ``a.insert(0,
    a)``, ``a.extend([a])``, ``a[k] = [a]``, ``a += [a]``), else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
            isinstance(node.func.value, gast.Name) and node.args:
        name, method = node.func.value.id, node.func.attr
        item = {"append": node.args[0], "insert": node.args[-1]}.get(method)
        if item is not None and _held(item, name):
            return name
        if method == "extend" and isinstance(node.args[0], (gast.List, gast.Tuple)) and \
                _held(node.args[0], name):
            return name
    if isinstance(node, gast.Assign) and isinstance(node.value, (gast.List, gast.Tuple)):
        for t in node.targets:  # a[k] = [a] (a[k] = a: an array's may be fine)
            if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and \
                    _held(node.value, t.value.id):
                return t.value.id
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
            isinstance(node.value, (gast.List, gast.Tuple)) and \
            _held(node.value, node.target.id):
        return node.target.id
    return None


def _scoped_named_exprs(fdef):
    """The ids of the ``:=`` inside a comprehension, a lambda or a default: it binds a name of
    another scope than the expression's (lower_exprs.expr_NamedExpr takes the others)."""
    found = set()
    defaults = fdef.args.defaults + [d for d in fdef.args.kw_defaults if d is not None]
    for node in [n for stmt in fdef.body for n in walk_nodes(stmt)]:
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                             gast.Lambda)):
            found |= {id(n) for n in walk_nodes(node) if isinstance(n, gast.NamedExpr)}
    for default in defaults:
        found |= {id(n) for n in walk_nodes(default) if isinstance(n, gast.NamedExpr)}
    return found


def _assigned_names(fdef):
    names = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs}
    return names | {n.id for n in walk_nodes(fdef)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _walk_body(fdef):
    for stmt in fdef.body:
        yield from walk_nodes(stmt)
    for default in fdef.args.defaults + [d for d in fdef.args.kw_defaults if d is not None]:
        yield from walk_nodes(default)


# ---------------------------------------------------------------- value-neutral with blocks

#: context managers that change no value: a block under them is differentiated as if the with
#: line were absent (checked further by :func:`_neutral`)
NEUTRAL = {np.errstate: "np.errstate", np.printoptions: "np.printoptions",
           warnings.catch_warnings: "warnings.catch_warnings",
           contextlib.suppress: "contextlib.suppress", contextlib.nullcontext:
           "contextlib.nullcontext"}

#: np.errstate settings that keep values and control flow as they are
_QUIET = {"ignore", "warn", "print", "log"}


def strip_neutral_with(source):
    """Replace each value-neutral ``with`` block of ``source.node`` by its body (a
    ``nullcontext(v) as t`` by ``t = v`` first); refuse a known context manager used in a way
    that changes what runs (``np.errstate(all="raise")``, ``contextlib.suppress(E)``)."""
    local = _assigned_names(source.node)
    source.node.body = _strip(source.node.body, source, local)


def _strip(stmts, source, local):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.With):
            before = _neutral(stmt, source, local)
            if before is not None:
                out += before + _strip(stmt.body, source, local)
                continue
        for field in ("body", "orelse"):
            sub = getattr(stmt, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], gast.stmt):
                setattr(stmt, field, _strip(sub, source, local))
        out.append(stmt)
    return out


def _neutral(stmt, source, local):
    """The assignments that stand for the with line if every item is value-neutral, else
    None (the with is refused later)."""
    before = []
    for item in stmt.items:
        call = item.context_expr
        if not isinstance(call, gast.Call):
            return None
        manager = resolve_any(source, call.func, local)
        try:
            what = NEUTRAL.get(manager)
        except TypeError:
            return None
        if what is None:
            return None
        why = _changes_something(manager, call, item)
        if why:
            line = stmt.lineno
            raise UnsupportedSyntaxError(
                f"srcad cannot differentiate this {what} block: {why}",
                filename=source.filename, lineno=line, construct=source.line_text(line),
                hint="differentiate the block without it (drop the with line), or move it "
                "outside the differentiated function")
        if item.optional_vars is not None:  # only nullcontext gets here with an `as`
            value = call.args[0] if call.args else gast.Constant(value=None, kind=None)
            assign = gast.Assign(targets=[item.optional_vars], value=value,
                                 type_comment=None)
            before.append(gast.copy_location(assign, stmt))
    return before


def _changes_something(manager, call, item):
    """Why this use of a value-neutral context manager is not neutral after all (or '')."""
    if any(isinstance(k, gast.Starred) for k in call.args) or any(
            k.arg is None for k in call.keywords):
        return "its arguments are not written out (*args or **kwargs)"
    if item.optional_vars is not None and manager is not contextlib.nullcontext:
        return "its value is bound with `as`"
    if manager is np.errstate:
        if call.args:
            return "it is given a positional argument"
        for k in call.keywords:
            quiet = isinstance(k.value, gast.Constant) and k.value.value in _QUIET
            if not quiet:
                return (f"{k.arg}= is not one of {sorted(_QUIET)} (raising turns a "
                        "floating-point warning into an exception)")
    if manager is contextlib.suppress and call.args:
        return "suppressing an exception skips the rest of the block when it is raised"
    if manager is contextlib.nullcontext and len(call.args) + len(call.keywords) > 1:
        return "nullcontext takes one value"
    return ""
