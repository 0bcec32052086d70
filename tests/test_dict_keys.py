"""A dict's gradient is a dict of its values' gradients, keyed as the dict: a key has no
derivative. A key that depends on a differentiated value (a display's key, ``d[k] = v``, a
comprehension's key, ``setdefault``, ``dict(zip(keys, values))``) would give a gradient that
misses what flows through the keys when they come back out (``items()``, iteration,
``list(d)``, ``max(d)``): it is refused at its line, in every mode. Dicts keyed by constants,
with differentiated values, are differentiated (against finite differences and autograd).
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad


def display_items(x):
    d = {x[0]: x[1]}
    return sum(k * v for k, v in d.items())


def display_list_of_keys(x):
    d = {x[0]: x[1]}
    return list(d)[0] * x[1]


def zipped(x):
    d = dict(zip(x[0::2], x[1::2]))
    return sum(k * v for k, v in d.items())


def stored(x):
    d = {}
    d[x[0]] = x[1]
    return sum(k * v for k, v in d.items())


def iterated(x):
    d = {x[0] * 2.0: 1.0}
    t = 0.0
    for k in d:
        t = t + k * x[1]
    return t


def largest_key(x):
    d = {x[0]: x[1], 3.0: x[2]}
    return max(d) * 2.0


def comprehension(x):
    d = {x[i]: x[i + 1] for i in range(0, 4, 2)}
    return sum(k * v for k, v in d.items())


def set_default(x):
    d = {}
    d.setdefault(x[0] + 1.0, x[1])
    return sum(k * v for k, v in d.items())


def filtered(x):
    d = {x[i] * 1.0: x[i + 1] for i in range(4) if i % 2 == 0}
    return sum(k * v for k, v in d.items())


def in_a_loop(x):
    d = {}
    for i in range(2):
        if x[i] > 0.0:
            d[x[i] + i] = x[i + 2]
    return max(d) * x[3]


REFUSED = [display_items, display_list_of_keys, zipped, stored, iterated, largest_key,
           comprehension, set_default, filtered, in_a_loop]


def named(x, names=("a", "b")):
    d = dict(zip(names, x[1::2]))
    return sum(v * v for k, v in d.items())


def indexed(x):
    d = {}
    for i in range(4):
        d[i] = x[i] * x[i]
    return sum(d.values()) + d[2] * x[0]


def mixed_keys(x):
    d = {"a": x[0], 1: x[1] * x[2]}
    t = 0.0
    for _k, v in d.items():
        t = t + v * v
    return t


EXACT = [named, indexed, mixed_keys]
X = np.array([1.5, 0.3, 2.0, 0.7])


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["grad", "jvp", "hessian"])
def test_differentiated_key_is_refused_at_its_line(f, mode):
    with pytest.raises(srcad.SrcadError) as info:
        if mode == "grad":
            srcad.grad(f)(X)
        elif mode == "jvp":
            srcad.jvp(f, (X,), (np.ones(4),))
        else:
            srcad.hessian(f)(X)
    assert "dict key" in str(info.value) and __file__ in str(info.value)


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_constant_keys_are_differentiated(f):
    got = srcad.grad(f)(X)
    np.testing.assert_allclose(got, numerical_grad(f, (X,), 0), rtol=1e-6, atol=1e-8)
    theirs = autograd.grad(lambda x: f(x))(anp.array(X))
    np.testing.assert_allclose(got, theirs, rtol=1e-12, atol=1e-12)
    _, tangent = srcad.jvp(f, (X,), (np.ones(4),))
    assert tangent == pytest.approx(float(np.sum(got)), rel=1e-10)
