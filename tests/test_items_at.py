"""The gradient of a container read item by item (``a, b = f(x)``, ``out[0]``, ``out[-1]``) is
made by one ``items_at(value, indices, gradients)`` call instead of zeros and an ``add`` per
item; the fast paths of ``grad_sum``/``grad_mean`` (a number spread over a small array),
``shape_of``, ``zeros_array`` and ``scatter`` with a tuple of ints give what the general paths
give. Each program below is checked against autograd and finite differences; the helpers
against the expressions they stand for.
"""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.runtime import HELPERS

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix


def _make(npm):
    def parts(w, v):
        return npm.tanh(w * v), [v * 2.0, npm.sin(v)], npm.sum(v * w)

    def pair(v):
        return v * v, npm.cos(v)

    def unpacked(w, v):
        a, b, s = parts(w, v)
        return npm.sum(a * b[0]) + s * npm.sum(b[1])

    def some_items(w, v):
        out = parts(w, v)
        return npm.sum(out[-1] * out[0])  # the list item gets a zero

    def repeated(w, v):
        out = pair(v * w)
        x = out[0]
        y = out[0]  # the same item twice: the two gradients add
        return npm.sum(x * y) + npm.sum(out[1])

    def in_loop(w, v, n):
        total = 0.0
        for _ in range(n):
            a, b = pair(v * w)
            v = a * 0.5 + b
            total = total + npm.sum(a)
        return total + npm.sum(v)

    def reversed_order(w, v):
        out = parts(w, v)
        s = out[2]
        lst = out[1]
        a = out[0]
        return s * npm.sum(a) + npm.sum(lst[0] * lst[1])

    def nested(w, v, n):
        state = [v, v * 2.0]
        for _ in range(n):
            h, c = pair(state[0] * w)
            state = [h, c + state[1]]
        return npm.sum(state[0] * state[1])

    def trio(w, v):  # arrays of three shapes, one of one element
        return npm.outer(v, w), v * npm.sin(w), npm.sum(v * w, keepdims=True)

    def shuffled(w, v):  # every item read once, in another order, by negative positions
        out, out2 = trio(w, v), trio(v, w)
        c = out[-1]
        m, a = out[0], out[-2]
        c2, a2, m2 = out2[2], out2[1], out2[0]
        return npm.sum(m * a) + npm.sum(c * a2) + npm.sum(m2 * c2 * w)

    def uniform_item(w, v):  # an item's gradient is one number for its elements (np.sum's)
        m, a, c = trio(w, v)
        return npm.sum(m) + npm.sum(a * w) + npm.sum(c)

    def all_uniform(w, v):  # every item's gradient one number
        m, a, c = trio(w, v)
        return npm.sum(m) + npm.sum(a) * 2.0 + npm.sum(c)

    def broadcast_items(w, v, n):  # gradients summed back from broadcasts, in a loop
        for _ in range(n):
            m, a, c = trio(w, v)
            v = npm.tanh(npm.sum(m * a[:, None], axis=0) + c)
        return npm.sum(v * v)

    return {"unpacked": unpacked, "some_items": some_items, "repeated": repeated,
            "in_loop": in_loop, "reversed_order": reversed_order, "nested": nested,
            "shuffled": shuffled, "uniform_item": uniform_item, "all_uniform": all_uniform,
            "broadcast_items": broadcast_items}


NP, AG = _make(np), _make(anp)


def _args(name, seed):
    rng = np.random.default_rng(seed)
    w, v = rng.normal(size=4) * 0.5, rng.normal(size=4) * 0.5
    return (w, v, 1 + seed % 3) if name in ("in_loop", "nested", "broadcast_items") else (w, v)


@pytest.mark.parametrize("name, seed", list(itertools.product(sorted(NP), range(3))))
def test_gradients(name, seed):
    args = _args(name, seed)
    got = srcad.grad(NP[name], wrt=(0, 1))(*args)
    want = autograd.grad(lambda w, v: AG[name](w, v, *args[2:]), (0, 1))(*args[:2])
    fd = numerical_grad(NP[name], args, wrt=(0, 1))
    for g, a, n in zip(got, want, fd):
        np.testing.assert_allclose(g, a, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["unpacked", "repeated", "in_loop", "broadcast_items"])
def test_second_order(name):
    """The generated code differentiated again (items_at's and picked's rules)."""
    args = _args(name, 1)
    hvp = srcad.hvp(NP[name], wrt=1)
    u = np.random.default_rng(7).normal(size=4)
    got = hvp(*args, u)
    want = autograd.hessian_vector_product(
        lambda v: AG[name](args[0], v, *args[2:]))(args[1], u)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_generated_code_builds_the_items_at_once():
    grad = srcad.grad(NP["unpacked"], wrt=(0, 1))
    args = _args("unpacked", 0)
    grad(*args)
    # the items' own names stand for the tuple (a list among them): the tuple is not kept
    assert "items_at((a, b, s), " in srcad.source(grad, *args)


@pytest.mark.parametrize("name, displays, calls", [
    ("in_loop", 1, 0), ("shuffled", 1, 1), ("unpacked", 0, 2), ("uniform_item", 0, 1),
    ("all_uniform", 0, 1), ("broadcast_items", 1, 0)])
def test_every_array_item_once_is_a_list_display(name, displays, calls):
    """A tuple of arrays whose every item is read once, each gradient a whole array, gets
    its gradient as a list display (no items_at call, the tuple not kept); a tuple with a
    number or list item, a list, or a tuple with an item whose gradient is one number for
    its elements (np.sum's) or that something else read in between, keeps items_at."""
    grad = srcad.grad(NP[name], wrt=(0, 1))
    args = _args(name, 0)
    grad(*args)
    text = srcad.source(grad, *args)
    assert (text.count("_ctx, ["), text.count("items_at(")) == (displays, calls)


def _reference_items_at(like, indices, values):
    out = HELPERS["zeros_like"](like)
    for i, v in zip(indices, values):
        out[i] = HELPERS["add"](out[i], v)
    return out


LIKES = [
    (np.ones(3), [np.ones(2)], 2.0),
    [np.ones((2, 2)), 1.0, (np.ones(1), 3.0)],
    {"a": np.ones(2), "b": 1.0},
]
VALUES = {0: np.arange(3.0), 1: [np.arange(2.0)], 2: 4.5, -1: 1.5}


@pytest.mark.parametrize("like", LIKES, ids=lambda v: type(v).__name__)
def test_items_at_as_zeros_then_add(like):
    rng = np.random.default_rng(3)
    keys = list(like) if isinstance(like, dict) else list(range(len(like))) + [-1]
    # every item read once (the fast path), some read, one read twice (the general path)
    chosen_sets = itertools.chain(
        itertools.chain.from_iterable(itertools.permutations(keys, r) for r in range(1, 4)),
        itertools.product(keys, repeat=len(like)))
    for chosen in chosen_sets:
        values = []
        for k in chosen:
            item = like[k]
            if isinstance(item, np.ndarray):
                values.append(rng.normal(size=item.shape))
            elif isinstance(item, (list, tuple)):
                values.append([rng.normal(size=np.shape(x)) if isinstance(x, np.ndarray)
                               else 2.0 for x in item])
            else:
                values.append(float(rng.normal()))
        got = HELPERS["items_at"](like, chosen, values)
        want = _reference_items_at(like, chosen, values)
        _same(got, want)


def test_items_at_shares_arrays_and_copies_lists():
    v, lst = np.arange(3.0), [np.arange(2.0)]
    out = HELPERS["items_at"]((np.ones(3), [np.ones(2)]), (0, 1), (v, lst))
    assert out[0] is v  # nothing adds into it in place
    assert out[1] is not lst and out[1][0] is lst[0]  # a callee pops from its lists
    # a number standing for a whole array is spread over it, as add does
    _same(HELPERS["items_at"]((np.ones(3),), (0,), (2.0,)), [np.full(3, 2.0)])
    # an int32 array is not shared: add makes float64
    ints = np.arange(3, dtype=np.int32)
    out = HELPERS["items_at"]((np.ones(3),), (0,), (ints,))
    assert out[0] is not ints and out[0].dtype == np.float64
    # every item read once: float64 arrays of their item's shape shared, others made alike
    a, b = np.arange(2.0), np.arange(2.0).astype(np.float32)
    for items, values, shared in (
            ((np.ones(2), [np.ones(2)]), (lst, a), (False, True)),  # values of items 1, 0
            ((np.ones(2), 1.0), (2.0, b), (True, False)),
            ((np.ones(3), np.ones(2)), (a, a[:1]), (True, False))):  # a[:1] is spread
        out = HELPERS["items_at"](items, (1, 0), values)
        _same(out, _reference_items_at(items, (1, 0), values))
        assert [out[1] is values[0], out[0] is values[1]] == list(shared)


def _same(got, want):
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for k in want:
            _same(got[k], want[k])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert np.shape(got) == np.shape(want)
        assert np.result_type(got) == np.result_type(want)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("size", [0, 1, 3, 4096, 4097])
@pytest.mark.parametrize("g", [2.5, np.float64(-1.5), 1.0 + 2.0j])
def test_reduction_gradients_of_numbers(size, g):
    a = np.ones(size)
    for helper, scale in (("grad_sum", 1.0), ("grad_mean", 1.0 / max(size, 1))):
        if helper == "grad_mean" and size == 0:
            continue
        got = HELPERS[helper](g, a, None, False)
        want = np.broadcast_to(np.asarray(g) * scale, a.shape)
        assert got.shape == a.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-15)


def test_shape_of_zeros_array_scatter():
    for x in (np.ones((2, 3)), 1.5, np.float64(2.0), 3, [1.0, 2.0], [[1.0], [2.0]],
              np.ones(())):
        assert HELPERS["shape_of"](x) == np.shape(x)
    for x in (np.ones((2, 3)), np.ones((3, 2)).T, np.matrix(np.ones((2, 2))),
              np.ones(3, dtype=complex)):
        got, want = HELPERS["zeros_array"](x), np.zeros_like(x, dtype=float)
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
        assert not np.any(got)
    like = np.ones((3, 4))
    for index, value in (((1, 2), 2.5), ((0, slice(1, 3)), np.arange(2.0)),
                         ((2, 3), np.float64(1.5))):
        want = np.zeros((3, 4))
        want[index] = value
        np.testing.assert_array_equal(HELPERS["scatter"](value, like, index), want)


def _sums(npm):
    def log_softmax_loss(w, v, n):  # a number taken from arrays: np.sum in both sweeps
        total = 0.0
        for _ in range(n):
            y = npm.tanh(w * v)
            ynorm = y - npm.log(npm.sum(npm.exp(y)) + 2.0)
            total = total + npm.sum(v * ynorm)
            v = y
        return total

    def uniform_sum(w, v, n):  # the gradient of y - s is np.sum's one number here
        s = npm.sum(w * v)
        return npm.sum(npm.sum(v) - s * w) * n

    return {"log_softmax_loss": log_softmax_loss, "uniform_sum": uniform_sum}


SUMS, AG_SUMS = _sums(np), _sums(anp)


@pytest.mark.parametrize("name, n", [("log_softmax_loss", 1), ("log_softmax_loss", 3),
                                     ("uniform_sum", 2)])
def test_sums_of_arrays_as_methods(name, n):
    """``np.sum(a)`` of an array in the forward sweep is ``a.sum()``; the sum of an array's
    gradient into a number subtracted from it is ``total``, for a whole array or one number
    standing for it (what np.sum gives)."""
    w, v = np.random.default_rng(5).normal(size=(2, 5)) * 0.5
    grad = srcad.grad(SUMS[name], wrt=(0, 1))
    got = grad(w, v, n)
    want = autograd.grad(lambda w, v: AG_SUMS[name](w, v, n), (0, 1))(w, v)
    fd = numerical_grad(SUMS[name], (w, v, n), wrt=(0, 1))
    for g, a, d in zip(got, want, fd):
        np.testing.assert_allclose(g, a, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(g, d, rtol=1e-5, atol=1e-7)
    forward = srcad.source(grad, w, v, n).split("# backward")[0]
    assert "np.sum(" not in forward and ".sum()" in forward
    m = np.asmatrix(w)  # a class of its own: its method is what np.sum calls
    np.testing.assert_allclose(srcad.grad(lambda m: np.sum(np.multiply(m, m)))(m), 2 * w[None])
