"""Functions passed to a function the Numba backend compiles.

A function given as an argument (``miss(w, force)`` called with ``force = srcad.grad(
potential)`` or a plain function) is part of the specialisation's key: the code calls it as
named, its own compiled parts bound in (``srcad.analysis.derivative_calls``, user callees), so
the generated code never reads the parameter. Numba cannot take a Python function as an
argument: :class:`Passed` takes such parameters out of the code compiled, and :func:`taking_all`
gives the compiled code back the signature the derivative is called with.

A global number the function reads (``DELTA_T``) is a parameter of the compiled code too
(:func:`srcad.backend.numba_backend.check`'s ``live``), given its value at every call.

Imports ``ast``, :mod:`.numba_backend`, :mod:`.numba_scalars` (small arrays held as
numbers, tried first), ``srcad.errors``,
``srcad.frontend.lower_callees``.
"""

from __future__ import annotations

import ast

from ..errors import SrcadError
from ..frontend.lower_callees import fixed_function
from . import numba_backend, numba_scalars


class Passed:
    """What the compiled code takes besides the derivative's own arguments, worked out on
    the tree ``fdef`` (after :func:`numba_backend.check`, which filled ``live``: the global
    numbers it reads, name -> value now, appended to its parameters; None for a callee's
    part): the parameters given a function (``values``: name -> example value or the
    function passed), which the code never reads, are taken out of ``fdef``; ``user_func``:
    the function differentiated, whose globals the live numbers are."""

    def __init__(self, fdef, values, live, user_func):
        self.live, self.user_func = live or {}, user_func
        args = fdef.args
        self.params = [a.arg for a in args.args if a.arg not in self.live]
        self.values = {p: v for p, v in values.items() if p in self.params}
        read = {n.id for n in ast.walk(fdef) if n.__class__ is ast.Name
                and n.ctx.__class__ is ast.Load}
        simple = not (args.defaults or args.kw_defaults or args.kwonlyargs or args.vararg
                      or args.kwarg)
        self.dropped = [p for p in self.params if simple and live is not None and p in values
                        and fixed_function(values[p]) and p not in read]
        args.args = [a for a in args.args if a.arg not in self.dropped]

    def jit(self, compiled, where, example, **options):
        """:func:`numba_backend.jit` of ``compiled`` (``example``: whether to compile it now,
        for the example values' types and the live numbers'), called with every parameter
        of the derivative: those dropped left out, the live numbers read at each call."""
        example = [v for p, v in self.values.items() if p not in self.dropped] + list(
            self.live.values()) if example else None
        jitted = _scalars_jitted(compiled, where, example, options)
        if jitted is None:
            jitted = numba_backend.jit(compiled, where, example, **options)
        if not (self.dropped or self.live):
            return jitted
        return taking_all(jitted, self.params, self.dropped, self.live, self.user_func)


def _scalars_jitted(compiled, where, example, options):
    """``compiled`` with its small arrays held as numbers (:mod:`.numba_scalars`), or None
    where it holds none. With ``example`` numbers only, compiled now (a guard's typing error:
    None, the code as it was compiled instead); otherwise a function calling it that calls the
    code as it was for argument types Numba cannot type it for (``__srcad_numba_plain__``:
    that code's dispatcher, for :mod:`srcad.numba_forms`)."""
    if options.get("callee"):
        return None
    made = numba_scalars.replace(compiled)
    if made is None:
        return None
    try:
        scalar = numba_backend.jit(made, where, example, **options)
    except SrcadError:
        return None
    if not hasattr(scalar, "__srcad_numba__"):  # numbers only: compiled, for these types
        return scalar
    plain = numba_backend.jit(compiled, where, None, **options)
    failed = set()

    def numba_adjoint(*args):
        key = tuple(type(a) for a in args)
        if key not in failed:
            try:
                return scalar(*args)
            except SrcadError:  # (a typing error only: Numba raises the code's own errors)
                failed.add(key)
        return plain(*args)

    numba_adjoint.__name__ = compiled.__name__
    numba_adjoint.__srcad_source__ = made.__srcad_source__
    numba_adjoint.__srcad_numba__ = scalar.__srcad_numba__
    numba_adjoint.__srcad_numba_plain__ = plain.__srcad_numba__
    numba_adjoint.py_func = compiled
    return numba_adjoint


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
    # for srcad.numba_forms: what the compiled code is called with, and the live numbers now
    fn.__srcad_taking__ = (compiled, params, dropped, lambda: [
        cells[n].cell_contents if n in cells else user_func.__globals__[n] for n in live])
    return fn
