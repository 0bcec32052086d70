"""tools/pytest_functions.py: a package's pytest module run as a program (round 30 ran
SurPyval's suites so) calls each test as pytest would: parametrize cases, fixtures of the
module and of a conftest beside it, ``tmp_path``, classes; a test needing anything else is
left out; a failure does not stop the next test."""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import pytest_functions  # noqa: E402

SUITE = '''
import pytest

CALLS = []


@pytest.fixture
def base(scale):
    return 10 * scale


@pytest.mark.parametrize("a, b", [(1, 2), pytest.param(3, 4)])
@pytest.mark.parametrize("c", [5, 6])
def test_pairs(a, b, c):
    CALLS.append((a, b, c))


def test_fixtures(base, tmp_path):
    CALLS.append(("base", base, tmp_path.is_dir()))


def test_fails():
    CALLS.append("fails")
    raise AssertionError("the suite's own failure")


def test_needs_unknown(monkeypatch):
    CALLS.append("never")


def test_skips():
    pytest.skip("not here")


class TestGroup:
    def setup_method(self, method):
        self.k = 7

    def test_method(self):
        CALLS.append(("method", self.k))
'''

CONFTEST = '''
import pytest


@pytest.fixture
def scale():
    yield 3
'''


def test_a_suite_runs_as_pytest_would(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    path = tmp_path / "test_suite.py"
    path.write_text(SUITE)
    namespace = runpy.run_path(str(path))
    assert pytest_functions.is_test_module(str(path), namespace)
    ran, skipped, failures = pytest_functions.run_tests(str(path), namespace)
    calls = namespace["CALLS"]
    assert sorted(c for c in calls if isinstance(c, tuple) and len(c) == 3
                  and isinstance(c[0], int)) == [(1, 2, 5), (1, 2, 6), (3, 4, 5), (3, 4, 6)]
    assert ("base", 30, True) in calls and ("method", 7) in calls and "fails" in calls
    assert "never" not in calls
    assert (ran, skipped) == (7, 2)
    assert [name for name, _ in failures] == ["test_fails"]


def test_a_module_without_tests_is_a_program(tmp_path):
    path = tmp_path / "test_nothing.py"
    path.write_text("x = 1\n")
    assert not pytest_functions.is_test_module(str(path), runpy.run_path(str(path)))
