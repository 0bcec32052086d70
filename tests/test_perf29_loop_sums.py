"""One-number gradients of whole sums inside a loop's body (srcad.transform.loop_sums): the
gradient of ``a`` in ``s = np.sum(a)`` is the number ``ds`` until something needs the array,
which is then made as the rule makes it. Checked against central differences and srcad's
reference tape, with cases where the number must become an array (an index, a branch, a
sum over an axis, an array carried across iterations, a broadcast operand)."""

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG


def softmax_steps(x, w):
    total = 0.0
    for t in range(3):
        e = np.exp(x * w[t])
        s = np.sum(e) + 2.0  # the normaliser: e's gradient one number, then * e
        total = total + np.sum(x * np.log(s) + e / s)
    return total


def indexed(x, w):
    total = 0.0
    for t in range(3):
        a = np.sin(x * w[t])
        s = np.sum(a)
        total = total + s * a[1]  # a read by an index: a's gradient a whole array
    return total


def branched(x, w):
    total = 0.0
    for t in range(3):
        a = x * w[t]
        s = np.sum(a)
        if t > 0:
            total = total + np.sum(a * a)  # a branch reading a: made an array before it
        total = total + s * s
    return total


def carried(x, w):
    acc = x
    total = 0.0
    for t in range(3):
        total = total + np.sum(acc) * w[t]  # acc carried across iterations: as before
        acc = np.tanh(acc * w[t])
    return total + np.sum(acc)


def broadcast(x, w):
    total = 0.0
    for t in range(2):
        a = np.outer(w[t:t + 2], x)  # 2 x n
        s = np.sum(a)
        total = total + s * np.sum(a * x)  # a * x broadcasts x: x's gradient is summed
    return total


def twice(x, w):
    total = 0.0
    for t in range(3):
        a = np.cos(x) * w[t]
        total = total + np.sum(a) * np.sum(a) + np.sum(a, axis=0) * 0.5
    return total


def latch(x, w):
    acc = x
    total = 0.0
    for t in range(3):
        a = np.tanh(acc * w[t])
        total = total + np.sum(a)  # a summed and carried to the next iteration
        acc = a
    return total + np.sum(acc * acc)


def while_nested(x, w):
    total = 0.0
    t = 0
    while t < 3:
        e = np.exp(x * w[t])
        y = e[1] * 2.0  # read by an index before the sum (after it, backwards)
        if t % 2:
            total = total + np.sum(e * e)
        total = total + np.sum(e) + y
        t += 1
    return total


def guarded_rows(x, w):
    total = 0.0
    for t in range(3):
        a = x[1:] * np.tanh(x[:-1] * w[t])  # one shape at run time, classes not joined
        total = total + np.sum(a)
    return total


CASES = [softmax_steps, indexed, branched, carried, broadcast, twice, latch, while_nested,
         guarded_rows]


def _numeric(f, x, w, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.flat[i] = (f(x + e, w) - f(x - e, w)) / (2 * h)
    return out


@pytest.mark.parametrize("f", CASES if LONG else [softmax_steps, indexed, latch, while_nested,
                                                  guarded_rows, broadcast],
                         ids=lambda f: f.__name__)
def test_against_differences_and_tape(f):
    rng = np.random.default_rng(29)
    x, w = rng.normal(size=4) * 0.5, rng.normal(size=4) * 0.5
    got = srcad.grad(f)(x, w)
    np.testing.assert_allclose(got, _numeric(f, x, w), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, tape.grad(f)(x, w), rtol=1e-10, atol=1e-12)
    assert type(got) is np.ndarray and got.dtype == np.float64 and got.flags.writeable


def test_the_number_is_used_and_the_layout_kept():
    """softmax_steps: ``e``'s gradient read as a number (no ``grad_sum`` of it), and the
    backward sweep reads no array the plain form would not have read."""
    x, w = np.linspace(0.1, 0.4, 4), np.array([0.3, -0.2, 0.5, 0.1])
    g = srcad.grad(softmax_steps)
    g(x, w)
    text = srcad.source(g)
    assert text.count("grad_sum(") == 1, text  # the total's own (x * log(s) + e / s)


def test_the_number_where_the_shape_guard_holds():
    """guarded_rows: ``v[t] * np.tanh(x)``'s operands are alike only at run time: the
    number on the guard's side, the array made on the other (broadcast: that side runs)."""
    x, w = np.linspace(0.1, 0.4, 4), np.array([0.3, -0.2, 0.5, 0.1])
    g = srcad.grad(guarded_rows)
    g(x, w)
    text = srcad.source(g)
    guarded = [line for line in text.splitlines() if " if alike else " in line and (
        "grad_sum(" in line.split(" if alike else ")[1])]
    assert guarded and "grad_sum(" not in guarded[0].split(" if alike else ")[0], text


@pytest.mark.skipif(not LONG, reason="second order: a second transform (1.4 s), under LONG")
def test_second_order_reads_the_plain_form():
    x, w = np.linspace(0.1, 0.4, 4), np.array([0.3, -0.2, 0.5, 0.1])

    def f(x):
        return softmax_steps(x, w)

    hv = srcad.hvp(f)(x, np.ones(4))
    h = 1e-5
    num = (srcad.grad(f)(x + h) - srcad.grad(f)(x - h)) / (2 * h)  # along v = ones
    np.testing.assert_allclose(hv, num, rtol=1e-4, atol=1e-6)


@pytest.mark.skipif(not LONG, reason="the generated family runs under LONG")
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_family(f, seed):
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=4), rng.normal(size=4)
    got = srcad.grad(f)(x, w)
    np.testing.assert_allclose(got, _numeric(f, x, w), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got, tape.grad(f)(x, w), rtol=1e-9, atol=1e-11)
