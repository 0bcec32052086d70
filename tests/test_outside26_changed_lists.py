"""A function of the user's changing a list it is given, called on a list the differentiated
function built (issue 16, outside26; ``srcad/frontend/changed_lists.py``): ``sgd(ps, gs, lr)``
writing ``ps[i] = ...``, ``push(xs, v)`` appending, two lists changed, a result returned too,
in a loop. Refused before ("sgd(...) changes what it is given in place: ps is read
afterwards"). Generated family (callee x caller) against central differences and autograd;
what another name could see (an alias, the function's own argument, the list given twice, a
loop over it around the call) stays refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.7, 1.1])

CALLEES = """
def sgd(ps, gs, lr):
    for i in range(len(ps)):
        ps[i] = ps[i] - lr * gs[i]

def push(ps, gs, lr):
    ps.append(ps[0] * gs[1] * lr)

def step(ps, gs, lr):
    ps[0] = ps[0] * np.cos(gs[0])
    ps[1] = ps[1] + lr * ps[0]
    return np.sum(ps[1])

def both(ps, gs, lr):
    ps[0] = ps[0] + gs[1] * lr
    gs[1] = gs[1] * ps[0]

def grads(ps):
    return [np.sin(ps[0]) * ps[1], ps[0] * ps[1]]
"""
CALLERS = {
    "once": "def f(w):\n    ps = [w, w * 2.0]\n    gs = [w * 3.0, np.sin(w)]\n"
            "    {call}\n    return np.sum(ps[0] * ps[-1]) + np.sum(gs[1])\n",
    "loop": "def f(w):\n    ps = [w, np.cos(w)]\n    for k in range(3):\n"
            "        gs = grads(ps)\n        {call}\n    return np.sum(ps[0] * ps[-1])\n",
    "assigned": "def f(w):\n    ps = list([w, w * w])\n    gs = [np.exp(w), w]\n"
                "    r = {call}\n    return np.sum(ps[0] * ps[-1]) + np.sum(r * 0.0 + 1.0) * 0.0"
                " + np.sum(np.stack(ps[:2]))\n",
}
CALLS = {"sgd": "sgd(ps, gs, 0.1)", "push": "push(ps, gs, 0.5)", "step": "step(ps, gs, lr=0.2)",
         "both": "both(ps, gs, 0.3)"}
CASES = [(c, k) for c, k in itertools.product(CALLS, CALLERS)
         if not (k == "assigned" and c in ("sgd", "push", "both"))] + [("sgd", "assigned")]
SOME = CASES[::4] if not LONG else CASES


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("callee,caller", SOME)
def test_a_callee_changing_a_list_built_here(callee, caller, tmp_path):
    text = CALLEES + CALLERS[caller].replace("{call}", CALLS[callee])
    if caller == "assigned" and callee == "sgd":
        text = text.replace("np.sum(r * 0.0 + 1.0) * 0.0", "0.0")
    m = load_module(tmp_path, NP + text)
    g = srcad.grad(m.f)(W.copy())
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + text)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy()), rtol=1e-10, atol=1e-12)


REFUSED = {
    # "argument" (sgd(ps, ...) on the function's own list ps): differentiated since state36,
    # the caller's list left as the plain run leaves it (tests/test_state36_written_state.py)
    "alias": "def f(w, ps):\n    ps = [w, w * 2.0]\n    qs = ps\n    sgd(ps, [w, w], 0.1)\n"
             "    return np.sum(qs[0] * w)\n",
    "given twice": "def f(w, ps):\n    ps = [w, w * 2.0]\n    sgd(ps, ps, 0.1)\n"
                   "    return np.sum(ps[0] * w)\n",
    "loop over it": "def f(w, ps):\n    ps = [w, w * 2.0]\n    s = 0.0\n    for p in ps:\n"
                    "        sgd(ps, [w, w], 0.1)\n        s = s + np.sum(p)\n    return s\n",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_another_name_could_see_stays_refused(case, tmp_path):
    m = load_module(tmp_path, NP + CALLEES + REFUSED[case])
    with pytest.raises(srcad.SrcadError):
        srcad.grad(m.f)(W.copy(), [W.copy(), W * 2.0])


# (outside26) WRONG GRADIENT before: a function of yours changing the arrays a list it is given
# holds (qs = list(ps); qs[i] -= v: ndarray's -= in place) was reported as changing the list
# ps only, so the caller's a = w * 2.0 (an item of ps) read afterwards kept its old value in
# srcad's gradient ([5.37, -6.26, 13.85] for [5.27, -6.36, 13.75]). A write into what a
# parameter holds is now checked against every name holding those objects.
ITEMS = """
def sgd2(ps, gs, lr):
    qs = list(ps)
    for i in range(len(qs)):
        qs[i] -= lr * gs[i]
    return qs

def sgd3(ps, gs, lr):
    for i in range(len(ps)):
        ps[i] -= lr * gs[i]
"""
ITEM_CALLERS = {
    "copy in the callee": ("    qs = sgd2(ps, [w, w * w], 0.1)\n", "qs"),
    "the list changed": ("    sgd3(ps, [w, w * w], 0.1)\n", "ps"),
}


@pytest.mark.parametrize("how,reads_item", [
    (h, r) for h in sorted(ITEM_CALLERS) for r in (True, False) if LONG or r])
def test_a_callee_changing_the_arrays_a_list_holds(how, reads_item, tmp_path):
    call, result = ITEM_CALLERS[how]
    text = ITEMS + ("def f(w):\n    a = w * 2.0\n    ps = [a, w * 3.0]\n" + call +
                    f"    return np.sum({result}[0] * {result}[1])" +
                    (" + np.sum(a)\n" if reads_item else "\n"))
    m = load_module(tmp_path, NP + text)
    if reads_item:
        with pytest.raises(srcad.SrcadError, match="a holds one and is read afterwards"):
            srcad.grad(m.f)(W.copy())
        return
    g = srcad.grad(m.f)(W.copy())
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
