"""Lists of objects passed on (issue 16, objlists19): what stays refused, at its line.

Each program passes a list of objects built from the differentiated value to a function or
class of the user's that uses it in a way srcad does not take apart item by item; the error
is an ``UnsupportedSyntaxError`` (or the kept refusal at the objects' line) naming the line
of the use and the rewrite. The same programs given objects of constants run as before; a
class whose unused method would be refused is followed, the method refused where called.
"""

from __future__ import annotations

import numpy as np
import pytest
from class_families import module_of

import srcad
from srcad.errors import MissingRuleError, SrcadError, UnsupportedSyntaxError

PROGRAMS = """import numpy as np
from dataclasses import dataclass

W = np.ones((2, 2)) * 0.3
B = np.ones(2) * 0.1
X = np.arange(2.0)


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


class Counted:
    def __init__(self, layers):
        self.layers = layers
        self.n = len(layers) * 2.0

    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x * self.n


class Seq:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x

    def grow(self):
        self.layers.append(Dense(W, B))
        return self.layers

    def weighted(self, x):
        for l, s in zip(self.layers, [1.0, 2.0]):
            x = s * l(x)
        return x


@dataclass
class Net:
    layers: list

    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x


class Model:
    def forward(self, layers, x):
        for l in layers:
            x = l(x)
        return x


MODEL = Model()


def r_break(layers, x):
    for l in layers:
        x = l(x)
        if np.sum(x) > 100.0:
            break
    return x


def r_index(layers, x, k):
    return layers[k](x)


def r_append(layers, x):
    layers.append(Dense(W, B))
    return x


def r_alias(layers, x):
    ls = layers
    return ls[0](x)


def r_after(layers, x):
    for l in layers:
        pass
    return l(x)


def r_zip(layers, x):
    for l, s in zip(layers, [1.0, 2.0]):
        x = s * l(x)
    return x


def r_lambda(layers, x):
    fs = [lambda y: l(y) for l in layers]
    return fs[0](x)


def r_return(layers, x):
    return layers


def r_past(layers, x):
    return layers[2](x)


def run(layers, x):
    for l in layers:
        x = l(x)
    return x


def f_break(w, c=1.0):
    return np.sum(r_break([Dense(W * w, B), Dense(W, B)], X))


def f_index(w, c=1.0):
    return np.sum(r_index([Dense(W * w, B), Dense(W, B)], X, 1))


def f_append(w, c=1.0):
    return np.sum(r_append([Dense(W * w, B), Dense(W, B)], X))


def f_alias(w, c=1.0):
    return np.sum(r_alias([Dense(W * w, B), Dense(W, B)], X))


def f_after(w, c=1.0):
    return np.sum(r_after([Dense(W * w, B), Dense(W, B)], X))


def f_zip(w, c=1.0):
    return np.sum(r_zip([Dense(W * w, B), Dense(W, B)], X))


def f_lambda(w, c=1.0):
    return np.sum(r_lambda([Dense(W * w, B), Dense(W, B)], X))


def f_return(w, c=1.0):
    layers = [Dense(W * w, B), Dense(W, B)]
    return len(r_return(layers, X))


def f_past(w, c=1.0):
    return np.sum(r_past([Dense(W * w, B), Dense(W, B)], X))


def f_counted(w, c=1.0):
    return np.sum(Counted([Dense(W * w, B), Dense(W, B)])(X))


def f_grow(w, c=1.0):
    net = Seq([Dense(W * w, B), Dense(W, B)])
    return np.sum(net(X)) + len(net.grow())


def f_unused_method(w, c=1.0):
    net = Seq([Dense(W * w, B), Dense(W, B)])
    return np.sum(net(X))


def f_weighted(w, c=1.0):
    net = Seq([Dense(W * w, B), Dense(W, B)])
    return np.sum(net.weighted(X))


def f_late(w, c=1.0):
    return np.sum(run([Dense(W, B)], X)) + np.sum(run([Dense(W * w, B), Dense(W, B)], X))


def f_dataclass(w, c=1.0):
    net = Net([Dense(W * w, B), Dense(W, B)])
    return np.sum(net(X))


def f_method_inline(w, c=1.0):
    m = Model()
    return np.sum(m.forward([Dense(W * w, B), Dense(W, B)], X))


def f_method_call(w, c=1.0):
    return np.sum(MODEL.forward([Dense(W * w, B), Dense(W, B)], X))


def f_appended_after(w, c=1.0):
    layers = [Dense(W * w, B), Dense(W, B)]
    y = run(layers, X)
    layers.append(Dense(W, B))
    return np.sum(y)
"""

#: name -> (error class, the construct refused (a line of PROGRAMS), words of the hint)
REFUSED = {
    "f_break": (UnsupportedSyntaxError, "for l in layers:", "keep break and continue out"),
    "f_index": (UnsupportedSyntaxError, "return layers[k](x)", "index it with a constant"),
    "f_append": (UnsupportedSyntaxError, "layers.append(Dense(W, B))",
                 "build a new list in a local name"),
    "f_alias": (UnsupportedSyntaxError, "ls = layers", "loop over the list"),
    "f_after": (UnsupportedSyntaxError, "for l in layers:", "read only in the loop's body"),
    "f_zip": (UnsupportedSyntaxError, "for l, s in zip(layers, [1.0, 2.0]):",
              "index it with a constant"),
    "f_lambda": (UnsupportedSyntaxError, "fs = [lambda y: l(y) for l in layers]",
                 "call the items in the comprehension itself"),
    "f_return": (UnsupportedSyntaxError, "return layers", "pass it whole"),
    "f_past": (UnsupportedSyntaxError, "return layers[2](x)", "index an item the list holds"),
    "f_counted": (UnsupportedSyntaxError, "def __init__(self, layers):",
                  "make Counted.__init__ store its parameters only"),
    "f_grow": (UnsupportedSyntaxError, "self.layers.append(Dense(W, B))",
               "build a new list in a local name"),
    "f_weighted": (UnsupportedSyntaxError, "for l, s in zip(self.layers, [1.0, 2.0]):",
                   "index it with a constant"),
    "f_late": (UnsupportedSyntaxError,
               "return np.sum(run([Dense(W, B)], X)) + "
               "np.sum(run([Dense(W * w, B), Dense(W, B)], X))",
               "build the list on a line of its own"),
    "f_dataclass": (UnsupportedSyntaxError, "net = Net([Dense(W * w, B), Dense(W, B)])",
                    "write Net.__init__ by hand"),
    "f_method_inline": (UnsupportedSyntaxError,
                        "return np.sum(m.forward([Dense(W * w, B), Dense(W, B)], X))",
                        "build the list on a line of its own"),
    "f_method_call": (MissingRuleError,
                      "return np.sum(MODEL.forward([Dense(W * w, B), Dense(W, B)], X))",
                      "name it"),
    "f_appended_after": (SrcadError, "layers.append(Dense(W, B))", "build a new list"),
}


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return module_of(tmp_path_factory.mktemp("objlists19r"), PROGRAMS, "objlists19r", "")


def _line(construct):
    """The lines of PROGRAMS holding ``construct``."""
    lines = PROGRAMS.splitlines()
    return [i + 1 for i, text in enumerate(lines) if text.strip() == construct]


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused(module, name):
    cls, construct, hint = REFUSED[name]
    with pytest.raises(cls) as info:
        srcad.grad(getattr(module, name))(0.7)
    assert (info.value.construct or "").strip() == construct, str(info.value)
    assert info.value.lineno in _line(construct)
    assert info.value.filename == module.__file__
    assert hint in (info.value.hint or ""), str(info.value)


@pytest.mark.parametrize("name", [n for n in REFUSED if n not in (
    "f_return", "f_append", "f_grow", "f_appended_after", "f_counted", "f_past")])
def test_constants_run_as_before(module, name):
    """The refused use given objects of constants: the gradient of ``c * f(w)`` w.r.t. ``c``
    is ``f(w)`` (the list is not taken apart; nothing of it is differentiated)."""
    f = getattr(module, name)

    def g(c):
        return c * f(0.7)

    assert srcad.grad(g)(2.0) == pytest.approx(f(0.7), rel=1e-12)


def test_unused_method_refused_only_where_followed(module):
    f = module.f_unused_method
    g = srcad.grad(f)(0.7)
    h = 1e-6
    assert g == pytest.approx((f(0.7 + h) - f(0.7 - h)) / (2 * h), rel=1e-6)
    np.testing.assert_allclose(srcad.hessian(f, mode="fwd")(0.7),
                               srcad.hessian(f, mode="rev")(0.7), rtol=1e-10)
