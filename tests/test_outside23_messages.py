"""``grad(grad(f))`` where ``f`` calls ``srcad.grad(lambda ...)(x)`` (found by the fuzzer,
seed 60321). Until session 31 srcad's own code for the lambda, differentiated again, was refused
(a sound MutationError, the message naming the lambda's line: issue 16, outside23 item 8);
since lstm31 that code is made for its argument's kind and rank and is differentiated exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_robustness import load_module
from twin_checks import central

import srcad

TEXT = """import numpy as np
import srcad


def f(x):
    y2 = srcad.grad(lambda t1: np.sum((x ** 2 + (t1 - x)) * t1))(x)
    return y2 * x
"""


def test_the_lambdas_second_derivative_is_exact(tmp_path):
    """Refused until session 31 (a MutationError in srcad's code for the lambda, its message
    naming the lambda's line); since lstm31 the inner gradient's code is made for its
    argument's kind and rank, and ``grad(grad(f))`` is differentiated: checked against central
    differences of the first derivative, itself checked against ``f``'s."""
    m = load_module(tmp_path, TEXT)
    first = srcad.grad(m.f)
    for x in (0.7, -1.3, 2.0):
        g = srcad.grad(m.f)(x)
        assert g == pytest.approx(float(central(lambda v: np.array(m.f(v[0])),
                                                (np.array([x]),), 0)[0]), rel=1e-6)
        h = srcad.grad(srcad.grad(m.f))(x)
        assert h == pytest.approx(float(central(lambda v: np.array(first(v[0])),
                                                (np.array([x]),), 0)[0]), rel=1e-6)
    assert srcad.grad(srcad.grad(m.f))(np.array(0.7)) == pytest.approx(
        srcad.grad(srcad.grad(m.f))(0.7))
