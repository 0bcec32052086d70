"""Sound28: tools/differential.py, the judge the differential suites share (opinfo_suite,
jax_records_suite, jax_scipy_records), on functions whose derivatives are known by hand.

A suite is only as good as its judge: a judge that calls a wrong derivative PASS hides the
worst bug there is. Cheap: plain NumPy functions, no transform.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import srcad

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "differential", os.path.join(os.path.dirname(HERE), "tools", "differential.py"))
D = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(D)


def cube(x):
    return float(np.sum(x ** 3))


@pytest.mark.parametrize("steps", [D.fixed_steps, D.scaled_steps])
def test_judge_smooth(steps):
    x = np.array([0.5, -1.25, 2.0])
    v = np.array([1.0, 0.0, -2.0])
    right = float(np.sum(3 * x ** 2 * v))
    assert D.judge(cube, [x], [v], right, steps)[0] == "PASS"
    assert D.judge(cube, [x], [v], right * 1.01, steps)[0] == "WRONG"


def test_compare_grads_shape_and_other_engine():
    rng = np.random.default_rng(0)
    x = np.array([[0.5, 1.5], [-1.0, 2.0]])
    good = 3 * x ** 2
    assert D.compare_grads(cube, [x], [good], [good], rng)[1] == "PASS"
    assert D.compare_grads(cube, [x], [good[0]], [good], rng)[1] == "WRONG"  # shape
    bad = good.copy()
    bad[1, 0] += 0.5
    # judged along the element where the engines differ most
    assert D.compare_grads(cube, [x], [bad], [good], rng)[1] == "WRONG"
    assert D.compare_grads(cube, [x], [bad], None, rng)[1] == "WRONG"


def test_compare_jvp():
    x = np.array([1.0, 2.0])
    v = np.array([0.5, -1.0])
    t = float(np.sum(3 * x ** 2 * v))
    assert D.compare_jvp(cube, [x], [v], cube(x), t, None)[1] == "PASS"
    assert D.compare_jvp(cube, [x], [v], cube(x) + 1, t, None)[1] == "WRONG"
    assert D.compare_jvp(cube, [x], [v], cube(x), t + 0.1, None)[1] == "WRONG"


def test_checked_outcomes():
    def refuse():
        raise srcad.SrcadError("no")

    def crash():
        raise ZeroDivisionError("boom")

    assert D.checked("rev", 5, refuse)[:2] == ("rev", "REFUSED")
    assert D.checked("rev", 5, crash)[:2] == ("rev", "CRASH")
    assert D.checked("rev", 5, lambda: ("rev", "PASS", ""))[1] == "PASS"
