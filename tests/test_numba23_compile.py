"""Numba forms written for compile time (session 23): fused elementwise expressions of rank 3 or
more broadcast by srcad's own loops (NumPy's broadcasting loops take Numba 2-15 s to compile at
these ranks), ``np.broadcast_to`` made contiguous (``broadcast_copy``), ``np.stack`` along any
axis without Numba's slice assignment (whose error message alone took 5 s to compile), and
``@`` of stacks without branches in its loops. Each against NumPy, element for element (the
same operations in the same order: equal to the bit), and NumPy's errors where shapes do
not fit.

Imports ``srcad.backend`` (numba_backend, numba_helpers), ``sampling`` (LONG).
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG

from srcad.backend import numba_backend

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")
pytestmark = needs_numba

SHAPES = [((2, 1, 3), (4, 3))] + (  # (each pair of ranks: compiles; the rest, the long run's)
    [((2, 4, 3), (2, 4, 3)), ((1, 4, 3), (2, 1, 1)), ((3,), (2, 2, 3)), ((2, 0, 3), (1, 3))]
    if LONG else [])


def _helpers():
    from srcad.backend import numba_helpers

    return numba_helpers


@pytest.fixture(scope="module")
def compiled():
    import numba

    h = _helpers()
    neg_sum, into = h.helper("fused_en_n_a_0_1"), h.helper("fused_wn_a_0_m_1_2")
    shape_of = h.helper("fused_hn_a_0_m_1_2")
    copy = h.helper("broadcast_copy")
    stack1, stack0 = h.helper("stack_1"), h.helper("stack")

    @numba.njit
    def expression(a, b):
        return neg_sum(a, b)

    @numba.njit
    def written(a, s, b):
        return into(a, s, b)

    @numba.njit
    def shape(a, s, b):
        return shape_of(a, s, b)

    @numba.njit
    def broadcast(a, shape):
        return copy(a, shape)

    @numba.njit
    def stacked(arrays):
        return stack1(arrays), stack0(arrays)

    return expression, written, shape, broadcast, stacked


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_broadcast_expressions(compiled, sa, sb):
    expression, written, shape, _, _ = compiled
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    assert np.array_equal(expression(a, b), -(a + b))
    keep = a.copy()
    got = written(a, 0.5, b)
    assert np.array_equal(got, keep + 0.5 * b)
    assert np.array_equal(a, got if got.shape == a.shape else keep)  # (in place where it fits)
    assert shape(a, 0.5, b) == np.broadcast_shapes(sa, sb)


def test_broadcast_mismatch(compiled):
    expression, written, shape, _, _ = compiled
    a, b = np.ones((2, 3, 4)), np.ones((3, 3))
    for call in (lambda: expression(a, b), lambda: written(a, 2.0, b),
                 lambda: shape(a, 2.0, b)):
        with pytest.raises(ValueError, match="broadcast"):
            call()


@pytest.mark.parametrize("sa, shape", [((3, 1), (2, 3, 4)), ((4,), (2, 3, 4)),
                                       ((1, 1, 1), (2, 0, 2))])
def test_broadcast_copy(compiled, sa, shape):
    broadcast = compiled[3]
    a = np.random.default_rng(1).normal(size=sa)
    got = broadcast(a, shape)
    assert got.flags.c_contiguous and np.array_equal(got, np.broadcast_to(a, shape))
    with pytest.raises(ValueError):
        broadcast(np.ones((3, 2)), (2, 3, 4))


def test_stacks(compiled):
    stacked = compiled[4]
    rng = np.random.default_rng(2)
    arrays = tuple(rng.normal(size=(3, 2)).T for _ in range(4))  # (not contiguous)
    along, first = stacked(arrays)
    assert np.array_equal(along, np.stack(arrays, axis=1))
    assert np.array_equal(first, np.stack(arrays))
    with pytest.raises(ValueError, match="same shape"):
        stacked(tuple(np.ones(s).T for s in ((3, 2), (3, 2), (2, 2), (3, 2))))
