"""Writes through basic-index views of a local array (issue 16, srcad/frontend/views.py):
``v = y[1:3]; v *= 3``, ``u = state[0]; u[1:-1] += dt * lap``, ``row = A[i]; row[j] = e``.

Each form is checked against the plain Python function run by NumPy (its value, and central
differences of it for the gradient) and against autograd on a twin written with explicit base
indices (``put``, a functional write autograd differentiates): grad, value_and_grad, jvp and
the Hessian in both modes. A generated family mixes view writes and reads of both names."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from tests import test_mutation as mutation

# ---------------------------------------------------------------- references


def put(y, index, value):
    """``y`` with ``y[index] = value``, functionally (autograd differentiates it)."""
    shape = y.shape
    positions = np.arange(y.size).reshape(shape)[index]
    flat = positions.ravel()
    keep = np.ones(y.size)
    keep[flat] = 0.0
    place = np.zeros((y.size, flat.size))
    place[flat, np.arange(flat.size)] = 1.0
    value = anp.ravel(anp.broadcast_to(value, positions.shape) if anp.ndim(value) < len(
        positions.shape) or anp.shape(value) != positions.shape else value)
    return anp.reshape(anp.ravel(y) * keep + anp.dot(place, value), shape)


def central(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def check(f, twin, x, hessian=True):
    value = f(x.copy())
    expect = autograd.grad(twin)(x)
    assert np.allclose(twin(x), value)
    assert np.allclose(central(f, x), expect, rtol=1e-5, atol=1e-5)
    g = srcad.grad(f)(x)
    assert np.allclose(g, expect, rtol=1e-8, atol=1e-9)
    v, g2 = srcad.value_and_grad(f)(x)
    assert np.allclose(v, value) and np.allclose(g2, expect, rtol=1e-8, atol=1e-9)
    t = np.random.RandomState(1).randn(*x.shape)
    v, tangent = srcad.jvp(f, (x,), (t,))
    assert np.allclose(v, value) and np.allclose(tangent, np.sum(expect * t))
    if hessian:
        h = autograd.hessian(twin)(x)
        assert np.allclose(srcad.hessian(f, mode="fwd")(x), h, rtol=1e-7, atol=1e-8)
        assert np.allclose(srcad.hessian(f, mode="rev")(x), h, rtol=1e-7, atol=1e-8)


X4 = np.array([0.3, -1.2, 0.7, 1.9])
X12 = np.linspace(-1.1, 1.3, 12) ** 2 - 0.4

# ---------------------------------------------------------------- the forms


def slice_scaled(x):
    y = x * 1.0
    v = y[1:3]
    v *= 3.0
    return np.sum(y * y) + np.sum(v)


def slice_scaled_twin(x):
    y = x * 1.0
    y = put(y, np.s_[1:3], y[1:3] * 3.0)
    return anp.sum(y * y) + anp.sum(y[1:3])


def stencil(x):
    state = np.stack([x * 1.0, np.sin(x)])
    dt = 0.1
    for _ in range(3):
        u = state[0]
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] += dt * lap * state[1, 1:-1]
    return np.sum(state[0] ** 2)


def stencil_twin(x):
    state = anp.stack([x * 1.0, anp.sin(x)])
    dt = 0.1
    for _ in range(3):
        u = state[0]
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        state = put(state, np.s_[0, 1:-1], u[1:-1] + dt * lap * state[1, 1:-1])
    return anp.sum(state[0] ** 2)


def rows(x):
    A = np.outer(x, x)
    for i in range(A.shape[0]):
        row = A[i]
        row[i] = row[i] * 2.0 + row[0]
    return np.sum(A * np.cos(A))


def rows_twin(x):
    A = anp.outer(x, x)
    for i in range(A.shape[0]):
        A = put(A, (i, i), A[i, i] * 2.0 + A[i, 0])
    return anp.sum(A * anp.cos(A))


def column(x):
    A = x.reshape(3, 4) * 1.0
    c = A[:, 2]
    c[1] = np.sin(c[0]) * c[2]
    c += 1.0
    return np.sum(A ** 2) + np.sum(c * A[:, 0])


def column_twin(x):
    A = anp.reshape(x, (3, 4)) * 1.0
    A = put(A, (1, 2), anp.sin(A[0, 2]) * A[2, 2])
    A = put(A, np.s_[:, 2], A[:, 2] + 1.0)
    return anp.sum(A ** 2) + anp.sum(A[:, 2] * A[:, 0])


def interior(x):
    A = x.reshape(3, 4) * 1.0
    inner = A[1:-1, 1:-1]
    inner *= np.tanh(A[0, 1:-1])
    A[0, 0] += np.sum(inner)
    return np.sum(A * A) + np.sum(inner ** 3)


def interior_twin(x):
    A = anp.reshape(x, (3, 4)) * 1.0
    A = put(A, np.s_[1:-1, 1:-1], A[1:-1, 1:-1] * anp.tanh(A[0, 1:-1]))
    A = put(A, (0, 0), A[0, 0] + anp.sum(A[1:-1, 1:-1]))
    return anp.sum(A * A) + anp.sum(A[1:-1, 1:-1] ** 3)


def ellipsis_write(x):
    y = np.zeros(6)
    y[:4] = x
    v = y[2:]
    v[...] = np.exp(v) * y[0]
    return np.sum(y * np.arange(1.0, 7.0))


def ellipsis_write_twin(x):
    y = put(np.zeros(6), np.s_[:4], x)
    y = put(y, np.s_[2:], anp.exp(y[2:]) * y[0])
    return anp.sum(y * np.arange(1.0, 7.0))


def stepped(x):
    y = np.concatenate([x, x ** 2]) * 1.0
    v = y[::2]
    v[1:] -= 0.5 * v[:-1]
    w = y[::-1]
    w[0] = w[1] * w[2]
    return np.sum(y ** 2) + v[-1]


def stepped_twin(x):
    y = anp.concatenate([x, x ** 2]) * 1.0
    y = put(y, np.s_[2::2], y[2::2] - 0.5 * y[:-2:2])
    y = put(y, 7, y[6] * y[5])
    return anp.sum(y ** 2) + y[6]


def view_of_view(x):
    A = np.outer(x, x[::-1]) * 1.0
    top = A[:2]
    corner = top[:, 1:3]
    corner *= 2.0
    top[0, 0] = np.sum(corner)
    return np.sum(A * A) + top[1, 1]


def view_of_view_twin(x):
    A = anp.outer(x, x[::-1]) * 1.0
    A = put(A, np.s_[:2, 1:3], A[:2, 1:3] * 2.0)
    A = put(A, (0, 0), anp.sum(A[:2, 1:3]))
    return anp.sum(A * A) + A[1, 1]


def base_then_view(x):
    y = x * 2.0
    v = y[1:]
    y[2] = np.sin(y[0])
    y *= 0.5
    return np.sum(v ** 2) + y[3]


def base_then_view_twin(x):
    y = x * 2.0
    y = put(y, 2, anp.sin(y[0]))
    y = y * 0.5
    return anp.sum(y[1:] ** 2) + y[3]


def negative_index(x):
    y = np.stack([x, 2 * x, x * x])
    last = y[-1]
    last[-2] = last[-1] * last[0]
    mid = y[1, -3:]
    mid[::2] = np.cos(mid[::2])
    return np.sum(y * y)


def negative_index_twin(x):
    y = anp.stack([x, 2 * x, x * x])
    y = put(y, (2, 2), y[2, 3] * y[2, 0])
    y = put(y, np.s_[1, 1::2], anp.cos(y[1, 1::2]))
    return anp.sum(y * y)


def mask_write(x):
    y = np.outer(x, np.ones(3)) * 1.0
    row = y[1]
    row[row > 0] = 0.0
    col = y[:, 0]
    col[[0, 2]] += np.array([1.0, 2.0]) * col[1]
    return np.sum(y * y * np.arange(1.0, 13.0).reshape(4, 3))


def mask_write_twin(x):
    y = anp.outer(x, np.ones(3)) * 1.0
    mask = y[1] > 0
    y = put(y, (np.full(int(mask.sum()), 1), np.nonzero(mask)[0]), 0.0) if mask.any() else y
    y = put(y, ([0, 2], [0, 0]), y[[0, 2], 0] + np.array([1.0, 2.0]) * y[1, 0])
    return anp.sum(y * y * np.arange(1.0, 13.0).reshape(4, 3))


def loop_index_changes(x):
    y = x * 1.0
    i = 1
    v = y[i:i + 2]
    i = 0
    v[i] = v[1] * 3.0
    return np.sum(y * y) + y[i]


def loop_index_changes_twin(x):
    y = x * 1.0
    y = put(y, 1, y[2] * 3.0)
    return anp.sum(y * y) + y[0]


def in_branch(x):
    y = x * 1.0
    v = y[:2]
    if x[0] > 0:
        v *= x[3]
    else:
        y[0] = 5.0
    return np.sum(y) * np.sum(v)


def in_branch_twin(x):
    y = x * 1.0
    if x[0] > 0:
        y = put(y, np.s_[:2], y[:2] * x[3])
    else:
        y = put(y, 0, 5.0)
    return anp.sum(y) * anp.sum(y[:2])


def helper_step(u, dt):
    v = u * 1.0
    mid = v[1:-1]
    mid += dt * (v[:-2] - 2 * mid + v[2:])
    return v


def in_callee(x):
    u = x * 1.0
    for _ in range(2):
        u = helper_step(u, 0.2)
    return np.sum(u ** 3)


def in_callee_twin(x):
    u = x * 1.0
    for _ in range(2):
        v = u * 1.0
        v = put(v, np.s_[1:-1], v[1:-1] + 0.2 * (v[:-2] - 2 * v[1:-1] + v[2:]))
        u = v
    return anp.sum(u ** 3)


def write_through_slice_twin(a):
    a = a * 1.0
    a = put(a, 0, 5.0)
    return anp.sum(a * a)


def add_through_slice_twin(a):
    a = a * 1.0
    a = put(a, np.s_[1:], a[1:] + a[:2])
    return anp.sum(a * a)


def write_viewed_in_loop_twin(a):
    y = a * 1.0
    s = 0.0
    for i in range(3):
        y = put(y, i, y[i] * 2.0)
        s = s + y[0]
    return s


def out_into_view_twin(a):
    a = a * 1.0
    a = put(a, np.s_[1:], a[:2] * 2.0)
    return anp.sum(a * a)


X3 = np.array([0.4, -1.3, 2.1])

FORMS = [
    # refused before (tests/test_mutation.py): writes through a slice, a view read in a loop
    (mutation.write_through_slice, write_through_slice_twin, X3),
    (mutation.add_through_slice, add_through_slice_twin, X3),
    (mutation.write_viewed_in_loop, write_viewed_in_loop_twin, X3),
    (mutation.out_into_view, out_into_view_twin, X3),
    (slice_scaled, slice_scaled_twin, X4),
    (stencil, stencil_twin, X4),
    (rows, rows_twin, X4),
    (column, column_twin, X12),
    (interior, interior_twin, X12),
    (ellipsis_write, ellipsis_write_twin, X4),
    (stepped, stepped_twin, X4),
    (view_of_view, view_of_view_twin, X4),
    (base_then_view, base_then_view_twin, X4),
    (negative_index, negative_index_twin, X4),
    (mask_write, mask_write_twin, X4),
    (loop_index_changes, loop_index_changes_twin, X4),
    (in_branch, in_branch_twin, X4),
    (in_branch, in_branch_twin, -X4),
    (in_callee, in_callee_twin, X4),
]


@pytest.mark.parametrize("f, twin, x", FORMS, ids=lambda c: getattr(c, "__name__", ""))
def test_view_writes(f, twin, x):
    check(f, twin, x)


def view_alone(x):
    y = x * 1.0
    v = y[1:3]
    v *= 2.0
    return np.sum(v * v)


def test_a_base_not_read_again_keeps_the_code_as_written():
    """Nothing but the view reads the base after it is taken (not in a loop): the write is
    seen by nobody else, the code stays as it was (and compiles for the Numba backend)."""
    text = srcad.source(srcad.grad(view_alone), X4)
    assert "check_view" not in text and "v_1 = v * two" in text  # (two: float64, float_literals)
    assert np.allclose(srcad.grad(view_alone)(X4), central(view_alone, X4))


def test_generated_code_reads_as_writes_into_the_base():
    """Simple views keep their index as written: the write is one into the base."""
    text = srcad.source(srcad.grad(slice_scaled), X4)
    assert "check_view(y, slice(1, 3, None), v_where)" in text
    assert ("y_1[1:3] = t_1" in text or "y[1:3] = t_1" in text) and "view_within" not in text
    text = srcad.source(srcad.grad(rows), X4)
    assert ("A_2[i, i] = row_1[i] * 2.0 + row_1[0]" in text  # (fills36: or in place)
            or "A[i, i] = row_1[i] * 2.0 + row_1[0]" in text) and "view_within" not in text
    text = srcad.source(srcad.grad(column), X12)
    assert "A_1[1, 2] = sin * t_2" in text or "A[1, 2] = sin * t_2" in text
    # a name that may hold a tuple is not composed as written (B[2][t] is not B[2, t])
    from tests import test_views20_probe as probe

    text = srcad.source(srcad.grad(probe.tuple_index_local), probe.X)
    assert "view_within(" in text
    # a slice composed with an index, or an index changed later: composed when it runs
    text = srcad.source(srcad.grad(loop_index_changes), X4)
    assert "view_at(y, " in text and "view_within(" in text
