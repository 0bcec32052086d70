"""``srcad.core.env.checker`` (the test of the reads ``grad``'s dispatcher cannot spell by
name: another module's globals, a callee's cells, a has_aux shim's callee): a gradient through
a callee of another module's globals made again when that module rebinds a name. The checker
against :meth:`Read.current` read by read is tests/test_calls30_checks.py's (with the other
uses of the same builder)."""

import importlib
import math

import pytest

import srcad


def _loop(reads):
    return all(r.current() is r.value for r in reads)


SCALE = 2.0


def helper_scaled(x):
    return math.sin(x) * SCALE


def test_a_rebound_name_of_a_callee_module_makes_the_gradient_again(tmp_path, monkeypatch):
    """``outer`` (a module of its own) calls ``helper_scaled`` (this module's), which reads
    ``SCALE`` here: a read the dispatcher of ``grad(outer)`` tests by the checker."""
    global SCALE
    (tmp_path / "calls29_outer.py").write_text(
        f"from {__name__} import helper_scaled\n\n\n"
        "def outer(x):\n    return helper_scaled(x) * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    outer = importlib.import_module("calls29_outer").outer
    g = srcad.grad(outer)
    try:
        for scale in (2.0, 3.0, 2.0):
            SCALE = scale
            for _ in range(3):
                want = (math.cos(0.4) * 0.4 + math.sin(0.4)) * scale
                assert g(0.4) == pytest.approx(want, rel=1e-14)
    finally:
        SCALE = 2.0
