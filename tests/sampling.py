"""Deterministic samples of the largest test families, for CI's time budget (20 minutes on 2
cores): CI runs every k-th case of a family; the long run (``SRCAD_LONG_PROPERTIES=1``, as for
tests/test_properties.py) runs every case. Imports only the standard library."""

from __future__ import annotations

import os

LONG = os.environ.get("SRCAD_LONG_PROPERTIES") == "1"

#: CI's run keeps every ``every * THIN``-th case of a sampled family (the first case of each
#: rule always): 2 since session 27, when the suite reached CI's 20 minutes, 3 since session
#: 32 (CI at 18 of its 20 minutes), 6 since session 33 (the suite's CPU cut for the tests
#: the other sessions add: docs/performance.md, "What CI runs"); the long run keeps every
#: case, ``SRCAD_SAMPLE_THIN=1`` the samples as written
THIN = max(1, int(os.environ.get("SRCAD_SAMPLE_THIN", "6")))


def sample(cases, every):
    """``cases`` whole in the long run, else every ``every``-th of them (the first included)."""
    cases = list(cases)
    return cases if LONG else cases[::every * THIN]


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
    kept = {id(c) for c in firsts} | {id(c) for c in others[::every * THIN]}
    return [c for c in cases if id(c) in kept]
