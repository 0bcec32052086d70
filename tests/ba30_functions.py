"""Functions of several numbers and small arrays for tests/test_ba30_plain_fronts.py, written
once over the module's ``np``: srcad reads this module; the test loads a second copy whose
``np`` is autograd's, the second engine. No in-place writes (autograd has none)."""

import numpy as np

SCALE = np.array([1.5, -0.5, 2.0, 0.25])


def helper(u, v):
    return np.sin(u) * v + u * u


def two_out(a, b, s):
    """Two outputs: a literal of indexed numbers, a sum."""
    return np.array([np.sum(a * b) * s, np.sin(a[0]) + b[-1] * s])


def shifted(x, c, s):
    """``x - c`` with ``c`` inactive, ``x`` of ``c``'s shape or of one element (broadcast)."""
    return (x - c) * s + np.cos(x) * SCALE[: c.shape[0]]


def branchy(x, y, s):
    """A branch on values: each side its own output."""
    if np.sum(x) > s:
        return x * y[: x.shape[0]] + s
    return np.cos(x) * s - y[0]


def loopy(x, w, s):
    """A loop carrying an array (``while``: no builtin read, whose read test sends a front
    the general way every call)."""
    i = 0
    while i < 3:
        x = x * w + s * np.sin(x)
        i += 1
    return x


def called(cam, pt, w, feat):
    """A user callee, slices, a literal of three numbers, a scalar weight."""
    rot = cam[0:3]
    p = pt - cam[3:6]
    c = np.array([rot[1] * p[2] - rot[2] * p[1], rot[2] * p[0] - rot[0] * p[2],
                  rot[0] * p[1] - rot[1] * p[0]])
    q = p + c
    proj = q[0:2] / q[2]
    return w * (helper(proj, cam[6]) - feat)


def four_out(m, v, s):
    """A matrix argument, four outputs."""
    u = m @ v
    return np.concatenate([u * s, np.tanh(u) + v])


def number_out(x, y, s):
    """One number out."""
    return np.sum(np.exp(-x * x) * y) * s + s * s


def summed_shift(x, c, s):
    """``x - c`` summed and indexed: the tangent of ``x - c`` must have the result's shape
    (one element of ``x`` counts once per element of ``c`` in the sum)."""
    d = x - c
    return np.array([np.sum(d) * s, d[-1] * s])


def ranged(x, w, s):
    """A ``for`` over ``range(len(...))``: builtins among what the code reads."""
    out = x * s
    for i in range(len(w)):
        out = out + np.sin(out) * w[i]
    return out


def matrix_only(m):
    """One matrix argument (no other): a product with its own row."""
    return np.tanh(m @ m[0])
