"""Jacobians and Hessians of containers and records kept by their structure (calls33,
``srcad.tree_jacobians``): after the first call with a structure of floats, later calls with
that structure take a plan (reverse mode: grad's code; forward mode: the passes and the
result compiled for the structure) instead of the walk over leaves. Each must stay exact
when what a container holds changes between calls: another key order, an extra key, a
number made a NumPy number, an int or an array, a nested dict, a list made a tuple; and when
a name the code read is rebound, or a pass gives a value of another structure.

Each case is checked against central differences and autograd (on the same function
written with ``autograd.numpy`` over the flattened leaves), its structure and key order
against the argument's, and the plan's use by counting the full path's walks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sampling import LONG
from test_calls32_trees import DC, NT, flat, leaves, unflat  # the same records, flattening
from test_calls32_trees import same_structure as shaped_as
from twin_checks import central

import srcad
from srcad import jacobians

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

SCALE = 1.5
ACT = math.sin  # rebound by a test: the code made for it is made again
TWINS = {math.sin: anp.sin, math.cos: anp.cos}


def f_math(p):  # floats only (math): grad's leaves are floats, kept as they are
    return ACT(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"]


def ag_math(p):
    return TWINS[ACT](p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"]


def f_np(p):  # NumPy: leaves np.float64 (converted), arrays too
    return np.sum(np.sin(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"])


def ag_dict(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] * SCALE + p["a"] * p["b"] * p["b"])


def f_seq(p):
    return math.sin(p[0]) * p[1] * SCALE + p[0] * p[1] * p[1]


def ag_seq(p):
    return anp.sin(p[0]) * p[1] * SCALE + p[0] * p[1] * p[1]


def f_rec(p):
    return math.sin(p.a) * p.b * SCALE + p.a * p.b * p.b


def ag_rec(p):
    return anp.sin(p.a) * p.b * SCALE + p.a * p.b * p.b


def f_nested(p):
    return math.sin(p["w"]["a"]) * p["b"] * SCALE + p["w"]["a"] * p["b"] * p["b"]


def ag_nested(p):
    return anp.sin(p["w"]["a"]) * p["b"] * SCALE + p["w"]["a"] * p["b"] * p["b"]


def same_structure(g, x):
    """``g`` shaped as ``x`` (calls32's check) with float leaves: a ``float`` or an array."""
    shaped_as(g, x, floats=True)


def hessian_rows(h, x):
    if isinstance(x, dict):
        return [r for k in x for r in hessian_rows(h[k], x[k])]
    if isinstance(x, DC):
        return hessian_rows(h.a, x.a) + hessian_rows(h.b, x.b)
    if isinstance(x, (list, tuple)):
        return [r for a, b in zip(h, x) for r in hessian_rows(a, b)]
    return [h]


def references(f, twin, x):
    v = flat(x)
    cd = central(lambda w: f(unflat(w, x)[0]), [v], 0)
    ag = autograd.grad(lambda w: twin(unflat(w, x)[0]))(v)
    np.testing.assert_allclose(cd, ag, rtol=1e-6, atol=1e-8)
    return ag, autograd.hessian(lambda w: twin(unflat(w, x)[0]))(v)


@pytest.fixture
def walks(monkeypatch):
    """How many calls took the full path's walk over the trees (``_Jacobian._tree``)."""
    count = [0]
    tree = jacobians._Jacobian._tree

    def counted(self, *args, **kwargs):
        count[0] += 1
        return tree(self, *args, **kwargs)

    monkeypatch.setattr(jacobians._Jacobian, "_tree", counted)
    return count


def check(f, twin, xs, walks):
    """``jacobian`` and ``hessian`` of ``f`` called with each of ``xs`` in turn (each
    structure twice running), against the references; a structure of floats seen before
    takes its plan (no walk)."""
    jac, hess = srcad.jacobian(f), srcad.hessian(f)
    seen, refs = set(), {}
    for x in xs:
        if id(x) not in refs:  # (the same object again: the same references)
            refs[id(x)] = references(f, twin, x)
        want, want_h = refs[id(x)]
        floats = all(type(v) is float for v in leaves(x))
        for _ in range(2):
            before = walks[0]
            got = jac(x)
            same_structure(got, x)
            np.testing.assert_allclose(flat(got), want, rtol=1e-9, atol=1e-12)
            if all(np.ndim(v) == 0 for v in leaves(x)):
                got = hess(x)
                for row in hessian_rows(got, x):
                    same_structure(row, x)
                rows = np.array([flat(r) for r in hessian_rows(got, x)])
                np.testing.assert_allclose(rows, want_h, rtol=1e-8, atol=1e-10)
            structure = srcad.tree_keys.tree_key(x)
            if floats and structure in seen:
                assert walks[0] == before, "a structure of floats seen before walked again"
            seen.add(structure)


DICTS = [{"a": 0.7, "b": 0.3}, {"b": 0.3, "a": 0.7}, {"a": 0.7, "b": 0.3, "c": 0.5},
         {"a": np.float64(0.7), "b": 0.3}, {"a": 1, "b": 0.3}, {"a": 0.7, "b": 0.3}]


def test_a_dict_changed_between_calls(walks):
    xs = DICTS + DICTS[::-1] if LONG else [DICTS[k] for k in (0, 1, 3, 0)]
    check(f_math, ag_math, xs, walks)


def test_numpy_leaves_and_an_array(walks):
    """grad's leaves np.float64 (made floats), then an array leaf (the full path)."""
    xs = [DICTS[0], {"a": np.array([0.7, 0.2]), "b": 0.3}, DICTS[0]]
    check(f_np, ag_dict, xs + (DICTS if LONG else []), walks)


def test_a_list_tuple_or_record(walks):
    if LONG:  # (the default run: records; lists and tuples take the dicts' mechanism)
        check(f_seq, ag_seq, [[0.7, 0.3], (0.7, 0.3), [0.7, 0.3], [0.7, 0.3, 0.5],
                              [0.7, np.float64(0.3)], (0.7, 0.3)], walks)
    check(f_rec, ag_rec, [NT(0.7, 0.3), DC(0.7, 0.3)] + (
        [NT(0.7, 0.3), NT(np.float64(0.7), 0.3), DC(0.7, 0.3)] if LONG else []), walks)


def test_a_nested_dict(walks):
    xs = [{"w": {"a": 0.7}, "b": 0.3}, {"b": 0.3, "w": {"a": 0.7, "z": 0.1}},
          {"w": {"a": 0.7}, "b": 0.3}]
    check(f_nested, ag_nested, xs if LONG else xs[:1] * 2, walks)


def test_a_name_rebound_between_calls():
    """A function the code read rebound (``math.sin`` to ``math.cos``): the plan is dropped
    and the code made again."""
    global ACT
    jac, hess = srcad.jacobian(f_math), srcad.hessian(f_math)
    p = {"a": 0.7, "b": 0.3}
    refs = {}
    try:
        for act in (math.sin, math.sin, math.cos, math.cos, math.sin):
            ACT = act
            if act not in refs:
                refs[act] = references(f_math, ag_math, p)
            want, want_h = refs[act]
            np.testing.assert_allclose(flat(jac(p)), want, rtol=1e-9)
            rows = np.array([flat(r) for r in hessian_rows(hess(p), p)])
            np.testing.assert_allclose(rows, want_h, rtol=1e-8)
    finally:
        ACT = math.sin


def f_switch(p):  # a dict out whose keys depend on the value
    if p["a"] > 0.5:
        return {"y": math.sin(p["a"]) * p["b"], "z": p["a"] * p["b"]}
    return {"z": p["a"] * p["b"], "y": math.sin(p["a"]) * p["b"]}


@pytest.mark.parametrize("make", [srcad.jacfwd, srcad.jacobian], ids=["fwd", "rev"])
def test_a_jacobian_of_an_output_whose_structure_changes(make):
    """The forward plan tests each pass's value: an output of another key order is the
    full path's (its Jacobian in the output's order); in reverse mode a dict out is the
    full path's from the first call on (_never)."""
    jac = make(f_switch)
    for a in (0.7, 0.7, 0.3, 0.3, 0.7):
        p = {"a": a, "b": 0.3}
        got = jac(p)
        out = f_switch(p)
        assert list(got) == list(out)
        for k in out:
            cd = {"a": (f_switch({"a": a + 1e-6, "b": 0.3})[k]
                        - f_switch({"a": a - 1e-6, "b": 0.3})[k]) / 2e-6,
                  "b": (f_switch({"a": a, "b": 0.3 + 1e-6})[k]
                        - f_switch({"a": a, "b": 0.3 - 1e-6})[k]) / 2e-6}
            assert list(got[k]) == ["a", "b"]
            for name in ("a", "b"):
                assert type(got[k][name]) is float
                np.testing.assert_allclose(got[k][name], cd[name], rtol=1e-6)


def two(x, y):
    return ACT(x) * y * SCALE + x * x * y


def ag_two(x, y):
    return TWINS[ACT](x) * y * SCALE + x * x * y


def pair(x, y):  # a tuple out whose length depends on the value; an item's tangent np.float64
    if x > 0.5:
        return (math.sin(x) * y, x * y, np.float64(2.0) * x)
    return (x * y, math.sin(x) * y)


def test_a_tuple_of_numbers_out_by_its_compiled_passes():
    """``hessian(f, wrt=(0, 1))`` and ``jacfwd`` of a tuple out (srcad.number_columns): a
    rebound function, a tuple of another length, a np.float64 tangent take the loop."""
    global ACT
    hess, jac = srcad.hessian(two, wrt=(0, 1)), srcad.jacfwd(pair, wrt=(0, 1))
    try:
        for act, x in ((math.sin, 0.7), (math.sin, 0.7), (math.cos, 0.7), (math.cos, 0.3),
                       (math.sin, 0.3), (math.sin, 0.7)):
            ACT = act
            got = np.array(hess(x, 0.3))
            want = autograd.hessian(lambda v: ag_two(v[0], v[1]))(np.array([x, 0.3]))
            np.testing.assert_allclose(got, want, rtol=1e-9)
            cols = [central(lambda v, k=k: ag_two(v[0], v[1]) if k < 0 else autograd.grad(
                lambda w: ag_two(w[0], w[1]))(v)[k], [np.array([x, 0.3])], 0) for k in (0, 1)]
            np.testing.assert_allclose(got, np.array(cols), rtol=1e-6)
            out = jac(x, 0.3)
            ref = pair(x, 0.3)
            assert type(out) is tuple and len(out) == len(ref)
            for j, row in enumerate(out):
                assert type(row) is tuple and all(type(e) is float for e in row)
                cd = [(pair(x + 1e-6, 0.3)[j] - pair(x - 1e-6, 0.3)[j]) / 2e-6,
                      (pair(x, 0.3 + 1e-6)[j] - pair(x, 0.3 - 1e-6)[j]) / 2e-6]
                np.testing.assert_allclose(row, cd, rtol=1e-6, atol=1e-9)
    finally:
        ACT = math.sin
