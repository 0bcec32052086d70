"""Container Hessians, ``hvp`` and ``jacfwd`` per pass (trees36): the forward mode of an
item write into a list or dict the code made new and reads nowhere after is written in
place (``srcad.transform.forward_writes``: no copy of the container or of its tangent);
a Hessian's and ``hvp``'s passes over ``grad``'s code call the code of the tangent alone
(``srcad.transform.tangent_only``: ``grad``'s value not returned); ``jacfwd`` of a
function of a container with a number out keeps its plan (it took the full path each
call: the plan read a number out as "no output yet").

Each must stay exact when the arguments change between calls (keys in another order, an
extra key, an int, a NumPy number, an array leaf, a record of another class) and where
the code branches on the values: every call against central differences and autograd
(the same function written with ``autograd.numpy`` over the flattened leaves); the
owned-write rule against functions whose container is read after the write, carried by a
loop, or made by appends (those keep their copies, and stay exact).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import test_calls33_tree_plans as calls33
from sampling import LONG
from test_calls32_trees import DC, NT, flat, unflat
from test_calls33_tree_plans import hessian_rows, references, same_structure

import srcad
from srcad import api
from srcad.transform.tangent_only import TangentOnly

walks = calls33.walks  # calls33's fixture: calls taking the full path's walk

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def f_dict(p):  # (grad's code: the dict written key by key)
    return math.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"]


def ag_dict(p):
    return anp.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"]


def f_branch(p):  # grad's code branches on a value: the tangent's code too
    if p["a"] > 0.5:
        return math.exp(p["a"]) * p["b"]
    return p["a"] * p["a"] * math.cos(p["b"])


def ag_branch(p):
    if p["a"] > 0.5:
        return anp.exp(p["a"]) * p["b"]
    return p["a"] * p["a"] * anp.cos(p["b"])


def f_loop(p):  # every key, in the dict's order, in a loop
    total = 0.0
    for k in p:
        total = total + math.tanh(p[k]) * p["b"]
    return total


def ag_loop(p):
    total = 0.0
    for k in p:
        total = total + anp.tanh(p[k]) * p["b"]
    return total


def f_seq(p):
    return math.sin(p[0]) * p[1] + p[0] * p[1] * p[1]


def ag_seq(p):
    return anp.sin(p[0]) * p[1] + p[0] * p[1] * p[1]


def f_rec(p):
    return math.sin(p.a) * p.b + p.a * p.b * p.b


def ag_rec(p):
    return anp.sin(p.a) * p.b + p.a * p.b * p.b


@pytest.fixture
def alone(monkeypatch):
    """How many codes of the tangent alone were made (``api._jvp_function(sweep=...)``)."""
    count = [0]
    inner = api._jvp_function

    def counted(*args, sweep=None, **kwargs):
        count[0] += sweep is TangentOnly
        return inner(*args, sweep=sweep, **kwargs)

    monkeypatch.setattr(api, "_jvp_function", counted)
    return count


DICTS = [
    {"a": 0.7, "b": 0.3},
    {"a": 0.2, "b": -0.4},  # the other arm of f_branch, the same structure
    {"b": 0.3, "a": 0.7},  # keys in another order
    {"a": 0.7, "b": 0.3, "c": 0.1},  # an extra key
    {"a": 1, "b": 0.3},  # an int
    {"a": np.float64(0.7), "b": 0.3},  # NumPy's number
    {"a": np.array([0.7, 0.2]), "b": 0.3},  # an array
    {"a": 0.9, "b": 0.3},
]


def check_hessians(f, twin, xs, walks, alone=None):
    """``hessian`` and ``hvp`` of ``f`` at each of ``xs`` (each twice running) against
    autograd; a structure of floats seen before takes its plan (no walk)."""
    hess = srcad.hessian(f)
    seen = set()
    for x in xs:
        want, want_h = references(f, twin, x)
        floats = all(type(v) is float for v in flat_leaves(x))
        for _ in range(2):
            before = walks[0]
            got = hess(x)
            assert type(got) is type(x)
            if all(np.ndim(v) == 0 for v in flat_leaves(x)):  # (an array's: hvp below)
                for row in hessian_rows(got, x):
                    same_structure(row, x)
                np.testing.assert_allclose(np.array([flat(r) for r in hessian_rows(got, x)]),
                                           want_h, rtol=1e-8, atol=1e-10)
            key = (type(x), str(type_tree(x)))
            if floats and key in seen:
                assert walks[0] == before, "a structure of floats seen before: its plan"
            seen.add(key)
            v = unflat(np.linspace(0.5, -0.3, len(flat(x))), x)[0]
            got = srcad.hvp(f, (x,), v)
            np.testing.assert_allclose(flat(got), want_h @ flat(v), rtol=1e-8, atol=1e-10)
    if alone is not None:
        assert alone[0] > 0, "the code of the tangent alone was made"


def flat_leaves(x):
    if isinstance(x, dict):
        return [v for k in x for v in flat_leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for k in x for v in flat_leaves(k)]
    if isinstance(x, DC):
        return [x.a, x.b]
    return [x]


def type_tree(x):
    if isinstance(x, dict):
        return [(k, type_tree(v)) for k, v in x.items()]
    if isinstance(x, (list, tuple)):
        return [type_tree(v) for v in x]
    return type(x).__name__


def test_dict_hessians_by_the_tangent_alone(walks, alone):
    xs = DICTS[:6] + DICTS[7:] if LONG else [DICTS[k] for k in (0, 2, 4, 5, 0)]
    check_hessians(f_dict, ag_dict, xs, walks, alone)


def f_np(p):  # NumPy: an array leaf beside numbers
    return np.sum(np.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"])


def ag_np(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"])


def test_a_number_become_an_array(walks):
    check_hessians(f_np, ag_np, [DICTS[0], DICTS[6], DICTS[0]], walks)


def test_a_branch_on_the_values(walks):
    """The plan kept on one arm's point gives the other arm's Hessian at the other."""
    xs = [DICTS[0], DICTS[1], DICTS[7], DICTS[1]]
    check_hessians(f_branch, ag_branch, xs if LONG else xs[:3], walks)


def test_a_loop_over_the_keys(walks):
    xs = [DICTS[0], DICTS[3], DICTS[2], DICTS[0]]
    check_hessians(f_loop, ag_loop, xs if LONG else xs[:2], walks)


def test_lists_tuples_and_records(walks):
    check_hessians(f_seq, ag_seq, [[0.7, 0.3], (0.7, 0.3), [0.7, np.float64(0.3)]] + (
        [[0.2, 0.9], (0.7, 0.3)] if LONG else []), walks)
    hess = srcad.hessian(f_rec)
    for x in [NT(0.7, 0.3), DC(0.7, 0.3), NT(0.2, -0.5)] + ([DC(1, 0.3)] if LONG else []):
        _, want_h = references(f_rec, ag_rec, x)
        for _ in range(2):
            got = hess(x)
            assert type(got) is type(x) and type(got.a) is type(x)
            np.testing.assert_allclose(np.array([flat(r) for r in hessian_rows(got, x)]),
                                       want_h, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("f, twin", [(f_dict, ag_dict), (f_branch, ag_branch)],
                         ids=["dict", "branch"])
def test_jacfwd_of_a_container_keeps_its_plan(f, twin, walks):
    """``jacfwd`` with a number out: the plan from the second call of a structure on."""
    jf = srcad.jacfwd(f)
    for x in [DICTS[k] for k in ((0, 1, 2, 3, 4, 5, 0) if LONG else (0, 1, 4, 0))]:
        want, _ = references(f, twin, x)
        for i in range(2):
            before = walks[0]
            got = jf(x)
            assert type(got) is dict and list(got) == list(x)
            np.testing.assert_allclose(flat(got), want, rtol=1e-9, atol=1e-12)
            if i and all(type(v) is float for v in x.values()):
                assert walks[0] == before


# ------------------------------------------------------------- item writes in forward mode


def w_display(x, y):  # a list made new, an item read, then written: in place
    d = [x, y]
    w = d[0]
    d[0] = d[0] * y
    d[1] = d[1] + w * w
    return d[0] * d[1]


def w_dict(x, y):  # a dict made new, written twice
    d = {"a": x, "b": y}
    d["a"] = d["a"] * d["b"]
    d["b"] = np.sin(d["a"]) + d["b"]
    return d["a"] * d["b"]


def w_loop(x, y):  # carried by a loop: copied
    d = {"a": x, "b": y}
    for _ in range(3):
        d["a"] = d["a"] * y + d["b"]
    return d["a"]


def w_appended(x, y):  # made by appends: copied
    d = []
    d.append(x)
    d.append(y * x)
    d[0] = d[0] * d[1]
    return d[0] + d[1]


def w_after(x, y):  # an item read after the write, from the new list
    d = [x, y]
    d[1] = d[0] * y
    e = d[1] + d[0]
    d[0] = e * x
    return d[0] + d[1]


WRITES = [(w_display, True), (w_dict, True), (w_loop, False), (w_appended, False),
          (w_after, True)]


@pytest.mark.parametrize("f, owned", WRITES, ids=[f.__name__ for f, _ in WRITES])
def test_item_writes_in_forward_mode(f, owned):
    """``jvp`` of each against central differences along the tangent and autograd; the
    owned ones written without a copy, the others with theirs."""
    for x, y, tx, ty in [(0.7, 0.3, 1.0, 0.5), (-0.4, 1.2, 0.2, -1.0)]:
        value, tangent = srcad.jvp(f, (x, y), (tx, ty))
        h = 1e-6
        cd = (f(x + h * tx, y + h * ty) - f(x - h * tx, y - h * ty)) / (2 * h)
        ag = autograd.grad(f, 0)(x, y) * tx + autograd.grad(f, 1)(x, y) * ty
        assert value == f(x, y)
        np.testing.assert_allclose(tangent, cd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(tangent, ag, rtol=1e-10, atol=1e-12)
    text = api.jvp_source(f, 0.7, 0.3)
    assert ("copy" not in text) is owned, text


# ------------------------------------------------- the gradient's own code in the tangent's


def f_log(p):  # grad's value reads math.log, which fails where its tangent does not
    return math.log(p["a"]) * p["b"] + p["b"] * math.sin(p["a"])


def ag_log(p):
    return anp.log(p["a"]) * p["b"] + p["b"] * anp.sin(p["a"])


def tangent_code(f, p):
    """The code of the tangent alone that a Hessian of ``f`` at ``p`` calls."""
    target, _, names = api._jvp_target(srcad.grad(f), (0,), 1)
    return api._jvp_function(target, names, (p,), sweep=TangentOnly)[0]


def test_the_gradient_built_for_the_value_alone_goes_not_what_may_fail():
    """The gradient's dict (``items_at``, its writes, ``like``) is not built in the code of
    the tangent alone; ``math.log`` of the value stays, and fails where the full path's
    does, after the plan ran at a point where it does not."""
    p = {"a": 0.7, "b": 0.3}
    text = tangent_code(f_log, p).__srcad_source__
    assert text.count("items_at(") == 1 and "math.log(" in text, text  # (the tangent's)
    hess = srcad.hessian(f_log)
    for x in (p, {"a": 1.3, "b": -0.2}):
        _, want_h = references(f_log, ag_log, x)
        for _ in range(2):
            np.testing.assert_allclose(np.array([flat(r) for r in hessian_rows(hess(x), x)]),
                                       want_h, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(flat(srcad.hvp(f_log, (x,), x)), want_h @ flat(x),
                                       rtol=1e-8, atol=1e-10)
    bad = {"a": -1.0, "b": 0.3}
    with pytest.raises(ValueError):
        srcad.grad(f_log)(bad)
    with pytest.raises(ValueError):
        hess(bad)
    with pytest.raises(ValueError):
        srcad.hvp(f_log, (bad,), p)


SCALE = 2.0


def f_scaled(p):
    return SCALE * math.sin(p["a"]) * p["b"]


def test_a_rebound_name_between_calls():
    """A global the code of the tangent alone read, rebound between calls: the Hessian and
    ``hvp`` of the new value (the plans' freshness tests fail, the code is made again)."""
    global SCALE
    x, v = {"a": 0.7, "b": 0.3}, {"a": 1.0, "b": 0.5}
    hess = srcad.hessian(f_scaled)
    a, b = x["a"], x["b"]
    try:
        for s in (2.0, 3.0, 2.0):
            SCALE = s
            want = np.array([[-s * math.sin(a) * b, s * math.cos(a)], [s * math.cos(a), 0.0]])
            for _ in range(2):
                got = hess(x)
                np.testing.assert_allclose([[got["a"]["a"], got["a"]["b"]],
                                            [got["b"]["a"], got["b"]["b"]]], want, rtol=1e-12)
                np.testing.assert_allclose(flat(srcad.hvp(f_scaled, (x,), v)),
                                           want @ flat(v), rtol=1e-12)
    finally:
        SCALE = 2.0
