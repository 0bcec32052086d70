"""The tests that a closure kept by :mod:`srcad.fast_calls` (and the Jacobians' lookups)
makes before calling the code it holds: each name and attribute path that code read still
finds the very object it found (:func:`unchanged`, compiled once per closure; :func:`fresh`
with :func:`srcad.core.env.stale`'s full check behind it), and ``jvp``'s closures for one
array and for numbers compiled with those tests in their text (:func:`one_array`,
:func:`number_jvp`).

Imports ``srcad.core`` only.
"""

from __future__ import annotations

from .core import env


def one_array(fn, a, general):
    """``jvp``'s closure for one array and its tangent while one rank and dtype has been
    seen: compiled with that rank, that very dtype and :func:`unchanged`'s tests in its text
    (no lookup by rank and dtype, no call of a test); any other call goes to ``general``
    (the closure keyed by rank and dtype, which also drops code whose names were rebound)."""
    space = {"fn": fn, "general": general, "D": a.dtype}
    text = ("def jvp_of(primals, tangents):\n"
            "    a = primals[0]\n"
            "    t = tangents[0]\n"
            f"    if a.dtype is D and a.ndim == {a.ndim:d} and t.shape == a.shape:\n"
            "        try:\n"
            f"            ok = {tests_text(fn.__srcad_reads__, space, baked=True)}\n"
            "        except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "            ok = False\n"
            "        if ok:\n"
            "            return fn(a, t)\n"
            "    return general(primals, tangents)\n")
    exec(compile(text, "<srcad jvp of one array>", "exec"), space)  # noqa: S102
    one = space["jvp_of"]
    one.general = general
    return one


def number_jvp(fn, table, types, n_primals, n_tangents):
    """``jvp``'s closure for numbers: the forward-mode code ``fn`` called while each name it
    read finds the very object it found (the tests compiled in its text, no call of a test),
    or no object of another fingerprint (:func:`env.stale`); else dropped (None: the full
    path makes the code again)."""
    reads = fn.__srcad_reads__
    space = {"fn": fn, "stale": env.stale, "reads": reads, "table": table, "types": types}
    if n_primals == n_tangents == 1:
        call = "fn(primals[0], tangents[0])"
    else:
        call = "fn(*primals, *tangents)"
    text = ("def jvp_of(primals, tangents):\n"
            "    try:\n"
            f"        ok = {tests_text(reads, space, baked=True) if reads else 'True'}\n"
            "    except (ValueError, AttributeError):  # an empty cell, an attribute gone\n"
            "        ok = False\n"
            "    if ok or not stale(reads):\n"
            f"        return {call}\n"
            "    table.pop(types, None)\n"
            "    return None  # the full path makes the code again\n")
    exec(compile(text, "<srcad jvp of numbers>", "exec"), space)  # noqa: S102
    return space["jvp_of"]


def checks(reads):
    """:func:`fresh`'s two tests apart: by identity (cheap, compiled), then in full."""
    if not reads:
        return (lambda: True), (lambda: True)
    return unchanged(reads), lambda: not env.stale(reads)


def unchanged(reads):
    """A function returning True when each of ``reads`` finds the very object it found (as
    the line (0) of ``grad``'s dispatcher tests, :mod:`srcad.backend.dispatch`): compiled once,
    no loop over the reads at the call. False when one may have changed, or if
    ``reads`` is empty; :func:`srcad.core.env.stale` then decides
    (:func:`srcad.core.env.same_objects`, without its re-check)."""
    return env.same_objects(reads, recheck=False)


tests_text = env.tests_text  # the expression (jvp's closures above, the batched Jacobians')


def fresh(reads):
    """A function returning whether no name among ``reads`` is bound to an object with another
    fingerprint now: by identity first (:func:`unchanged`), then :func:`env.stale`."""
    if not reads:
        return lambda: True
    same = unchanged(reads)
    return lambda: same() or not env.stale(reads)
