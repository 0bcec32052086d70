"""``jvp``'s closure for containers of floats (a dict of parameters, a list, a tuple, nested),
and so ``hvp``'s (:func:`srcad.fast_calls.hvp_closure` finds the closure ``jvp`` keeps for
``grad(f)``).

``jvp``'s full path (:func:`srcad.api.jvp`) checks each tangent against its primal
(``check_companion``: keys, lengths, shapes), finds the forward-mode code by the primals'
structure (``tree_keys.call_key``) and the freshness of every name the code read
(``env.stale``), then calls the code with the primals and the tangents as given: ~18 µs a
call of a dict of two numbers, of which the code ~6. Here, after the full path ran on
primals and tangents all of floats in dicts, lists and tuples, called with the primals
themselves (no default filled in, no ``*args`` gathered), the code is called directly while
a test compiled for that call (:func:`srcad.tree_keys.key_test` of every primal and every
tangent: classes, keys in order, lengths, leaf classes) passes and every name the code read
finds what it found (:func:`srcad.fast_checks.checks`); anything else (another structure,
an int, NumPy number or array leaf, a tangent of another structure, a record, a rebound
name) returns None, and ``jvp``'s front then takes the full path, which keeps its checks
and errors.

Imports :mod:`srcad.tree_keys` and :mod:`srcad.fast_checks`.
"""

from __future__ import annotations

from . import tree_keys
from .fast_checks import checks

#: the most structures kept for one tuple of classes (the latest first)
MOST = 8


def keep(table, fn, primals, tangents, full):
    """Put in ``table`` (``jvp``'s, by the classes of the primals and the tangents) the
    closure calling ``fn`` for calls like this one (see above), when it can be made, beside
    those of the :data:`MOST` - 1 structures of these classes kept last."""
    made = closure(fn, primals, tangents, full) if table is not None else None
    if made is None:
        return
    key = tuple(map(type, primals)) + tuple(map(type, tangents))
    held = getattr(table.get(key), "held", None)
    if held is None:
        held = []

        def by_structure(primals, tangents):
            for one in held:
                found = one(primals, tangents)
                if found is not None:
                    return found
            return None

        by_structure.held = held
        table[key] = by_structure
    held.insert(0, made)
    del held[MOST:]


def closure(fn, primals, tangents, full):
    """``jvp_of(primals, tangents)``: ``fn``'s result, or None (the full path); None when
    these primals and tangents are not all floats in plain containers."""
    if len(full) != len(primals) or any(a is not b for a, b in zip(full, primals)):
        return None
    values = tuple(primals) + tuple(tangents)
    if not all(map(_plain_floats, values)):
        return None
    same = tree_keys.compiled_test((("p", primals), ("t", tangents)))
    if same is None:
        return None
    fresh, ok = checks(getattr(fn, "__srcad_reads__", None) or ())

    def jvp_of(primals, tangents):
        if same(primals, tangents) and (fresh() or ok()):
            return fn(*primals, *tangents)
        return None

    jvp_of.__srcad_source__ = same.__srcad_source__  # (for reading)
    return jvp_of


def _plain_floats(value):
    """Floats in dicts, lists and tuples only (no record: those take the full path)."""
    cls = type(value)
    if cls is dict:
        return all(map(_plain_floats, value.values()))
    if cls is list or cls is tuple:
        return all(map(_plain_floats, value))
    return cls is float
