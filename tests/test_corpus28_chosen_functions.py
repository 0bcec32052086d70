"""Round 28: a function of the user's choosing a function by a constant argument, its result
called in differentiated code (``act("tanh")(z)``; ``h = act(name)`` with the name written
in the call): an ``if`` chain returning lambdas and NumPy functions, a dict display indexed
by the name, a global dict of functions, a nested ``def`` reading the chooser's parameter,
a method (``self.act("tanh")``: ``self``, never read, need not be known).
Refused before ("calling ..., a function that act(...) returned": closure conversion takes
only paths that all return a ``def`` or lambda of the same parameters). The chooser computes
nothing (no call), so the call is made when the code is made
(:mod:`srcad.frontend.chosen_functions`), its free names guarded. Checked against central
differences and autograd (the same choices written with autograd.numpy).
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.tools.check import numerical_grad
from tests.sampling import LONG, sample


def identity(z):
    return z


def softplus(z):
    return np.log1p(np.exp(z))


ACTS = {"softplus": softplus, "id": identity, "sin": np.sin}


def by_chain(name):
    if name == "relu":
        return lambda z: np.maximum(z, 0.0)
    elif name is None or name == "tanh":
        return np.tanh
    return lambda z: z * 0.5


def by_display(name):
    return {"tanh": np.tanh, "square": lambda z: z ** 2, "softplus": softplus}[name]


def by_global(name, fallback="id"):
    return ACTS[name] if name in ACTS else ACTS[fallback]


def by_def(name, scale=2.0):
    if name not in ("scaled", "cubed"):
        return identity

    def scaled(z):
        return scale * np.sin(z) if name == "scaled" else scale * z ** 3
    return scaled


class Layer:  # a method choosing (self never read: the call is made early all the same)
    def act(self, name):
        return {"tanh": np.tanh, "sin": np.sin}[name]

    def __call__(self, W, x):
        return self.act("tanh")(x @ W)


def net_method(W, x):
    layer = Layer()
    return np.sum(layer(W, x) * layer.act("sin")(W[0]))


def net_chain(W, x):
    h = by_chain("tanh")(x @ W)
    return np.sum(by_chain("relu")(h) + by_chain("half")(h) + by_chain(None)(h) ** 2)


def net_display(W, x):
    act = by_display("softplus")
    return np.sum(act(x @ W) * by_display("square")(W[0]) + by_display("tanh")(W[1]))


def net_global(W, x):
    h = by_global("softplus")(x @ W)
    return np.sum(by_global("sin")(h) + by_global("none", fallback="id")(h))


def net_def(W, x):
    total = 0.0
    for k in range(2):
        total = total + np.sum(by_def("scaled", scale=1.5)(x @ W) * by_def("cubed")(W[k]))
    return total + np.sum(by_def("other")(W))


def _sp(z):
    return anp.log1p(anp.exp(z))


REFERENCES = {
    "net_chain": lambda W, x: anp.sum(anp.maximum(anp.tanh(x @ W), 0.0) + anp.tanh(x @ W) * 0.5
                                      + anp.tanh(anp.tanh(x @ W)) ** 2),
    "net_display": lambda W, x: anp.sum(_sp(x @ W) * W[0] ** 2 + anp.tanh(W[1])),
    "net_global": lambda W, x: anp.sum(anp.sin(_sp(x @ W)) + _sp(x @ W)),
    "net_method": lambda W, x: anp.sum(anp.tanh(x @ W) * anp.sin(W[0])),
    "net_def": lambda W, x: sum(anp.sum(1.5 * anp.sin(x @ W) * 2.0 * W[k] ** 3)
                                for k in range(2)) + anp.sum(W),
}
FORMS = [net_chain, net_display, net_global, net_def, net_method]
CASES = [(f, wrt) for f in FORMS for wrt in (0, 1)]


def inputs(wrt):
    rs = np.random.RandomState(wrt)
    return rs.randn(3, 3) * 0.5, rs.randn(2, 3)


@pytest.mark.parametrize("form, wrt", sample(CASES, 3),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_chosen_against_differences_and_autograd(form, wrt):
    args = inputs(wrt)
    got = srcad.grad(form, wrt=wrt)(*args)
    assert np.allclose(got, numerical_grad(form, args, wrt=wrt), rtol=1e-5, atol=1e-6)
    assert np.allclose(got, autograd.grad(REFERENCES[form.__name__], wrt)(*args), rtol=1e-9,
                       atol=1e-12)


@pytest.mark.skipif(not LONG, reason="second order: the long run")
@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_chosen_hessian_and_jvp_against_autograd(form):
    W, x = inputs(0)
    ref = REFERENCES[form.__name__]
    v = np.ones_like(W)
    assert np.allclose(srcad.jvp(form, (W, x), (v, np.zeros_like(x)))[1],
                       np.sum(autograd.grad(ref)(W, x) * v), rtol=1e-9, atol=1e-12)
    assert np.allclose(srcad.hvp(form, wrt=0)(W, x, v),
                       autograd.hessian_vector_product(ref)(W, x, v), rtol=1e-8, atol=1e-10)


def test_changed_choices_make_the_code_again():
    W, x = inputs(1)
    before = srcad.grad(net_global)(W, x)
    ACTS["sin"] = np.cos
    try:
        after = srcad.grad(net_global)(W, x)
        assert np.allclose(after, numerical_grad(net_global, (W, x), wrt=0), rtol=1e-5,
                           atol=1e-6)
        assert not np.allclose(after, before)
    finally:
        ACTS["sin"] = np.sin


def computing(name):  # a call in the chooser: not made early (it could differ when it runs)
    print("choosing", name)
    return np.tanh if name == "tanh" else np.sin


def given(W, x, name):
    return np.sum(by_chain(name)(x @ W))


@pytest.mark.parametrize("case", ["computing", "given"])
def test_choices_srcad_cannot_make_early_stay_refused(case):
    W, x = inputs(0)
    if case == "computing":
        with pytest.raises(SrcadError, match="returned"):
            srcad.grad(lambda W, x: np.sum(computing("tanh")(x @ W)))(W, x)
    else:
        with pytest.raises(SrcadError, match="returned"):
            srcad.grad(given)(W, x, "tanh")


MODE = "tanh"


def by_global_name(x):
    return np.sum(by_chain(MODE)(x) * x)


def test_a_global_name_given_is_read_when_the_code_runs():
    """``by_chain(MODE)`` with ``MODE`` a global (not a constant written in the call): the
    generated code reads ``MODE`` when it runs, so the choice is not made early; after
    ``MODE`` changes the value and gradient follow Python (the lead's merge: a global float
    passed to a maker, ``make(K)(x)``, kept K's old value on the branch)."""
    global MODE
    x = np.array([0.3, -0.7, 1.1])
    made = None
    try:
        for mode in ("tanh", "relu", "other"):
            MODE = mode
            try:
                made = made or srcad.value_and_grad(by_global_name)
                value, grad = made(x)
            except SrcadError:
                return  # refused: sound (the choice is not known when the code is made)
            assert value == pytest.approx(by_global_name(x), rel=1e-12)
            np.testing.assert_allclose(grad, numerical_grad(by_global_name, (x,), 0),
                                       rtol=1e-6, atol=1e-8)
    finally:
        MODE = "tanh"
