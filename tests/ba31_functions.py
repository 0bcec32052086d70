"""Functions for tests/test_ba31_fronts.py: whole sums of products of vectors (their batched
tangents one matrix-vector product each, srcad.transform.batched_einsum.dotted_sum), with a
vector times itself, times a constant, broadcast from one element, in a branch and a loop,
one to four outputs (one array out: a tuple out is not batched); written for NumPy and read
again with ``np`` bound to autograd's."""

import numpy as np

C = np.array([0.5, -1.5, 2.0])


def squares(x, y, s):
    return np.sum(x * x) * s + y


def cross_terms(x, y, s):
    return x * s + (np.sum(x * y) + s * np.sum(y * y))


def constant_factor(x, y, s):
    return np.array([(x * C).sum() * s, np.sum(y * x) - s, y[0] * np.sum(x * x), x[1] + y[2]])


def broadcast_one(x, y, s):
    u = x[:1] * y  # (1,) times (n,): the product has y's shape
    return np.sum(u) * s


def branch_loop(x, y, s):
    t = 0.0
    for i in range(2):
        if s > 0.5:
            t = t + np.sum(x * y) * (i + 1.0)
        else:
            t = t + np.sum(x * x) * s
    return t * s + x
