"""Functions passed to a function the Numba backend compiles.

A function given as an argument (``miss(w, force)`` called with ``force = srcad.grad(
potential)`` or a plain function) is part of the specialisation's key: the code calls it as
named, its own compiled parts bound in (``srcad.analysis.derivative_calls``, user callees), so
the generated code never reads the parameter. Numba cannot take a Python function as an
argument: :func:`drop` takes such parameters out of the code compiled, and :func:`taking_all`
gives the compiled code back the signature the derivative is called with.

A global number the function reads (``DELTA_T``) is a parameter of the compiled code too
(:func:`srcad.backend.numba_backend.check`'s ``live``), given its value at every call.

Imports ``ast``, ``numpy``.
"""

from __future__ import annotations

import ast

import numpy as np


def drop(fdef, arg_values, is_function):
    """In place: the parameters of ``fdef`` whose example value ``is_function`` says is a
    function and which the code does not read, taken out. Their names, in order (empty: none
    taken out, ``fdef`` unchanged)."""
    read = {n.id for n in ast.walk(fdef) if n.__class__ is ast.Name
            and n.ctx.__class__ is ast.Load}
    args = fdef.args
    if args.defaults or args.kw_defaults or args.kwonlyargs or args.vararg or args.kwarg:
        return []
    dropped = [a.arg for a in args.args if a.arg in arg_values
               and is_function(arg_values[a.arg]) and a.arg not in read]
    args.args = [a for a in args.args if a.arg not in dropped]
    return dropped


def is_number(value):
    """A number a global name holds, passed to the compiled code when it runs."""
    return type(value) in (int, float, bool) or isinstance(value, (np.integer, np.floating,
                                                                     np.bool_))


def taking_all(compiled, params, dropped, live, user_func):
    """A function of ``params`` calling ``compiled`` with those not in ``dropped``, then the
    current values of the global numbers ``live`` (names: the user's globals or closure
    cells, read at every call, as Python reads them)."""
    kept = [p for p in params if p not in dropped]
    cells = dict(zip(user_func.__code__.co_freevars, user_func.__closure__ or ()))
    reads = [f"cells[{n!r}].cell_contents" if n in cells else f"space[{n!r}]" for n in live]
    name = compiled.__name__
    text = (f"def {name}({', '.join(params)}):\n"
            f"    return compiled({', '.join(kept + reads)})\n")
    namespace = {}
    exec(compile(text, f"<srcad numba {name}>", "exec"),  # noqa: S102
         {"compiled": compiled, "cells": cells, "space": user_func.__globals__}, namespace)
    fn = namespace[name]
    fn.__srcad_source__ = compiled.__srcad_source__
    fn.py_func = getattr(compiled, "py_func", compiled)
    return fn
