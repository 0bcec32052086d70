"""perf26: three changes to the Python backend's gradients, each checked against a second
engine (autograd) and central finite differences, and the helper against the formula it
stands for:

- ``grad_extremum`` (the gradient of ``np.max``/``np.min``) without a tie and without a NaN
  result is ``g`` times the mask, one array made: the same numbers, bit for bit (signed zeros
  and NaNs included), as ``g * (hit / count)``;
- ``-g * 2.0`` in a gradient's arithmetic is written ``g * -2.0`` (one array operation);
- a callee's result tuple read item by item, a list among its items, is not kept for the
  backward sweep: ``items_at`` reads the names the items were read into.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.runtime import HELPERS


def _shares(g, a, ans, axis, keepdims):
    """The gradient of a max or min as its definition gives it: g spread back over the
    reduced axes, times each element's share (1 / the number of elements equal to the
    result, 0 elsewhere)."""
    a = np.asarray(a)
    axes = tuple(range(a.ndim)) if axis is None else (
        (axis,) if np.ndim(axis) == 0 else tuple(axis))
    axes = tuple(x % a.ndim for x in axes)
    kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    back = np.asarray(ans) if keepdims else np.reshape(ans, kept)
    hit = a == back
    gb = np.asarray(g) if keepdims or np.ndim(g) == 0 else np.reshape(g, kept)
    return gb * (hit / np.sum(hit, axis=axes, keepdims=True))


def _array_with_specials(rng):
    x = rng.normal(size=(4, 5, 3))
    x[1, 2, 1] = np.nan
    x[0, 0, :2] = -7.0  # a tie along the last axis
    x[2, 1, 0], x[2, 1, 1] = 0.0, -0.0  # equal, of two signs
    return x


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_grad_extremum_gives_the_shares_bit_for_bit(axis, keepdims):
    rng = np.random.default_rng(26)
    helper = HELPERS["grad_extremum"]
    for x in (_array_with_specials(rng), np.nan_to_num(_array_with_specials(rng)),
              rng.normal(size=(4, 5, 3))):
        for reduce in (np.max, np.min):
            ans = reduce(x, axis=axis, keepdims=keepdims)
            shape = np.shape(ans)
            for g in (np.broadcast_to(1.0, shape), np.broadcast_to(-2.5, shape),
                      np.broadcast_to(0.0, shape), rng.normal(size=shape), 1.0, -3.0):
                got = helper(g, x, ans, axis, keepdims)
                want = _shares(g, x, ans, axis, keepdims)
                assert np.shape(got) == np.shape(want)
                np.testing.assert_array_equal(got, want)  # NaN where NaN
                assert np.array_equal(np.signbit(got), np.signbit(want))


def _nearest(points, centroids):
    p2 = np.sum(points * points, axis=1)
    c2 = np.sum(centroids * centroids, axis=1)
    dists = p2[:, None] + c2[None, :] - 2.0 * (points @ centroids.T)
    return np.sum(np.min(dists, axis=1))


def _nearest_ag(points, centroids):
    p2 = anp.sum(points * points, axis=1)
    c2 = anp.sum(centroids * centroids, axis=1)
    dists = p2[:, None] + c2[None, :] - 2.0 * anp.dot(points, centroids.T)
    return anp.sum(anp.min(dists, axis=1))


def _spread(x, w):
    return np.max(np.tanh(x * w), axis=0).sum() - 3.0 * np.min(x * w)


def _spread_ag(x, w):
    return anp.max(anp.tanh(x * w), axis=0).sum() - 3.0 * anp.min(x * w)


@pytest.mark.parametrize("f, ag, shapes", [
    (_nearest, _nearest_ag, ((30, 3), (4, 3))),
    (_spread, _spread_ag, ((6, 4), (4,))),
])
def test_max_min_gradients_against_autograd_and_differences(f, ag, shapes):
    rng = np.random.default_rng(7)
    args = [rng.normal(size=s) for s in shapes]
    g = srcad.grad(f, wrt=1)(*args)
    np.testing.assert_allclose(g, autograd.grad(ag, 1)(*args), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(f, args, wrt=1), rtol=1e-5, atol=1e-6)
    # with ties: the shares as autograd gives them
    tied = [np.round(a, 0) for a in args]
    np.testing.assert_allclose(srcad.grad(f, wrt=1)(*tied), autograd.grad(ag, 1)(*tied),
                               rtol=1e-10, atol=1e-12)


def _sub_scaled(a, x, y):
    return np.sum(np.sin(a - 2.0 * (x @ y)))


def _sub_scaled_ag(a, x, y):
    return anp.sum(anp.sin(a - 2.0 * anp.dot(x, y)))


def _neg_times(a, x, y):
    return np.sum(np.cos(x @ y) * 0.5 - a * 3)


def _neg_times_ag(a, x, y):
    return anp.sum(anp.cos(anp.dot(x, y)) * 0.5 - a * 3)


@pytest.mark.parametrize("f, ag, factor", [
    (_sub_scaled, _sub_scaled_ag, "* -2.0"), (_neg_times, _neg_times_ag, "* -3.0")])
def test_negated_gradient_times_a_number_is_one_operation(f, ag, factor):
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(3, 2)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2)))
    grad = srcad.grad(f, wrt=(0, 1, 2))
    got = grad(*args)
    text = srcad.source(grad, *args)
    assert factor in text, text
    want = autograd.grad(ag, (0, 1, 2))(*args)
    numeric = numerical_grad(f, args, wrt=(0, 1, 2))
    for k in range(3):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[k], numeric[k], rtol=1e-5, atol=1e-6)


def _cell(h, c, w):
    h2 = np.tanh(h * w + c)
    return h2, [c * w, h2 * c]


def _cell_ag(h, c, w):
    h2 = anp.tanh(h * w + c)
    return h2, [c * w, h2 * c]


def _run(h, c, w, n):
    total = 0.0
    for _ in range(n):
        y, state = _cell(h, c, w)
        h, c = state[0] + y, state[1]
        total = total + np.sum(y * y)
    return total + np.sum(c)


def _run_ag(h, c, w, n):
    total = 0.0
    for _ in range(n):
        y, state = _cell_ag(h, c, w)
        h, c = state[0] + y, state[1]
        total = total + anp.sum(y * y)
    return total + anp.sum(c)


def _cell_first(h, c, w):  # the list first
    h2 = np.tanh(h * w + c)
    return [c * w, h2 * c], h2


def _cell_first_ag(h, c, w):
    h2 = anp.tanh(h * w + c)
    return [c * w, h2 * c], h2


def _swapped(h, c, w, n):
    total = 0.0
    for _ in range(n):
        state, y = _cell_first(h, c, w)
        h, c = np.sin(state[0]) + y, state[1] * 0.5
        total = total + np.sum(y)
    return total + np.sum(c * h)


def _swapped_ag(h, c, w, n):
    total = 0.0
    for _ in range(n):
        state, y = _cell_first_ag(h, c, w)
        h, c = anp.sin(state[0]) + y, state[1] * 0.5
        total = total + anp.sum(y)
    return total + anp.sum(c * h)


@pytest.mark.parametrize("f, ag", [(_run, _run_ag), (_swapped, _swapped_ag)])
def test_a_result_tuple_holding_a_list_is_not_kept(f, ag):
    rng = np.random.default_rng(11)
    h, c, w = rng.normal(size=3), rng.normal(size=3), 0.3 * rng.normal(size=3)
    grad = srcad.grad(f, wrt=(0, 1, 2))
    got = grad(h, c, w, 4)
    text = srcad.source(grad, h, c, w, 4, callees=False)
    kept = text.split("stack.append(")[1].split("\n")[0]
    assert "items_at((" in text and "_cell_1, " not in kept and "_first_1, " not in kept, text
    want = autograd.grad(ag, (0, 1, 2))(h, c, w, 4)
    for k in range(3):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[2], numerical_grad(f, (h, c, w, 4), wrt=2), rtol=1e-5,
                               atol=1e-6)
