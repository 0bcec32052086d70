"""autograd's names in srcad, so code written for autograd runs with its imports pointed here:
``argnum=`` (and JAX's ``argnums=``) for ``wrt``, ``elementwise_grad``,
``hessian_vector_product``, ``srcad.misc`` (``flatten``, ``flatten_func``, the optimisers) and
``srcad.test_util.check_grads``. Each against autograd's own, and finite differences.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.misc import flatten, flatten_func
from srcad.misc.optimizers import adam, rmsprop, sgd
from srcad.test_util import check_grads

autograd = pytest.importorskip("autograd")
anp = autograd.numpy
ag_misc = pytest.importorskip("autograd.misc")
ag_optimizers = pytest.importorskip("autograd.misc.optimizers")


def f(x, y):
    return np.sum(np.sin(x) * y**2) + np.sum(x * x) * y[0]


def ag_f(x, y):
    return anp.sum(anp.sin(x) * y**2) + anp.sum(x * x) * y[0]


X, Y = np.array([0.3, -1.2, 0.8]), np.array([1.5, 0.4, -0.7])


@pytest.mark.parametrize("spell", ["argnum", "argnums"])
@pytest.mark.parametrize("which", [0, 1, (0, 1), [1, 0]])
def test_argnum_and_argnums_name_wrt(spell, which):
    ours = srcad.grad(f, **{spell: which})(X, Y)
    theirs = autograd.grad(ag_f, tuple(which) if isinstance(which, list) else which)(X, Y)
    for a, b in zip(ours if isinstance(which, (tuple, list)) else [ours],
                    theirs if isinstance(which, (tuple, list)) else [theirs]):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    value, grads = srcad.value_and_grad(f, **{spell: which})(X, Y)
    assert value == pytest.approx(f(X, Y), rel=1e-15)
    np.testing.assert_allclose(np.concatenate([np.ravel(g) for g in np.atleast_1d(grads)])
                               if not isinstance(which, (tuple, list)) else
                               np.concatenate(grads),
                               np.concatenate([np.ravel(g) for g in (
                                   ours if isinstance(which, (tuple, list)) else [ours])]))


@pytest.mark.parametrize("spell", ["argnum", "argnums"])
def test_jacobian_and_hessian_take_the_names_too(spell):
    np.testing.assert_allclose(srcad.hessian(f, **{spell: 1})(X, Y),
                               autograd.hessian(ag_f, 1)(X, Y), rtol=1e-12)
    np.testing.assert_allclose(srcad.jacobian(np.sin, **{spell: 0})(X), np.diag(np.cos(X)))
    with pytest.raises(TypeError, match="not more than one"):
        srcad.grad(f, wrt=1, **{spell: 0})


def uses_a_gradient_inside(y):
    g = srcad.grad(f, argnums=1)
    return np.sum(g(X, y) ** 2)


def test_argnums_inside_differentiated_code():
    np.testing.assert_allclose(srcad.grad(uses_a_gradient_inside)(Y),
                               numerical_grad(uses_a_gradient_inside, (Y,), 0), rtol=1e-6)


def softplus(x):
    return np.log1p(np.exp(x)) * 2.0


@pytest.mark.parametrize("x", [np.linspace(-2, 2, 5), np.array([[0.3, -0.1], [1.0, 2.0]])])
def test_elementwise_grad(x):
    ours = srcad.elementwise_grad(softplus)(x)
    theirs = autograd.elementwise_grad(lambda v: anp.log1p(anp.exp(v)) * 2.0)(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert srcad.elementwise_grad(softplus)(0.5) == pytest.approx(
        numerical_grad(softplus, (0.5,), 0), rel=1e-7)


def test_hessian_vector_product():
    v = np.array([0.2, -1.0, 0.5])
    np.testing.assert_allclose(srcad.hessian_vector_product(f)(X, Y, v),
                               autograd.hessian_vector_product(ag_f)(X, Y, v), rtol=1e-12)
    np.testing.assert_allclose(srcad.hessian_vector_product(f, argnum=1)(X, Y, v),
                               autograd.hessian_vector_product(ag_f, 1)(X, Y, v), rtol=1e-12)


PARAMS = {"w": np.array([[0.5, -0.2], [0.1, 0.3]]), "b": [np.array([0.1, 0.2]), 0.3]}


def flat_objective(vector, unflatten):
    p = unflatten(vector)
    h = np.tanh(p["w"] @ np.array([1.0, -2.0]) + p["b"][0])
    return np.sum(h**2) * p["b"][1]


def test_flatten_round_trip_and_gradient_through_unflatten():
    vector, unflatten = flatten(PARAMS)
    ag_vector, ag_unflatten = ag_misc.flatten(PARAMS)
    np.testing.assert_array_equal(np.sort(vector), np.sort(ag_vector))
    back = unflatten(vector)
    np.testing.assert_array_equal(back["w"], PARAMS["w"])
    assert back["b"][1] == PARAMS["b"][1]
    grad = srcad.grad(flat_objective)(vector, unflatten)
    np.testing.assert_allclose(grad, numerical_grad(flat_objective, (vector, unflatten), 0),
                               rtol=1e-6, atol=1e-9)


def tree_objective(p):
    return np.array([np.sum(p["w"] ** 2), p["b"][1] ** 3])


def test_flatten_func():
    flat_func, unflatten, vector = flatten_func(tree_objective, PARAMS)
    np.testing.assert_allclose(flat_func(vector), [np.sum(PARAMS["w"] ** 2), 0.3**3])
    assert unflatten(vector)["b"][1] == 0.3


def quadratic(p, i):
    return np.sum((p["w"] - 1.0) ** 2) + (p["b"][1] + 0.5) ** 2 + np.sum(p["b"][0] ** 2) * 0.1


def ag_quadratic(p, i):
    return (anp.sum((p["w"] - 1.0) ** 2) + (p["b"][1] + 0.5) ** 2
            + anp.sum(p["b"][0] ** 2) * 0.1)


@pytest.mark.parametrize("name", ["adam", "sgd", "rmsprop"])
def test_optimisers_follow_autograds(name):
    ours = {"adam": adam, "sgd": sgd, "rmsprop": rmsprop}[name]
    theirs = getattr(ag_optimizers, name)
    seen = []
    got = ours(srcad.grad(quadratic), PARAMS, callback=lambda x, i, g: seen.append(i),
               num_iters=25, step_size=0.05)
    expected = theirs(autograd.grad(ag_quadratic), PARAMS, num_iters=25, step_size=0.05)
    assert seen == list(range(25))
    np.testing.assert_allclose(got["w"], expected["w"], rtol=1e-12)
    np.testing.assert_allclose(got["b"][0], expected["b"][0], rtol=1e-12)
    assert got["b"][1] == pytest.approx(expected["b"][1], rel=1e-12)
    assert quadratic(got, 0) < quadratic(PARAMS, 0)


def test_check_grads_as_autograd_calls_it():
    check_grads(f, modes=["rev"])(X, Y)
    check_grads(softplus, order=1)(0.4)


@pytest.mark.parametrize("argnum", [0, 1])
def test_make_vjp_and_make_jvp(argnum):
    pullback, value = srcad.make_vjp(f, argnum)(X, Y)
    ag_pullback, ag_value = autograd.make_vjp(ag_f, argnum)(X, Y)
    assert value == pytest.approx(ag_value, rel=1e-15)
    np.testing.assert_allclose(pullback(1.5), ag_pullback(1.5), rtol=1e-12)
    v = np.array([0.3, -0.2, 1.0])
    value, tangent = srcad.make_jvp(f, argnum=argnum)(X, Y)(v)
    ag_value, ag_tangent = autograd.make_jvp(ag_f, argnum)(X, Y)(v)
    assert value == pytest.approx(ag_value, rel=1e-15)
    assert tangent == pytest.approx(ag_tangent, rel=1e-12)
