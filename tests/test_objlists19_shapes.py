"""Lists of objects passed on (issue 16, objlists19): the shapes around the family.

Nested lists (a ``Seq`` of ``Seq``s, two levels of passing), a list comprehension over a
constant ``range`` passed on, a list built and also looped over in the function, a method
reading the list through a comprehension, ``not layers`` / ``if layers`` (a function
recursing down the list: ``rec(layers[1:], layers[0](x))``), ``*layers`` spread into a
call, a list passed through two functions and a class, a method passing ``self.layers`` to
``self.run`` and to a static method (``Helped.total(layers)``), to a method of an object
built in the function (``r.forward(layers, x)``), items named before, ``net.layers``
read in the function (item by item; of objects of constants, a list at run time), a list of
constants (as before), the copies' generated code. Each against central differences and
autograd; Hessians in both modes.
"""

from __future__ import annotations

import autograd
import numpy as np
import pytest
from call_checks import check_first_order
from class_families import module_of

import srcad

PROGRAMS = """import numpy as np


rng = np.random.default_rng(7)
W = rng.normal(size=(2, 2)) * 0.6
B = rng.normal(size=2) * 0.2
X = rng.normal(size=2)


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Scale:
    def __init__(self, s):
        self.s = s * 1.0

    def __call__(self, x):
        return self.s * x


class Seq:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x

    def penalty(self):
        return sum(np.sum(l.W ** 2) for l in self.layers if False) + sum(
            [np.sum(self.layers[0].W ** 2)])


class Helped:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        return self.run(self.layers, x) + self.run(self.layers[1:], x) + Helped.total(
            self.layers)

    def run(self, layers, x):
        for l in layers:
            x = l(x)
        return x

    @staticmethod
    def total(layers):
        return sum(np.sum(l(X)) for l in layers)


class Runner:
    def __init__(self, scale):
        self.scale = scale * 1.0

    def forward(self, layers, x):
        for l in layers:
            x = self.scale * l(x)
        return x


class Tail:
    def __init__(self, first, *rest):
        self.first = first
        self.rest = rest

    def __call__(self, x):
        x = self.first(x)
        for l in self.rest:
            x = x + l(x)
        return x


def run(layers, x):
    for l in layers:
        x = l(x)
    return x


def total(layers):
    if not layers:
        return 0.0
    out = 0.0
    if layers:
        out = np.sum(layers[0].W) * len(layers)
    return out


def rec(layers, x):
    if not layers:
        return x
    return rec(layers[1:], layers[0](x))


def rec_last(layers, x):
    if len(layers) == 0:
        return x
    if layers:
        x = layers[-1](rec_last(layers[:-1], x))
    return x


def twice(layers, x):
    return run(layers, x) + run(list(layers), x) * 0.5


def spread(a, b, c):
    return a(b(c(X)))


def nested(w):
    net = Seq([Seq([Dense(W * w[0], B), Dense(W, B)]), Seq([Dense(W, B * w[1])]), Scale(w[0])])
    return np.sum(net(X))


def nested_named(w):
    inner = [Dense(W * w[0], B), Scale(w[1])]
    outer = Seq([Seq(inner), Scale(2.0)])
    return np.sum(outer(X))


def looped_and_passed(w):
    layers = [Dense(W * w[0], B), Dense(W, B + w[1])]
    y = X
    for l in layers:
        y = l(y)
    return np.sum(run(layers, X)) + np.sum(y) + total(layers)


def through_two(w):
    return np.sum(twice([Dense(W * w[0], B), Scale(w[1])], X))


def star_spread(w):
    layers = (Dense(W * w[0], B), Scale(w[1]), Dense(W, B))
    return np.sum(spread(*layers))


def tail(w):
    return np.sum(Tail(Dense(W * w[0], B), Scale(w[1]), Dense(W, B))(X))


def named_first(w):
    d = Dense(W * w[0], B)
    s = Scale(w[1])
    return np.sum(run([d, s, d], X))


WS = [W * 1.0, W * 0.5, W * 2.0]


def over_range(w):
    layers = [Dense(WS[i] * w[0], B * w[1]) for i in range(3)]
    net = Seq([Dense(WS[i], B * w[0]) for i in range(1, 3)])
    return np.sum(run(layers, X)) + np.sum(net(X))


def layers_read_here(w):
    net = Seq([Dense(W * w[0], B), Scale(w[1])])
    y = X
    for l in net.layers:
        y = l(y)
    return np.sum(net.layers[0](X)) + np.sum(y) * len(net.layers) + np.sum(net(X))


def constants_read_here(w):
    net = Seq([Dense(W, B), Scale(2.0)])
    return np.sum(net(X) * w[0]) * len(net.layers) + w[1] * len(net.layers[1:])


def recursing(w):
    layers = [Dense(W * w[0], B), Scale(w[1]), Dense(W, B * w[0])]
    return np.sum(rec(layers, X)) + np.sum(rec_last(layers, X))


def helped(w):
    net = Helped([Dense(W * w[0], B), Scale(w[1]), Dense(W, B)])
    more = Helped.total([Scale(w[0]), Dense(W, B * w[1])])
    return np.sum(net(X)) + more


def method_given(w):
    r = Runner(w[1])
    layers = [Dense(W * w[0], B), Scale(w[1]), Dense(W, B)]
    return np.sum(r.forward(layers, X))


def constants(w):
    return np.sum(run([Dense(W, B), Scale(2.0)], X)) * w[0] + w[1]
"""

NAMES = ["nested", "nested_named", "looped_and_passed", "through_two", "star_spread", "tail",
         "named_first", "over_range", "layers_read_here", "constants_read_here", "recursing",
         "helped", "method_given", "constants"]


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    where = tmp_path_factory.mktemp("objlists19s")
    return (module_of(where, PROGRAMS, "objlists19s_np", ""),
            module_of(where, PROGRAMS, "objlists19s_ag", "", "autograd.numpy"))


POINT = np.array([0.9, 1.2])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [1.0, -0.6])
def test_shapes(modules, name, scale):
    m, ma = modules
    check_first_order(getattr(m, name), getattr(ma, name), POINT * scale,
                      np.array([0.4, -0.3]))


@pytest.mark.parametrize("name", ["nested", "through_two", "tail", "over_range", "recursing"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_hessian(modules, name, mode):
    m, ma = modules
    got = srcad.hessian(getattr(m, name), mode=mode)(POINT)
    np.testing.assert_allclose(got, autograd.hessian(getattr(ma, name))(POINT), rtol=1e-8,
                               atol=1e-10)


def test_generated_code_reads_items_one_by_one(modules):
    m, _ = modules
    text = srcad.source(srcad.grad(m.named_first))
    assert "run_3_fields" in text  # the copy of run taking the three objects' fields
    assert "for " not in text.split("# backward")[0]  # the loop unrolled, items by name
