"""A function of the user's changing the list it is given and returning it, called on a list
built in the call: ``L = grow([x], x)`` with ``def grow(L, x): L.append(x * 2.0); return L``
was refused ("L is the same object as another name for L": the callee's own return). A list
built in the call is seen by no one else: the call is made on a copy returning the list
(:mod:`srcad.frontend.changed_lists`, as for a list the caller names). Each change × return
× list built in the call, against central differences and autograd running the same text.
Imports itertools, NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG

import srcad

#: how the callee changes its list L (x a number)
CHANGES = {
    "append": "    L.append(x * 2.0)\n",
    "extend": "    L.extend([x * x, np.sin(x)])\n",
    "insert": "    L.insert(0, x * 3.0)\n",
    "item": "    L[0] = L[0] * x\n",
    "loop": "    for i in range(2):\n        L.append(L[-1] * x)\n",
}
#: what it returns
RETURNS = {"list": "    return L\n", "item": "    return L[-1] + 0.5\n"}
#: the list built in the call
BUILT = {
    "display": "[x]",
    "two": "[x, 2.0 * x]",
    "comprehension": "[v * x for v in (1.0, 2.0)]",
    "list_call": "list((x, x + 1.0))",
}
CASES = list(itertools.product(CHANGES, RETURNS, BUILT))
CASES = CASES if LONG else CASES[::7]
TEXT = """def grow(L, x):
{change}{ret}

def f(x):
    got = grow({built}, x)
    return {use}
"""


@pytest.mark.parametrize("change,ret,built", CASES)
def test_a_list_built_in_the_call_grown_by_the_callee(tmp_path, change, ret, built):
    use = "got[0] * got[-1] + sum(got)" if ret == "list" else "got * x"
    text = TEXT.format(change=CHANGES[change], ret=RETURNS[ret], built=BUILT[built], use=use)
    f, twin = load(tmp_path, f"grow_{change}_{ret}_{built}", text, (np, anp))
    for x in (0.7, -1.3):
        got = srcad.grad(f)(x)
        h = 1e-6
        assert np.isclose(got, (f(x + h) - f(x - h)) / (2 * h), rtol=1e-6, atol=1e-6)
        assert np.isclose(got, autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)
        assert np.isclose(srcad.value_and_grad(f)(x)[0], f(x), rtol=1e-12)
