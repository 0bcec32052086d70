"""Closure conversion of a helper returning different functions on different paths.

``make`` returning one function on one path and another on another (``if``/``elif``/``else``
returns, ``return f1 if c else f2``): read as one lifted function ``make_choice(tag, held...,
params)`` whose ``if tag == i:`` holds the body of the ``i``-th, and ``make_env`` returning
``(i, held...)`` on the paths returning the ``i``-th (a value the ``i``-th does not read:
``0.0``). The tag is an int, not differentiated; which path ``make`` takes is a branch of
``make_env``, differentiated as any (each path's values get their gradients).

Each path's function may be a nested ``def``, a lambda, or ``functools.partial(G, a, k=b)``
of a function ``G`` the module names (read as ``_a = a; _b = b; return lambda t: G(_a, t,
k=_b)``, ``t`` the parameters ``G`` has left: :func:`_partials_as_lambdas`); their
parameters must be the same, or the same number of positional ones (renamed alike,
:func:`_alike`). A path may return a tuple of such functions and other values (``return
(lambda t: a * t), n``), every path a tuple of the same length: each place of functions is a
choice function of its own over the one tag, each place of values an item of the environment.

Imports the standard library, gast and :mod:`.lower_calls`; :mod:`.closures`, which imports
this module, hands itself down.
"""

from __future__ import annotations

import copy
import inspect
import itertools

import gast

from ..core.walk import walk_nodes
from .blocks import own_blocks as _blocks
from .lower_calls import enclosing_locals

_temps = itertools.count(1)
C = None  # srcad.frontend.closures, handed down by convert_paths


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def convert_paths(fn, fdef, returns, defs, bound, src, closures):
    """The :class:`.closures.Conversion` of ``make`` (``fdef``, its ``returns`` not all the
    same), or None (not converted); ``closures``: that module (its helpers, handed down)."""
    global C
    C = closures
    if _partials_as_lambdas(fdef, defs, bound, src.globals):
        returns = C._returned(fdef)
    values, which = [], []
    for r in returns:
        at = next((i for i, v in enumerate(values) if C._same(v, r.value)), None)
        if at is None:
            values.append(r.value)
            at = len(values) - 1
        which.append(at)
    tuples = all(isinstance(v, gast.Tuple) for v in values)
    if tuples and (len({len(v.elts) for v in values}) != 1 or any(
            isinstance(e, gast.Starred) for v in values for e in v.elts)):
        return None
    columns = [[v.elts[c] for v in values] for c in range(len(values[0].elts))] if tuples \
        else [values]
    outer = enclosing_locals(fdef, defs=True)
    args = fdef.args
    fixed = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs
             if bound.get(a.id, 0) == 0}
    slots = [lambda i: gast.Constant(value=i, kind=None)]  # the tag, then held names, values
    slot_of, reads, parts, dropped = {}, {}, [], set()
    for c, column in enumerate(columns):
        forms = [C._form(v, defs, bound, src.globals) for v in column]
        if tuples and all(f is None for f in forms):  # a value beside the functions
            slots.append(lambda i, col=column: copy.deepcopy(col[i]))
            parts.append(("value", ("env", len(slots) - 1)))
            continue
        if any(f is None or f[0] not in ("def", "lambda") for f in forms):
            return None
        made = _choice(fn, c, forms, defs, src, outer)
        if made is None:
            return None
        target, held, held_each = made
        for x in held:
            for i, h in enumerate(held_each):
                if x in h:
                    reads.setdefault(x, set()).add(i)
            if x not in fixed and x not in slot_of:
                slots.append(lambda i, x=x: _load(x) if i in reads[x] else gast.Constant(
                    value=0.0, kind=None))
                slot_of[x] = len(slots) - 1
        lead = [("env", 0)] + [("param", x) if x in fixed else ("env", slot_of[x])
                               for x in held]
        parts.append(("function", C.Conversion(None, target, lead, {})))
        dropped |= {f[1] for f in forms if f[0] == "def"}
    if not any(kind == "function" for kind, _ in parts):
        return None  # values only (make_env itself): nothing to convert
    per_return = [[slot(i) for slot in slots] for i in which]
    env_fn = C._env_function(fn, fdef, returns, per_return, src, dropped)
    return C.Conversion(env_fn, parts if tuples else parts[0][1], len(slots), None)


def _choice(fn, c, forms, defs, src, outer):
    """``(lifted choice function, the names of make it reads, those each path's reads)`` for
    one place of the returned values, or None."""
    nodes = [copy.deepcopy(defs[f[1]] if f[0] == "def" else C._lambda_def(f[1]))
             for f in forms]
    if not all(C._plain_def(n, src.globals) for n in nodes):
        return None
    if not all(C._same(n.args, nodes[0].args) for n in nodes[1:]) and not _alike(nodes):
        return None  # their parameters differ: a call could not be read the same way
    held_each = [C._captured(n, outer - {n.name}) for n in nodes]
    if any(h is None or any(x in defs for x in h) for h in held_each):
        return None
    held = list(dict.fromkeys(x for h in held_each for x in h))
    params = {a.id for a in nodes[0].args.posonlyargs + nodes[0].args.args +
              nodes[0].args.kwonlyargs}
    if _clash(nodes, set(held) | params):
        return None
    tag = f"srcad_tag_{fn.__name__}"
    branch = None
    for i in reversed(range(len(nodes))):
        body = nodes[i].body
        if branch is None:
            branch = body
            continue
        test = gast.Compare(left=_load(tag), ops=[gast.Eq()],
                            comparators=[gast.Constant(value=i, kind=None)])
        branch = [gast.copy_location(gast.If(test=test, body=body, orelse=branch), nodes[i])]
    choice = nodes[0]
    choice.body = branch
    choice.name = f"{fn.__name__}_choice{c or ''}"
    return C._lift(choice, [tag] + held, src, fn), held, held_each


def _clash(nodes, given):
    """Whether one body assigns a name another reads from outside (a global there, not one of
    the names ``given``: one function holding both bodies would make it local)."""
    stores = [{n.id for n in walk_nodes(node) if isinstance(n, gast.Name)
               and isinstance(n.ctx, (gast.Store, gast.Del))} for node in nodes]
    for i, node in enumerate(nodes):
        loads = {n.id for n in walk_nodes(node) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Load)} - stores[i] - given
        if any(loads & stores[j] for j in range(len(nodes)) if j != i):
            return True
    return False


def _alike(nodes):
    """Give functions with the same number of plain positional parameters (no defaults, no
    keyword-only ones, no nested function reading them) the same names, ``srcad_arg0``, ...:
    True when done."""
    counts = set()
    for node in nodes:
        a = node.args
        if a.posonlyargs or a.kwonlyargs or a.defaults or any(isinstance(n, (
                gast.FunctionDef, gast.Lambda, gast.ListComp, gast.GeneratorExp,
                gast.SetComp, gast.DictComp)) for s in node.body for n in walk_nodes(s)):
            return False
        counts.add(len(a.args))
    if len(counts) != 1:
        return False
    for node in nodes:
        names = {a.id: f"srcad_arg{k}" for k, a in enumerate(node.args.args)}
        if any(isinstance(n, gast.Name) and n.id in names.values() for s in node.body
               for n in walk_nodes(s)):
            return False
        for a in node.args.args:
            a.id = names[a.id]
        for s in node.body:
            for n in walk_nodes(s):
                if isinstance(n, gast.Name) and n.id in names:
                    n.id = names[n.id]
    return True


def _partials_as_lambdas(fdef, defs, bound, globals_):
    """``return functools.partial(G, a, k=b)`` (``G`` a function the module names; alone or
    in a returned tuple) as ``_a = a; _b = b; return lambda t: G(_a, t, k=_b)``: the values
    fixed where the partial is made, the parameters ``G`` has left. True when one changed."""
    changed = False
    for block in _blocks(fdef):
        out = []
        for stmt in block:
            if isinstance(stmt, gast.Return) and stmt.value is not None:
                before = []
                if isinstance(stmt.value, gast.Tuple):
                    stmt.value.elts = [_as_lambda(e, defs, bound, globals_, before)
                                       for e in stmt.value.elts]
                else:
                    stmt.value = _as_lambda(stmt.value, defs, bound, globals_, before)
                for s in before:
                    for n in walk_nodes(s):
                        if "lineno" in n._attributes:
                            gast.copy_location(n, stmt)
                out.extend(before)
                changed = changed or bool(before)
            out.append(stmt)
        block[:] = out
    return changed


def _as_lambda(value, defs, bound, globals_, before):
    form = C._form(value, defs, bound, globals_)
    if form is None or form[0] != "partial" or form[1][0] != "global":
        return value
    target = C._resolve(globals_, form[1][1])
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return value
    kinds = inspect.Parameter
    given = {k.arg for k in form[3]}
    positional = [p for p in sig.parameters.values()
                  if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    if any(p.kind in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD) or p.kind is kinds.KEYWORD_ONLY
           and p.default is p.empty and p.name not in given for p in sig.parameters.values()) \
            or len(form[2]) > len(positional):
        return value
    rest = [p.name for p in positional[len(form[2]):] if p.name not in given]
    if any(sig.parameters[n].default is not sig.parameters[n].empty for n in rest):
        return value
    fixed = []
    for expr in list(form[2]) + [k.value for k in form[3]]:
        name = f"srcad_fixed_{next(_temps)}"
        before.append(gast.Assign(targets=[gast.Name(id=name, ctx=gast.Store(), annotation=None,
                                                     type_comment=None)], value=expr,
                                  type_comment=None))
        fixed.append(_load(name))
    call = gast.Call(func=copy.deepcopy(value.args[0]), args=fixed[:len(form[2])] + [
        _load(n) for n in rest], keywords=[gast.keyword(arg=k.arg, value=v) for k, v in zip(
            form[3], fixed[len(form[2]):])])
    lam = gast.Lambda(args=gast.arguments(
        args=[gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
              for n in rest], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
        kwarg=None, defaults=[]), body=call)
    for n in walk_nodes(lam):
        if "lineno" in n._attributes:
            gast.copy_location(n, value)
    return lam
