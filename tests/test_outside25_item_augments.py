"""``Ws[k] += e`` (any operator) on a list or dict of arrays built by a comprehension or by
``append`` in a loop (issue 16, outside25): the parameter lists of small networks
(``params[k] -= lr * g``). Refused before ("Ws may hold it too": one statement made every
item, so the alias analysis cannot tell the places apart); now checked when the code runs
that the item stands alone in its container (``frontend/item_checks.py``): no other item is
it, holds it or shares its memory. The check is kept only where the analysis relies on it
(a list display's places are told apart where the code is made). Generated family (how the
list is made x how it is written) against central differences and autograd; shared items
raise ``MutationError`` at the line when the code runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

MAKE = {
    "comprehension": "Ws = [w * (k + 1.0) for k in range(3)]",
    "append": "Ws = []\n    for k in range(3):\n        Ws.append(np.sin(w) * (k + 1.0))",
    "dict": "Ws = {}\n    for k in range(3):\n        Ws[k] = w * w + k",
    "zeros": "Ws = [np.zeros(3) for _ in range(3)]\n    for k in range(3):\n"
             "        Ws[k] += w * (k + 0.5)",
}
WRITE = {
    "sgd": "gs = [np.cos(Ws[k]) for k in range(3)]\n    for k in range(3):\n"
           "        Ws[k] -= 0.1 * gs[k]",
    "scale": "for k in range(3):\n        Ws[k] *= w[k]",
    "next": "for i in range(2):\n        Ws[i + 1] += Ws[i] * w[0]",
    "once": "Ws[1] /= 2.0 + w[2] ** 2",
}
TEXT = """
def f(w):
    {make}
    {write}
    h = w
    for k in range(3):
        h = np.tanh(Ws[k] * h + 0.1)
    return np.sum(h * h) + np.sum(Ws[0])
"""
CASES = list(itertools.product(MAKE, WRITE))
#: by default each way of making the list once, each write at least once
DIAGONAL = [(make, list(WRITE)[i % len(WRITE)]) for i, make in enumerate(MAKE)]


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("make,write", CASES if LONG else DIAGONAL)
def test_item_augments_on_lists_made_in_loops(make, write, tmp_path):
    text = TEXT.format(make=MAKE[make], write=WRITE[write])
    m = load_module(tmp_path, NP + text)
    g = srcad.grad(m.f)(W.copy())
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
    if make != "zeros":  # (autograd writes into no array: np.zeros(3) += box fails)
        a = load_module(tmp_path, AG + text)
        np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy()), rtol=1e-10, atol=1e-12)


def test_the_check_is_left_out_where_places_are_told_apart():
    def display(x):
        ys = [x * 1.0, x * 2.0]
        ys[1] += x
        return np.sum(ys[0] * ys[1])

    def made(w):
        Ws = [w * (k + 1.0) for k in range(2)]
        for k in range(2):
            Ws[k] += w
        return np.sum(Ws[0] * Ws[1])

    g, h = srcad.grad(display), srcad.grad(made)
    assert g(np.ones(2)) == pytest.approx(6.0 * np.ones(2))
    assert h(W) == pytest.approx(12.0 * W)  # (2w * 3w)
    assert "check_item_alone" not in srcad.source(g)
    assert "check_item_alone" in srcad.source(h)


SHARED = {
    "repeat": "Ws = [w * 1.0] * 3",
    "one-object": "a = w * 1.0\n    Ws = [a for _ in range(3)]",
    "views": "b = np.concatenate([w, w]) * 1.0\n    Ws = [b[k:k + 3] for k in range(3)]",
    "nested": "a = w * 1.0\n    Ws = [a, [a], w * 2.0]",
}


@pytest.mark.parametrize("make", sorted(SHARED))
def test_shared_items_are_refused_when_the_code_runs(make, tmp_path):
    text = (f"def f(w):\n    {SHARED[make]}\n    for k in range(1):\n        Ws[k] += w\n"
            "    return np.sum(Ws[0] * w) + np.sum(Ws[2])\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.MutationError, match=r"line \d+: Ws\[k\] \+= ") as err:
        srcad.grad(m.f)(W.copy())
    assert "Ws[k] += ..." in str(err.value) and "Ws[k] = Ws[k] + ..." in str(err.value)


def test_another_name_holding_the_item_stays_refused(tmp_path):
    text = ("def f(w):\n    Ws = [w * (k + 1.0) for k in range(3)]\n    W0 = Ws[0]\n"
            "    Ws[0] += w\n    return np.sum(W0 * w)\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.MutationError, match="W0 may hold it too"):
        srcad.grad(m.f)(W.copy())


@pytest.mark.skipif(not LONG, reason="second order: the long run")
def test_second_derivatives_match_central_differences(tmp_path):
    text = ("def f(w):\n    Ws = [w * (k + 1.0) for k in range(2)]\n    for k in range(2):\n"
            "        Ws[k] -= 0.1 * np.sin(Ws[k])\n    return np.sum(Ws[0] * Ws[1])\n")
    m = load_module(tmp_path, NP + text)
    h = srcad.hessian(m.f)(W.copy())
    g = srcad.grad(m.f)
    fd = np.array([(g(W + 1e-6 * e) - g(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def test_second_order_keeps_the_check(tmp_path):
    """A derivative differentiated again reads the first derivative's code: the check
    there is kept (it was dropped as 'not relied on': a wrong Hessian for shared items)."""
    m = load_module(tmp_path, NP + "def shared(w):\n    a = w * 1.0\n    Ws = [a, a]\n"
                    "    for k in range(1):\n        Ws[k] += w\n    return np.sum(Ws[1] * w)\n")
    for second in (srcad.hessian(m.shared), srcad.grad(lambda x: srcad.grad(m.shared)(x)[0])):
        with pytest.raises(srcad.MutationError, match="Ws\\[k\\] \\+= "):
            second(W.copy())
