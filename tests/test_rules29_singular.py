"""Derivatives at special points (rules29): ``np.linalg.det`` at singular matrices (the
cofactors, by an SVD without division: rank ``n - 1``, lower ranks, batches, complex, second
and third derivatives), ``slogdet`` there (refused at the line), ``np.linalg.norm`` and
``np.hypot`` at zero (0, as PyTorch). Against central differences (``det`` is a polynomial:
they are exact up to rounding at any point), the exact cofactors (minors), PyTorch where its
answer is right (a random singular matrix; it gives 0 at ``[[1, 2], [3, 6]]``, asserted here as
the disagreement it is), and JAX where installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG, sample
from twin_checks import central

import srcad

torch = pytest.importorskip("torch")


def det_sin(a):
    return np.sum(np.sin(np.linalg.det(a)))


def det_plain(a):
    return np.sum(np.linalg.det(a))


def scipy_det(a):
    import scipy.linalg

    return scipy.linalg.det(a)


def det_real(a):
    return np.real(np.linalg.det(a))


def logdet(a):
    return np.linalg.slogdet(a)[1]


def norm2(x):
    return np.linalg.norm(x) + np.sum(np.linalg.norm(x.reshape(2, -1), axis=1))


def norm3(x):
    return np.linalg.norm(x, 3)


def norm_fro(m):
    return np.linalg.norm(m, "fro")


def hypot(x):
    return np.sum(np.hypot(x, 0.0 * x))


def _minors(a):
    """The cofactor matrix by minors (another computation than srcad's SVD)."""
    n = a.shape[-1]
    out = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


def _rank(n, r, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, r)) @ rng.normal(size=(r, n)) if r else np.zeros((n, n))


@pytest.mark.parametrize("n, r", sample([(3, 2), (4, 2), (3, 1), (4, 3), (2, 0)], 1))
def test_det_at_singular_matrices(n, r):
    a = _rank(n, r, 10 * n + r)
    got = srcad.grad(det_plain)(a)
    np.testing.assert_allclose(got, _minors(a), atol=1e-12, rtol=1e-10)
    np.testing.assert_allclose(got, central(det_plain, (a,), 0), atol=1e-7)
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.det(t).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), atol=1e-10)
    got = srcad.grad(det_sin)(a)  # through a function of det, and forward mode
    np.testing.assert_allclose(got, central(det_sin, (a,), 0), atol=1e-7)
    u = np.random.default_rng(r).normal(size=a.shape)
    _, tangent = srcad.jvp(det_sin, (a,), (u,))
    assert tangent == pytest.approx(float(np.sum(got * u)), abs=1e-12)


def test_det_where_pytorch_gives_zero():
    """An exactly singular matrix whose cofactors are not 0: PyTorch's backward gives 0."""
    a = np.array([[1.0, 2.0], [3.0, 6.0]])
    got = srcad.grad(det_plain)(a)
    np.testing.assert_allclose(got, [[6.0, -3.0], [-2.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(got, central(det_plain, (a,), 0), atol=1e-8)
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.det(t).backward()
    assert not np.allclose(t.grad.numpy(), got)  # (PyTorch: 0; if it is fixed, use it above)
    pytest.importorskip("scipy")
    np.testing.assert_allclose(srcad.grad(scipy_det)(a), got, atol=1e-12)  # the same rule


def test_det_batched_mixed_ranks_and_near_singular():
    a = np.stack([_rank(3, 3, 1), _rank(3, 2, 2), _rank(3, 1, 3),
                  _rank(3, 2, 4) + 1e-9 * np.eye(3)])
    got = srcad.grad(det_sin)(a)
    np.testing.assert_allclose(got, central(det_sin, (a,), 0), atol=1e-7)
    for k in range(3):
        np.testing.assert_allclose(got[k], np.cos(np.linalg.det(a[k])) * _minors(a[k]),
                                   atol=1e-12)


def test_det_second_derivative_at_a_singular_matrix():
    a = _rank(3, 2, 5)
    h = srcad.hessian(det_sin)(a).reshape(9, 9)
    grad = srcad.grad(det_sin)
    cols = [(grad(a + 1e-6 * e.reshape(3, 3)) - grad(a - 1e-6 * e.reshape(3, 3))) / 2e-6
            for e in np.eye(9)]
    np.testing.assert_allclose(h, np.stack(cols, axis=-1).reshape(9, 9), atol=1e-6)


@pytest.mark.skipif(not LONG, reason="SRCAD_LONG_PROPERTIES=1")
def test_det_second_and_third_derivatives_in_both_modes():
    for a in (_rank(3, 2, 5), _rank(3, 3, 6)):
        np.testing.assert_allclose(srcad.hessian(det_sin, mode="rev")(a),
                                   srcad.hessian(det_sin)(a), atol=1e-10)
    a, u, w = _rank(3, 3, 7), np.eye(3), np.ones((3, 3))

    def third(a):
        return np.sum(srcad.hvp(det_sin)(a, u) * w)

    np.testing.assert_allclose(srcad.grad(third)(a), central(third, (a,), 0), atol=1e-6)


def test_det_of_a_complex_singular_matrix():
    rng = np.random.default_rng(8)
    a = (rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))) @ (
        rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3)))
    got = srcad.grad(det_real)(a)  # srcad's convention (docs): d/dz, no conjugate
    np.testing.assert_allclose(got, _minors(a), atol=1e-10)
    regular = a + np.eye(3)  # as the formula before (det(a) inv(a)^T) gives off singular
    np.testing.assert_allclose(srcad.grad(det_real)(regular), np.linalg.det(regular) *
                               np.linalg.inv(regular).T, atol=1e-10)


def test_slogdet_at_a_singular_matrix_is_refused_at_its_line():
    a = _rank(3, 2, 9)
    a[2] = a[0] + a[1]  # exactly singular: slogdet's sign is 0
    if np.linalg.slogdet(a)[0] != 0:
        a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.grad(logdet)(a)
    assert info.value.lineno == logdet.__code__.co_firstlineno + 1, info.value
    assert "singular" in str(info.value) and "np.linalg.det" in info.value.hint
    b = _rank(3, 3, 11)
    np.testing.assert_allclose(srcad.grad(logdet)(b), np.linalg.inv(b).T, rtol=1e-10)


@pytest.mark.parametrize("f, x", [(norm2, np.array([0.0, 0.0, 3.0, 4.0])),
                                  (hypot, np.array([0.0, 1.0, -2.0]))])
def test_norm_and_hypot_at_zero_are_pytorchs(f, x):
    got = srcad.grad(f)(x)
    assert np.all(np.isfinite(got)), got
    t = torch.tensor(x, requires_grad=True)
    if f is norm2:
        out = torch.linalg.vector_norm(t) + torch.sum(torch.linalg.vector_norm(
            t.reshape(2, -1), dim=1))
    else:
        out = torch.sum(torch.abs(t))  # hypot(x, 0) = |x|: PyTorch's hypot gives nan at 0
    out.backward()
    np.testing.assert_allclose(got, t.grad.numpy(), atol=1e-12)
    assert np.all(srcad.grad(norm3)(np.zeros(3)) == 0.0)
    assert np.all(srcad.grad(norm_fro)(np.zeros((2, 2))) == 0.0)


def test_jax_agrees_on_det_where_installed():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    a = _rank(3, 2, 12)
    np.testing.assert_allclose(srcad.grad(det_plain)(a), np.asarray(jax.grad(jnp.linalg.det)(a)),
                               atol=1e-10)


def test_scipy_x_log_y_family_at_x_zero():
    """``xlogy(0, y)`` is 0 for every y (``xlog1py``, ``rel_entr`` too; ``kl_div(0, y)`` is
    ``y`` for y >= 0): the derivative in y is 0 (1) there, y = 0 included, where ``x / y`` was
    0 / 0 = nan. Against differences (one-sided where the function is only defined on one)."""
    special = pytest.importorskip("scipy.special")
    cases = [(special.xlogy, 0.0, 0.0), (special.xlog1py, -1.0, 0.0),
             (special.rel_entr, 0.0, 0.0), (special.kl_div, 0.0, 1.0)]
    for fn, y, want in cases:
        def f(y, fn=fn):
            return fn(0.0, y)

        got = srcad.grad(f)(y)
        assert got == want, (fn.__name__, got)
        assert (f(y + 1e-6) - f(y)) / 1e-6 == pytest.approx(want, abs=1e-9)
        assert srcad.grad(f)(y + 2.0) == pytest.approx(want, abs=1e-12)
