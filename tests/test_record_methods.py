"""Methods of records: ``p.loss(x)``, ``p(x)``, ``net.layers[0].predict(x)``.

A dataclass or named tuple of parameters (a ``wrt`` argument, one inside a container, one
passed to a function of the user's, or one built in the function) whose *method* the code
calls was refused ("'loss' is not a field of the record"). The call is now read as the
class's function called with the record first (``Lin.loss(p, x)``), whose copy takes the
record's fields (:mod:`srcad.frontend.passed_records`), so the gradient flows through every
field the method reads, its own calls of other methods (``self.out(x)``) and of
``__call__`` included. A generated family of classes x bodies, against central finite
differences and autograd (on the record's fields); properties (``p.w2``) read through their
getter's copy the same way. Refusals: a class whose instances may hold an attribute hiding
the method (``__post_init__``, ``__getattr__``), a method taken as a value, a static method.
"""

from __future__ import annotations

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

CLASSES = '''
import numpy as np
from dataclasses import dataclass
from typing import NamedTuple


@dataclass
class Lin:
    w: object
    b: object

    def out(self, x):
        return np.tanh(self.w * x + self.b)

    def reg(self):
        return 0.1 * np.sum(self.w ** 2)

    def loss(self, x):
        return np.sum(self.out(x) ** 2) + self.reg()

    def __call__(self, x):
        return self.out(x) * self.b

    @property
    def w2(self):
        return self.w * self.w


class NTLin(NamedTuple):
    w: object
    b: object

    def out(self, x):
        return np.sin(self.w * x) + self.b

    def reg(self):
        return 0.1 * np.sum(self.w ** 2)

    def loss(self, x):
        return np.sum(self.out(x) ** 2) + self.reg()

    def __call__(self, x):
        return self.out(x) * self.b

    @property
    def w2(self):
        return np.cos(self.w) * self.b


@dataclass
class Net:
    layers: list
    scale: float

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.scale

    def loss(self, x):
        return np.sum(self(x) ** 2)


def helper_loss(p, x):
    return p.loss(x * 2.0)


def w2_of(p):
    return p.w2


def layer_sum(layers, x):
    s = 0.0
    for layer in layers:
        s = s + layer.loss(x)
    return s
'''

#: bodies of f(p, x), p a Lin or an NTLin
SINGLE = {
    "method": "return np.sum(p.out(x))",
    "method_calling_methods": "return p.loss(x)",
    "call": "return np.sum(p(x))",
    "method_and_fields": "return np.sum(p.out(x) * p.w) + p.b",
    "passed_on": "return helper_loss(p, x)",
    "twice": "return p.loss(x) + p.loss(2.0 * x)",
    "property": "return np.sum(p.w2 * x) + p.b",
    "property_passed_on": "return np.sum(w2_of(p) * x)",
}
#: bodies of f(net, x), net a Net of two layers of one class
TREES = {
    "call": "return np.sum(net(x))",
    "method": "return net.loss(x)",
    "loop": "s = 0.0\n    for layer in net.layers:\n        s = s + layer.loss(x)\n    return s",
    "indexed": "return net.layers[0].loss(x) + np.sum(net.layers[1](x))",
    "list_passed_on": "return layer_sum(net.layers, x)",
    "property": "return np.sum(net.layers[0].w2 * x) + np.sum(net.layers[1].w2)",
}
#: bodies of f(x): the record built in the function
BUILT = {
    "method": "p = {cls}(w=x * 2.0, b=0.5)\n    return p.loss(x)",
    "call": "p = {cls}(x, 0.3)\n    return np.sum(p(x))",
    "method_and_field": "p = {cls}(np.cos(x), 1.5)\n    return np.sum(p.out(x)) * p.b",
    "property": "p = {cls}(x * x, 0.5)\n    return np.sum(p.w2)",
}


def _module(tmp_path, stem, body, numpy="numpy"):
    text = CLASSES.replace("import numpy as np", f"import {numpy} as np") + body
    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = np.array([0.4, -0.7, 1.1])
W = np.array([0.3, 0.9, -0.5])
W2 = np.array([-0.6, 0.2, 0.8])


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        out[k] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("cls", ["Lin", "NTLin"])
@pytest.mark.parametrize("body", list(SINGLE))
def test_a_method_of_a_record_argument(tmp_path, cls, body):
    text = f"\n\ndef f(p, x):\n    {SINGLE[body]}\n"
    m = _module(tmp_path, f"rm_{cls}_{body}", text)
    ma = _module(tmp_path, f"rma_{cls}_{body}", text, "autograd.numpy")
    make, make_a = getattr(m, cls), getattr(ma, cls)
    p = make(W.copy(), 0.7)
    value, g = srcad.value_and_grad(m.f)(p, X.copy())
    assert type(g) is type(p)
    assert value == pytest.approx(m.f(p, X.copy()), rel=1e-12)
    np.testing.assert_allclose(g.w, _fd(lambda w: m.f(make(w, 0.7), X), W), rtol=1e-6,
                               atol=1e-8)
    assert float(g.b) == pytest.approx(float(_fd(lambda b: m.f(make(W, b), X), 0.7)),
                                       rel=1e-6, abs=1e-8)
    gw, gb = autograd.grad(lambda w, b: ma.f(make_a(w, b), anp.array(X)), (0, 1))(W, 0.7)
    np.testing.assert_allclose(g.w, gw, rtol=1e-10, atol=1e-12)
    assert float(g.b) == pytest.approx(gb, rel=1e-10, abs=1e-12)
    gx = srcad.grad(m.f, wrt=1)(p, X.copy())
    np.testing.assert_allclose(gx, _fd(lambda x: m.f(p, x), X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("cls", ["Lin", "NTLin"])
@pytest.mark.parametrize("body", list(TREES))
def test_methods_of_records_in_a_tree(tmp_path, cls, body):
    text = f"\n\ndef f(net, x):\n    {TREES[body]}\n"
    m = _module(tmp_path, f"rt_{cls}_{body}", text)
    ma = _module(tmp_path, f"rta_{cls}_{body}", text, "autograd.numpy")
    make, make_a = getattr(m, cls), getattr(ma, cls)

    def net_of(w1, w2, mod=m, mk=make):
        return mod.Net([mk(w1, 0.7), mk(w2, -0.4)], 1.3)

    g = srcad.grad(m.f)(net_of(W.copy(), W2.copy()), X.copy())
    assert type(g) is m.Net and type(g.layers[0]) is make
    np.testing.assert_allclose(g.layers[0].w, _fd(lambda w: m.f(net_of(w, W2), X), W),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g.layers[1].w, _fd(lambda w: m.f(net_of(W, w), X), W2),
                               rtol=1e-6, atol=1e-8)
    ga, gb = autograd.grad(lambda a, b: ma.f(net_of(a, b, ma, make_a), anp.array(X)),
                           (0, 1))(W, W2)
    np.testing.assert_allclose(g.layers[0].w, ga, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g.layers[1].w, gb, rtol=1e-10, atol=1e-12)
    assert float(g.scale) == pytest.approx(float(_fd(
        lambda s: m.f(m.Net([make(W, 0.7), make(W2, -0.4)], s), X), 1.3)), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("cls", ["Lin", "NTLin"])
@pytest.mark.parametrize("body", list(BUILT))
def test_a_method_of_a_record_built_in_the_function(tmp_path, cls, body):
    text = f"\n\ndef f(x):\n    {BUILT[body].format(cls=cls)}\n"
    m = _module(tmp_path, f"rb_{cls}_{body}", text)
    ma = _module(tmp_path, f"rba_{cls}_{body}", text, "autograd.numpy")
    g = srcad.grad(m.f)(X.copy())
    np.testing.assert_allclose(g, _fd(m.f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(ma.f)(anp.array(X)), rtol=1e-10, atol=1e-12)
    u = np.array([0.5, -1.0, 0.25])
    _, t = srcad.jvp(m.f, (X.copy(),), (u,))
    assert t == pytest.approx(float(g @ u), rel=1e-10)
    want = autograd.hessian(ma.f)(anp.array(X))
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.f, mode=mode)(X.copy()), want, rtol=1e-8,
                                   atol=1e-10)


REFUSED = {
    "post_init": ("@dataclass\nclass Q:\n    w: object\n    def __post_init__(self):\n"
                  "        self.k = 2.0\n    def out(self, x):\n        return np.sum(self.w * x)"
                  "\n\n\ndef f(p, x):\n    return p.out(x)\n", "Q", "out"),
    "method_value": ("\n\ndef f(p, x):\n    m = p.loss\n    return m(x)\n", "Lin", "loss"),
    "static": ("@dataclass\nclass S:\n    w: object\n    @staticmethod\n    def out(x):\n"
               "        return np.sum(x)\n\n\ndef f(p, x):\n    return p.out(x) * np.sum(p.w)\n",
               "S", "out"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_is_refused(tmp_path, case):
    text, cls, method = REFUSED[case]
    text = text.replace("@dataclass", "from dataclasses import dataclass\n\n\n@dataclass", 1) \
        if case != "method_value" else text
    m = _module(tmp_path, f"rr_{case}", text)
    p = getattr(m, cls)(W.copy()) if cls != "Lin" else m.Lin(W.copy(), 0.5)
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.f)(p, X.copy())
    assert f"{method!r}" in str(info.value)
    assert "line" in str(info.value)


def test_an_object_of_a_plain_class_built_from_differentiated_values(tmp_path):
    """Followed like a dataclass since issue 16's plain classes (tests/test_classes16_*.py);
    one whose attributes srcad cannot prove (``__slots__``) stays refused."""
    text = ("\n\nclass Plain:\n    def __init__(self, w):\n        self.w = w\n\n"
            "    def out(self, x):\n        return np.sum(self.w * x)\n\n\n"
            "class Slotted:\n    __slots__ = ('w',)\n\n    def __init__(self, w):\n"
            "        self.w = w\n\n    def out(self, x):\n        return np.sum(self.w * x)\n\n\n"
            "def f(x):\n    m = Plain(x * 2.0)\n    return m.out(x)\n\n\n"
            "def g(x):\n    m = Slotted(x * 2.0)\n    return m.out(x)\n")
    m = _module(tmp_path, "rplain", text)
    np.testing.assert_allclose(srcad.grad(m.f)(X.copy()), _fd(m.f, X), rtol=1e-6, atol=1e-8)
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.g)(X.copy())
    assert "your class Slotted" in str(info.value)
    assert info.value.lineno == m.Slotted.__init__.__code__.co_firstlineno - 3
    assert "__slots__" in info.value.hint
