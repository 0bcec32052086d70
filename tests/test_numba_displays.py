"""The Numba backend on ``np.array`` of list displays (rows of numbers, ints among floats,
nested rows), each gradient compared with the Python backend (to 1e-12) and with central
finite differences; and the refusal of an item read out of a list display holding a
constant, which names the construct and the user's line before Numba compiles anything
(a derivative called inside compiled code: tests/test_numba_derivatives.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend
from srcad.errors import SrcadError

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _point(x):
    p = np.array([x, 2.0 * x, 1])  # an int among floats: a float array in both
    return np.sum(p * p) + p[2]


def _rows(x):
    r = np.array([[math.cos(x), -math.sin(x)], [math.sin(x), math.cos(x)]])
    v = np.array([1.0, 2])
    w = r * v
    return w[0, 0] * x + w[1, 1] + w[0, 1] * w[1, 0]


def _flight(x):
    pos = np.array([0.0, 8.0])
    vel = np.array([0.75, x])
    for _ in range(6):
        pos = pos + 0.1 * vel
        vel = vel - 0.1 * np.array([pos[0] - x, pos[1] * x])
    return pos[0] * pos[1]


def _tuple_rows(x):
    m = np.array(([x, 1.0], [2.0, x * x]))
    return m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]


FUNCTIONS = [_point, _rows, _flight, _tuple_rows]


@needs_numba
@pytest.mark.parametrize("f", FUNCTIONS)
@pytest.mark.parametrize("x", [0.3, -1.1, 2.0])
def test_array_displays(f, x):
    got = srcad.grad(f, backend="numba")(x)
    ref = srcad.grad(f)(x)
    assert math.isclose(got, ref, rel_tol=1e-12, abs_tol=1e-12)
    h = 1e-6
    assert math.isclose(got, (f(x + h) - f(x - h)) / (2 * h), rel_tol=1e-6, abs_tol=1e-8)
    value, _ = srcad.value_and_grad(f, backend="numba")(x)
    assert value == f(x)


@needs_numba
def test_array_display_of_ints_is_an_int_array():
    def ints(x):
        k = np.array([1, 2, 3])
        return x * (k[2] // k[1])  # 3 // 2 == 1: floor division of ints, as in Python

    assert srcad.grad(ints, backend="numba")(1.5) == srcad.grad(ints)(1.5) == 1.0


def _item_of_display(x):
    t = [x, 1]
    k = t[1]  # an int in Python: Numba's list would make it a float
    return x * np.array(k)


@needs_numba
def test_item_read_out_of_a_display_is_refused():
    with pytest.raises(SrcadError, match="a list display") as info:
        srcad.grad(_item_of_display, backend="numba")(0.5)
    assert info.value.filename == __file__


# ---------------------------------------------------------------- lists of arrays, stacked


def _pose_rows(theta):
    """GradBench ht's pose_params, small: a list display of arrays (slices, NumPy's makers,
    a name), grown by appends of np.array displays, stacked."""
    zeros = np.zeros(3)
    rows = [theta[0:3], np.ones(3), zeros]
    k = 3
    for _ in range(2):
        rows.append(np.array([theta[k], theta[k + 1], 0.0]))
        rows.append(zeros)
        k = k + 2
    return np.stack(rows)


def _stacked_sum(x):
    rows = [x[0:2], np.ones(2) * x[2], x[1:3]]
    for k in range(2):
        rows.append(x[k:k + 2] * x[k + 1])
    s = np.stack(rows, 0)
    return np.sum(s * s) + s[3, 1]


def _rotation(a):
    """GradBench ht's rotations: a constant row (its zero tangent, ``zeros_like`` of a list)
    among rows of numbers, given to np.array."""
    c, s = np.cos(a[0]), np.sin(a[0])
    r = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c * a[2]]])
    return r @ a


@needs_numba
@pytest.mark.parametrize("f, n", [(_rotation, 3)])  # (_pose_rows, 7): 6 s more
def test_list_of_arrays_stacked_forward_mode(f, n):
    for seed in (0, 1):
        rng = np.random.default_rng(seed)
        theta, t = rng.normal(size=n), rng.normal(size=n)
        value, tangent = srcad.jvp(f, (theta,), (t,), backend="numba")
        ref_value, ref_tangent = srcad.jvp(f, (theta,), (t,))
        assert np.allclose(value, f(theta), rtol=1e-12, atol=1e-12)
        assert np.allclose(value, ref_value, rtol=1e-12, atol=1e-12)
        assert np.allclose(tangent, ref_tangent, rtol=1e-12, atol=1e-12)
        h = 1e-6
        fd = (f(theta + h * t) - f(theta - h * t)) / (2 * h)
        assert np.allclose(tangent, fd, rtol=1e-6, atol=1e-8)


@needs_numba
@pytest.mark.parametrize("seed", [0, 1])
def test_list_of_arrays_stacked_reverse_mode(seed):
    x = np.random.default_rng(seed).normal(size=3)
    got = srcad.grad(_stacked_sum, backend="numba")(x)
    assert np.allclose(got, srcad.grad(_stacked_sum)(x), rtol=1e-12, atol=1e-12)
    h, eye = 1e-6, np.eye(3)
    fd = [(_stacked_sum(x + h * e) - _stacked_sum(x - h * e)) / (2 * h) for e in eye]
    assert np.allclose(got, fd, rtol=1e-6, atol=1e-8)


def _int_array_among_floats(x):
    rows = [x[0:2], np.array([True, False])]  # bool among floats: no one list type in Numba
    return np.sum(np.stack(rows) * x[0])


@needs_numba
def test_list_of_arrays_of_two_types_is_refused():
    with pytest.raises(SrcadError, match="list display of arrays \\(or numbers\\) of one type"):
        srcad.grad(_int_array_among_floats, backend="numba")(np.array([0.5, 1.5]))


def _batched(x, b, c):
    """GradBench ht's stacks of matrices: a list of arrays stacked, ``@`` of rank-3 arrays
    (stacks of matrices), and a constant minus the result (its tangent: broadcast_as)."""
    s = np.stack([x[0], x[1] * b])
    return (c - s @ x).ravel()


@needs_numba
@pytest.mark.skipif(not LONG, reason="5-9 s of Numba compiling the batched code (26 s before "
                    "session 23's forms; the long run's: tests/test_numba22_batched.py keeps "
                    "a batched case by default)")
def test_stacks_of_matrices_jacfwd():
    rng = np.random.default_rng(3)
    x, b, c = rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2, 2))
    jac = srcad.jacfwd(_batched, backend="numba")(x, b, c)  # a jvp a column
    assert np.allclose(jac, srcad.jacfwd(_batched)(x, b, c), rtol=1e-12, atol=1e-12)
    h, t = 1e-6, rng.normal(size=(2, 2, 2))
    fd = (_batched(x + h * t, b, c) - _batched(x - h * t, b, c)) / (2 * h)
    assert np.allclose(jac.reshape(8, 8) @ t.ravel(), fd, rtol=1e-6, atol=1e-8)
    with pytest.raises(SrcadError, match="forward mode only"):
        srcad.jacobian(_batched, backend="numba")
