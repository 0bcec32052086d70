"""srcad.check: finite differences against known derivatives, and check_grads against fake
gradients (right ones pass, wrong ones are caught and named)."""

import math

import numpy as np
import pytest
import srcad.check
from hypothesis import given
from hypothesis import strategies as st
from srcad.check import check_grads, numerical_grad

import srcad

# --- numerical_grad -------------------------------------------------------------------------


@given(st.floats(-10.0, 10.0))
def test_numerical_grad_sin(x):
    assert numerical_grad(math.sin, (x,)) == pytest.approx(math.cos(x), abs=1e-9)


@pytest.mark.parametrize(
    "f, df, x",
    [
        (math.exp, math.exp, 1.3),
        (math.log, lambda x: 1 / x, 0.7),
        (math.atan, lambda x: 1 / (1 + x * x), -2.0),
        (lambda x: x**5 - 3 * x, lambda x: 5 * x**4 - 3, 1.7),
        (lambda x: math.sqrt(x) * math.cos(x), None, 2.5),
    ],
)
def test_numerical_grad_scalar(f, df, x):
    if df is None:  # product rule, written out
        expected = math.cos(x) / (2 * math.sqrt(x)) - math.sqrt(x) * math.sin(x)
    else:
        expected = df(x)
    got = numerical_grad(f, (x,), 0)
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_numerical_grad_wrt_names_and_tuples():
    def f(x, y, n):
        return x**n * math.sin(y)

    x, y = 1.5, 0.4
    dx = 3 * x**2 * math.sin(y)
    dy = x**3 * math.cos(y)
    assert numerical_grad(f, (x, y, 3), "y") == pytest.approx(dy, rel=1e-9)
    assert numerical_grad(f, (x, y, 3), 1) == pytest.approx(dy, rel=1e-9)
    got = numerical_grad(f, (x, y, 3), ("y", 0))
    assert isinstance(got, tuple) and len(got) == 2
    assert got == pytest.approx((dy, dx), rel=1e-9)
    assert numerical_grad(f, (x, y, 3), None) == pytest.approx((dx, dy), rel=1e-9)
    with pytest.raises(ValueError, match="'z'"):
        numerical_grad(f, (x, y, 3), "z")


def test_numerical_grad_array():
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    b = np.array([1.0, -2.0, 0.5])

    def f(x, b):
        return np.sum(np.sin(x) * b) + np.sum(x**3)

    gx, gb = numerical_grad(f, (x, b), (0, 1))
    assert gx.shape == x.shape and gb.shape == b.shape
    np.testing.assert_allclose(gx, np.cos(x) * b + 3 * x**2, rtol=1e-9)
    np.testing.assert_allclose(gb, np.sin(x).sum(axis=0), rtol=1e-9)


def test_numerical_grad_zero_dim_array_keeps_shape():
    got = numerical_grad(lambda a: float(a) ** 2, (np.array(3.0),))
    assert isinstance(got, np.ndarray) and got.shape == ()
    assert float(got) == pytest.approx(6.0)


def test_numerical_grad_rejects_array_output():
    with pytest.raises(TypeError, match="scalar"):
        numerical_grad(lambda x: x * np.ones(2), (1.0,))


# --- check_grads with fake gradients ----------------------------------------------------------


def poly(x, y):
    return x**2 * y + math.sin(x)


def dpoly_dx(x, y):
    return 2 * x * y + math.cos(x)


def dpoly_dy(x, y):
    return x**2


def d2poly_dxdx(x, y):
    return 2 * y - math.sin(x)


def d2poly_dxdy(x, y):
    return 2 * x


def zero(x, y):
    return 0.0


def _fake_grad(table):
    """A stand-in for srcad.grad that looks derivatives up in {(function, index): derivative}."""

    def grad(f, wrt=0):
        if isinstance(wrt, tuple):
            parts = [table[f, w] for w in wrt]
            return lambda *args: tuple(p(*args) for p in parts)
        return table[f, wrt]

    return grad


RIGHT = {
    (poly, 0): dpoly_dx,
    (poly, 1): dpoly_dy,
    (dpoly_dx, 0): d2poly_dxdx,
    (dpoly_dx, 1): d2poly_dxdy,
    (dpoly_dy, 0): d2poly_dxdy,
    (dpoly_dy, 1): zero,
}


@pytest.fixture
def fake_srcad(monkeypatch):
    """Install a fake srcad.api.grad (what check_grads calls) and a reference tape that gives
    the same answers, so that only finite differences judge it."""

    def install(table):
        monkeypatch.setattr(srcad.api, "grad", _fake_grad(table))
        monkeypatch.setattr(srcad.check, "_reference_grad", lambda: _fake_grad(table))

    return install


def test_check_grads_passes_right_gradient(fake_srcad):
    fake_srcad(RIGHT)
    check_grads(poly, 0.7, -1.2)
    check_grads(poly, 0.7, -1.2, wrt="y")
    check_grads(poly, 0.7, -1.2, order=2)


def test_check_grads_catches_wrong_gradient(fake_srcad):
    fake_srcad({**RIGHT, (poly, 1): lambda x, y: 1.001 * x**2})
    check_grads(poly, 0.7, -1.2, wrt="x")
    with pytest.raises(AssertionError) as err:
        check_grads(poly, 0.7, -1.2)
    message = str(err.value)
    assert "poly" in message and "'y'" in message and "finite differences" in message


def test_check_grads_catches_wrong_second_derivative(fake_srcad):
    fake_srcad({**RIGHT, (dpoly_dx, 1): lambda x, y: 2 * x + 0.01})
    check_grads(poly, 0.7, -1.2)  # first order is right
    with pytest.raises(AssertionError, match="second derivative.*'x'.*'y'"):
        check_grads(poly, 0.7, -1.2, order=2)


def test_check_grads_catches_wrong_shape(fake_srcad):
    fake_srcad({(poly, 0): lambda x, y: np.array([dpoly_dx(x, y)]), (poly, 1): dpoly_dy})
    with pytest.raises(AssertionError, match="shape"):
        check_grads(poly, 0.7, -1.2)


def test_check_grads_wrt_none_skips_integer_arguments(fake_srcad, monkeypatch):
    def power(x, n):
        return x**n

    seen = []

    def grad(f, wrt=0):
        seen.append(wrt)
        return lambda x, n: (n * x ** (n - 1),)

    monkeypatch.setattr(srcad.api, "grad", grad)
    check_grads(power, 1.3, 3)
    assert seen == [(0,)]


def test_check_grads_compares_with_reference_tape(fake_srcad, monkeypatch):
    fake_srcad(RIGHT)
    wrong_tape = _fake_grad({**RIGHT, (poly, 0): lambda x, y: dpoly_dx(x, y) + 1e-3})
    monkeypatch.setattr(srcad.check, "_reference_grad", lambda: wrong_tape)
    with pytest.raises(AssertionError, match="reference tape"):
        check_grads(poly, 0.7, -1.2)
    monkeypatch.setattr(srcad.check, "_reference_grad", lambda: _fake_grad(RIGHT))
    check_grads(poly, 0.7, -1.2)


def cubes(x):
    return np.sum(x**3)


def test_check_grads_arrays_and_vjp(fake_srcad, monkeypatch):
    def dcubes(x):
        return 3 * x**2

    x = np.array([0.5, -1.5, 2.0])
    fake_srcad({(cubes, 0): dcubes})
    check_grads(cubes, x)
    fake_srcad({(cubes, 0): lambda x: 3 * x**2 + np.array([0.0, 1e-3, 0.0])})
    with pytest.raises(AssertionError, match="cubes.*'x'"):
        check_grads(cubes, x)

    fake_srcad({(cubes, 0): dcubes})
    for wrong, passes in ((0.0, True), (1e-3, False)):

        def vjp(f, *args, wrt=None, wrong=wrong):
            assert f is dcubes and wrt == (0,)
            return f(*args), lambda u: (6 * args[0] * u + wrong,)

        monkeypatch.setattr(srcad.api, "vjp", vjp)
        if passes:
            check_grads(cubes, x, order=2)
        else:
            with pytest.raises(AssertionError, match="second derivative"):
                check_grads(cubes, x, order=2)
