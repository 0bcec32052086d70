"""An addition written back into an array (``y[i] += b``: in SSA ``a = y[i]; t = a + b;
y_1 = y`` with ``y_1[i] = t``) is differentiated as one operation
(srcad.transform.added_back): ``y``'s gradient is ``y_1``'s whole, not ``cleared(dy_1, i)``
plus ``scatter(dy_1[i], y, i)``; the plain form of srcad's own backward code (``dx[0] += v``)
differentiated again is the case that matters (GradBench's particle: a Hessian-vector
product each Euler step). Each form against central differences and srcad's reference tape
(a twin written without writes: the tape's values are immutable); the forms that must not be
taken as one (the element read twice, ``a + a``, a product, an index that repeats, a read
of another array) keep their gradients; the Hessian of code whose gradient writes so."""

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG
from tests.twin_checks import central


def _unit(n, i):
    e = np.zeros(n)
    e[i] = 1.0
    return e


def int_index(x, b):
    y = x * 1.0
    y[0] += b * b
    y[-1] += np.sin(b) * x[1]
    return np.sum(y * y)


def int_index_twin(x, b):
    n = len(x)
    y = x * 1.0 + _unit(n, 0) * (b * b) + _unit(n, n - 1) * (np.sin(b) * x[1])
    return np.sum(y * y)


def slices(x, b):
    y = x * 2.0
    y[1:3] += np.sin(b) * x[0]
    y[:2] += b
    return np.sum(np.cos(y))


def slices_twin(x, b):
    n = len(x)
    y = x * 2.0 + (_unit(n, 1) + _unit(n, 2)) * (np.sin(b) * x[0]) + (
        _unit(n, 0) + _unit(n, 1)) * b
    return np.sum(np.cos(y))


def in_a_loop(x, b):
    y = x * x
    for i in range(len(x)):
        y[i] += b * y[(i + 1) % len(x)]
    return np.sum(y * x)


def in_a_loop_twin(x, b):
    n = len(x)
    y = x * x
    for i in range(n):
        y = y + _unit(n, i) * (b * y[(i + 1) % n])
    return np.sum(y * x)


def rows(w, b):
    y = w * 1.5
    y[1] += np.tanh(w[0] * b)
    y[0, 1:] += b
    return np.sum(y * y * w)


def rows_twin(w, b):
    m, n = w.shape
    row = np.outer(_unit(m, 1), np.ones(n))
    part = np.outer(_unit(m, 0), np.ones(n) - _unit(n, 0))
    y = w * 1.5 + row * np.tanh(w[0] * b) + part * b
    return np.sum(y * y * w)


def not_one_operation(x, b):  # each write's element read again or not added: as before
    y = x * 1.0
    t = y[0]
    y[0] += b
    y[1] += y[1]
    y[2] = y[2] * b
    y[[3, 3]] += b  # NumPy adds once at a repeated index
    z = x * 3.0
    y[1] = z[1] + b
    return np.sum(y * y) + t * b


def not_one_operation_twin(x, b):
    n = len(x)
    y = x * 1.0
    t = y[0]
    z = x * 3.0
    y = y + _unit(n, 0) * b + _unit(n, 2) * (y[2] * b - y[2]) + _unit(n, 3) * b
    y = y + _unit(n, 1) * (z[1] + b - y[1])
    return np.sum(y * y) + t * b


CASES = [(int_index, int_index_twin), (slices, slices_twin), (in_a_loop, in_a_loop_twin),
         (rows, rows_twin), (not_one_operation, not_one_operation_twin)]
TAKEN = [int_index, slices, in_a_loop, rows]


def _args(f, seed):
    rng = np.random.default_rng(seed)
    if f is rows:
        return rng.normal(size=(3, 4)), float(rng.normal())
    return rng.normal(size=5), float(rng.normal())


@pytest.mark.parametrize("seed", range(4) if LONG else range(1))
@pytest.mark.parametrize("f, twin", CASES, ids=lambda f: f.__name__)
def test_against_differences_and_tape(f, twin, seed):
    x, b = _args(f, seed)
    gx, gb = srcad.grad(f, wrt=(0, 1))(x, b)
    np.testing.assert_allclose(gx, central(f, (x, b), 0), rtol=1e-5, atol=1e-7)
    e = 1e-6
    np.testing.assert_allclose(gb, (f(x, b + e) - f(x, b - e)) / (2 * e), rtol=1e-5, atol=1e-7)
    tx, tb = tape.grad(twin, wrt=(0, 1))(x, b)
    np.testing.assert_allclose(gx, tx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, tb, rtol=1e-10, atol=1e-12)
    assert f(x, b) == pytest.approx(twin(x, b), rel=1e-12)


@pytest.mark.parametrize("f", TAKEN, ids=lambda f: f.__name__)
def test_taken_as_one_operation(f):
    g = srcad.grad(f, wrt=(0, 1))
    g(*_args(f, 0))
    text = srcad.source(g)
    assert "cleared(" not in text, text  # (a scatter left is another read's: x[1])


def potential(x, w):  # GradBench's particle
    first = np.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = np.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    return 1.0 / first + 1.0 / second


def test_second_order_of_written_gradients():
    """The gradient's plain form adds into ``dx`` element by element; its derivative (a
    Hessian-vector product, particle's inner step) agrees
    with central differences and with the tape on the gradient written by hand."""
    x, w = np.array([1.5, 7.0]), 0.3
    force = srcad.grad(potential)
    v = np.array([0.4, -1.1])

    def along(x, w):
        return np.sum(force(x, w) * v)

    hx, hw = srcad.grad(along, wrt=(0, 1))(x, w)
    e = 1e-6
    np.testing.assert_allclose(hx, central(along, (x, w), 0), rtol=1e-6, atol=1e-8)
    assert hw == pytest.approx((along(x, w + e) - along(x, w - e)) / (2 * e), rel=1e-6)
    tx, tw = tape.grad(_along_twin, wrt=(0, 1))(x, w, v)
    np.testing.assert_allclose(hx, tx, rtol=1e-10, atol=1e-12)
    assert hw == pytest.approx(tw, rel=1e-10)


def _along_twin(x, w, v):
    """``potential``'s gradient by hand (no writes), along ``v``: for the tape."""
    first = np.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2)
    second = np.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)
    g0 = -(x[0] - 10.0) / first ** 3 - (x[0] - 10.0) / second ** 3
    g1 = -(x[1] - (10.0 - w)) / first ** 3 - x[1] / second ** 3
    return g0 * v[0] + g1 * v[1]
