"""Round 24: ``y[k] -= 1`` on what a helper returns, in a callee whose arguments srcad cannot
type (cs224n's word2vec: ``idx = word2Ind[word]``, ``v = V[idx]``, then the loss function
computes ``y = softmax(U.dot(v)); d = y.copy(); d[o] -= 1``).

The augmented write was refused ("the item may be an array, which Python changes in place")
because ``d`` might have been a list holding arrays: the helper's result, ``.copy()`` and
``a.dot(b)`` were not known to be arrays. A helper's result is now read from the helper, a
copy is a list only of a list, and an array method gives no list. A helper that does return
a list stays refused. Checked against central differences (autograd cannot write items).
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from tests.sampling import sample


def softmax(x):
    x = x - np.max(x)
    x = np.exp(x)
    x /= np.sum(x)
    return x


def softmax_in_place(x):  # the course's helper: changes its argument, returns it
    x -= np.max(x)
    x = np.exp(x)
    return x / np.sum(x)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def as_list(x):
    return [x, x]


def loss_copy(helper, v, U, o):
    y = helper(U.dot(v))
    d = y.copy()
    d[o] -= 1
    return -np.log(y[o]) + 0.1 * np.sum(d * d)


def loss_method(helper, v, U, o):
    y = helper(np.dot(U, v))
    g = y[:, np.newaxis].dot(v[np.newaxis, :])
    g[o] -= v
    return np.sum(g * U)


def loss_arith(helper, v, U, o):
    s = helper(U.dot(v))
    s = 1 - s
    s[o] *= -1
    return np.sum(s * s)


LOSSES = [loss_copy, loss_method, loss_arith]
HELPERS = [softmax, softmax_in_place, sigmoid]


def window(C, U, words, loss, helper):
    total = 0.0
    centre = C[words["c"]]  # an index read from a dict: a value of unknown kind
    for w in ("a", "b", "a"):
        total = total + loss(helper, centre, U, words[w])
    return total


WORDS = {w: i for i, w in enumerate("abcde")}
CASES = [(loss, helper) for loss in LOSSES for helper in HELPERS]


@pytest.mark.parametrize("loss, helper", sample(CASES, 3),
                         ids=lambda c: getattr(c, "__name__", str(c)))
def test_item_writes_through_helpers(loss, helper):
    rs = np.random.RandomState(1)
    C, U = rs.randn(5, 3), rs.randn(5, 3)

    def f(C, U):
        return window(C, U, WORDS, loss, helper)
    got = srcad.grad(f, wrt=(0, 1))(C, U)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numerical_grad(f, (C, U), k, eps=1e-6),
                                   rtol=1e-5, atol=1e-6)


def test_a_helper_returning_a_list_stays_refused():
    def loss(v, U):
        ys = as_list(U.dot(v))
        ys[0] -= 1.0  # an array held twice by the list: Python changes both places
        return np.sum(ys[0]) + np.sum(ys[1])

    def f(C, U):
        return loss(C[WORDS["c"]], U)
    rs = np.random.RandomState(2)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(f, wrt=(0, 1))(rs.randn(5, 3), rs.randn(5, 3))
