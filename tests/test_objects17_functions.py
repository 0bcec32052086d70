"""Fields holding functions, called in a loop (issue 16, objects17).

``self.act = act`` (given to ``__init__`` or its default), ``self.act = np.tanh``,
``self.fns = [np.sin, np.cos]`` called by index in a loop, a dataclass field of function
type (given or its default): then ``for ...: h = self.act(h @ W)`` in a method. Refused
before ("calling the local value 'self_act', a parameter whose function srcad does not
know"); the field's local is now bound to the function where the object is built
(:mod:`srcad.frontend.function_fields`), and the method's copy is made for it. A generated
family checked in grad, value_and_grad, jvp, vjp and Hessians in both modes against central
finite differences and autograd; refusals: a function the construction does not name.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from class_families import fd, module_of

import srcad
from srcad.errors import SrcadError

CLASSES = '''
from dataclasses import dataclass
from typing import Callable

import numpy as np


def softplus(z):
    return np.log(1.0 + np.exp(z))


class MLP:
    def __init__(self, W, act=np.tanh, depth=3):
        self.W = W * 1.0
        self.act = act
        self.depth = depth

    def __call__(self, x):
        h = x
        for _ in range(self.depth):
            h = self.act(h @ self.W)
        return h

    def loss(self, x):
        return np.sum(self(x) ** 2)


class Fixed:
    def __init__(self, W):
        self.W = W + 0.0
        self.act = np.sin
        self.fns = [np.sin, np.cos, softplus]
        self.pair = (np.tanh, softplus)

    def by_index(self, x):
        for i in range(3):
            x = self.fns[i](self.act(x @ self.W))
        return np.sum(x)

    def over_tuple(self, x):
        for f in self.pair:
            x = f(x @ self.W)
        return np.sum(x)


@dataclass
class DC:
    W: object
    act: Callable = np.tanh

    def __call__(self, x):
        for _ in range(2):
            x = self.act(x @ self.W)
        return np.sum(x)


class Cell:
    """An RNN cell as people write it."""

    def __init__(self, Wx, Wh, nonlin=np.tanh):
        self.Wx = Wx
        self.Wh = Wh * 0.5
        self.nonlin = nonlin

    def step(self, h, x):
        return self.nonlin(x @ self.Wx + h @ self.Wh)

    def run(self, xs):
        h = np.zeros(3)
        for x in xs:
            h = self.step(h, x)
        return np.sum(h)
'''

#: bodies of f(w, b, x): w an array (3, 3), b a number, x an array of 3
BODIES = {
    "default": "m = MLP(w * b)\n    return np.sum(m(x))",
    "positional": "m = MLP(w, np.sin)\n    return m.loss(x) * b",
    "keyword": "m = MLP(w * b, act=np.cos, depth=2)\n    return np.sum(m(x))",
    "user_function": "m = MLP(w, softplus)\n    return np.sum(m(x)) * b",
    "two_objects": "m = MLP(w, np.sin)\n    n = MLP(w.T * b)\n"
                   "    return np.sum(m(x) * n(x))",
    "constant_field_and_list": "o = Fixed(w * b)\n    return o.by_index(x)",
    "tuple_iterated": "o = Fixed(w)\n    return o.over_tuple(x) * b",
    "dataclass_given": "d = DC(w * b, np.sin)\n    return d(x)",
    "dataclass_default": "d = DC(w * b)\n    return d(x)",
    "rnn_cell": "c = Cell(w, w.T * b)\n    return c.run([x, x * 2.0, -x])",
    "rnn_cell_given": "c = Cell(w, w.T, nonlin=softplus)\n    return c.run([x, x * b])",
    "built_in_a_loop": "s = 0.0\n    for k in range(2):\n        m = MLP(w * (k + b), np.sin)\n"
                       "        s = s + m.loss(x)\n    return s",
}


def _module(tmp_path, stem, body, numpy="numpy"):
    return module_of(tmp_path, CLASSES, stem, body, numpy)


W = np.array([[0.3, -0.6, 0.9], [0.2, 0.5, -0.4], [-0.7, 0.1, 0.3]])
B = 0.7
X = np.array([0.4, -0.7, 1.1])


def _fd(f, x, h=1e-6):
    return fd(f, x, h)


def _modules(tmp_path, name):
    text = f"\n\ndef f(w, b, x):\n    {BODIES[name]}\n"
    return _module(tmp_path, f"of_{name}", text), _module(tmp_path, f"ofa_{name}", text,
                                                           "autograd.numpy")


@pytest.mark.parametrize("name", list(BODIES))
def test_gradients(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    value, (gw, gb) = srcad.value_and_grad(m.f, wrt=(0, 1))(W.copy(), B, X.copy())
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    np.testing.assert_allclose(gw, _fd(lambda w: m.f(w, B, X), W), rtol=1e-5, atol=1e-7)
    assert float(gb) == pytest.approx(float(_fd(lambda b: m.f(W, b, X), B)), rel=1e-5,
                                      abs=1e-7)
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), B, anp.array(X))
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    assert float(gb) == pytest.approx(float(ab), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("name", list(BODIES))
def test_forward_mode_and_pullback(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    u, t = np.linspace(-1.0, 1.0, 9).reshape(3, 3), 0.3
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), B, anp.array(X))
    value, tangent = srcad.jvp(m.f, (W.copy(), B, X.copy()), (u, t), wrt=(0, 1))
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(aw * u) + ab * t), rel=1e-9, abs=1e-12)
    value, pullback = srcad.vjp(m.f, W.copy(), B, X.copy(), wrt=(0, 1))
    pw, pb = pullback(2.0)
    np.testing.assert_allclose(pw, 2.0 * aw, rtol=1e-10, atol=1e-12)
    assert float(pb) == pytest.approx(2.0 * float(ab), rel=1e-10, abs=1e-12)


HESSIANS = ["default", "keyword", "constant_field_and_list", "dataclass_default", "rnn_cell"]


@pytest.mark.parametrize("name", HESSIANS)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_both_modes(tmp_path, name, mode):
    m, ma = _modules(tmp_path, name)
    want = autograd.hessian(ma.f, 2)(anp.array(W), B, anp.array(X))
    got = srcad.hessian(m.f, wrt=2, mode=mode)(W.copy(), B, X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    fd = _fd(lambda x: srcad.grad(m.f, wrt=2)(W, B, x), X)
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_a_function_given_to_the_function_differentiated(tmp_path):
    """``MLP(w, act)`` with ``act`` a parameter given a function: the code is made for it
    (a new function, new code)."""
    text = "\n\ndef g(w, b, x, act):\n    return np.sum(MLP(w * b, act)(x))\n"
    m = _module(tmp_path, "of_passed", text)
    ma = _module(tmp_path, "ofa_passed", text, "autograd.numpy")
    for act, aact in ((np.sin, anp.sin), (np.cos, anp.cos), (m.softplus, ma.softplus)):
        got = srcad.grad(m.g)(W.copy(), B, X.copy(), act)
        want = autograd.grad(ma.g)(anp.array(W), B, anp.array(X), aact)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, _fd(lambda w, act=act: m.g(w, B, X, act), W),
                                   rtol=1e-5, atol=1e-7)


REFUSED = {
    "chosen_at_run_time": ("act = np.sin if b > 0 else np.cos\n    m = MLP(w, act)\n"
                           "    return np.sum(m(x))", "h = self.act(h @ self.W)"),
    "lambda": ("m = MLP(w, lambda z: z * b)\n    return np.sum(m(x))",
               "h = self.act(h @ self.W)"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused(tmp_path, name):
    body, line = REFUSED[name]
    m = _module(tmp_path, f"of_bad_{name}", f"\n\ndef f(w, b, x):\n    {body}\n")
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.f, wrt=0)(W.copy(), B, X.copy())
    assert info.value.construct.strip() == line
    assert "pass the function" in info.value.hint


def test_a_global_function_rebound_makes_new_code(tmp_path):
    """The function a list's items hold, named by a global in ``__init__``, is read again
    when the global is rebound (never the old function's derivative)."""
    text = '''

ACT = np.tanh


class Item:
    def __init__(self, W, act=np.tanh):
        self.W, self.act = W * 1.0, act

    def __call__(self, x):
        return self.act(x @ self.W)


class Items:
    def __init__(self, Ws):
        self.items = [Item(W, act=ACT) for W in Ws]

    def __call__(self, x):
        for item in self.items:
            x = item(x)
        return np.sum(x)


def g(w, x):
    return Items([w, w.T])(x)
'''
    m = _module(tmp_path, "of_rebound", text)
    for act in (np.tanh, np.sin, m.softplus):
        m.ACT = act
        got = srcad.grad(m.g)(W.copy(), X.copy())
        np.testing.assert_allclose(got, _fd(lambda w: m.g(w, X), W), rtol=1e-5, atol=1e-7)
