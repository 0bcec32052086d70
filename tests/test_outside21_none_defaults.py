"""``if y is None: y = X`` at the top of a helper given ``None`` (round 21's outside programs).

Met in jejjohnson/gp_autograd (``rbf_covariance(self, X, y=None, ...)`` starting ``if y is
None: y = X``, its result then changed in place by the caller): the copy of the helper made for
a call passing ``None`` knows the parameter is ``None`` (``functions.Flag``), but its ``if`` was
kept (``t = True; if t: y = X else: y = None``, the name rebound in the arm), so the result's
kind was "any" and ``K[:, 0] += v`` on it was refused ("the item may be an array ... and K may
hold it too"). An ``if`` (or a ternary assigned) among the body's own statements, on a
parameter no statement before it binds, now takes its one way (``frontend/lower_stmts.
unrebound_tests``); a name bound before the test, or a test in a loop, keeps both ways.

The family: how the helper replaces ``None`` (``if``, ``if ... is not None: ... else:``, two
ternaries) x how the call gives it (left to the default, ``None`` positionally, by keyword) x
the caller's in-place change, against central differences and autograd on the same text (the
changes written as new values for autograd); the generated helper has no branch; a name bound
before its test still takes both ways.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

REPLACES = {
    "if": "    if y is None:\n        y = X\n",
    "if_not": "    if y is not None:\n        y = y * 1.0\n    else:\n        y = X\n",
    "ternary": "    y = X if y is None else y\n",
    "ternary_not": "    y = y if y is not None else X\n",
}

CALLS = {
    "left": "kern(X, s=np.exp(t[0]))",
    "positional": "kern(X, None, np.exp(t[0]))",
    "keyword": "kern(X, y=None, s=np.exp(t[0]))",
}

WRITES = {  # (in place, as a new value for the autograd twin)
    "column": ("K[:, 0] += t[1]", "K = K + t[1] * (np.arange(K.shape[1]) == 0)"),
    "row": ("K[1] += t[1] * K[0]", "K = K + (np.arange(K.shape[0]) == 1)[:, None] * t[1] * K[0]"),
}

CASES = list(itertools.product(REPLACES, CALLS, WRITES))
XG = np.random.RandomState(7).randn(4, 2)
T0 = np.array([0.3, 0.7])


def _text(replace, call, write, twin):
    return ("def kern(X, y=None, s=1.0):\n" + REPLACES[replace]
            + "    d = X[:, None, :] - y[None, :, :]\n"
            "    return s * np.exp(-0.5 * np.sum(d ** 2, axis=2))\n\n"
            f"def objective(t, X):\n    K = {CALLS[call]}\n    {WRITES[write][twin]}\n"
            "    return np.sum(K ** 2) + np.sum(K[:, 0] * X[:, 0])\n")


def _module(tmp_path, text, numpy_name, tag):
    path = tmp_path / f"none21_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("replace,call,write", sample(CASES, 4))
def test_a_none_replaced_at_the_top_of_the_helper(replace, call, write, tmp_path):
    tag = f"{replace}_{call}_{write}"
    m = _module(tmp_path, _text(replace, call, write, 0), "numpy", tag)
    a = _module(tmp_path, _text(replace, call, write, 1), "autograd.numpy", tag + "_ag")
    value, g = srcad.value_and_grad(m.objective)(T0, XG)
    assert value == pytest.approx(m.objective(T0, XG), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(a.objective)(T0, XG), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, central(m.objective, (T0, XG), 0), rtol=1e-6, atol=1e-8)


def test_the_helper_made_for_none_has_no_branch(tmp_path):
    m = _module(tmp_path, _text("if", "left", "column", 0), "numpy", "code")
    g = srcad.grad(m.objective)
    g(T0, XG)
    text = srcad.source(g)
    helper = text[text.index("def kern_fwd"):]
    helper = helper[:helper.index("\ndef ", 1)]
    assert "if " not in helper and " = None" not in helper and "y_1" not in helper


BOTH_WAYS = """
def bound_first(X, y=None):
    y = None if X.shape[0] > 10 else X * 2.0
    if y is None:
        return X * 0.0
    return y

def in_a_loop(X, y=None):
    out = X
    for _ in range(3):
        if y is None:
            y = X
        else:
            y = y * 2.0
        out = out + y
    return out

def objective_bound_first(t, X):
    K = bound_first(X * t[0])
    return np.sum(K ** 2) + t[1]

def objective_in_a_loop(t, X):
    K = in_a_loop(X * t[0])
    return np.sum(K ** 2) + t[1]
"""


@pytest.mark.parametrize("name", ["objective_bound_first", "objective_in_a_loop"])
def test_a_name_bound_before_its_test_keeps_both_ways(name, tmp_path):
    """Not the parameter's value where the test runs: the test is read, never folded."""
    m = _module(tmp_path, BOTH_WAYS, "numpy", "both_" + name)
    f = getattr(m, name)
    g = srcad.grad(f)(T0, XG)
    np.testing.assert_allclose(g, central(f, (T0, XG), 0), rtol=1e-6, atol=1e-8)
