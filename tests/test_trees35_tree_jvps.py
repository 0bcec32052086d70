"""``jvp`` and ``hvp`` of containers of floats by the closure kept for their structure
(trees35, ``srcad.tree_jvps``): after the full path ran on a dict, list or tuple of floats
(nested too) and a tangent of the same structure, the forward-mode code is called directly
while a compiled test of the primals' and tangents' classes, keys in order, lengths and leaf
classes passes and the names the code read are fresh.

Each must stay exact when the arguments change between calls (keys in another order, an
extra key, an int, NumPy number or array leaf, a tangent of another structure, a record):
every call against central differences along the tangent and autograd's ``jvp``/``hvp``
of the same function over the flattened leaves, and the full path counted.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sampling import LONG
from test_calls32_trees import NT, flat, unflat

import srcad
from srcad import api

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def f(p):
    return np.sum(np.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"])


def twin(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"])


def f_seq(p):
    return math.sin(p[0]) * p[1][0] + p[0] * p[1][1]


def twin_seq(p):
    return anp.sin(p[0]) * p[1][0] + p[0] * p[1][1]


@pytest.fixture
def full_path(monkeypatch):
    """How many calls of jvp took the full path (``api._jvp_function``)."""
    count = [0]
    inner = api._jvp_function

    def counted(*args, **kwargs):
        count[0] += 1
        return inner(*args, **kwargs)

    monkeypatch.setattr(api, "_jvp_function", counted)
    return count


def want(fn, tw, x, v):
    """``(value, J·v, H·v)`` by autograd over the flattened leaves; J·v checked against
    central differences along ``v``."""
    u, d = flat(x), flat(in_order(v, x))

    def g(w):
        return tw(unflat(w, x)[0])

    h = 1e-6
    cd = (fn(unflat(u + h * d, x)[0]) - fn(unflat(u - h * d, x)[0])) / (2 * h)
    jv = float(np.dot(autograd.grad(g)(u), d))
    np.testing.assert_allclose(cd, jv, rtol=1e-6, atol=1e-8)
    hv = autograd.hessian(g)(u) @ d
    return fn(x), jv, hv


def in_order(v, x):
    """The tangent ``v`` with its dicts' keys in ``x``'s order (as srcad reads it: by key)."""
    if isinstance(x, dict):
        return {k: in_order(v[k], x[k]) for k in x}
    if isinstance(x, (list, tuple)):
        return [in_order(a, b) for a, b in zip(v, x)]
    return v


CALLS = [  # (primal, tangent, structures seen before: the closure takes it)
    ({"a": 0.7, "b": 0.3}, {"a": 1.0, "b": 0.5}, False),
    ({"a": 0.2, "b": -0.4}, {"a": 0.3, "b": 2.0}, True),
    ({"b": 0.3, "a": 0.7}, {"b": 0.5, "a": 1.0}, False),  # keys in another order
    ({"a": 0.7, "b": 0.3}, {"b": 0.5, "a": 1.0}, False),  # the tangent's order only
    ({"a": 0.7, "b": 0.3, "c": 0.1}, {"a": 1.0, "b": 0.5, "c": 0.0}, False),  # an extra key
    ({"a": 1, "b": 0.3}, {"a": 1.0, "b": 0.5}, False),  # an int primal
    ({"a": np.float64(0.7), "b": 0.3}, {"a": 1.0, "b": 0.5}, False),  # NumPy's number
    ({"a": 0.7, "b": 0.3}, {"a": np.float64(1.0), "b": 0.5}, False),  # in the tangent
    ({"a": np.array([0.7, 0.1]), "b": 0.3}, {"a": np.ones(2), "b": 0.5}, False),  # arrays
    ({"a": 0.7, "b": 0.3}, {"a": 1.0, "b": 0.5}, True),
]


def test_jvp_and_hvp_of_a_dict_changed_between_calls(full_path):
    for x, v, seen in CALLS if LONG else [CALLS[i] for i in (0, 1, 3, 5, 9)]:
        value, jv, hv = want(f, twin, x, v)
        before = full_path[0]
        got = srcad.jvp(f, (x,), (v,))
        np.testing.assert_allclose([got[0], got[1]], [value, jv], rtol=1e-10, atol=1e-12)
        if seen:
            assert full_path[0] == before, "a structure of floats seen before: the closure"
        got = srcad.hvp(f, x, v)
        assert type(got) is dict and list(got) == list(x)
        np.testing.assert_allclose(flat(got), hv, rtol=1e-9, atol=1e-12)


def test_a_nested_list_and_tuple():
    xs = [([0.7, (0.3, 0.2)], [1.0, (0.5, -1.0)]), ([0.1, (0.3, 0.2)], [0.0, (1.0, 0.0)]),
          ([0.7, [0.3, 0.2]], [1.0, [0.5, -1.0]]),  # a tuple become a list
          ([0.7, (0.3, 0.2)], [1.0, (0.5, -1.0)])]
    for x, v in xs:
        value, jv, hv = want(f_seq, twin_seq, x, v)
        got = srcad.jvp(f_seq, (x,), (v,))
        np.testing.assert_allclose([got[0], got[1]], [value, jv], rtol=1e-10, atol=1e-12)
        got = srcad.hvp(f_seq, (x,), v)
        np.testing.assert_allclose(flat(got), hv, rtol=1e-9, atol=1e-12)


def test_a_tangent_of_another_structure_refused_after_the_closure():
    """The full path's check of the tangent (a missing key, a list for a dict, a record)
    stays, after calls the closure took."""
    x = {"a": 0.7, "b": 0.3}
    for _ in range(2):
        srcad.jvp(f, (x,), ({"a": 1.0, "b": 0.5},))
    for bad in ({"a": 1.0}, [1.0, 0.5], {"a": 1.0, "c": 0.5}, NT(1.0, 0.5)):
        with pytest.raises((srcad.SrcadError, TypeError, ValueError)):
            srcad.jvp(f, (x,), (bad,))


SCALE = 2.0


def scaled(p):
    return SCALE * math.sin(p["a"]) * p["b"]


def test_a_rebound_name_takes_the_full_path():
    """A global the forward code read, rebound between calls: the new value's derivative
    (the closure's freshness test fails, the full path makes the code again)."""
    global SCALE
    x, v = {"a": 0.7, "b": 0.3}, {"a": 1.0, "b": 0.5}
    try:
        for s in (2.0, 3.0, 2.0):
            SCALE = s
            for _ in range(2):
                got = srcad.jvp(scaled, (x,), (v,))[1]
                want_ = s * (math.cos(0.7) * 0.3 * 1.0 + math.sin(0.7) * 0.5)
                assert abs(got - want_) < 1e-12, (s, got, want_)
    finally:
        SCALE = 2.0
