"""Deterministic samples of the largest test families, for CI's time budget (20 minutes on 2
cores): CI runs every k-th case of a family; the long run (``SRCAD_LONG_PROPERTIES=1``, as for
tests/test_properties.py) runs every case. Imports only the standard library."""

from __future__ import annotations

import os

LONG = os.environ.get("SRCAD_LONG_PROPERTIES") == "1"


def sample(cases, every):
    """``cases`` whole in the long run, else every ``every``-th of them (the first included)."""
    cases = list(cases)
    return cases if LONG else cases[::every]


def sample_by(cases, key, every):
    """``cases`` whole in the long run; else the first case of each ``key(case)`` (every rule
    keeps a case) and every ``every``-th of the others."""
    cases = list(cases)
    if LONG:
        return cases
    seen, firsts, others = set(), [], []
    for case in cases:
        k = key(case)
        (others if k in seen else firsts).append(case)
        seen.add(k)
    kept = {id(c) for c in firsts} | {id(c) for c in others[::every]}
    return [c for c in cases if id(c) in kept]
