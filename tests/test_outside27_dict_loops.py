"""``for k in params`` over a dict a function of the user's is given (issue 16, outside27):
the caller's certain dict arguments (a dict argument, a display, ``dict(...)``) reach the
callee's kinds (``*dicts``, ``srcad/analysis/elems.py``), so the loop reads the keys, as it
does for a dict argument of the function differentiated. Refused before as "a dict key that
depends on a differentiated value". Generated family (callee x caller) against central
differences and autograd, in reverse and forward mode."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
P = {"w": np.array([0.3, -0.7]), "b": 1.3}

CALLEES = """
def scaled(params, lr):
    return {k: params[k] * lr for k in params}

def update(params, grads, lr):
    return {k: params[k] - lr * grads[k] for k in params}

def total(params, lr):
    s = 0.0
    for k in params:
        s = s + np.sum(np.tanh(params[k]) * lr)
    return {"w": params["w"] * s, "b": s}

def passed(params, lr):
    return scaled(params, lr)
"""
CALLERS = {
    "argument": "def f(w, b):\n    p = {{'w': w, 'b': b}}\n    return g(p)\n\n"
                "def g(p):\n    q = {call}\n    return np.sum(q['w'] ** 2) + q['b'] ** 3\n",
    "display": "def f(w, b):\n    q = {call}\n    return np.sum(q['w'] ** 2) + q['b'] ** 3\n",
    "built": "def f(w, b):\n    p = dict(w=w * 2.0, b=b)\n    q = {call}\n"
             "    return np.sum(q['w'] * w) + q['b'] * b\n",
}
CALLS = {
    "scaled": "scaled({p}, 0.7)",
    "update": "update({p}, {{'w': {p}['w'] * 3.0, 'b': {p}['b'] ** 2}}, 0.1)",
    "total": "total({p}, 0.5)",
    "passed": "passed({p}, 0.4)",
}
CASES = list(itertools.product(CALLS, CALLERS))
SOME = CASES if LONG else [("update", "display")]


def _text(callee, caller):
    p = {"argument": "p", "display": "{'w': w, 'b': b}", "built": "p"}[caller]
    call = CALLS[callee].format(p=p)
    return CALLEES + CALLERS[caller].replace("{call}", call).replace("{{", "{").replace(
        "}}", "}")


def _fd(f, w, b):
    gw = np.array([(f(w + 1e-6 * e, b) - f(w - 1e-6 * e, b)) / 2e-6 for e in np.eye(len(w))])
    return gw, (f(w, b + 1e-6) - f(w, b - 1e-6)) / 2e-6


@pytest.mark.parametrize("callee,caller", SOME)
def test_a_loop_over_a_dict_given_to_a_callee(callee, caller, tmp_path):
    text = _text(callee, caller)
    m = load_module(tmp_path, NP + text)
    gw, gb = srcad.grad(m.f, argnums=(0, 1))(P["w"], P["b"])
    fw, fb = _fd(m.f, P["w"], P["b"])
    np.testing.assert_allclose(gw, fw, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, fb, rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + text)
    aw, ab = autograd.grad(a.f, (0, 1))(P["w"], P["b"])
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, ab, rtol=1e-10, atol=1e-12)
    tw, tb = np.array([0.4, -1.2]), 0.9
    _, tangent = srcad.jvp(m.f, (P["w"], P["b"]), (tw, tb))
    np.testing.assert_allclose(tangent, np.dot(gw, tw) + gb * tb, rtol=1e-9, atol=1e-12)


def test_the_top_level_dict_argument(tmp_path):
    m = load_module(tmp_path, NP + CALLEES + "def f(p):\n    q = update(p, p, 0.1)\n"
                    "    return np.sum(q['w'] ** 2) + q['b'] ** 2\n")
    g = srcad.grad(m.f)(P)
    np.testing.assert_allclose(g["w"], 2 * 0.81 * P["w"], rtol=1e-12)
    np.testing.assert_allclose(g["b"], 2 * 0.81 * P["b"], rtol=1e-12)
