"""A list of objects built and returned by a function or method, then used (issue 16,
outside23 item 2; helmrad-style BNN): ``layers = self.make_layers(w)`` returning
``[Layer(W, b), ...]``, then ``for l in layers: h = l(h)``.

``layers = make(w)``, every ``return`` of ``make`` a list written in the statement
of objects srcad reads field by field, is read as ``layers_0, layers_1 = make(w)`` then
``layers = [Layer(...), Layer(...)]`` rebuilt from the fields the copy of ``make`` returns
(``frontend/returned_records._as_display``): the same new list of the same objects. ``self.make``
of the object a method is made for is followed too. Generated family (module function or
method x the list x how the result is used x how many layers) against central
differences and autograd.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

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
    return {display}


class BNN:
    def __init__(self, scale):
        self.scale = scale

    def make_layers(self, w):
        return {display}

    def loss(self, w, x):
        layers = {call}
{use}


def loss(w, x):
    layers = make_layers(w)
{use_fn}
"""
DISPLAYS = {
    ("list", 2): "[Layer(w[0], w[1]), Layer(w[1] * w[2], w[0])]",
    ("list", 3): "[Layer(w[0], w[1]), Layer(w[2], 0.5), Layer(w[1] * w[2], w[0])]",
    ("list", 1): "[Layer(w[0] * w[2], w[1])]",
}
USES = {
    "loop": "    h = x\n    for l in layers:\n        h = l(h)\n    return np.sum(h ** 2)",
    "reversed": "    h = x\n    for l in reversed(layers):\n        h = l(h)\n"
                "    return np.sum(h ** 2) + np.sum(layers[0].W * x)",
    "index": "    h = layers[-1](layers[0](x))\n    return np.sum(h * x) + len(layers)",
    "fields": "    return sum(np.sum(l.W * x) * l.b for l in layers)",
}
CALLS = ("method", "function")

CASES = list(itertools.product(DISPLAYS, USES, CALLS))


def _text(display, use, call):
    body = USES[use]
    method_body = "\n".join("    " + line for line in body.split("\n"))
    return HEAD.format(display=DISPLAYS[display], use=method_body, use_fn=body,
                       call="self.make_layers(w)" if call == "method" else "make_layers(w)")


@pytest.mark.parametrize("display,use,call", sample(CASES, 3))
def test_a_list_of_objects_a_helper_returns(display, use, call, tmp_path):
    text = _text(display, use, call)
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    f, t = m.BNN(2.0).loss, a.BNN(2.0).loss
    g = srcad.grad(f)(W0, X0)
    np.testing.assert_allclose(g, central(f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(t)(W0, X0), rtol=1e-10, atol=1e-12)
    g = srcad.grad(m.loss)(W0, X0)
    np.testing.assert_allclose(g, autograd.grad(a.loss)(W0, X0), rtol=1e-10, atol=1e-12)
