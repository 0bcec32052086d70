"""srcad's derivatives called from the user's own ``@numba.njit`` code.

:func:`numba_function` gives the compiled form of a derivative made by :func:`srcad.grad` or
:func:`srcad.value_and_grad` with ``backend="numba"``, for arguments of the kinds of example
arguments; :func:`numba_jvp` the compiled form of :func:`srcad.jvp`'s forward mode. Each is a
function that ``@numba.njit`` code calls as a global or a closure variable (an overload Numba
types at each call site) and Python calls too, running the same compiled code as the derivative
itself does for those kinds (the code srcad made once, never another transformation).

What a form holds fixed, as Numba's own compiled code does: the specialisation (argument types,
array ranks and dtypes, which arrays share a shape: checked when it runs, a ``ValueError``
otherwise), the functions passed as arguments (taken out of its parameters: the form takes the
others, in order), and the global numbers the function reads (their values when the form is
made; the derivative called from Python reads them at every call). A call with other types is
refused where Numba types it (a ``TypingError`` naming the argument), never converted: an
``int`` is taken for a ``float`` parameter differentiated (``wrt``) only, as ``srcad.grad``
takes it.

Imports ``srcad.api`` (the derivative's specialisation), ``srcad.specialise``,
``srcad.fast_calls`` (check_companion), ``srcad.backend.keys`` (MAX_COMPARED),
``srcad.backend.numba_backend`` (require), ``srcad.frontend.lower_callees`` (fixed_function),
``srcad.errors``; ``numba`` when a form is made.
"""

from __future__ import annotations

import inspect

import numpy as np

from . import api
from .backend import numba_backend
from .backend.keys import MAX_COMPARED
from .errors import SrcadError
from .fast_calls import check_companion
from .frontend.lower_callees import fixed_function
from .specialise import is_transformed, transformed_of

__all__ = ["numba_function", "numba_jvp"]

_HINT = ("make the derivative with backend='numba' (srcad.grad(f, backend='numba')), and give "
         "example arguments of the types the @numba.njit code passes: floats, ints, bools and "
         "NumPy arrays of float64 (int64, bool where not differentiated), functions")


def numba_function(df, *example_args):
    """The compiled form of ``df`` (``srcad.grad`` or ``srcad.value_and_grad`` of a function,
    made with ``backend="numba"``) for arguments of the types of ``example_args`` (one per
    parameter, in order): a function that ``@numba.njit`` code calls (and Python too),
    returning what ``df`` returns for such arguments.

    Functions among the example arguments are fixed: the form takes the other arguments, in
    order (``numba_function(grad(miss), 0.0, force)(w)``). Global numbers the function reads are
    taken as they are now. See docs/api.md, "Calling derivatives from Numba code".

    A plain function ``df`` (not a derivative) gives its own compiled form: srcad's code for
    it, compiled by this backend as a derivative's is (:func:`_primal`)."""
    numba_backend.require()
    t = transformed_of(df) if is_transformed(df) else None
    if t is None and inspect.isfunction(df):  # a plain function: its own compiled form
        return _primal(df, example_args)
    if t is None or t._backend != "numba" or t._mode not in ("grad", "value_and_grad") or (
            is_transformed(t._f)):
        raise SrcadError("srcad.numba_function takes a derivative made by srcad.grad or "
                         f"srcad.value_and_grad with backend='numba', got {df!r}", hint=_HINT)
    params = _positional(t._user, example_args, "srcad.numba_function")
    _check_examples(t._user, params, example_args, t._wrt)
    bound = t._bind(example_args, {})
    fn = t._specialise(bound)
    values = list(bound.arguments.values())  # (an int given for a wrt parameter: a float)
    where = f"{t._mode} of {t._user.__qualname__}"
    return _form(fn, params, values, set(t._wrt), where)


def numba_jvp(f, primals, tangents, wrt=None):
    """The compiled form of ``srcad.jvp(f, primals, tangents, wrt=wrt, backend="numba")`` for
    arguments of these types: a function of the primals (functions among them fixed, as in
    :func:`numba_function`) and then the tangents, one per ``wrt`` argument, returning
    ``(value, tangent)``; a tangent shaped unlike its primal raises ``ValueError``."""
    numba_backend.require()
    api._numba_allowed(f, False, "numba")
    primals, tangents = tuple(primals), tuple(tangents)
    target, params, names = api._jvp_target(f, wrt, len(primals))
    user = transformed_of(target)._user if is_transformed(target) else target
    if is_transformed(target):
        raise SrcadError("srcad.numba_jvp takes a plain function (not a derivative made by "
                         "srcad)", hint=numba_backend.HINT)
    params = _positional(user, primals, "srcad.numba_jvp")
    if len(tangents) != len(names):
        raise SrcadError(f"srcad.numba_jvp got {len(tangents)} tangents for {len(names)} wrt "
                         "arguments", hint="give one tangent per argument in wrt")
    values = dict(zip(params, primals))
    for name, tangent in zip(names, tangents):
        check_companion(values[name], tangent, f"tangent for {name!r}")
    _check_examples(user, params, primals, names, tangents, names)
    fn, _ = api._jvp_function(target, names, primals, "numba")
    tangent_names = [f"srcad_tangent_{n}" for n in names]
    return _form(fn, params + tangent_names, list(primals) + list(tangents), set(),
                 f"jvp of {user.__qualname__}", dict(zip(tangent_names, names)))


def _primal(f, example_args):
    """The compiled form of the plain function ``f`` itself: srcad's forward code with no
    tangent (its value only), compiled as a derivative is (small arrays held as numbers,
    callees compiled with it), for arguments of the types of ``example_args``."""
    params = _positional(f, example_args, "srcad.numba_function")
    _check_examples(f, params, example_args, ())
    fn, _ = api._jvp_function(f, (), tuple(example_args), "numba")
    return _form(fn, params, list(example_args), set(), f"function {f.__qualname__}",
                 value_only=True)


def _positional(user, args, what):
    """The parameter names of ``user``, which ``args`` must give all of, positionally."""
    sig = inspect.signature(user)
    kinds = [p.kind for p in sig.parameters.values()]
    if any(k not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
           for k in kinds) or len(args) != len(kinds):
        raise SrcadError(f"{what} needs one example argument for each parameter of "
                         f"{user.__qualname__}{sig} (got {len(args)}), and a function without "
                         "*args, **kwargs or keyword-only parameters", hint=_HINT)
    return list(sig.parameters)


def _check_examples(user, params, args, wrt, tangents=(), names=()):
    """Refuse what the compiled form cannot take: anything but numbers, NumPy arrays of
    float64 (int64, bool when not differentiated) and functions (fixed)."""
    code = getattr(user, "__code__", None)
    pairs = list(zip(params, args)) + [(f"tangent for {n}", t) for n, t in zip(names, tangents)]
    for name, value in pairs:
        if fixed_function(value) and not name.startswith("tangent"):
            continue
        ok = type(value) in (float, int, bool, np.float64) or type(value) is np.ndarray and (
            value.dtype == np.float64 or value.dtype in (np.int64, np.bool_)
            and name not in wrt and not name.startswith("tangent")
        ) and value.dtype.isnative
        if not ok:
            raise SrcadError(f"the compiled form of {user.__qualname__} cannot take {name}="
                             f"{_described(value)}",
                             filename=code.co_filename if code else None,
                             lineno=code.co_firstlineno if code else None,
                             hint=_HINT + " (for anything else call the derivative from Python)")


def _described(value):
    if type(value) is np.ndarray:
        return f"an array of {value.dtype}"
    return f"a {type(value).__name__}"


def _unwrapped(fn):
    """``(Numba dispatcher, parameters it is called with, parameters dropped, a function giving
    the live global numbers now)`` of the code a specialisation runs."""
    fn = getattr(fn, "__srcad_unguarded__", fn)
    taking = getattr(fn, "__srcad_taking__", None)
    dropped, live = [], list
    if taking is not None:
        fn, _, dropped, live = taking
    dispatcher = getattr(fn, "__srcad_numba__", fn)
    if not hasattr(dispatcher, "overloads"):
        raise SrcadError(f"srcad made no compiled code to call for {fn!r}", hint=_HINT)
    return dispatcher, dropped, live


def _form(fn, params, values, wrt, where, tangent_of=None, value_only=False):
    """The form (see the module docstring) of the specialisation ``fn`` made for ``values`` of
    ``params``; ``wrt``: the parameters an int may be given for (as a float); ``tangent_of``:
    tangent parameter -> its primal (shapes checked)."""
    import numba
    from numba.core import types
    from numba.core.errors import TypingError
    from numba.extending import overload

    dispatcher, dropped, live = _unwrapped(fn)
    base = getattr(fn, "__srcad_unguarded__", fn)
    plain = getattr(getattr(base, "__srcad_taking__", (base,))[0], "__srcad_numba_plain__", None)
    kept = [p for p in params if p not in dropped]
    by_name = dict(zip(params, values))
    for p in kept:
        if fixed_function(by_name[p]):
            raise SrcadError(f"the compiled form of the {where} cannot take the function "
                             f"passed as {p!r} (its code reads the parameter otherwise than "
                             "calling it)", hint=_HINT)
    frozen = live()
    expected = [numba.typeof(by_name[p]) for p in kept]
    signature = tuple(expected) + tuple(numba.typeof(v) for v in frozen)
    try:
        if signature not in dispatcher.overloads:  # (numbers: compiled, and no more)
            try:
                dispatcher.compile(signature)
            except Exception:  # noqa: BLE001 - small arrays as numbers not typed: as it was
                if plain is None:
                    raise
                dispatcher = plain
                dispatcher.compile(signature)
        returns = dispatcher.overloads[signature].signature.return_type
    except Exception as exc:  # noqa: BLE001 - Numba's errors, as srcad's
        raise SrcadError(f"Numba could not compile the {where} for these types: "
                         f"{numba_backend._summary(exc)}", hint=numba_backend.HINT) from None
    passed = [f"float({p})" if p in wrt and expected[k] == types.float64 else p
              for k, p in enumerate(kept)]  # (an int for a wrt float: as srcad.grad takes it)
    call = f"inner({', '.join(passed + [f'live{k}' for k in range(len(frozen))])})"
    if value_only:  # (value, tangent) of forward code with no tangent: the value
        call, returns = f"{call}[0]", returns.types[0]

    def accepted(got):
        """None when arguments of the Numba types ``got`` may be passed, else why not."""
        for p, want, have in zip(kept, expected, map(types.unliteral, got)):
            if have == want:
                continue
            if isinstance(want, types.Array) and isinstance(have, types.Array) and (
                    have.dtype == want.dtype and have.ndim == want.ndim):
                continue  # another layout, or read-only: the same code
            if p in wrt and want == types.float64 and isinstance(have, types.Integer):
                continue  # an int differentiated as a float, as srcad.grad takes it
            return (f"{p} is {have}, the form was made for {want}: make one for these types "
                    "(srcad.numba_function or srcad.numba_jvp with such example arguments)")
        return None

    def typer(*got):
        why = accepted(got)
        if why is not None:
            raise TypingError(f"the compiled form of the {where}: {why}")
        return _named(kept, "return None", {})

    check_types = _named(kept, "raise NotImplementedError", {},  # typed by the overload
                         "check_types_of_" + "".join(c if c.isalnum() else "_" for c in where))
    overload(check_types)(_named(kept, "return typer{}", {"typer": typer}))
    space = {"inner": dispatcher, "ValueError": ValueError, "check_types": check_types}
    space.update({f"live{k}": v for k, v in enumerate(frozen)})
    lines = [f"    check_types({', '.join(kept)})"] + _checks(kept, by_name, where,
                                                            tangent_of or {})
    if _copies(returns):
        lines += [f"    r = {call}", f"    return {_writable('r', returns)}"]
    else:
        lines.append(f"    return {call}")
    name = "compiled_" + "".join(c if c.isalnum() else "_" for c in where)
    text = f"def {name}({', '.join(kept)}):\n" + "\n".join(lines) + "\n"
    exec(compile(text, f"<srcad numba form of {where}>", "exec"), space)  # noqa: S102
    form = numba.njit(space[name])
    form.__srcad_source__ = text
    return form


def _named(params, body, space, name="named"):
    """A function of ``params`` whose body is ``body`` (``{}``: the parameters, as a tuple
    display): Numba's overload needs its typing function and implementation to take the
    overloaded function's parameters by name."""
    text = (f"def {name}({', '.join(params)}):\n"
            f"    {body.format(''.join(p + ', ' for p in params).join('()'))}\n")
    exec(compile(text, "<srcad numba form typing>", "exec"), space)  # noqa: S102
    return space[name]


def _checks(kept, by_name, where, tangent_of):
    """The form's checks: which of the first arrays share a shape, as in the specialisation's
    key (:func:`srcad.backend.keys.shape_partition`; arrays of equal ranks only: ranks are
    in the types), and each tangent its primal's shape."""
    arrays = [p for p in kept if type(by_name[p]) is np.ndarray and p not in tangent_of]
    arrays = [p for p in by_name if p in arrays][:MAX_COMPARED]
    lines = []
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            if by_name[a].ndim != by_name[b].ndim or not by_name[a].ndim:
                continue
            same = by_name[a].shape == by_name[b].shape
            lines.append(f"    if {'not ' if same else ''}{a}.shape == {b}.shape:\n"
                         f"        raise ValueError({_message(where, a, b, same)!r})")
    for t, p in tangent_of.items():
        if type(by_name[t]) is np.ndarray:
            lines.append(f"    if {t}.shape != {p}.shape:\n"
                         f"        raise ValueError('the tangent for {p} has a shape unlike "
                         f"{p}')")
    return lines


def _message(where, a, b, same):
    return (f"the compiled form of the {where} was made for {a} and {b} of "
            f"{'one shape' if same else 'different shapes'}: make one for such arguments")


def _copies(returns):
    """Whether the compiled code's result holds read-only arrays (broadcast views)."""
    from numba.core import types

    if isinstance(returns, types.Array):
        return not returns.mutable
    if isinstance(returns, types.BaseTuple):
        return any(_copies(t) for t in returns.types)
    return False


def _writable(expr, returns):
    """``expr`` with its read-only arrays copied (as srcad's gradients from Python are)."""
    from numba.core import types

    if isinstance(returns, types.Array):
        return f"{expr}.copy()" if not returns.mutable else expr
    if isinstance(returns, types.BaseTuple) and _copies(returns):
        items = [_writable(f"{expr}[{k}]", t) for k, t in enumerate(returns.types)]
        return f"({', '.join(items)},)"
    return expr
