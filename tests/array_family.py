"""The functions the duck-array tests differentiate (tests/test_dask.py, tests/test_cupy.py,
benchmarks/gpu_check.py): plain NumPy code, a generated family of elementwise chains,
reductions over each axis, broadcasting and products beside the logistic and least-squares
losses, and the data (small; chunked or moved to a GPU by each test)."""

import itertools

import numpy as np

ROWS, COLS = 24, 4
RNG = np.random.default_rng(20)
X_NP = RNG.uniform(0.1, 1.0, (ROWS, COLS))
Y_NP = (RNG.random(ROWS) > 0.5) * 1.0
W_NP = RNG.normal(size=COLS) * 0.5


def logistic(w, X, y):
    p = 1 / (1 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r ** 2) / 2 + 0.1 * np.sum(w ** 2)


def broadcasting(w, X, y):
    Z = X + w[None, :] * y[:, None]
    return np.sum(Z * Z) + np.mean(X / (1 + w ** 2)) + np.sum(X[:, 1:3] * w[1:3])


def products(w, X, y):
    A = X.T @ X
    return w @ A @ w + np.sum(np.dot(X, w) * y) + np.sum(np.outer(y, w) * X)


def in_a_loop(w, X, y):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.tanh(X @ w + i) * y) * w[i]
    return s


def spread(w, X, y):
    return np.var(X @ w) + np.std(X * w) + np.sum(np.abs(X - w)) + np.prod(w)


UNARY = {"sin": np.sin, "tanh": np.tanh, "exp": np.exp, "log1p": np.log1p,
         "sqrt": lambda v: np.sqrt(1 + v * v), "square": np.square}


def _chain(name_a, a, name_b, b):
    def chain(w, X, y):
        return np.sum(a(X * w) * b(X + w) + y[:, None] * a(w))

    chain.__name__ = f"chain_{name_a}_{name_b}"
    return chain


REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
          "var": np.var, "std": np.std}


def _reduction(name, reduce, axis, keepdims):
    def reduction(w, X, y):
        r = reduce(0.3 * np.sin(X * w) + 1.0, axis=axis, keepdims=keepdims)
        return np.sum(r * r) + np.sum(y) * np.sum(w)

    reduction.__name__ = f"{name}_axis{axis}_keep{keepdims}"
    return reduction


FAMILY = [logistic, least_squares, broadcasting, products, in_a_loop, spread]
FAMILY += [_chain(na, a, nb, b) for (na, a), (nb, b) in
           itertools.combinations(UNARY.items(), 2)]
FAMILY += [_reduction(n, r, axis, keep) for n, r in REDUCE.items()
           for axis, keep in [(None, False), (0, False), (1, True), (-1, False)]]
IDS = [f.__name__ for f in FAMILY]


def vector_output(w, X, y):
    return np.tanh(X @ w) * y + np.sum(w ** 2) + np.mean(X * w, axis=1)


# indexing and item writes: basic indexes (ints, slices, None, ...) and arrays of indices or
# masks, read and written
def index_ellipsis(X):
    return np.sum(X[..., 0] * X[..., 1])


def index_new_axis(X):
    return np.sum(X[:, None, 1:3] ** 2)


def index_rows(X):
    return np.sum(X[2] * X[3]) + np.sum(X[::-2, 1] ** 3)


def index_mask(X):
    return np.sum(X[X > 0.5])


def index_fancy(X):
    return np.sum(X[[0, 2, 2]])


def write_slice(X):
    Y = X * 1.0
    Y[1:3] = X[1:3] ** 2
    Y[0, 1] = X[0, 1] * 3.0
    return np.sum(Y * X)


def write_mask(X):
    Y = X * 1.0
    Y[X > 0.5] = 0.0
    return np.sum(Y * X)


def write_fancy(X):
    Y = X * 1.0
    Y[[0, 2]] = X[[1, 3]] * 2
    return np.sum(Y * X)


def index_columns(X):
    return np.sum(np.sin(X[:, [2, 0, 2, 2]])) + np.sum(X[..., np.array([1, -1, 1])] ** 3)


def index_numpy_mask(X):
    return np.sum(X[:, np.array([True, False, True, True])] ** 2)


def take_and_add_at(X):
    Y = np.take(X, [1, 1, 4], axis=0) * 1.0
    np.add.at(Y, (slice(None), [0, 0]), X[:3, :2])
    return np.sum(Y * Y)


#: (function, whether a library without np.add.at, like Dask, can differentiate it: an index
#: along one axis given as NumPy integers or a NumPy mask, whole slices elsewhere, can; an
#: index held in a lazy array (a Dask mask) cannot)
INDEXING = [(index_ellipsis, True), (index_new_axis, True), (index_rows, True),
            (write_slice, True), (write_mask, True), (index_mask, False),
            (index_fancy, True), (write_fancy, True), (index_columns, True),
            (index_numpy_mask, True), (take_and_add_at, True)]


# functions NumPy's dispatch does not hand to the array's library (srcad/runtime/routes.py):
# np.sort, and SciPy's linear algebra, called in the library's own form
# (the identity made in the data's library: CuPy refuses a NumPy array beside its own)
def sorted_rows(w, X, y):
    return (np.sum(np.sort(X * w, axis=0)[-3:])
            + np.sum(np.sort(X[:, 1] * w[0] + y, axis=None)[:4]))


try:
    import scipy.linalg
except ImportError:  # SciPy is optional: the family is then np.sort's alone
    scipy = None


def normal_equations(w, X, y):
    A = X.T @ X + np.diag(np.ones_like(X[0]))
    return np.sum(scipy.linalg.solve(A, X.T @ y + w) ** 2)


def triangular(w, X, y):
    L = np.tril(X[:COLS] + 2.0 * np.diag(np.ones_like(X[0])))
    c = scipy.linalg.cholesky(X.T @ X + np.diag(np.ones_like(X[0])), lower=True)
    return np.sum(scipy.linalg.solve_triangular(L, w, lower=True) * (c @ w))


ROUTED = [sorted_rows] + ([normal_equations, triangular] if scipy else [])
