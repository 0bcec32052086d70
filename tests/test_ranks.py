"""Code specialised on the ranks of array arguments.

``xs[t]`` is a vector when ``xs`` is a matrix and a number when it is a vector; with the
rank known, ``W @ h`` gets ``np.outer(g, h)`` and ``W.T @ g`` instead of helpers that look at
shapes on every call. A call with arrays of other ranks must get code made for those ranks:
every case checks the numbers against finite differences and the reference tape, and the
same gradient object is called with several ranks in turn.
"""

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(11)


def rnn(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h**2)


def rows(w, xs):
    total = 0.0
    for t in range(len(xs)):
        total = total + np.sum(np.sin(w * xs[t]))
    return total


def vector_matrix(v, M):
    return np.sum(np.tanh(v @ M))


def matrix_matrix(A, B):
    return np.sum((A @ B) ** 2)


def by_flag(x, flag):
    return np.sum(x[flag] * 2.0)  # a bool index is a mask, not a position: rank unknown


def _code(df, *args):
    text = srcad.source(df, *args)
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def _check(df, f, args, wrt):
    got = df(*args)
    got = got if isinstance(got, tuple) else (got,)
    positions = [wrt] if isinstance(wrt, int) else list(wrt)
    expected = numerical_grad(f, args, tuple(positions))
    taped = srcad.tape.grad(f, wrt=tuple(positions))(*args)
    taped = taped if isinstance(taped, tuple) else (taped,)
    for g, e, t, p in zip(got, expected, taped, positions):
        assert np.shape(g) == np.shape(args[p])
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)


def _rnn_args(hidden=5, inputs=3, steps=4):
    return (RNG.standard_normal((hidden, hidden)) / 3, RNG.standard_normal((hidden, inputs)) / 2,
            RNG.standard_normal((steps, inputs)), RNG.standard_normal(hidden) / 2)


def test_rnn_reads_as_written_by_hand():
    df = srcad.grad(rnn, wrt=(0, 1))
    args = _rnn_args()
    _check(df, rnn, args, (0, 1))
    code = _code(df, *args)
    assert "np.outer(" in code and "W.T @" in code and "grad_matmul" not in code
    assert "np.shape(" not in code  # shapes of arrays are read as .shape
    assert "dh_1 = two * h" in code  # np.sum's gradient stays one number until it meets h (two:
    # a float64 constant, srcad.backend.float_literals)


def test_rows_of_a_matrix_and_items_of_a_vector():
    df = srcad.grad(rows, wrt=(0, 1))
    _check(df, rows, (RNG.standard_normal(3), RNG.standard_normal((4, 3))), (0, 1))
    _check(df, rows, (0.7, RNG.standard_normal(4)), (0, 1))  # xs[t] is a number here
    _check(df, rows, (RNG.standard_normal(3), RNG.standard_normal((2, 4, 3))), (0, 1))


def test_one_gradient_object_called_with_ranks_in_turn():
    df = srcad.grad(rows, wrt=0)
    cases = [(RNG.standard_normal(3), RNG.standard_normal((4, 3))),
             (RNG.standard_normal(3), RNG.standard_normal(4)[:, None] * np.ones(3)),
             (RNG.standard_normal(3), RNG.standard_normal((2, 4, 3))),
             (RNG.standard_normal(3), RNG.standard_normal(3))]
    for _ in range(2):  # the second round takes the cached code for each rank
        for args in cases:
            _check(df, rows, args, 0)


def test_rnn_on_one_sequence_then_on_a_batch():
    """xs[t] a vector, then a matrix (inputs x batch): the matrix products change kind, so
    code made for the first call would give the wrong shapes for the second."""
    df = srcad.grad(rnn, wrt=(0, 1))
    W, U, xs, h0 = _rnn_args()
    batch, hb = RNG.standard_normal((4, 3, 2)), RNG.standard_normal((5, 2)) / 2
    for args in [(W, U, xs, h0), (W, U, batch, hb), (W, U, xs, h0), (W, U, batch, hb)]:
        _check(df, rnn, args, (0, 1))


@pytest.mark.parametrize("mode", ["grad", "value_and_grad"])
def test_dispatch_function_keys_ranks(mode):
    """The function grad returns (the dispatcher) looks ranks up too."""
    df = getattr(srcad, mode)(rows, wrt=0)
    a = (RNG.standard_normal(3), RNG.standard_normal((4, 3)))
    b = (RNG.standard_normal(3), RNG.standard_normal((2, 4, 3)))
    for args in (a, b, a, b):
        got = df(*args)
        got = got[1] if mode == "value_and_grad" else got
        np.testing.assert_allclose(got, numerical_grad(rows, args, 0), rtol=1e-6, atol=1e-8)


def scaled(w, xs):
    return w * xs[0]


def test_vjp_with_ranks_in_turn():
    """One vjp object (what srcad.vjp's pullback calls), arrays of other ranks in turn: its
    calls carry the seed first, and the ranks are those of the arguments after it."""
    from srcad.specialise import Transformed

    pullback = Transformed(scaled, (0, 1), "vjp")
    w = RNG.standard_normal(3)
    for xs in [RNG.standard_normal((2, 3)), RNG.standard_normal(2)] * 2:
        seed = RNG.standard_normal(3)
        gw, gxs = pullback(seed, w, xs)
        np.testing.assert_allclose(gw, seed * xs[0], rtol=1e-12)
        expected = np.zeros_like(xs)
        expected[0] = seed * w if xs.ndim == 2 else np.sum(seed * w)
        np.testing.assert_allclose(gxs, expected, rtol=1e-12)
    value, back = srcad.vjp(scaled, w, xs)
    np.testing.assert_allclose(back(seed)[0], seed * xs[0], rtol=1e-12)


@pytest.mark.parametrize("f, args, marker", [
    (vector_matrix, (RNG.standard_normal(3), RNG.standard_normal((3, 4))), "M @ "),
    (matrix_matrix, (RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))), ".T"),
])
def test_matmul_of_known_ranks(f, args, marker):
    df = srcad.grad(f, wrt=(0, 1))
    _check(df, f, args, (0, 1))
    code = _code(df, *args)
    assert "grad_matmul" not in code and marker in code


def test_bool_index_is_not_taken_for_a_position():
    df = srcad.grad(by_flag, wrt=0)
    x = RNG.standard_normal((2, 3))
    for flag in (True, False):
        got = df(x, flag)
        np.testing.assert_allclose(got, numerical_grad(by_flag, (x, flag), 0), atol=1e-8)


def test_matrix_subclass_is_not_rank_specialised():
    """np.matrix indexes to matrices, not to rows: only exact ndarrays have a rank."""
    import warnings

    from srcad.core.kinds import rank_of_value

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        m = np.matrix(RNG.standard_normal((4, 3)))
    assert rank_of_value(m) is None and rank_of_value(np.ones((4, 3))) == 2


def test_a_user_rule_with_rank_templates():
    """srcad.extend.defvjp(ranks=...): the exact-rank template is used, and checked."""
    import srcad.extend

    def scale_rows(A, v):
        return A * v[:, None]

    srcad.extend.defvjp(scale_rows, "A, v", A="g * v[:, None]",
                        v="np.sum(g * A, axis=-1)",
                        ranks={(2, 1): {"A": "g * v[:, None]", "v": "np.einsum('ij,ij->i', g, A)"}})

    def loss(A, v):
        return np.sum(scale_rows(A, v) ** 2)

    args = (RNG.standard_normal((3, 4)), RNG.standard_normal(3))
    df = srcad.grad(loss, wrt=(0, 1))
    _check(df, loss, args, (0, 1))
    assert "einsum" in _code(df, *args)
    with pytest.raises(srcad.RuleError):
        srcad.extend.defvjp(scale_rows, "A, v", A="g", ranks={(2,): {"A": "g"}})


def test_integer_array_after_float_array_is_still_refused():
    """The rank table keys dtype kinds too: an integer array for a wrt parameter, after a
    float array of the same rank, takes the full path and its clear error."""
    df = srcad.grad(rows, wrt=0)
    xs = RNG.standard_normal((4, 3))
    df(RNG.standard_normal(3), xs)
    with pytest.raises((TypeError, ValueError, srcad.SrcadError)) as info:
        df(np.arange(3), xs)
    assert "float" in str(info.value) or "integer" in str(info.value)
    df(RNG.standard_normal(3), xs.astype(int))  # an integer array not differentiated is fine


def with_options(W, opts, xs):
    total = 0.0
    for t in range(len(xs)):
        total = total + np.sum(np.tanh(W @ xs[t])) * opts[0]
    return total


def test_ranks_with_a_container_argument():
    """A list argument puts its structure in the cache key; the ranks of the array arguments
    must be there too (W @ xs[t] is matrix @ vector, then matrix @ matrix)."""
    df = srcad.grad(with_options, wrt=0)
    W, opts = RNG.standard_normal((2, 3)), [0.5]
    for xs in [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3, 2))] * 2:
        got = df(W, opts, xs)
        np.testing.assert_allclose(got, numerical_grad(with_options, (W, opts, xs), 0),
                                   rtol=1e-6, atol=1e-8)
