"""``max(a, b)`` / ``min(a, b)`` of numbers is one of its arguments, never a list: an array
multiplied by it, then written in place, is differentiated (found refused by the long property
run on array programs, 2026-12-04: ``b0 = a.copy(); m = max(x, b0[0] * x); b = a[1:3] * m;
b[0] *= math.tanh(m)``: "the item may be an array ... and b may hold it too").

The memory analysis took the result of ``max`` as something that may be a list (it took any
call it did not know so), so ``a[1:3] * m`` might be a list repeated, holding ``m``'s objects;
a write into its item was then refused. ``max`` and ``min`` of several arguments may be a list
only if an argument may be one. A family of two-argument ``max``/``min`` forms (array items of
a copy or of the argument, in a loop or not) before the write, each against central finite
differences, in reverse and forward mode.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest
from srcad.check import numerical_grad

import srcad

SOURCES = {
    "copy_item": "b0 = a.copy()\n    m = {fn}(x, b0[0] * x)",
    "item": "m = {fn}(x, a[0] * x)",
    "loop": "m = x\n    for i in range(2):\n        m = {fn}(m, a[i] * x)",
    "loop_list": "b0 = a.copy()\n    m = x\n    ms = []\n    for i in range(2):\n"
                 "        m = {fn}(m, b0[i] * x)\n        ms.append({fn}(b0[i], m))",
}
WRITES = {
    "times": "b[0] *= math.tanh(m)",
    "plus": "b[1] += m * m",
}
CASES = list(itertools.product(SOURCES, ("max", "min"), WRITES))


@pytest.mark.parametrize("source, fn, write", CASES, ids=["-".join(c) for c in CASES])
def test_array_scaled_by_max_then_written(tmp_path, source, fn, write):
    text = (f"import math\nimport numpy as np\n\n\ndef f(a, x):\n    "
            f"{SOURCES[source].format(fn=fn)}\n    b = a[1:3] * m\n    {WRITES[write]}\n"
            "    return np.sum(np.sin(b)) + m\n")
    f = program_files.load(tmp_path, f"scaled_{source}_{fn}_{write}", text)
    args = (np.array([0.9, -0.7, 1.3, 0.4]), 0.6)  # no ties between the compared values
    fd = numerical_grad(f, args, (0, 1))
    got = srcad.grad(f, wrt=(0, 1))(*args)
    assert np.allclose(got[0], fd[0], rtol=1e-6, atol=1e-8)
    assert np.isclose(got[1], fd[1], rtol=1e-6, atol=1e-8)
    u = (np.array([0.3, -0.1, 0.2, 0.5]), -0.4)
    _, tangent = srcad.jvp(f, args, u)
    assert np.isclose(tangent, np.dot(got[0], u[0]) + got[1] * u[1], rtol=1e-9)
