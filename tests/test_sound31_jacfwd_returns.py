"""``srcad.jacfwd`` of a function returning from inside a loop (``for k in range(3): if k ==
1: return np.expand_dims(x, 2)``): the batched forward code (``transform/forward_batched``)
gave the return value's tangent, ``None`` before the loop (``result = None``), a zero of
``result.shape`` at the loop's entry: ``AttributeError`` on ``None.shape`` (the mutant
fuzzer's run 2, ``early_return`` on autograd's ``test_expand_dims``). A ``None`` entering a
loop has the tangent ``None`` now (read only once it holds a value). A generated family:
the return in a ``for``, a ``while`` or under a test on the data, in the function
differentiated or in a function it calls, a value of rank 0 to 3,
arrays of rank 1 and 2; ``jacfwd`` (twice: the compiled front) and ``jacrev`` against
autograd's ``jacobian``. Imports itertools, NumPy, autograd, pytest, srcad and the tests'
helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import sample

import srcad

LOOPS = {
    "bare": "    for k in range(3):\n        if k == 1:\n            return {value}\n",
    "for": "    for k in range(3):\n        y = y * 1.1\n        if k == 1:\n"
           "            return {value}\n",
    "while": "    k = 0\n    while k < 3:\n        k += 1\n        if k == 2:\n"
             "            return {value}\n        y = np.sin(y)\n",
    "data": "    for k in range(3):\n        y = y * 0.9 + 0.1\n        if np.sum(y) > 0.5:\n"
            "            return {value}\n",
}
VALUES = {
    "expand": "np.expand_dims(x, 0)",
    "expand_last": "np.expand_dims(y, -1)",
    "stack": "np.stack([y, x])",
    "reshape": "np.reshape(y, (-1,))",
    "sin": "np.sin(x)",
    "sum": "np.sum(y * x)",
}
RANKS = (1, 2)
#: the function differentiated itself, or called by the one differentiated (a callee's
#: batched code)
CALLS = {"direct": "", "callee": "\n\ndef f(x):\n    return g(x + 0.0) * 1.0\n"}
CASES = sample(itertools.product(LOOPS, VALUES, RANKS, CALLS), 2)


@pytest.mark.parametrize("loop,value,rank,called", CASES)
def test_jacfwd_of_a_return_in_a_loop(tmp_path, loop, value, rank, called):
    body = LOOPS[loop].format(value=VALUES[value])
    name = "g" if CALLS[called] else "f"
    text = f"def {name}(x):\n    y = x * 1.0\n{body}    return {VALUES[value]}\n" + \
        CALLS[called]
    key = f"{loop}_{value}_{rank}_{called}"
    f = load(tmp_path, f"r_{key}", "import numpy as np\n\n\n" + text)
    twin = load(tmp_path, f"t_{key}", text, (anp,))
    x = np.random.RandomState(rank).uniform(0.1, 0.6, size=(3,) if rank == 1 else (2, 3))
    want = autograd.jacobian(twin)(x)
    for jac in (srcad.jacfwd(f), srcad.jacfwd(f), srcad.jacrev(f)):
        for _ in range(2):  # (the second call: jacfwd's compiled front)
            np.testing.assert_allclose(jac(x), want, rtol=1e-10, atol=1e-12)
