"""A list of functions chosen by name from a table: ``acts = [ACTS[n] for n in NAMES]``.

A network's activations picked from a module-level dict by a tuple of names, then called by
position in the function differentiated (``acts[i](h)``), was refused ("calling the result of
an expression, taken from a list ... srcad cannot know"): the comprehension is a loop of
appends, whose items lowering does not follow. A comprehension over a tuple of strings that
lowering knows (a global or closure tuple, whose items the guard on the name holds, or a
tuple display of the function) with one ``for``, no ``if`` and no scope of its own in the
item (``lambda``, a nested comprehension: those read the target late) is now the display of
its items (``frontend/lower_loops.unrolled``): ``[ACTS["tanh"], ACTS["sin"]]``, whose calls
are a checked choice among the functions read.

The family: how the names are given (a global tuple, a tuple display, a closure's tuple) x
the item (a dict lookup, a function in a tuple of a dict) x how the list is used (called by
index in a loop, iterated, given to a helper, zipped with weights), against central
differences and
autograd on the same text (pullback, tangent, Hessians in both modes for a sample); the
late-binding lambda stays refused; a table changed after the code was made is caught.
"""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central, vjp_jvp_and_hessians

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

HEAD = """
def bump(z):
    return z / (1.0 + z ** 2)

ACTS = {"tanh": np.tanh, "sin": lambda z: np.sin(z), "arctan": bump}
PAIRS = {"tanh": (np.tanh, 1), "sin": (np.sin, 2), "arctan": (np.arctan, 3)}
NAMES = ("tanh", "sin", "arctan", "tanh")
COEF = (1.0, 0.5, 2.0, 1.5)

def run_all(acts, h, w):
    for a in acts:
        h = a(w[0] * h) + w[1]
    return h
"""

ITEMS = {"table": "ACTS[n]", "pair": "PAIRS[n][0]"}

NAMES_FROM = {
    "global": ("def f(w, x):\n", "NAMES"),
    "display": ("def f(w, x):\n    names = (\"tanh\", \"sin\", \"arctan\", \"tanh\")\n",
                "names"),
    "closure": ("def make(names):\n    def f(w, x):\n", "names"),
}

USES = {
    "index": ("h = x\nfor i in range(len(acts)):\n    h = acts[i](w[0] * h) + w[1]\n"
              "return np.sum(h ** 2)\n"),
    "iterate": "h = x\nfor a in acts:\n    h = a(w[0] * h)\nreturn np.sum(h * w[1])\n",
    "helper": "return np.sum(run_all(acts, x, w) ** 2)\n",
    "zip": ("h = x\nfor a, c in zip(acts, COEF):\n    h = c * a(w[0] * h)\n"
            "return np.sum(h) * w[1]\n"),
}

CASES = list(itertools.product(NAMES_FROM, ITEMS, USES))
W0 = np.array([0.7, -0.2])
X0 = np.array([0.3, -0.5, 1.2])


def _text(names_from, item, use):
    head, names = NAMES_FROM[names_from]
    indent = "        " if names_from == "closure" else "    "
    body = f"acts = [{ITEMS[item]} for n in {names}]\n" + USES[use]
    text = head + textwrap.indent(body, indent)
    if names_from == "closure":
        text += "    return f\n\nf = make(NAMES)\n"
    return HEAD + text


@pytest.mark.parametrize("names_from,item,use", sample(CASES, 3))
def test_functions_chosen_by_name(names_from, item, use, tmp_path):
    text = _text(names_from, item, use)
    m = load_module(tmp_path, NP + text)
    a = load_module(tmp_path, AG + text)
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(m.f(W0, X0), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W0, X0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("names_from,item,use", sample(CASES, 8))
def test_functions_chosen_by_name_twice(names_from, item, use, tmp_path):
    text = _text(names_from, item, use)
    m = load_module(tmp_path, NP + text)
    a = load_module(tmp_path, AG + text)
    vjp_jvp_and_hessians(m.f, a.f, W0, X0, np.random.default_rng(5))


def test_the_list_is_a_display_in_the_code(tmp_path):
    m = load_module(tmp_path, NP + _text("global", "table", "index"))
    g = srcad.grad(m.f)
    g(W0, X0)
    text = srcad.source(g)
    assert "ACTS['tanh'], ACTS['sin'], ACTS['arctan'], ACTS['tanh']" in text
    assert "acts.append" not in text and "items.append" not in text


LATE = """
ACTS = {"tanh": np.tanh, "sin": np.sin}
NAMES = ("tanh", "sin")

def late(w, x):
    acts = [lambda z: ACTS[n](z) for n in NAMES]  # every lambda reads the last n
    h = x
    for a in acts:
        h = a(w[0] * h)
    return np.sum(h)

def table(w, x):
    acts = [ACTS[n] for n in NAMES]
    h = x
    for i in range(len(acts)):
        h = acts[i](w[0] * h)
    return np.sum(h)
"""


def test_a_lambda_reading_the_name_late_stays_a_loop(tmp_path):
    m = load_module(tmp_path, NP + LATE)
    with pytest.raises(srcad.SrcadError, match="calling"):
        srcad.grad(m.late)(W0, X0)


def test_a_table_changed_after_the_code_was_made_is_caught(tmp_path):
    m = load_module(tmp_path, NP + LATE)
    g = srcad.grad(m.table)
    np.testing.assert_allclose(g(W0, X0), central(m.table, (W0, X0), 0), rtol=1e-6)
    m.ACTS["sin"] = np.cos  # (outside24) the code made again (a SrcadError before)
    np.testing.assert_allclose(g(W0, X0), central(m.table, (W0, X0), 0), rtol=1e-6)


HELD = """
class Net:
    def __init__(self, acts):
        self.acts = acts

    def loss(self, w, x):
        h = x
        for i in range(len(self.acts)):
            h = self.acts[i](w[0] * h) + w[1]
        return np.sum(h ** 2)
"""


def test_functions_in_a_list_attribute(tmp_path):
    """(outside23) a list attribute of functions is read when the code runs, each call one of
    the functions it held when the code was made (tests/test_outside23_held_lists.py)."""
    m = load_module(tmp_path, NP + HELD)
    for acts in ([np.tanh, np.sin], (np.tanh, np.sin)):
        f = m.Net(acts).loss
        np.testing.assert_allclose(srcad.grad(f)(W0, X0), central(f, (W0, X0), 0), rtol=1e-6,
                                   atol=1e-8)
