"""``srcad.grad(f, has_aux=True)`` and ``srcad.value_and_grad(f, has_aux=True)`` called inside
differentiated code, read as plain functions srcad differentiates again (the outer derivative
sees through the inner one, and through the auxiliary value).

For ``f`` returning ``(value, aux)``, the derivative :func:`srcad.api.grad` makes with
``has_aux=True`` hands ``aux`` over through a side channel (a box filled while the forward
sweep runs), which srcad cannot differentiate. What srcad reads for it instead
(:func:`srcad.core.functions.plain_form`, ``__srcad_plain__``) is, with ``f``'s parameters::

    def grad_aux_f(x, w):
        out = f(x, w)                     # a call of your function, differentiated as any
        _srcad_pair(out, where)           # a pair (value, aux): aux_calls.check_pair
        return grad_first_f(x, w), out[1]                     # grad
        return (out[0], out[1]), grad_first_f(x, w)           # value_and_grad

``grad_first_f = srcad.grad(first_f, wrt)`` with ``first_f(x, w) = f(x, w)[0]``: a derivative
srcad made, whose calls the sweeps differentiate again. ``f`` runs twice (once for ``aux``,
once inside the gradient); the values are those of one run, as ``f`` is a pure function of
its arguments in code srcad differentiates.

Only ``f`` with plain positional parameters without defaults is read so (else ``None``: the
call stays refused, naming the line); holomorphic derivatives are not.

Imports :mod:`srcad.api`, :mod:`srcad.aux_calls` (``check_pair``: the pair's check, one for
every use), :mod:`srcad.core`, :mod:`srcad.frontend` (``entry.where_of``),
:mod:`srcad.nested_vjp` (``plain_parameters``) and :mod:`srcad.runtime`; :mod:`srcad.api`
does not import this module: it is handed to :func:`srcad.core.functions.plain_form` through
``functions.WITH_AUX``.
"""

from __future__ import annotations

from . import api
from .aux_calls import check_pair
from .core import functions
from .frontend.entry import where_of
from .nested_vjp import plain_parameters
from .runtime.derivatives import made_function


def plain_with_aux(f, wrt, mode):
    """The plain function described above for ``srcad.grad(f, wrt, has_aux=True)``
    (``mode`` ``"grad"``) or ``value_and_grad`` (``"value_and_grad"``); ``None`` for another
    mode or a function whose parameters are not plain positional ones without defaults."""
    if mode not in ("grad", "value_and_grad"):
        return None
    names = plain_parameters(f)
    if names is None:
        return None
    where = where_of(f)
    name = where[2]
    args = ", ".join(names)
    first = made_function(f"first_{name}", names, [f"return _srcad_f({args})[0]"],
                          {"_srcad_f": f})
    gradient = api.grad(first, wrt=wrt)
    result = f"_srcad_g({args}), out[1]" if mode == "grad" else \
        f"(out[0], out[1]), _srcad_g({args})"
    return made_function(f"{mode}_aux_{name}", names, [
        f"out = _srcad_f({args})",
        "_srcad_pair(out, _srcad_where)",
        f"return {result}",
    ], {"_srcad_f": f, "_srcad_g": gradient, "_srcad_pair": check_pair,
        "_srcad_where": where})


def plain_with_aux_maker(f, wrt, mode):
    """What srcad reads for ``srcad.grad(f, has_aux=True)`` called in differentiated code
    (its ``__srcad_plain__``): :func:`plain_with_aux`, made at the first need."""
    made = []

    def plain():
        if not made:
            made.append(plain_with_aux(f, wrt, mode))
        return made[0]

    return plain


functions.WITH_AUX[:] = [plain_with_aux_maker]
