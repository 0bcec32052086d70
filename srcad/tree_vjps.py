"""``vjp``'s front for containers and records of floats (a dict of parameters, a list, a
tuple, a named tuple, a dataclass): one compiled frame on ``f``, called first by ``vjp``'s
entry point (:func:`srcad.backend.call_fronts.short_vjp`).

``vjp(f, p)`` of a container took, after the entry point's lookups (the table kept on ``f``
by ``wrt`` and the argument classes), :func:`srcad.fast_calls.eager_vjp`'s closure, then
``value_and_grad``'s code through :func:`srcad.tree_calls.direct` (a call of its structure
test, a call of its freshness test): ~1.5 µs around the code's ~1.9 for a dict of two
numbers. Here, at the closure's second call, the front holds what those calls tested in
its text: the arguments' structure (:func:`srcad.tree_keys.key_test`: classes, keys in
order, lengths, leaf classes), the freshness of every name the code read (by identity,
:func:`srcad.fast_checks.tests_text`), the code called, and the pullback the closure makes
(the first pullback of 1.0 hands the gradient made with the value over; later ones run
``grad``'s dispatcher; any other cotangent is checked against the value and runs the vjp
code). A front made for another structure calls the one made before it (up to
:data:`MOST`: a function called with a list and a tuple). Anything else returns None and
takes the closure as it was (another structure, an
int or array leaf, a rebound name: ``direct`` then checks fully or makes the code again);
an output not a float or NumPy float, or an exception of the code, takes ``lazy`` (the
value by ``f``, the derivative at the pullback), as the closure does.

Imports :mod:`srcad.tree_keys`, :mod:`srcad.fast_checks` and
:mod:`srcad.backend.call_fronts` (``HELD``: what srcad reads of the pullback).
"""

from __future__ import annotations

import numpy as np

from . import tree_keys
from .backend import call_fronts
from .fast_checks import tests_text

#: the most structures one function's front answers (each one's front calls the last one's
#: when its tests fail: a function called with a list and with a tuple, say)
MOST = 4


def front(user, f, wrt, types_, vg, gradient, lazy, transformed, check, args):
    """The front for ``vjp(f, *args)`` (``wrt`` None) of ``args``' structure, put on ``f``
    when none is there; ``vg``: :func:`srcad.tree_calls.direct`'s function, which kept the
    code it calls for that structure (else nothing is made). Returns None (the closure
    ``eager_vjp`` made stays in its table: the front answers one structure)."""
    kept = getattr(vg, "kept", None)  # (the code for the structure of direct's first call)
    code = kept[0][0] if kept and kept[0] is not None and kept[0][1](args) else None
    prev = vars(f).get(call_fronts.VJP)
    if wrt is not None or code is None or prev is not None and getattr(
            prev, "depth", MOST) >= MOST:  # (a number's front, or MOST structures)
        return None
    space = {"code": code, "F": f, "F64": np.float64, "lazy": lazy, "gradient": gradient,
             "transformed": transformed, "check": check, "prev": prev}
    conds = [f"len(args) == {len(args)}"]
    for i, value in enumerate(args):
        found = tree_keys.key_test(value, f"args[{i}]", space)
        if found is None:  # pragma: no cover - (direct kept floats in containers only)
            return None
        conds += found
    reads = code.__srcad_reads__
    each = "".join(f"args[{i}], " for i in range(len(args)))
    text = "\n".join([
        "def vjp_tree(args, given=F):",
        f"    if given is F and {' and '.join(conds)}:",
        "        try:",
        f"            fresh = {tests_text(reads, space, baked=True) if reads else 'True'}",
        "        except (ValueError, AttributeError):  # an empty cell, an attribute gone",
        "            fresh = False",
        "        if fresh:",
        "            try:",
        f"                value, grads = code({each})",
        "            except Exception:  # the closure's lazy path raises it where it did",
        "                return lazy(args)",
        "            if value.__class__ is not float and value.__class__ is not F64:",
        "                return lazy(args)",
        "            of = (F, args, None, False, value)  # (srcad reads it: call_fronts.HELD)",
        "            def eager_pullback(dy):",
        "                nonlocal grads",
        "                if dy.__class__ is float and dy == 1.0:",
        "                    if grads is None:  # later: made again (the caller owns the first)",
        f"                        return gradient({each})",
        "                    first, grads = grads, None",
        "                    return first",
        "                check(of[4], dy, 'cotangent')",
        "                return transformed(dy, *args)",
        "            return value, eager_pullback",
        f"    return {'None' if prev is None else 'prev(args, given)'}", ""])
    exec(compile(text, "<srcad vjp front of a tree>", "exec"), space)  # noqa: S102
    made = space["vjp_tree"]
    made.__srcad_source__ = text  # (for reading)
    made.depth = getattr(prev, "depth", 0) + 1  # (the structures it answers)
    call_fronts.held_codes(made, "eager_pullback")
    call_fronts.FRONTS.put(f, call_fronts.VJP, made)
    return None
