"""A container's truth tested twice, the container changed between the tests (lead, session
31). quality31's tidy_nots wrote ``t = not ys; if t:`` as ``if not ys:`` in the backward
sweep too, and merged ``if c: A`` with a following ``if not c: B`` into one test: both take
the truth of ``c`` again, where a list changed in place (``ys.append(v)``, ``ys.pop()``) has
another truth by then. On the merged branch 21 cases of tests/test_list_branches.py gave
wrong gradients (half the true one) or popped an empty list. The rewrite is kept for names
that hold a truth nothing changes (a comparison, ``not``, ``True``/``False``, unpacked
saves: tidy_nots._truth_flag).

The family: a list (or dict) filled one way, two tests of its truth with a change between
(or inside the first branch), then a use; checked against plain Python, central
differences (srcad.check.numerical_grad) and srcad's reference tape, and in forward mode.
"""

from __future__ import annotations

import itertools
import uuid

import numpy as np
import pytest
import srcad.tape
from sampling import sample
from srcad.check import numerical_grad

import srcad

FILLS = [
    "    ys = []\n",
    "    ys = [x * y]\n",
    "    ys = [x, y * 0.5]\n",
    "    ys = []\n    for i in range(1):\n        ys.append(x - y)\n",
]
#: two tests of the truth of ys with a change of ys between (or in the first branch)
TESTS = [
    "    if not ys:\n        ys.append(x * y)\n    if not ys:\n        v = x\n"
    "    else:\n        v = y * ys[0]\n",
    "    if ys:\n        v = ys.pop() * x\n    else:\n        v = y\n"
    "    if not ys:\n        v = v * 2.0\n    else:\n        v = v + ys[0]\n",
    "    if ys:\n        ys.pop()\n"
    "    if ys:\n        v = x * ys[0]\n    else:\n        v = y * x\n",
    "    t = not ys\n    ys.append(x)\n    if t:\n        v = x * x\n    else:\n        v = y\n",
    "    if not ys:\n        ys.append(y)\n        v = x\n    else:\n        v = x * ys.pop()\n"
    "    if not ys:\n        v = v * y\n",
]
USES = [
    "    return v + sum(ys)\n",
    "    return v * (len(ys) + 1.0) + x\n",
]

CASES = list(itertools.product(range(len(FILLS)), range(len(TESTS)), range(len(USES))))
POINTS = [(0.7, -0.4), (1.3, 0.9)]
_counter = itertools.count()


def _load(tmp_path, case):
    from test_robustness import load_module

    fill, test, use = case
    text = "def f(x, y):\n" + FILLS[fill] + TESTS[test] + USES[use]
    return load_module(tmp_path, text, f"truth_{next(_counter)}_{uuid.uuid4().hex[:8]}").f, text


@pytest.mark.parametrize("case", sample(CASES, 2))  # CI: every second; the long run all
def test_truth_tested_twice(tmp_path, case):
    f, text = _load(tmp_path, case)
    for x, y in POINTS:
        value, grad = srcad.value_and_grad(f, wrt=(0, 1))(x, y)
        assert np.isclose(value, f(x, y)), text
        assert np.allclose(grad, numerical_grad(f, (x, y), (0, 1)), rtol=1e-6, atol=1e-8), text
        assert np.allclose(grad, srcad.tape.grad(f, wrt=(0, 1))(x, y), atol=1e-10), text
        _, tangent = srcad.jvp(f, (x, y), (0.3, -1.2))
        assert np.isclose(tangent, 0.3 * grad[0] - 1.2 * grad[1]), text
