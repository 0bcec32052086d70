"""Functions for tests/test_ba31_fronts.py: a module global named as a builtin (``abs``),
deleted by the test so that the builtin is found again; written for NumPy and, read again
with ``np`` bound to autograd's, for the second engine."""

import numpy as np


def abs(x):  # noqa: A001 (shadows the builtin on purpose: the test deletes it)
    return x * x


def shadowed(x, y, s):
    return abs(x - y) * s + np.sin(x)


def shadowed_two(x, y, s):
    u = abs(x) * s
    return u[0] * y + u[-1], np.sum(u) * y


def shadowed_number(x, y, s):
    t = 0.0
    for v in (x, y):
        t = t + np.sum(abs(v)) if s > 0.5 else t - np.sum(v)
    return t * s
