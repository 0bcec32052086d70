"""Derivatives called with containers and records again and again (calls32): after the first
call, ``grad`` finds its code by the structure of the arguments (``srcad.tree_keys``),
``vjp`` by their classes (its closure), the Jacobians and Hessians build their rows and
columns in the arguments' structure. Each must stay exact when what a container holds
changes between calls: another key order, an extra key, a number made an int, a NumPy
number or an array, a list made a tuple, a nested dict, a record's field made an array.

Each family interleaves calls with a first structure and with changed ones (each seen
twice, the second time by the short paths), and checks every result against central
differences and autograd (on the same function written with ``autograd.numpy``, of the
flattened leaves), and the structure of the gradient against the argument's.
"""

from __future__ import annotations

import collections
import dataclasses
import math

import numpy as np
import pytest
from sampling import LONG
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

NT = collections.namedtuple("NT", "a b")


@dataclasses.dataclass
class DC:
    a: object
    b: object


def f_fixed(p):  # reads two keys: any other key's gradient is zero
    return np.sum(np.sin(p["a"]) * p["b"] + p["a"] * p["b"])


def ag_fixed(p):
    return anp.sum(anp.sin(p["a"]) * p["b"] + p["a"] * p["b"])


def f_iter(p):  # reads every key, in the dict's order
    total = 0.0
    for k in p:
        total = total + np.sum(np.sin(p[k]) * p["b"])
    return total


def ag_iter(p):
    total = 0.0
    for k in p:
        total = total + anp.sum(anp.sin(p[k]) * p["b"])
    return total


def f_seq(p):  # every item of a list or tuple
    total = 0.0
    for v in p:
        total = total + np.sum(np.sin(v) * p[0])
    return total


def ag_seq(p):
    total = 0.0
    for v in p:
        total = total + anp.sum(anp.sin(v) * p[0])
    return total


def f_rec(p):  # a named tuple or dataclass
    return np.sum(np.sin(p.a) * p.b + p.a * p.b)


def ag_rec(p):
    return anp.sum(anp.sin(p.a) * p.b + p.a * p.b)


def leaves(x):
    """The leaves of ``x`` in order (dicts in their order, records by field)."""
    if isinstance(x, dict):
        return [v for item in x.values() for v in leaves(item)]
    if isinstance(x, DC):
        return leaves(x.a) + leaves(x.b)
    if isinstance(x, (list, tuple)):  # (a named tuple too: its fields in order)
        return [v for item in x for v in leaves(item)]
    return [x]


def flat(x):
    return np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in leaves(x)])


def unflat(v, like, start=0):
    """``(value, next start)``: a value shaped like ``like`` holding ``v``'s items (autograd's
    boxes too)."""
    if isinstance(like, dict):
        out = {}
        for k, item in like.items():
            out[k], start = unflat(v, item, start)
        return out, start
    if isinstance(like, DC):
        a, start = unflat(v, like.a, start)
        b, start = unflat(v, like.b, start)
        return DC(a, b), start
    if isinstance(like, (list, tuple)):
        items = []
        for item in like:
            made, start = unflat(v, item, start)
            items.append(made)
        return (type(like)(*items) if hasattr(like, "_fields") else type(like)(items)), start
    n = int(np.size(like))
    if np.ndim(like) == 0:
        return v[start], start + 1
    return anp.reshape(v[start:start + n], np.shape(like)), start + n


def same_structure(g, x, floats=False):
    """The gradient ``g`` is shaped as ``x``: the same container classes, keys in order,
    leaf shapes (a number's gradient a number of any class; with ``floats``, a ``float`` or
    an array)."""
    assert type(g) is type(x) or not isinstance(x, (list, tuple, dict, DC, np.ndarray)), (
        g, x)
    if isinstance(x, dict):
        assert list(g) == list(x)
        for k in x:
            same_structure(g[k], x[k], floats)
    elif isinstance(x, DC):
        same_structure(g.a, x.a, floats)
        same_structure(g.b, x.b, floats)
    elif isinstance(x, (list, tuple)):
        assert len(g) == len(x)
        for a, b in zip(g, x):
            same_structure(a, b, floats)
    else:
        assert np.shape(g) == np.shape(x)
        assert not floats or type(g) is float or type(g) is np.ndarray, type(g)


def references(f, twin, x):
    """The gradient of ``f`` at ``x`` by central differences and by autograd, flattened."""
    v = flat(x)
    cd = central(lambda w: f(unflat(w, x)[0]), [v], 0)
    ag = autograd.grad(lambda w: twin(unflat(w, x)[0]))(v)
    np.testing.assert_allclose(cd, ag, rtol=1e-6, atol=1e-8)
    return ag, autograd.hessian(lambda w: twin(unflat(w, x)[0]))(v)


def numbers_only(x):
    return all(np.ndim(v) == 0 for v in leaves(x))


def cheap(xs):
    """``xs`` in the default run: the first structure, then each other one once, after
    which the first again (from the short path); all of it twice over in the long run."""
    return xs + xs[::-1] if LONG else xs


def check_all(f, twin, xs):
    """Every API on ``f`` called with each of ``xs`` in turn, against the references."""
    made = {"grad": srcad.grad(f), "jacobian": srcad.jacobian(f), "jacfwd": srcad.jacfwd(f),
            "hessian": srcad.hessian(f), "hessian rev": srcad.hessian(f, mode="rev")}
    refs = {}
    for x in xs:
        key = id(x)
        if key not in refs:
            refs[key] = references(f, twin, x)
        want, hess = refs[key]
        for name in ("grad", "jacobian", "jacfwd"):
            got = made[name](x)
            same_structure(got, x)
            np.testing.assert_allclose(flat(got), want, rtol=1e-9, atol=1e-12, err_msg=name)
        value, pullback = srcad.vjp(f, x)
        np.testing.assert_allclose(value, f(x), rtol=1e-13)
        for dy in (1.0, 2.0):
            got, = pullback(dy)  # (one gradient per argument)
            same_structure(got, x)
            np.testing.assert_allclose(flat(got), dy * want, rtol=1e-9, atol=1e-12)
        if numbers_only(x):  # (a Hessian of numbers: by output leaf, each like x)
            for name in ("hessian", "hessian rev"):
                got = made[name](x)
                for row in leaves_of_hessian(got, x):
                    same_structure(row, x)
                rows = np.array([flat(r) for r in leaves_of_hessian(got, x)])
                np.testing.assert_allclose(rows, hess, rtol=1e-8, atol=1e-10, err_msg=name)


def leaves_of_hessian(h, x):
    """The rows of a Hessian shaped (x's structure) of (x's structure), in ``x``'s order."""
    if isinstance(x, dict):
        return [r for k in x for r in leaves_of_hessian(h[k], x[k])]
    if isinstance(x, DC):
        return leaves_of_hessian(h.a, x.a) + leaves_of_hessian(h.b, x.b)
    if isinstance(x, (list, tuple)):
        return [r for a, b in zip(h, x) for r in leaves_of_hessian(a, b)]
    return [h]


def leaf(rng, kind):
    """A leaf of ``kind``: a float, a NumPy float64, an int, a vector."""
    value = round(float(rng.uniform(0.2, 1.2)), 3)
    return {"float": value, "f64": np.float64(value), "int": int(rng.integers(1, 3)),
            "vector": rng.uniform(0.2, 1.2, size=2)}[kind]


def dict_variants(rng, n):
    """Dicts holding "a" and "b" and changed from ``{"a": float, "b": float}``: another order,
    extra keys, other kinds of leaves, a nested dict."""
    first = {"a": 0.7, "b": 0.3}
    out = [first, dict(first), {"b": 0.3, "a": 0.7}, {"a": 0.7, "b": 0.3, "c": 0.5},
           {"a": np.float64(0.7), "b": 0.3}, {"a": 1, "b": 0.3},
           {"a": np.array([0.7, 0.2]), "b": 0.3}]
    for _ in range(n):
        keys = ["a", "b"] + [k for k in ("c", "d") if rng.random() < 0.5]
        rng.shuffle(keys)
        made = {k: leaf(rng, rng.choice(["float", "float", "f64", "int", "vector"]))
                for k in keys}
        made["b"] = leaf(rng, "float")  # (iter reads b times each key: b a number)
        out.append(made)
    return out


DICT_FAMILY = dict_variants(np.random.default_rng(32), 12 if LONG else 0)
SEQ_FAMILY = [[0.7, 0.3], [0.7, 0.3], (0.7, 0.3), [0.7, 0.3, 0.5], [0.7, np.float64(0.3)],
              [0.7, np.array([0.3, 0.4])], (0.7, 0.3, 0.5)]
REC_FAMILY = [NT(0.7, 0.3), NT(0.7, 0.3), NT(np.float64(0.7), 0.3), DC(0.7, 0.3), DC(0.7, 0.3),
              NT(np.array([0.7, 0.1]), 0.3), DC(np.array([0.7, 0.1]), 0.3)]


@pytest.mark.parametrize("f, twin", [(f_fixed, ag_fixed), (f_iter, ag_iter)],
                         ids=["two keys read", "every key read"])
def test_a_dict_changed_between_calls(f, twin):
    if not LONG and f is f_iter:
        pytest.skip("seconds: the long run (SRCAD_LONG_PROPERTIES=1)")
    # (the default run: the first dict, another order, an extra key, an array, the first)
    xs = DICT_FAMILY if LONG else [DICT_FAMILY[k] for k in (0, 1, 2, 3, 6, 0)]
    check_all(f, twin, cheap(xs))


@pytest.mark.skipif(not LONG, reason="seconds: the long run (SRCAD_LONG_PROPERTIES=1)")
def test_a_list_or_tuple_changed_between_calls():
    check_all(f_seq, ag_seq, cheap(SEQ_FAMILY))


@pytest.mark.skipif(not LONG, reason="seconds: the long run (SRCAD_LONG_PROPERTIES=1)")
def test_a_record_changed_between_calls():
    check_all(f_rec, ag_rec, cheap(REC_FAMILY))


def test_a_record_made_a_dict_or_refused_as_before():
    """A record after a dict of the same fields, and a dict missing a key read, take the
    full path: the record's gradient is a record, the missing key raises as f does."""
    g = srcad.grad(f_fixed)
    want = g({"a": 0.7, "b": 0.3})
    for _ in range(2):
        with pytest.raises(KeyError):
            f_fixed({"a": 0.7})
        with pytest.raises(KeyError):
            g({"a": 0.7})
        with pytest.raises(srcad.SrcadError):  # a string where a number was: refused
            g({"a": 0.7, "b": "x"})
        assert g({"a": 0.7, "b": 0.3}) == want
    r = srcad.grad(f_rec)
    for x in (NT(0.7, 0.3), DC(0.7, 0.3), NT(0.7, 0.3)):
        got = r(x)
        assert type(got) is type(x)
        np.testing.assert_allclose([got.a, got.b], [want["a"], want["b"]], rtol=1e-13)


SCALE = 2.0


def branchy(x, y):  # a float on one branch, a NumPy float64 on the other
    if x > 0:
        return math.sin(x) * y * SCALE
    return np.sin(x) * y * SCALE


def ag_branchy(x, y):
    return anp.sin(x) * y * SCALE


def test_jacfwd_of_two_numbers_as_the_value_and_names_change():
    """``jacfwd`` of two numbers writes its two passes out for float values; a value of
    another kind (this branch's NumPy float64) and a global rebound between calls take the
    loop as before: every column against central differences and autograd."""
    global SCALE
    jac = srcad.jacfwd(branchy, wrt=(0, 1))
    for x, scale in ((0.7, 2.0), (0.7, 2.0), (-0.4, 2.0), (0.5, 3.0), (0.5, 3.0), (-0.6, 3.0)):
        SCALE = scale
        got = jac(x, 0.3)
        want = autograd.grad(ag_branchy, (0, 1))(x, 0.3)
        cd = [(branchy(x + 1e-6, 0.3) - branchy(x - 1e-6, 0.3)) / 2e-6,
              (branchy(x, 0.3 + 1e-6) - branchy(x, 0.3 - 1e-6)) / 2e-6]
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got, cd, rtol=1e-6)
        assert all(type(g) is float for g in got)
    SCALE = 2.0
