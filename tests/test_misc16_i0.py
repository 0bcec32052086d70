"""``np.i0`` (issue 16): its derivative is the modified Bessel function I1, which NumPy lacks;
srcad computes it with ``scipy.special.i1`` (``bessel_i1``, srcad/runtime/numpy_more.py) and
refuses, when the derivative runs, without SciPy. Checked to the third order against mpmath's
derivatives of ``besseli(0, x)`` and central finite differences, in both modes, on numbers and
arrays.
"""

import sys

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

pytest.importorskip("scipy")
mpmath = pytest.importorskip("mpmath")


def d_i0(x, n):
    """The ``n``-th derivative of I0 at ``x``, by mpmath."""
    return float(mpmath.diff(lambda t: mpmath.besseli(0, t), float(x), n))


def scaled(x, w):
    return np.i0(x * w) * w


def summed(x, w):
    return np.sum(np.i0(x) * np.sin(x) * w)


POINTS = [0.0, 0.5, -1.3, 3.7]


@pytest.mark.parametrize("x", POINTS)
def test_numbers_to_the_third_order(x):
    w = 0.8
    first = srcad.grad(scaled)
    assert first(x, w) == pytest.approx(w * w * d_i0(x * w, 1), rel=1e-12, abs=1e-14)
    assert first(x, w) == pytest.approx(numerical_grad(scaled, (x, w), 0), rel=1e-6, abs=1e-8)
    value, dw = srcad.value_and_grad(scaled, wrt=1)(x, w)
    assert value == pytest.approx(float(np.i0(x * w)) * w, rel=1e-14)
    assert dw == pytest.approx(x * w * d_i0(x * w, 1) + float(np.i0(x * w)), rel=1e-12,
                               abs=1e-14)
    assert srcad.jvp(scaled, (x, w), (1.0, 0.0))[1] == pytest.approx(first(x, w), rel=1e-12,
                                                                      abs=1e-14)
    second = w ** 3 * d_i0(x * w, 2)
    assert srcad.hessian(scaled)(x, w) == pytest.approx(second, rel=1e-10)
    assert srcad.hessian(scaled, mode="rev")(x, w) == pytest.approx(second, rel=1e-10)
    third = srcad.grad(srcad.grad(first))(x, w)
    assert third == pytest.approx(w ** 4 * d_i0(x * w, 3), rel=1e-9, abs=1e-12)


def test_arrays():
    x, w = np.array([0.3, -1.1, 2.4]), 1.7
    got = srcad.grad(summed)(x, w)
    want = w * (np.array([d_i0(v, 1) for v in x]) * np.sin(x) + np.i0(x) * np.cos(x))
    assert np.allclose(got, want, rtol=1e-12)
    assert np.allclose(got, numerical_grad(summed, (x, w), 0), rtol=1e-6)
    u = np.array([0.2, 0.5, -0.4])
    assert srcad.jvp(summed, (x, w), (u, 0.0))[1] == pytest.approx(np.dot(want, u), rel=1e-12)
    hess = srcad.hessian(summed)(x, w)
    diag = w * (np.array([d_i0(v, 2) for v in x]) * np.sin(x)
                + 2 * np.array([d_i0(v, 1) for v in x]) * np.cos(x) - np.i0(x) * np.sin(x))
    assert np.allclose(hess, np.diag(diag), rtol=1e-10, atol=1e-12)
    assert np.allclose(srcad.hessian(summed, mode="rev")(x, w), hess, rtol=1e-10, atol=1e-12)


def test_without_scipy_the_derivative_is_refused(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)  # `from scipy import special` fails
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.grad(scaled)(0.5, 0.8)
    assert "scipy.special.i1" in info.value.message and "pip install scipy" in info.value.hint
    # raised while the derivative runs: placed at the user's line, the helper's construct kept
    assert info.value.construct.endswith("(np.i0)") and "np.i0(" in info.value.construct
    assert info.value.filename == __file__ and info.value.lineno is not None
