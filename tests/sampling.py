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
