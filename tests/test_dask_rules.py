"""Every derivative rule on Dask arrays: the same gradient as on NumPy, or a refusal.

The rules' example calls (``tests/test_forward_rules.py``'s table, generated from the registry:
no hand list) are run with their array arguments as Dask arrays in chunks of 2. Where the
function gives the same numbers on Dask as on NumPy, srcad's gradient on Dask must equal its
gradient on NumPy (which the NumPy tests check against finite differences); where Dask's
version of a NumPy function computes something else (Dask's ``np.linalg.cholesky`` returns the
upper factor), the gradient must be the derivative of what the code computes on Dask: checked
against central finite differences of the function run on Dask. An operation Dask lacks must
be a :class:`srcad.BackendError` naming Dask, never another exception.

The gradient is built lazily: with Dask's computing forbidden, building it must compute
nothing (the user chooses when, docs/larger-than-memory.md) unless the function itself
computes on Dask (a NumPy function Dask lacks) or the rule is listed in ``EAGER`` with the
reason; a rule that needs values Dask only has once computed refuses instead.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import test_forward_rules as T
from sampling import sample

import srcad

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _dask(a):
    return da.from_array(a, chunks=2) if isinstance(a, np.ndarray) and a.ndim else a


def _computed(x):
    return x.compute() if hasattr(x, "compute") else x


def _array_cases():
    out = []
    for case in T.CASES:
        rid, expr, specs, f, line = case
        rng = np.random.default_rng(len(expr))
        args = tuple(T._value(s, rng) for s in specs.values())
        if any(isinstance(a, np.ndarray) and a.ndim for a in args):
            out.append(case)
    return out


#: every second rule example in CI, all of them in the long run (tests/sampling.py)
CASES = sample(_array_cases(), 8)


class Computed(Exception):
    """Raised by the scheduler in force while a gradient is built."""


def _forbid(*args, **kwargs):
    raise Computed()


#: rules whose gradient on Dask still computes part of it while being built, by the reason
#: (none: the helpers that wrote into NumPy arrays, took np.asarray or np.size of a Dask
#: array, or called a NumPy function Dask lacks are lazy now, or refuse naming Dask)
EAGER = {}


def _computes(fn, *args):
    """Whether ``fn(*args)`` computes a Dask array (or raises a SrcadError: False)."""
    try:
        with dask.config.set(scheduler=_forbid):
            fn(*args)
    except Computed:
        return True
    except Exception:  # noqa: BLE001  (refusals and failures: the test below sorts them)
        return False
    return False


def _fd(f, args, eps=1e-6):
    """Central differences of ``f`` run on Dask arrays, in every argument."""
    grads = []
    for k, a in enumerate(args):
        g = np.zeros(np.shape(a))
        for i in np.ndindex(np.shape(a)):
            hi, lo = [list(args), list(args)]
            step = np.zeros(np.shape(a))
            step[i] = eps
            hi[k] = a + (step if np.ndim(a) else eps)
            lo[k] = a - (step if np.ndim(a) else eps)
            g[i] = (_computed(f(*map(_dask, hi))) - _computed(f(*map(_dask, lo)))) / (2 * eps)
        grads.append(g if np.ndim(a) else float(g))
    return grads


@pytest.mark.parametrize("case", CASES, ids=[T._case_id(c) for c in CASES])
def test_rule_on_dask_equals_numpy_or_is_refused(case):
    rid, expr, specs, f, line = case
    s, args, wrt = T.scalar_case(case)
    try:
        s(*args)
    except Exception:  # noqa: BLE001  (a call of a rule's table that only forward mode takes)
        pytest.skip("the scalar function does not run on NumPy")
    try:
        want = srcad.grad(s, wrt=wrt)(*args)
    except srcad.SrcadError:
        pytest.skip("refused on NumPy too (checked by test_forward_rules.py)")
    dargs = tuple(map(_dask, args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            primal = _computed(s(*dargs))
        except Exception:  # noqa: BLE001  (Dask lacks the function itself: not srcad's)
            pytest.skip("the function itself does not run on Dask")
        if _computes(srcad.grad(s, wrt=wrt), *dargs) and not _computes(s, *dargs):
            assert rid in EAGER, f"{expr}: the gradient on Dask computed while built"
        try:
            got = dask.compute(*srcad.grad(s, wrt=wrt)(*dargs))
        except srcad.BackendError as err:
            assert "dask" in str(err), err
            return
        if not np.allclose(primal, s(*args), rtol=1e-10, atol=1e-12):
            want = _fd(s, args)  # Dask computes something else: its own derivative
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g, dtype=float), w, rtol=1e-5, atol=1e-6)
            return
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-11)


def test_dask_cholesky_is_differentiated_as_the_factor_dask_returns():
    """Dask's ``np.linalg.cholesky`` gives the upper factor; a function that weighs the two
    triangles differently has another gradient there, in reverse and forward mode."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 4))
    a = a @ a.T + 4 * np.eye(4)
    w = np.triu(np.arange(1.0, 17.0).reshape(4, 4))

    def f(a):
        return np.sum(np.linalg.cholesky(a) * w)

    d = da.from_array(a, chunks=2)
    got = srcad.grad(f)(d).compute()
    want = _fd(f, (a,))[0]
    want = (want + want.T) / 2  # the rule's symmetric convention (as autograd, PyTorch)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got, srcad.grad(f)(a))  # on NumPy the lower factor: another one
    u = rng.normal(size=(4, 4))
    u = (u + u.T) / 2
    _, tangent = srcad.jvp(f, (d,), (da.from_array(u, chunks=2),))
    assert float(_computed(tangent)) == pytest.approx(float(np.sum(got * u)), rel=1e-9)


def _det(a):
    return np.sin(np.linalg.det(a))


def _logdet(a):
    return np.linalg.slogdet(a)[1] * 2.0


def _gradient(a):
    return np.sum(np.sin(np.gradient(a, axis=1)) * np.arange(6.0))


@pytest.mark.parametrize("f, chunks", [(_det, (2, 4)), (_det, (3, 1)), (_logdet, (4, 2)),
                                       (_logdet, (1, 3)), (_gradient, 3), (_gradient, (2, 3))])
def test_uneven_chunks_and_np_gradient(f, chunks):
    """det and slogdet over blocks that are not square (Dask has neither: srcad routes them to
    NumPy's block by block, each matrix in one block; Dask's inv and solve want square
    blocks: the rule rechunks), and np.gradient: lazy, and the gradient and the tangent equal
    NumPy's."""
    rng = np.random.default_rng(4)
    a = rng.normal(size=(4, 6) if f is _gradient else (4, 4)) + (
        0.0 if f is _gradient else 4.0 * np.eye(4))
    d = da.from_array(a, chunks=chunks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not _computes(srcad.grad(f), d)
        assert not _computes(lambda d: srcad.jvp(f, (d,), (d,)), d)
        got = _computed(srcad.grad(f)(d))
        np.testing.assert_allclose(got, srcad.grad(f)(a), rtol=1e-10, atol=1e-12)
        u = rng.normal(size=a.shape)
        _, tangent = srcad.jvp(f, (d,), (da.from_array(u, chunks=chunks),))
        assert float(_computed(tangent)) == pytest.approx(float(np.sum(got * u)), rel=1e-9)


def _signed_det(m):
    sign, logabsdet = np.linalg.slogdet(m)
    return np.sum(np.sin(sign * np.exp(logabsdet)))


#: NumPy functions Dask lacks (its dispatch computes them), routed by srcad to lazy forms:
#: the functions, their gradients, tangents and Hessian-vector products, by argument shapes
ROUTED = [
    ("kron", lambda a, b: np.sum(np.sin(np.kron(a, b))), [(2, 3), (3, 2)]),
    ("kron 3-d", lambda a, b: np.sum(np.sin(np.kron(a, b))), [(2, 1, 2), (2, 3)]),
    ("inner ranks", lambda a, b: np.sum(np.sin(np.inner(a, b))), [(3,), (2, 2, 3)]),
    ("column_stack", lambda a, b: np.sum(np.sin(np.column_stack([a, b]))), [(4,), (4, 2)]),
    ("det", lambda a, b: np.sin(np.linalg.det(a + b)), [(3, 3), (3, 3)]),
    ("slogdet", lambda a, b: np.linalg.slogdet(a @ a.T + b)[1], [(3, 2), (3, 3)]),
    # batches of matrices (leading axes): det, slogdet, and the inv and solve their
    # derivatives call, each matrix in one block by NumPy's (Dask's take one matrix)
    ("det batch", lambda a, b: np.sum(np.sin(np.linalg.det(a + b))), [(4, 3, 3), (4, 3, 3)]),
    ("slogdet batch", lambda a, b: np.sum(np.linalg.slogdet(
        a @ np.swapaxes(a, -1, -2) + b)[1] * np.arange(1.0, 3.0)), [(2, 2, 3, 3), (2, 3, 3)]),
    ("slogdet sign batch", lambda a, b: _signed_det(a + b), [(3, 3, 3), (3, 3)]),
    ("solve batch", lambda a, b: np.sum(np.sin(np.linalg.solve(a, b))), [(4, 3, 3), (4, 3, 2)]),
] + ([("unstack", lambda a, b: np.sum(np.sin(np.unstack(a, axis=1)[1] * b)), [(3, 4), (3,)])]
     if hasattr(np, "unstack") else [])


@pytest.mark.parametrize("name, f, shapes", ROUTED, ids=[r[0] for r in ROUTED])
def test_routed_numpy_functions_stay_lazy(name, f, shapes):
    rng = np.random.default_rng(len(name))
    xs = [rng.normal(size=s) + (3.0 * np.eye(3) if s[-2:] == (3, 3) else 0.0) for s in shapes]
    ds = [da.from_array(x, chunks=2) for x in xs]
    with dask.config.set(scheduler=_forbid):
        g = srcad.grad(f, wrt=(0, 1))(*ds)
        t = srcad.jvp(f, tuple(ds), tuple(ds))[1]
        h = srcad.hvp(f)(ds[0], ds[1], ds[0])
    for got, want in zip(dask.compute(*g), srcad.grad(f, wrt=(0, 1))(*xs)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert float(t.compute()) == pytest.approx(float(srcad.jvp(f, tuple(xs), tuple(xs))[1]),
                                               rel=1e-12)
    np.testing.assert_allclose(h.compute(), srcad.hvp(f)(xs[0], xs[1], xs[0]), rtol=1e-10,
                               atol=1e-12)
