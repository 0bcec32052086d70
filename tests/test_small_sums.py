"""An array's gradient flowing into a number (``s * v``'s into ``s``, ``v / s``'s, ``v ** s``'s)
is summed by ``total``: Python's ``sum`` over the items of a small float64 or complex128
array, NumPy's reduction otherwise. A generated family of programs of that shape (operation
x rank x size, at and around the threshold) checked against finite differences and autograd,
first and second order, and the helper against NumPy's sum."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.runtime.helpers import total

RNG = np.random.default_rng(5)

#: the operation's expression of the number s and the array v, in srcad's and autograd's NumPy
OPERATIONS = {
    "times": "s * v",
    "over": "v / s",
    "power": "np.abs(v) ** s",
    "minus": "s - v",
    "twice": "(s * v) * (v + s)",
}

SHAPES = [(1,), (3,), (16,), (17,), (40,), (2, 3), (4, 5)]


def _program(expression, np_):
    def f(s, v):
        y = eval(expression, {"np": np_, "s": s, "v": v})
        return np_.sum(np_.sin(y))
    return f


def _loop(s, v):
    total_ = 0.0
    for i in range(3):
        total_ = total_ + np.sum(np.cos(s * v + i))
    return total_


def _a_loop(s, v):
    total_ = 0.0
    for i in range(3):
        total_ = total_ + anp.sum(anp.cos(s * v + i))
    return total_


@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("op", list(OPERATIONS))
def test_gradients_unchanged(op, shape):
    f = _by_name[op]
    s, v = 0.7, RNG.uniform(0.5, 1.5, shape)
    ours = srcad.grad(f, wrt=(0, 1))(s, v)
    twin = _program(OPERATIONS[op], anp)  # the same expression on autograd
    for i in (0, 1):
        np.testing.assert_allclose(ours[i], autograd.grad(twin, i)(s, v), rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(ours[i], numerical_grad(f, (s, v), i), rtol=1e-6,
                                   atol=1e-9)
    assert np.ndim(ours[0]) == 0  # a number for the number


def _times(s, v):
    return np.sum(np.sin(s * v))


def _over(s, v):
    return np.sum(np.sin(v / s))


def _power(s, v):
    return np.sum(np.sin(np.abs(v) ** s))


def _minus(s, v):
    return np.sum(np.sin(s - v))


def _twice(s, v):
    return np.sum(np.sin((s * v) * (v + s)))


_by_name = {"times": _times, "over": _over, "power": _power, "minus": _minus, "twice": _twice}


def test_the_sum_is_totals():
    text = srcad.source(srcad.grad(_times, wrt=0), 0.5, np.ones(3))
    assert "total(" in text and ".sum()" not in text


@pytest.mark.parametrize("shape", [(3,), (20,)])
def test_in_a_loop_and_second_order(shape):
    s, v = 0.3, RNG.standard_normal(shape)
    np.testing.assert_allclose(srcad.grad(_loop, wrt=0)(s, v), autograd.grad(_a_loop, 0)(s, v),
                               rtol=1e-10)
    np.testing.assert_allclose(srcad.hessian(_loop, wrt=0)(s, v),
                               autograd.hessian(_a_loop, 0)(s, v), rtol=1e-8)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32, np.int64])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (16,), (17,), (2, 8), (3, 7), (100,)])
def test_total_is_numpys_sum(dtype, shape):
    value = (RNG.standard_normal(shape) * 4).astype(dtype)
    if dtype == np.complex128:
        value = value + 1j * RNG.standard_normal(shape)
    got, want = total(value), np.sum(value)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.result_type(got) == np.result_type(want) or isinstance(got, (float, complex))
    if dtype == np.float32:
        assert np.result_type(got) == np.float32  # a float32 sum stays one
    assert total(2.5) == 2.5 and total([1.0, 2.0]) == 3.0
