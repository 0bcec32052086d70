"""Python's cyclic garbage collector paused while a gradient whose loops save containers runs.

A gradient's forward sweep keeps, for each iteration of a loop, what its backward sweep reads:
tuples of arrays, and around a call of a user function the callee's context (a tuple holding
lists). Each of these is a container the collector tracks, and it survives until the backward
sweep pops it, so a long loop fills the collector's younger generations with objects that are
all alive: every 700 allocations a young collection walks them, every ten of those a middle one
walks them again, and a full collection walks the whole program's heap (on GradBench's
``lstm``, 1023 steps: 16 young and 1–2 middle collections a gradient, 4 % of its time). None of
them can free anything the gradient made: until it returns, everything it saved is reachable.

Such a function (srcad's Python backend, code made for running rather than for being
differentiated again) is written as::

    gc_on = gc.isenabled()
    gc.disable()
    try:
        ...                     # the function's own body
    finally:
        if gc_on:
            gc.enable()

What changes: values and gradients, nothing (the collector only frees unreachable cycles;
objects freed by their reference counts are freed as before). Garbage in reference cycles that
the call itself makes (none in srcad's own code) waits for the first collection after the call.
The collector is switched on again only if it was on when the call began, so a nested gradient,
or a program that runs with it off, leaves it as it was; a second thread running while the call
does is not collected either until the call returns (the switch is the process's).

Only functions with a ``for`` or ``while`` loop calling a function srcad made (a user
function's forward part, whose context is a tuple holding the callee's own stacks and lists,
which stay tracked): a tuple holding only numbers and arrays, as a loop's own saves are, is
untracked by the first young collection that sees it, and code without loops makes a handful
of containers. (Scalar code keeps its text, and the dispatcher may still compile it into
itself: :mod:`srcad.backend.dispatch`.)

Imports nothing of srcad (:mod:`ast`, :mod:`gc`, :mod:`types`).
"""

from __future__ import annotations

import ast
import gc
import types


def _calls_part(loop, parts):
    return any(node.__class__ is ast.Call and node.func.__class__ is ast.Name
               and node.func.id in parts for node in ast.walk(loop))


def needed(fdef, parts):
    """Whether the function definition ``fdef`` has a loop calling one of ``parts`` (the
    names of callees' parts and other functions srcad made, which return contexts)."""
    return any(node.__class__ in (ast.For, ast.While) and _calls_part(node, parts)
               for node in ast.walk(fdef))


def wrap(fdef, cells, namer, parts):
    """``fdef`` with its body run while the collector is paused (see the module's text), if
    it is :func:`needed`; ``cells`` (name -> cell, the compiled function's free names) gains
    the ``gc`` module under a name new in ``fdef`` (``namer.fresh``)."""
    if not needed(fdef, parts):
        return fdef
    gc_name = namer.fresh("gc")
    on = namer.fresh("gc_on")
    cells[gc_name] = types.CellType(gc)

    def call(attr):
        return ast.Call(func=ast.Attribute(value=ast.Name(gc_name, ast.Load()), attr=attr,
                                           ctx=ast.Load()), args=[], keywords=[])

    resume = ast.If(test=ast.Name(on, ast.Load()), body=[ast.Expr(call("enable"))], orelse=[])
    guarded = ast.Try(body=fdef.body, handlers=[], orelse=[], finalbody=[resume])
    fdef.body = [ast.Assign(targets=[ast.Name(on, ast.Store())], value=call("isenabled"),
                            lineno=0), ast.Expr(call("disable")), guarded]
    return fdef
