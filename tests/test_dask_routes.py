"""Functions NumPy's dispatch does not hand to Dask, routed to Dask's own forms: lazy, and
NumPy's numbers.

``np.sort`` (Dask has no ``sort``: its ``__array_function__`` would compute the array) and
``scipy.linalg``'s ``solve``, ``inv``, ``cholesky``, ``solve_triangular``, ``cho_solve``
(SciPy would convert the arrays to NumPy) run in srcad's code for Dask arrays as Dask's
forms (``srcad/runtime/routes.py``). A generated family (shapes, axes, chunkings that split
the sorted axis or not, square and uneven blocks, each option of ``solve_triangular``) checks
that building grad, value_and_grad and jvp computes nothing (a scheduler that raises is in
force, Dask's fallback warning an error), and that computed they equal srcad's gradients on
NumPy to 1e-12, which equal central finite differences. The functions Dask has no form of
are refused with a BackendError naming Dask and the function.
"""

import itertools
import warnings

import numpy as np
import pytest
from array_family import ROUTED, W_NP, X_NP, Y_NP
from sampling import sample, sample_by

import srcad
from srcad.tools.check import numerical_grad

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
linalg = pytest.importorskip("scipy.linalg")


def _forbid(*args, **kwargs):
    raise AssertionError("a Dask array was computed while srcad built the derivative")


def lazily(fn, *args):
    with dask.config.set(scheduler=_forbid), warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # Dask's "computes: not implemented"
        return fn(*args)


def assert_close(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert np.max(np.abs(got - want), initial=0.0) <= 1e-12 * scale, (got, want)


def _weights(shape):
    return np.cos(np.arange(1.0, 1.0 + np.prod(shape, dtype=int)).reshape(shape))


# ---------------------------------------------------------------- np.sort
def _sort_case(shape, axis, ties):
    w = _weights((int(np.prod(shape)),) if axis is None else shape)

    def f(a):
        return np.sum(np.sin(np.sort(a, axis=axis)) * w)

    rng = np.random.default_rng(len(shape) + 3 * (axis or 0) + 3)
    n = int(np.prod(shape))
    # distinct values apart by more than finite differences' steps, or repeated ones (the
    # stable order decides where each gradient goes)
    a = (rng.permutation(n) // (3 if ties else 1) * 0.25 + rng.uniform(0, 0.1)).reshape(shape)
    return f, (a,)


SORTS = [(shape, axis, ties, chunks) for shape in ((7,), (4, 6), (3, 4, 5))
         for axis in (-1, 0, None, *range(1, len(shape))) for ties in (False, True)
         for chunks in ("2", "whole") if not (ties and len(shape) == 3)
         and (chunks == "2" or not ties and axis == -1)]


def _chunked(a, chunks):
    return da.from_array(a, chunks=a.shape if chunks == "whole" else
                         tuple(min(int(chunks), n) for n in a.shape))


# ---------------------------------------------------------------- scipy.linalg
RNG = np.random.default_rng(11)
A = RNG.normal(size=(4, 4)) + 4.0 * np.eye(4)
B1, B2 = RNG.normal(size=4), RNG.normal(size=(4, 3))


def _solve(b):
    return lambda a, b: np.sum(np.sin(linalg.solve(a, b)))


def _triangular(trans, lower, unit):
    def f(a, b):
        return np.sum(np.sin(linalg.solve_triangular(a, b, trans=trans, lower=lower,
                                                     unit_diagonal=unit)))
    return f


# the factor of m m' + 4 I: finite differences in m see the symmetric gradient of cholesky
def _cholesky(lower):
    return lambda m: np.sum(np.sin(linalg.cholesky(m @ m.T + 4.0 * np.eye(4), lower=lower))
                            * _weights((4, 4)))


def _cho_solve(lower):
    def f(m, b):
        c = linalg.cholesky(m @ m.T + 4.0 * np.eye(4), lower=lower)
        return np.sum(np.sin(linalg.cho_solve((c, lower), b)))
    return f


def _inv(a):
    return np.sum(np.sin(linalg.inv(a)) * _weights((4, 4)))


LINALG = {
    "solve b vector": (_solve(1), (A, B1)),
    "solve b matrix": (_solve(2), (A, B2)),
    "inv": (_inv, (A,)),
    **{f"cholesky lower={lo}": (_cholesky(lo), (A,)) for lo in (False, True)},
    **{f"cho_solve lower={lo}": (_cho_solve(lo), (A, B2)) for lo in (False, True)},
    **{f"solve_triangular trans={t!r} lower={lo} unit={u} b={b.ndim}-d":
       (_triangular(t, lo, u), (A, b))
       for t, lo, u, b in itertools.product((0, 1, "T"), (False, True), (False, True),
                                            (B1, B2)) if b is B2 or t == 0},
}
#: blocks: square, uneven (rechunked into square ones), one; each case has one, in turn
CHUNKS = [2, (3, 1), 4]
LINALG_CASES = [(name, CHUNKS[k % 3]) for k, name in enumerate(LINALG)]
LINALG_CASES += [(name, chunks) for name in ("solve b vector", "inv") for chunks in CHUNKS
                 if (name, chunks) not in LINALG_CASES]
LINALG_CASES = sample(sample_by(LINALG_CASES, lambda c: c[0], 2), 2)  # CI: half the names


def _dask(a, chunks):
    return da.from_array(a, chunks=chunks if np.ndim(a) == 2 else (
        chunks if isinstance(chunks, int) else chunks[0]))


def _check(f, args, dargs, smooth=True):
    """grad, value_and_grad and jvp of ``f`` on Dask lazily, equal to NumPy's (which equal
    finite differences where ``f`` is ``smooth``: a sort with ties is not, and its gradient
    there follows the stable order, on NumPy as on Dask)."""
    wrt = tuple(range(len(args)))
    want = srcad.grad(f, wrt=wrt)(*args)
    for g, n in zip(want, numerical_grad(f, args, wrt=wrt) if smooth else ()):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-7)
    got = lazily(srcad.grad(f, wrt=wrt), *dargs)
    assert all(isinstance(g, da.Array) for g in got)
    for g, w in zip(dask.compute(*got), want):
        assert_close(g, w)
    value, grads = lazily(srcad.value_and_grad(f, wrt=wrt), *dargs)
    value, *grads = dask.compute(value, *grads)
    assert_close(value, f(*args))
    for g, w in zip(grads, want):
        assert_close(g, w)
    tangents = tuple(np.cos(np.arange(a.size)).reshape(a.shape) for a in args)
    _, t = lazily(lambda *d: srcad.jvp(f, d, tuple(
        da.from_array(u, chunks=x.chunks) for u, x in zip(tangents, d))), *dargs)
    assert isinstance(t, da.Array)
    assert_close(t.compute(), sum(np.sum(g * u) for g, u in zip(want, tangents)))


@pytest.mark.parametrize(("shape", "axis", "ties", "chunks"), SORTS,
                         ids=[f"{s}-axis={a}-{'ties' if t else 'distinct'}-chunks={c}"
                              for s, a, t, c in SORTS])
def test_sort_on_dask_is_lazy_and_numpys(shape, axis, ties, chunks):
    f, args = _sort_case(shape, axis, ties)
    _check(f, args, tuple(_chunked(a, chunks) for a in args), smooth=not ties)


@pytest.mark.parametrize(("name", "chunks"), LINALG_CASES,
                         ids=[f"{n}-chunks={c}" for n, c in LINALG_CASES])
def test_scipy_linalg_on_dask_is_lazy_and_numpys(name, chunks):
    f, args = LINALG[name]
    _check(f, args, tuple(_dask(a, chunks) for a in args))


def test_a_numpy_right_hand_side_next_to_a_dask_matrix():
    f = _solve(1)
    got = lazily(srcad.grad(f, wrt=(0, 1)), _dask(A, 2), B1)
    for g, w in zip(dask.compute(*got), srcad.grad(f, wrt=(0, 1))(A, B1)):
        assert_close(g, w)


def test_the_generated_code_names_the_routed_calls():
    text = srcad.source(srcad.grad(_inv), _dask(A, 2))
    assert "library_inv(a)" in text
    assert "library_" not in srcad.source(srcad.grad(_inv), A)  # NumPy: unchanged


# ---------------------------------------------------------------- what Dask has no form of
REFUSED = {
    "scipy.linalg.det": (lambda a: np.sin(linalg.det(a)), (A,)),
    "scipy.linalg.expm": (lambda a: np.sum(linalg.expm(a)), (A,)),
    "scipy.linalg.qr": (lambda a: np.sum(linalg.qr(a)[1]), (A,)),
    "scipy.linalg.solve with a batch of matrices": (
        lambda a, b: np.sum(linalg.solve(a, b)), (np.stack([A, A]), np.stack([B1, B1]))),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_dask_has_no_form_of_is_refused_naming_dask_and_the_function(name):
    f, args = REFUSED[name]
    with pytest.raises(srcad.BackendError, match="dask") as info:
        lazily(srcad.grad(f), *(da.from_array(a, chunks=2) for a in args))
    assert name in str(info.value)
    assert "compute()" in info.value.hint
    assert info.value.filename == __file__  # the function's file and line: no sweep comment
    assert info.value.lineno == f.__code__.co_firstlineno  # above a forward statement


@pytest.mark.parametrize("f", ROUTED, ids=[f.__name__ for f in ROUTED])
def test_the_routed_family_of_the_duck_array_tests(f):
    """The functions tests/test_cupy.py and benchmarks/gpu_check.py run on a GPU, on Dask."""
    _check(f, (W_NP, X_NP, Y_NP), (da.from_array(W_NP, chunks=2), da.from_array(X_NP, chunks=7),
                                   da.from_array(Y_NP, chunks=7)))


def _solved(a, b):
    return linalg.solve(a, b)


def _sorted_solution(a, b):
    return np.sort(_solved(a, b) * np.arange(1.0, 5.0))


def with_callees(a, b):
    return np.sum(np.sin(_sorted_solution(a, b)) * _weights((4,)))


def test_calls_inside_callees_are_routed_too():
    """A callee (differentiated in two parts, forward and backward) made for Dask arrays is
    written for them too, apart from the parts NumPy code calls (made first here)."""
    args = (A, B1)
    want = srcad.grad(with_callees, wrt=(0, 1))(*args)
    _check(with_callees, args, (_dask(A, 2), _dask(B1, 2)))
    for g, w in zip(srcad.grad(with_callees, wrt=(0, 1))(*args), want):  # NumPy's unchanged
        np.testing.assert_array_equal(g, w)


def _solve_vector(a):
    return np.sum(np.sin(linalg.solve(a, B1)))


HVP = {"sort axis=0": (_sort_case((4, 6), 0, False)[0], (4, 6)),
       "sort axis=None": (_sort_case((4, 6), None, False)[0], (4, 6)),
       "inv": (_inv, (4, 4)), "cholesky": (_cholesky(True), (4, 4)),
       "solve": (_solve_vector, (4, 4))}


@pytest.mark.parametrize("name", HVP)
def test_hvp_differentiates_the_routed_code_again(name):
    """Second order: srcad reads a call of a library's form (library_sort) in its own code as
    a call of the function (np.sort), so the gradient code for Dask is differentiated again,
    lazily, to NumPy's Hessian-vector product."""
    f, shape = HVP[name]
    x = A if shape == (4, 4) else _sort_case(shape, 0, False)[1][0]
    v = np.sin(np.arange(x.size)).reshape(x.shape)
    want = srcad.hvp(f)(x, v)
    got = lazily(srcad.hvp(f), _dask(x, 2), _dask(v, 2))
    assert isinstance(got, da.Array)
    assert_close(got.compute(), want)


# ---------------------------------------------------------------- SciPy's elementwise wrappers
# scipy.special.polygamma and zeta are Python over ufuncs (they convert their arguments): the
# gradient of digamma, and of gammaln at second order, reads them
special = pytest.importorskip("scipy.special")
POINTS = np.linspace(1.5, 4.0, 6)


def _digamma(x):
    return np.sum(special.digamma(x) * np.arange(1.0, 7.0))


def _polygamma(x):
    return np.sum(special.polygamma(1, x) * special.gammaln(x))


def _multigammaln(x):
    return np.sum(special.multigammaln(x, 3))


@pytest.mark.parametrize("f", [_digamma, _polygamma], ids=lambda f: f.__name__)
def test_elementwise_scipy_wrappers_on_dask_are_lazy_and_numpys(f):
    _check(f, (POINTS,), (_dask(POINTS, 2),))
    v = np.cos(POINTS)
    got = lazily(srcad.hvp(f), _dask(POINTS, 2), _dask(v, 2))
    assert_close(got.compute(), srcad.hvp(f)(POINTS, v))


def test_zeta_and_multigammaln_on_dask():
    """zeta's Dask form (which srcad's code calls) is lazy and gives SciPy's numbers;
    multigammaln has none: refused, naming Dask and the function."""
    from srcad.runtime.routes import library_form

    got = lazily(library_form(special.zeta), 3.0, _dask(POINTS, 2))
    assert isinstance(got, da.Array)
    assert_close(got.compute(), special.zeta(3.0, POINTS))
    with pytest.raises(srcad.BackendError, match="scipy.special.multigammaln") as info:
        lazily(srcad.grad(_multigammaln), _dask(POINTS, 2))
    assert "dask" in str(info.value)


# ---------------------------------------------------------------- scipy.stats' distributions
stats = pytest.importorskip("scipy.stats")
MEANS = np.cos(np.arange(6.0))


def _norm(x, m):
    return np.sum(stats.norm.logpdf(x, m, 2.0) + stats.norm.logcdf(x * m))


def _norm_keyword(x, m):
    return np.sum(stats.norm.logpdf(x, loc=m))


def test_distribution_methods_on_dask_are_lazy_and_numpys():
    """A distribution's elementwise methods (logpdf, logcdf, ...) run block by block, their
    arguments aligned as a ufunc's (chunks of 2 and of 3 here)."""
    _check(_norm, (POINTS, MEANS), (_dask(POINTS, 2), _dask(MEANS, 3)))


def test_an_array_by_keyword_is_refused_with_the_rewrite():
    with pytest.raises(srcad.BackendError, match="loc=") as info:
        lazily(srcad.grad(_norm_keyword, wrt=(0, 1)), _dask(POINTS, 2), _dask(MEANS, 2))
    assert "pass loc by position" in info.value.hint
