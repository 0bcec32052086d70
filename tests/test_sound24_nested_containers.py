"""An array held in a container held in a container, written through an item of an item
(sound24).

The memory model (``analysis/memory.py``) keeps one flat set of what a value is and what it
holds; an item read out of a tuple or list took that set as both, so the items of *that*
item held nothing: after ``pairs = ((b, b),)``, ``for ts in pairs: for t in ts: t[0] = ...``
wrote into ``b`` unseen, and ``[t for ts in ((w * 1.5,),) for _ in range(2) for t in ts]``
(the form ``[w * 1.5] * 2`` is now read as, its items evaluated once, so every copy is the
same object as in Python: ``xs[0] is xs[1]``) let ``a = xs[0]; a[1] = v`` change ``xs[1]``
unseen: a silently wrong gradient. An item that may itself be a container now holds any of
what it may be (``opaque``): the write is refused with the alias message; reads are
differentiated as before. Generated family (nesting x container x write) checked: the
refusal where Python's write reaches another name read afterwards, else the derivative
against central differences; and ``[e] * n`` keeps identity (against central differences).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

NP = "import numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

MAKE = {  # xs: a list whose items are (or may be) the one array b
    "tuple-of-tuple": "xs = [t for ts in ((b, b),) for t in ts]",
    "repeat-loop": "xs = [t for ts in ((b,),) for _ in range(2) for t in ts]",
    "list-of-list": "xs = [t for ts in [[b, b]] for t in ts]",
    "repeat": "xs = [b] * 2",
    "loop": "xs = []\n    for ts in ((b, b),):\n        for t in ts:\n            xs.append(t)",
}
WRITE = {
    "named": "a = xs[0]\n    a[1] = w[0] * 5.0",
    "loop": "for v in xs[:1]:\n        v[0] = v[0] * w[2]",
}
TEXT = """
def f(w):
    b = w * 1.5
    {make}
    {write}
    return np.sum(xs[1] * w)
"""


@pytest.mark.parametrize("make,write", list(itertools.product(MAKE, WRITE)))
def test_a_write_into_an_item_of_an_item(make, write, tmp_path):
    m = load_module(tmp_path, NP + TEXT.format(make=MAKE[make], write=WRITE[write]))
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    try:
        g = srcad.grad(m.f)(W.copy())
    except SrcadError:
        return  # (refused: Python's write reaches xs[1])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


IDENTITY = """
def f(w):
    xs = [{item}] * {n}
    if xs[0] is xs[-1]:
        return np.sum({item}) * w[0]
    return np.sum(w * w)
"""


@pytest.mark.parametrize("item,n", list(itertools.product(
    ["w * 1.5", "w[1:] * w[0]", "np.sin(w)"], ["2", "len(w)"])))
def test_a_repeated_list_holds_one_object(item, n, tmp_path):
    m = load_module(tmp_path, NP + IDENTITY.format(item=item, n=n))
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    try:
        g = srcad.grad(m.f)(W.copy())
    except SrcadError:
        return
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


DEEPER = {  # v: an item of an item holding b (wrong on merge24: the write unseen)
    "dict-in-list": "ds = [{'a': b}]\n    v = ds[0]['a']",
    "three-deep": "t = (((b,),),)\n    v = t[0][0][0]",
    "appended-pair": "ps = []\n    ps.append((b, 2.0))\n    v = ps[0][0]",
    "enumerated-pairs": "ps = [(0, b), (1, b)]\n    for i, (k, v) in enumerate(ps):\n"
                        "        pass",
}


@pytest.mark.parametrize("make", list(DEEPER))
def test_a_write_into_an_item_deeper_down(make, tmp_path):
    text = (f"\ndef f(w):\n    b = w * 1.5\n    {DEEPER[make]}\n    v[1] = w[0] * 3.0\n"
            "    return np.sum(b * w)\n")
    m = load_module(tmp_path, NP + text)
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    try:
        g = srcad.grad(m.f)(W.copy())
    except SrcadError:
        return
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
