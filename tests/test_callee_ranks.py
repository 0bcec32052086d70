"""Ranks across calls and index gradients added in place.

A callee's forward/backward pair is made for the ranks of its array arguments (where the
caller knows them), a call's result has the rank its callee's analysis finds, basic indexes
(``a[1]``, ``A[i, j]``, ``a[0:2]``, ``A[:, j]``) drop or keep axes, and the gradient of a basic
index of an array the backward sweep made is added into it in place (``da[i] += g``). Each
program below reads arrays through such indexes inside helpers, in loops, in branches, with
overlapping slices and negative positions; each is checked against autograd and finite
differences, for every rank its indexes allow.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

# ---------------------------------------------------------------- helpers the programs call


def cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def a_cross(a, b):
    return anp.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def distort(rad, proj):
    rsq = np.sum(proj * proj)
    return proj * (1.0 + rad[0] * rsq + rad[1] * rsq * rsq)


def a_distort(rad, proj):
    rsq = anp.sum(proj * proj)
    return proj * (1.0 + rad[0] * rsq + rad[1] * rsq * rsq)


def corner(A, i, j):
    return A[i, j] * A[j, i] + A[-1, -1]


def column_dot(A, j):
    return np.dot(A[:, j], A[:, j]) + np.sum(A[0:2, j])


def a_column_dot(A, j):
    return anp.dot(A[:, j], A[:, j]) + anp.sum(A[0:2, j])


def overlapping(a):
    return np.sum(a[0:3] * a[1:4]) + a[2] * a[-1]


def a_overlapping(a):
    return anp.sum(a[0:3] * a[1:4]) + a[2] * a[-1]


def looped(a):
    total = 0.0
    for i in range(len(a) - 1):
        total = total + a[i] * a[i + 1] + np.sin(a[i])
    return total


def a_looped(a):
    total = 0.0
    for i in range(len(a) - 1):
        total = total + a[i] * a[i + 1] + anp.sin(a[i])
    return total


def branched(a, flag):
    if flag:
        y = a[0] * a[1]
    else:
        y = a[1] * a[2]
    return y + a[0]


def a_branched(a, flag):
    if flag:
        y = a[0] * a[1]
    else:
        y = a[1] * a[2]
    return y + a[0]


def rows_einsum(A, B):
    return np.einsum("ij,ij->i", A, B)


# ---------------------------------------------------------------- the programs (srcad, autograd)


def p_cross(u, v):
    return np.sum(cross(u, v) * cross(v, u + 1.0)) + np.dot(u, v)


def a_p_cross(u, v):
    return anp.sum(a_cross(u, v) * a_cross(v, u + 1.0)) + anp.dot(u, v)


def p_distort(cam, X):
    proj = X[0:2] / X[2]
    return np.sum(distort(cam[1:3], proj) * cam[0])


def a_p_distort(cam, X):
    proj = X[0:2] / X[2]
    return anp.sum(a_distort(cam[1:3], proj) * cam[0])


def p_corner(A, X):
    return corner(A, 0, 1) + corner(A, 1, 2) * corner(X, 2, 0)


def p_column(A, X):
    return column_dot(A, 1) * column_dot(X, 0)


def a_p_column(A, X):
    return a_column_dot(A, 1) * a_column_dot(X, 0)


def p_overlap(u, v):
    return overlapping(u) * overlapping(v) + overlapping(u * v)


def a_p_overlap(u, v):
    return a_overlapping(u) * a_overlapping(v) + a_overlapping(u * v)


def p_loop(u, v):
    return looped(u) + looped(v * u)


def a_p_loop(u, v):
    return a_looped(u) + a_looped(v * u)


def p_branch(u, v):
    return branched(u, True) * branched(v, False) + branched(u * v, u[0] > 0.5)


def a_p_branch(u, v):
    return a_branched(u, True) * a_branched(v, False) + a_branched(u * v, u[0] > 0.5)


def p_einsum(A, X):
    r = rows_einsum(A, X)
    return np.sum(r * r) + r[0] * A[1, 2]


def a_p_einsum(A, X):
    r = anp.einsum("ij,ij->i", A, X)
    return anp.sum(r * r) + r[0] * A[1, 2]


PROGRAMS = [(p_cross, a_p_cross, (4,)), (p_distort, a_p_distort, (4,)),
            (p_corner, p_corner, (3, 3)), (p_column, a_p_column, (3, 3)),
            (p_overlap, a_p_overlap, (5,)), (p_loop, a_p_loop, (5,)),
            (p_branch, a_p_branch, (4,)), (p_einsum, a_p_einsum, (3, 3))]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("f", "twin", "shape"), PROGRAMS,
                         ids=[p[0].__name__ for p in PROGRAMS])
def test_against_autograd_and_finite_differences(f, twin, shape, seed):
    rng = np.random.default_rng(seed)
    args = (rng.uniform(0.2, 0.9, shape), rng.uniform(0.2, 0.9, shape))
    ours = srcad.grad(f, wrt=(0, 1))(*args)
    theirs = autograd.grad(twin, (0, 1))(*args)
    for k in range(2):
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours[k], numerical_grad(f, args, k), rtol=1e-5, atol=1e-7)
    # the gradients are the caller's own arrays: changing one changes nothing else
    again = srcad.grad(f, wrt=(0, 1))(*args)
    ours[0][...] = 0.0
    np.testing.assert_allclose(again[0], theirs[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("f", "twin", "shape"), PROGRAMS[:3] + PROGRAMS[4:6],
                         ids=[p[0].__name__ for p in PROGRAMS[:3] + PROGRAMS[4:6]])
def test_second_order(f, twin, shape):
    """The generated code, with its in-place index gradients, differentiated again."""
    rng = np.random.default_rng(5)
    args = (rng.uniform(0.2, 0.9, shape), rng.uniform(0.2, 0.9, shape))
    ours = srcad.hessian(f)(*args)
    theirs = autograd.hessian(twin)(*args)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_index_gradient_read_in_place():
    """The cross product's backward parts add into one array per argument: no zero array per
    element read, no helper call adding them (the variant adding into the caller's arrays,
    srcad.transform.into, makes none: the caller's gradients are arrays already)."""
    u, v = np.array([0.3, 0.5, 0.7]), np.array([0.2, 0.4, 0.9])
    g = srcad.grad(p_cross, wrt=(0, 1))
    g(u, v)
    raw = g.__srcad__._last.__srcad_raw__
    parts = [c.cell_contents for c in raw.__closure__
             if getattr(c.cell_contents, "__name__", "").startswith("cross_bwd")]
    assert parts
    for bwd in parts:
        text = bwd.__srcad_source__
        assert text.count("scatter(") <= 2 and "add(" not in text, text


@pytest.mark.parametrize("rank", [1, 2])
def test_callee_made_per_rank(rank):
    """One helper called with vectors and with matrices: a pair per rank, each right."""
    def scaled(a):
        return a[0] * 2.0 + a[-1]

    def program(x):
        return np.sum(scaled(x) * scaled(x * x))

    x = np.linspace(0.2, 0.9, 6).reshape((6,) if rank == 1 else (2, 3))
    ours = srcad.grad(program)(x)
    np.testing.assert_allclose(ours, numerical_grad(program, (x,), 0), rtol=1e-6, atol=1e-8)
