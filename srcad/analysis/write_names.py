"""The names and hints :mod:`.alias`'s refusals give: the user's names for srcad's SSA values,
and, for an augmented assignment changing an array the caller gave (``W -= g * lr``), the
rewrite a program written for JAX means by it.

In JAX an array cannot change: ``W -= g * lr`` makes a new array and binds ``W`` to it, so
programs written for JAX use it freely on their arguments. NumPy changes the array itself, so
the caller's array changes too, which srcad's functional reading does not do (the write stays
refused); the hint says to write ``W = W - g * lr``, JAX's meaning, in NumPy.

Imports the standard library, gast and :mod:`srcad.core`.
"""

from __future__ import annotations

import ast
import operator
import textwrap

import gast

from ..core import ir
from ..core.walk import walk_nodes

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
        ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def spelled(fn):
    """The names written in the user's source of ``fn``."""
    user = getattr(fn.source, "node", None)
    if user is None:
        return set()
    return {n.id for n in walk_nodes(user) if isinstance(n, gast.Name)}


def user_names(fn):
    """SSA name -> the user's name it is a version of (``a_2`` -> ``a``), where known."""
    names = {}
    written = spelled(fn)
    temps = getattr(fn, "temps", ())  # (srcad's own t_4 is no version of the user's t)
    for stmt in ir.walk(fn.body):
        for name in ir.defined_by(stmt):
            if name in temps:
                continue
            base = name.rstrip("0123456789")
            base = base[:-1] if base.endswith("_") and base != name else name
            if base in written and base != name:
                names[name] = base
            elif base.startswith("_") and base[1:] in written and base not in written:
                names[name] = base[1:]  # the value srcad made for x (x = a if c else b: _x)
    return names


def shown(fn, atom):
    """How a message names the value ``atom`` of ``fn``: the user's text for a value srcad
    made (``M[1]`` for its ``t_6``), the user's name for an SSA version (``y`` for ``y_2``)."""
    text = str(atom)
    spelled_as = getattr(fn, "spellings", {}).get(text)
    if spelled_as is not None:
        return spelled_as
    return user_names(fn).get(text, text) if isinstance(atom, ir.Var) else text


def described(fn, named):
    """SSA name srcad made -> how the user's code made it (``an item of d``, ``the value
    d.setdefault(...) returned``), for messages naming a value the user gave no name."""
    out, written = {}, spelled(fn)
    for stmt in ir.walk(fn.body):
        value = getattr(stmt, "value", None)
        if not (isinstance(stmt, ir.Assign) and stmt.target and stmt.target not in written
                and stmt.target not in named and isinstance(value, ir.Prim) and value.args
                and isinstance(value.args[0], ir.Var)):
            continue
        obj = named.get(value.args[0].name, value.args[0].name)
        if isinstance(value.fn, ir.Method):
            out[stmt.target] = f"the value {obj}.{value.fn.name}(...) returned"
        elif value.fn is operator.getitem:
            out[stmt.target] = f"an item of {obj}"
    return out


def _augmented(text, names):
    """``W = W - g * lr`` for the statement ``text`` if it is ``W -= g * lr`` with ``W`` one of
    ``names`` (any name when ``names`` is None), else None."""
    try:
        node = ast.parse(text.strip()).body[0]
    except (SyntaxError, IndexError, AttributeError):
        return None
    if not (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and (
            names is None or node.target.id in names)) or type(node.op) not in _OPS:
        return None
    name, op = node.target.id, _OPS[type(node.op)]
    return f"{name} = {name} {op} {ast.unparse(node.value)}", f"{op}="


def _callee_line(callee, arg):
    """The first ``p op= e`` in the user's function ``callee`` (``prim.fn``) on the parameter
    ``p`` the call ``prim`` gives the value ``arg`` (an ``ir.Var``): (its line, the rewrite,
    the operator), else None."""
    prim, callee = callee, callee.fn
    import inspect

    try:
        site = getattr(callee, "__srcad_site__", None)  # a nested def srcad lifted: the
        if site is not None:  # user's def, at its line of the user's file
            import linecache

            first = site[1]
            lines = textwrap.dedent("".join(inspect.getblock(
                linecache.getlines(site[0])[first - 1:]))).splitlines(True)
        else:
            lines, first = inspect.getsourcelines(callee)
        tree = ast.parse(inspect.cleandoc("".join(lines)) if lines[0][:1] in " \t"
                         else "".join(lines))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    fdef = tree.body[0] if tree.body and isinstance(
        tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if fdef is None:
        return None
    positional = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    code = getattr(callee, "__code__", None)
    if code is not None and code.co_argcount > len(positional):  # a lifted def's captured
        positional = list(code.co_varnames[:code.co_argcount])  # values come first
    params = {k for k, v in (prim.kwargs or {}).items() if v == arg} | {
        p for p, v in zip(positional, prim.args) if v == arg}
    for node in ast.walk(fdef):
        if isinstance(node, ast.AugAssign):
            found = _augmented(ast.unparse(node), params)
            if found:
                return (first + node.lineno - 1,) + found
    return None


def copy_hint(mine, source, line, by=None):
    """The hint of a refused write into an array the caller gave (``mine``, written at
    ``line`` of ``source``, or by the user's function called there: ``by``, the call and
    the value it is given, ``(prim, atom)``)."""
    plain = f"work on a copy: write {mine} = {mine}.copy() first, and return what you compute"
    found = None
    if by is not None:
        at = _callee_line(*by)
        if at is not None:
            fn = by[0].fn
            name = getattr(fn, "__srcad_shown__", None) or getattr(fn, "__name__", "it")
            return (f"in {name} (line {at[0]}) write {at[1]}: a new array, as JAX means "
                    f"{at[2]} (with NumPy arrays {at[2]} changes the caller's array); or "
                    f"pass a copy")
    elif source is not None and line:
        found = _augmented(source.line_text(line) or "", {mine})
    if found is None:
        return plain
    return (f"write {found[0]}: a new array, as JAX means {found[1]} (with NumPy arrays "
            f"{found[1]} changes the caller's array); or {mine} = {mine}.copy() first")
