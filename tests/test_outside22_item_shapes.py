"""An item of a list or dict replaced by a value of another shape (round 22's outside programs).

``c = [t[0] * t[0], t[1] * x]`` then ``c[0] = c[0] + x`` (a number made an array): the
gradient flowing past the write to the old list is the list's gradient with the written item
zeroed (``runtime.cleared``). That zero was made like the *new* item (an array), and the old
item's gradient (a number) was then added into it, so the number ``t[0] * t[0]`` received an
array: the gradient of ``t`` had the broadcast shape, its values right (a wrong gradient by
shape, silent for a scalar argument). The zero at a number's or an array's place is now the
number 0.0, which adds to any shape.

The family: the container (a list display, a copy of one with ``list(...)``, a dict) x how the
item is replaced (``c[k] = c[k] + x``, ``c[k] += x``, a product with the old item, a value not
reading it) x the index (a constant, a loop over the items), against central differences and
autograd on the same text (pullback, tangent, Hessians in both modes), with the gradient's
shape checked: the old item a number in every case.

Forward mode, not told the arguments' ranks, refused ``c[0] += x`` on
``[t[0] * t[0], x][0]`` as possibly a list holding ``x``'s rows: the memory model now reads the
item a display holds at a constant place when the list is only indexed
(``analysis/memory._may_be_list``); and ``c[2] += x`` on ``c[2] = t[1]`` until forward mode
was told the arguments' ranks (as reverse mode is: the cache key holds them).
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

MAKES = {
    "list": "    c = [t[0] * t[0], np.sin(t[1]) * x, t[1]]\n",
    "copy": "    v = [t[0] * t[0], np.sin(t[1]) * x, t[1]]\n    c = list(v)\n",
    "dict": "    c = {0: t[0] * t[0], 1: np.sin(t[1]) * x, 2: t[1]}\n",
}

WRITES = {
    "plus": "c[{k}] = c[{k}] + x",
    "augmented": "c[{k}] += x",
    "product": "c[{k}] = np.cos(x) * c[{k}]",
    "unread": "c[{k}] = x * t[1]",
}

INDEX = {
    "constant": "    {write}\n    {write2}\n",
    "loop": "    for k in (0, 2):\n        {write}\n",
}

# (a dict's c[k] += x is refused: its places are not told apart, the item may be an array
# another key holds too)
CASES = [c for c in itertools.product(MAKES, WRITES, INDEX) if c[:2] != ("dict", "augmented")]
T0 = np.array([0.7, -0.4])
X0 = np.array([0.3, -0.5, 1.2])


def _text(make, write, index):
    w = WRITES[write]
    if index == "constant":
        body = INDEX[index].format(write=w.format(k=0), write2=w.format(k=2))
    else:
        body = INDEX[index].format(write=w.format(k="k"))
    return ("def f(t, x):\n" + MAKES[make] + body
            + "    return np.sum(c[0] * c[1]) + np.sum(c[2] ** 2)\n")


def test_the_text_replaces_both_items():
    text = _text("list", "plus", "constant")
    assert "c[0] = c[0] + x" in text and "c[2] = c[2] + x" in text


@pytest.mark.parametrize("make,write,index", sample(CASES, 4))
def test_an_item_replaced_by_a_value_of_another_shape(make, write, index, tmp_path):
    text = _text(make, write, index)
    m = load_module(tmp_path, NP + textwrap.dedent(text))
    a = load_module(tmp_path, AG + textwrap.dedent(text))
    value, g = srcad.value_and_grad(m.f)(T0, X0)
    assert value == pytest.approx(m.f(T0, X0), rel=1e-12)
    assert np.shape(g) == T0.shape
    np.testing.assert_allclose(g, central(m.f, (T0, X0), 0), rtol=1e-6, atol=1e-8)
    vjp_jvp_and_hessians(m.f, a.f, T0, X0, np.random.default_rng(3))


@pytest.mark.parametrize("make", list(MAKES))
def test_a_scalar_argument_gets_a_number(make, tmp_path):
    """The smallest form: ``srcad.grad`` of a float argument, the item made an array."""
    text = ("def f(w, x):\n" + MAKES[make].replace("t[0]", "w").replace("t[1]", "w")
            + "    c[0] = c[0] + x\n    return np.sum(c[0]) + np.sum(c[1])\n")
    m = load_module(tmp_path, NP + textwrap.dedent(text))
    g = srcad.grad(m.f)(0.7, X0)
    assert np.ndim(g) == 0
    want = (m.f(0.7 + 1e-6, X0) - m.f(0.7 - 1e-6, X0)) / 2e-6
    assert g == pytest.approx(want, rel=1e-6)
    assert srcad.tape.grad(m.f)(0.7, X0) == pytest.approx(g, rel=1e-12)


def test_forward_mode_reads_the_item_a_display_holds(tmp_path):
    """``c = [t[0] * t[0], x]; c[0] += x``: the item at place 0 is a product, a new number or
    array, never a list (which ``+= x`` would extend with ``x``'s rows): the tangent is taken."""
    text = ("def f(t, x):\n    c = [t[0] * t[0], x]\n    c[0] += x\n"
            "    return np.sum(c[0] * c[1])\n")
    m = load_module(tmp_path, NP + textwrap.dedent(text))
    v = np.array([0.3, -0.8])
    _, tangent = srcad.jvp(m.f, (T0, X0), (v,), wrt=(0,))
    np.testing.assert_allclose(tangent, central(m.f, (T0, X0), 0) @ v, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tangent, srcad.grad(m.f)(T0, X0) @ v, rtol=1e-12)
