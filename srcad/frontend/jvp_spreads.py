"""``srcad.jvp(f, primals, tangents)`` inside differentiated code with ``primals`` or
``tangents`` a name holding a tuple made elsewhere (a parameter: ``def hvp(f, primals,
tangents): return jvp(grad(f), primals, tangents)[1]``, JAX's forward-over-reverse
Hessian-vector product), not a tuple written in the call.

``srcad.jvp`` takes ``tuple(primals)``. When ``f`` fixes how many arguments it takes (plain
positional parameters, no ``*args``, no defaults: a ``def``, a lambda, or a derivative srcad
made of one, whose signature is its function's), the primals are ``n`` items and the tangents
one per ``wrt`` argument (all ``n`` when ``wrt`` is None). :func:`items_by_position` reads them
by position (``primals[0]``, ...) after :func:`check_items` has checked, when the code runs,
that the value is a list, tuple or array of that length (what ``tuple(...)`` takes of it is
then what indexing reads; anything else is refused there, at the user's line). The call goes
on as a ``jvp`` of tuples written in the call
(:meth:`srcad.frontend.lower_derivatives.Derivatives.jvp_call`), differentiated through.

Imports the standard library, NumPy, :mod:`srcad.core`, :mod:`srcad.errors`,
:mod:`srcad.rules.registry` (to declare the check constant) and :mod:`.spread_lengths`.
"""

from __future__ import annotations

import inspect
import operator

import numpy as np

from ..core import ir
from ..core.ir import Const
from ..errors import UnsupportedSyntaxError
from ..rules.registry import registry as _registry
from .spread_lengths import MOST_ITEMS


def check_items(seq, n, where, what):
    """Raise unless ``seq`` is a list, tuple or array (of at least one dimension) of ``n``
    items: srcad made the ``jvp`` call at ``where`` (file, line, its text) for ``n`` of
    ``what`` (primals or tangents) read by position."""
    filename, lineno, text = where
    if isinstance(seq, (list, tuple)) or isinstance(seq, np.ndarray) and seq.ndim:
        if len(seq) == n:
            return
        raise UnsupportedSyntaxError(
            f"jvp given {len(seq)} {what} where the function takes {n} (srcad made this "
            f"call for {n}, read by position)", filename=filename, lineno=lineno,
            construct=text, hint=f"pass {n} {what}")
    raise UnsupportedSyntaxError(
        f"jvp's {what} a {type(seq).__name__}: srcad made this call for a tuple, list or "
        f"array of {n} items, read by position", filename=filename, lineno=lineno,
        construct=text, hint=f"pass the {what} as a tuple: jvp(f, (x,), (t,))")


_registry.nondiff.add(check_items)  # a check: no derivative
_registry.kept.add(check_items)  # (never dropped, also in code read again)


def fixed_count(fn):
    """How many positional arguments ``fn`` takes, when that is one number; else ``None``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or
           p.default is not p.empty for p in params):
        return None
    return len(params) if len(params) <= MOST_ITEMS else None


def tangent_count(spec, n):
    """How many tangents ``srcad.jvp`` takes for ``wrt=spec`` and ``n`` primals (None:
    unknown)."""
    if spec is None:
        return n
    if isinstance(spec, (tuple, list)):
        return len(spec)
    return 1 if type(spec) is int or isinstance(spec, str) else None


def items_by_position(lowerer, atom, n, node, what):
    """``atom[0], ..., atom[n - 1]`` lowered, after the run-time check of its length."""
    where = (lowerer.source.filename, node.lineno, lowerer.source.line_text(node.lineno))
    check = ir.Prim(check_items, [atom, Const(n), lowerer.bound_const(where, "where"),
                                  Const(what)],
                    spelling=lowerer.bound_name(check_items, "check_items"))
    lowerer.emit(ir.Assign(lowerer.namer.temp("checked"), check, node.lineno, effect=True))
    return [lowerer.assign(ir.Prim(operator.getitem, [atom, Const(i)]), "item", node)
            for i in range(n)]
