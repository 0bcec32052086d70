"""The write-through-view forms probed for issue 16 (each was refused before
srcad/frontend/views.py): the value against NumPy running the function, the gradient against
central differences, jvp against the gradient, and the Hessians of both modes against each
other and against central differences of the gradient. The forms still refused are in
tests/test_views20_refused.py."""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from tests.test_views20_forms import central

X = np.array([0.3, -1.2, 0.7, 1.9, 0.5, -0.4])


def zero_slice(x):
    y = x * 1.0
    v = y[1:3]
    v[:] = 0.0
    return np.sum(y * y)


def overlapping(x):
    y = x * 1.0
    v = y[2:]
    v -= y[:-2]
    return np.sum(y * y)


def interleaved(x):
    y = x * 1.0
    v = y[::2]
    v *= 2.0
    w = y[1::2]
    w += v
    return np.sum(y ** 3)


def row_of_zeros(x):
    A = np.zeros((3, 6))
    d = A[1]
    d[:] = x
    return np.sum(A @ x)


def while_loop(x):
    y = x * 1.0
    v = y[1:4]
    k = 0
    while k < 3:
        v[k] = v[k] * y[0]
        k += 1
    return np.sum(y)


def whole_ellipsis(x):
    y = x * 1.0
    v = y[...]
    v[...] = np.sin(v)
    return np.sum(y)


def in_branch(x):
    y = x * 1.0
    if x[0] > 0:
        v = y[1:3]
        v *= x[1]
    return np.sum(y * y)


def tail(x):
    y = x * 1.0
    v = y[-2:]
    v += y[0]
    return np.sum(y ** 2)


def padded(x):
    y = np.zeros(8)
    y[1:7] = x
    v = y[1:3]
    v *= 2.0
    return np.sum(y * y)


def sliding(x):
    y = x * 1.0
    for i in range(4):
        v = y[i:i + 2]
        v *= 1.5
        v[1] += v[0]
    return np.sum(y * y)


def columns(x):
    U = np.outer(x, np.ones(3))
    for k in range(3):
        u = U[:, k]
        u[1:] = u[:-1] * (k + 1.0)
    return np.sum(U * U)


def read_before(x):
    y = x * 1.0
    v = y[1:3]
    z = v * 2.0
    v += 1.0
    return np.sum(z) + np.sum(v * v)


def base_added(x):
    y = x * 1.0
    v = y[1:3]
    y += 1.0
    return np.sum(v * v) + np.sum(y)


def base_cleared(x):
    y = x * 1.0
    v = y[1:3]
    y[:] = 0.0
    return np.sum(v) + x[0]


def block(x):
    A = np.outer(x, x[:3])
    v = A[1:, :2]
    v[0] += v[1]
    return np.sum(A * A)


def two_rows(x):
    A = np.reshape(x, (2, 3)) * 1.0
    r0 = A[0]
    r1 = A[1]
    r0 += r1 * 0.5
    r1 -= r0 * 0.25
    return np.sum(A ** 2)


def reversed_view(x):
    y = x * 1.0
    v = y[1:5]
    w = v[::-1]
    w[0] = 10.0 * w[1]
    return np.sum(y * y)


def named_bound(x):
    y = x * 1.0
    n = 2
    v = y[n:]
    v[:n] *= 3.0
    return np.sum(y * y)


def powers(x):
    y = x * 1.0
    v = y[1:3]
    v **= 2
    v /= 3.0
    return np.sum(y)


def copied_base(x):
    y = x.copy()
    v = y[0:3]
    v[1] = v[2] ** 2
    return y[1] + y[2]


def leapfrog(x):
    s = np.stack([x, x * 2])
    pos = s[0]
    vel = s[1]
    for _ in range(3):
        vel[...] -= 0.1 * pos
        pos[...] += 0.1 * vel
    return np.sum(s ** 2)


def tuple_index_argument(x, idx=(0, 1)):
    A = np.reshape(x, (3, 2)) * 1.0
    row = A[1]
    row[idx[1]] = 5.0 * row[0]
    B = np.reshape(A, (3, 1, 2)) * 1.0
    plane = B[2]
    plane[idx] = plane[0, 0] * 3.0  # a tuple: B[2][0, 1], not B[2, (0, 1)]
    return np.sum(A * A) + np.sum(B ** 3)


def tuple_index_local(x):
    B = np.reshape(x, (3, 2, 1)) * 1.0
    idx = (1, 0)
    plane = B[0]
    plane[idx] = np.sin(plane[0, 0])
    return np.sum(B ** 3)


def nested_range_loops(x):
    A = np.reshape(x, (3, 2)) * 1.0
    for i in range(3):
        row = A[i]
        for j in range(2):
            row[j] = row[1 - j] * 0.5 + row[j]
    return np.sum(A * A)


def out_view(x):
    y = x * 1.0
    v = y[1:3]
    np.multiply(v, x[0], out=v)
    return np.sum(y * y)


def copied_into_base(x):
    y = x * 1.0
    v = y[1:3]
    v *= 2.0
    np.copyto(y, x * x)
    return np.sum(v) * np.sum(y)


def out_base(x):
    y = x * 1.0
    v = y[1:3]
    v *= 2.0
    np.sin(x, out=y)
    return np.sum(v * v) + np.sum(y)


FORMS = [out_view, copied_into_base, out_base, tuple_index_argument, tuple_index_local,
         nested_range_loops,
         zero_slice, overlapping, interleaved, row_of_zeros, while_loop, whole_ellipsis,
         in_branch, tail, padded, sliding, columns, read_before, base_added, base_cleared,
         block, two_rows, reversed_view, named_bound, powers, copied_base, leapfrog]


@pytest.mark.parametrize("f", FORMS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_form(f, sign):
    x = sign * X
    expect = central(f, x)
    value, g = srcad.value_and_grad(f)(x.copy())
    assert np.allclose(value, f(x.copy()))
    assert np.allclose(g, expect, rtol=1e-6, atol=1e-6)
    d = np.linspace(-1.0, 1.0, x.size)
    _, tangent = srcad.jvp(f, (x.copy(),), (d,))
    assert np.allclose(tangent, np.sum(expect * d), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f", [interleaved, sliding, two_rows, leapfrog, reversed_view])
def test_hessians(f):
    fwd = srcad.hessian(f, mode="fwd")(X.copy())
    rev = srcad.hessian(f, mode="rev")(X.copy())
    assert np.allclose(fwd, rev, rtol=1e-9, atol=1e-9)
    grad = srcad.grad(f)
    numeric = np.array([central(lambda z, i=i: grad(z)[i], X, 1e-5) for i in range(X.size)])
    assert np.allclose(rev, numeric, rtol=1e-4, atol=1e-4)
