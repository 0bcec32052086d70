"""Lowered functions, kept: each user function is read and lowered once per process.

Making the derivative of a program asks many questions of each function it calls (the kind,
rank and items of its result, whether it may make complex numbers, whether it writes into its
arguments, and then its forward and backward parts), each for the kinds of the arguments of
one call. Every question starts from the function's SSA form; reading its source, parsing it
and lowering it again for each one cost most of the transform on programs with many small
helpers (autograd's ``mixture_variational_inference``: about 10,000 lowerings of a few dozen
functions). :class:`Lowered` keeps the lowered form per ``(function, arity, fixed)``, the
facts lowering depends on, and hands out copies, since the later passes rewrite the IR.

An entry is used again only while what lowering read is unchanged: the environment's reads
(:mod:`srcad.core.env`: globals, closure cells, attributes, a callee's defaults), the
function's code object and defaults, and the derivative rules registered (a rule added for a
callee changes how its calls are lowered). ``srcad.clear_cache()`` forgets every entry.

Imports: the standard library, :mod:`srcad.core` and :mod:`srcad.rules`.
"""

from __future__ import annotations

import copy

from ..core import env, ir
from ..core.functions import ByFunction
from ..rules.registry import registry as _registry


def rules_state():
    """A fingerprint of the rule registry: it changes when a rule or a function without a
    derivative is registered."""
    if _registry.pending:
        _registry.load_pending()
    return (len(_registry.rules), sum(map(len, _registry.rules.values())),
            len(_registry.nondiff), len(_registry.impure), len(_registry.samplers),
            len(_registry.real_only))


def copy_namer(namer):
    """A copy of a :class:`srcad.core.naming.Namer` whose names can be handed out apart."""
    new = copy.copy(namer)
    for attr, value in vars(namer).items():
        if type(value) in (set, dict, list):
            setattr(new, attr, type(value)(value))
    return new


class Lowered:
    """``get``/``put`` of ``(ir.Function, Namer)`` pairs, each handed out as a fresh copy."""

    def __init__(self):
        self._entries = ByFunction()
        self.hits = self.misses = 0  # for benchmarks and tests

    @staticmethod
    def key(func, arity, fixed):
        """The key for these facts, or None when they cannot be one (not hashable)."""
        try:
            held = tuple(sorted(fixed.items())) if fixed else ()
            key = (func, arity, held)
            hash(key)
        except TypeError:
            return None
        return key

    def get(self, key, func):
        if key is None:
            return None
        known = self._entries.get(key)
        if known is None:
            self.misses += 1
            return None
        fn, namer, reads, facts = known
        if not _same(facts, facts_of(func)) or env.stale(reads):
            self.misses += 1
            return None
        self.hits += 1
        env.record_all(reads)  # whoever asked depends on them too
        return ir.copy_function(fn), copy_namer(namer)

    def put(self, key, func, fn, namer, reads, facts):
        """Keep a copy of ``fn`` and ``namer``; ``facts``: :func:`facts_of` taken before the
        lowering began."""
        if key is not None:
            self._entries[key] = (ir.copy_function(fn), copy_namer(namer), tuple(reads),
                                  facts)

    def clear(self):
        self._entries.clear()


def facts_of(func):
    """What of ``func`` itself lowering read (its code, its defaults), and the registry's
    state."""
    return (getattr(func, "__code__", None), getattr(func, "__defaults__", None),
            getattr(func, "__kwdefaults__", None), rules_state())


def _same(before, now):
    return all(a is b for a, b in zip(before[:3], now[:3])) and before[3] == now[3]
