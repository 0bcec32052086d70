"""Complex matrices through ``np.linalg`` (``svd``, ``eigh``, ``eig``, ``norm``), the
helpers of ``np.prod`` and ``np.einsum`` at second order, and the holomorphic functions of
``scipy.special``, in JAX's convention (docs/supported-python.md).

Generated families: each function below x each shape x every check, against central finite
differences along the real and the imaginary directions, autograd and JAX (when installed):

* reverse mode (``srcad.grad`` of a real-valued function of a complex array);
* forward mode: a tangent ``u`` moves the function by ``Re(sum(grad * u))``;
* reverse over reverse and forward over reverse, against differences of the gradient.

The singular vectors' and eigenvectors' phases are LAPACK's choice; the functions use what
does not depend on them (``abs`` of a vector, the values, ``U @ diag(s) @ Vh``).
"""

from __future__ import annotations

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import LONG, sample_by

import srcad

try:
    from scipy import linalg as scipy_linalg
except ImportError:  # SciPy is optional: its cases skip
    scipy_linalg = None


def _svd(n):
    def f(a):
        u, s, vh = n.linalg.svd(a, full_matrices=False)
        return (n.sum(n.abs(u) * n.arange(1.0, 1.0 + u.shape[-1])) + n.sum(s * s)
                + n.sum(n.abs(vh) ** 2 * n.arange(1.0, 1.0 + vh.shape[-1])))
    return f


def _svd_product(n):
    def f(a):
        u, s, vh = n.linalg.svd(a, full_matrices=False)
        return n.sum(n.real((u * s[..., None, :]) @ vh * (1.0 - 2.0j))) + n.sum(n.imag(u @ vh))
    return f


def _svd_values(n):
    def f(a):
        return n.sum(n.linalg.svd(a, compute_uv=False) ** 3)
    return f


def _eigh(uplo):
    def make(n):
        def f(a):
            w, v = n.linalg.eigh(a, uplo)
            return n.sum(w * n.arange(1.0, 1.0 + w.shape[-1])) + n.sum(n.abs(v) ** 3)
        return f
    return make


def _eig(n):
    def f(a):
        w, v = n.linalg.eig(a)
        return n.sum(n.real(w * (1.0 + 2.0j))) + n.sum(n.abs(v) * n.arange(1.0, 1.0 + v.shape[-1]))
    return f


def _slogdet(n):
    def f(a):
        sign, logabsdet = n.linalg.slogdet(a)
        return n.sum(n.real(sign * (1.0 - 0.5j)) + logabsdet ** 2)
    return f


def _norm(ord_, axis=None, keepdims=False):
    def make(n):
        def f(x):
            return n.sum(n.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims) ** 1.5)
        return f
    return make


def _prod(n):
    def f(z):
        return n.sum(n.abs(n.prod(z, axis=-1)) ** 2)
    return f


def _einsum(n):
    def f(z):
        return n.sum(n.abs(n.einsum("ij,jk->ik", z, n.conj(z).T * 0.5 + 1.0)) ** 2)
    return f


def _cholesky(upper):
    def make(n):
        def f(a):
            h = a @ n.conj(n.swapaxes(a, -1, -2)) + 3.0 * n.eye(a.shape[-1])
            c = n.linalg.cholesky(h, upper=upper) if upper else n.linalg.cholesky(h)
            return n.sum(n.abs(c) ** 2 * n.arange(1.0, 1.0 + c.shape[-1])) + n.sum(n.real(
                c * (1.0 - 0.5j)))
        return f
    return make


def _pinv(n):
    def f(a):
        p = n.linalg.pinv(a)
        return n.sum(n.real(p * (0.3 + 1.0j))) + n.sum(n.abs(p @ a) ** 2)
    return f


def _matrix_power(k):
    def make(n):
        def f(a):
            return n.sum(n.real(n.linalg.matrix_power(a + 3.0 * n.eye(a.shape[-1]), k)
                                * (0.5 - 1.0j)))
        return f
    return make


def _multi_dot(n):
    def f(a):
        return n.sum(n.abs(n.linalg.multi_dot([a, n.swapaxes(a, -1, -2) * 1j, a])) ** 2)
    return f


def _scipy_eigh(lower):
    def make(n):
        from scipy import linalg

        def f(a):
            w, v = linalg.eigh(a, lower=lower)
            return n.sum(w * n.arange(1.0, 1.0 + w.shape[-1])) + n.sum(n.abs(v) ** 3)
        return f
    return make


SQUARE, WIDE, TALL = (3, 3), (3, 4), (4, 3)
#: name -> (function of the NumPy module, shapes)
FUNCTIONS = {
    "svd": (_svd, [SQUARE, WIDE, TALL, (2, 4, 3)]),
    "svd_product": (_svd_product, [SQUARE, WIDE, (2, 3, 4)]),
    "svd_values": (_svd_values, [SQUARE, TALL, (2, 3, 4)]),
    "eigh_lower": (_eigh("L"), [SQUARE, (2, 4, 4)]),
    "eigh_upper": (_eigh("U"), [SQUARE, (2, 4, 4)]),
    "eig": (_eig, [SQUARE, (2, 4, 4)]),
    "slogdet": (_slogdet, [SQUARE, (2, 4, 4)]),
    "norm": (_norm(None), [(5,), WIDE, (2, 3, 4)]),
    "norm_3": (_norm(3), [(5,)]),
    "norm_1": (_norm(1), [(5,), WIDE]),
    "norm_inf": (_norm(np.inf), [(5,), WIDE]),
    "norm_fro": (_norm("fro"), [WIDE]),
    "norm_nuc": (_norm("nuc"), [WIDE, TALL]),
    "norm_2": (_norm(2), [WIDE, (5,)]),
    "norm_minus_2": (_norm(-2), [TALL]),
    "norm_axis": (_norm(None, 1), [(2, 3, 4)]),
    "norm_axes": (_norm(None, (0, 2), True), [(2, 3, 4)]),
    "norm_nuc_axes": (_norm("nuc", (2, 0)), [(2, 3, 4)]),
    "norm_2_axes": (_norm(2, (1, 2), True), [(2, 3, 4)]),
    "norm_4_axis": (_norm(4, -1, True), [(2, 3, 4)]),
    "prod": (_prod, [(3,), (2, 3)]),
    "cholesky": (_cholesky(False), [SQUARE, (2, 3, 3)]),
    "cholesky_upper": (_cholesky(True), [SQUARE]),
    "pinv": (_pinv, [WIDE, TALL, (2, 3, 4)]),
    "matrix_power": (_matrix_power(3), [SQUARE, (2, 3, 3)]),
    "matrix_power_inverse": (_matrix_power(-2), [SQUARE]),
    "multi_dot": (_multi_dot, [WIDE]),
    "scipy_eigh_lower": (_scipy_eigh(True), [SQUARE]),
    "scipy_eigh_upper": (_scipy_eigh(False), [(4, 4)]),
    "einsum": (_einsum, [SQUARE]),
}
if scipy_linalg is None:
    del FUNCTIONS["scipy_eigh_lower"], FUNCTIONS["scipy_eigh_upper"]
#: where a second engine differentiates another function (or not at all)
NOT_JAX = {"eig": "JAX has no derivative of np.linalg.eig's eigenvectors",
           "cholesky_upper": "JAX's cholesky has no upper=",
           "scipy_eigh_lower": "made with SciPy", "scipy_eigh_upper": "made with SciPy"}
HERMITIAN = {"eigh_lower", "eigh_upper"}
#: what autograd does not do: complex matrix norms but the nuclear one, ord=1 and inf of
#: complex vectors, a tuple axis with keepdims; an inf norm is nan where an element is 0;
#: slogdet's complex sign, which autograd takes for constant (finite differences do not)
NOT_AUTOGRAD = {"cholesky", "cholesky_upper", "pinv", "matrix_power", "matrix_power_inverse",
                "multi_dot", "scipy_eigh_lower", "scipy_eigh_upper",
                "norm_1", "norm_inf", "norm_2", "norm_minus_2", "norm_axes", "norm_2_axes",
                "norm_4_axis", "slogdet"}
#: each function at its first shape in CI, at every shape in the long run (tests/sampling.py)
CASES = [(name, shape) for name, (_, shapes) in FUNCTIONS.items()
         for shape in (shapes if LONG else shapes[:1])]
CASES = sample_by(CASES, lambda c: c[0].split("_")[0], 4)  # CI: every kind, a quarter more
IDS = [f"{name}-{'x'.join(map(str, shape))}" for name, shape in CASES]


def _complex(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _fd_complex(f, z, h=1e-6):
    """df/dx - 1j df/dy, element by element, by central differences."""
    out = np.zeros(z.shape, dtype=complex)
    for k in np.ndindex(z.shape):
        e = np.zeros(z.shape)
        e[k] = h
        out[k] = ((f(z + e) - f(z - e)) - 1j * (f(z + 1j * e) - f(z - 1j * e))) / (2 * h)
    return out


@pytest.mark.parametrize("name, shape", CASES, ids=IDS)
def test_reverse_forward_and_second_order(name, shape):
    make, _ = FUNCTIONS[name]
    f = make(np)
    z = _complex(shape, len(name) + len(shape))
    g = srcad.grad(f)(z)
    assert np.iscomplexobj(g) and g.shape == z.shape
    np.testing.assert_allclose(g, _fd_complex(f, z), rtol=1e-5, atol=1e-6)
    if name not in NOT_AUTOGRAD:
        np.testing.assert_allclose(g, autograd.grad(make(anp))(z), rtol=1e-7, atol=1e-9)
    # forward mode: a tangent u moves f by Re(sum(grad * u))
    u = _complex(shape, 7)
    value, tangent = srcad.jvp(f, (z,), (u,))
    assert value == pytest.approx(f(z))
    assert tangent == pytest.approx(np.real(np.sum(g * u)), rel=1e-9, abs=1e-10)

    # second order: the gradient's own gradient (reverse over reverse), and its tangent
    # (forward over reverse), each against differences of the gradient
    def pairing(x):
        return np.real(np.sum(srcad.grad(f)(x) * u))

    h = srcad.grad(pairing)(z)
    np.testing.assert_allclose(h, _fd_complex(pairing, z, 1e-5), rtol=1e-4, atol=1e-5)
    w = _complex(shape, 11)
    _, dg = srcad.jvp(srcad.grad(f), (z,), (w,))
    step = 1e-5
    fd = (srcad.grad(f)(z + step * w) - srcad.grad(f)(z - step * w)) / (2 * step)
    np.testing.assert_allclose(dg, fd, rtol=1e-4, atol=1e-5)


#: functions of the phases LAPACK chooses: no derivative (reverse mode refuses them)
PHASE_DEPENDENT = {
    "svd_u": (lambda a: np.sum(np.real(np.linalg.svd(a, full_matrices=False)[0])), WIDE),
    "svd_vh": (lambda a: np.sum(np.imag(np.linalg.svd(a)[2] * 2.0)), SQUARE),
    "eigh_v": (lambda a: np.sum(np.real(np.linalg.eigh(a)[1])), SQUARE),
    "eig_v": (lambda a: np.sum(np.real(np.linalg.eig(a)[1])), SQUARE),
    "eig_v_of_a_real_matrix": (lambda a: np.sum(np.imag(np.linalg.eig(np.real(a))[1])),
                               (5, 5)),
}
if scipy_linalg is not None:
    PHASE_DEPENDENT["scipy_eigh_v"] = (lambda a: np.sum(np.imag(scipy_linalg.eigh(a)[1])),
                                       SQUARE)


def _eigvals_only(a):
    return np.sum(scipy_linalg.eigh(a, eigvals_only=True) ** 2)


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")
def test_scipy_eigh_values_only():
    """eigvals_only=True: the first derivative."""
    z = _complex(SQUARE, 5)
    np.testing.assert_allclose(srcad.grad(_eigvals_only)(z), _fd_complex(_eigvals_only, z),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")
@pytest.mark.skipif(not LONG, reason="~12 s making the first derivative's code to refuse its "
                    "derivative: the long run (SRCAD_LONG_PROPERTIES=1)")
def test_scipy_eigh_values_only_second_order_is_refused():
    """The second derivative would differentiate the two eigh calls of the first one's
    template separately, whose vectors' phases are each LAPACK's choice: refused by the phase
    check, never wrong (test_a_function_of_the_phases_is_refused runs the check by default)."""
    z = _complex(SQUARE, 5)
    u = _complex(SQUARE, 6)

    def pairing(x):
        return np.real(np.sum(srcad.grad(_eigvals_only)(x) * u))

    with pytest.raises(srcad.MissingRuleError, match="depends on their phases"):
        srcad.grad(pairing)(z)


@pytest.mark.parametrize("name", list(PHASE_DEPENDENT))
def test_a_function_of_the_phases_is_refused(name):
    f, shape = PHASE_DEPENDENT[name]
    z = _complex(shape, 2)
    if name == "eig_v_of_a_real_matrix":
        assert np.iscomplexobj(np.linalg.eigvals(np.real(z)))
    with pytest.raises(srcad.MissingRuleError, match="depends on their phases"):
        srcad.grad(f)(z)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_single_precision(name):
    """complex64 in, complex64 gradient out, equal to the complex128 one to single precision."""
    make, shapes = FUNCTIONS[name]
    z = _complex(shapes[0], 1).astype(np.complex64)
    g = srcad.grad(make(np))(z)
    assert g.dtype == np.complex64
    exact = srcad.grad(make(np))(z.astype(np.complex128))
    np.testing.assert_allclose(g, exact, rtol=1e-4, atol=1e-5 * np.max(np.abs(exact)))


@pytest.mark.parametrize("name", [n for n in FUNCTIONS if n not in NOT_JAX])
def test_against_jax(name):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    make, shapes = FUNCTIONS[name]
    z = _complex(shapes[-1], 3)
    if name in HERMITIAN:  # JAX's eigh reads (a + a^H) / 2, NumPy's one triangle: the same
        inner = make  # function of a Hermitian matrix

        def make(n):
            f = inner(n)
            return lambda a: f((a + n.conj(n.swapaxes(a, -1, -2))) / 2)
    ours = srcad.grad(make(np))(z)
    theirs = np.asarray(jax.grad(make(jax.numpy))(jax.numpy.asarray(z)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------- scipy.special
HAVE_SCIPY = importlib.util.find_spec("scipy") is not None
#: holomorphic functions SciPy computes for complex arguments (a fixed first argument where
#: there is one: an order, or the x of x log y)
SPECIAL = ["erf", "erfc", "erfi", "erfcx", "dawsn", "wofz", "ndtr", "log_ndtr", "gamma",
           "rgamma", "loggamma", "xlogy", "xlog1py", "iv", "jv", "yv"]
SECOND_ARG = {"xlogy": 0.7, "xlog1py": 0.7, "iv": 1, "jv": 2, "yv": 1}
#: their derivative has digamma, whose own (polygamma) SciPy computes for real numbers only:
#: a second derivative at a complex point is refused
FIRST_ORDER = {"gamma", "rgamma", "loggamma"}


def _special(name):
    from scipy import special

    fn = getattr(special, name)
    if name in SECOND_ARG:
        first = SECOND_ARG[name]
        if name.startswith("x"):
            return lambda z: fn(first + 0.1 * z, z)  # both arguments complex
        return lambda z: fn(first, z)
    return fn


@pytest.mark.skipif(not HAVE_SCIPY, reason="SciPy is not installed")
@pytest.mark.parametrize("name", SPECIAL)
def test_holomorphic_special_functions(name):
    fn = _special(name)
    z0 = 0.6 + 0.4j
    step = 1e-6
    derivative = (fn(z0 + step) - fn(z0 - step)) / (2 * step)
    assert srcad.grad(fn, holomorphic=True)(z0) == pytest.approx(derivative, rel=1e-6)

    def f(z):
        return np.sum(np.abs(fn(z)) ** 2)

    z = np.array([0.6 + 0.4j, 1.2 - 0.3j, 0.8 + 0.9j])
    g = srcad.grad(f)(z)
    np.testing.assert_allclose(g, _fd_complex(f, z), rtol=1e-5, atol=1e-6)
    u = _complex((3,), 5)
    assert srcad.jvp(f, (z,), (u,))[1] == pytest.approx(np.real(np.sum(g * u)), rel=1e-9)

    def pairing(x):
        return np.real(np.sum(srcad.grad(f)(x) * u))

    if name in FIRST_ORDER:
        with pytest.raises(srcad.MissingRuleError, match="digamma of a value that may be complex"):
            srcad.grad(pairing)(z)
        return
    np.testing.assert_allclose(srcad.grad(pairing)(z), _fd_complex(pairing, z, 1e-5),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(not HAVE_SCIPY, reason="SciPy is not installed")
@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_erf_of_complex_arrays_matches_autograd(name):
    from autograd.scipy import special as aspecial
    from scipy import special

    z = _complex((2, 3), 4)
    ours_fn, their_fn = getattr(special, name), getattr(aspecial, name)
    ours = srcad.grad(lambda z: np.sum(np.real(ours_fn(z) * z)))(z)
    theirs = autograd.grad(lambda z: anp.sum(anp.real(their_fn(z) * z)))(z)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- scipy.linalg
def _scipy_linalg(linalg):
    """Analytic matrix functions of complex matrices (near the identity: principal
    branches), each in a real-valued function."""
    b = np.arange(1.0, 4.0) + 1j
    return {
        "inv": lambda a: np.sum(np.abs(linalg.inv(a)) ** 2),
        "det": lambda a: np.abs(linalg.det(a)) ** 2,
        "solve": lambda a: np.sum(np.abs(linalg.solve(a, b)) ** 2),
        "expm": lambda a: np.sum(np.abs(linalg.expm(a)) ** 2),
        "logm": lambda a: np.sum(np.abs(linalg.logm(a)) ** 2),
        "sqrtm": lambda a: np.sum(np.real(linalg.sqrtm(a) * (1 - 1j))),
        "solve_sylvester": lambda a: np.sum(np.abs(linalg.solve_sylvester(a, a.T + 2.0,
                                                                          a * a)) ** 2),
    }


SCIPY_LINALG = ["inv", "det", "solve", "expm", "logm", "sqrtm", "solve_sylvester"]


@pytest.mark.skipif(not HAVE_SCIPY, reason="SciPy is not installed")
@pytest.mark.parametrize("name", SCIPY_LINALG)
def test_scipy_linalg_of_complex_matrices(name):
    from scipy import linalg

    f = _scipy_linalg(linalg)[name]
    z = np.eye(3) + 0.3 * _complex(SQUARE, len(name))
    g = srcad.grad(f)(z)
    np.testing.assert_allclose(g, _fd_complex(f, z), rtol=1e-5, atol=1e-6)
    u = _complex(SQUARE, 5)
    assert srcad.jvp(f, (z,), (u,))[1] == pytest.approx(np.real(np.sum(g * u)), rel=1e-8)

    def pairing(x):
        return np.real(np.sum(srcad.grad(f)(x) * u))

    np.testing.assert_allclose(srcad.grad(pairing)(z), _fd_complex(pairing, z, 1e-5),
                               rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- eig of a real matrix
def _fd_real(f, x, h=1e-6):
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        out[k] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("shape", [(4, 4), (5, 5), (2, 4, 4)])
def test_eig_of_a_real_matrix_with_complex_eigenvalues(shape):
    """np.linalg.eig's results are taken as complex: a real matrix gets the real part of
    what flows back (against finite differences and autograd, both modes, second order)."""
    make = FUNCTIONS["eig"][0]
    f = make(np)
    a = np.random.default_rng(sum(shape)).normal(size=shape)
    assert np.iscomplexobj(np.linalg.eigvals(a))
    g = srcad.grad(f)(a)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, _fd_real(f, a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(make(anp))(a), rtol=1e-7, atol=1e-9)
    u = np.random.default_rng(1).normal(size=shape)
    assert srcad.jvp(f, (a,), (u,))[1] == pytest.approx(np.sum(g * u), rel=1e-8)

    def pairing(x):
        return np.sum(srcad.grad(f)(x) * u)

    np.testing.assert_allclose(srcad.grad(pairing)(a), _fd_real(pairing, a, 1e-5),
                               rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- np.linalg.qr (real)
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 4, 3)])
def test_qr_against_jax(shape):
    """The reduced QR's gradient and tangent (the runner of tests/test_forward_rules.py checks
    them against finite differences) against JAX's, which uses the same sign convention."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)

    def make(n):
        def f(a):
            q, r = n.linalg.qr(a)
            return n.sum(q * n.arange(1.0, 1.0 + q.shape[-1])) + n.sum(r ** 2)
        return f

    a = np.random.default_rng(4).normal(size=shape)
    theirs = np.asarray(jax.grad(make(jax.numpy))(a))
    np.testing.assert_allclose(srcad.grad(make(np))(a), theirs, rtol=1e-9, atol=1e-12)
    u = np.random.default_rng(5).normal(size=shape)
    assert srcad.jvp(make(np), (a,), (u,))[1] == pytest.approx(
        float(jax.jvp(make(jax.numpy), (a,), (u,))[1]), rel=1e-9)
