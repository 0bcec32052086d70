"""A nested ``def`` that calls itself (issue 16, outside24 item 5)::

    def outer(x):
        def rec(n, y):
            return y if n == 0 else rec(n - 1, y * y)
        return rec(3, x)

:meth:`srcad.frontend.lower_calls.Calls.local_function` lifts a nested ``def`` to a function
of its own whose first parameters are the enclosing function's values it reads. For one that
calls itself, :func:`self_calls` rewrites each call ``rec(a, b)`` in its body to a call of the
lifted function passing those values on, ``rec_local(c, a, b)``, and ``_lift`` makes
``rec_local`` a closure variable of itself (its cell given the lifted function), so it is a
function of the user's that calls itself, differentiated as a recursive module-level function
is (each call split where it runs). Exact: while ``rec`` runs the enclosing function does not,
so the values it reads of it are those passed at the outermost call. Only when every use of
``rec`` in its body is a call (not a value passed on, not in a function defined inside it,
not rebound) and :func:`bound_once` finds the enclosing function binding ``rec`` by this
``def`` only: after ``g = rec; def rec(...): ...`` (or ``rec = other``, a second ``def
rec``, ``nonlocal rec`` in a function inside), Python's call of itself in the first body
finds the name's current function, not the body it is in; else the refusal stays.

Imports the standard library (``copy``) and gast.
"""

from __future__ import annotations

import copy

import gast

from ..core.walk import walk_nodes

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def bound_once(enclosing, name):
    """Whether the function ``enclosing`` binds ``name`` once only (by one ``def`` or one
    assignment of a lambda): no other assignment, ``def``, class, import, ``del``, ``for`` or
    ``with`` target, walrus (in a comprehension too), and no ``global``/``nonlocal`` of it in
    it or in a function inside it."""
    count, todo = 0, list(enclosing.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            count += node.name == name
            todo.extend(n for n in walk_nodes(node) if isinstance(n, (gast.Global,
                                                                   gast.Nonlocal)))
            continue
        if isinstance(node, gast.Lambda):
            continue
        if isinstance(node, gast.Name) and node.id == name and not isinstance(
                node.ctx, gast.Load):
            count += 1
        if isinstance(node, gast.alias) and (node.asname or node.name.split(".")[0]) == name:
            count += 1
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            todo.extend(n.target for n in walk_nodes(node) if isinstance(n, gast.NamedExpr))
            continue
        todo.extend(gast.iter_child_nodes(node))
    return count <= 1


def self_calls(fdef, name, captured, lifted_name):
    """A copy of the nested ``def`` ``fdef`` (named ``name``) with each call of itself made
    a call of ``lifted_name`` passing ``captured`` first; None when ``name`` is used in it
    otherwise than so."""
    if not isinstance(fdef, gast.FunctionDef):
        return None
    fdef = copy.deepcopy(fdef)
    calls, todo = [], list(fdef.body)
    parents = {}
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            if any(isinstance(n, gast.Name) and n.id == name for n in walk_nodes(node)):
                return None  # read in a function defined inside it
            continue
        for child in gast.iter_child_nodes(node):
            parents[child] = node
            todo.append(child)
        if isinstance(node, gast.Name) and node.id == name:
            call = parents.get(node)
            if not (isinstance(node.ctx, gast.Load) and isinstance(call, gast.Call) and
                    call.func is node):
                return None
            calls.append(call)
    for call in calls:
        call.func.id = lifted_name
        call.args = [gast.copy_location(gast.Name(id=c, ctx=gast.Load(), annotation=None,
                                                  type_comment=None), call)
                     for c in captured] + call.args
    return fdef
