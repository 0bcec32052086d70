"""GradBench ``det``: the determinant by expansion in minors along the first row."""

import numpy as np
from gradbench import wrap

import srcad


def det_of_minor(A, rows, cols):
    if len(rows) == 1:
        return A[rows[0], cols[0]]
    total = 0.0
    sign = 1.0
    for j in range(len(cols)):
        rest = cols[:j] + cols[j + 1:]
        total = total + sign * A[rows[0], cols[j]] * det_of_minor(A, rows[1:], rest)
        sign = -sign
    return total


def det(A):
    n = A.shape[0]
    return det_of_minor(A, list(range(n)), list(range(n)))


_gradient = srcad.grad(det)


def _input(raw):
    ell = raw["ell"]
    return np.array(raw["A"], dtype=np.float64).reshape(ell, ell)


@wrap.multiple_runs(pre=_input, post=float)
def primal(A):
    return det(A)


@wrap.multiple_runs(pre=_input, post=lambda g: g.ravel().tolist())
def gradient(A):
    return _gradient(A)


_gradient(np.eye(3))  # warm-up: the code for matrices is made at define time
