"""A name that starts as a number and becomes an array through ``+=`` (``k = 0``, then
``k += x * i`` in a loop), then written through a view or another name (``for r in k: r[0] =
...``, ``a = k; a[0] = ...``, ``v = k.T; v[0] = ...``): the memory model read ``k += v`` as
"the same object as ``k``", and ``k`` as a number has none, so the array ``k`` became was no
object at all and the writes into its rows were taken as writes into copies (value 7.8 where
Python gives 13.08, found by sound29's mutant fuzzer). While ``k`` may be a number, ``k += v``
may make a new object (``analysis/memory``). Each program of the family: refused with a
``SrcadError`` at its line, or the value Python gives and the gradient of central
differences. Imports itertools, NumPy, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load
from sampling import sample
from twin_checks import central

import srcad

STARTS = {"int": "0", "float": "0.0", "array": "np.zeros_like(x)"}
GROWS = {
    "loop_aug": "    for i in range(1, 3):\n        k += x * i\n",
    "loop_plain": "    for i in range(1, 3):\n        k = k + x * i\n",
    "branch_aug": "    if x[0, 0] > 0:\n        k += x * 2.0\n    else:\n        k += x\n",
    "aug_once": "    k += x\n",
}
USES = {
    "iter_write": "    for r in k:\n        r[0] = r[0] * r[-1]\n",
    "alias_write": "    a = k\n    a[0] = a[1] * 2.0\n",
    "alias_aug": "    a = k\n    a += x * x\n",
    "row_write": "    r = k[0]\n    r[0] = r[1] * 3.0\n",
    "view_write": "    v = k.T\n    v[0] = v[1] * 2.0\n",
    "slice_aug": "    s = k[:, 1:]\n    s *= 2.0\n",
}
#: the forms that gave a wrong value and gradient before the fix, run by default
FOUND = [(s, "loop_aug", u) for s in ("int", "float")
         for u in ("iter_write", "alias_write", "alias_aug", "view_write")]
CASES = FOUND[::2] + [c for c in sample(list(itertools.product(STARTS, GROWS, USES)), 12)
                      if c not in FOUND]
X = np.array([[0.3, 0.5, -0.2], [0.7, 1.1, 0.4], [-0.6, 0.2, 0.9]])


def _text(start, grow, use):
    return (f"import numpy as np\n\n\ndef f(x):\n    k = {STARTS[start]}\n{GROWS[grow]}"
            f"{USES[use]}    return np.sum(np.sin(k) * x)\n")


@pytest.mark.parametrize("start,grow,use", CASES)
def test_refused_or_exact(tmp_path, start, grow, use):
    f = load(tmp_path, f"k_{start}_{grow}_{use}", _text(start, grow, use))
    try:
        value, grad = srcad.value_and_grad(f)(X.copy())
    except srcad.SrcadError as e:
        assert f"k_{start}_{grow}_{use}.py" in str(e) and "line" in str(e)
        return
    assert np.isclose(value, f(X.copy()), rtol=1e-12)
    np.testing.assert_allclose(grad, central(lambda z: f(z.copy()), (X,), 0), rtol=1e-6,
                               atol=1e-7)
