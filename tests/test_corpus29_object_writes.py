"""Round 29: an objective that gives an object new values before using it. A PINN's cost
(ingooboo/FYS-STK-Project-3) calls ``model.set_params(deep_params)`` then ``model(x)``;
ceviche's objectives set a simulation's permittivity through a property setter
(``f.eps_r = c * eps``) or in place (``F.eps_r *= eps``) before solving. Writing attributes is
refused by design (issue 16): the refusal now names the rewrite srcad follows, the object built
in the function from the new values (``Model(w)(x)``), and these tests check both: the
refusals, precise, at the line, and the rewrites, exact against central differences and
autograd.
"""

import autograd
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.tools.check import numerical_grad
from tests.sampling import sample

XS = np.array([0.3, -1.0, 2.0])


class Model:
    def __init__(self, w, b=0.0):
        self.w = w
        self.b = b

    def set_params(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x + self.b)


MODEL = Model(1.0)


def loss_set_params(w, x):  # the PINN's form
    MODEL.set_params(w)
    return np.sum(MODEL(x) ** 2)


class Sim:
    def __init__(self, eps):
        self.eps = eps

    @property
    def eps(self):
        return self._eps

    @eps.setter
    def eps(self, v):
        self._eps = v
        self.k = 2.0 * v

    def solve(self, s):
        return s / (1.0 + self.k)


SIM = Sim(1.0)


def loss_setter(c):  # ceviche's form
    SIM.eps = c * 3.0
    return np.sum(SIM.solve(XS) ** 2)


def loss_in_place(c):  # ceviche's autograd_fft
    MODEL.w *= c
    return np.sum(MODEL(XS) ** 2)


@pytest.mark.parametrize("loss, args, said", [
    (loss_set_params, (0.5, XS), "Model(w).method(x) rather than obj.set_params(w)"),
    (loss_setter, (0.7,), "C(v).method(x) rather than obj.eps = v"),
    (loss_in_place, (0.9,), "keep the new value in a name"),
], ids=["method", "setter", "in place"])
def test_writes_refused_with_the_rewrite(loss, args, said):
    with pytest.raises(SrcadError) as err:
        srcad.grad(loss)(*args)
    message = str(err.value)
    assert said in message
    assert "test_corpus29_object_writes.py" in message


# the rewrites: the object built in the function from the values it is given
class Layer:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, x):
        return self.act(self.w * x + self.b)

    def act(self, z):
        return np.tanh(z)


class SinLayer(Layer):
    def act(self, z):
        return np.sin(z)


class Sim2:  # Sim with its setter's work done in __init__
    def __init__(self, eps):
        self.eps = eps
        self.k = 2.0 * eps

    def solve(self, s):
        return s / (1.0 + self.k)


def rewrite_model(w, x):
    return np.sum(Model(w)(x) ** 2)


def rewrite_two(w, b, x):
    return np.sum(Model(w, b)(x) ** 2)


def rewrite_layer(w, b, x):
    return np.sum(Layer(w, b)(x) * x)


def rewrite_subclass(w, b, x):
    return np.sum(SinLayer(w, b)(x) ** 2)


def rewrite_sim(c):
    return np.sum(Sim2(c * 3.0).solve(XS) ** 2)


def rewrite_loop(w, x):  # a new object each step, as a training loop's set_params would
    total = 0.0
    for k in range(3):
        total = total + np.sum(Model(w * (k + 1))(x))
    return total


CASES = [
    ("Model(w)(x)", rewrite_model, (0.5, XS), 0),
    ("Model(w, b)(x), w", rewrite_two, (0.5, 0.2, XS), 0),
    ("Model(w, b)(x), b", rewrite_two, (0.5, 0.2, XS), 1),
    ("Layer(w, b)(x)", rewrite_layer, (0.5, -0.3, XS), 0),
    ("SinLayer(w, b)(x)", rewrite_subclass, (0.5, -0.3, XS), 1),
    ("Sim2(3c).solve(s)", rewrite_sim, (0.7,), 0),
    ("Model(w * k) in a loop", rewrite_loop, (0.4, XS), 0),
    ("Model(w)(x), x", rewrite_model, (0.5, XS), 1),
]


@pytest.mark.parametrize("case", sample(CASES, 2), ids=lambda c: c[0])
def test_rewrites_against_differences_and_autograd(case):
    _, loss, args, wrt = case
    got = srcad.grad(loss, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(loss, args, wrt=wrt), rtol=1e-5, atol=1e-7)
    assert np.allclose(got, autograd.grad(loss, wrt)(*args), rtol=1e-10, atol=1e-12)
