"""Derivatives called inside differentiated code, to any order.

A call of a derivative srcad made (``srcad.grad(f)(x)``, ``srcad.jvp(f, ...)`` inside code)
runs generated code that is only known at run time, for the argument types met. Its
derivative is taken then:

* reverse mode: ``derivative_fwd(d_f, wrt, *args)`` runs the forward part of that code's
  split and returns ``(value, (split, kept))``; ``derivative_bwd(ctx, g)`` runs the backward
  part; forward mode: ``derivative_jvp(d_f, wrt, tangents, *args)`` runs its forward mode.

Those calls appear in generated code, which may be differentiated again (a third, fourth...
derivative). Each of these helpers has a **form**: ``H.__srcad_form__(*args)`` is a plain
Python function ``P`` (made here from a few lines of source, with the run-time values it needs
as constants) such that ``H(*args) == P(*args[k:])``, ``k = H.__srcad_statics__(args)`` being
the number of leading arguments that only choose the code (the derivative, ``wrt``). srcad
reads ``P`` like any function, so a call of ``H`` is differentiated as a call of ``P``:
``form_fwd(H, k, varied, *args)`` and ``derivative_bwd`` in reverse mode,
``form_jvp(H, k, varied, tangents, *args)`` in forward mode. ``form_fwd`` and ``form_jvp`` have
forms of their own, so the same two calls differentiate them again: every order works, each
made when it first runs.

The transformations reach the pipeline's callee cache through :data:`CALLEES` (set by
:mod:`srcad.pipeline`; this layer imports nothing above it).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import itertools
import linecache
import weakref

from ..core.kinds import COMPLEX, kind_of_value, with_dtypes
from ..errors import MutationError, SrcadError, UnsupportedSyntaxError, at_user
from .registry import helper

#: ``[Callees]``: the pipeline's callee cache (srcad.transform.calls.Callees), set on import
CALLEES = []
_counter = itertools.count()
_GLOBALS = {"__name__": "srcad_form", "__builtins__": builtins}


def made_function(name, params, lines, constants):
    """A function ``name(params)`` whose body is ``lines``, reading ``constants`` (bound
    through closure cells), with its source in ``linecache`` so srcad can read it."""
    text = f"def {name}({', '.join(params)}):\n" + "".join(f"    {ln}\n" for ln in lines)
    filename = f"<srcad {name} #{next(_counter)}>"
    shown = f"# made by srcad: {name}\n" + text  # line 1 is the factory below
    linecache.cache[filename] = (len(shown), None, shown.splitlines(True), filename)
    names = sorted(constants)
    factory = "def __srcad_factory__({}):\n{}    return {}\n".format(
        ", ".join(names), "".join(f"    {ln}\n" for ln in text.splitlines()), name)
    namespace = {}
    exec(compile(factory, filename, "exec"), dict(_GLOBALS), namespace)  # noqa: S102
    fn = namespace["__srcad_factory__"](*[constants[n] for n in names])
    fn.__srcad_source__ = text
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    return fn


def _fwd_form(split, n):
    """``P(a0, ..)``: the forward part of ``split`` run, its context kept with the split."""
    forms = split.__dict__.setdefault("forms", {})
    fn = forms.get(n)
    if fn is None:
        params = [f"a{i}" for i in range(n)]
        fn = forms[n] = made_function("run_fwd", params, [
            f"value, kept = fwd({', '.join(params)})",
            "return value, (split, kept)"], {"fwd": split.fwd.cell_contents, "split": split})
    return fn


def _bwd_form(ctx):
    """``P(ctx, g)``: the backward part of the split that made ``ctx`` (its first item)."""
    bwd = ctx[0].bwd.cell_contents
    forms = ctx[0].__dict__.setdefault("forms", {})
    fn = forms.get("bwd")
    if fn is None:
        fn = forms["bwd"] = made_function("run_bwd", ["ctx", "g"], ["return bwd(ctx[1], g)"],
                                  {"bwd": bwd})
    return fn


def _jvp_form(jvp, n, m):
    """``P(t, a0, ..)``: the forward-mode function ``jvp(a0, .., t[0], ..)`` with the
    tangents as one tuple first (as the calls of :func:`derivative_jvp` pass them)."""
    forms = jvp.__dict__.setdefault("__srcad_forms__", {})
    fn = forms.get((n, m))
    if fn is None:
        params = [f"a{i}" for i in range(n)]
        fn = forms[(n, m)] = made_function("run_jvp", ["t"] + params, [
            f"return jvp({', '.join(params + [f't[{i}]' for i in range(m)])})"],
            {"jvp": jvp})
    return fn


def _names(code, positions):
    params = list(inspect.signature(code).parameters)
    return [params[i] for i in positions]


def _no_keywords(kwargs):
    if kwargs:
        raise SrcadError("a derivative called with keyword arguments inside code "
                         "differentiated again", hint="pass its arguments positionally")


# ---------------------------------------------------------------- second order


@helper("runtime")
def derivative_fwd(fn, wrt, *args, **kwargs):
    """``fn(*args, **kwargs)`` for ``fn`` a derivative srcad made (``grad``,
    ``value_and_grad``, ``srcad.jvp`` in code), and what the backward part needs: the split
    of the code ``fn`` runs for arguments of these types, differentiated with respect to its
    parameters ``wrt`` (``fn.__srcad__.split_call`` makes it)."""
    entry = fn.__srcad__.split_call(wrt, args, kwargs)
    value, ctx = entry.fwd.cell_contents(*args, **kwargs)
    return value, (entry, ctx)


@helper("runtime")
def derivative_bwd(ctx, g):
    """The gradients for the varied arguments of :func:`derivative_fwd` or :func:`form_fwd`
    (``ctx``: the split and what its forward part kept)."""
    entry, inner = ctx
    return entry.bwd.cell_contents(inner, g)


@helper("runtime")
def derivative_jvp(fn, wrt, tangents, *args, **kwargs):
    """``(fn(*args, **kwargs), its tangent)`` for ``fn`` a derivative srcad made, along
    ``tangents`` (one per parameter in ``wrt``): the forward mode of the code ``fn`` runs for
    arguments of these types (see ``srcad.specialise.Transformed.tangent_call``)."""
    return fn.__srcad__.tangent_call(wrt, args, kwargs, tangents)


def _derivative_fwd_form(fn, wrt, *args):
    return _fwd_form(fn.__srcad__.split_call(wrt, args, {}), len(args))


def _derivative_jvp_form(fn, wrt, tangents, *args):
    return _jvp_form(fn.__srcad__.tangent_code(wrt, args), len(args), len(tangents))


# ---------------------------------------------------------------- any order


@helper("runtime")
def form_fwd(fn, k, varied, *args):
    """A call ``fn(*args)`` of one of these helpers, differentiated (in reverse mode) with
    respect to its arguments ``args[k:]`` at the positions ``varied``: its form split, the
    forward part run; ``(value, (split, kept))`` (:func:`derivative_bwd` takes it back)."""
    split, dyn = _split_of(fn, k, varied, args)
    value, kept = split.fwd.cell_contents(*dyn)
    return value, (split, kept)


@helper("runtime")
def form_jvp(fn, k, varied, *rest):
    """A call ``fn(*args)`` of one of these helpers in forward mode, ``rest`` being its
    arguments with the tangents put after the ``k`` fixed ones: ``(value, tangent)`` along
    those tangents of its arguments ``args[k:]`` at the positions ``varied``."""
    args, tangents = rest[:k] + rest[k + 1:], rest[k]
    code = fn.__srcad_form__(*args)
    return CALLEES[0].tangent_call(code, _names(code, varied), args[k:], {}, tangents)


def _split_of(fn, k, varied, args):
    code = fn.__srcad_form__(*args)
    dyn = args[k:]
    try:
        return CALLEES[0].split_call(code, _names(code, varied), dyn, {}), dyn
    except SrcadError as exc:  # in srcad's code: named at the user's function it was made of
        if getattr(fn, "__srcad_star_call__", False):
            raise _at_call(exc, args[0]) from None
        made = getattr(args[0], "__srcad__", None) if args else None
        user = getattr(made, "_user", None)  # derivative_fwd(d_f, ...); derivative_bwd(ctx)
        if user is None and args and isinstance(args[0], tuple) and args[0]:
            user = getattr(args[0][0], "srcad_user", None)  # (specialise's split_call)
        raise at_user(exc, user) from None


def _at_call(exc, where):
    """``exc``, raised reading the form of ``f(*xs)`` (``<srcad star_call ...>``), named at
    the user's call ``where`` (file, line, text), the form's place kept in the message
    (corpus31: it named srcad's code alone)."""
    if not (exc.filename or "").startswith("<srcad star_call") or not (
            isinstance(where, tuple) and len(where) == 3):
        return exc
    filename, lineno, text = where
    return type(exc)(f"{exc.message} (in f(*xs) made for the arguments met when the call "
                     f"ran, {exc.filename}, line {exc.lineno})", filename=filename,
                     lineno=lineno, construct=text, hint=exc.hint)


def _form_fwd_form(fn, k, varied, *args):
    split, dyn = _split_of(fn, k, varied, args)
    return _fwd_form(split, len(dyn))


def _form_jvp_form(fn, k, varied, *rest):
    args, tangents = rest[:k] + rest[k + 1:], rest[k]
    code = fn.__srcad_form__(*args)
    jvp = CALLEES[0].tangent_code(code, _names(code, varied), args[k:])
    return _jvp_form(jvp, len(args) - k, len(tangents))


# ---------------------------------------------------------------- functions known at run time


@helper("runtime")
def call_value(where, fn, *args):
    """``fn(*args)`` for a function srcad could not know when it made the code (read from a
    tuple or list a helper returned, say: ``_, unflatten = flatten(p); unflatten(v)``),
    called as it is. Its derivative is its form's, ``P(a0, ..) = fn(a0, ..)`` with ``fn``
    a constant, which srcad reads (differentiating ``fn``, or refusing it, as any function
    it calls) when the call first runs, for the arguments' kinds then. The function itself
    must not be made from differentiated values: the soundness check refuses that; nor
    change what it is given or a global (:func:`_check_effects`), which the code calling it
    was not made to follow."""
    _check_effects(_call_value_form(where, fn, *args), args, where)
    return fn(*args)


def _check_effects(form, args, where):
    """Raise unless srcad can read that ``form`` (a call of the function met) changes no
    object its caller can see, for arguments like ``args`` (``where``: the call's file,
    line and text)."""
    made = form.__closure__[0].cell_contents
    while isinstance(made, functools.partial):
        made = made.func
    code = getattr(made, "__code__", None)
    if code is not None and code.co_filename.startswith("<srcad: "):
        filename, lineno, text = where  # a lambda or def of the user's, as srcad lowered it
        raise UnsupportedSyntaxError(
            f"a call of {_called(form)}, a function srcad made of a lambda or def of yours (put "
            "into a container the function changes), met only when the code ran: srcad calls "
            "such a function only where it knows it", filename=filename, lineno=lineno,
            construct=text, hint="call the lambda where it is made, or hold the functions in "
                                 "a tuple or list display written in the function")
    values = dict(zip(inspect.signature(form).parameters, args))
    kinds = with_dtypes({p: kind_of_value(v) for p, v in values.items()}, values)
    if COMPLEX not in kinds and CALLEES[0].result_complex(form, kinds):  # the caller's
        # code takes the result real when no argument is complex (analysis.complexity)
        filename, lineno, text = where
        raise UnsupportedSyntaxError(
            f"a call of {_called(form)}, a function srcad met only when the code ran (read "
            "from a container it could not know), which may return a complex number for real "
            "arguments, or whose code srcad cannot read", filename=filename, lineno=lineno,
            construct=text, hint="call the function by its name")
    if not CALLEES[0].writes_nothing(form, kinds):
        filename, lineno, text = where
        raise MutationError(f"a call of {_called(form)}, a function srcad met only when the "
                            "code ran (read from a container it could not know), which may "
                            "change what it is given or a global, or whose code srcad cannot "
                            "read",
                            filename=filename, lineno=lineno, construct=text,
                            hint="return new values instead of changing the arguments; or "
                            "call the function by its name")


#: fn -> {number of arguments: its form}
_VALUE_FORMS = weakref.WeakKeyDictionary()


def _call_value_form(where, fn, *args):
    n = len(args)
    try:
        forms = _VALUE_FORMS.setdefault(fn, {})
    except TypeError:  # not weakly referenceable (a bound method is made anew each time)
        forms = {}
    form = forms.get(n)
    if form is None:
        params = [f"a{i}" for i in range(n)]
        form = forms[n] = made_function("call_value", params,
                                        [f"return fn({', '.join(params)})"], {"fn": fn})
    return form


def _called(form):
    """The name of the function a form of :func:`call_value` calls."""
    fn = form.__closure__[0].cell_contents
    fn = getattr(fn, "func", fn)
    return getattr(fn, "__qualname__", "the function")


def _call_value_checked(where, fn, *args):
    """:func:`call_value`'s form, after the check that the function changes nothing."""
    form = _call_value_form(where, fn, *args)
    _check_effects(form, args, where)
    return form


def _atom_value(atom):
    value = getattr(atom, "value", atom)  # an IR constant (when generating code), or a value
    if type(value) is not int:
        raise SrcadError("a derivative's helper called with a computed number of fixed "
                         "arguments", hint="this is srcad's own code: please report it")
    return value


derivative_fwd.__srcad_form__ = _derivative_fwd_form
derivative_fwd.__srcad_statics__ = lambda args: 2
derivative_bwd.__srcad_form__ = lambda ctx, g: _bwd_form(ctx)
derivative_bwd.__srcad_statics__ = lambda args: 0
derivative_jvp.__srcad_form__ = _derivative_jvp_form
derivative_jvp.__srcad_statics__ = lambda args: 2
form_fwd.__srcad_form__ = _form_fwd_form
form_fwd.__srcad_statics__ = lambda args: 3 + _atom_value(args[1])
form_jvp.__srcad_form__ = _form_jvp_form
form_jvp.__srcad_statics__ = lambda args: 3 + _atom_value(args[1])
call_value.__srcad_form__ = _call_value_checked
call_value.__srcad_statics__ = lambda args: 2
for _made_call in (derivative_fwd, derivative_bwd, derivative_jvp, form_fwd, form_jvp,
                   call_value):
    _made_call.__srcad_derivative_call__ = True
del _made_call
