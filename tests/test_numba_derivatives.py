"""The Numba backend on code calling a derivative srcad made (GradBench's ``particle`` in
small): ``srcad.grad(f)`` passed in as an argument (read as a global: the same, its identity
is known when the code is made) and ``srcad.jvp(f, ...)`` written in the code, each compiled
as the callee its generated code is and differentiated again by the outer sweep, in reverse
and in forward mode; a global number the function reads is passed to the compiled code at
each call (a new value is seen). Each derivative is compared with the Python backend's (to
1e-12) and with central finite differences; one given a list (its code chosen when it runs)
is refused before compiling. Skipped where numba is not installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend
from srcad.errors import SrcadError

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

STEP = 0.1  # a global number the compiled code reads (given at each call)


def _inner(x):
    return math.sin(x) * x


def _calls_jvp(x):
    return srcad.jvp(_inner, (x,), (1.0,))[1] * x  # forward mode written in the code


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_jvp_called_in_compiled_code():
    got = srcad.grad(_calls_jvp, backend="numba")(0.4)
    assert math.isclose(got, srcad.grad(_calls_jvp)(0.4), rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(got, _fd(_calls_jvp, 0.4), rel_tol=1e-6)


def potential(x, w):
    first = np.sqrt((x[0] - 2.0) ** 2 + (x[1] - w) ** 2)
    return 1.0 / first + 0.5 * x[1]


def flight(w, force):
    """particle's miss in small: Euler steps, each taking the force a derivative gives."""
    x = np.array([0.0, 1.0])
    v = np.array([0.75, 0.0])
    for _ in range(6):
        x = x + STEP * v
        v = v - STEP * force(x, w)
    return x[0] * x[1] + v[1]


def test_derivative_passed_in_reverse_and_forward():
    global STEP
    force = srcad.grad(potential)
    reverse = srcad.grad(flight, backend="numba")
    forward = srcad.jvp
    for w in (0.3, -0.2):
        got = reverse(w, force)
        assert math.isclose(got, srcad.grad(flight)(w, force), rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(got, _fd(lambda u: flight(u, force), w), rel_tol=1e-6)
        value, tangent = forward(flight, (w, force), (1.0,), wrt=(0,), backend="numba")
        assert math.isclose(value, flight(w, force), rel_tol=1e-12)
        assert math.isclose(tangent, got, rel_tol=1e-12, abs_tol=1e-12)
    try:  # a new value of the global: read, not frozen into the compiled code
        STEP = 0.05
        got = reverse(0.3, force)
        assert math.isclose(got, srcad.grad(flight)(0.3, force), rel_tol=1e-12)
        assert math.isclose(got, _fd(lambda u: flight(u, force), 0.3), rel_tol=1e-6)
    finally:
        STEP = 0.1


def _product(v):
    return v[0] * v[1]


_product_grad = srcad.grad(_product)


def _derivative_of_a_list(x):
    return _product_grad([x, 2.0])[0] * x  # a list argument: its code is chosen when it runs


def test_derivative_of_a_list_is_refused_before_compiling():
    with pytest.raises(SrcadError, match="a call of a derivative srcad made") as info:
        srcad.grad(_derivative_of_a_list, backend="numba")(0.4)
    assert info.value.filename == __file__ and "backend='python'" in str(info.value)
    # the Python backend differentiates it
    got = srcad.grad(_derivative_of_a_list)(0.4)
    assert math.isclose(got, _fd(_derivative_of_a_list, 0.4), rel_tol=1e-6)
