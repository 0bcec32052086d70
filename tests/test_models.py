"""Programs, not single functions: a params-dict MLP built from helpers, closures over
arrays, a Jacobian; each against autograd (and finite differences)."""

import numpy as np
import pytest
from model_cases import make_regulariser, mlp_loss, vector_function
from srcad.check import numerical_grad

import srcad


def _params(rng):
    return {"hidden_W": rng.normal(size=(5, 4)), "hidden_b": rng.normal(size=4),
            "out_W": rng.normal(size=(4, 3)), "out_b": rng.normal(size=3)}


def _data(rng):
    X = rng.normal(size=(6, 5))
    Y = np.eye(3)[rng.integers(0, 3, size=6)]
    return X, Y


def test_params_dict_mlp_matches_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    rng = np.random.default_rng(0)
    params, (X, Y) = _params(rng), _data(rng)
    ours = srcad.grad(mlp_loss)(params, X, Y)
    assert set(ours) == set(params)
    for key in params:
        assert ours[key].shape == params[key].shape

    def ag_loss(p, X, Y):
        h = anp.tanh(X @ p["hidden_W"] + p["hidden_b"])
        z = h @ p["out_W"] + p["out_b"]
        shifted = z - anp.max(z, axis=1, keepdims=True)
        logp = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
        return -anp.sum(Y * logp) / X.shape[0]

    theirs = autograd.grad(ag_loss)(params, X, Y)
    for key in params:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-10, atol=1e-12)


def test_params_dict_mlp_matches_finite_differences():
    rng = np.random.default_rng(1)
    params, (X, Y) = _params(rng), _data(rng)
    ours = srcad.grad(mlp_loss)(params, X, Y)
    W = params["out_W"]

    def loss_of_w(w):
        return mlp_loss({**params, "out_W": w}, X, Y)

    np.testing.assert_allclose(ours["out_W"], numerical_grad(loss_of_w, (W,), 0), rtol=1e-6)


def test_closure_over_an_array():
    weights = np.array([1.0, 2.0, 3.0])
    penalty = make_regulariser(weights)
    w = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(penalty)(w), 2 * weights * w)


def test_jacobian_of_a_vector_function_matches_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    x, w = np.array([0.3, 1.2]), 0.7

    def ag(x, w):
        return anp.array([x[0] * w, anp.sin(x[1]) * x[0], w * w + x[1]])

    expected = autograd.jacobian(ag)(x, w)
    for mode in ("rev", "fwd"):
        jac = srcad.jacobian(vector_function, wrt=0, mode=mode)(x, w)
        assert jac.shape == (3, 2)
        np.testing.assert_allclose(jac, expected, rtol=1e-12)
    jw = srcad.jacobian(vector_function, wrt=1)(x, w)
    np.testing.assert_allclose(jw, autograd.jacobian(ag, 1)(x, w), rtol=1e-12)


def test_vjp_with_structured_output_and_seed():
    def pair(x, w):
        return x * w, np.sin(x)

    value, pullback = srcad.vjp(pair, 0.5, 2.0)
    assert value == (1.0, np.sin(0.5))
    dx, dw = pullback((1.0, 3.0))
    assert dx == pytest.approx(2.0 + 3.0 * np.cos(0.5))
    assert dw == pytest.approx(0.5)
