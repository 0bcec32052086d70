"""``f(*xs)`` of a length srcad cannot know when it makes the code, differentiated when it runs.

A call ``objective(*optim_vars, *args)`` whose starred arguments have lengths no rule of
lowering can tell (a list the user differentiates, a tuple a helper returns) into a callee
that does not fix them (a ``*args`` function) is written :func:`star_call`, which calls the
function as Python does. Where no gradient flows through it, that is all. Where one does, the
call is differentiated like a call of a derivative srcad made in code
(:mod:`.derivatives`): :func:`star_call` has a *form*, a plain function made when the call
first runs, for the number of items and the keyword names met then,

    def star_call(args, kwargs):
        return fn(args[0], args[1], args[2], scale=kwargs['scale'])

with ``fn`` a constant (the arguments written before the first starred one are parameters
``lead_0, ...`` of their own, an object of the user's among them fixed to its class and
parts: corpus31), which srcad reads (differentiating ``fn``, its callees, and the
items read from ``args``) as any function: ``form_fwd``/``derivative_bwd`` in reverse mode,
``form_jvp`` in forward mode, to any order. So the gradient flows through each item whatever
the length, and the code made is made once per length and keys.

Sound under the checks :func:`call_value <.derivatives.call_value>` makes of a function met
only at run time, made when the call runs (a function of the user's) or before the form is
differentiated: the function must not be one
srcad made of the user's lambda or def (its late binding), nor change what it is given or a
global, nor return a complex number for real arguments (the caller's code takes the result
as the analysis saw it); a function made from differentiated values is refused where the
code is made (``srcad.analysis.soundness``). A starred value that is not a list, tuple or
array of at least one dimension (an iterator, a generator) is refused when the call runs.

Imports :mod:`.derivatives` and :mod:`.registry` (and ``srcad.errors``, ``srcad.core``).
"""

from __future__ import annotations

import functools
import types
import weakref

import numpy as np

from ..core.functions import is_user_function, specialised
from ..core.kinds import COMPLEX, kind_of_value, with_dtypes
from ..errors import MutationError, UnsupportedSyntaxError
from .derivatives import CALLEES, made_function
from .registry import helper


@helper("runtime")
def star_call(where, fn, args, kwargs, *lead):
    """``fn(*lead, *args, **kwargs)``: how generated code calls a function with a starred
    argument whose length srcad cannot know (``where``: the call's file, line and text;
    ``lead``: the arguments written before the first starred one, each an operand of its
    own, so each is differentiated or not as the caller's analysis says). A function
    of the user's is checked as the form's is (it changes nothing it is given, returns no
    complex number for real arguments), whether or not a gradient flows: the analyses of
    the calling code took it so (``srcad.analysis.effects``)."""
    if is_user_function(fn) or user_partial(fn):
        if not isinstance(args, (list, tuple, np.ndarray)):
            args = tuple(args)  # an iterator: taken once, as the call would take it
        _star_form(where, fn, args, kwargs, *lead)
    return fn(*lead, *args, **kwargs)


def user_partial(fn):
    """Whether ``fn`` is a ``functools.partial`` of a function of the user's (outside27: its
    form calls that function, the values held constants, so it is checked and read too)."""
    return isinstance(fn, functools.partial) and is_user_function(fn.func)


def _constant_function(a):
    """Whether ``a`` is a function that can hold no differentiated value: a builtin or ufunc,
    a ``def`` of the user's holding no cells, or a partial of such holding only such
    functions and plain constants (a partial srcad's code makes may hold one: not fixed)."""
    if isinstance(a, functools.partial):
        return _constant_function(a.func) and all(
            v is None or type(v) in (int, bool, str) or _constant_function(v)
            for v in list(a.args) + list(a.keywords.values()))
    if isinstance(a, (types.BuiltinFunctionType, np.ufunc)):
        return True
    return isinstance(a, types.FunctionType) and not a.__closure__ and not (
        a.__code__.co_filename.startswith("<srcad"))


def _function_list(a):
    """Whether ``a`` is a list of such functions and ``None``, at least one a function."""
    return type(a) is list and 0 < len(a) <= 64 and all(
        v is None or _constant_function(v) for v in a) and any(v is not None for v in a)


#: fn -> {(number of items, keyword names): its form}
_FORMS = weakref.WeakKeyDictionary()
#: functions srcad made of the user's code whose held values lowering passes as the call's
#: first arguments, as it does for a call of them with arguments it can count (a function a
#: helper makes, lifted by closure conversion: ``h = make(g); h(x, *params)``; outside27):
#: no late binding left to miss, so the check below lets them through
LIFTED = weakref.WeakSet()
#: ``[known_object]``: what a specialisation knows of an argument that is an object of the
#: user's (its class, the functions and objects it holds:
#: ``srcad.frontend.held_objects.known_object``), set by that module on import (this layer
#: imports nothing above it)
KNOWN_OBJECTS = []


def _star_form(where, fn, args, kwargs, *lead):
    """``star_call``'s form for these arguments (module docstring), after the checks: its
    parameters ``args, kwargs, lead_0, ...``."""
    if not (isinstance(args, (list, tuple)) or (
            isinstance(args, np.ndarray) and args.ndim)) or type(kwargs) is not dict:
        filename, lineno, text = where
        raise UnsupportedSyntaxError(
            f"a gradient through a call whose starred argument is a {type(args).__name__}: "
            "srcad differentiates f(*xs) of a list, tuple or array, item by item",
            filename=filename, lineno=lineno, construct=text,
            hint="spread a list: f(*list(xs))")
    # (outside27) an item that is a function is a constant of the form, which srcad reads
    # as a call passing that function by name: the callee is specialised on it
    # (closures29) so is a list of such functions and None (``[np.tanh, None]``): the form
    # reads it by name, the callee made for its length (srcad.frontend.fixed_lengths)
    fixed = {i: a for i, a in enumerate(args) if _constant_function(a) or _function_list(a)} \
        if isinstance(args, (list, tuple)) else {}
    heads = {j: a for j, a in enumerate(lead) if _constant_function(a) or _function_list(a)}
    # (corpus31) an object of the user's written before the starred argument
    # (``dist._neg_ll(data, *params)``): the form is made for its class and the parts it
    # holds, as a function given it as an argument is (the key holds them), so the callee
    # reads ``data.x`` of a class it knows; differentiated or not as the caller says
    objects = {j: o for j, a in enumerate(lead) if j not in heads and (
        o := _known_object(a)) is not None}
    key = (len(args), tuple(kwargs), tuple((i, id(a)) for i, a in fixed.items()), len(lead),
           tuple((j, id(a)) for j, a in heads.items()), tuple(objects.items()))
    try:
        forms = _FORMS.setdefault(fn, {})
    except TypeError:  # not weakly referenceable (a bound method is made anew each time)
        forms = {}
    form = forms.get(key)
    if form is None:
        target, held, held_kw = (fn.func, fn.args, fn.keywords) if user_partial(fn) else (
            fn, (), {})
        passed = [f"held_{i}" for i in range(len(held))]
        passed += [f"head_{j}" if j in heads else f"lead_{j}" for j in range(len(lead))]
        passed += [f"fixed_{i}" if i in fixed else f"args[{i}]" for i in range(len(args))]
        passed += [f"{k}=kwargs[{k!r}]" for k in kwargs]
        passed += [f"{k}=held_{k}" for k in held_kw if k not in kwargs]
        form = made_function(
            "star_call", ["args", "kwargs"] + [f"lead_{j}" for j in range(len(lead))],
            [f"return fn({', '.join(passed)})"],
            {"fn": target, **{f"fixed_{i}": a for i, a in fixed.items()},
             **{f"head_{j}": a for j, a in heads.items()},
             **{f"held_{i}": a for i, a in enumerate(held)},
             **{f"held_{k}": a for k, a in held_kw.items()}})  # (held: ids stay)
        form = forms[key] = specialised(form, [(f"lead_{j}", o) for j, o in objects.items()])
    _check(form, fn, args, kwargs, lead, where)
    return form


def _known_object(a):
    """What a specialisation knows of ``a`` given as an argument when it is an object of the
    user's (or a list of them, all alike), else None."""
    return KNOWN_OBJECTS[0](a) if KNOWN_OBJECTS else None


def _check(form, fn, args, kwargs, lead, where):
    """Raise unless srcad can read that ``fn`` called so changes nothing its caller sees and
    returns no complex number for real arguments (what the calling code was made for)."""
    filename, lineno, text = where
    name = getattr(fn, "__qualname__", None) or (f"partial({fn.func.__qualname__}, ...)" if (
        user_partial(fn)) else type(fn).__name__)
    code = getattr(fn, "__code__", None)
    if code is not None and code.co_filename.startswith("<srcad: ") and fn not in LIFTED:
        name = name[:-len("_local")] if name.endswith("_local") else name  # (lifted: h_local)
        raise UnsupportedSyntaxError(
            f"f(*xs) of {name}, a function srcad made of a lambda or def of yours and met only "
            "when the code ran (a def bound twice, a lambda held in a name or a container)",
            filename=filename, lineno=lineno, construct=text,
            hint=f"pass the arguments one by one ({name}(xs[0], xs[1])), or define {name} "
                 "once with def and call it by its name")
    values = {"args": args, "kwargs": kwargs, **{f"lead_{j}": a for j, a in enumerate(lead)}}
    kinds = with_dtypes({p: kind_of_value(v) for p, v in values.items()}, values)
    if COMPLEX not in kinds and CALLEES[0].result_complex(form, kinds):
        raise UnsupportedSyntaxError(
            f"f(*xs) of {name} with {len(args)} items, a length srcad knows only when the "
            "code runs: it may return a complex number for real arguments, or srcad cannot "
            "read it", filename=filename, lineno=lineno, construct=text,
            hint="pass the arguments one by one, or unpack a tuple built in the function "
                 "(args = (a, b); f(*args))")
    if not CALLEES[0].writes_nothing(form, kinds):
        raise MutationError(
            f"f(*xs) of {name} with {len(args)} items, a length srcad knows only when the "
            "code runs: it may change what it is given or a global, or srcad cannot read it",
            filename=filename, lineno=lineno, construct=text,
            hint="return new values instead of changing the arguments; or pass the "
                 "arguments one by one")


star_call.__srcad_form__ = _star_form
star_call.__srcad_statics__ = lambda args: 2  # where, fn
star_call.__srcad_derivative_call__ = True
star_call.__srcad_star_call__ = True
