"""``srcad.grad(obj)`` of a callable object inside the function differentiated (MAML-style).

Met in a meta-learning assignment's code (a ``MetaObjective`` whose ``__call__`` runs
``gd_step(InnerObjective(x, y), params, lr)``, and ``gd_step`` takes ``grad(cost)(params)``):
the inner derivative of an object of the user's class with ``__call__`` was not made while
lowering (only of functions, lambdas and partials), so calling it was refused ("calling the
local value 'g', whose value srcad does not know"). ``grad(obj)`` of an object whose class
lowering knows is now ``grad(obj.__call__)``, the bound method read as a partial of the
class's function with the object first (``frontend/lower_derivatives.make_derivative``): the
outer derivative sees through the inner one and through the object's fields.

The family: where the object comes from (built in the function, built from differentiated
values, given to a helper that takes the gradient, built in a ``__call__`` of another class) x
the maker (``grad``, ``value_and_grad``) x how the derivative is called (named first, called
at once) x the parameters (an array, a dict of arrays), against central differences and
autograd on the same text. An object the function builds (from differentiated values too,
which the record pass follows field by field) is read as ``grad(lambda p: obj(p))`` before
that pass (``frontend/callable_grads``).
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

HEAD = """
class Inner:
    def __init__(self, x):
        self.x = x

    def __call__(self, p):
        a, b = unpack(p)
        return np.sum(np.tanh(a * self.x) ** 2) + np.sum(b ** 2) * np.sum(a)
"""

MAKERS = {
    "grad": ("grad({o})", "{d}"),
    "value_and_grad": ("value_and_grad({o})", "{d}[1]"),
}

CALLS = {
    "named": "    d = D.{m}\n    g = d(p)\n",
    "at_once": "    g = D.{m}(p)\n",
}

SOURCES = {
    "here": ("def f(w, x):\n    p = pack(w[:3], w[3:])\n    obj = Inner(x)\n{body}"
             "    q = sub(p, {g}, 0.1)\n    return obj(q)\n"),
    "from_wrt": ("def f(w, x):\n    p = pack(w[:3], w[3:])\n    obj = Inner(x * w[0])\n"
                 "{body}    q = sub(p, {g}, 0.1)\n    return obj(q)\n"),
    "helper": ("def step(obj, p):\n{body}    return sub(p, {g}, 0.1)\n\n"
               "def f(w, x):\n    p = pack(w[:3], w[3:])\n    q = step(Inner(x), p)\n"
               "    return Inner(x)(q)\n"),
    "method": ("class Meta:\n    def __init__(self, x):\n        self.x = x\n\n"
               "    def __call__(self, p):\n        obj = Inner(self.x)\n{body8}"
               "        q = sub(p, {g}, 0.1)\n        return obj(q)\n\n"
               "def f(w, x):\n    return Meta(x)(pack(w[:3], w[3:]))\n"),
}

PARAMS = {
    "array": ("def unpack(p):\n    return p[:3], p[3:]\n\n"
              "def pack(a, b):\n    return np.concatenate([a, b])\n\n"
              "def sub(p, g, lr):\n    return p - lr * g\n"),
    "dict": ("def unpack(p):\n    return p['a'], p['b']\n\n"
             "def pack(a, b):\n    return {'a': a, 'b': b}\n\n"
             "def sub(p, g, lr):\n    return {k: p[k] - lr * g[k] for k in p.keys()}\n"),
}

CASES = list(itertools.product(SOURCES, MAKERS, CALLS, PARAMS))
W0 = np.array([0.3, -0.2, 0.5, 0.1, 0.4])
X0 = np.array([1.0, 2.0, -1.5])


def _text(source, maker, call, params, engine):
    made, read = MAKERS[maker]
    body = CALLS[call].format(m=made.format(o="obj"))
    g = read.format(d="g")
    text = SOURCES[source].format(body=body, body8=body.replace("    ", "        "), g=g)
    return f"import {engine} as D\n" + HEAD + PARAMS[params] + "\n" + text


@pytest.mark.parametrize("source,maker,call,params", sample(CASES, 4))
def test_the_gradient_of_a_callable_object_inside(source, maker, call, params, tmp_path):
    m = load_module(tmp_path, NP + _text(source, maker, call, params, "srcad"))
    a = load_module(tmp_path, AG + _text(source, maker, call, params, "autograd"))
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(m.f(W0, X0), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W0, X0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)


def test_the_inner_derivative_is_made_while_lowering(tmp_path):
    """No call of srcad.grad is left in the code: the derivative of Inner.__call__ is made."""
    m = load_module(tmp_path, NP + _text("helper", "grad", "named", "array", "srcad"))
    g = srcad.grad(m.f)
    g(W0, X0)
    text = srcad.source(g)
    assert "call_value" not in text and "D.grad" not in text
