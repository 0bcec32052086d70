"""A quotient ``a / (c + exp(u))`` differentiated as one operation (``transform/exp_quotients``)
where the quotient sits in a loop or branch and its divisor was made before it (``num = 1 +
np.exp(-z)``, then ``for k in range(1): return 1 / num``): ``u``'s gradient was made inside the
loop's body, where ``u``'s own gradient is not carried, and was lost (0.0 for 0.229, found by
the mutant fuzzer on a course's notebook). The operation is fused only within one block now.
Each form against central differences and autograd. Imports NumPy, autograd, pytest, srcad
and the tests' helpers."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load

import srcad

WRAPS = {
    "loop_return": "    for k in range(2):\n        return {q}\n",
    "loop_total": "    t = 0.0\n    for k in range(3):\n        t = t + {q} * (k + 1.0)\n"
                  "    return t\n",
    "branch": "    if z > 0.1:\n        return {q}\n    return {q} * 2.0\n",
    "plain": "    return {q}\n",
}
QUOTIENTS = {"logistic": "1.0 / num", "scaled": "3.0 / num"}
DIVISORS = {"before": "    num = 1.0 + np.exp(-z)\n",
            "before_flipped": "    num = np.exp(z * 2.0) + 0.5\n"}


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("quotient", QUOTIENTS)
@pytest.mark.parametrize("divisor", DIVISORS)
def test_gradient(tmp_path, wrap, quotient, divisor):
    text = ("import numpy as np\n\n\ndef f(z):\n" + DIVISORS[divisor]
            + WRAPS[wrap].format(q=QUOTIENTS[quotient]))
    f, twin = load(tmp_path, f"q_{wrap}_{quotient}_{divisor}", text, (np, anp))
    for z in (0.59, -0.7):
        got = srcad.grad(f)(z)
        assert np.isclose(got, (f(z + 1e-6) - f(z - 1e-6)) / 2e-6, rtol=1e-6)
        assert np.isclose(got, autograd.grad(twin)(z), rtol=1e-12)
