"""Copies of a list written item by item: ``c = v[:]`` / ``v.copy()`` / ``list(v)``, then
``c[i] += e`` (round 22's classes).

For a list, the three make the same new list of the same items; an item that is an array is
shared by both lists, so ``c[i] += e`` changes it in ``v`` too. srcad followed the items of
``list(v)`` only: after ``v[:]`` or ``v.copy()`` the augmented write was refused ("c may hold
it too") even where ``v``'s items are never read again. A name bound only to lists has its
``v[:]`` and ``v.copy()`` read as ``list(v)`` (``frontend/list_slices``); the write is then
taken when ``v``'s items are not read afterwards and refused, naming ``v``, when they are.

The family: the copy x the write (a constant index, a loop over the indices, ``*=``) x the
items (arrays; a number and arrays), against central differences and autograd on the same text
(where autograd's boxes are new objects, NumPy changes ``v``'s items in place: the same values
while ``v`` is not read); and the refusal when ``v`` is read afterwards.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

COPIES = {"list": "list(v)", "slice": "v[:]", "method": "v.copy()"}
WRITES = {
    "constant": "    c[1] += x\n    c[0] += x * w[1]\n",
    "loop": "    for i in range(len(c)):\n        c[i] += x * w[i % 2]\n",
    "times": "    c[1] *= w[0]\n    c[2] *= x\n",
}
ITEMS = {
    "arrays": "    v = [w[0] * x, w[1] + x, np.sin(w[0]) * x]\n",
    "mixed": "    v = [w[0] * x, w[1] + x, w[0] * w[1]]\n",
}
CASES = list(itertools.product(COPIES, WRITES, ITEMS))
W0 = np.array([0.7, -0.4])
X0 = np.array([0.3, -0.5, 1.2])


def _text(copy, write, items, read_v=False):
    tail = " + np.sum(v[1])" if read_v else ""
    return ("def f(w, x):\n" + ITEMS[items] + f"    c = {COPIES[copy]}\n" + WRITES[write]
            + f"    return np.sum(c[0] * c[1]) + np.sum(c[2] ** 2){tail}\n")


@pytest.mark.parametrize("copy,write,items", sample(CASES, 3))
def test_a_copy_written_item_by_item(copy, write, items, tmp_path):
    m = load_module(tmp_path, NP + _text(copy, write, items))
    a = load_module(tmp_path, AG + _text(copy, write, items))
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(m.f(W0, X0), rel=1e-12)
    assert np.shape(g) == W0.shape
    np.testing.assert_allclose(g, autograd.grad(a.f)(W0, X0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("copy", list(COPIES))
def test_the_original_read_afterwards_is_refused(copy, tmp_path):
    """Python changed ``v[1]`` through ``c[1] += x``: refused at the line, naming ``v``."""
    m = load_module(tmp_path, NP + _text(copy, "constant", "arrays", read_v=True))
    with pytest.raises(srcad.SrcadError, match="v may hold it too"):
        srcad.grad(m.f)(W0, X0)


ARRAY_SLICE = """
def f(w, x):
    v = w[0] * x
    c = v[:]  # an array: a view, not a copy
    c[1] += w[1]
    return np.sum(v * c)
"""


def test_an_array_slice_stays_a_view(tmp_path):
    """``v[:]`` of an array is a view, not a copy: the write changes ``v`` too, and the
    gradient says so (not read as ``list(v)``)."""
    m = load_module(tmp_path, NP + ARRAY_SLICE)
    np.testing.assert_allclose(srcad.grad(m.f)(W0, X0), central(m.f, (W0, X0), 0),
                               rtol=1e-6, atol=1e-8)
