"""srcad's derivatives called from the user's own ``@numba.njit`` code
(``srcad.numba_function``, ``srcad.numba_jvp``): the values inside compiled loops against the
Python backend (1e-12), autograd and central differences; a derivative of code calling a
derivative with a function passed and a global number (GradBench's particle in small: the
descent compiled too); the checks the forms make (types where Numba types the call, which
arrays share a shape, tangents' shapes, read-only gradients copied) and the refusals before
compiling. Few forms, each compiled once (Numba compiles take seconds). Skipped where numba is
not installed."""

from __future__ import annotations

import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend
from srcad.errors import SrcadError
from tests.twin_checks import central, close

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

if numba_backend.available():
    import numba
    from numba.core.errors import TypingError

STEP = 0.1  # a global number read by _flight (frozen in the compiled form, as Numba does)


def _potential(x, w):
    first = np.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = np.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    return 1.0 / first + 1.0 / second


def _potential_twin(x, w):
    first = anp.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = anp.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    return 1.0 / first + 1.0 / second


def _flight(w, force):
    x = np.array([0.0, 8.0])
    v = np.array([0.75, 0.0])
    for _ in range(12):
        x = x + STEP * v
        v = v - STEP * force(x, w)
    return x[0] * x[1] + v[0]


def _energy(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + math.sin(x[i]) * y[i] ** 2
    return s + np.sum(x * y)


@pytest.fixture(scope="module")
def forms():
    x = np.array([0.3, 7.0])
    return {
        "grad": srcad.numba_function(srcad.grad(_potential, backend="numba"), x, 0.5),
        "vg": srcad.numba_function(srcad.value_and_grad(_energy, wrt=(0, 1), backend="numba"),
                                   np.ones(3), np.ones(3)),
        "jvp": srcad.numba_jvp(_potential, (x, 0.5), (np.array([1.0, 0.0]),), wrt=(0,)),
        "outer": srcad.numba_function(srcad.grad(_flight, backend="numba"), 0.0,
                                      srcad.grad(_potential, backend="numba")),
    }


def test_grad_in_a_compiled_loop(forms):
    g = forms["grad"]

    @numba.njit
    def gradients(x, ws):
        out = np.empty((ws.shape[0], 2))
        for k in range(ws.shape[0]):
            out[k] = g(x, ws[k])
        return out

    x, ws = np.array([0.3, 7.0]), np.array([0.5, -1.25, 2.0])
    got = gradients(x, ws)
    for k, w in enumerate(ws):
        assert close(got[k], srcad.grad(_potential)(x, w), 1e-12)
        assert close(got[k], autograd.grad(_potential_twin)(x, w), 1e-12)
        assert close(got[k], central(_potential, [x, w], 0), 1e-6)
    assert close(g(x, 0.5), got[0], 0.0)  # called from Python: the same code


def test_value_and_grad_gradients_are_the_callers_own(forms):
    vg = forms["vg"]

    @numba.njit
    def twice(x, y):
        value, (gx, gy) = vg(x, y)
        gy[0] += 1.0  # writable, and the caller's own
        return value, gx, gy

    x, y = np.array([0.2, -0.7, 1.1]), np.array([1.5, 0.4, -2.0])
    value, gx, gy = twice(x, y)
    assert close(y, [1.5, 0.4, -2.0], 0.0)  # (no gradient is an argument's memory)
    want_value, (want_gx, want_gy) = srcad.value_and_grad(_energy, wrt=(0, 1))(x, y)
    assert close(value, want_value, 1e-12) and close(gx, want_gx, 1e-12)
    assert close(gy, want_gy + np.array([1.0, 0.0, 0.0]), 1e-12)
    assert close(gx, central(_energy, [x, y], 0), 1e-6)
    with pytest.raises(ValueError, match="one shape"):  # made for x and y of one shape
        vg(x, y[:2])


def test_jvp_columns(forms):
    jvp = forms["jvp"]

    @numba.njit
    def force(x, w):
        return np.array([jvp(x, w, np.array([1.0, 0.0]))[1],
                         jvp(x, w, np.array([0.0, 1.0]))[1]])

    x = np.array([1.0, 3.0])
    assert close(force(x, 0.25), srcad.grad(_potential)(x, 0.25), 1e-12)
    value, tangent = jvp(x, 0.25, np.array([0.5, -2.0]))
    want = srcad.jvp(_potential, (x, 0.25), (np.array([0.5, -2.0]),), wrt=(0,))
    assert close(value, want[0], 1e-12) and close(tangent, want[1], 1e-12)
    with pytest.raises(ValueError, match="tangent"):
        jvp(x, 0.25, np.array([1.0, 0.0, 0.0]))


def test_derivative_of_code_calling_a_derivative_in_a_compiled_descent(forms):
    outer = forms["outer"]  # the function passed is fixed: the form takes w alone

    @numba.njit
    def descent(derivative, w, steps):  # the form passed as an argument
        for _ in range(steps):
            w = w - 0.01 * derivative(w)
        return w

    force = srcad.grad(_potential)
    w = 0.2
    for _ in range(3):
        w = w - 0.01 * srcad.grad(_flight)(w, force)
    assert close(descent(outer, 0.2, 3), w, 1e-12)
    assert close(outer(0.4), srcad.grad(_flight)(0.4, force), 1e-12)
    fd = (_flight(0.4 + 1e-6, force) - _flight(0.4 - 1e-6, force)) / 2e-6
    assert close(outer(0.4), fd, 1e-6)
    assert outer(1) == outer(1.0)  # an int for the differentiated float, as srcad.grad takes it


def test_other_types_refused_where_numba_types_the_call(forms):
    g = forms["grad"]

    @numba.njit
    def with_an_int(x):
        return g(x, 1)  # w is not differentiated: an int is not converted

    with pytest.raises(TypingError, match="w is int64, the form was made for float64"):
        with_an_int(np.array([0.3, 7.0]))
    with pytest.raises(TypingError, match="was made for array"):
        g(np.ones((2, 2)), 0.5)


def _list_sum(xs):
    return xs[0] * xs[1]


def _keyword_only(x, *, scale=2.0):
    return x * scale


@pytest.mark.parametrize("make, match", [
    (lambda: srcad.numba_function(srcad.grad(_potential), np.ones(2), 0.5), "backend='numba'"),
    (lambda: srcad.numba_function(srcad.grad(_list_sum, backend="numba"), [1.0, 2.0]),
     "cannot take xs=a list"),
    (lambda: srcad.numba_function(srcad.grad(_potential, backend="numba"),
                                  np.ones(2, np.float32), 0.5), "array of float32"),
    (lambda: srcad.numba_function(srcad.grad(_potential, backend="numba"), np.ones(2)),
     "one example argument for each parameter"),
    (lambda: srcad.numba_function(srcad.grad(_keyword_only, backend="numba"), 1.0),
     "keyword-only"),
    (lambda: srcad.numba_jvp(_potential, (np.ones(2), 0.5), (np.ones(2), 1.0), wrt=(0,)),
     "2 tangents for 1"),
])
def test_refused_before_compiling(make, match):
    with pytest.raises(SrcadError, match=match):
        make()


def test_read_only_arrays_in_a_result_copied():
    from numba.core import types

    from srcad.numba_forms import _copies, _writable

    ro = types.Array(types.float64, 1, "A", readonly=True)
    rw = types.Array(types.float64, 1, "C")
    out = types.Tuple([types.float64, types.Tuple([ro, rw])])
    assert _copies(out) and not _copies(types.Tuple([types.float64, rw]))
    assert _writable("r", out) == "(r[0], (r[1][0].copy(), r[1][1],),)"


SCALE = 2.0  # read by _scaled: rebound in the test below


def _scaled(x, w):
    return np.sum(np.sin(x) * w) * SCALE


def test_jvp_from_python_by_one_lookup_while_the_kinds_hold():
    """srcad.jvp(..., backend="numba") called again with numbers and arrays of the same types
    finds its code by one lookup (srcad.fast_calls.NUMBA_JVPS); other ranks, a tangent of
    another shape and a rebound global take the full path, as before."""
    global SCALE
    from srcad import fast_calls

    def jvp(x, w, t):
        return srcad.jvp(_scaled, (x, w), (t,), wrt=(0,), backend="numba")

    def want(x, w, t):
        return srcad.jvp(_scaled, (x, w), (t,), wrt=(0,))

    x, t = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -0.25])
    for k in range(3):
        assert all(close(a, b, 1e-12) for a, b in zip(jvp(x + k, 1.5, t), want(x + k, 1.5, t)))
    assert fast_calls.table(fast_calls.NUMBA_JVPS, _scaled, (0,))  # kept after the first call
    m = np.arange(6.0).reshape(2, 3)  # another rank: the full path makes its code
    assert all(close(a, b, 1e-12) for a, b in zip(jvp(m, 1.5, m / 7), want(m, 1.5, m / 7)))
    with pytest.raises(SrcadError, match="shape"):
        jvp(x, 1.5, t[:2])
    try:
        SCALE = 3.0  # read when it runs: the new value
        assert close(jvp(x, 1.5, t)[1], want(x, 1.5, t)[1], 1e-12)
        assert close(jvp(x, 1.5, t)[1], 1.5 * np.dot(np.cos(x), t) * 3.0, 1e-12)
    finally:
        SCALE = 2.0
