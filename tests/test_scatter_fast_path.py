"""``scatter`` (the gradient of ``like[index]``) writes basic indices (ints, slices, tuples of
them) directly and sums advanced ones with ``np.add.at``; ``unbroadcast`` reads NumPy scalars'
shapes directly. Both must give exactly what the general ``np.add.at`` / ``np.sum`` path gives:
checked on a generated family of shapes and indices, repeats included."""

import itertools

import numpy as np
import pytest

from srcad.runtime.helpers import scatter, unbroadcast


def _reference(value, like, index):
    out = np.zeros(np.shape(like))
    np.add.at(out, index, value)
    return out


SHAPES = [(5,), (3, 4), (2, 3, 4)]
BASIC = [0, -1, 2, slice(None), slice(1, None), slice(None, None, 2), slice(3, 0, -1),
         (0, 1), (-1, slice(1, 3)), (slice(None), 0), (1, 2, 3), ()]
ADVANCED = [[0, 0, 1], np.array([1, 1]), (np.array([0, 0]), np.array([1, 1])),
            np.array([True, False, True])]


def _cases():
    rng = np.random.default_rng(0)
    for shape, index in itertools.product(SHAPES, BASIC + ADVANCED):
        like = rng.normal(size=shape)
        try:
            target = like[index]
        except (IndexError, TypeError):
            continue
        if np.size(target) == 0 and not np.shape(target) == ():
            continue
        for value in (rng.normal(size=np.shape(target)), 1.5):
            yield like, index, value


CASES = list(_cases())


@pytest.mark.parametrize(("like", "index", "value"), CASES,
                         ids=[f"{c[0].shape}-{c[1]!r}-{np.ndim(c[2])}" for c in CASES])
def test_scatter_matches_add_at(like, index, value):
    got = scatter(value, like, index)
    np.testing.assert_array_equal(got, _reference(value, like, index))


LIKES = [np.float64(1.0), 1.0, np.array(1.0), np.ones(3), np.ones((1, 3)), np.ones((2, 1))]
GRAD_SHAPES = [(), (3,), (2, 3), (4, 2, 3)]


def _unbroadcast_reference(value, like):
    """Each element of ``like`` gets the sum of the elements of ``value`` it was broadcast to."""
    size = int(np.size(like))
    owner = np.broadcast_to(np.arange(size).reshape(np.shape(like)), np.shape(value))
    out = np.zeros(size)
    np.add.at(out, owner.ravel(), np.ravel(value))
    return out.reshape(np.shape(like))


@pytest.mark.parametrize("shape", GRAD_SHAPES)
@pytest.mark.parametrize("like", LIKES, ids=lambda v: f"{type(v).__name__}{np.shape(v)}")
@pytest.mark.parametrize("scalar", [np.float64, float, np.array])
def test_unbroadcast_matches_summing_the_broadcast(like, shape, scalar):
    try:
        full = np.broadcast_shapes(np.shape(like), shape)
    except ValueError:
        pytest.skip("not broadcastable")
    rng = np.random.default_rng(len(shape))
    value = rng.normal(size=full) if full else scalar(rng.normal())
    got = unbroadcast(value, like)
    assert np.shape(got) == np.shape(like)
    np.testing.assert_allclose(got, _unbroadcast_reference(value, like), rtol=1e-12)
