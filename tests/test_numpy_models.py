"""Small NumPy models, differentiated by srcad and compared with autograd, PyTorch and finite
differences.

Each model is plain NumPy code as a user would write it: logistic regression, a two-layer MLP
with a softmax cross-entropy loss, a recurrent network unrolled over 20 steps by a ``for``
loop (once keeping only the last state, once collecting every output in a list), and layer
normalisation. autograd runs the very same functions (their ``np`` is swapped for
``autograd.numpy``); the PyTorch versions are written out by hand. srcad must agree with both
to 1e-10 relative error, and with finite differences along random directions; their
Hessian-vector products (srcad.vjp of srcad.grad) must agree with autograd's.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

RTOL = 1e-10

# ---------------------------------------------------------------- the models


def logistic_loss(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def mlp_loss(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    shifted = logits - m
    log_z = np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * (shifted - log_z), axis=1))


def rnn_loss(Wx, Wh, b, Wy, xs, target):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h + b)
    y = Wy @ h
    return np.sum((y - target) ** 2)


def rnn_outputs_loss(Wx, Wh, b, Wy, xs, target):
    h = np.zeros(Wh.shape[0])
    outputs = []
    for t in range(len(xs)):
        h = np.tanh(np.dot(Wx, xs[t]) + np.dot(h, Wh.T) + b)
        outputs.append(Wy @ h)
    ys = np.stack(outputs)
    return np.mean((ys - target) ** 2)


def layer_norm_loss(x, gamma, beta, weights):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(np.tanh(y) * weights)


# ---------------------------------------------------------------- data


def _data(seed=0):
    rng = np.random.default_rng(seed)
    n, d, hidden, classes, steps = 16, 5, 7, 3, 20
    X = rng.normal(size=(n, d))
    labels = rng.integers(0, classes, size=n)
    return {
        "logistic": (logistic_loss, (0, 1), (
            rng.normal(size=d) * 0.5, 0.1, X, (rng.uniform(size=n) > 0.5).astype(float))),
        "mlp": (mlp_loss, (0, 1, 2, 3), (
            rng.normal(size=(d, hidden)) * 0.5, rng.normal(size=hidden) * 0.1,
            rng.normal(size=(hidden, classes)) * 0.5, rng.normal(size=classes) * 0.1,
            X, np.eye(classes)[labels])),
        "rnn": (rnn_loss, (0, 1, 2, 3), (
            rng.normal(size=(hidden, d)) * 0.4, rng.normal(size=(hidden, hidden)) * 0.3,
            rng.normal(size=hidden) * 0.1, rng.normal(size=(2, hidden)),
            rng.normal(size=(steps, d)), rng.normal(size=2))),
        "rnn-outputs": (rnn_outputs_loss, (0, 1, 2, 3), (
            rng.normal(size=(hidden, d)) * 0.4, rng.normal(size=(hidden, hidden)) * 0.3,
            rng.normal(size=hidden) * 0.1, rng.normal(size=(2, hidden)),
            rng.normal(size=(steps, d)), rng.normal(size=(steps, 2)))),
        "layer-norm": (layer_norm_loss, (0, 1, 2), (
            rng.normal(size=(4, 6)) * 2.0 + 1.0, 1.0 + 0.1 * rng.normal(size=6),
            0.1 * rng.normal(size=6), rng.normal(size=(4, 6)))),
    }


MODELS = _data()


def _srcad(name):
    f, wrt, args = MODELS[name]
    return srcad.grad(f, wrt=wrt)(*args)


# ---------------------------------------------------------------- autograd


def _with_autograd(f):
    """``f`` running on ``autograd.numpy``: the same code, another ``np``."""
    anp = pytest.importorskip("autograd.numpy")
    return types.FunctionType(f.__code__, {**f.__globals__, "np": anp}, f.__name__,
                              f.__defaults__, f.__closure__)


@pytest.mark.parametrize("name", list(MODELS))
def test_against_autograd(name):
    autograd = pytest.importorskip("autograd")
    f, wrt, args = MODELS[name]
    expected = autograd.grad(_with_autograd(f), wrt)(*args)
    for i, g, e in zip(wrt, _srcad(name), expected):
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=1e-14, err_msg=f"{name} arg {i}")


# ---------------------------------------------------------------- finite differences


@pytest.mark.parametrize("name", list(MODELS))
def test_against_finite_differences(name):
    f, wrt, args = MODELS[name]
    rng = np.random.default_rng(1)
    for i, g in zip(wrt, _srcad(name)):
        # along a random direction: one derivative per argument keeps this cheap
        v = rng.normal(size=np.shape(args[i]))

        def along(t, i=i, v=v):
            moved = list(args)
            moved[i] = args[i] + t * v
            return f(*moved)

        numeric = numerical_grad(along, (0.0,))
        assert np.sum(g * v) == pytest.approx(numeric, rel=1e-7, abs=1e-9), f"{name} arg {i}"


# ---------------------------------------------------------------- PyTorch


def _torch_models(torch):
    def logistic(w, b, X, y):
        p = torch.sigmoid(X @ w + b)
        return -torch.mean(y * torch.log(p) + (1.0 - y) * torch.log(1.0 - p))

    def mlp(W1, b1, W2, b2, X, Y):
        logits = torch.tanh(X @ W1 + b1) @ W2 + b2
        return -torch.mean(torch.sum(Y * torch.log_softmax(logits, dim=1), dim=1))

    def rnn(Wx, Wh, b, Wy, xs, target):
        h = torch.zeros(Wh.shape[0], dtype=torch.float64)
        for t in range(xs.shape[0]):
            h = torch.tanh(Wx @ xs[t] + Wh @ h + b)
        return torch.sum((Wy @ h - target) ** 2)

    def rnn_outputs(Wx, Wh, b, Wy, xs, target):
        h = torch.zeros(Wh.shape[0], dtype=torch.float64)
        outputs = []
        for t in range(xs.shape[0]):
            h = torch.tanh(Wx @ xs[t] + Wh @ h + b)
            outputs.append(Wy @ h)
        return torch.mean((torch.stack(outputs) - target) ** 2)

    def layer_norm(x, gamma, beta, weights):
        y = torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=1e-5)
        return torch.sum(torch.tanh(y) * weights)

    return {"logistic": logistic, "mlp": mlp, "rnn": rnn, "rnn-outputs": rnn_outputs,
            "layer-norm": layer_norm}


@pytest.mark.parametrize("name", list(MODELS))
def test_against_torch(name):
    torch = pytest.importorskip("torch")
    f, wrt, args = MODELS[name]
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=i in wrt)
               for i, a in enumerate(args)]
    value = _torch_models(torch)[name](*tensors)
    assert value.detach().item() == pytest.approx(f(*args), rel=1e-12)
    value.backward()
    for i, g in zip(wrt, _srcad(name)):
        np.testing.assert_allclose(g, tensors[i].grad.numpy(), rtol=RTOL, atol=1e-14,
                                   err_msg=f"{name} arg {i}")


def test_value_and_grad_of_a_model():
    f, wrt, args = MODELS["mlp"]
    value, grads = srcad.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-15)
    assert len(grads) == len(wrt)


def test_rnn_saves_one_state_per_step():
    """The RNN's backward sweep reads the states the loop overwrites: they go on a stack."""
    text = srcad.source(srcad.grad(rnn_loss, wrt=(0, 1, 2, 3)), *MODELS["rnn"][2])
    # walked from the end, or popped as the backward loop walks it (backend/free_early.py)
    assert ".append(" in text and ("in reversed(stack):" in text or "stack.pop()" in text)


@pytest.mark.parametrize("name", ["mlp", "layer-norm", "rnn"])
def test_hessian_vector_product_against_autograd(name):
    """Second derivatives: srcad.vjp of srcad.grad is the Hessian-vector product."""
    autograd = pytest.importorskip("autograd")
    f, wrt, args = MODELS[name]
    u = np.random.default_rng(2).normal(size=np.shape(args[0]))
    _, pullback = srcad.vjp(srcad.grad(f, wrt=0), *args, wrt=wrt)
    got = pullback(u)
    f_ag = _with_autograd(f)
    grad0 = autograd.grad(f_ag, 0)
    anp = pytest.importorskip("autograd.numpy")

    def along_u(*xs):
        return anp.sum(grad0(*xs) * u)

    expected = autograd.grad(along_u, wrt)(*args)
    for i, h, e in zip(wrt, got, expected):
        assert np.shape(h) == np.shape(args[i])
        np.testing.assert_allclose(h, e, rtol=1e-9, atol=1e-12, err_msg=f"{name} arg {i}")
