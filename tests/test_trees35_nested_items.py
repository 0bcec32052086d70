"""Item kinds of nested containers (trees35, ``srcad.core.kinds.item_kinds``' ``inner``,
``srcad.analysis.value_kinds.inner_read``): ``w = params["w"]`` of an argument whose item
``"w"`` is a dict (a list, a tuple; on down) reads ``w["a"]`` by the kind found in the
argument, as a flat dict's items are read, so ``grad``'s code for a nested dict of floats is
``math``'s arithmetic, not NumPy's calls, ``unbroadcast`` and ``check_scalar`` on items of
any kind; and ``like``/``copy_tangent``'s dict fast paths (the forward code of a dict's
gradient, a Hessian's passes).

Each must stay exact when the argument changes between calls (keys in another order, an
extra key, a number become an array, an int or ``np.float32`` leaf, a dict become a list):
``grad``, ``vjp``, ``jacobian`` and ``hessian`` against central differences and autograd
(the same function written with ``autograd.numpy`` over the flattened leaves).
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from sampling import LONG, sample_by
from test_calls32_trees import flat, leaves, references
from test_calls32_trees import same_structure as shaped_as  # (a number of any class)
from test_calls33_tree_plans import hessian_rows, same_structure
from twin_checks import central

import srcad
from srcad.runtime.helpers import copy_tangent, like

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def f_dict(p):  # a dict in a dict (an array leaf: NumPy's functions, a sum)
    w = p["w"]
    return np.sum(np.sin(w["a"]) * p["b"] + w["a"] * w["c"] * p["b"])


def ag_dict(p):
    w = p["w"]
    return anp.sum(anp.sin(w["a"]) * p["b"] + w["a"] * w["c"] * p["b"])


def f_deep(p):  # three levels, a list among them, each read twice
    return math.sin(p["x"]["y"][0]) * p["x"]["y"][1] + p["x"]["y"][0] * p["x"]["z"]["u"]


def ag_deep(p):
    return anp.sin(p["x"]["y"][0]) * p["x"]["y"][1] + p["x"]["y"][0] * p["x"]["z"]["u"]


def f_listed(p):  # dicts in a list
    return math.exp(p[0]["a"] * p[1]["a"]) + p[1]["b"] * p[0]["a"]


def ag_listed(p):
    return anp.exp(p[0]["a"] * p[1]["a"]) + p[1]["b"] * p[0]["a"]


DICTS = [{"w": {"a": 0.7, "c": 0.2}, "b": 0.3},
         {"b": 0.3, "w": {"c": 0.2, "a": 0.7}},  # keys in another order
         {"w": {"a": 0.7, "c": 0.2, "z": 0.9}, "b": 0.3},  # an extra key
         {"w": {"a": np.array([0.7, -0.4]), "c": 0.2}, "b": 0.3},  # a number become an array
         {"w": {"a": 1, "c": 0.2}, "b": 0.3},  # an int
         {"w": {"a": np.float32(0.7), "c": 0.2}, "b": 0.3},  # another dtype
         {"w": {"a": 0.5, "c": np.float64(-0.2)}, "b": 0.6}]
DEEP = [{"x": {"y": [0.7, 0.2], "z": {"u": 0.4}}},
        {"x": {"y": (0.7, 0.2), "z": {"u": 0.4}}},  # a list become a tuple
        {"x": {"z": {"u": 0.4}, "y": [0.7, 0.2, 0.5]}},  # another order, another length
        {"x": {"y": [0.7, 0.2], "z": {"u": 1}}}]
LISTED = [[{"a": 0.3, "b": 0.2}, {"a": 0.5, "b": -0.1}],
          [{"a": 0.3, "b": 0.2}, {"b": -0.1, "a": 0.5}],
          ({"a": 0.3}, {"a": 0.5, "b": -0.1})]
CASES = [(f_dict, ag_dict, xs) for xs in DICTS] + [(f_deep, ag_deep, x) for x in DEEP] + [
    (f_listed, ag_listed, x) for x in LISTED]


def check(f, twin, xs, hessians=True):
    """``grad``, ``vjp``, ``jacobian`` and ``hessian`` (numbers only, with ``hessians``; by
    default of the first and last structures) of ``f`` made once, called with each of
    ``xs`` in turn, twice each, against the references."""
    g, jac, hess = srcad.grad(f), srcad.jacobian(f), srcad.hessian(f)
    for n, x in enumerate(xs):
        want, want_h = references(f, twin, x)  # (in float64: a float32 leaf rounds srcad's)
        narrow = any(isinstance(v, np.float32) for v in leaves(x))
        rtol, rtol_h = (1e-6, 1e-6) if narrow else (1e-9, 1e-8)
        for _ in range(2):
            # (grad's and vjp's leaves NumPy's numbers where f's are; the Jacobian's floats)
            for got, shaped in ((g(x), shaped_as), (srcad.vjp(f, x)[1](1.0)[0], shaped_as),
                                (jac(x), same_structure)):
                shaped(got, x)
                np.testing.assert_allclose(flat(got), want, rtol=rtol, atol=1e-12)
            if all(np.ndim(v) == 0 for v in leaves(x)) and hessians and (
                    LONG or n in (0, len(xs) - 1)):
                rows = hessian_rows(hess(x), x)
                for row in rows:
                    same_structure(row, x)
                np.testing.assert_allclose(np.array([flat(r) for r in rows]), want_h,
                                           rtol=rtol_h, atol=1e-10)


@pytest.mark.parametrize("first", sample_by(range(len(CASES)), lambda i: CASES[i][0].__name__,
                                             4))
def test_nested_changed_between_calls(first):
    """One case, then every other case of its function and the first again (a number
    become an array, another dtype: code of their own, the cache key holds the structure)."""
    f, twin, x = CASES[first]
    others = [c[2] for c in CASES if c[0] is f and c[2] is not x]
    check(f, twin, [x] + (others if LONG else others[:1]) + [x],
          hessians=LONG or f is f_dict)  # (each Hessian's code ~1.5 s to make)


def test_nested_floats_read_by_kind():
    """grad's code for a nested dict of floats: the items read as numbers (no NumPy call,
    no unbroadcast or check_scalar), the gradient's leaves floats (NumPy's numbers before)."""
    for f, x in ((f_deep, DEEP[0]), (f_listed, LISTED[0])):
        g = srcad.grad(f)
        got = g(x)
        assert all(type(v) is float for v in leaves(got)), got
        text = srcad.source(g)
        for made_for_any in ("np.sum", "unbroadcast", "check_scalar", "np.cos"):
            assert made_for_any not in text, text


Pair = collections.namedtuple("Pair", "a b")


@pytest.mark.parametrize("grad, value", [
    ({"a": 0.1, "b": 0.2}, {"a": 0.7, "b": 0.3}),
    ({"b": 0.2, "a": 0.1}, {"a": 0.7, "b": 0.3}),  # the value's order
    ({"a": [0.1], "b": 0.2}, {"a": (0.7,), "b": 0.3}),  # a tuple where the value has one
    ({"a": 0.1, "b": 0.2}, collections.OrderedDict(a=0.7, b=0.3)),  # a subclass: a dict
])
def test_like_and_copy_tangent_of_dicts(grad, value):
    """``like`` of a dict: a new plain dict in the value's key order, each item ``like``'s
    (a tuple for a tuple); ``copy_tangent`` of dicts: a new dict of the tangent's items."""
    got = like(grad, value)
    assert type(got) is dict and got is not grad and list(got) == list(value)
    for k, v in value.items():
        assert got[k] == (tuple(grad[k]) if type(v) is tuple else grad[k])
        assert type(got[k]) is (tuple if type(v) is tuple else type(grad[k]))
    copied = copy_tangent(grad, dict(value))
    assert type(copied) is dict and copied is not grad and copied == grad
    assert list(copied) == list(grad)


def _helper_writes(d):
    d["a"] = np.ones(3)


def w_set(x, p):
    p["w"]["a"] = np.ones(3)
    return np.sum(x * p["w"]["a"])


def w_update(x, p):
    p["w"].update({"a": np.ones(3)})
    return np.sum(x * p["w"]["a"])


def w_named(x, p):
    w = p["w"]
    w["a"] = np.ones(3)
    return np.sum(x * p["w"]["a"])


def w_pop(x, p):
    q = p["w"]
    q.pop("a")
    q.setdefault("a", np.ones(3))
    return np.sum(x * p["w"]["a"])


def w_callee(x, p):
    _helper_writes(p["w"])
    return np.sum(x * p["w"]["a"])


def w_copied(x, p):  # a copy written: the argument's items stay as they were
    w = dict(p["w"])
    w["a"] = np.ones(3) * x
    return np.sum(w["a"] * p["w"]["a"] * x)


@pytest.mark.parametrize("f", [w_set, w_update, w_named, w_pop, w_callee])
@pytest.mark.parametrize("wrt", [0, 1])
def test_writes_into_an_argument_item(f, wrt):
    """What makes the inner kinds hold: a write into an item of an argument (by any name,
    method or callee) is refused where the argument is differentiated; where it is not, it is
    refused or (session 36, srcad.written_state) differentiated at the values the argument
    held when called, the argument left as the plain run leaves it."""
    if wrt == 1:
        with pytest.raises(srcad.SrcadError):
            srcad.grad(f, wrt=wrt)(0.7, {"w": {"a": 0.5}})
        return
    given, plain = {"w": {"a": 0.5}}, {"w": {"a": 0.5}}
    f(0.7, plain)
    try:
        got = srcad.grad(f, wrt=0)(0.7, given)
    except srcad.SrcadError:
        return
    want = central(lambda v: f(v[0], {"w": {"a": 0.5}}), [np.array([0.7])], 0)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert given.keys() == plain.keys() and given["w"].keys() == plain["w"].keys()
    np.testing.assert_array_equal(given["w"]["a"], plain["w"]["a"])


def test_a_copy_of_an_argument_item_written():
    x, p = 0.7, {"w": {"a": 0.5}}
    got = srcad.grad(w_copied, wrt=(0, 1))(x, p)
    want_x = central(lambda v: w_copied(v[0], p), [np.array([x])], 0)[0]
    want_a = central(lambda v: w_copied(x, {"w": {"a": v[0]}}), [np.array([0.5])], 0)[0]
    np.testing.assert_allclose([got[0], got[1]["w"]["a"]], [want_x, want_a], rtol=1e-6)
    ag = autograd.grad(lambda x, a: anp.sum(anp.ones(3) * x * a * x), argnum=(0, 1))(x, 0.5)
    np.testing.assert_allclose([got[0], got[1]["w"]["a"]], ag, rtol=1e-9)
