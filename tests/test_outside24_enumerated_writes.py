"""A list (or array) written by position while ``enumerate`` walks it (issue 16, outside24):
``for i, v in enumerate(xs): xs[i] = v * (i + 1)`` was refused ("changes xs while the for
loop iterates over it"); it is the loop over positions reading ``v = xs[i]`` at each step
(``frontend/enumerated_writes.py``), which reads an earlier step's write as Python's list
iterator does. Generated family (container x write x start x break) against central
differences and autograd (a matrix walked by rows, ``v`` a view of the row written: central
differences); a loop that changes the length stays refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

MAKE = {"list": "xs = [w[0], w[1] * 2.0, w[2]]",
        "list-of-arrays": "xs = [w[:2] * 1.0, w[1:] * 2.0]",
        "matrix": "xs = np.outer(w, w) + 1.0"}
WRITES = {
    "item": "xs[{i}] = v * ({i} + 1) + w[0]",
    "augmented": "xs[{i}] += v * w[1]",
    "ahead": "if {i} + 1 < len(xs):\n            xs[{i} + 1] = xs[{i} + 1] + v * v",
    "behind": "if {i} > 0:\n            xs[{i} - 1] = xs[{i} - 1] * v\n        xs[{i}] = np.sin(v)",
}
STARTS = {"none": ("", "i"), "one": (", 1", "i - 1")}
BREAKS = {"no": "", "yes": "\n        if np.all(v > 10.0):\n            break"}
TEXT = """
def f(w):
    {make}
    for i, v in enumerate(xs{start}):
        {write}{brk}
    return sum(np.sum(x * x) for x in xs) + i * w[2]
"""
CASES = [c for c in itertools.product(MAKE, WRITES, STARTS, BREAKS)
         if c[:2] != ("list-of-arrays", "augmented")]  # (an item array changed in place:
# v holds it too, refused by the alias analysis with its rewrite, xs[i] = xs[i] + ...)


def _text(make, write, start, brk):
    arg, i = STARTS[start]
    return TEXT.format(make=MAKE[make], start=arg, write=WRITES[write].format(i=i),
                       brk=BREAKS[brk])


@pytest.mark.parametrize("make,write,start,brk", sample(CASES, 8))
def test_a_container_written_while_enumerate_walks_it(make, write, start, brk, tmp_path):
    text = _text(make, write, start, brk)
    m = load_module(tmp_path, NP + text)
    g = srcad.grad(m.f)(W.copy())
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    if make != "matrix":  # (autograd writes into no array)
        a = load_module(tmp_path, AG + text)
        np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy()), rtol=1e-10, atol=1e-12)


def test_a_loop_changing_the_length_stays_refused(tmp_path):
    text = ("def f(w):\n    xs = [w[0], w[1]]\n    for i, v in enumerate(xs):\n"
            "        xs[i] = v * 2.0\n        if i == 0:\n            xs.append(v)\n"
            "    return sum(xs)\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.SrcadError, match="line"):
        srcad.grad(m.f)(W.copy())


def test_a_dict_walked_so_is_refused_when_the_code_runs(tmp_path):
    """``enumerate(d)`` of a dict yields its keys, which ``d[i]`` would not read: the loop over
    positions is refused there (it was read as a list's)."""
    text = ("def f(w):\n    d = {0: w[0], 1: w[1]}\n    for i, k in enumerate(d):\n"
            "        d[i] = d[k] * 2.0\n    return d[0] + d[1]\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.SrcadError, match="dict") as err:
        srcad.grad(m.f)(W.copy())
    assert err.value.lineno == 4
