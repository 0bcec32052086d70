"""Where the run-time operand check (:mod:`srcad.analysis.operand_checks`) is written and
where it is not (session 25's merge): a value an operator or a NumPy function made of values
known to be numbers or arrays, an item of an array and a loop's value made by operators need
no check; an item of a list an operator made (``[1.0] + objs``) may be an object of the
user's and is checked; an array of the array API standard passes the check. Each case's
gradient against central differences, or the refusal when the code runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError


class Scaled:
    """An object of the user's class whose ``*`` is its own (srcad would not follow it)."""

    def __init__(self, a):
        self.a = a

    def __mul__(self, other):
        return self.a * other * 2.0

    __rmul__ = __mul__


class Holder:
    def __init__(self, v):
        self.v = v


def loop_of_operators(w, m):
    s = 0.0
    for i in range(3):
        s = s + np.sum(m.v * w) * (i + 1)
    return s


def item_of_a_concatenation(w, objs):
    ys = [1.0] + objs
    return np.sum(ys[1] * w)


def item_of_an_array(w, A):
    t = A[1, 2]
    return np.sum(t * w) + np.sum(np.sin(w) * A[0])


W = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("v", [np.array([1.0, 2.0, 3.0]), 2.5])
def test_a_loop_of_operators_checks_the_attribute_only(v):
    m = Holder(v)
    g = srcad.grad(loop_of_operators)
    np.testing.assert_allclose(g(W, m), numerical_grad(loop_of_operators, (W, m)),
                               rtol=1e-6, atol=1e-8)
    text = srcad.source(g)
    assert text.count("check_operand") == 1, text  # m.v's, once: not s, not the sum's


def test_an_object_of_yours_through_an_attribute_is_refused_when_the_code_runs():
    g = srcad.grad(loop_of_operators)
    g(W, Holder(np.ones(3)))
    with pytest.raises(SrcadError, match="object of your class Scaled"):
        g(W, Holder(Scaled(2.0)))


def test_an_item_of_a_list_an_operator_made_is_checked():
    g = srcad.grad(item_of_a_concatenation)
    np.testing.assert_allclose(g(W, [np.array([1.0, 2.0, 3.0])]), [1.0, 2.0, 3.0])
    with pytest.raises(SrcadError, match="object of your class Scaled"):
        srcad.grad(item_of_a_concatenation)(W, [Scaled(2.0)])


def test_items_of_an_array_need_no_check():
    A = np.arange(12.0).reshape(3, 4)[:, :3]
    g = srcad.grad(item_of_an_array)
    np.testing.assert_allclose(g(W, A), numerical_grad(item_of_an_array, (W, A)),
                               rtol=1e-6, atol=1e-8)
    assert "check_operand" not in srcad.source(g)
