"""Hessians of records by the dict code (trees34, ``srcad.tree_jacobians._fwd_plan``): a
plan for a named tuple or dataclass of floats calls the forward-mode code made for the
records read as dicts, the records flattened once a call, instead of the wrapper that
flattens them and makes records again at each pass; and a dict's gradient built by
``items_at``'s one pass (every item read once).

Each must stay exact when the arguments change between calls (an int, a NumPy number or an
array leaf, another record class, a record nested in a record, a record not differentiated
beside one that is, two records differentiated together): each case against central
differences and autograd (the same function written with ``autograd.numpy`` over the
flattened leaves), its structure against the argument's, and the plan's use by counting
the full path's walks.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from sampling import LONG, sample
from test_calls32_trees import DC, NT, flat, unflat
from test_calls32_trees import same_structure as shaped_as  # (a number of any class)
from test_calls33_tree_plans import (  # walks: the fixture
    ag_rec,
    check,
    f_rec,
    hessian_rows,
    same_structure,
    walks,  # noqa: F401
)
from twin_checks import central

import srcad
from srcad import nested_vjp, pytrees
from srcad.runtime.items import items_at

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

Three = collections.namedtuple("Three", "a b c")


def f_nested(p):  # a record in a record
    return math.sin(p.a.a) * p.b + p.a.b * p.b * p.a.a


def ag_nested(p):
    return anp.sin(p.a.a) * p.b + p.a.b * p.b * p.a.a


def f_three(p):
    return math.sin(p.a) * p.b + p.c * p.a * p.a


def ag_three(p):
    return anp.sin(p.a) * p.b + p.c * p.a * p.a


def test_records_changed_between_calls(walks):  # noqa: F811
    """A named tuple of floats, then leaves of other classes (the full path), again (an
    array leaf: tests/test_calls33_tree_plans, math.sin here)."""
    xs = [NT(0.7, 0.3), NT(np.float64(0.7), 0.3), NT(1, 0.3), NT(0.7, 0.3),
          NT(0.7, np.float64(0.3)), DC(0.7, 0.3), NT(0.7, 0.3)]
    check(f_rec, ag_rec, xs if LONG else [xs[0], xs[1], xs[0]], walks)


@pytest.mark.parametrize("make", sample([NT, DC], 2))
def test_a_record_nested_in_a_record(make, walks):  # noqa: F811
    xs = [make(DC(0.7, 0.2), 0.3), make(NT(0.7, 0.2), 0.3), make(DC(0.5, 0.1), 0.4)]
    check(f_nested, ag_nested, xs if LONG else xs[:1] + xs[2:], walks)


def f_listed(p):  # a record holding a list (read as a dict by flatten, not by a display)
    return math.sin(p.a[0]) * p.b + p.a[1] * p.b * p.a[0]


def ag_listed(p):
    return anp.sin(p.a[0]) * p.b + p.a[1] * p.b * p.a[0]


def test_a_record_holding_a_list(walks):  # noqa: F811
    check(f_listed, ag_listed, [NT([0.7, 0.2], 0.3)] + ([DC([0.5, 0.1], 0.4)] if LONG else []),
          walks)


def test_a_record_of_three_fields(walks):  # noqa: F811
    check(f_three, ag_three, [Three(0.7, 0.3, 0.2), Three(0.1, -0.4, 1.5)], walks)


def g_two(p, q):  # two records: q differentiated or not
    return math.sin(p.a) * q.b + p.b * q.a * q.a


def ag_two(p, q):
    return anp.sin(p.a) * q.b + p.b * q.a * q.a


def hessian_ref(p, q, wrt):
    def of(v):
        args = [p, q]
        start = 0
        for w in wrt:
            args[w], start = unflat(v, args[w], start)
        return ag_two(*args)

    v = np.concatenate([flat((p, q)[w]) for w in wrt])
    grad = autograd.grad(of)
    cd = [central(lambda w, i=i: grad(w)[i], [v], 0) for i in range(len(v))]
    want = autograd.hessian(of)(v)
    np.testing.assert_allclose(cd, want, rtol=1e-5, atol=1e-7)
    return want


@pytest.mark.parametrize("wrt", [(0, 1)] + ([0] if LONG else []))
def test_two_records(wrt, walks):  # noqa: F811
    """One record differentiated beside another that is not, or both (the tangents of
    both read as dicts); each call twice (the second by the plan), against the references."""
    hess = srcad.hessian(g_two, wrt=wrt)
    cases = [(NT(0.7, 0.3), DC(0.4, -0.2)), (NT(0.7, 0.3), DC(0.4, np.float64(-0.2))),
             (NT(0.1, 0.5), DC(1.2, 0.3))][:None if LONG else 2]
    for p, q in cases:
        want = hessian_ref(p, q, (wrt,) if wrt == 0 else wrt)
        floats = type(q.b) is float
        for n in range(2):
            before = walks[0]
            got = hess(p, q)
            if wrt == 0:
                for row in hessian_rows(got, p):
                    same_structure(row, p)
                rows = [flat(r) for r in hessian_rows(got, p)]
            else:  # (rows by argument, then field; each row over both arguments' fields)
                rows = [flat(r) for i in range(2) for r in hessian_rows(got[i], (p, q)[i])]
            np.testing.assert_allclose(np.array(rows), want, rtol=1e-8, atol=1e-10)
            if n and floats:
                assert walks[0] == before, "a structure of floats seen before walked again"


def test_the_plan_calls_the_dict_code(monkeypatch):
    """After the first call, a record's Hessian makes no record from the dict code's
    output (the wrapper's ``as_flat_records``/``as_records`` at each pass): its plan reads
    the dict code's dicts; a named tuple's and a dataclass's."""
    made = [0]

    def counting(f):
        def counted(*args, **kwargs):
            made[0] += 1
            return f(*args, **kwargs)

        return counted

    for name in ("as_flat_records", "as_records"):
        monkeypatch.setattr(pytrees, name, counting(getattr(pytrees, name)))
    for x, ag in ((NT(0.7, 0.3), ag_rec), (DC(0.7, 0.3), ag_rec)):
        hess = srcad.hessian(f_rec)
        hess(x)
        before = made[0]
        got = hess(x)
        assert made[0] == before
        want = autograd.hessian(lambda v, x=x, ag=ag: ag(unflat(v, x)[0]))(flat(x))
        np.testing.assert_allclose([flat(r) for r in hessian_rows(got, x)], want, rtol=1e-9)


def tree_out(p):
    return math.sin(p["a"]) * p["b"] + p["a"] * p["b"]


def ag_tree_out(a, b):
    return anp.sin(a) * b + a * b


def through(s, pb):  # a pullback made outside, called inside the function differentiated
    return pb(s)[0]["a"] * s + pb(s * s)[0]["b"]


def test_an_eager_pullback_differentiated():
    """``vjp`` of a dict (its closure kept after the first calls: ``fast_calls.eager_vjp``)
    gives a pullback holding what srcad reads for it in its cell ``of`` (no attribute set at
    each call): differentiated inside ``grad`` and a Hessian, against central differences
    and autograd (the Hessian in the long run)."""
    p = {"a": 0.7, "b": 0.3}
    for _ in range(3):  # (the third call: the closure kept)
        value, pb = srcad.vjp(tree_out, p)
    assert "__srcad_vjp_of__" not in vars(pb)
    assert nested_vjp.made_of(pb)[1][0] is p
    ga, gb = autograd.grad(ag_tree_out, (0, 1))(0.7, 0.3)
    for s in (1.3, -0.4)[:None if LONG else 1]:
        want = 2 * s * ga + 2 * s * gb  # d/ds (s * s * ga + s * s * gb)
        assert srcad.grad(through)(s, pb) == pytest.approx(want, rel=1e-9)
        assert central(lambda t: through(t[()], pb), [np.array(s)], 0) == pytest.approx(
            want, rel=1e-6)
        if LONG:  # (the Hessian's second-order transform: ~1 s)
            assert srcad.hessian(through)(s, pb) == pytest.approx(2 * ga + 2 * gb, rel=1e-9)


def reference_items_at(like, indices, values):
    """``items_at``'s definition: zeros like ``like``, each value added at its index."""
    out = {k: np.zeros_like(v) if isinstance(v, np.ndarray) else 0.0 for k, v in like.items()}
    for i, v in zip(indices, values):
        out[i] = out[i] + v
    return out


@pytest.mark.parametrize("case", [
    ({"a": 0.7, "b": 0.3}, ("b", "a"), (1.5, -2.0)),  # every item once, floats: one pass
    ({"a": 0.7, "b": 0.3}, ("a", "a"), (1.5, -2.0)),  # an item twice, another none
    ({"a": 0.7, "b": 0.3, "c": 1.0}, ("b", "a"), (1.5, -2.0)),  # an extra item
    ({"a": 0.7, "b": 0.3}, ("b", "a"), (np.float64(1.5), -2.0)),  # a NumPy number
    ({"a": np.array([0.7, 0.1]), "b": 0.3}, ("b", "a"), (1.5, np.array([1.0, 2.0]))),
    ({"a": np.array([0.7, 0.1]), "b": 0.3}, ("b", "a"), (1.5, 2.0)),  # a number at an array
])
def test_items_at_of_a_dict(case):
    """``items_at`` of a dict (``runtime.items``: one pass when every item is read once):
    the definition's values, keys in the dict's order, a new array where one is placed."""
    like, indices, values = case
    got = items_at(like, indices, values)
    want = reference_items_at(like, indices, values)
    assert list(got) == list(like)
    for k in like:
        np.testing.assert_array_equal(got[k], want[k])
        assert np.shape(got[k]) == np.shape(like[k]) and got[k] is not like[k]


SCALE = 1.5


def f_scaled(p):  # reads SCALE: rebound by the test (the code made for it is made again)
    return math.sin(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"]


def ag_scaled(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"])


def f_np_dict(p):  # NumPy: an array leaf too
    return np.sum(np.sin(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"])


def vjp_checked(f, twin, p):
    """``vjp(f, p)``'s value and pullback of 1.0 and 2.0 against autograd and central
    differences, the gradient in ``p``'s structure."""
    value, pb = srcad.vjp(f, p)
    (g,) = pb(1.0)
    shaped_as(g, p)
    v = flat(p)
    want = autograd.grad(lambda w: twin(unflat(w, p)[0]))(v)
    np.testing.assert_allclose(central(lambda w: f(unflat(w, p)[0]), [v], 0), want,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(flat(g), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(flat(pb(2.0)[0]), 2 * want, rtol=1e-9, atol=1e-12)
    assert value == pytest.approx(float(twin(p)), rel=1e-12)


def test_vjp_of_containers_changed_between_calls(monkeypatch):
    """``vjp`` of a dict calls ``value_and_grad``'s code for its structure directly
    (``srcad.tree_calls``) after the first calls; another key order, an extra key, a NumPy
    number, an int or an array leaf, a list, and a rebound name take the dispatcher."""
    global SCALE
    xs = [{"a": 0.7, "b": 0.3}, {"b": 0.3, "a": 0.7}, {"a": 0.7, "b": 0.3, "c": 0.5},
          {"a": np.float64(0.7), "b": 0.3}, {"a": 1, "b": 0.3}, {"a": 0.7, "b": 0.3}]
    for p in ([xs[0]] * 3 + xs) if LONG else [xs[0]] * 3 + [xs[1], xs[3], xs[0]]:
        vjp_checked(f_scaled, ag_scaled, p)
    monkeypatch.setattr(__import__(__name__), "SCALE", 2.5)
    assert SCALE == 2.5
    vjp_checked(f_scaled, ag_scaled, xs[0])  # (the name rebound: the code made again)
    for p in [{"a": 0.7, "b": 0.3}] * 3 + [{"a": np.array([0.7, 0.2]), "b": 0.3}]:
        vjp_checked(f_np_dict, ag_scaled, p)
