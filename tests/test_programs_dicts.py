"""Dicts built inside differentiated code (``{'a': x}``, ``dict(a=x)``, ``dict(pairs)``), read
(``d[k]``, ``d.get``, ``d.items()``, ``d.values()``, ``d.keys()``, ``for k in d`` on a dict
built here) and sorted (``sorted(d)``, ``sorted(d.items())``, ``sorted`` of numbers), in
reverse and forward mode, and returned (Jacobians of a dict output). Each program is checked
against central finite differences and srcad's reference tape (``srcad.tape``); forward
mode against finite differences and reverse mode.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import tape
from srcad.errors import SrcadError


def literal(x, s):
    d = {"a": x * s, "b": np.sin(x)}
    return np.sum(d["a"] * d["b"]) + s


def keyword_dict(x, s):
    d = dict(a=x, b=np.cos(x) * s)
    return np.sum(d["a"] ** 2 * d["b"])


def pairs_dict(x, s):
    d = dict([("a", x * s), ("b", x + s), ("a", x * 3.0)])  # the last "a" is kept
    return np.sum(d["a"] * d["b"])


def items_loop(x, s):
    d = {"u": x * s, "v": np.tanh(x), "w": x ** 2}
    total = 0.0
    for k, v in d.items():
        total = total + np.sum(v) * (2.0 if k == "v" else 1.0)
    return total


def values_loop(x, s):
    d = {"u": x * s, "v": np.exp(-x)}
    total = 0.0
    for v in d.values():
        total = total + np.sum(v * v)
    return total


def keys_loop(x, s):
    d = {"u": x * s, "v": np.exp(-x)}
    total = s
    for k in d:
        total = total + np.sum(d[k])
    for k in sorted(d.keys()):
        total = total * 0.5 + np.sum(d[k] ** 2)
    return total


def get_with_default(x, s):
    d = {"u": x * s}
    return np.sum(d.get("u", x) * d.get("missing", s) + d.get("u"))


def sorted_items(x, s):
    d = {"z": x * s, "a": np.sin(x), "m": x + s}
    total, weight = 0.0, 1.0
    for _k, v in sorted(d.items()):
        total = total + weight * np.sum(v)
        weight = weight + 1.0
    return total


def sorted_numbers(x, s):
    items = sorted([s, 2.0 * s - 1.0, 3.0 - s, np.sum(x)])
    return items[0] * 1.0 + items[1] * 2.0 + items[2] * 3.0 + items[3] * 4.0


def sorted_by_key(x, s):
    pairs = [(s, x * 2.0), (-s * 0.5, np.sin(x)), (s * s - 1.0, x + s)]
    total, weight = 0.0, 1.0
    for _key, v in sorted(pairs, key=lambda pair: pair[0], reverse=True):
        total = total + weight * np.sum(v)
        weight = weight + 1.5
    return total + sum(sorted([s, 1.0 - s, 2.0 * s], key=abs)[1:]) * 3.0


def updated(x, s):
    d = {"a": x}
    d["b"] = x * s
    d["a"] = d["a"] + 1.0
    return np.sum(d["a"] * d["b"])


def nested(x, s):
    d = {"layer": {"w": x * s, "b": [s, s * s]}, "scale": (s, 2.0)}
    return np.sum(d["layer"]["w"]) * d["layer"]["b"][1] + d["scale"][0]


def copied_argument(x, s, p):
    q = dict(p)
    q["x"] = x
    return np.sum(q["w"] * q["x"]) + q["b"] * s


def argument_views(x, s, p):
    total = 0.0
    for _k, v in p.items():
        total = total + np.sum(v * x) * s
    for v in p.values():
        total = total + np.sum(v) ** 2
    return total + np.sum(p.get("w", x)) + sum(len(k) for k in sorted(p))


def list_of_dict_keys(x, s, p):
    return np.sum(p["w"] * x) * len(list(p)) + s * len(tuple(p))


def comprehension(x, s):
    d = {k: x * (i + s) for i, k in enumerate(["a", "b", "c"])}
    return np.sum(d["b"] * s + d["c"] * d["a"])


def comprehension_filtered(x, s):
    d = {k: np.sin(v * s) for k, v in {"u": x, "v": x * x, "w": -x}.items() if k != "v"}
    total = s
    for k in d:
        total = total + np.sum(d[k]) * len(k)
    return total + sum(np.sum(v) for v in d.values())


def comprehension_nested(x, s):
    d = {f"{i}{j}": x[i] * x[j] * s for i in range(3) for j in range(i, 3)}
    return sum(d[k] for k in sorted(d)) + d["01"] ** 2


def comprehension_over_argument(x, s, p):
    q = {k: v * s for k, v in p.items()}
    r = {k: q[k] + x for k in p}
    return np.sum(r["w"] * x) + np.sum(r["b"])


def update_display(x, s):
    d = {"a": x}
    d.update({"b": x * s, "a": d["a"] + 1.0})
    d.update(c=np.sin(x), b=d["b"] * 2.0)
    return np.sum(d["a"] * d["b"] + d["c"])


def update_copied_argument(x, s, p):
    q = dict(p)
    q.update({"w": q["w"] * x})
    q.update(b=q["b"] + s)
    return np.sum(q["w"]) * q["b"]


def set_default(x, s):
    d = {"a": x * s}
    first = d.setdefault("a", x)  # present: the value kept
    second = d.setdefault("b", np.cos(x) * s)  # absent: written, then read
    return np.sum(first * second) + np.sum(d["b"])


def set_default_branches(x, s):
    d = {}
    for i in range(3):
        key = "even" if i % 2 == 0 else "odd"
        d.setdefault(key, x * 0.0)
        d[key] = d[key] + x * (i + s)
    return np.sum(d["even"] * d["odd"])


P = {"w": np.array([0.3, -0.7, 1.1]), "b": 0.4}
PROGRAMS = [literal, keyword_dict, pairs_dict, items_loop, values_loop, keys_loop,
            get_with_default, sorted_items, sorted_numbers, sorted_by_key, updated, nested,
            comprehension, comprehension_filtered, comprehension_nested, update_display,
            set_default, set_default_branches]
WITH_DICT = [copied_argument, argument_views, list_of_dict_keys, comprehension_over_argument,
             update_copied_argument]
POINTS = [(np.array([0.5, -1.0, 0.3]), 0.8), (np.array([1.2, 0.4, -0.6]), -0.35),
          (np.array([-0.1, 0.9, 2.0]), 1.7)]


def _args(f, point):
    x, s = point
    return (x, s, dict(P)) if f in WITH_DICT else (x, s)


@pytest.mark.parametrize("point", range(len(POINTS)))
@pytest.mark.parametrize("f", PROGRAMS + WITH_DICT, ids=lambda f: f.__name__)
def test_reverse_mode(f, point):
    args = _args(f, POINTS[point])
    gx, gs = srcad.grad(f, wrt=(0, 1))(*args)
    for k, got in ((0, gx), (1, gs)):
        assert np.allclose(got, numerical_grad(f, args, k), rtol=1e-6, atol=1e-7)
        assert np.allclose(got, tape.grad(f, wrt=k)(*args), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("point", range(len(POINTS)))
@pytest.mark.parametrize("f", PROGRAMS + WITH_DICT, ids=lambda f: f.__name__)
def test_forward_mode(f, point):
    args = _args(f, POINTS[point])
    rng = np.random.default_rng(point)
    u = (rng.normal(size=3), float(rng.normal()))
    value, tangent = srcad.jvp(f, args, u, wrt=(0, 1))
    assert np.isclose(value, f(*args), rtol=1e-12)
    gx, gs = srcad.grad(f, wrt=(0, 1))(*args)
    assert np.isclose(tangent, np.dot(gx, u[0]) + gs * u[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f", [argument_views, copied_argument, comprehension_over_argument,
                               update_copied_argument], ids=lambda f: f.__name__)
def test_gradient_with_respect_to_the_dict(f):
    x, s = POINTS[0]
    g = srcad.grad(f, wrt=2)(x, s, dict(P))
    assert list(g) == list(P)
    for key in P:
        def along(v, key=key):
            q = dict(P)
            q[key] = v
            return f(x, s, q)
        assert np.allclose(g[key], numerical_grad(along, (P[key],), 0), rtol=1e-6, atol=1e-7)


def dict_out(x, s):
    return {"scaled": x * s, "sines": np.sin(x), "total": np.sum(x) * s}


@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("point", range(len(POINTS)))
def test_jacobian_of_a_dict_output(point, mode):
    x, s = POINTS[point]
    jac = srcad.jacobian(dict_out, wrt=(0, 1), mode=mode)(x, s)
    assert list(jac) == ["scaled", "sines", "total"]
    h = 1e-6
    for key, value in dict_out(x, s).items():
        jx, js = jac[key]
        assert np.shape(jx) == np.shape(value) + x.shape and np.shape(js) == np.shape(value)
        for i in range(x.size):
            e = np.zeros(x.size)
            e[i] = h
            want = (dict_out(x + e, s)[key] - dict_out(x - e, s)[key]) / (2 * h)
            assert np.allclose(np.asarray(jx)[..., i], want, rtol=1e-5, atol=1e-7)
        want = (dict_out(x, s + h)[key] - dict_out(x, s - h)[key]) / (2 * h)
        assert np.allclose(js, want, rtol=1e-5, atol=1e-7)


def test_vjp_of_a_dict_output():
    x, s = POINTS[1]
    value, pullback = srcad.vjp(dict_out, x, s)
    dy = {"scaled": np.ones(3), "sines": np.array([0.5, -1.0, 2.0]), "total": 3.0}
    gx, gs = pullback(dy)

    def dotted(x_, s_):
        out = dict_out(x_, s_)
        return sum(np.sum(dy[k] * out[k]) for k in dy)

    assert np.allclose(gx, numerical_grad(dotted, (x, s), 0), rtol=1e-6, atol=1e-7)
    assert np.allclose(gs, numerical_grad(dotted, (x, s), 1), rtol=1e-6, atol=1e-7)


def spread_in_literal(x, extra):
    d = {"a": x, **extra}
    return d["a"]


def loop_over_argument(x, p):
    total = 0.0
    for k in p:
        total = total + p[k] * x
    return total


def loop_over_argument_keys(x, p):
    total = 0.0
    for i, k in enumerate(p):
        weight = float(len(k)) if isinstance(k, str) else k + 0.5
        total = total + weight * x * (i + 1.0) + sum(p[j] * x for j in p)
    return total


def get_or_x(d, x):
    return d.get("item_1", x) ** 2


@pytest.mark.parametrize("d", [{"item_1": 3.0}, {"item_2": 4.0}, {}], ids=["has", "lacks", "empty"])
def test_gradient_with_respect_to_a_dict_that_may_be_empty(d):
    """autograd's test_dict ``test_get``: the gradient of a dict is a dict of its keys, ``{}``
    for an empty one; forward mode takes a dict of tangents."""
    gd, gx = srcad.grad(get_or_x, wrt=(0, 1))(dict(d), 2.0)
    assert list(gd) == list(d)
    assert gx == pytest.approx(numerical_grad(get_or_x, (dict(d), 2.0), 1), rel=1e-6, abs=1e-9)
    for key in d:
        def along(v, key=key):
            return get_or_x({**d, key: v}, 2.0)
        assert gd[key] == pytest.approx(numerical_grad(along, (d[key],), 0), rel=1e-6, abs=1e-9)
    _, tangent = srcad.jvp(get_or_x, (dict(d), 2.0), ({k: 1.0 for k in d}, 0.5))
    assert tangent == pytest.approx(sum(gd.values()) + 0.5 * gx, rel=1e-9, abs=1e-12)


def update_other(x, other):
    d = {"a": x}
    d.update(other)
    return d["a"] * x


def test_refusals_name_the_line_and_a_rewrite():
    with pytest.raises(SrcadError, match=r"\*\*d.*dict literal") as err:
        srcad.grad(spread_in_literal)(1.0, {"b": 2.0})
    assert "dict(d)" in str(err.value)
    with pytest.raises(SrcadError, match=r"\.update\(\) changes a value") as err:
        srcad.grad(update_other)(1.0, {"a": 2.0})
    assert err.value.lineno is not None


@pytest.mark.parametrize("p", [{"a": 2.0, "b": -1.5}, {0: 5.0, 1: 7.0}, {3: 1.0, "z": 2.0}],
                         ids=["str", "int-keys", "mixed"])
def test_loop_over_a_dict_argument_reads_its_keys(p):
    """``for k in p`` over a dict argument iterates its keys, even keys 0, 1, ... (which a
    loop indexing by position would read as its values)."""
    for f in (loop_over_argument, loop_over_argument_keys):
        g = srcad.grad(f, wrt=(0, 1))(1.3, dict(p))
        assert g[0] == pytest.approx(numerical_grad(f, (1.3, dict(p)), 0), rel=1e-6)
        assert g[0] == pytest.approx(tape.grad(f, wrt=0)(1.3, dict(p)), rel=1e-12)
        value, _ = srcad.value_and_grad(f)(1.3, dict(p))
        assert value == pytest.approx(f(1.3, dict(p)), rel=1e-12)


def through_items(p):
    total = 0.0
    for i, (_k, v) in enumerate(sorted(p.items(), key=lambda kv: kv[0])):
        total = total + np.sum(np.sin(v)) * (i + 1.0)
    for k in sorted(p.keys()):
        total = total + np.sum(np.cos(p[k]))
    return total


def gradient_read(p):
    """A derivative with respect to a dict called inside code: differentiating this is a
    third derivative through the dict's items (autograd's test_dict)."""
    g = srcad.grad(through_items)(p)
    return np.sum(g["w"]) + np.sum(np.sin(g["u"]))


@pytest.mark.parametrize("seed", [0, 1])
def test_derivatives_of_derivatives_with_respect_to_a_dict(seed):
    rng = np.random.default_rng(seed)
    p = {"w": rng.normal(size=3), "u": rng.normal(size=2), "z": rng.normal(size=2)}
    w = {k: rng.normal(size=v.shape) for k, v in p.items()}
    second = srcad.grad(gradient_read, wrt=(0,))
    _, pullback = srcad.vjp(second, p, wrt=(0,))
    got = pullback((w,))[0]
    h = 1e-5
    for key in p:
        for i in range(p[key].size):
            up, down = dict(p), dict(p)
            up[key] = p[key].copy()
            down[key] = p[key].copy()
            up[key][i] += h
            down[key][i] -= h
            want = sum(np.sum(w[k] * (second(up)[0][k] - second(down)[0][k])) for k in p) / (2 * h)
            assert got[key][i] == pytest.approx(want, rel=1e-5, abs=1e-6)
