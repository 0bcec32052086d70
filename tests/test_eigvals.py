"""``np.linalg.eigvals`` (issue 16: refused before): real matrices with real or complex
eigenvalues, complex matrices, stacks of matrices; functions of the eigenvalues' real and
imaginary parts and moduli. grad and value_and_grad against central finite differences and
autograd (``anp.linalg.eig(a)[0]``: autograd has no rule of eigvals' own), jvp against
finite differences, Hessians in both modes against finite differences of the gradient."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad


def _sum_real(w):
    return np.sum(np.real(w) ** 2)


def _sum_abs(w):
    return np.sum(np.abs(w))


def _imag_sq(w):
    return np.sum(np.imag(w) ** 2) + np.sum(np.real(w) * 0.3)


def _mixed(w):
    return np.sum(np.real(w) * np.imag(w)) + np.sum(np.abs(w) ** 3)


OUTERS = {"sum_real": _sum_real, "sum_abs": _sum_abs, "imag_sq": _imag_sq, "mixed": _mixed}


def _f_sum_real(a):
    return _sum_real(np.linalg.eigvals(a))


def _f_sum_abs(a):
    return _sum_abs(np.linalg.eigvals(a))


def _f_imag_sq(a):
    return _imag_sq(np.linalg.eigvals(a))


def _f_mixed(a):
    return _mixed(np.linalg.eigvals(a))


FUNCS = {"sum_real": _f_sum_real, "sum_abs": _f_sum_abs, "imag_sq": _f_imag_sq,
         "mixed": _f_mixed}


def _twin(name):
    outer = {"sum_real": lambda w: anp.sum(anp.real(w) ** 2),
             "sum_abs": lambda w: anp.sum(anp.abs(w)),
             "imag_sq": lambda w: anp.sum(anp.imag(w) ** 2) + anp.sum(anp.real(w) * 0.3),
             "mixed": lambda w: anp.sum(anp.real(w) * anp.imag(w)) + anp.sum(anp.abs(w) ** 3)}
    return lambda a: outer[name](anp.linalg.eig(a)[0])


def _matrix(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "rotation":  # a real matrix with a complex pair
        a = np.array([[0.1, -1.2, 0.3], [1.1, 0.2, -0.4], [0.2, 0.5, 0.9]])
        return a + 0.05 * rng.standard_normal((3, 3))
    if kind == "symmetric_real":  # real eigenvalues, well apart
        q = rng.standard_normal((3, 3))
        return np.diag([0.5, 1.7, 3.2]) + 0.1 * (q + q.T)
    if kind == "general4":
        return rng.standard_normal((4, 4))
    if kind == "stack":
        return np.stack([_matrix("rotation", seed), _matrix("general4", seed + 1)[:3, :3]])
    raise AssertionError(kind)


KINDS = ["rotation", "symmetric_real", "general4", "stack"]
CASES = [(f, k, s) for f in FUNCS for k in KINDS for s in (1, 2)]


@pytest.mark.parametrize(("fname", "kind", "seed"), CASES,
                         ids=[f"{f}-{k}-{s}" for f, k, s in CASES])
def test_grad_against_differences_and_autograd(fname, kind, seed):
    f = FUNCS[fname]
    a = _matrix(kind, seed)
    got = srcad.grad(f)(a)
    value, again = srcad.value_and_grad(f)(a)
    assert got.dtype == np.float64 and got.shape == a.shape
    np.testing.assert_allclose(value, f(a), rtol=1e-12)
    np.testing.assert_allclose(again, got, rtol=1e-12)
    np.testing.assert_allclose(got, numerical_grad(f, (a,), 0), rtol=1e-5, atol=1e-7)
    if kind != "stack":  # autograd's eig takes one matrix
        np.testing.assert_allclose(got, autograd.grad(_twin(fname))(a), rtol=1e-8, atol=1e-10)
    direction = np.random.default_rng(seed + 7).standard_normal(a.shape)
    _, tangent = srcad.jvp(f, (a,), (direction,))
    np.testing.assert_allclose(tangent, np.sum(got * direction), rtol=1e-8, atol=1e-10)


def test_complex_matrix():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))

    def f(z):
        return np.sum(np.abs(np.linalg.eigvals(z)) ** 2)

    got = srcad.grad(f)(a)
    # the gradient of a real function of complex z, as srcad gives it: d/dRe + i d/dIm
    # conjugated (JAX's convention); compare each part with finite differences
    h = 1e-6
    for i in range(3):
        for j in range(3):
            e = np.zeros((3, 3))
            e[i, j] = h
            d_re = (f(a + e) - f(a - e)) / (2 * h)
            d_im = (f(a + 1j * e) - f(a - 1j * e)) / (2 * h)
            assert abs(got[i, j].real - d_re) < 1e-5 * max(1, abs(d_re))
            assert abs(abs(got[i, j].imag) - abs(d_im)) < 1e-5 * max(1, abs(d_im))


@pytest.mark.parametrize("mode", ["fwd", "rev"])
@pytest.mark.parametrize("fname", ["sum_real", "mixed"])
def test_hessian(fname, mode):
    f = FUNCS[fname]
    a = _matrix("rotation", 5)
    hess = np.asarray(srcad.hessian(f, mode=mode)(a))
    g = srcad.grad(f)
    h = 1e-5
    expected = np.zeros(a.shape + a.shape)
    for i in np.ndindex(*a.shape):
        e = np.zeros(a.shape)
        e[i] = h
        expected[(...,) + i] = (g(a + e) - g(a - e)) / (2 * h)
    np.testing.assert_allclose(hess, expected, rtol=1e-4, atol=1e-6)


def test_repeated_eigenvalues_are_refused():
    a = np.eye(3)
    with pytest.raises(srcad.SrcadError, match="eigenvalues"):
        srcad.grad(_f_sum_real)(a)
