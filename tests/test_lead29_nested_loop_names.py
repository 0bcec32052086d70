"""A name a loop sets only inside a loop nested in it (``for i in ..: for j in ..: r = g(x)``),
read after the loops: the generated code read the name before its first binding (the nested
loop's entry copy ``r_1 = r``) and raised ``UnboundLocalError`` where Python runs, in reverse
mode when the name's later reads were a callee's (sound29's mutant fuzzer) and in forward mode
always. Such a name is None before the loop, as a branch leaving it unset has it
(``transform/reverse``, ``transform/forward``); Python's ``UnboundLocalError`` when no loop
sets it still comes from the read's own check. Each program of the family (four nestings x
three bodies x three reads after x 0, 1, 2 outer steps): the value, gradient (central
differences), tangent (``jvp``) and, under LONG, Hessian (differences of the gradient), or
Python's ``UnboundLocalError``. Imports itertools, NumPy, pytest, srcad and the tests'
helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load
from sampling import LONG, sample

import srcad

NESTS = {
    "two": "    for i in range({n}):\n        for j in range(2):\n            r = {set}\n",
    "same_name": "    for i in range({n}):\n        for i in range(2):\n            r = {set}\n",
    "three": "    for i in range({n}):\n        for j in range(2):\n"
             "            for m in range(1):\n                r = {set}\n",
    "while": "    for i in range({n}):\n        j = 0\n        while j < 2:\n"
             "            r = {set}\n            j += 1\n",
}
SETS = {"callee": "g(x)", "inline": "np.sin(x) * 2.0", "carried": "g(x) + i"}
AFTER = {"callee": "    y = g(r)\n    return np.sum(y)\n", "sum": "    return np.sum(r * x)\n",
         "both": "    return np.sum(g(r)) + np.sum(r)\n"}
HEAD = "import numpy as np\n\n\ndef g(x):\n    return np.sin(x) * 2.0\n\n\ndef f(x):\n"
#: forms that crashed on main: reverse mode (a callee reads the name after) and forward mode
FOUND = [("two", "callee", "callee", 1), ("same_name", "inline", "sum", 2),
         ("while", "carried", "both", 1), ("three", "callee", "sum", 0)]
CASES = FOUND + [c for c in sample(list(itertools.product(NESTS, SETS, AFTER, (0, 1, 2))), 18)
                 if c not in FOUND]
X = np.array([0.3, 0.4])


def _central(f, x, h=1e-6):
    """Central differences of ``f`` along each element of ``x``, on the last axis."""
    steps = np.eye(x.size) * h
    return np.stack([(f(x + e) - f(x - e)) / (2 * h) for e in steps], axis=-1)


@pytest.mark.parametrize("nest,body,after,n", CASES)
def test_value_gradient_tangent(tmp_path, nest, body, after, n):
    text = HEAD + NESTS[nest].format(n=n, set=SETS[body]) + AFTER[after]
    f = load(tmp_path, f"loops_{nest}_{body}_{after}_{n}", text)
    if n == 0:  # no loop sets r: Python's error, from the read's check
        with pytest.raises(UnboundLocalError):
            f(X)
        with pytest.raises(UnboundLocalError):
            srcad.grad(f)(X)
        return
    value, grad = srcad.value_and_grad(f)(X)
    assert np.isclose(value, f(X), rtol=1e-12)
    np.testing.assert_allclose(grad, _central(f, X), rtol=1e-6, atol=1e-7)
    _, tangent = srcad.jvp(f, (X,), (np.array([1.0, -0.5]),))
    assert np.isclose(tangent, grad @ np.array([1.0, -0.5]), rtol=1e-9)
    if LONG:
        want = _central(srcad.grad(f), X)
        for mode in ("fwd", "rev"):
            hess = srcad.hessian(f, mode=mode)(X)
            np.testing.assert_allclose(hess, want, rtol=1e-5, atol=1e-6)
