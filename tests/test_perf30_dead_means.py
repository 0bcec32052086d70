"""A discarded mean's loop sum is not computed (srcad.backend.tidy_dead._covered_divisions):
a gradient of ``return -total / count`` keeps ``-total / count`` (it may raise) unless the
gradient itself divides a number by ``count`` later, always (``dt = -(1.0 / count)``), so the
loop's ``total`` that only it read goes too. Checked against central differences and srcad's
reference tape, with cases where the value must stay (the division in a branch, a divisor
the gradient does not divide by) and where it raises (an empty loop)."""

import re

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG
from tests.twin_checks import central


def mean_loss(x, w):
    total = 0.0
    count = 0
    for t in range(len(w) - 1):
        y = np.tanh(x * w[t])
        z = y - np.log(np.sum(np.exp(y)) + 2.0)
        total = total + np.sum(w[t + 1] * z)
        count = count + len(y)
    return -total / count


def mean_len(x, w):
    total = 0.0
    for t in range(len(w)):
        total = total + np.sum(np.sin(x * w[t]))
    return total / len(w)


def two_divisors(x, w):
    total = 0.0
    n = 0
    for t in range(len(w)):
        total = total + np.sum(x * w[t]) ** 2
        n = n + 1
    return total / n / len(x)  # the gradient's 1.0 / len(x) / n: n not under a number, kept


def kept_in_branch(x, w):
    total = 0.0
    for t in range(len(w)):
        total = total + np.sum(np.cos(x * w[t]))
    if total > 0.0:  # read by the test: computed, as it must be
        return total / len(w)
    return total * 2.0


def divisor_read_otherwise(x, w):
    total = 0.0
    for t in range(len(w)):
        total = total + np.sum(x * w[t])
    s = np.sum(x * x)
    return total / s  # s active: the gradient divides by s, but not a number by s


def row_broadcast(x, w):
    total = 0.0
    for t in range(len(w)):
        z = np.tanh(x * w[t])
        total = total + np.sum(w[t] * z)  # w[t] (1,) or (4,): alike known only at run time
    return total / len(w)


CASES = [mean_loss, mean_len, two_divisors, kept_in_branch, divisor_read_otherwise,
         row_broadcast]


def _args(rng):
    return rng.normal(size=4) * 0.5, rng.normal(size=(3, 4)) * 0.5


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_differences_and_tape(f):
    x, w = _args(np.random.default_rng(30))
    got = srcad.grad(f)(x, w)
    np.testing.assert_allclose(got, central(f, (x, w), 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, tape.grad(f)(x, w), rtol=1e-10, atol=1e-12)


def _code(f):
    """The lines of ``f``'s gradient that are code (not the ``# line`` comments)."""
    g = srcad.grad(f)
    g(*_args(np.random.default_rng(1)))
    return [line for line in srcad.source(g, callees=False).splitlines()
            if not line.strip().startswith("#")]


@pytest.mark.parametrize("f", [mean_loss, mean_len], ids=lambda f: f.__name__)
def test_the_discarded_mean_and_its_sum_are_gone(f):
    code = _code(f)
    assert not [line for line in code if re.search(r"\btotal\b", line)], "\n".join(code)


@pytest.mark.parametrize("f", [two_divisors, kept_in_branch, divisor_read_otherwise],
                         ids=lambda f: f.__name__)
def test_the_value_stays_where_it_may_fail_alone(f):
    code = _code(f)
    assert [line for line in code if "total = total +" in line], "\n".join(code)


@pytest.mark.parametrize("cols", [1, 4])
def test_a_layout_kept_only_where_the_guard_fails(cols):
    """row_broadcast: the sum's stand-in ``layout(w[t] * z)`` is what ``grad_sum`` reads
    where ``w[t]`` and ``z`` differ in shape, and only there: made beside the guard, as
    ``None if alike else layout(...)``; with one column the guard fails and it is used."""
    rng = np.random.default_rng(cols)
    x, w = rng.normal(size=4), rng.normal(size=(3, cols))
    g = srcad.grad(row_broadcast)
    got = g(x, w)
    np.testing.assert_allclose(got, central(row_broadcast, (x, w), 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, tape.grad(row_broadcast)(x, w), rtol=1e-10, atol=1e-12)
    text = srcad.source(g, callees=False)
    assert re.search(r"_layout = None if alike(_\d+)? else layout\(", text), text


def test_an_empty_loop_still_raises():
    """No steps: ``-total / count`` is ``0.0 / 0``; the gradient raises as the function does."""
    x, w = np.ones(4), np.ones((1, 4))
    with pytest.raises(ZeroDivisionError):
        mean_loss(x, w)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(mean_loss)(x, w)
    with pytest.raises(ZeroDivisionError):
        srcad.grad(mean_len)(x, np.ones((0, 4)))


@pytest.mark.skipif(not LONG, reason="second order: a second transform each, under LONG")
@pytest.mark.parametrize("f", [mean_loss, mean_len, row_broadcast], ids=lambda f: f.__name__)
def test_second_order(f):
    """The Hessian (the gradient's code differentiated again) against central differences of
    the gradient, and the tape's gradient, w = (3, 1) for row_broadcast (the layout used)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=4) * 0.5
    w = rng.normal(size=(3, 1 if f is row_broadcast else 4)) * 0.5
    h = srcad.hessian(lambda x: f(x, w))(x)
    g = srcad.grad(lambda x: f(x, w))
    e = 1e-6 * np.eye(4)
    rows = np.array([(g(x + e[i]) - g(x - e[i])) / 2e-6 for i in range(4)])
    np.testing.assert_allclose(h, rows, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g(x), tape.grad(f)(x, w), rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(not LONG, reason="the generated family runs under LONG")
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_family(f, seed):
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=4), rng.normal(size=(int(rng.integers(2, 5)), 4))
    got = srcad.grad(f)(x, w)
    np.testing.assert_allclose(got, central(f, (x, w), 0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got, tape.grad(f)(x, w), rtol=1e-9, atol=1e-11)
