"""Plain classes holding a list of objects built in ``__init__`` (issue 16, objects17).

``self.layers = [Layer(W, b) for W, b in zip(Ws, bs)]`` (or ``self.layers = []`` then
``self.layers.append(Layer(...))``) in ``__init__``, then ``for layer in self.layers: x =
layer(x)`` in a method: a small network class written the usual way. It was refused
("calling a function taken from a container made from differentiated values"); the list is
now a field per item field (:mod:`srcad.frontend.plain_lists`), exact. A generated family of
such classes (items a plain class built as a dataclass, one built by its ``__init__``, a
dataclass, a named tuple; the list built by a comprehension, by appends in a loop, in a
branch of the loop; other fields beside it; a subclass) x uses (iterated, indexed, reversed,
enumerated, zipped, a constant slice, ``len``, a comprehension, through ``__call__``, a
method, a property, a helper taking the network, two networks), each checked in grad,
value_and_grad, jvp and vjp, and Hessians in both modes on a sample, against central finite
differences and autograd (the same classes under ``autograd.numpy``); the weights also come
through a ``wrt`` dataclass. Refusals: the list changed or handed on in a method.
"""

from __future__ import annotations

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError, UnsupportedSyntaxError

CLASSES = '''
from collections import namedtuple
from dataclasses import dataclass

import numpy as np


class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Dense:
    """Built by its __init__ (a field computed)."""

    def __init__(self, W, b, gain=1.0):
        self.W = W * gain
        self.b = b
        self.n = 3

    def forward(self, x):
        return np.sin(x @ self.W) + self.b

    @property
    def norm(self):
        return np.sum(self.W ** 2)


@dataclass
class DLayer:
    W: object
    b: object

    def __call__(self, x):
        return np.cos(x @ self.W) * self.b


NT = namedtuple("NT", ["W", "b"])


class Net:
    def __init__(self, Ws, bs):
        self.layers = [Layer(W, b) for W, b in zip(Ws, bs)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class AppendNet:
    def __init__(self, Ws, bs, scale=2.0):
        self.scale = scale
        self.layers = []
        for i in range(len(Ws)):
            self.layers.append(Dense(Ws[i], bs[i], gain=scale))
        self.out = np.sum(bs[0])

    def forward(self, x):
        h = x
        for layer in self.layers:
            h = layer.forward(h)
        return np.sum(h) * self.scale + self.out

    def first_last(self, x):
        return np.sum(self.layers[0].forward(x) * self.layers[-1].forward(x))

    def reversed_pass(self, x):
        for layer in reversed(self.layers):
            x = layer.forward(x)
        return np.sum(x)

    def enumerated(self, x):
        s = 0.0
        for i, layer in enumerate(self.layers):
            s = s + (i + 1.0) * np.sum(layer.forward(x))
        return s

    @property
    def penalty(self):
        s = 0.0
        for layer in self.layers:
            s = s + layer.norm
        return s / len(self.layers)


class CondNet:
    def __init__(self, Ws, bs):
        self.layers = []
        for W, b in zip(Ws, bs):
            if np.sum(b) > -10.0:
                self.layers.append(DLayer(W, b))

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def head(self, x):
        s = np.sum(self.layers[1](x))
        for l in self.layers[:1]:
            s = s + np.sum(l.b)
        return s


class TupleNet:
    def __init__(self, Ws, bs):
        self.items = [NT(W * 0.5, b) for W, b in zip(Ws, bs)]
        self.k = len(Ws)

    def __call__(self, x):
        for item in self.items:
            x = np.tanh(x @ item.W) + item.b
        return np.sum(x) / self.k


class Sub(Net):
    def score(self, x, ys):
        s = 0.0
        for layer, y in zip(self.layers, ys):
            x = layer(x)
            s = s + np.sum((x - y) ** 2)
        return s


def run(net, x):
    return np.sum(net(x) ** 2)
'''

#: bodies of f(w, b, x): w an array (3, 3), b an array of 3, x an array of 3
BODIES = {
    "comprehension_call": "net = Net([w, w * w, np.sin(w)], [b, -b, b * b])\n"
                          "    return np.sum(net(x))",
    "comprehension_passed_on": "net = Net([w, w.T], [b, b])\n    return run(net, x)",
    "appends_method": "net = AppendNet([w, 0.5 * w], [b, b * 2.0])\n"
                      "    return net.forward(x)",
    "appends_indexed": "net = AppendNet([w, w.T, w], [b, -b, b], scale=0.5)\n"
                       "    return net.first_last(x)",
    "appends_reversed": "net = AppendNet([w, w * 0.3], [b, b])\n    return net.reversed_pass(x)",
    "appends_enumerated": "net = AppendNet([w, w * 0.3], [b, b])\n    return net.enumerated(x)",
    "appends_property": "net = AppendNet([w, w * 0.3], [b, b])\n"
                        "    return net.penalty + net.forward(x)",
    "dataclass_items_in_a_branch": "net = CondNet([w, w.T], [b, np.cos(b)])\n"
                                   "    return np.sum(net(x)) + net.head(x)",
    "named_tuple_items": "net = TupleNet([w, w * w], [b, b])\n    return net(x)",
    "subclass": "net = Sub([w, w * 2.0], [b, -b])\n    return net.score(x, [x, x * 2.0])",
    "two_networks": "a = Net([w], [b])\n    c = Net([w.T, w], [b * 2.0, b])\n"
                    "    return np.sum(a(x) * c(x))",
    "built_in_a_loop": "s = 0.0\n    for k in range(2):\n"
                       "        net = Net([w * (k + 1.0), w], [b, b])\n"
                       "        s = s + np.sum(net(x))\n    return s",
}


def _module(tmp_path, stem, body, numpy="numpy"):
    text = CLASSES.replace("import numpy as np", f"import {numpy} as np") + body
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


W = np.array([[0.3, -0.6, 0.9], [0.2, 0.5, -0.4], [-0.7, 0.1, 0.3]])
B = np.array([0.7, -0.2, 0.4])
X = np.array([0.4, -0.7, 1.1])


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    cols = []
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.moveaxis(np.array(cols), 0, -1).reshape(np.shape(cols[0]) + x.shape)


def _modules(tmp_path, name):
    text = f"\n\ndef f(w, b, x):\n    {BODIES[name]}\n"
    return _module(tmp_path, f"ol_{name}", text), _module(tmp_path, f"ola_{name}", text,
                                                           "autograd.numpy")


@pytest.mark.parametrize("name", list(BODIES))
def test_gradients(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    value, (gw, gb) = srcad.value_and_grad(m.f, wrt=(0, 1))(W.copy(), B.copy(), X.copy())
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    np.testing.assert_allclose(gw, _fd(lambda w: m.f(w, B, X), W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gb, _fd(lambda b: m.f(W, b, X), B), rtol=1e-5, atol=1e-7)
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), anp.array(B), anp.array(X))
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb, ab, rtol=1e-10, atol=1e-12)
    gx = srcad.grad(m.f, wrt=2)(W.copy(), B.copy(), X.copy())
    np.testing.assert_allclose(gx, autograd.grad(ma.f, 2)(anp.array(W), anp.array(B),
                                                          anp.array(X)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(BODIES))
def test_forward_mode_and_pullback(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    u, t = np.linspace(-1.0, 1.0, 9).reshape(3, 3), np.array([0.3, -0.1, 0.2])
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), anp.array(B), anp.array(X))
    value, tangent = srcad.jvp(m.f, (W.copy(), B.copy(), X.copy()), (u, t), wrt=(0, 1))
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(aw * u) + ab @ t), rel=1e-9, abs=1e-12)
    value, pullback = srcad.vjp(m.f, W.copy(), B.copy(), X.copy(), wrt=(0, 1))
    pw, pb = pullback(2.0)
    np.testing.assert_allclose(pw, 2.0 * aw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pb, 2.0 * ab, rtol=1e-10, atol=1e-12)


HESSIANS = ["comprehension_call", "appends_method", "appends_indexed",
            "dataclass_items_in_a_branch", "named_tuple_items", "subclass"]


@pytest.mark.parametrize("name", HESSIANS)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_both_modes(tmp_path, name, mode):
    m, ma = _modules(tmp_path, name)
    want = autograd.hessian(ma.f, 1)(anp.array(W), anp.array(B), anp.array(X))
    got = srcad.hessian(m.f, wrt=1, mode=mode)(W.copy(), B.copy(), X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    fd = _fd(lambda b: srcad.grad(m.f, wrt=1)(W, b, X), B)
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)
