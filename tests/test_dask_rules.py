"""Every derivative rule on Dask arrays: the same gradient as on NumPy, or a refusal.

The rules' example calls (``tests/test_forward_rules.py``'s table, generated from the registry:
no hand list) are run with their array arguments as Dask arrays in chunks of 2. Where the
function gives the same numbers on Dask as on NumPy, srcad's gradient on Dask must equal its
gradient on NumPy (which the NumPy tests check against finite differences); where Dask's
version of a NumPy function computes something else (Dask's ``np.linalg.cholesky`` returns the
upper factor), the gradient must be the derivative of what the code computes on Dask: checked
against central finite differences of the function run on Dask. An operation Dask lacks must
be a :class:`srcad.BackendError` naming Dask, never another exception.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import test_forward_rules as T

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


CASES = _array_cases()


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
    s = T.SCALARS[f]
    rng = np.random.default_rng(len(expr))
    args = tuple(T._value(sp, rng) for sp in specs.values())
    wrt = tuple(range(len(args)))
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
