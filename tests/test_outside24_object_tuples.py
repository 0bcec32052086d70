"""A tuple of objects built in the function, or returned by a helper (issue 16, outside24
item 1): ``return (Layer(W1, b1), Layer(W2, b2))`` or ``a = Layer(...); b = Layer(...);
return a, b`` (``[a, b]``), then ``layers = make(w)``; ``for l in layers: h = l(h)``.

The tuple is read as the list holding the same objects (``frontend/record_tuples.py``) when
:mod:`srcad.frontend.record_lists` takes the whole list apart; a use it does not follow
(``layers + (extra,)``, ``isinstance(layers, tuple)``) leaves the tuple as it is and the call
of an item stays refused. Generated family (display x module function or method x use)
against central differences and autograd. (A generator over the objects after a NumPy call
in its statement, ``np.sum(h ** 2) + sum(l.W for l in layers)``, was refused for lists too:
``inline_objects._numeric_call`` lets it be evaluated first.)
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

W0 = np.array([0.3, -0.2, 0.6])
X0 = np.array([0.5, 1.0, -1.5])

HEAD = """
class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, h):
        return np.tanh(self.W * h + self.b)


def make_layers(w):
{display}


class BNN:
    def __init__(self, scale):
        self.scale = scale

    def make_layers(self, w):
{method_display}

    def loss(self, w, x):
        layers = {call}
{use}


def loss(w, x):
    layers = make_layers(w)
{use_fn}


def local(w, x):
    layers = (Layer(w[0], w[1]), Layer(w[1] * w[2], w[0]))
{use_fn}
"""
DISPLAYS = {
    "tuple": "    return (Layer(w[0], w[1]), Layer(w[1] * w[2], w[0]))",
    "bare": "    return Layer(w[0], w[1]), Layer(w[2], 0.5), Layer(w[1] * w[2], w[0])",
    "named-list": "    a = Layer(w[0], w[1])\n    b = Layer(w[1] * w[2], w[0])\n    return [a, b]",
    "named-tuple": "    a = Layer(w[0] * w[2], w[1])\n    b = Layer(w[1], w[0])\n    return a, b",
}
USES = {
    "loop": "    h = x\n    for l in layers:\n        h = l(h)\n    return np.sum(h ** 2)",
    "reversed": "    h = x\n    for l in reversed(layers):\n        h = l(h)\n"
                "    return np.sum(h ** 2) + np.sum(layers[0].W * x)",
    "index": "    h = x\n    for i in range(len(layers)):\n        h = layers[i](h)\n"
             "    return np.sum(h * x) + layers[-1].W * layers[0].b",
    "fields": "    return sum(np.sum(l.W * x) * l.b for l in layers)",
    # a generator after a NumPy call in the statement (hoisted before it: the call runs no
    # code of the user's), the loop variable's name used by both
    "enumerate-sum": "    h = x\n    for k, l in enumerate(reversed(layers)):\n"
                     "        h = l(h) * (k + 1)\n"
                     "    return np.sum(h ** 2) + sum(np.sum(l.W * x) for l in layers)",
}
CALLS = ("method", "function")
CASES = list(itertools.product(DISPLAYS, USES, CALLS))


def _text(display, use, call):
    body = USES[use]
    indent = "\n".join("    " + line for line in body.split("\n"))
    return HEAD.format(display=DISPLAYS[display], use=indent, use_fn=body,
                       method_display="\n".join("    " + line for line in
                                                DISPLAYS[display].split("\n")),
                       call="self.make_layers(w)" if call == "method" else "make_layers(w)")


@pytest.mark.parametrize("display,use,call", sample(CASES, 7))
def test_a_tuple_of_objects_a_helper_returns(display, use, call, tmp_path):
    text = _text(display, use, call)
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    f, t = (m.BNN(2.0).loss, a.BNN(2.0).loss) if call == "method" else (m.loss, a.loss)
    g = srcad.grad(f)(W0, X0)
    np.testing.assert_allclose(g, central(f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(t)(W0, X0), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("use", sample(USES, 2))
def test_a_tuple_of_objects_written_in_the_function(use, tmp_path):
    text = _text("tuple", use, "function")
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    g = srcad.grad(m.local)(W0, X0)
    np.testing.assert_allclose(g, central(m.local, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.local)(W0, X0), rtol=1e-10, atol=1e-12)


UNFOLLOWED = """
def added(w, x):
    layers = make_layers(w) + (Layer(0.5, 0.1),)
    h = x
    for l in layers:
        h = l(h)
    return np.sum(h ** 2)


def asked(w, x):
    layers = make_layers(w)
    h = x
    for l in layers:
        h = l(h)
    return np.sum(h ** 2) + isinstance(layers, tuple)
"""


@pytest.mark.parametrize("name", ["added", "asked"])
def test_a_tuple_used_otherwise_stays_refused(name, tmp_path):
    m = load_module(tmp_path, NP + _text("tuple", "loop", "function") + UNFOLLOWED)
    with pytest.raises(SrcadError, match=r"line \d+"):
        srcad.grad(getattr(m, name))(W0, X0)


AT_ONCE = """
class P:
    def __init__(self, a):
        self.a = a

    def f(self, x):
        return self.a * np.sin(x)


def at_once(w, x):
    return np.sum(np.cos(x) * w[0]) + np.sum(P(w[1] * w[2]).f(x))
"""


def test_an_object_built_and_used_at_once_after_a_numpy_call(tmp_path):
    """``np.sum(...) + np.sum(P(a).f(x))``: the object is named just before the statement
    (``frontend/inline_objects.py``), the NumPy call before it running no code of the
    user's (refused before)."""
    m, a = load_module(tmp_path, NP + AT_ONCE), load_module(tmp_path, AG + AT_ONCE)
    g = srcad.grad(m.at_once)(W0, X0)
    np.testing.assert_allclose(g, central(m.at_once, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.at_once)(W0, X0), rtol=1e-10, atol=1e-12)
