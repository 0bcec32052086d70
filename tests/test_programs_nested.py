"""Derivatives called inside differentiated code, beyond a named function with constant
arguments: ``srcad.grad`` of a lambda (or nested ``def``) reading the caller's differentiated
values (the outer derivative sees through the values held, as in meta-learning and
``x * grad(lambda y: x * y)(2.0)``), a wrapper declaring itself srcad's derivative maker
(``__srcad_derivative_maker__``, as the autograd-compatible shims do), and a call of a
derivative inside code differentiated in forward mode (``jvp``, ``jacfwd``).

Checked against central finite differences of the function itself, and reverse mode
against forward mode.
"""

import numpy as np
import pytest
from sampling import LONG

import srcad


def inner(y, x):
    return np.sin(x * y) * y


def held_lambda(x):
    g = lambda y: np.sin(x * y) * y  # noqa: E731 (the form under test)
    return x * srcad.grad(g)(x ** 2)


def held_def(x):
    def g(y):
        return np.exp(-x * y) + y * y * x

    return srcad.grad(g)(1.5) + x


def named_inner(x):
    return x * srcad.grad(inner)(x ** 2, x)


def held_value_and_grad(x):
    value, slope = srcad.value_and_grad(lambda y: np.cos(y * x) * x)(0.3)
    return value * slope + x


def held_wrt_named(x):
    return srcad.grad(lambda a, b: a * b * x + np.sin(a * x), wrt="a")(0.4, 2.0)


def held_wrt_tuple(x):
    ga, gb = srcad.grad(lambda a, b: a * b * x + np.sin(b * x), wrt=(0, 1))(0.4, 2.0)
    return ga * gb


def _like_autograd_grad(fun, argnum=0):
    """A wrapper such as an autograd-compatible ``grad`` (tools/autograd_shim.py)."""
    return srcad.grad(fun, wrt=argnum)


_like_autograd_grad.__srcad_derivative_maker__ = (srcad.grad, {"argnum": "wrt"})


def through_a_wrapper(x):
    return x * _like_autograd_grad(lambda y: x * y * y, argnum=0)(3.0)


def array_held(x):
    g = lambda w: np.sum(np.tanh(w * x))  # noqa: E731
    return np.sum(srcad.grad(g)(x + 1.0) * x)


SCALAR = [held_lambda, held_def, named_inner, held_value_and_grad, held_wrt_named,
          held_wrt_tuple, through_a_wrapper]


def fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("x", [0.7, -1.3, 2.1])
@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_reverse_and_forward_see_through_the_inner_derivative(f, x):
    got = srcad.grad(f)(x)
    assert got == pytest.approx(fd(f, x), rel=1e-6, abs=1e-7)
    value, tangent = srcad.jvp(f, (x,), (1.0,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(got, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_arrays_held(seed):
    x = np.random.default_rng(seed).normal(size=3)
    got = srcad.grad(array_held)(x)
    want = np.array([(array_held(x + e) - array_held(x - e)) / 2e-6
                     for e in 1e-6 * np.eye(3)])
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.allclose(srcad.jacobian(array_held, mode="fwd")(x), got, rtol=1e-9)


def held_with_aux(x):
    return srcad.grad(lambda y: (x * y, y), has_aux=True)(2.0)[0]


def test_has_aux_on_a_held_lambda():
    """(outside23) read through srcad.nested_aux: d/dx of d(x * y)/dy is 1."""
    assert srcad.grad(held_with_aux)(1.0) == pytest.approx(1.0, rel=1e-12)
    h = 1e-6
    want = (held_with_aux(1.0 + h) - held_with_aux(1.0 - h)) / (2 * h)
    assert srcad.grad(held_with_aux)(3.0) == pytest.approx(want, rel=1e-6)


# ---------------------------------------------------------------- third order


def _chain(f, order):
    """``g_k = grad(lambda x: sum(g_{k-1}(x)))``: each derivative called inside the code of
    the next (autograd's ``egrad(egrad(egrad(f)))``), not ``grad(grad(grad(f)))``."""
    g = f
    for _ in range(order):
        g = srcad.grad(_summed(g))
    return g


def _summed(g):
    def summed(x):
        return np.sum(g(x))

    return summed


def tanh_by_exp(x):
    y = np.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def _helper(x):
    return np.sin(x) * x


def with_a_callee(x):
    return _helper(x) ** 2 + np.exp(-x)


def scalar_loglike(r, p):
    return np.log(r + 3.0) * p + r * np.log(1.0 - p)


def scalar_rprime(r):
    """A derivative called with an argument computed from the point (a Newton step's
    derivative, as in autograd's negative_binomial_maxlike example)."""
    return srcad.grad(scalar_loglike)(r, 2.0 / (r + 3.0))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("f", [tanh_by_exp, with_a_callee, np.sin], ids=lambda f: f.__name__)
def test_third_order_through_derivatives_called_in_code(f, seed):
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, size=4)
    second, third = _chain(f, 2), _chain(f, 3)
    h = 1e-5
    want = (second(x + h) - second(x - h)) / (2 * h)  # elementwise: a diagonal Jacobian
    assert np.allclose(third(x), want, rtol=1e-5, atol=1e-6)
    if f is tanh_by_exp:
        t = np.tanh(x)
        assert np.allclose(third(x), -2.0 * (1.0 - t ** 2) * (1.0 - 3.0 * t ** 2), rtol=1e-10)


@pytest.mark.parametrize("r", [0.4, 1.7, 3.2])
def test_third_order_of_a_derivative_of_a_point_dependent_call(r):
    second = srcad.grad(scalar_rprime)
    third = srcad.grad(second)
    h = 1e-5
    assert second(r) == pytest.approx((scalar_rprime(r + h) - scalar_rprime(r - h)) / (2 * h),
                                      rel=1e-6)
    assert third(r) == pytest.approx((second(r + h) - second(r - h)) / (2 * h), rel=1e-5)


@pytest.mark.skipif(not LONG, reason="the long run's (15 s of CPU; third order runs in CI)")
@pytest.mark.parametrize("seed", [0, 1])
def test_fourth_and_fifth_order_through_derivatives_called_in_code(seed):
    """autograd's tanh example: egrad(egrad(egrad(egrad(tanh)))), each derivative called in
    the code of the next (the helpers running a derivative's code split again at run time)."""
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    t = np.tanh(x)
    third, fourth, fifth = (_chain(tanh_by_exp, k) for k in (3, 4, 5))
    assert np.allclose(fourth(x), 8.0 * t * (1.0 - t ** 2) * (2.0 - 3.0 * t ** 2), rtol=1e-9)
    h = 1e-5
    assert np.allclose(fourth(x), (third(x + h) - third(x - h)) / (2 * h), rtol=1e-5,
                       atol=1e-6)
    assert np.allclose(fifth(x), (fourth(x + h) - fourth(x - h)) / (2 * h), rtol=1e-5,
                       atol=1e-6)


def held_name_as_wrt(x):
    return srcad.grad(lambda y: x * y, wrt="x")(2.0)


def test_wrt_naming_a_held_value_is_refused():
    """``x`` is not a parameter of the lambda (``srcad.grad`` outside would refuse it too)."""
    with pytest.raises(srcad.SrcadError):
        srcad.grad(held_name_as_wrt)(1.0)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
@pytest.mark.parametrize("x", [0.7, -1.3])
@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_hessians_of_code_calling_derivatives(f, x, mode):
    """A Hessian of a function calling a derivative is a third derivative of the inner one:
    forward over reverse and reverse over reverse."""
    grad_f = srcad.grad(f)
    got = srcad.hessian(f, mode=mode)(x)
    assert got == pytest.approx(fd(grad_f, x, 1e-5), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_forward_mode_third_order_elementwise(seed):
    x = np.random.default_rng(seed).uniform(-1.0, 1.0, size=3)
    second = _chain(tanh_by_exp, 2)
    _, tangent = srcad.jvp(second, (x,), (np.ones(3),))
    t = np.tanh(x)
    assert np.allclose(tangent, -2.0 * (1.0 - t ** 2) * (1.0 - 3.0 * t ** 2), rtol=1e-10)
