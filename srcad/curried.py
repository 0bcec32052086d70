"""autograd's curried derivative makers, ``make_vjp(f)(*args)`` and ``make_jvp(f)(*args)(v)``,
JAX's ``linearize(f, *primals)``, and what srcad reads for them inside differentiated code.

Each function :func:`make_vjp` and :func:`make_jvp` return carries ``__srcad_curried__``
(``(kind, maker, f, wrt)``): lowering a call of it in code srcad differentiates
(:meth:`srcad.frontend.lower_derivatives.Derivatives.curried_call`) reads

* ``make_vjp(f, wrt)(x, w)`` as ``srcad.vjp(f, x, w, wrt=wrt)`` with its pair swapped, so the
  pullback is the partial ``srcad.nested_vjp`` makes, differentiated again;
* ``make_jvp(f, wrt)(x, w)`` as a partial holding ``x, w`` of :func:`pushforward` (``def
  pushforward_f(a0, a1, v): return srcad.jvp(f, (a0, a1), (v,), wrt=(wrt,))``), whose call
  ``(v)`` is a call of ``srcad.jvp`` with the primals and tangent built there
  (``srcad.nested.JvpOf``).

Imports :mod:`srcad.api`, :mod:`srcad.written_state` and :mod:`srcad.runtime`.
"""

from __future__ import annotations

import functools

from . import api, written_state
from .runtime.derivatives import made_function


def make_vjp(f, wrt=0, *, argnums=None, argnum=None):
    """autograd's ``make_vjp``: ``make_vjp(f)(*args)`` is ``(pullback, value)`` (the order
    autograd returns them in; :func:`srcad.vjp` gives ``(value, pullback)``)."""
    wrt = api.wrt_alias(wrt, argnums, argnum)

    @functools.wraps(f)
    def made(*args):
        value, pullback = api.vjp(f, *args, wrt=wrt)
        return pullback, value

    made.__srcad_curried__ = ("vjp", api.vjp, f, wrt)
    return made


def make_jvp(f, wrt=0, *, argnums=None, argnum=None):
    """autograd's ``make_jvp``: ``make_jvp(f)(*args)`` is the function ``v -> (value, J v)``
    for the ``wrt`` argument (one: autograd's ``argnum`` is a single position)."""
    wrt = api.wrt_alias(wrt, argnums, argnum)
    if not isinstance(wrt, (int, str)):
        raise TypeError("make_jvp takes one argument position (argnum), as autograd's does")

    @functools.wraps(f)
    def made(*args):
        def along(v):
            return api.jvp(f, args, (v,), wrt=(wrt,))

        return along

    made.__srcad_curried__ = ("jvp", pushforward, f, wrt)
    return made


def linearize(f, *primals, wrt=None):
    """JAX's ``linearize``: ``(f(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is ``J v``, the
    derivative of ``f`` at ``primals`` along ``tangents`` (one per argument differentiated:
    every argument unless ``wrt`` names some, as in :func:`srcad.jvp`). srcad's forward-mode
    code is made at the first call of ``f_jvp`` and cached; each call runs it again, primal
    part included (JAX keeps the primal values instead)."""
    primals = tuple(primals)
    if written_state.writer(f) is not None:  # f writes into what it is given: copies, f run after
        return written_state.writer(f).later(primals, {}, lambda g, a, k, *tangents: api.jvp(
            g, a, tangents, wrt=wrt)[1])

    def f_jvp(*tangents):
        return api.jvp(f, primals, tangents, wrt=wrt)[1]

    return f(*primals), f_jvp


@functools.lru_cache(maxsize=256)
def _pushforward(f, wrt, n):
    params = [f"a{i}" for i in range(n)]
    name = getattr(f, "__name__", "f")
    name = name if isinstance(name, str) and name.isidentifier() else "f"
    primals = "".join(f"{p}, " for p in params)
    return made_function(f"pushforward_{name}", params + ["v"], [
        f"return _srcad_jvp(_srcad_f, ({primals}), (v,), wrt=({wrt!r},))"],
        {"_srcad_jvp": api.jvp, "_srcad_f": f})


def pushforward(f, wrt, n):
    """The plain function ``(a0, ..., a{n-1}, v) -> srcad.jvp(f, (a0, ...), (v,),
    wrt=(wrt,))`` (one per function, ``wrt`` and ``n`` while ``f`` is hashable)."""
    try:
        return _pushforward(f, wrt, n)
    except TypeError:  # f not hashable
        return _pushforward.__wrapped__(f, wrt, n)
