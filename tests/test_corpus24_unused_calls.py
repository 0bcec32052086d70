"""Round 24: a call whose result is not used, of a function whose helper works in place on
what it is given (cs224n's word2vec: ``softmax(x)`` does ``x -= max(x)``; one student's
skip-gram calls the loss function a second time for nothing).

Such a call was refused ("called for its effect"): the helper changes its argument, so the
function was not known to write nothing. It writes nothing its caller sees when what it gives
the helper is its own (``softmax(np.dot(U, v))``). Still refused: the same helper given the
caller's array, a global, or a function whose effect srcad does not know.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

BUFFER = np.zeros(3)


def softmax_in_place(x):
    x -= np.max(x)
    x = np.exp(x)
    return x / np.sum(x)


def store_in_global(x):
    BUFFER[:] = x
    return x


def shuffle_in_place(x):
    np.random.shuffle(x)
    return x


def loss_temp(v, U):
    y = softmax_in_place(np.dot(U, v))  # a temporary: changed in place, nobody sees it
    d = y.copy()
    d[1] -= 1.0
    return np.sum(d * d) - np.log(y[0])


def loss_nested(v, U):
    return loss_temp(v * 2.0, U)  # two levels: the temporary is made one level down


def loss_given(v, U):
    softmax_in_place(v)  # the caller's array, changed in place: seen by the caller
    return np.sum(v)


def loss_global(v, U):
    return np.sum(store_in_global(np.dot(U, v)))


def loss_unknown(v, U):
    return np.sum(shuffle_in_place(np.dot(U, v)))


def twice(loss):
    def f(v, U):
        loss(v, U)  # called for nothing (a student's leftover)
        return loss(v, U)
    return f


@pytest.mark.parametrize("loss", [loss_temp, loss_nested], ids=lambda f: f.__name__)
def test_unused_call_of_a_function_changing_only_its_temporaries(loss):
    rs = np.random.RandomState(0)
    v, U = rs.randn(3), rs.randn(4, 3)
    f = twice(loss)
    got = srcad.grad(f, wrt=(0, 1))(v, U)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numerical_grad(f, (v, U), k, eps=1e-6),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("loss", [loss_given, loss_global, loss_unknown],
                         ids=lambda f: f.__name__)
def test_unused_calls_that_change_what_others_see_stay_refused(loss):
    rs = np.random.RandomState(1)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(twice(loss), wrt=0)(rs.randn(3), rs.randn(3, 3))
