"""``vjp``/``linearize`` of a derivative of a function writing into the state it is given.

Session 37 (found by branch state37, fixed in srcad/written_state.State.later): the value
``srcad.vjp(srcad.grad(f), x, s)`` returned was ``f``'s own, not its derivative's
(``f(2) = 8`` for ``f'(2) = 12``). Checked against central differences of ``f`` and against
autograd, and the state against one plain run of ``f``.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from twin_checks import central

import srcad


def counted(x, s):
    s["n"] = s["n"] + 1
    return x ** 3 * s["w"]


def stored(x, s):
    s["last"] = x * 2.0
    return np.sin(x) * s["w"] + x * x


@pytest.mark.parametrize("f", [counted, stored])
@pytest.mark.parametrize("x", [2.0, -0.7])
def test_vjp_and_linearize_of_grad_give_the_derivative(f, x):
    import autograd

    state = {"w": 1.5, "n": 0}
    plain = copy.deepcopy(state)
    f(x, plain)  # the state one plain run leaves
    want = autograd.grad(f)(x, copy.deepcopy(state))
    numeric = central(lambda v: f(float(v), copy.deepcopy(state)), [np.array(x)], 0)
    assert abs(want - float(numeric)) < 1e-6
    value, pullback = srcad.vjp(srcad.grad(f, wrt=0), x, state)
    assert abs(value - want) < 1e-12
    assert state.keys() == plain.keys() and all(
        np.array_equal(state[k], plain[k]) for k in state)
    second = autograd.grad(autograd.grad(f))(x, copy.deepcopy(state))
    assert abs(pullback(1.0)[0] - second) < 1e-9
    state = {"w": 1.5, "n": 0}
    value, _ = srcad.linearize(srcad.grad(f, wrt=0), x, state)
    assert abs(value - want) < 1e-12
