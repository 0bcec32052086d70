"""Backward parts that add into the caller's gradient arrays (srcad.transform.into, issue 18):
a generated family of callees (in loops, called twice with the same buffer, an argument
passed twice, slices / concatenate / scatter inside, nested callees, broadcasting arguments,
views), each checked against autograd and central finite differences in grad,
value_and_grad, vjp, jvp and both Hessian modes, and the generated code checked for where
the variant is and is not called."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.specialise import transformed_of

# ---------------------------------------------------------------- callees, written twice:
# with np (for srcad) and with anp (for autograd), from one template


def _callees(xp):
    def rhs(x, y):
        return xp.concatenate((x[:1], x[1:] * y[:-1]))

    def cell(w, h):
        return xp.tanh(w * h + w[::-1])

    def twice(w, h):  # a callee calling a callee, w passed on
        return cell(w, cell(w, h))

    def both(a, b):
        return a * b + xp.sin(a)

    def scaled(s, h):  # s: a number or a (1, n) / (n,) array broadcast against h
        return s * h + xp.cos(h)

    def piece(w, h):  # writes into a new array: scatter inside
        return w[1:] * h[:-1] + w[:-1]

    def rec(w, h, n):  # recursion: the variant calls itself with the same buffer
        if n == 0:
            return h
        return rec(w, cell(w, h), n - 1)

    def branchy(w, h):  # w's gradient on one path only
        if h[0] > 0:
            return w * h
        return h * 2.0

    def inner_loop(w, h):  # w read in the callee's own loop
        for _ in range(2):
            h = xp.sin(h * w)
        return h

    def ignores(w, h):  # w passed, its gradient zero: the buffer untouched
        return h * 2.0

    def passthrough(w, h):  # w's gradient is the seed itself
        return w + 0.0 * h

    def pair(a, s):  # s: one item of the array a is
        return a * s + xp.sin(a)

    return (rhs, cell, twice, both, scaled, piece, rec, branchy, inner_loop, ignores,
            passthrough, pair)


def _programs(xp):
    (rhs, cell, twice, both, scaled, piece, rec, branchy, inner_loop, ignores, passthrough,
     pair) = _callees(xp)

    def carried(w, h):  # the buffer is the gradient of a value the loop carries
        for _ in range(3):
            a = cell(w, h)
            h = a * w + h
            w = w * 0.9 + 0.01 * a
        return xp.sum(h * h + w)

    def item_pair(w, h):  # pair(w, w[0]): dw the buffer, w[0]'s gradient added at dw[0]
        for _ in range(2):
            h = h * pair(w, w[0])
        return xp.sum(h * h)

    def recursive(w, h):
        for _ in range(2):
            h = rec(w, h, 2)
        return xp.sum(h * h)

    def branches(w, h):
        for k in range(4):
            h = 0.01 * k - branchy(w, h)  # the sign of h[0] alternates: both paths
        return xp.sum(h * h)

    def loops_inside(w, h):
        for _ in range(2):
            h = inner_loop(w, h) + h
        return xp.sum(h * h)

    def untouched(w, h):
        for _ in range(2):
            h = ignores(w, h) * w
        return xp.sum(h * h)

    def seed_through(w, h):
        for _ in range(2):
            h = passthrough(w, h) * h
        return xp.sum(h * h)

    def ode(x, h0):
        y = h0
        for _ in range(3):
            k1 = rhs(x, y)
            k2 = rhs(x, y + 0.1 * k1)
            y = y + 0.05 * (k1 + k2)
        return xp.sum(y * y)

    def loop_cell(w, h):
        for _ in range(3):
            h = cell(w, h)
        return xp.sum(h * h)

    def same_buffer_twice(w, h):  # two calls in one iteration, one buffer
        for _ in range(2):
            a = cell(w, h)
            h = cell(w, a) + 0.5 * a
        return xp.sum(h)

    def passed_twice(w, h):  # both(w, w): the same value for two parameters
        for _ in range(2):
            h = h + both(w, w) * h
        return xp.sum(h * h)

    def nested(w, h):
        for _ in range(2):
            h = twice(w, h)
        return xp.sum(xp.sin(h))

    def broadcast_row(s, h):  # s of shape (1, n), h of (m, n)
        for _ in range(2):
            h = scaled(s, h)
        return xp.sum(h * h)

    def broadcast_number(s, h):  # s an array of shape (): one number for every element
        for _ in range(2):
            h = scaled(s, h)
        return xp.sum(h * h)

    def view_argument(w, h):  # a view of w passed: its gradient is not w's buffer
        for _ in range(2):
            h = cell(w[::-1], h) + cell(w, h)
        return xp.sum(h * h)

    def pieces(w, h):
        for _ in range(2):
            h = xp.concatenate((piece(w, h), h[-1:])) * w
        return xp.sum(h * h)

    def first_use(w, h):  # the first call's gradient of w is w's first contribution
        h = cell(w, h)
        return xp.sum(h * w)

    return {"ode": ode, "loop_cell": loop_cell, "same_buffer_twice": same_buffer_twice,
            "passed_twice": passed_twice, "nested": nested, "broadcast_row": broadcast_row,
            "broadcast_number": broadcast_number, "view_argument": view_argument,
            "pieces": pieces, "first_use": first_use, "recursive": recursive,
            "branches": branches, "loops_inside": loops_inside, "untouched": untouched,
            "seed_through": seed_through, "item_pair": item_pair, "carried": carried}


SRC = _programs(np)
REF = _programs(anp)
N = 5


def _inputs(name, seed=0):
    rng = np.random.default_rng(seed)
    if name == "broadcast_row":
        return rng.uniform(0.2, 0.6, size=(1, N)), rng.uniform(-0.5, 0.5, size=(3, N))
    if name == "broadcast_number":
        return np.array(rng.uniform(0.2, 0.6)), rng.uniform(-0.5, 0.5, size=N)
    return rng.uniform(0.2, 0.6, size=N), rng.uniform(-0.5, 0.5, size=N)


def _fd(f, args, k, eps=1e-6):
    args = [np.array(a, dtype=float) for a in args]
    g = np.zeros_like(args[k])
    for i in np.ndindex(args[k].shape):
        up = [a.copy() for a in args]
        dn = [a.copy() for a in args]
        up[k][i] += eps
        dn[k][i] -= eps
        g[i] = (f(*up) - f(*dn)) / (2 * eps)
    return g


NAMES = sorted(SRC)


@pytest.mark.parametrize("name", NAMES)
def test_grad_against_autograd_and_differences(name):
    w, h = _inputs(name)
    w0, h0 = w.copy(), h.copy()
    got = srcad.grad(SRC[name], wrt=(0, 1))(w, h)
    value, vg = srcad.value_and_grad(SRC[name], wrt=(0, 1))(w, h)
    np.testing.assert_array_equal(w, w0)  # the arguments are never a buffer
    np.testing.assert_array_equal(h, h0)
    assert np.isclose(value, REF[name](w, h))
    for k in range(2):
        ref = autograd.grad(REF[name], k)(w, h)
        np.testing.assert_allclose(got[k], ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(vg[k], ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got[k], _fd(SRC[name], (w, h), k), rtol=1e-5, atol=1e-7)
        assert np.shape(got[k]) == np.shape((w, h)[k])


@pytest.mark.parametrize("name", NAMES)
def test_each_argument_alone_and_called_again(name):
    """wrt one argument (the other inactive), and the same gradient called again on other
    inputs: buffers are not kept between calls."""
    for k in range(2):
        d = srcad.grad(SRC[name], wrt=k)
        for seed in range(2):
            w, h = _inputs(name, seed)
            np.testing.assert_allclose(d(w, h), autograd.grad(REF[name], k)(w, h),
                                       rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_vjp_and_jvp(name):
    w, h = _inputs(name)
    value, pullback = srcad.vjp(SRC[name], w, h)
    dw, dh = pullback(2.0)
    np.testing.assert_allclose(dw, 2.0 * autograd.grad(REF[name], 0)(w, h), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(dh, 2.0 * autograd.grad(REF[name], 1)(w, h), rtol=1e-10,
                               atol=1e-12)
    tw = np.ones_like(w)
    _, t = srcad.jvp(SRC[name], (w, h), (tw, np.zeros_like(h)))
    assert np.isclose(t, np.sum(autograd.grad(REF[name], 0)(w, h) * tw))


SECOND = ["ode", "loop_cell", "passed_twice", "nested", "pieces", "broadcast_row", "recursive",
          "branches", "item_pair", "carried"]


@pytest.mark.parametrize(("name", "mode"), list(itertools.product(SECOND, ["fwd", "rev"])))
def test_hessian_both_modes(name, mode):
    w, h = _inputs(name)

    def of_w(v):
        return SRC[name](v, h)

    def ref_of_w(v):
        return REF[name](v, h)

    got = srcad.hessian(of_w, mode=mode)(w)
    ref = autograd.hessian(ref_of_w)(w)
    np.testing.assert_allclose(np.reshape(got, ref.shape), ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", SECOND)
def test_grad_of_grad(name):
    """A derivative of a gradient made with the variants: it reads the plain form."""
    w, h = _inputs(name)
    d = srcad.grad(SRC[name], wrt=0)

    def outer(v):
        return np.sum(d(v, h) ** 2)

    def ref_outer(v):
        return anp.sum(autograd.grad(REF[name], 0)(v, h) ** 2)

    np.testing.assert_allclose(srcad.grad(outer)(w), autograd.grad(ref_outer)(w),
                               rtol=1e-8, atol=1e-10)
    d(w, h)  # the gradient itself still right after its plain form was made
    np.testing.assert_allclose(d(w, h), autograd.grad(REF[name], 0)(w, h), rtol=1e-10)


def _source(name):
    w, h = _inputs(name)
    d = srcad.grad(SRC[name], wrt=(0, 1))
    d(w, h)
    return srcad.source(d, callees=False)


@pytest.mark.parametrize(("name", "variant"), [
    ("ode", "rhs_bwd_into"), ("loop_cell", "cell_bwd_into"),
    ("same_buffer_twice", "cell_bwd_into"), ("nested", "twice_bwd_into"),
    ("broadcast_row", "scaled_bwd_into"),
    ("pieces", "piece_bwd_into"), ("recursive", "rec_bwd_into"),
    ("branches", "branchy_bwd_into"), ("loops_inside", "inner_loop_bwd_into"),
    ("untouched", "ignores_bwd_into"), ("seed_through", "passthrough_bwd_into"),
    ("item_pair", "pair_bwd_into"), ("carried", "cell_bwd_into"),
    ("first_use", "cell_bwd_into")])  # (fills36: unbroadcast of rank >= 1 arithmetic is new)
def test_the_variant_is_called_in_loops(name, variant):
    """(A variant small enough is written into the loop instead: srcad/backend/inline.py;
    its comments name the callee.)"""
    text = _source(name)
    assert variant in text or f"# {variant.split('_bwd')[0]}, line" in text


@pytest.mark.parametrize(("name", "plain"), [
    ("passed_twice", "both_bwd("), ("broadcast_number", "scaled_bwd(")])
def test_the_plain_part_where_the_proof_fails(name, plain):
    """An argument passed for two parameters, a 0-d array
    (its gradient may be a NumPy number after arithmetic, which no callee adds into in
    place: tests/test_perf18_guards.py's zero_d cases): no buffer."""
    text = _source(name)
    assert plain in text
    assert "_bwd_into" not in text


def test_a_view_is_not_a_buffer():
    """``cell(w[::-1], h)``: the argument's gradient is a temporary's, not ``dw``: that call
    takes the plain part; ``cell(w, h)`` in the same line the variant, given ``dw``."""
    lines = _source("view_argument").splitlines()
    into = [line for line in lines if "cell_bwd_into(" in line]
    plain = [line for line in lines if "cell_bwd(" in line]
    assert len(into) == 1 and into[0].rstrip().endswith(", dw)")
    assert len(plain) == 1 and "dw" not in plain[0]


def test_plain_form_has_no_variants():
    w, h = _inputs("ode")
    d = srcad.grad(SRC["ode"], wrt=0)
    d(w, h)
    t = transformed_of(d)
    fn = t._specialise(t._bind((w, h), {}))
    plain = srcad.backend.standard.numpy_form(fn.__srcad_raw__)
    assert plain is not fn.__srcad_raw__
    assert "_bwd_into" not in plain.__srcad_source__
    assert "_bwd_into" in fn.__srcad_source__
    np.testing.assert_allclose(plain(w, h), d(w, h), rtol=1e-12)


def test_adds_only_refuses_reads_of_the_buffer():
    import ast

    from srcad.transform.into import adds_only

    def check(text):
        return adds_only(ast.parse(text).body[0], ["dw"], {"sub_bwd_into"})

    assert check("def f(ctx, g, dw):\n    dw += g\n    dw[1:] += g * 2\n    return g")
    assert check("def f(ctx, g, dw):\n    sub_bwd_into(ctx, g, dw)")
    assert not check("def f(ctx, g, dw):\n    dw += dw * g")
    assert not check("def f(ctx, g, dw):\n    dw = g")
    assert not check("def f(ctx, g, dw):\n    return dw")
    assert not check("def f(ctx, g, dw):\n    dw[dw > 0] += g")
    assert not check("def f(ctx, g, dw):\n    other(ctx, g, dw)")
    assert not check("def f(ctx, g, dw):\n    sub_bwd_into(ctx, dw, dw)")
    assert not check("def f(ctx, g, dw):\n    sub_bwd_into(ctx, g, dw, dw)")
    assert not check("def f(ctx, g):\n    dw += g")
    assert not check("def f(ctx, g, dw):\n    dw -= g")


def test_a_python_number_is_not_a_buffer():
    """A float argument's gradient is a number: the plain part, right."""
    _, _, _, _, scaled, *_ = _callees(np)

    def f(s, h):
        for _ in range(2):
            h = scaled(s, h)
        return np.sum(h * h)

    def ref(s, h):
        for _ in range(2):
            h = s * h + anp.cos(h)
        return anp.sum(h * h)

    h = np.linspace(-0.4, 0.4, N)
    d = srcad.grad(f, wrt=(0, 1))
    got = d(0.3, h)
    assert "_bwd_into" not in srcad.source(d)
    assert np.isclose(got[0], autograd.grad(ref, 0)(0.3, h))
    np.testing.assert_allclose(got[1], autograd.grad(ref, 1)(0.3, h), rtol=1e-10)


def test_float32_arguments():
    w, h = (v.astype(np.float32) for v in _inputs("loop_cell"))
    got = srcad.grad(SRC["loop_cell"], wrt=(0, 1))(w, h)
    for k in range(2):
        ref = autograd.grad(REF["loop_cell"], k)(w.astype(float), h.astype(float))
        np.testing.assert_allclose(got[k], ref, rtol=1e-4)


def test_unproved_variant_falls_back_to_the_plain_part(monkeypatch):
    """A variant whose code does not pass ``adds_only`` is not used: the caller calls the
    plain part (the check refusing every variant here)."""
    import srcad.transform.into as into

    monkeypatch.setattr(into, "adds_only", lambda *a: False)
    srcad.clear_cache()
    try:
        for name in ("ode", "nested", "recursive"):
            w, h = _inputs(name)
            d = srcad.grad(SRC[name], wrt=(0, 1))
            got = d(w, h)
            assert "_bwd_into" not in srcad.source(d)
            for k in range(2):
                np.testing.assert_allclose(got[k], autograd.grad(REF[name], k)(w, h),
                                           rtol=1e-10, atol=1e-12)
    finally:
        srcad.clear_cache()


def test_gradient_carried_by_a_loop_then_returned_by_a_callee():
    """A loop's gradient (new before the loop) given the seed a callee returns as its first
    contribution in the next iteration is not added into in place afterwards (the callee's
    seed is the caller's array): against autograd, the callee returning its seed."""
    *_, passthrough, _ = _callees(np)

    def f(w, h):
        s = h * h
        for _ in range(3):
            a = passthrough(s, w)  # d(a)/d(s) is the seed itself
            s = a * 0.5 + s * w
        return np.sum(s * s)

    def ref(w, h):
        s = h * h
        for _ in range(3):
            a = s + 0.0 * w
            s = a * 0.5 + s * w
        return anp.sum(s * s)

    w, h = _inputs("loop_cell")
    got = srcad.grad(f, wrt=(0, 1))(w, h)
    for k in range(2):
        np.testing.assert_allclose(got[k], autograd.grad(ref, k)(w, h), rtol=1e-10)
        np.testing.assert_allclose(got[k], _fd(f, (w, h), k), rtol=1e-5, atol=1e-7)


def test_a_buffer_first_made_from_an_argument_is_a_copy():
    """``dv = 1.0 * u`` (``np.dot(u, v)``'s gradient, the seed 1) simplified to ``dv = u``
    would make the argument the buffer a variant adds into: tidy keeps the copy (the call
    counts as changing ``dv`` in place). Against autograd; the arguments unchanged."""
    def cross(a, b):
        return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]])

    def f(u, v):
        return np.sum(cross(u, v) * cross(v, u + 1.0)) + np.dot(u, v)

    def ref(u, v):
        c1 = anp.array([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                        u[0] * v[1] - u[1] * v[0]])
        w = u + 1.0
        c2 = anp.array([v[1] * w[2] - v[2] * w[1], v[2] * w[0] - v[0] * w[2],
                        v[0] * w[1] - v[1] * w[0]])
        return anp.sum(c1 * c2) + anp.dot(u, v)

    for seed in range(3):
        rng = np.random.default_rng(seed)
        u, v = rng.normal(size=3), rng.normal(size=3)
        u0, v0 = u.copy(), v.copy()
        d = srcad.grad(f, wrt=(0, 1))
        got = d(u, v)
        assert "_bwd_into" in srcad.source(d)
        np.testing.assert_array_equal(u, u0)
        np.testing.assert_array_equal(v, v0)
        for k in range(2):
            np.testing.assert_allclose(got[k], autograd.grad(ref, k)(u, v), rtol=1e-10)
            np.testing.assert_allclose(got[k], _fd(f, (u, v), k), rtol=1e-5, atol=1e-7)


def test_a_variant_call_is_not_moved_into_a_statement_naming_its_buffer():
    """``dt = pair_bwd_into(ctx, g, dw)`` then ``dw[0] += dt``: written as one statement,
    ``dw[0]`` would be read before the call adds into ``dw`` and the call's addition there
    lost (tidy's inlining keeps them apart)."""
    text = _source("item_pair")
    calls = [line.strip() for line in text.splitlines() if "pair_bwd_into(" in line]
    assert calls and all(not c.startswith("dw[") for c in calls), text
