"""Deterministic samples of the largest test families, for CI's time budget (20 minutes on 2
cores): CI runs every k-th case of a family; the long run (``SRCAD_LONG_PROPERTIES=1``, as for
tests/test_properties.py) runs every case. Imports only the standard library."""

from __future__ import annotations

import os

LONG = os.environ.get("SRCAD_LONG_PROPERTIES") == "1"

#: CI's run keeps every ``every * THIN``-th case of a sampled family (the first case of each
#: rule always): 2 since session 27, when the suite reached CI's 20 minutes, 3 since session
#: 32 (CI at 18 of its 20 minutes), 4 since session 33 (CI's rehearsal at 21 minutes); the
#: long run keeps every case, ``SRCAD_SAMPLE_THIN=1`` the samples as written
THIN = max(1, int(os.environ.get("SRCAD_SAMPLE_THIN", "4")))

#: :func:`sample_by` keeps every ``every * THIN * BY_THIN``-th of the cases beside those that
#: keep each rule and each value of each dimension (:func:`dimension_firsts`): 4 since
#: session 33 (those cases kept, the stride needs to hold no construct)
BY_THIN = 4
#: a position of a family's parameters with at most this many values, each on several cases,
#: is a dimension (a place, a mode, a rank, a form) whose every value :func:`sample_by` keeps
DIMENSION = 8


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return not isinstance(value, float)  # a drawn number is a point, not a construct


def dimension_firsts(rows):
    """The indices of the first row of each value of each dimension: rows are tuples of one
    length (a family's parameters); a dimension is a position whose values are hashable, few
    (:data:`DIMENSION`) and repeated. Other rows give nothing."""
    rows = list(rows)
    if not rows or not all(isinstance(r, tuple) for r in rows):
        return set()
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        return set()
    keep = set()
    for position in range(width):
        values = [r[position] for r in rows]
        if not all(_hashable(v) for v in values):
            continue
        distinct = len(set(values))
        if distinct == 1 or distinct > min(DIMENSION, len(rows) // 2):
            continue
        seen = set()
        for i, v in enumerate(values):
            if v not in seen:
                seen.add(v)
                keep.add(i)
    return keep


def sample(cases, every):
    """``cases`` whole in the long run, else every ``every``-th of them (the first included)."""
    cases = list(cases)
    return cases if LONG else cases[::every * THIN]


def sample_by(cases, key, every):
    """``cases`` whole in the long run; else the first case of each ``key(case)`` (every rule
    keeps a case), the first of each value of each dimension (:func:`dimension_firsts`) and
    every ``every * THIN * BY_THIN``-th of the others."""
    cases = list(cases)
    if LONG:
        return cases
    seen, kept, others = set(), dimension_firsts(cases), []
    for i, case in enumerate(cases):
        k = key(case)
        if k in seen:
            others.append(i)
        else:
            kept.add(i)
        seen.add(k)
    kept.update(others[::every * THIN * BY_THIN])
    return [c for i, c in enumerate(cases) if i in kept]
