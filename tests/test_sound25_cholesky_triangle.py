"""Cholesky factors of a matrix that is not symmetric (sound25's fuzzer: ``cholesky(A @ B.T)``
with ``A != B``): NumPy, SciPy and LAPACK read one triangle of the matrix (NumPy's lower one,
the upper one for ``upper=True``; SciPy's upper one unless ``lower``) and never look at the
other, so the gradient of the function computed is zero there and counts each entry of the
triangle read twice (it stands for both entries of the symmetric matrix). The symmetrised
gradient srcad gave before (as autograd and PyTorch do) is right along symmetric perturbations
only: a wrong number for every element of a matrix that is not symmetric.

A small generated family: each factor, on matrices whose two triangles differ, in reverse mode
(every element against central differences), forward mode (``jvp`` along a random direction),
and second order (``hessian`` of a scalar against differences of srcad's gradient); and a
symmetric matrix built in the code (``S = Q @ Q.T``), where the old and new rules agree, against
autograd. Imports NumPy, SciPy (skipped without it), autograd and srcad."""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample
from twin_checks import close

import srcad

W = np.arange(1.0, 10.0).reshape(3, 3)


def np_lower(a):
    return np.sum(W * np.sin(np.linalg.cholesky(a)))


def np_upper(a):
    return np.sum(W * np.sin(np.linalg.cholesky(a, upper=True)))


def np_logdet(a):
    return 2.0 * np.sum(np.log(np.diagonal(np.linalg.cholesky(a))))


def np_complex(a):
    z = a + 0.3j * np.tril(a, -1) - 0.3j * np.triu(a, 1)
    return np.sum(W * np.abs(np.linalg.cholesky(z)) ** 2)


def np_from_product(a):
    # a product of two different matrices: cholesky reads the lower triangle of A @ B.T
    m = a + 2.0 * np.eye(3)
    return np.sum(W * np.cos(np.linalg.cholesky(m @ (m.T + 0.2 * a))))


def sp_upper(a):
    import scipy.linalg
    return np.sum(W * np.sin(scipy.linalg.cholesky(a)))


def sp_lower(a):
    import scipy.linalg
    return np.sum(W * np.sin(scipy.linalg.cholesky(a, lower=True)))


def sp_cho_factor(a):
    import scipy.linalg
    c, low = scipy.linalg.cho_factor(a, lower=True)
    return np.sum(W * np.tril(c) ** 2)


FUNCTIONS = [np_lower, np_upper, np_logdet, np_complex, np_from_product]
SCIPY = [sp_upper, sp_lower, sp_cho_factor]


def _matrix(seed):
    """A positive-definite matrix plus noise that differs between the two triangles."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, (3, 3))
    return q @ q.T + 3.0 * np.eye(3) + 0.4 * rng.uniform(-1, 1, (3, 3))


def _central(f, a, h=1e-6):
    out = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        out[i] = (f(a + e) - f(a - e)) / (2 * h)
    return out


def _check(f, seed):
    a = _matrix(seed)
    assert not np.allclose(a, a.T)
    g = srcad.grad(f)(a)
    want = _central(f, a)
    assert close(g, want, 1e-6), f"{f.__name__}: {g!r} against differences {want!r}"
    t = np.random.default_rng(seed + 100).standard_normal((3, 3))
    _, tangent = srcad.jvp(f, (a,), (t,))
    assert close(tangent, np.sum(want * t), 1e-6), f"{f.__name__}: jvp {tangent!r}"
    return a


@pytest.mark.parametrize("f, seed", sample([(f, s) for s in (0, 1) for f in FUNCTIONS], 2),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_numpy_cholesky_reads_one_triangle(f, seed):
    _check(f, seed)


@pytest.mark.parametrize("f", sample(SCIPY, 2), ids=lambda f: f.__name__)
def test_scipy_cholesky_reads_one_triangle(f):
    pytest.importorskip("scipy")
    _check(f, 3)


@pytest.mark.parametrize("f", sample([np_upper, np_lower], 2), ids=lambda f: f.__name__)
def test_second_order_on_one_triangle(f):
    a = _matrix(5)
    first = srcad.grad(f)
    t = np.random.default_rng(7).standard_normal((3, 3))
    hvp = srcad.jvp(first, (a,), (t,))[1]
    want = (first(a + 1e-5 * t) - first(a - 1e-5 * t)) / 2e-5
    assert close(hvp, want, 1e-5)


def test_symmetric_product_matches_autograd():
    """Built symmetric in the code, the matrix's gradient reaches ``Q`` as before."""
    def f(q):
        return np.sum(W * np.sin(np.linalg.cholesky(q @ q.T)))

    def twin(q):
        return anp.sum(W * anp.sin(anp.linalg.cholesky(anp.dot(q, q.T))))

    q = np.random.default_rng(2).uniform(-1, 1, (3, 3)) + 2.0 * np.eye(3)
    assert close(srcad.grad(f)(q), autograd.grad(twin)(q), 1e-9)
