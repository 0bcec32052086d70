"""Jacobians and Hessians differentiated again or called inside differentiated code:
``srcad.jacobian(srcad.jacobian(f))``, ``jacfwd(jacrev(f))``, the Jacobian of a Hessian, and
``hessian``/``grad``/``jvp`` of code calling ``srcad.jacobian`` or ``srcad.hessian``.

srcad reads a Jacobian it made as a plain function computing it column by column with
``srcad.jvp`` (``srcad.nested.plain_jacobian``), whose calls it differentiates in both modes.
Checked against autograd's own nested ``jacobian``/``hessian`` and against central finite
differences, on a family of points.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def vf(x):
    return np.array([np.sin(x[0]) * x[1], x[0] ** 2 * np.exp(x[1]), x[0] * x[1] ** 3])


def ag_vf(x):
    return anp.array([anp.sin(x[0]) * x[1], x[0] ** 2 * anp.exp(x[1]), x[0] * x[1] ** 3])


def two(a, x):
    return np.tanh(a * x) * np.sum(x * x)


def ag_two(a, x):
    return anp.tanh(a * x) * anp.sum(x * x)


def sf(t):
    return np.sin(t) * t ** 3


def ag_sf(t):
    return anp.sin(t) * t ** 3


def scalar_loss(x):
    return np.sum(np.cos(x) * x) + x[0] * x[1] ** 2


def ag_scalar_loss(x):
    return anp.sum(anp.cos(x) * x) + x[0] * x[1] ** 2


def calls_jacobian(x):
    return np.sum(srcad.jacobian(vf)(x) ** 2)


def ag_calls_jacobian(x):
    return anp.sum(autograd.jacobian(ag_vf)(x) ** 2)


def calls_hessian(x):
    h = srcad.hessian(scalar_loss)(x)
    return np.sum(h * h) + h[0, 1]


def ag_calls_hessian(x):
    h = autograd.hessian(ag_scalar_loss)(x)
    return anp.sum(h * h) + h[0, 1]


POINTS = [np.array([0.3, 0.7]), np.array([-0.9, 0.4]), np.array([1.2, -0.5])]


@pytest.mark.parametrize("x", POINTS, ids=lambda x: str(x))
@pytest.mark.parametrize(("outer", "inner"), [(srcad.jacobian, srcad.jacobian),
                                              (srcad.jacfwd, srcad.jacrev),
                                              (srcad.jacrev, srcad.jacfwd)],
                         ids=["jac-jac", "fwd-rev", "rev-fwd"])
def test_jacobian_of_a_jacobian(x, outer, inner):
    got = outer(inner(vf))(x)
    want = autograd.jacobian(autograd.jacobian(ag_vf))(x)
    assert got.shape == (3, 2, 2)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("x", POINTS, ids=lambda x: str(x))
def test_jacobian_of_a_hessian(x):
    got = srcad.jacobian(srcad.hessian(scalar_loss))(x)
    want = autograd.jacobian(autograd.hessian(ag_scalar_loss))(x)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("t", [0.4, -1.3, 2.0])
def test_scalar_and_second_argument(t):
    assert srcad.jacobian(srcad.jacobian(sf))(t) == pytest.approx(
        autograd.grad(autograd.grad(ag_sf))(t), rel=1e-10)
    x = np.array([0.2, -0.6, 0.9])
    got = srcad.jacobian(srcad.jacobian(two, wrt=1), wrt=1)(t, x)
    want = autograd.jacobian(autograd.jacobian(ag_two, 1), 1)(t, x)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12)
    got = srcad.jacobian(srcad.jacobian(two, wrt=1), wrt=0)(t, x)
    want = autograd.jacobian(autograd.jacobian(ag_two, 1), 0)(t, x)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("x", POINTS, ids=lambda x: str(x))
@pytest.mark.parametrize(("f", "mirror"), [(calls_jacobian, ag_calls_jacobian),
                                           (calls_hessian, ag_calls_hessian)],
                         ids=["calls_jacobian", "calls_hessian"])
def test_code_calling_a_jacobian_or_hessian(f, mirror, x):
    assert f(x) == pytest.approx(mirror(x), rel=1e-12)
    g = srcad.grad(f)(x)
    assert np.allclose(g, autograd.grad(mirror)(x), rtol=1e-10, atol=1e-12)
    assert np.allclose(g, numerical_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    u = np.array([0.3, -1.1])
    tangent = srcad.jvp(f, (x,), (u,))[1]
    assert tangent == pytest.approx(float(np.dot(autograd.grad(mirror)(x), u)), rel=1e-10)
    assert np.allclose(srcad.hessian(f)(x), autograd.hessian(mirror)(x), rtol=1e-9,
                       atol=1e-11)


def pair_out(x):
    return np.sin(x), np.sum(x * x)


def test_a_jacobian_of_containers_differentiated_is_refused():
    """A Jacobian of a function returning a tuple is a tuple of Jacobians: srcad's reading of
    a Jacobian as stacked columns does not hold for it, so it is refused, not mis-shaped."""
    x = np.array([0.3, 0.7])
    with pytest.raises(srcad.SrcadError, match="not an array or a number") as info:
        srcad.jacobian(srcad.jacobian(pair_out))(x)
    assert info.value.filename == __file__ and "pair_out" in str(info.value)
