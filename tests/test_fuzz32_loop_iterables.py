"""A ``for`` loop whose iterable reads a name the body rebinds (``n = len(L)``, then ``for i in
range(n): ... n = 3``): the SSA dead-code pass (``frontend/optimise``) counted the loop's reads
less its merges' entries, and ``n`` is both (the merge of ``n`` over the loop, dead when
nothing reads ``n`` after it): ``n = len(L)`` was swept, and lowering stopped with
``IRError: n read before it is defined`` (the session 32 fuzzer's run 2, ``growing_sizes``'
``_n = len(_L)`` twice on a notebook's ``softmax``). The iterable's reads are kept now.

A generated family: the iterable (``range(n)``, ``range(len(L))`` of a list rebound, the list
itself, ``enumerate`` of it), what the body rebinds (the name, read after the loop or not),
and how it was bound (a length, an expression of the input); ``grad`` and ``jvp`` against
central differences and autograd. Imports itertools, NumPy, autograd, pytest, srcad and the
tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import sample_by
from twin_checks import central, close

import srcad

ITERABLES = {
    "range": ("    n = len(L)\n", "range(n)", "n = {new}"),
    "range_len": ("", "range(len(L))", "L = [y]"),
    "list": ("", "L", "L = [y, y]"),
    "enumerate": ("", "enumerate(L)", "L = L + [y]"),
}
REBINDS = {"plain": "", "read": "    y = y * len(L){after}\n"}
NEWS = {"number": "3", "length": "len(L) + 1"}
CASES = sample_by(list(itertools.product(ITERABLES, REBINDS, NEWS)), lambda c: c[0], 4)


@pytest.mark.parametrize("iterable,rebind,new", CASES)
def test_a_loop_whose_iterable_the_body_rebinds(tmp_path, iterable, rebind, new):
    before, it, change = ITERABLES[iterable]
    item = "t" if iterable != "enumerate" else "(k, t)"
    text = ("def f(x):\n    L = [x, x * 2.0]\n" + before + "    y = x * 1.0\n"
            f"    for {item} in {it}:\n        y = y + np.sin(y) * 0.5\n"
            f"        {change.format(new=NEWS[new])}\n" +
            REBINDS[rebind].format(after=" + n" if iterable == "range" else "") +
            "    return np.sum(y * y)\n")
    f, twin = load(tmp_path, f"l_{iterable}_{rebind}_{new}", "import numpy as np\n\n\n" + text,
                   (np, anp))
    x = np.array([0.3, 0.8])
    want = autograd.grad(twin)(x)
    assert close(want, central(f, [x], 0), 1e-6)
    assert close(srcad.grad(f)(x), want, 1e-10)
    v = np.array([0.4, -0.9])
    assert close(srcad.jvp(f, (x,), (v,))[1], want @ v, 1e-10)
