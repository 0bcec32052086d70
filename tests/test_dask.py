"""Gradients over Dask arrays: the same code as for NumPy, the same numbers, and lazy.

Every case runs the function twice, on NumPy arrays and on Dask arrays holding the same numbers
(in chunks), and checks that srcad's gradients on Dask are Dask arrays (nothing computed while
the gradient is built: a scheduler that raises is in force), that computed they equal those on
NumPy to 1e-12, and that those on NumPy equal central finite differences. A family of
functions is generated (elementwise chains, reductions over each axis, broadcasting, products)
beside the logistic and least-squares losses, in grad, value_and_grad, vjp and jvp, with the
``wrt`` array given as NumPy or as Dask. A last test fits data that does not fit in the memory
it is allowed: the peak traced while the gradient is computed stays a small part of the data.
"""

import re
import tracemalloc
import warnings

import numpy as np
import pytest
from array_family import (
    COLS,
    FAMILY,
    IDS,
    INDEXING,
    RNG,
    ROWS,
    W_NP,
    X_NP,
    Y_NP,
    logistic,
    vector_output,
)
from sampling import sample_by

import srcad
from srcad.tools.check import numerical_grad

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

CHUNK = 7  # chunks of uneven sizes (7, 7, 7, 3)


def _forbid(*args, **kwargs):
    raise AssertionError("a Dask array was computed while srcad built the gradient")


def lazily(fn, *args):
    """``fn(*args)`` with Dask's computing forbidden, and Dask's fallback warnings errors (a
    NumPy function Dask lacks would compute its arguments)."""
    with dask.config.set(scheduler=_forbid), warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        return fn(*args)


def as_dask(a):
    if np.ndim(a) == 0:
        return a
    return da.from_array(a, chunks=(CHUNK,) + a.shape[1:])


def assert_close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert np.max(np.abs(got - want), initial=0.0) <= 1e-12 * scale, (got, want)


def _wrt_arrays(w_kind):
    return as_dask(W_NP) if w_kind == "dask" else W_NP


#: CI: every function, with w a NumPy array or a Dask array in turn (both in the long run)
GRAD_CASES = sample_by([(f, k) for f in FAMILY for k in ("numpy", "dask")], lambda c: c[0], 2)


@pytest.mark.parametrize("f, w_kind", GRAD_CASES,
                         ids=[f"{IDS[FAMILY.index(f)]}-{k}" for f, k in GRAD_CASES])
def test_grad_equals_numpy(f, w_kind):
    want = srcad.grad(f, wrt=(0, 1, 2))(W_NP, X_NP, Y_NP)
    numeric = numerical_grad(f, (W_NP, X_NP, Y_NP), wrt=(0, 1))
    for g, n in zip(want, numeric):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-7 * max(1.0, np.max(np.abs(n))))
    got = lazily(srcad.grad(f, wrt=(0, 1, 2)), _wrt_arrays(w_kind), as_dask(X_NP),
                 as_dask(Y_NP))
    assert all(isinstance(g, da.Array) for g in got)  # lazy: the user computes them
    for g, r in zip(dask.compute(*got), want):
        assert_close(g, r)


@pytest.mark.parametrize("w_kind", ["numpy", "dask"])
@pytest.mark.parametrize("f", FAMILY[:6], ids=IDS[:6])
def test_value_and_grad_equals_numpy(f, w_kind):
    value, grad = srcad.value_and_grad(f)(W_NP, X_NP, Y_NP)
    got_value, got_grad = lazily(srcad.value_and_grad(f), _wrt_arrays(w_kind),
                                 as_dask(X_NP), as_dask(Y_NP))
    assert isinstance(got_value, da.Array) and got_value.ndim == 0
    got_value, got_grad = dask.compute(got_value, got_grad)
    assert_close(got_value, f(W_NP, X_NP, Y_NP))
    assert_close(got_value, value)
    assert_close(got_grad, grad)


@pytest.mark.parametrize("w_kind", ["numpy", "dask"])
def test_vjp_equals_numpy(w_kind):
    dy = RNG.normal(size=ROWS)
    _, pullback = srcad.vjp(vector_output, W_NP, X_NP, Y_NP)
    want = pullback(dy)
    value, pullback = lazily(srcad.vjp, vector_output, _wrt_arrays(w_kind), as_dask(X_NP),
                             as_dask(Y_NP))
    got = lazily(pullback, as_dask(dy))
    for g, r in zip(dask.compute(*got), want):
        assert_close(g, r)
    assert_close(value.compute(), vector_output(W_NP, X_NP, Y_NP))
    # each row of the Jacobian, by finite differences, dotted with dy
    numeric = numerical_grad(lambda w: float(dy @ vector_output(w, X_NP, Y_NP)), (W_NP,))
    np.testing.assert_allclose(want[0], numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("w_kind", ["numpy", "dask"])
@pytest.mark.parametrize("f", [vector_output] + FAMILY[:6], ids=["vector"] + IDS[:6])
def test_jvp_equals_numpy(f, w_kind):
    tw, tx = RNG.normal(size=COLS), RNG.normal(size=(ROWS, COLS))
    value, tangent = srcad.jvp(f, (W_NP, X_NP, Y_NP), (tw, tx), wrt=(0, 1))
    got = lazily(srcad.jvp, f, (_wrt_arrays(w_kind), as_dask(X_NP), as_dask(Y_NP)),
                 (as_dask(tw) if w_kind == "dask" else tw, as_dask(tx)), (0, 1))
    got_value, got_tangent = dask.compute(*got)
    assert_close(got_value, value)
    assert_close(got_tangent, tangent)
    eps = 1e-6
    numeric = (np.asarray(f(W_NP + eps * tw, X_NP + eps * tx, Y_NP))
               - np.asarray(f(W_NP - eps * tw, X_NP - eps * tx, Y_NP))) / (2 * eps)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-5, atol=1e-6)


def test_the_issues_example_same_code_same_gradient():
    """The issue's example: NumPy weights, Dask data; the gradient is lazy until computed."""
    X = da.random.default_rng(0).random((2000, 10), chunks=(200, 10))
    y = (da.random.default_rng(1).random(2000, chunks=200) > 0.5) * 1.0
    g = lazily(srcad.grad(logistic), np.zeros(10), X, y)
    assert isinstance(g, da.Array) and g.shape == (10,)
    Xn, yn = dask.compute(X, y)
    assert_close(g.compute(), srcad.grad(logistic)(np.zeros(10), Xn, yn))


def test_a_scalar_parameter_gets_a_lazy_number():
    def f(scale, X):
        return np.sum(np.tanh(scale * X))

    got = lazily(srcad.grad(f), 0.3, as_dask(X_NP))
    assert isinstance(got, da.Array) and got.ndim == 0
    assert_close(got.compute(), srcad.grad(f)(0.3, X_NP))


def test_item_writes_into_a_dask_array():
    def f(w, X):
        z = X @ w
        z[2:5] = z[2:5] * 2.0
        z[0] = np.sin(z[0])
        return np.sum(z * z)

    want = srcad.grad(f, wrt=(0, 1))(W_NP, X_NP)
    got = lazily(srcad.grad(f, wrt=(0, 1)), W_NP, as_dask(X_NP))
    for g, r in zip(dask.compute(*got), want):
        assert_close(g, r)


def test_repeated_integer_indices_are_summed_lazily():
    """x[idx] with repeated NumPy indices: Dask has no np.add.at, the gradient adds each
    index's repeats by takes (srcad.runtime.arrays.add_along), lazily."""
    def f(w, X):
        return np.sum(X @ w[np.array([0, 1, 1, 3])[:COLS]])

    want = srcad.grad(f, wrt=(0, 1))(W_NP, X_NP[:, :4])
    got = lazily(srcad.grad(f, wrt=(0, 1)), as_dask(W_NP), as_dask(X_NP[:, :4]))
    for g, r in zip(dask.compute(*got), want):
        assert_close(g, r)


def test_the_numba_backend_refuses_dask_arrays():
    with pytest.raises(srcad.BackendError, match="numba"):
        srcad.grad(logistic, backend="numba")(W_NP, as_dask(X_NP), as_dask(Y_NP))


def test_an_integer_dask_array_is_refused_as_wrt():
    with pytest.raises(srcad.WrtError, match="int"):
        srcad.grad(logistic)(da.zeros(COLS, dtype=int, chunks=2), as_dask(X_NP), as_dask(Y_NP))


def test_ranks_are_part_of_the_specialisation():
    def f(w):
        return np.sum(np.sin(w) * w)

    g = srcad.grad(f)
    for shape in [(6,), (2, 3), (6,), (), (2, 3)]:
        x = np.linspace(0.1, 1.0, int(np.prod(shape))).reshape(shape)
        assert_close(lazily(g, da.from_array(x)).compute(), srcad.grad(f)(x))


def test_numpy_code_is_unchanged_by_dask():
    """The NumPy specialisation's code is the same before and after a Dask call; the Dask
    one differs only where a number is spread over an array (srcad.backend.duck)."""
    g = srcad.grad(logistic)
    before = srcad.source(g, W_NP, X_NP, Y_NP)
    lazily(g, W_NP, as_dask(X_NP), as_dask(Y_NP))
    dask_text = srcad.source(g, W_NP, as_dask(X_NP), as_dask(Y_NP))
    assert srcad.source(g, W_NP, X_NP, Y_NP) == before != dask_text
    # the NumPy code gives memory back as it goes (srcad/backend/free_early.py: `del`, an
    # array kept only for its shape); read without that, it differs from Dask's in one line
    kept = re.sub(r", (\w+)_shape\)", r", \1)", before.replace("unbroadcast_to(", "unbroadcast("))
    kept = "\n".join(line for line in kept.splitlines()
                     if not re.match(r"\s+(del |\w+_shape = \w+\.shape$|# one = )", line))
    # (NumPy's code reads 1 and 1.0 meeting float64 arrays as the constant `one`: lstm37)
    kept, dask_ones = (re.sub(r"\bone\b|\b1\.0\b", "1", t) for t in (kept, dask_text))
    assert kept != before  # free_early changed the NumPy code
    changed = [(a, b) for a, b in zip(kept.splitlines(), dask_ones.splitlines()) if a != b]
    assert changed == [("    dt_7 = np.broadcast_to(dt_7, shape_of(t_3, t_6))",
                        "    dt_7 = np.ones_like(t_3 * t_6, dtype=np.result_type(dt_7)) * dt_7")]


# ---------------------------------------------------------------- bounded memory


@pytest.mark.parametrize("f", FAMILY, ids=IDS)
def test_no_array_as_large_as_the_data_enters_the_graph(f):
    """A NumPy array shaped like the data (a gradient spread with np.broadcast_to, np.full)
    would be one constant of the graph, held and sent whole: every task stays small."""
    rows = 160_000  # 5 MB of X in 16 chunks
    X = da.random.default_rng(5).random((rows, COLS), chunks=(rows // 16, COLS))
    y = da.random.default_rng(6).random(rows, chunks=rows // 16)
    grads = lazily(srcad.grad(f, wrt=(0, 1, 2)), W_NP, X, y)
    graph = dict(dask.base.collections_to_expr(grads).__dask_graph__())
    cloudpickle = pytest.importorskip("cloudpickle")
    largest = max(len(cloudpickle.dumps(task)) for task in graph.values())
    assert largest < rows * 8 / 16 / 4, f"a task of {largest} bytes"


def test_peak_memory_stays_bounded_on_data_larger_than_it():
    """80 MB of data generated chunk by chunk (1 MB chunks); the gradient is computed with
    less than a quarter of that traced at any time."""
    rows, cols, chunk = 1_000_000, 10, 12_500
    X = da.random.default_rng(3).random((rows, cols), chunks=(chunk, cols))
    y = (da.random.default_rng(4).random(rows, chunks=chunk) > 0.5) * 1.0
    grad = srcad.grad(logistic)(np.full(cols, 0.1), X, y)
    cloudpickle = pytest.importorskip("cloudpickle")
    assert len(cloudpickle.dumps(dict(grad.__dask_graph__()))) < rows * cols * 8 / 100
    tracemalloc.start()
    try:
        got = grad.compute(scheduler="synchronous")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    data = rows * cols * 8
    assert peak < data / 4, f"peak {peak / 1e6:.1f} MB for {data / 1e6:.0f} MB of data"
    assert got.shape == (cols,) and np.all(np.isfinite(got))
    # the same numbers as NumPy on the first chunks (data that fits)
    head = slice(0, 4 * chunk)
    Xn, yn = dask.compute(X[head], y[head])
    small = srcad.grad(logistic)(np.full(cols, 0.1), X[head], y[head]).compute()
    assert_close(small, srcad.grad(logistic)(np.full(cols, 0.1), Xn, yn))


def layer(params, X, y):
    W, b = params
    z = np.tanh(X @ W + b)
    return np.mean((z[:, 0] - y) ** 2)


def tuple_data(w, data):
    X, y = data
    return np.mean((X @ w - y) ** 2)


@pytest.mark.parametrize("dask_params", [False, True])
def test_parameters_and_data_in_containers(dask_params):
    W, b = RNG.normal(size=(COLS, 2)), RNG.normal(size=2)
    want = srcad.grad(layer)([W, b], X_NP, Y_NP)
    params = [as_dask(W), b] if dask_params else [W, b]
    got = lazily(srcad.grad(layer), params, as_dask(X_NP), as_dask(Y_NP))
    assert all(isinstance(g, da.Array) for g in got)
    for g, r in zip(dask.compute(*got), want):
        assert_close(g, r)
    want = srcad.grad(tuple_data)(W_NP, (X_NP, Y_NP))
    got = lazily(srcad.grad(tuple_data), W_NP, (as_dask(X_NP), as_dask(Y_NP)))
    assert isinstance(got, da.Array)
    assert_close(got.compute(), want)


@pytest.mark.parametrize(("f", "works"), INDEXING, ids=[f.__name__ for f, _ in INDEXING])
def test_indexing_works_or_is_refused_naming_dask(f, works):
    """Basic indexes (ints, slices, None, ...) and NumPy indices along one axis work; a mask
    held in a Dask array needs np.add.at at places known once computed, which Dask does not
    have: a BackendError, never a guess."""
    X = X_NP[:6]
    want = srcad.grad(f)(X)
    np.testing.assert_allclose(want, numerical_grad(f, (X,)), rtol=1e-6, atol=1e-8)
    if works:
        assert_close(lazily(srcad.grad(f), as_dask(X)).compute(), want)
    else:
        with pytest.raises(srcad.BackendError, match="dask arrays"):
            lazily(srcad.grad(f), as_dask(X))


def test_a_float32_argument_gets_a_float32_gradient():
    w32, X32 = W_NP.astype(np.float32), X_NP.astype(np.float32)
    got = lazily(srcad.grad(logistic, wrt=(0, 1)), as_dask(w32), as_dask(X32), as_dask(Y_NP))
    want = srcad.grad(logistic, wrt=(0, 1))(w32, X32, Y_NP)
    for g, r in zip(got, want):
        assert g.dtype == r.dtype == np.float32
        np.testing.assert_allclose(g.compute(), r, rtol=1e-6)


@pytest.mark.parametrize("make", ["jacobian", "jacfwd", "hessian", "hvp"])
def test_jacobians_and_hessians_with_dask_data(make):
    """Derivatives made from derivatives (a Hessian differentiates srcad's gradient code) run
    with Dask data beside NumPy parameters and equal those on NumPy data."""
    rng = np.random.default_rng(5)
    w = rng.normal(size=3) / 3
    x_np = rng.normal(size=(20, 3))
    x_da = da.from_array(x_np, chunks=(CHUNK, 3))

    def out(w, x):
        return np.tanh(x @ w)

    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    if make == "hvp":
        v = np.arange(1.0, 4.0)
        got, want = srcad.hvp(loss, (w, x_da), v), srcad.hvp(loss, (w, x_np), v)
    else:
        f = out if make.startswith("jac") else loss
        d = getattr(srcad, make)(f)
        got, want = d(w, x_da), d(w, x_np)
    got = got.compute() if hasattr(got, "compute") else got
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
