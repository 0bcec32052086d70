"""Derivatives of derivatives: srcad transforms its own generated code again."""

import inspect
import math

import pytest
from corpus import CONTROL
from srcad.check import numerical_grad

import srcad


def _first_wrt(case):
    wrt = case.wrt if isinstance(case.wrt, (int, str)) else case.wrt[0]
    params = list(inspect.signature(case.func).parameters)
    return wrt if isinstance(wrt, int) else params.index(wrt)


ITEMS = [(case, args) for case in CONTROL for args in case.inputs]


@pytest.mark.parametrize(("case", "args"), ITEMS,
                         ids=[f"{c.func.__name__}-{i}" for i, (c, _) in enumerate(ITEMS)])
def test_second_derivative_of_control_flow(case, args):
    """grad(grad(f)) equals finite differences of grad(f), for every control-flow function."""
    wrt = _first_wrt(case)
    first = srcad.grad(case.func, wrt=wrt)
    second = srcad.grad(first, wrt=wrt)(*args)
    expected = numerical_grad(lambda *a: first(*a), args, wrt)
    assert second == pytest.approx(expected, rel=1e-5, abs=1e-6)


def fifth_power(x):
    return x**5


def exp_series(x):
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-15:
        term = term * x / k
        total = total + term
        k += 1
    return total


def test_third_derivative_of_a_power():
    d3 = srcad.grad(srcad.grad(srcad.grad(fifth_power)))
    for x in (0.5, -1.3, 2.0):
        assert d3(x) == pytest.approx(60 * x**2, rel=1e-12)


@pytest.mark.parametrize("x", [0.3, 1.5, -0.7])
def test_third_derivative_of_a_while_loop(x):
    """The Taylor series of exp is its own derivative, to every order, loop and all."""
    d1 = srcad.grad(exp_series)
    d2 = srcad.grad(d1)
    d3 = srcad.grad(d2)
    assert d1(x) == pytest.approx(math.exp(x), rel=1e-10)
    assert d2(x) == pytest.approx(math.exp(x), rel=1e-10)
    assert d3(x) == pytest.approx(math.exp(x), rel=1e-9)
    assert d3(x) == pytest.approx(numerical_grad(d2, (x,), 0), rel=1e-6)


def test_second_order_source_is_plain_python():
    text = srcad.source(srcad.grad(srcad.grad(fifth_power)), 1.0)
    compile(text, "<check>", "exec")
    assert "def grad_grad_fifth_power" in text
