"""A gradient added into an array's gradient at an index whose form is known only when the
code runs (an item of a list: ``A[rows[0], cols[j]]``, ``x[idx[k]]``) is ``add_into(dA, index,
g)`` in the Python backend's NumPy code where the sweep made ``dA`` and nothing else holds
it (srcad.transform.partition.added_into): added in place, by ``np.add.at`` where the index
is an array (a repeated element adds each time), not ``dA += scatter(g, A, index)`` (an
array of zeros per read). Each form against central differences and srcad's reference
tape, indices of every form through one cached code (ints, tuples, slices, arrays with
repeats, negative ints); GradBench's det (expansion in minors, a recursive callee adding into
its caller's array); the Hessian reads the plain form."""

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG
from tests.twin_checks import central


def items_in_a_loop(x, idx):
    s = 0.0
    for k in range(len(idx)):
        v = x[idx[k]]
        s = s + np.sum(v * v)
    return s


def items_iterated(x, idx):
    s = 0.0
    for i in idx:
        s = s + np.sum(np.sin(x[i]) * x[0])
    return s


def det_of_minor(A, rows, cols):  # GradBench's det
    if len(rows) == 1:
        return A[rows[0], cols[0]]
    total = 0.0
    sign = 1.0
    for j in range(len(cols)):
        rest = cols[:j] + cols[j + 1:]
        total = total + sign * A[rows[0], cols[j]] * det_of_minor(A, rows[1:], rest)
        sign = -sign
    return total


def det(A, idx):
    n = A.shape[0]
    return det_of_minor(A, list(range(n)), list(range(n)))


#: lists of indices of every form, each given to the one code the first list made
INDEX_LISTS = [[0, np.array([0, 0, 1]), slice(1, 3), (4,), -1], [np.array([2, 2, 2])],
               [1, 3], [(0,), (2,)], [slice(None, None, 2), np.array([[1, 1], [4, 0]])]]
CASES = [(f, k) for f in (items_in_a_loop, items_iterated) for k in range(len(INDEX_LISTS))]


@pytest.mark.parametrize("f, k", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_items_against_differences_and_tape(f, k):
    x = np.linspace(0.1, 1.0, 5) + 0.01 * k
    idx = INDEX_LISTS[k]
    g = srcad.grad(f)
    g(x, INDEX_LISTS[0])  # the code made for the first list's kinds, then every list through it
    got = g(x, idx)
    one = lambda x: f(x, idx)  # noqa: E731
    np.testing.assert_allclose(got, central(one, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, tape.grad(f)(x, idx), rtol=1e-12, atol=1e-14)
    assert np.array_equal(got, g(x, idx)) and got is not g(x, idx)  # a new array each call


@pytest.mark.parametrize("n", [2, 3, 4, 5] if LONG else [3, 4])
def test_det_against_differences_tape_and_numpy(n):
    A = np.random.default_rng(n).normal(size=(n, n))
    got = srcad.grad(det)(A, None)
    np.testing.assert_allclose(got, central(det, (A, None), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, tape.grad(det)(A, None), rtol=1e-10, atol=1e-12)
    # d det / dA = det(A) A^-T
    np.testing.assert_allclose(got, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-8,
                               atol=1e-10)


def _text(f, *args):
    g = srcad.grad(f)
    g(*args)
    return srcad.source(g)


def test_the_text_adds_in_place():
    text = _text(items_in_a_loop, np.ones(5), [0, 1])
    assert "add_into(dx, " in text and "scatter(" not in text, text
    text = _text(det, np.eye(3), None)
    # the callee's backward part still adds into its caller's array (srcad.transform.into)
    assert "add_into(dA, " in text and "_bwd_into(" in text and "scatter(" not in text.split(
        "_bwd_into(ctx")[1], text


def test_second_order_reads_the_plain_form():
    """A Hessian differentiates the code again: its plain form (no add_into, which has no
    rule), against central differences of the gradient (det's under LONG: 3 s)."""
    if LONG:
        f, x, idx = det, np.random.default_rng(7).normal(size=(3, 3)), None
    else:
        f, x, idx = items_iterated, np.linspace(0.2, 1.0, 5), INDEX_LISTS[0]
    h = srcad.hessian(lambda x: f(x, idx))(x)
    g = srcad.grad(lambda x: f(x, idx))
    e = 1e-6
    for k in range(x.size):
        d = np.zeros(x.size)
        d[k] = e
        d = d.reshape(x.shape)
        np.testing.assert_allclose(h[np.unravel_index(k, x.shape)],
                                   (g(x + d) - g(x - d)) / (2 * e), rtol=1e-5, atol=1e-7)
