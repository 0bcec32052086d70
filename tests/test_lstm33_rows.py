"""A gradient added into a row of an array's gradient (``dw[i] += g``, an int ``i``, ``w`` of
rank 2 or more) is ``add_row(dw, i, g)`` in the Python backend's NumPy code: the row a view,
added into in place, not written back onto itself (srcad.transform.partition.added). Each
form against central differences and srcad's reference tape; the text has ``add_row`` where
the array's rank is 2 or 3 and keeps ``+=`` for a vector (whose ``dv[i]`` is a number, not a
view: ``add_row`` there would add into a copy, and the gradient would be lost)."""

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG
from tests.twin_checks import central


def rows_in_a_loop(w, x):
    total = 0.0
    for i in range(len(w)):
        total = total + np.sum(np.tanh(w[i] * x))
    return total


def _layers(w, h):
    for i in range(0, len(w), 2):
        h = np.tanh(w[i] * h + w[i + 1])
    return h


def pairs_in_a_callee(w, x):  # lstm's shape: the callee's backward part adds into dw's rows
    total = 0.0
    for _ in range(3):
        x = _layers(w, x)
        total = total + np.sum(x * x)
    return total


def row_read_twice(w, x):
    total = 0.0
    for i in range(len(w)):
        total = total + np.sum(w[i] * x) * np.sum(w[i] * w[i])
    return total


def negative_and_literal(w, x):
    return np.sum(np.sin(w[-1] * x)) + np.sum(w[0] * w[1] * x)


def rank_three(w, x):
    total = 0.0
    for i in range(len(w)):
        total = total + np.sum(np.cos(w[i] * x[:, None]))
    return total


def vector_items(v, x):  # v of rank 1: dv[i] is a number, += stays
    total = 0.0
    for i in range(len(v)):
        total = total + np.sum(np.tanh(v[i] * x))
    return total


def shapes(f, rng):
    n = 4
    if f is rank_three:
        return rng.normal(size=(3, n, 2)), rng.normal(size=n)
    if f is vector_items:
        return rng.normal(size=5), rng.normal(size=n)
    cols = n if rng.random() < 0.7 else 1  # one column: the row broadcasts against x
    return rng.normal(size=(4, cols)) * 0.7, rng.normal(size=n)


ROWS = [rows_in_a_loop, pairs_in_a_callee, row_read_twice, negative_and_literal, rank_three]
CASES = ROWS + [vector_items]


@pytest.mark.parametrize("seed", range(6) if LONG else range(1))
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_differences_and_tape(f, seed):
    rng = np.random.default_rng(seed)
    w, x = shapes(f, rng)
    got = srcad.grad(f)(w, x)
    np.testing.assert_allclose(got, central(f, (w, x), 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, tape.grad(f)(w, x), rtol=1e-10, atol=1e-12)
    # called again: the rows are added into the new call's arrays, not the first call's
    w2 = w * 0.5
    np.testing.assert_allclose(srcad.grad(f)(w2, x), tape.grad(f)(w2, x), rtol=1e-10,
                               atol=1e-12)
    assert np.array_equal(got, srcad.grad(f)(w, x))  # a returned gradient is not reused


def _text(f):
    g = srcad.grad(f)
    g(*shapes(f, np.random.default_rng(0)))
    return srcad.source(g)


@pytest.mark.parametrize("f", ROWS, ids=lambda f: f.__name__)
def test_rows_added_in_place(f):
    text = _text(f)
    assert "add_row(" in text, text


def test_the_callee_still_adds_into_its_callers_array():
    """The callee's backward part is the variant adding into the caller's ``dw``
    (srcad.transform.into: ``add_row`` of its buffer is an addition into it)."""
    text = _text(pairs_in_a_callee)
    assert "_bwd_into(" in text and "add_row(dw, " in text, text


def test_a_vectors_item_keeps_its_addition():
    text = _text(vector_items)
    assert "add_row(" not in text and "] += " in text, text


def test_second_order_reads_the_plain_form():
    """A Hessian differentiates the code again: its plain form (no add_row, which has no
    rule), against central differences of the gradient."""
    rng = np.random.default_rng(2)
    w, x = rng.normal(size=(4, 3)) * 0.5, rng.normal(size=3)
    h = srcad.hessian(lambda w: rows_in_a_loop(w, x))(w)
    g = srcad.grad(lambda w: rows_in_a_loop(w, x))
    e = 1e-6
    for k in range(w.size):
        d = np.zeros(w.size)
        d[k] = e
        d = d.reshape(w.shape)
        np.testing.assert_allclose(h[np.unravel_index(k, w.shape)],
                                   (g(w + d) - g(w - d)) / (2 * e), rtol=1e-5, atol=1e-7)
