"""The Tangent-fork test harness (tools/tangent_tests.py with tools/tangent_shim.py) judges
correctly: the shim keeps Tangent's calling conventions, calls a wrong derivative WRONG
against finite differences (never against srcad), and the runner classifies outcomes. The
end-to-end run of two of the fork's files needs its fetched mirror and skips without it."""

import json
import os
import sys

import numpy as np
import pytest

import srcad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tangent_shim as shim  # noqa: E402
import tangent_tests as runner  # noqa: E402


@srcad.extend.defvjp(x="g * 3.0 * x")  # wrong on purpose: the derivative of x * x is 2 * x
def bad_square(x):
    return x * x


def uses_bad(x):
    return bad_square(x) + x


def two(x, y):
    return x * x * y


def pair(x):
    return x * x, 3.0 * x


def vector(x):
    return np.sin(x) * 2.0


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    monkeypatch.setenv("SRCAD_TANGENT_LOG", str(path))
    return path


def records(path):
    return [json.loads(line) for line in open(path)] if path.exists() else []


def test_tangent_conventions(log):
    assert shim.grad(two)(2.0, 3.0) == pytest.approx(12.0)
    dx, dy = shim.grad(two, wrt=(0, 1))(2.0, 3.0)
    assert (dx, dy) == (pytest.approx(12.0), pytest.approx(4.0))
    g, value = shim.grad(two, preserve_result=True)(2.0, 3.0)
    assert (g, value) == (pytest.approx(12.0), pytest.approx(12.0))
    assert shim.grad(pair)(2.0) == pytest.approx(4.0 + 3.0)  # the sum of the outputs
    assert shim.grad(pair, output_index=1)(2.0) == pytest.approx(3.0)
    assert shim.grad(pair, output_weights=(0.5, 2.0))(2.0) == pytest.approx(2.0 + 6.0)
    x = np.array([0.1, 0.7])
    assert np.allclose(shim.grad(vector)(x), 2.0 * np.cos(x))  # seeded with ones
    with pytest.raises(ValueError):
        shim.grad(pair, output_index=0, output_weights=(1.0, 1.0))
    assert records(log) == []  # every derivative above agreed with finite differences


def test_a_wrong_derivative_is_recorded(log):
    shim.grad(uses_bad)(1.5)
    wrong = [r for r in records(log) if r["kind"] == "WRONG"]
    assert len(wrong) == 1  # named by the test running (pytest sets PYTEST_CURRENT_TEST)
    assert wrong[0]["test"].endswith("test_a_wrong_derivative_is_recorded")


def test_tangent_machinery_is_unsupported():
    with pytest.raises(shim.Unsupported):
        shim.missing("quoting")
    with pytest.raises(AttributeError):
        shim.missing("__path__")
    with pytest.raises(shim.Unsupported):
        shim.autodiff(two, mode="forward")


def test_classification():
    def verdict(outcome, message, srcad_in=False):
        return runner.classify({"outcome": outcome, "message": message, "srcad": srcad_in},
                               None)[0]
    assert verdict("passed", "") == "PASS"
    assert verdict("failed", "E   srcad.errors.MissingRuleError: f.py, line 3: ...") == "REFUSED"
    assert verdict("failed", "E   tangent_shim.Unsupported: tangent.cfg") == "UNSUPPORTED"
    assert verdict("failed", "E       AssertionError: Expected 6.0, got 5.0") == "MISMATCH"
    assert verdict("failed", "E   KeyError: 'x'", srcad_in=True) == "CRASH"
    assert verdict("failed", "E   KeyError: 'x'") == "ERROR"
    assert runner.classify({"outcome": "passed", "message": ""}, "wrong")[0] == "WRONG"


@pytest.mark.skipif(not os.path.isdir(runner.DEFAULT_REPO),
                    reason="needs the Tangent fork's mirror (fetch github:pedronahum/tangent)")
def test_two_files_end_to_end(tmp_path):
    out = tmp_path / "r.json"
    code = runner.main(["--only", "test_classes.py", "test_multi_output_grad.py",
                        "--json", str(out)])
    counts = json.load(open(out))["counts"]
    assert code == 0 and counts.get("PASS", 0) >= 20
    assert not (set(counts) - {"PASS", "SKIP"})
