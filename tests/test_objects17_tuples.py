"""A tuple of objects returned by a function of the user's (issue 16, objects17).

``enc, dec = make_model(w)`` with ``return Encoder(w1), Decoder(w2)``, then their methods
called, was refused (a single returned object was followed: returned_records). The call is
now a copy of ``make_model`` returning every object's fields, in the tuple's order
(:func:`srcad.frontend.returned_records.unpack_returned`), each object then read field by
field. A generated family (plain classes built as dataclasses and by their ``__init__``,
dataclasses, named tuples, a class holding a list of objects, values beside the objects,
names bound in the helper, several returns, a static method, the tuple unpacked in a loop,
the objects passed on; a single object from a class method, ``Enc.make(w)``, ``cls`` the
class it is called on) checked in grad, value_and_grad, jvp, vjp and Hessians in both modes
against central finite differences and autograd; refusals: the tuple not unpacked where it is
made, an object used whole.
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
from collections import namedtuple
from dataclasses import dataclass

import numpy as np


class Enc:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.tanh(self.W @ x)

    @classmethod
    def make(cls, W, scale=2.0):
        return cls(W * scale)


class SubEnc(Enc):
    def __call__(self, x):
        return np.sin(self.W @ x)


class Dec:
    """Built by its __init__."""

    def __init__(self, W, scale=2.0):
        self.W = W * scale
        self.c = np.sum(W)

    def decode(self, h):
        return self.W.T @ h + self.c

    @property
    def size(self):
        return np.sum(self.W ** 2)


@dataclass
class Head:
    v: object
    b: float

    def out(self, h):
        return h @ self.v + self.b


Pt = namedtuple("Pt", ["a", "b"])


class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.sin(x @ self.W + self.b)


class Net:
    def __init__(self, Ws, bs):
        self.layers = [Layer(W, b) for W, b in zip(Ws, bs)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def make_model(w1, w2):
    return Enc(w1), Dec(w2)


def make_three(w, b):
    e = Enc(w * 0.5)
    return e, Dec(w.T, scale=b), Head(w[0], b * b)


def make_with_value(w, b):
    k = np.sum(w) * b
    return Enc(w), k, Pt(w[1], b)


def make_branchy(w, b):
    if b > 0:
        return Enc(w), Dec(w, scale=b)
    return Enc(-w), Dec(w * w)


def make_net(w, b):
    return Net([w, w.T], [b, -b]), Head(b, 1.0)


class Factory:
    @staticmethod
    def build(w):
        return Enc(w.T), Dec(w)


def use(enc, dec, x):
    return np.sum(dec.decode(enc(x)))
'''

#: bodies of f(w, b, x): w an array (3, 3), b a number, x an array of 3
BODIES = {
    "pair": "enc, dec = make_model(w, w * b)\n    return np.sum(dec.decode(enc(x)) ** 2)",
    "pair_property": "enc, dec = make_model(w, np.sin(w))\n"
                     "    return np.sum(enc(x)) * dec.size + dec.c",
    "three": "e, d, h = make_three(w, b)\n    return h.out(d.decode(e(x)))",
    "value_beside": "e, k, p = make_with_value(w, b)\n"
                    "    return np.sum(e(x) * p.a) * k + p.b",
    "branches_taken": "e, d = make_branchy(w, b)\n    return np.sum(d.decode(e(x)))",
    "branches_other": "e, d = make_branchy(w, -b)\n    return np.sum(d.decode(e(x)))",
    "holding_a_list": "net, head = make_net(w, x * b)\n    return np.sum(head.out(net(x)))",
    "static_method": "e, d = Factory.build(w * b)\n    return np.sum(d.decode(e(x)))",
    "passed_on": "e, d = make_model(w, w + b)\n    return use(e, d, x) * b",
    "indexed": "pair = make_model(w, w * b)\n"
               "    return np.sum(pair[1].decode(pair[0](x))) + pair[-1].c",
    "classmethod_factory": "e = Enc.make(w)\n    s = SubEnc.make(w.T, scale=b)\n"
                           "    return np.sum(e(x) * s(x))",
    "in_a_loop": "s = 0.0\n    for k in range(2):\n"
                 "        e, d = make_model(w * (k + 1.0), w)\n"
                 "        s = s + np.sum(d.decode(e(x)))\n    return s * b",
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
    return _module(tmp_path, f"ot_{name}", text), _module(tmp_path, f"ota_{name}", text,
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
    gx = srcad.grad(m.f, wrt=2)(W.copy(), B, X.copy())
    np.testing.assert_allclose(gx, autograd.grad(ma.f, 2)(anp.array(W), B, anp.array(X)),
                               rtol=1e-10, atol=1e-12)


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


HESSIANS = ["pair", "three", "value_beside", "holding_a_list", "in_a_loop",
            "classmethod_factory"]


@pytest.mark.parametrize("name", HESSIANS)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_both_modes(tmp_path, name, mode):
    m, ma = _modules(tmp_path, name)
    want = autograd.hessian(ma.f, 2)(anp.array(W), B, anp.array(X))
    got = srcad.hessian(m.f, wrt=2, mode=mode)(W.copy(), B, X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    fd = _fd(lambda x: srcad.grad(m.f, wrt=2)(W, B, x), X)
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_source_reads_like_hand_written(tmp_path):
    m, _ = _modules(tmp_path, "pair")
    text = srcad.source(srcad.grad(m.f))
    assert "make_model_fields" in text and "made_of" not in text


REFUSED = {
    "tuple_used_whole": ("pair = make_model(w, w)\n"
                         "    return np.sum(pair[1].decode(pair[0](x))) * len(pair)",
                         "return np.sum(pair[1].decode(pair[0](x))) * len(pair)",
                         "pass the values"),
    "object_returned": ("e, d = make_model(w, w)\n    return d", "return d", "name it"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused(tmp_path, name):
    body, line, words = REFUSED[name]
    m = _module(tmp_path, f"ot_bad_{name}", f"\n\ndef f(w, b, x):\n    {body}\n")
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.f, wrt=0)(W.copy(), B, X.copy())
    assert info.value.construct.strip() == line
    assert words in info.value.hint
