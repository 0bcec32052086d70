"""A known limit, found by the long property run (2026-12-03): a value that overflowed to inf
or nan in the forward sweep, on a path the run did not take to the output, poisons the
gradient, because the reverse sweep multiplies its zero adjoint by a non-finite partial
(0 * inf = nan). Tapes (srcad.tape, PyTorch) and JAX (symbolic zeros) never visit such a
value and give the finite derivative that finite differences confirm.

These cases are strict xfails: they document the limit (docs/how-it-works.md, "Known
limits") and start failing, so that they are turned into plain tests, the day srcad gets
them right. The long run's program is the last case, shrunk to its mechanism.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad


def branch_not_taken(x, y):
    w = (x * 1e200) * 1e200          # inf
    if y > 3.0:
        x = x + w * w
    return x * y + x


def loop_continue(x, y):
    v = x + 4.5
    for _ in range(9):
        v = v + (1.5 * v * v - v) ** 2   # inf, then nan
        if y <= 3.0:
            continue
        x = math.sqrt(1.0 + v * v)
    return y + x


def array_branch(x, y):
    w = np.exp(x * 1e3)              # inf
    if y > 3.0:
        return np.sum(w * w)
    return np.sum(x * x) * y


CASES = [
    (branch_not_taken, (1.0, 0.0)),
    (loop_continue, (0.0, 0.0)),
    (array_branch, (np.array([1.0, 2.0]), 0.5)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_dead_overflowed_value_does_not_poison_the_gradient(f, args):
    with np.errstate(all="ignore"):
        got = srcad.grad(f, wrt=(0, 1))(*args)
        taped = srcad.tape.grad(f, wrt=(0, 1))(*args)
        fd = numerical_grad(f, args, (0, 1))
    for g, t, d in zip(got, taped, fd):
        assert np.all(np.isfinite(t)) and np.allclose(t, d, rtol=1e-6, atol=1e-8)
        assert np.allclose(g, t, rtol=1e-9, atol=1e-12)
