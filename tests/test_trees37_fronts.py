"""``hvp`` and ``vjp`` of containers and records of floats by a front on ``f`` (trees37):
``srcad.tree_jacobians._hvp_front`` and ``srcad.tree_vjps.front``, compiled for the
structure of a call that took the full path (its classes, keys in order, lengths, leaf
classes) with the freshness of the names the code read, called first by the entry points.

Each call is checked against central differences and autograd (the same function written
with ``autograd.numpy`` over the flattened leaves) while the arguments change between calls:
keys in another order, an extra key, an int, a NumPy number, an array leaf, a nested dict
of another shape, a record of another class, ``v`` of another structure; a rebound global
the code reads; the front itself answers None for each of them (the entry point's path as it
was). ``vjp``: the first pullback of 1.0 hands the gradient over, a second one and another
cotangent give the same, a wrong cotangent is refused, and an error of the code raised where
it was.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sampling import LONG
from test_calls32_trees import DC, NT, flat, unflat
from test_calls33_tree_plans import references

import srcad
from srcad.backend import call_fronts
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

SCALE = 1.5


def f_dict(p):
    return math.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"] * SCALE


def ag_dict(p):
    return anp.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"] * SCALE


def f_np(p):  # an array leaf: NumPy's functions
    return np.sum(np.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"] * SCALE)


def ag_np(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] + p["a"] * p["b"] * p["b"] * SCALE)


def f_seq(p):
    return math.sin(p[0]) * p[1] + p[0] * p[1] * p[1]


def ag_seq(p):
    return anp.sin(p[0]) * p[1] + p[0] * p[1] * p[1]


def f_nested(p):
    return math.sin(p["w"]["a"]) * p["b"] + p["w"]["a"] * p["b"]


def ag_nested(p):
    return anp.sin(p["w"]["a"]) * p["b"] + p["w"]["a"] * p["b"]


def f_rec(p):
    return math.sin(p.a) * p.b + p.a * p.b * p.b


def ag_rec(p):
    return anp.sin(p.a) * p.b + p.a * p.b * p.b


def f_log(p):  # raises for a negative "a"
    return math.log(p["a"]) * p["b"]


DICTS = [
    {"a": 0.7, "b": 0.3},
    {"b": 0.3, "a": 0.7},  # keys in another order
    {"a": 0.7, "b": 0.3, "c": 0.1},  # an extra key
    {"a": 1, "b": 0.3},  # an int
    {"a": np.float64(0.7), "b": 0.3},  # NumPy's number
    {"a": 0.2, "b": -0.4},
]
NESTED = [{"w": {"a": 0.7}, "b": 0.3}, {"w": {"a": 0.7}, "b": 0.3},
          {"w": {"a": 0.7, "c": 0.2}, "b": 0.3}, {"b": 0.3, "w": {"a": 0.7}},
          {"w": {"a": 1}, "b": 0.3}, {"w": {"a": -0.4}, "b": 0.6}]
SEQS = [[0.7, 0.3], [0.7, 0.3], (0.7, 0.3), [0.7, np.float64(0.3)], [0.7, 0.3, 0.1],
        [0.2, 0.9]]
CASES = {  # (each structure's first call makes code: a few by default)
    "dict": (f_dict, ag_dict, DICTS if LONG else DICTS[:2]),
    "list and tuple": (f_seq, ag_seq, SEQS if LONG else SEQS[1:3]),
    "nested": (f_nested, ag_nested, NESTED if LONG else NESTED[1:3]),
}


def hvp_reference(f, twin, x, v):
    _, want_h = references(f, twin, x)
    return want_h @ flat(v)


@pytest.mark.parametrize("case", list(CASES))
def test_hvp_front_against_references(case):
    f, twin, xs = CASES[case]
    made = None
    for i, x in enumerate(xs):
        v = unflat([float(t) for t in np.linspace(0.5, -0.3, len(flat(x)))], x)[0]
        want = hvp_reference(f, twin, x, v)
        for form in ((x,), x) if type(x) is not tuple else ((x,),):
            for _ in range(2):
                got = srcad.hvp(f, form, v)
                assert type(got) is type(x)
                np.testing.assert_allclose(flat(got), want, rtol=1e-8, atol=1e-10)
        if i == 0:
            made = vars(f)[call_fronts.HVP]
        # the front answers the first structure of floats alone (None: hvp's own path)
        assert (made((x,), v, f) is not None) == (type_tree(x) == type_tree(xs[0])), x
    x0 = xs[0]
    v0 = unflat([float(t) for t in np.linspace(0.5, -0.3, len(flat(x0)))], x0)[0]
    assert made((x0,), v0, lambda p: 0.0) is None  # (a wrapper carrying f's attributes)
    last = vars(f)[call_fronts.HVP]  # (each structure's front calls the one before it)
    for x in xs[:4]:
        v = unflat([float(t) for t in np.linspace(0.5, -0.3, len(flat(x)))], x)[0]
        floats = all(type(t) is float for t in flat_leaves(x))
        assert (last((x,), v, f) is not None) == floats, x


def test_hvp_front_refuses_another_tangent():
    p = {"a": 0.7, "b": 0.3}
    srcad.hvp(f_dict, (p,), p)
    srcad.hvp(f_dict, (p,), p)
    front = vars(f_dict)[call_fronts.HVP]
    for v in ({"b": 0.3, "a": 0.7}, {"a": 1, "b": 0.3}, {"a": 0.5}, [0.1, 0.2],
              {"a": np.array(0.7), "b": 0.3}):
        assert front((p,), v, f_dict) is None
    with pytest.raises(SrcadError):
        srcad.hvp(f_dict, (p,), {"a": 0.5})


def test_a_rebound_global():
    global SCALE
    p = {"a": 0.7, "b": 0.3}
    for _ in range(2):
        srcad.hvp(f_dict, (p,), p)
        srcad.vjp(f_dict, p)[1](1.0)
    old = SCALE
    try:
        for scale in (2.5, 2.5, old):
            SCALE = scale
            want = hvp_reference(f_dict, ag_dict, p, p)
            np.testing.assert_allclose(flat(srcad.hvp(f_dict, (p,), p)), want, rtol=1e-8)
            g, _ = references(f_dict, ag_dict, p)
            value, pullback = srcad.vjp(f_dict, p)
            assert value == pytest.approx(f_dict(p), rel=1e-14)
            np.testing.assert_allclose(flat(pullback(1.0)[0]), g, rtol=1e-8)
    finally:
        SCALE = old


RECORDS = [NT(0.7, 0.3), NT(0.7, 0.3), DC(0.7, 0.3), NT(1, 0.3), NT(np.float64(0.2), 0.3)]
VJP_CASES = {
    "dict": (f_dict, ag_dict, DICTS if LONG else [DICTS[k] for k in (0, 4)]),
    "array leaf": (f_np, ag_np, [DICTS[0], {"a": np.array([0.7, 0.2]), "b": 0.3}] + (
        [{"a": np.array([0.7, 0.2], dtype=np.float32), "b": 0.3}] if LONG else [])),
    "list and tuple": (f_seq, ag_seq, SEQS if LONG else SEQS[:1] + SEQS[4:5]),
    "nested": (f_nested, ag_nested, NESTED if LONG else NESTED[:1] + NESTED[4:]),
    "records": (f_rec, ag_rec, RECORDS if LONG else RECORDS[:1] + RECORDS[2:3]),
}


@pytest.mark.parametrize("case", list(VJP_CASES))
def test_vjp_front_against_references(case):
    f, twin, xs = VJP_CASES[case]
    for x in xs:
        shaped = any(np.ndim(t) for t in flat_leaves(x))
        if shaped:  # (an array leaf: central differences of its elements)
            want = [float(np.sum(autograd.grad(lambda a, x=x: twin({**x, "a": a}))(x["a"])))]
        else:
            want, _ = references(f, twin, x)
        for _ in range(3):
            value, pullback = srcad.vjp(f, x)
            assert value == pytest.approx(f(x), rel=1e-14)
            for dy in (1.0, 1.0, 2.0):  # (the first hands over the gradient made with it)
                (g,) = pullback(dy)
                assert type(g) is type(x)
                got = [float(np.sum(g["a"]))] if shaped else flat(g)
                np.testing.assert_allclose(got, dy * np.asarray(want), rtol=1e-8, atol=1e-10)
    front = vars(f).get(call_fronts.VJP)
    if case != "array leaf":
        for x in xs[:4]:  # (a structure of floats: its front, or none; never another's)
            floats = all(type(t) is float for t in flat_leaves(x))
            assert front((x,), f) is None or floats, x
        assert front((xs[0],), f) is not None
        assert front((xs[0],), lambda p: 0.0) is None
    with pytest.raises(SrcadError):
        srcad.vjp(f, xs[0])[1]([1.0])


def type_tree(x):
    if isinstance(x, dict):
        return [(k, type_tree(v)) for k, v in x.items()]
    if isinstance(x, (list, tuple)):
        return (type(x), [type_tree(v) for v in x])
    return type(x).__name__


def flat_leaves(x):
    if isinstance(x, DC):
        return [x.a, x.b]
    if isinstance(x, dict):
        return [v for k in x for v in flat_leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for k in x for v in flat_leaves(k)]
    return [x]


def test_vjp_front_raises_where_the_code_did():
    p, bad = {"a": 0.7, "b": 0.3}, {"a": -0.7, "b": 0.3}
    for _ in range(3):
        value, pullback = srcad.vjp(f_log, p)
        assert pullback(1.0)[0]["a"] == pytest.approx(0.3 / 0.7, rel=1e-12)
    assert vars(f_log).get(call_fronts.VJP) is not None
    with pytest.raises(ValueError):
        srcad.vjp(f_log, bad)
    assert srcad.vjp(f_log, p)[1](1.0)[0]["b"] == pytest.approx(math.log(0.7), rel=1e-12)


# ----------------------------------------------- the Hessian and jacfwd of numbers (NumbersOnly)


def two(x, y):
    return math.sin(x) * y + x * x * y * SCALE


def ag_two(v):
    return anp.sin(v[0]) * v[1] + v[0] * v[0] * v[1] * SCALE


def two_branch(x, y):  # grad's code branches on a value: so does the tangent's
    if x > 0.5:
        return math.exp(x) * y
    return x * x * math.cos(y)


def ag_two_branch(v):
    if v[0] > 0.5:
        return anp.exp(v[0]) * v[1]
    return v[0] * v[0] * anp.cos(v[1])


def two_log(x, y):  # raises for a negative x (the tangent's code keeps the log)
    return math.log(x) * y


POINTS = [(0.7, 0.3), (0.7, 0.3), (np.float64(0.7), 0.3), (1, 0.3), (0.2, -0.4),
          (np.array([0.7, 0.2]), 0.3), (0.9, 0.3)]


@pytest.mark.parametrize("f, twin, few", [(two, ag_two, (0, 1, 2)),
                                           (two_branch, ag_two_branch, (0, 4))],
                         ids=["two", "branch"])
def test_hessian_and_jacfwd_of_numbers_by_the_tangent_alone(f, twin, few):
    """Each call against central differences of the gradient and autograd, while the
    arguments' types change (a NumPy number, an int, an array) and the code branches."""
    hess, jf = srcad.hessian(f, wrt=(0, 1)), srcad.jacfwd(f, wrt=(0, 1))
    for x, y in POINTS if LONG else [POINTS[k] for k in few]:
        if np.ndim(x):  # (math.sin of an array, or its truth, raises: so do its derivatives)
            for call in (f, jf, hess):
                with pytest.raises((TypeError, ValueError)):
                    call(x, y)
            continue
        v = np.array([float(x), float(y)])
        want_h = autograd.hessian(twin)(v)
        cd = np.array([[(autograd.grad(twin)(v + e)[j] - autograd.grad(twin)(v - e)[j]) / 2e-6
                        for e in np.eye(2) * 1e-6] for j in range(2)])
        np.testing.assert_allclose(cd, want_h, rtol=1e-6, atol=1e-8)
        for _ in range(2):
            got = hess(x, y)
            assert all(type(a) is float for row in got for a in row)
            np.testing.assert_allclose(np.array(got, dtype=float), want_h, rtol=1e-10)
            got = jf(x, y)
            assert all(type(a) is float for a in got)
            np.testing.assert_allclose(got, autograd.grad(twin)(v), rtol=1e-10)


def test_numbers_tangent_alone_made_and_kept_exact():
    """The closures of the tangent alone are kept (each call's tangent tested); a rebound
    global makes the code again, an error of the code is raised where it was."""
    global SCALE
    hess, jf = srcad.hessian(two, wrt=(0, 1)), srcad.jacfwd(two, wrt=(0, 1))
    for _ in range(2):
        hess(0.7, 0.3)
        jf(0.7, 0.3)
    kept = [dict(zip(made.__code__.co_freevars, made.__closure__))[
        "__srcad_numbers"].cell_contents[(float, float)] for made in (hess, jf)]
    assert "v is None" in kept[0].__srcad_source__  # (the code of the tangent alone)
    assert kept[1].__code__.co_name == "numbers_of"  # (its body compiled in, per pass)
    old = SCALE
    try:
        SCALE = 2.5
        v = np.array([0.7, 0.3])
        np.testing.assert_allclose(hess(0.7, 0.3), autograd.hessian(ag_two)(v), rtol=1e-10)
        np.testing.assert_allclose(jf(0.7, 0.3), autograd.grad(ag_two)(v), rtol=1e-10)
    finally:
        SCALE = old
    hl, jl = srcad.hessian(two_log, wrt=(0, 1)), srcad.jacfwd(two_log, wrt=(0, 1))
    for _ in range(2):
        assert hl(0.7, 0.3)[0][1] == pytest.approx(1 / 0.7, rel=1e-12)
        assert jl(0.7, 0.3)[1] == pytest.approx(math.log(0.7), rel=1e-12)
    with pytest.raises(ValueError):
        hl(-0.7, 0.3)
    with pytest.raises(ValueError):
        jl(-0.7, 0.3)


def f_keys(p):  # every key, in the dict's order: its code is made for the keys
    total = 0.0
    for k in p:
        total = total + math.tanh(p[k]) * p["b"]
    return total


def ag_keys(p):
    total = 0.0
    for k in p:
        total = total + anp.tanh(p[k]) * p["b"]
    return total


def test_vjp_front_of_the_structure_its_code_was_made_for():
    """The closure's second call has another structure than its first (whose code
    ``value_and_grad``'s direct call kept): no front made of that code for it."""
    two, three = {"a": 0.7, "b": 0.3}, {"a": 0.7, "b": 0.3, "c": 0.1}
    for x in (two, three, three, {"a": 0.2, "b": 0.5}, three):
        want, _ = references(f_keys, ag_keys, x)
        value, pullback = srcad.vjp(f_keys, x)
        assert value == pytest.approx(f_keys(x), rel=1e-14)
        (g,) = pullback(1.0)
        assert type(g) is dict and list(g) == list(x)
        np.testing.assert_allclose(flat(g), want, rtol=1e-8, atol=1e-10)
