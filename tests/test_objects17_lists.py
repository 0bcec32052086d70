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

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from class_families import fd, module_of
from sampling import sample
from twin_checks import central

import srcad
from srcad.errors import MutationError, SrcadError, UnsupportedSyntaxError

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
        return sum(layer.norm for layer in self.layers) / len(self.layers)

    def outputs(self, x):
        return np.sum(np.array([layer.forward(x) for layer in self.layers if layer.n > 1]))


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


class TwoLayer:
    """Objects built in __init__ and held in attributes, PyTorch style."""

    def __init__(self, W1, b1, W2, b2):
        self.fc1 = Dense(W1, b1, gain=0.5)
        self.fc2 = Layer(W2, b2)
        self.head = DLayer(W1.T, b2)
        self.scale = np.sum(b1)

    def forward(self, x):
        return self.head(self.fc2(self.fc1.forward(x))) * self.scale

    def penalty(self):
        return self.fc1.norm + np.sum(self.fc2.W ** 2) + run(self.head, self.fc2.b)


class Child(Net):
    """A base's list built by super().__init__."""

    def __init__(self, Ws, bs, k):
        super().__init__(Ws, bs)
        self.k = k * 2.0

    def out(self, x):
        return self(x) * self.k + len(self.layers)


def total(net):
    s = 0.0
    for layer in net.layers:
        s = s + np.sum(layer.W * layer.b)
    return s


class Parts:
    """A dict of objects built in __init__, read by its keys."""

    def __init__(self, W1, b1, W2, b2):
        self.parts = {"enc": Dense(W1, b1, gain=2.0), "dec": Layer(W2, b2)}
        self.c = np.sum(b1)

    def __call__(self, x):
        return self.parts["dec"](self.parts["enc"].forward(x)) * self.c + self.parts["enc"].norm


class Encoder:
    def __init__(self, Ws, bs, W, b):
        self.body = Net(Ws, bs)
        self.out = Layer(W, b)

    def __call__(self, x):
        return self.out(self.body(x)) + np.sum(self.out.b)


class Stack:
    """A list of networks built in __init__."""

    def __init__(self, Ws, bs):
        self.nets = [Net(Ws, bs), Net([W.T for W in Ws], bs)]

    def __call__(self, x):
        for net in self.nets:
            x = net(x)
        return x
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
    "comprehensions": "net = AppendNet([w, w * 0.3], [b, b])\n"
                      "    ls = [Layer(w * k, b) for k in range(1, 3)]\n"
                      "    return sum([np.sum(l(x)) for l in ls]) + net.outputs(x)",
    "dataclass_items_in_a_branch": "net = CondNet([w, w.T], [b, np.cos(b)])\n"
                                   "    return np.sum(net(x)) + net.head(x)",
    "named_tuple_items": "net = TupleNet([w, w * w], [b, b])\n    return net(x)",
    "subclass": "net = Sub([w, w * 2.0], [b, -b])\n    return net.score(x, [x, x * 2.0])",
    "two_networks": "a = Net([w], [b])\n    c = Net([w.T, w], [b * 2.0, b])\n"
                    "    return np.sum(a(x) * c(x))",
    "built_in_a_loop": "s = 0.0\n    for k in range(2):\n"
                       "        net = Net([w * (k + 1.0), w], [b, b])\n"
                       "        s = s + np.sum(net(x))\n    return s",
    "read_in_the_function": "net = Net([w, w * w], [b, -b])\n    h = x\n"
                            "    for layer in net.layers:\n        h = layer(h)\n"
                            "    return np.sum(h) * len(net.layers) + np.sum(net(x))",
    "indexed_in_the_function": "net = AppendNet([w, w.T], [b, b])\n"
                               "    return np.sum(net.layers[-1].forward(x)) + net.forward(x)",
    "zipped_in_the_function": "net = AppendNet([w, w.T], [b, b * b])\n    s = 0.0\n"
                              "    for layer, c in zip(net.layers, [1.0, 2.0]):\n"
                              "        s = s + c * np.sum(layer.forward(x))\n    return s",
    "held_objects": "m = TwoLayer(w, b, w.T, b * b)\n    return np.sum(m.forward(x)) + m.penalty()",
    "held_objects_read_in_the_function": "m = TwoLayer(w, b, w.T, b * b)\n"
                                         "    return np.sum(m.fc2(x)) * m.fc1.n + "
                                         "np.sum(m.head.W)",
    "held_object_beside_a_network": "e = Encoder([w], [b], w.T, b)\n    return np.sum(e(x))",
    "local_list_reversed_enumerated": "ls = [Layer(w * k, b) for k in range(1, 3)]\n"
                                      "    s = 0.0\n    for i, l in enumerate(reversed(ls)):\n"
                                      "        s = s + (i + 1.0) * np.sum(l(x))\n"
                                      "    return s + np.sum(ls[-1](x) * ls[0].b)",
    "local_list_zip_slice": "ls = []\n    for k in range(3):\n"
                            "        ls.append(Dense(w + k, b, gain=0.5))\n    s = 0.0\n"
                            "    for l, c in zip(ls[1:], [2.0, 3.0]):\n"
                            "        s = s + c * np.sum(l.forward(x))\n"
                            "    if ls[0].norm > 0.0:\n        s = s + ls[0].norm\n    return s",
    "base_builds_the_list": "c = Child([w, w.T], [b, b * b], np.sum(b))\n"
                            "    return np.sum(c.out(x))",
    "helper_reads_the_list": "net = Net([w, w * w], [b, -b])\n"
                             "    return total(net) + np.sum(net(x))",
    "dict_of_objects": "p = Parts(w, b, w.T, b * b)\n"
                       "    return np.sum(p(x)) + np.sum(p.parts[\"dec\"].W * b)",
    "list_of_networks_in_init": "s = Stack([w, w * 0.5], [b, b * b])\n    return np.sum(s(x))",
    "list_of_networks": "nets = [Net([w * k, w], [b, b * k]) for k in range(1, 3)]\n"
                        "    s = 0.0\n    for net in nets:\n        s = s + np.sum(net(x))\n"
                        "    return s",
}


def _module(tmp_path, stem, body, numpy="numpy"):
    return module_of(tmp_path, CLASSES, stem, body, numpy)


W = np.array([[0.3, -0.6, 0.9], [0.2, 0.5, -0.4], [-0.7, 0.1, 0.3]])
B = np.array([0.7, -0.2, 0.4])
X = np.array([0.4, -0.7, 1.1])


def _fd(f, x, h=1e-6):
    return fd(f, x, h)


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
            "dataclass_items_in_a_branch", "named_tuple_items", "subclass",
            "read_in_the_function", "list_of_networks", "held_objects", "dict_of_objects"]


@pytest.mark.parametrize("name", sample(HESSIANS, 2))
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian_both_modes(tmp_path, name, mode):
    m, ma = _modules(tmp_path, name)
    want = autograd.hessian(ma.f, 1)(anp.array(W), anp.array(B), anp.array(X))
    got = srcad.hessian(m.f, wrt=1, mode=mode)(W.copy(), B.copy(), X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    fd = _fd(lambda b: srcad.grad(m.f, wrt=1)(W, b, X), B)
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


WRT = """

@dataclass
class Params:
    Ws: list
    bs: list


def loss(p, x):
    net = Net(p.Ws, p.bs)
    return np.sum(net(x) ** 2)
"""


def test_weights_through_a_wrt_dataclass(tmp_path):
    m = _module(tmp_path, "ol_wrt", WRT)
    ma = _module(tmp_path, "ola_wrt", WRT, "autograd.numpy")
    p = m.Params([W, W.T], [B, -B])
    g = srcad.grad(m.loss)(p, X)
    assert isinstance(g, m.Params) and len(g.Ws) == 2
    flat = np.concatenate([W.ravel(), W.T.ravel()])

    def through(v):
        return ma.loss(ma.Params([v[:9].reshape(3, 3), v[9:].reshape(3, 3)], [B, -B]), X)

    want = autograd.grad(through)(flat)
    np.testing.assert_allclose(np.concatenate([g.Ws[0].ravel(), g.Ws[1].ravel()]), want,
                               rtol=1e-10, atol=1e-12)
    fd = _fd(lambda v: m.loss(m.Params([v[:9].reshape(3, 3), v[9:].reshape(3, 3)],
                                       [B, -B]), X), flat)
    np.testing.assert_allclose(want, fd, rtol=1e-5, atol=1e-7)


def test_constant_objects_rebuilt_keep_their_lists(tmp_path):
    """A network of constants in a list of networks is rebuilt as Python builds it (its
    list attribute a list of items), when srcad does not follow it field by field."""
    from srcad.frontend.record_lists import made_of

    m = _module(tmp_path, "ol_made", "")
    net = made_of(m.Net, layers__W=[W, W.T], layers__b=[B, -B])
    assert [type(layer) for layer in net.layers] == [m.Layer, m.Layer]
    np.testing.assert_allclose(net(X), m.Net([W, W.T], [B, -B])(X))


REFUSED = {
    "aliased_in_a_method": ("class Alias(Net):\n    def __call__(self, x):\n"
                            "        ls = self.layers\n        for l in ls:\n"
                            "            x = l(x)\n        return x\n",
                            "ls = self.layers", "iterate it"),
    "passed_on_in_a_method": ("def total(ls):\n    return len(ls)\n\n\n"
                              "class Hand(Net):\n    def __call__(self, x):\n"
                              "        return x * total(self.layers)\n",
                              "return x * total(self.layers)", "index it"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_list_field_changed_or_handed_on_in_a_method_is_refused(tmp_path, name):
    extra, line, words = REFUSED[name]
    cls = extra.split("class ")[1].split("(")[0]
    m = _module(tmp_path, f"ol_bad_{name}", "\n\n" + extra + f"""

def f(w, b, x):
    net = {cls}([w, w * w], [b, b])
    return np.sum(net(x))
""")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    err = info.value
    assert err.construct.strip() == line
    assert words in err.hint and "a list of Layer objects" in str(err)


def test_list_read_in_the_function_of_an_object_not_followed_is_refused(tmp_path):
    m = _module(tmp_path, "ol_bad_whole", """

def f(w, b, x):
    net = Net([w, w * w], [b, b])
    keep = [net]
    for layer in net.layers:
        x = layer(x)
    return np.sum(x) + len(keep)
""")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    err = info.value
    assert err.construct.strip() == "for layer in net.layers:"
    assert "not followed field by field" in str(err) and "keep = [net]" not in str(err)
    assert "loop over the list in a method" in err.hint


def test_list_field_appended_to_in_a_method_is_refused(tmp_path):
    """The method changes the object's list: the call is a write srcad refuses."""
    m = _module(tmp_path, "ol_bad_grow", """

class Grow(Net):
    def __call__(self, x):
        self.layers.append(Layer(x, x))
        return x


def f(w, b, x):
    net = Grow([w, w * w], [b, b])
    return np.sum(net(x))
""")
    with pytest.raises(MutationError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    assert info.value.construct.strip() == "return np.sum(net(x))"
    assert "in place" in str(info.value) and "copy" in info.value.hint


WRITES = {
    "in_a_method": ("class Bump(Net):\n    def __call__(self, x):\n"
                    "        for l in self.layers:\n            l.b = l.b * 2.0\n"
                    "            x = l(x)\n        return x\n\n\n"
                    "def f(w, b, x):\n    net = Bump([w, w * w], [b, b])\n"
                    "    return np.sum(net(x)) + np.sum(net(x))\n", "l.b = l.b * 2.0"),
    "in_a_method_indexed": ("class Bump(Net):\n    def __call__(self, x):\n"
                            "        self.layers[0].W = x\n        return x\n\n\n"
                            "def f(w, b, x):\n    net = Bump([w, w * w], [b, b])\n"
                            "    return np.sum(net(x))\n", "self.layers[0].W = x"),
    "in_the_function": ("def f(w, b, x):\n    net = Net([w, w * w], [b, b])\n"
                        "    for l in net.layers:\n        l.b = b * 3.0\n"
                        "    return np.sum(net(x))\n", "l.b = b * 3.0"),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_an_item_written_where_the_list_is_read_is_refused(tmp_path, name):
    """Python changes the object the list holds (seen by the next call); srcad's items are
    rebuilt from the fields: refused, never a value that differs."""
    text, line = WRITES[name]
    m = _module(tmp_path, f"ol_write_{name}", "\n\n" + text)
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    assert info.value.construct.strip() == line
    assert "would not reach them" in str(info.value)
    assert "local name" in info.value.hint


def test_a_comprehension_after_a_numpy_call_in_its_statement(tmp_path):
    """(outside24) a NumPy call before the comprehension runs no code of the user's: the
    comprehension is read as a loop just before its statement (refused before)."""
    m = _module(tmp_path, "ol_genexp_np", """

class Pen(Net):
    def pen(self, x):
        return np.sum(np.sin(x)) + sum(np.sum(layer.W) for layer in self.layers)


def f(w, b, x):
    return Pen([w, w * w], [b, b]).pen(x)
""")
    np.testing.assert_allclose(srcad.grad(m.f)(W.copy(), B.copy(), X.copy()),
                               central(m.f, (W, B, X), 0), rtol=1e-6, atol=1e-8)


def test_a_comprehension_after_a_call_in_its_statement_is_refused(tmp_path):
    """A comprehension over the list is read as a loop just before its statement only when
    nothing the statement evaluates before it may run code (here a call of the user's
    function): else refused."""
    m = _module(tmp_path, "ol_genexp", """

def helper(x):
    return np.sum(np.sin(x))


class Pen(Net):
    def pen(self, x):
        return helper(x) + sum(np.sum(layer.W) for layer in self.layers)


def f(w, b, x):
    return Pen([w, w * w], [b, b]).pen(x)
""")
    with pytest.raises(SrcadError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    assert info.value.construct.strip() == \
        "return helper(x) + sum(np.sum(layer.W) for layer in self.layers)"
    assert "loop over it with a for statement" in info.value.hint


def test_a_dict_of_objects_iterated_is_refused(tmp_path):
    m = _module(tmp_path, "ol_dict_values", """

class AllParts(Parts):
    def total(self, x):
        s = 0.0
        for part in self.parts.values():
            s = s + np.sum(part.W)
        return s


def f(w, b, x):
    return AllParts(w, b, w.T, b).total(x)
""")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(W.copy(), B.copy(), X.copy())
    assert info.value.construct.strip() == "for part in self.parts.values():"
    assert "a dict of objects built in __init__" in str(info.value)
    assert "hold them in a list" in info.value.hint
