"""Functions held by an object, as Python finds them (issue 16, outside23 items 1 and 8).

* A list attribute of functions, ``self.acts = [np.tanh, relu]``, called by index, by
  iteration, by a negative index, in a bound method or with the object passed: the list is
  read when the code runs and each call is one of the functions it held when the code was
  made (those are part of the specialisation: an object holding others gets its own code).
  A list changed in place afterwards: a reorder among those functions is still exact; any
  other function raises a SrcadError at the line (never stale code); a new derivative is made
  for the list as it is.
* A function set on the object hiding a method of its class (``m.act = np.sin`` with
  ``def act(self, z)`` in the class): called, as Python does; set after the code was made,
  a SrcadError naming the line (before: a plain TypeError).

Checked against central differences and autograd on the same source.
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

W0 = np.array([0.3, -0.2])
X0 = np.array([0.5, 1.0, -1.5])

CLASS = """
def relu(z):
    return np.maximum(z, 0.0)


def soft(z):
    return np.log(1.0 + np.exp(z))


class Net:
    def __init__(self, acts):
        self.acts = acts

    def loss(self, w, x):
        h = x
{body}
        return np.sum(h ** 2)


def passed(net, w, x):
    return net.loss(w, x) * 2.0
"""
BODIES = {
    "index": "        for i in range(len(self.acts)):\n"
             "            h = self.acts[i](w[0] * h) + w[1]",
    "iterate": "        for f in self.acts:\n            h = f(w[0] * h) + w[1]",
    "last": "        h = self.acts[-1](w[0] * h) + self.acts[0](w[1] * x)",
    "enumerate": "        for k, f in enumerate(self.acts):\n"
                 "            h = f(w[k % 2] * h) + w[1]",
}
LISTS = {"tanh_relu": "[np.tanh, relu]", "three": "[np.sin, soft, np.tanh]",
         "same_twice": "[np.tanh, np.tanh]"}
WAYS = ("bound", "passed")

CASES = list(itertools.product(BODIES, LISTS, WAYS))


def _modules(tmp_path, body):
    text = CLASS.format(body=BODIES[body])
    return load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)


def _fn(m, acts, way):
    net = m.Net(list(acts))
    return (net.loss, (W0, X0)) if way == "bound" else (m.passed, (net, W0, X0))


@pytest.mark.parametrize("body,acts,way", sample(CASES, 4))
def test_a_list_attribute_of_functions(body, acts, way, tmp_path):
    m, a = _modules(tmp_path, body)
    made = eval(LISTS[acts], {"np": np, "relu": m.relu, "soft": m.soft})  # noqa: S307
    twin = eval(LISTS[acts], {"np": autograd.numpy, "relu": a.relu, "soft": a.soft})  # noqa: S307
    f, args = _fn(m, made, way)
    g_twin, twin_args = _fn(a, twin, way)
    k = 0 if way == "bound" else 1
    value, g = srcad.value_and_grad(f, wrt=k)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    np.testing.assert_allclose(g, central(f, args, k), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(g_twin, k)(*twin_args), rtol=1e-10, atol=1e-12)


def test_a_list_changed_after_the_code_was_made(tmp_path):
    """A reorder among the functions held: exact. Another function: the code made again
    (outside24), never the code made for the old list. A new derivative: made for the list
    as it is; an object passed with other functions: code of its own."""
    m, _ = _modules(tmp_path, "index")
    net = m.Net([np.tanh, m.relu])
    g = srcad.grad(net.loss)
    np.testing.assert_allclose(g(W0, X0), central(net.loss, (W0, X0), 0), rtol=1e-6)
    net.acts.reverse()
    np.testing.assert_allclose(g(W0, X0), central(net.loss, (W0, X0), 0), rtol=1e-6)
    for change in ("item", "append", "rebind"):
        net = m.Net([np.tanh, m.relu])
        g = srcad.grad(net.loss)
        g(W0, X0)
        if change == "item":
            net.acts[0] = np.sin
        elif change == "append":
            net.acts.append(np.cos)
        else:
            net.acts = [np.cos, np.sin]
        # (outside24) made again for the functions held now (a SrcadError before)
        np.testing.assert_allclose(g(W0, X0), central(net.loss, (W0, X0), 0), rtol=1e-6,
                                   atol=1e-8)
        np.testing.assert_allclose(srcad.grad(net.loss)(W0, X0),
                                   central(net.loss, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    d = srcad.grad(m.passed, wrt=1)
    for acts in ([np.tanh, m.relu], [np.sin, np.cos, np.tanh]):
        net = m.Net(acts)
        np.testing.assert_allclose(d(net, W0, X0), central(m.passed, (net, W0, X0), 1),
                                   rtol=1e-6, atol=1e-8)


SHADOW = """
def cube(z):
    return z ** 3


class M:
    def act(self, z):
        return np.tanh(z)

    def loss(self, w, x):
        return np.sum(self.act(w[0] * x) ** 2) * w[1]
"""


@pytest.mark.parametrize("held", ["np.sin", "cube"])
def test_a_function_set_on_the_object_hides_the_method(held, tmp_path):
    m = load_module(tmp_path, NP + SHADOW)
    obj = m.M()
    obj.act = eval(held, {"np": np, "cube": m.cube})  # noqa: S307
    g = srcad.grad(obj.loss)(W0, X0)
    np.testing.assert_allclose(g, central(obj.loss, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    plain = m.M()
    made = srcad.grad(plain.loss)
    made(W0, X0)
    plain.act = obj.act
    with pytest.raises(srcad.SrcadError, match="of its own") as err:
        made(W0, X0)
    assert "self.act(w[0] * x)" in (NP + SHADOW).splitlines()[err.value.lineno - 1]
    assert "make the derivative again" in err.value.hint
