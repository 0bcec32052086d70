"""A list or dict of functions changed after a derivative was made (issue 16, outside24
item 4): ``g = srcad.grad(net.loss)`` then ``net.acts[0] = np.sin`` (``append``, a new list,
a reorder; a global ``ACTS`` table, a dict, an object held by the object) then ``g(w, x)``.

The derivative is made again for the functions the container holds now
(``frontend/held_lists.py`` records an ``env.ItemsRead`` for each list or dict of functions a
name reaches; the dispatcher compares its items by identity on each call). Refused before
("the list or dict was changed after the code was made"). Generated family (where the
container is x how it changes) against central differences and autograd.
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

W0 = np.array([0.4, -0.3])
X0 = np.array([0.5, 1.0, -1.5])

TEXT = """
def relu(z):
    return np.maximum(z, 0.0) + 0.1 * z


def soft(z):
    return np.log(1.0 + np.exp(z))


ACTS = [np.tanh, relu]
TABLE = {"a": np.tanh, "b": relu}


class Net:
    def __init__(self, acts):
        self.acts = acts

    def loss(self, w, x):
        h = x
        for i in range(len(self.acts)):
            h = self.acts[i](w[0] * h) + w[1]
        return np.sum(h ** 2)


class Holder:
    def __init__(self, net):
        self.net = net

    def loss(self, w, x):
        return self.net.loss(w, x) * 0.5


def global_list(w, x):
    h = x
    for f in ACTS:
        h = f(w[0] * h) + w[1]
    return np.sum(h ** 2)


def global_dict(w, x):
    return np.sum(TABLE["a"](w[0] * x) * TABLE["b"](w[1] + x))
"""
WHERE = ("attribute", "nested", "global-list", "global-dict")
CHANGES = ("item", "append", "rebind", "reorder", "none")


def _fn(m, where):
    if where == "attribute":
        return m.Net([np.tanh, m.relu]).loss
    if where == "nested":
        return m.Holder(m.Net([np.tanh, m.relu])).loss
    return m.global_list if where == "global-list" else m.global_dict


def _container(m, fn, where):
    if where in ("attribute", "nested"):
        net = fn.__self__ if where == "attribute" else fn.__self__.net
        return net, "acts"
    return m, "ACTS" if where == "global-list" else "TABLE"


def _change(m, holder, attr, change):
    c = getattr(holder, attr)
    keys = list(c) if isinstance(c, dict) else list(range(len(c)))
    if change == "item":
        c[keys[0]] = np.sin
    elif change == "append":
        if isinstance(c, dict):
            c["c"] = m.soft
        else:
            c.append(m.soft)
    elif change == "rebind":
        setattr(holder, attr, {"a": m.soft, "b": np.cos} if isinstance(c, dict)
                else [m.soft, np.cos])
    elif change == "reorder":
        if isinstance(c, dict):
            c["a"], c["b"] = c["b"], c["a"]
        else:
            c.reverse()


@pytest.mark.parametrize("where,change", sample(itertools.product(WHERE, CHANGES), 5))
def test_a_container_of_functions_changed_after_the_code_was_made(where, change, tmp_path):
    m, a = load_module(tmp_path, NP + TEXT), load_module(tmp_path, AG + TEXT)
    f = _fn(m, where)
    g = srcad.grad(f)
    np.testing.assert_allclose(g(W0, X0), central(f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    holder, attr = _container(m, f, where)
    _change(m, holder, attr, change)
    got = g(W0, X0)
    np.testing.assert_allclose(got, central(f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    if where in ("global-list", "global-dict"):  # the same change on the autograd twin
        _change(a, a, attr, change)
        np.testing.assert_allclose(got, autograd.grad(_fn(a, where))(W0, X0), rtol=1e-9,
                                   atol=1e-12)
    _change(m, holder, attr, "item")  # changed again: made again again
    np.testing.assert_allclose(g(W0, X0), central(f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
