"""What srcad still refuses among writes through views (srcad/frontend/views.py), and the
forms next to them it differentiates: each refusal asserts the SrcadError subclass, the line
(marked ``# refused`` below) and words of the message and hint."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import srcad
from srcad.errors import MutationError
from tests.test_views20_forms import central

X4 = np.array([0.3, -1.2, 0.7, 1.9])


def argument_view(x):
    v = x[1:3]
    v *= 2.0  # refused
    return np.sum(x)


def argument_row(x):
    row = x[0]
    row[1] = 5.0  # refused
    return np.sum(x)


def escapes_into_list(x):
    y = x * 1.0
    v = y[1:3]
    ys = [v]
    v *= 2.0  # refused
    return np.sum(ys[0]) + np.sum(y)


def _scale(a):
    a *= 2.0


def passed_to_writer(x):
    y = x * 1.0
    v = y[1:3]
    _scale(v)  # refused
    return np.sum(y)


def _top(y):
    return y[:2]


def returned_by_helper(x):
    y = x * 1.0
    v = _top(y)
    v[0] = 3.0  # refused
    return np.sum(y)


def transposed(x):
    A = np.outer(x, x)
    B = A.T
    B[0, 1] = 5.0  # refused
    return np.sum(A * A)


def reshaped(x):
    y = x * 1.0
    v = y.reshape(2, 2)
    v *= 3.0  # refused
    return np.sum(y * y)


def raveled(x):
    A = np.outer(x, x)
    v = A.ravel()
    v[3] = 1.0  # refused
    return np.sum(A * A)


def base_rebound(x):
    y = x * 1.0
    v = y[1:]
    y = y * 2.0  # refused
    v[0] = 1.0
    return np.sum(y) + np.sum(v)


def base_rebound_in_loop(x):
    y = x * 1.0
    v = y[1:]
    for _ in range(2):
        v[0] = v[0] * 2.0
        y = y + 1.0  # refused
    return np.sum(y)


def _pair(x):
    return [x[0] * 1.0, x[1] * 1.0, x[2] * 1.0]


def list_base(x):
    ys = _pair(x)
    v = ys[0:2]  # refused
    v[0] = v[0] * 2.0
    return ys[0] + v[1]


def index_array_argument(x, idx):
    y = x * 1.0
    v = y[idx]  # refused
    v[0] = 5.0
    return np.sum(y) + np.sum(v)


def row_of_vector_written(x):
    y = x * 1.0
    r = y[1]  # refused
    r[0] = 2.0
    return np.sum(y)


def leapfrog_numbers(x):
    s = np.stack([x, x * 2])
    pos = s[0]
    vel = s[1]
    vel -= 0.1 * pos  # refused
    return np.sum(s ** 2)


def swap_through_view(x):
    y = x * 1.0
    v = y[1:3]
    v[0], v[1] = v[1], v[0]  # refused
    return np.sum(y * np.arange(4.0))


def _line(f):
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, text in enumerate(lines) if "# refused" in text)


REFUSED = [
    # (state36) the caller's array is written into as the function's own (srcad.written_state):
    # a view of it written with the array read after is refused as for a local array
    (argument_view, "v shares memory with x", "v = v.copy()"),
    (argument_row, "row shares memory with x", "row = row.copy()"),
    (escapes_into_list, "shares memory with ys", "v = v.copy()"),
    (passed_to_writer, "_scale", "copy"),
    (returned_by_helper, "shares memory with y", "copy"),
    (transposed, "shares memory with A", "A[j, i] = ... for B[i, j]"),
    (reshaped, "shares memory with y", "y op= ... for the whole view"),
    (raveled, "shares memory with A", "A[np.unravel_index(k, A.shape)]"),
    (base_rebound, "y is bound to a new value while v", "v = v.copy()"),
    (base_rebound_in_loop, "y is bound to a new value while v", "another name"),
    (list_base, "but ys is a list when the code runs", "list(ys[...])"),
    (row_of_vector_written, "is one number", "index y itself"),
    # s's rank is not in the text: pos may be a number, whose -= makes a new value
    (leapfrog_numbers, "shares memory with", "vel[...] -= ... to change s through the view"),
    (swap_through_view, "shares memory with", "v = v.copy()"),
]


@pytest.mark.parametrize("f, message, hint", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_refused(f, message, hint):
    x = X4.reshape(2, 2) if f is argument_row else X4
    for make in (lambda: srcad.grad(f)(x.copy()),
                 lambda: srcad.jvp(f, (x.copy(),), (np.ones(x.shape),))):
        with pytest.raises(MutationError) as info:
            make()
        error = info.value
        assert error.lineno == _line(f), str(error)
        assert message in str(error), str(error)
        assert hint in (error.hint or ""), error.hint


def test_index_array_refused_where_it_runs():
    """An index that is an array when the code runs makes a copy, not a view."""
    with pytest.raises(MutationError) as info:
        srcad.grad(index_array_argument)(X4.copy(), np.array([0, 2]))
    assert info.value.lineno == _line(index_array_argument)
    assert "not integers and slices" in str(info.value) and ".copy()" in info.value.hint


# ---------------------------------------------------------------- next to them, differentiated


def list_slice_copy(x):
    ys = [x[0] * 1.0, x[1] * 1.0, x[2] * 1.0]
    v = ys[0:2]
    v[0] = 5.0
    return ys[0] + v[1] + v[0] * x[3]


def number_of_vector(x):
    y = x * 1.0
    r = y[1]
    r *= 2.0
    y[1:3] *= x[0]
    return np.sum(y) + r


def array_index_copy(x):
    y = x * 1.0
    idx = np.array([0, 2])
    v = y[idx]
    v[0] = 5.0
    return np.sum(y * y) + np.sum(v * x[1])


def rebound_after_last_use(x):
    y = x * 1.0
    v = y[1:]
    v *= 2.0
    y = y * np.sum(v)
    return np.sum(y)


def reshape_base_not_read(x):
    y = x * 1.0
    v = y.reshape(2, 2)
    v *= 3.0
    return np.sum(v * v)


@pytest.mark.parametrize("f", [list_slice_copy, number_of_vector, array_index_copy,
                               rebound_after_last_use, reshape_base_not_read])
def test_differentiated(f):
    expect = central(f, X4)
    assert np.allclose(srcad.grad(f)(X4.copy()), expect, rtol=1e-6, atol=1e-6)
    if f is number_of_vector:
        return  # forward mode does not know ranks: r may be a view of y (docs: Writes)
    value, tangent = srcad.jvp(f, (X4.copy(),), (np.ones(4),))
    assert np.allclose(value, f(X4.copy())) and np.allclose(tangent, np.sum(expect))


def view_written_for_numba(x):
    y = x * 1.0
    v = y[1:3]  # refused
    v *= 3.0
    return np.sum(y * x)


def test_the_numba_backend_refuses_a_view_written_at_its_line():
    pytest.importorskip("numba")
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(view_written_for_numba, backend="numba")(X4.copy())
    lines, first = inspect.getsourcelines(view_written_for_numba)
    assert info.value.lineno == first + next(
        i for i, line in enumerate(lines) if "# refused" in line)
    assert "write through a view" in str(info.value) and "y[1:3] *= 3" in str(info.value)
    np.testing.assert_allclose(srcad.grad(view_written_for_numba)(X4.copy()), central(
        view_written_for_numba, X4), rtol=1e-6, atol=1e-8)  # the Python backend differentiates it
