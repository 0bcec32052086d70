"""``srcad.vjp`` and ``srcad.hvp`` called inside differentiated code, read as functions srcad
differentiates again (the outer derivative sees through the inner one, to any order).

* ``y, pullback = srcad.vjp(f, x, w, wrt=...)`` then ``pullback(dy)``: lowering
  (:meth:`srcad.frontend.lower_derivatives.Derivatives.vjp_call`) reads the call as the pair
  ``(f(x, w), functools.partial(P, x, w))``, where ``P = srcad.grad(inner, wrt)`` and
  ``inner(x, w, dy) = sum(f(x, w) * dy)`` (:func:`make_pullback`): the vector-Jacobian product
  ``dy · J`` is the gradient of ``<f(x, w), dy>`` in the primals, exactly, and ``P(x, w, dy)``
  is a call of a derivative srcad made, which the sweeps differentiate again, in the primals
  and in ``dy``. The value ``f(x, w)`` is the call itself, differentiated as any call.
* ``srcad.hvp(f)(x, v)`` (and ``srcad.hvp(f, (x,), v)``): the plain function
  :func:`plain_hvp` makes, ``srcad.jvp(srcad.grad(f, wrt), (x,), (v,), wrt=wrt)[1]``, which
  srcad reads like the plain form of a Hessian (:func:`srcad.nested.plain_jacobian`).

Only outputs that are arrays or real numbers are read so (a tuple, dict or complex output is
refused when the code runs, :func:`check_output`): ``np.sum(out * dy)`` is the product of the
cotangent with the output exactly there.

Imports :mod:`srcad.api` (grad and jvp), :mod:`srcad.fast_calls` (the cotangent's check),
:mod:`srcad.backend.call_fronts` (a compiled pullback's cells) and :mod:`srcad.runtime`;
:mod:`srcad.api` does not import this module: it hands
:func:`make_pullback` to the frontend through ``srcad.vjp.__srcad_vjp_maker__``.
"""

from __future__ import annotations

import inspect

import numpy as np

from . import api
from .backend import call_fronts
from .core import functions
from .errors import SrcadError
from .fast_calls import check_companion
from .rules.registry import registry
from .runtime.derivatives import made_function


def check_output(out, dy, where):
    """The output of a function whose ``srcad.vjp`` is called in differentiated code is an
    array or a real number, and the cotangent ``dy`` is shaped like it (as ``srcad.vjp``'s
    own pullback checks); raises a :class:`SrcadError` naming the call otherwise."""
    check_value(out, where)
    filename, line, name = where
    try:
        check_companion(out, dy, "cotangent")
    except SrcadError as exc:
        raise SrcadError(exc.message, filename=filename, lineno=line,
                         construct=f"pullback of srcad.vjp({name}, ...)", hint=exc.hint) from None


def check_value(out, where):
    """Raise unless ``out`` is an array or a real number (:func:`check_output`): run where
    ``srcad.vjp`` is called, before srcad reads the pullback's code for such a value."""
    filename, line, name = where
    real = isinstance(out, (int, float, np.integer, np.floating, np.bool_)) or isinstance(
        out, np.ndarray) and out.dtype.kind in "biuf"
    if not real:
        kind = type(out).__name__ if not isinstance(out, np.ndarray) else f"{out.dtype} array"
        raise SrcadError(
            f"srcad.vjp of {name} called in differentiated code, whose output is a {kind}: "
            "srcad reads such a pullback as the gradient of sum(f(x) * dy), exact for an "
            "array or a real number only", filename=filename, lineno=line,
            construct=f"srcad.vjp({name}, ...)",
            hint="return an array (np.concatenate the parts, or one vjp per part), or call "
            "srcad.vjp outside the code you differentiate")


registry.nondiff.update((check_output, check_value))
registry.impure.add(check_value)  # kept where it is, for its message


def make_pullback(f, shift, n, wrt, where, has_aux=False):
    """``P(*held, *args, dy) = dy · J`` of ``f`` at its ``n`` arguments (the first ``shift``
    of them values a lambda holds, then the primals), with respect to the primals ``wrt``
    (None: all; positions counted among the primals, or names of ``f``'s parameters), as
    ``srcad.vjp``'s pullback gives it (one gradient when ``wrt`` is one position or name, else
    a tuple): ``P`` is ``srcad.grad`` of the plain function ``inner(*args, dy) =
    sum(f(*args) * dy)`` (``f(*args)[0]`` with ``has_aux``). ``None`` when ``wrt`` is none
    of these (then refused)."""
    if wrt is None:
        wrt = tuple(range(shift, n))
    elif isinstance(wrt, (tuple, list)):
        wrt = tuple(_position(f, w, shift, n) for w in wrt)
        if None in wrt or not wrt:
            return None
    else:
        wrt = _position(f, wrt, shift, n)
        if wrt is None:
            return None
    params = [f"a{i}" for i in range(n)]
    name = getattr(f, "__name__", "f")
    name = name if name.isidentifier() else "f"
    inner = made_function(f"vjp_{name}", params + ["dy"], [
        f"out = _srcad_f({', '.join(params)})" + ("[0]" if has_aux else ""),
        "_srcad_check(out, dy, _srcad_where)",
        "return _srcad_np.sum(out * dy)",
    ], {"_srcad_f": f, "_srcad_check": check_output, "_srcad_where": where,
        "_srcad_np": np})
    return api.grad(inner, wrt=wrt)


def _position(f, w, shift, n):
    """The position among ``f``'s ``n`` arguments of the primal ``w``: a position among the
    primals (after ``shift`` held values), or the name of a parameter of ``f`` there."""
    m = n - shift
    if type(w) is int:
        return shift + (w + m if w < 0 else w) if -m <= w < m else None
    if type(w) is not str:
        return None
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return None
    return names.index(w) if w in names[shift:n] else None


make_pullback.check_value = check_value
api.vjp.__srcad_vjp_maker__ = make_pullback


class PulledBack:
    """What srcad reads for a pullback ``srcad.vjp(f, *args, wrt=...)`` returned, when the
    pullback is called inside code srcad differentiates (made outside it: ``y, pb =
    srcad.vjp(g, x0)`` at module level or in the caller, then ``pb(v)`` in the function): the
    plain function ``pullback_g(dy) = P(x0, dy)``, ``P`` the derivative :func:`make_pullback`
    makes (the gradient of ``sum(g(x0) * dy)`` in the primals ``wrt``) and ``x0`` the very
    primals the pullback holds, constants of that code (they were given before it ran, so
    nothing it differentiates reaches them). Linear in ``dy``: its derivative in ``dy`` is
    exact, to any order, both modes. :func:`srcad.api.vjp` gives each pullback its
    ``__srcad_vjp_of__`` (the function, primals, ``wrt``, ``has_aux`` and value), from which
    :func:`srcad.core.functions.plain_form` makes one (its ``__srcad_plain__``) at the first
    need."""

    __slots__ = ("f", "args", "wrt", "has_aux", "value", "made")

    def __init__(self, f, args, wrt, has_aux, value):
        self.f, self.args, self.wrt, self.has_aux = f, args, wrt, has_aux
        self.value, self.made = value, None

    def __call__(self):
        if self.made is None:
            f, n = self.f, len(self.args)
            name = getattr(f, "__name__", "f")
            name = name if isinstance(name, str) and name.isidentifier() else "f"
            code = getattr(f, "__code__", None)
            where = (getattr(code, "co_filename", None), getattr(code, "co_firstlineno", None),
                     name)
            check_value(self.value, where)  # an array or a real number only
            made = make_pullback(f, 0, n, self.wrt, where, self.has_aux)
            if made is None:
                raise SrcadError(f"a pullback of srcad.vjp({name}, ...) with wrt="
                                 f"{self.wrt!r} called in differentiated code",
                                 hint="give wrt as positions or parameter names")
            held = {f"_srcad_a{i}": a for i, a in enumerate(self.args)}
            self.made = made_function(f"pullback_{name}", ["dy"], [
                f"return _srcad_pullback({''.join(f'{k}, ' for k in held)}dy)"],
                {"_srcad_pullback": made, **held})
        return self.made


def made_of(fn):
    """``(f, args, wrt, has_aux, value)`` of a pullback ``srcad.vjp`` made (its
    ``__srcad_vjp_of__``, or the cells of one compiled by :mod:`srcad.backend.call_fronts`),
    else None."""
    return vars(fn).get("__srcad_vjp_of__") or call_fronts.pullback_of(fn)


functions.PULLED_BACK[:] = [PulledBack, made_of]


def plain_parameters(fn):
    """``fn``'s parameter names when every one is plain positional without a default (and
    none is one of srcad's own ``_srcad`` names), else ``None``: the functions srcad can
    write a plain function around by name."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    names = list(params)
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or
           p.default is not p.empty for p in params.values()) or any(
               n.startswith("_srcad") for n in names):
        return None
    return names


def plain_hvp(f, wrt):
    """A plain function with ``f``'s parameters then ``v`` computing ``hvp(f, wrt=wrt)`` as
    ``srcad.jvp`` of ``srcad.grad(f, wrt)`` along ``v``: what srcad reads when ``srcad.hvp(f)``
    is called in differentiated code. ``None`` when ``f``'s parameters are not plain
    positional ones without defaults, or ``wrt`` is not one of them."""
    user = f.__srcad__._user if hasattr(f, "__srcad__") else f
    names = plain_parameters(user)  # (with a default, hvp(f)(x, v) would give v for it)
    if names is None:
        return None
    if type(wrt) is str and wrt in names:
        wrt = names.index(wrt)
    if type(wrt) is not int or not 0 <= wrt < len(names):
        return None
    v = "v"
    while v in names:
        v += "_"
    args = "".join(f"{n}, " for n in names)
    name = f"hvp_{getattr(user, '__name__', 'f')}".replace("<", "").replace(">", "")
    return made_function(name, names + [v], [
        f"return _srcad_jvp(_srcad_grad_f, ({args}), ({v},), wrt={wrt})[1]",
    ], {"_srcad_jvp": api.jvp, "_srcad_grad_f": api.grad(f, wrt=wrt)})


def plain_hvp_maker(f, wrt):
    """What srcad reads for ``srcad.hvp(f)`` called in differentiated code (its
    ``__srcad_plain__``, :func:`srcad.core.functions.plain_form`): :func:`plain_hvp`, made at
    the first need."""
    made = []

    def plain():
        if not made:
            made.append(plain_hvp(f, wrt))
        return made[0]

    return plain
