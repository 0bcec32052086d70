"""The Numba backend's callee backward parts that add into the caller's arrays
(``srcad.transform.into``, now on this backend too), its ``layout`` stand-ins, and its
additions of elementwise expressions fused into loops (``srcad.backend.numba_fuse``).

A generated family: a callee reading two views of its arrays (slices, a reversal, strides,
the whole array) in an elementwise expression (four shapes), called in four kinds of caller
(Runge-Kutta steps, two calls with the arguments swapped, the same array passed twice, a
reversed view passed), each compared with the Python backend (1e-12), autograd and central
finite differences, in reverse and forward mode. Then the fused helper itself, on the cases
where it must not run its loop (memory shared with the target, broadcasting, other ranks
and dtypes, a number), against NumPy. Skipped where numba is not installed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from twin_checks import central, close

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

#: the callee ``part(x, y)``: an array of x's length; {e} an expression of the views A and B
CALLEES = {
    "slices": ("np.concatenate((x[:1], {e}))", "x[1:]", "y[:-1]"),
    "whole": ("{e}", "x", "y"),
    "reversed": ("{e}", "x[::-1]", "y"),
    "strided": ("np.concatenate(({e}, y[::2] * 0.5))", "x[::2]", "y[1::2]"),
}

EXPRS = ["{A} * {B}", "{A} * {B} * 0.5 - {A}", "-({A} * {B}) + 2.0 * {B}", "{A} * {A} * {B}"]

#: the caller's body, from y = y0 * 1.0
CALLERS = {
    "rk": ["for _ in range(3):", "    k1 = part(x, y)", "    k2 = part(x, y + 0.1 * k1)",
           "    y = y + 0.05 * (k1 + k2)"],
    "swapped": ["for _ in range(2):", "    y = part(x, y) * 0.3 + part(y, x) * 0.2"],
    "same": ["for _ in range(2):", "    y = y + 0.1 * part(y, y)"],
    "view": ["for _ in range(2):", "    y = y + 0.1 * part(x[::-1], y) + 0.1 * part(x, y)"],
}

CASES = list(itertools.product(CALLEES, range(len(EXPRS)), CALLERS))


def _module(case, numpy="numpy"):
    callee, k, caller = case
    body, a, b = CALLEES[callee]
    expr = EXPRS[k].format(A=a, B=b)
    lines = [f"import {numpy} as np", "", "", "def part(x, y):",
             "    return " + body.format(e=expr), "", "", "def f(x, y0):", "    y = y0 * 1.0"]
    lines += ["    " + line for line in CALLERS[caller]]
    lines.append("    return np.sum(y * y) + y[-1] * x[0]")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def load(load_module):
    """Writes a program to a module of its own (srcad reads source) and imports it."""
    return load_module


def _program(load, case, numpy="numpy"):
    name = "numba19b_" + "_".join(map(str, case)) + ("_ag" if numpy != "numpy" else "")
    return load(name, _module(case, numpy)).f




def _latin(shift):
    """Four cases holding every callee, expression and caller once each (``shift`` turns
    which expression goes with which callee)."""
    callees, callers = list(CALLEES), list(CALLERS)
    return [(callees[i], (i + shift) % len(EXPRS), callers[(i + 2 * shift) % 4])
            for i in range(4)]


#: CI: every callee, expression and caller once (Numba compiles each case: tens of seconds
#: on CI's two cores); the long run (SRCAD_LONG_PROPERTIES=1) every combination
SAMPLED = CASES if LONG else _latin(0)


@pytest.mark.parametrize("case", SAMPLED, ids=lambda c: "-".join(map(str, c)))
def test_family_reverse_mode_matches_python_autograd_and_differences(load, case):
    f = _program(load, case)
    n = 6
    rng = np.random.default_rng(CASES.index(case))
    fast = srcad.value_and_grad(f, wrt=("x", "y0"), backend="numba")
    slow = srcad.value_and_grad(f, wrt=("x", "y0"))
    grad = srcad.grad(f, wrt=("x", "y0"), backend="numba")
    import autograd

    ag = autograd.grad(_program(load, case, "autograd.numpy"), argnum=(0, 1))
    for _ in range(2):
        x, y0 = rng.uniform(0.2, 1.0, size=n), rng.uniform(-0.5, 0.5, size=n)
        value, (dx, dy) = fast(x, y0)
        ref_value, (ref_dx, ref_dy) = slow(x, y0)
        assert np.isclose(value, f(x, y0), rtol=1e-12, atol=1e-12)
        assert close(dx, ref_dx, 1e-12) and close(dy, ref_dy, 1e-12)
        gx, gy = grad(x, y0)
        assert close(gx, ref_dx, 1e-12) and close(gy, ref_dy, 1e-12)
        ag_dx, ag_dy = ag(x, y0)
        assert close(dx, ag_dx, 1e-12) and close(dy, ag_dy, 1e-12)
        assert close(dx, central(f, (x, y0), 0), 1e-6) and close(dy, central(f, (x, y0), 1), 1e-6)
        assert np.all(x == x) and np.all(np.isfinite(y0))  # (the arguments left unchanged)


@pytest.mark.parametrize("case", CASES[2::11] if LONG else _latin(1)[::4],
                         ids=lambda c: "-".join(map(str, c)))
def test_family_forward_mode_and_second_derivative(load, case):
    f = _program(load, case)
    rng = np.random.default_rng(100 + CASES.index(case))
    x, y0 = rng.uniform(0.2, 1.0, size=6), rng.uniform(-0.5, 0.5, size=6)
    tx, ty = rng.uniform(-1.0, 1.0, size=6), rng.uniform(-1.0, 1.0, size=6)
    value, tangent = srcad.jvp(f, (x, y0), (tx, ty), backend="numba")
    ref_value, ref_tangent = srcad.jvp(f, (x, y0), (tx, ty))
    assert np.isclose(value, ref_value, rtol=1e-12, atol=1e-12)
    assert np.isclose(tangent, ref_tangent, rtol=1e-12, atol=1e-12)
    h = 1e-6
    fd = (f(x + h * tx, y0 + h * ty) - f(x - h * tx, y0 - h * ty)) / (2 * h)
    assert np.isclose(tangent, fd, rtol=1e-6, atol=1e-7)
    # the Numba gradient differentiated again reads the Python backend's plain code
    inner = srcad.grad(f, backend="numba")
    hess = srcad.jacobian(inner)(x, y0)
    assert close(hess, srcad.hessian(f, mode="rev")(x, y0), 1e-10)
    assert close(hess, srcad.hessian(f, mode="fwd")(x, y0), 1e-10)
    fd_rows = [(inner(x + h * e, y0) - inner(x - h * e, y0)) / (2 * h) for e in np.eye(6)]
    assert close(hess, np.array(fd_rows), 1e-5)


def test_generated_code_adds_into_the_callers_array_in_one_loop(load, capfd, monkeypatch):
    """The callee's backward part called in the caller's loop is the variant adding into the
    caller's ``dx``, and its additions are fused helpers, not ``scatter`` into new zeros."""
    from srcad import pipeline

    monkeypatch.setattr(pipeline.switches, "DEBUG", True)
    f = _program(load, ("slices", 0, "rk"))
    srcad.grad(f, wrt=("x", "y0"), backend="numba")(np.linspace(0.2, 1.0, 5), np.zeros(5))
    text = capfd.readouterr().err
    part = text[text.index("def part_bwd_into(ctx, dresult, dx)"):]
    part = part[:part.index("----")]
    assert "numba_fused_vu_m_0_1(dx[1:], " in part  # dx[1:] += g * y[:-1], one loop
    assert "dx = " not in part and "return dx" not in part  # (never new zeros for dx)
    caller = text[text.index("after split of f"):] if "after split of f" in text else text
    assert "part_bwd_into(" in caller[caller.index("def "):]


def _run(name, out, *rest):
    """``numba_fused_<name>(out, *rest)`` compiled, called on ``out`` (changed in place where
    it is an array); returns what it returns."""
    import numba

    from srcad.backend import numba_helpers

    fused = numba_helpers.helper(name)
    count = 1 + len(rest)
    params = ", ".join(f"a{k}" for k in range(count))
    scope = {"fused": fused}
    exec(f"def run({params}):\n    return fused({params})\n", scope)
    return numba.njit(scope["run"])(out, *rest)


@pytest.mark.parametrize("shift", [-2, -1, 1, 2, 3])
def test_fused_helper_on_memory_shared_with_its_target_runs_as_numpy(shift):
    """``a[s:] += a[:-s] * b`` (an operand overlapping the target, not element for element):
    the helper adds as NumPy does, the product made first."""
    base = np.linspace(0.5, 2.0, 12)
    b = np.linspace(-1.0, 1.0, 12 - abs(shift))
    want = base.copy()
    got = base.copy()
    if shift > 0:
        want[shift:] += want[:-shift] * b
        _run("fused_vn_m_0_1", got[shift:], got[:-shift], b)
    else:
        want[:shift] += want[-shift:] * b
        _run("fused_vn_m_0_1", got[:shift], got[-shift:], b)
    assert np.array_equal(got, want)


def test_fused_helper_on_its_target_itself_and_a_reversed_view():
    a = np.linspace(0.5, 2.0, 9)
    want, got = a.copy(), a.copy()
    want += want * 3.0 - want
    _run("fused_vn_s_m_0_1_2", got, got, 3.0, got)  # out[i] += out[i] * 3.0 - out[i]
    assert np.array_equal(got, want)
    want, got = a.copy(), a.copy()
    want += want[::-1] * 2.0  # the reversal overlaps: not element for element
    _run("fused_vn_m_0_1", got, got[::-1], 2.0)
    assert np.array_equal(got, want)


def test_fused_helper_broadcasting_other_ranks_dtypes_and_numbers_run_as_before():
    out = np.zeros(4)
    _run("fused_vn_m_0_1", out, np.ones(4), np.float64(2.5))
    assert np.array_equal(out, np.full(4, 2.5))
    out = np.zeros((3, 4))  # rank 2: as before (in place)
    _run("fused_vn_m_0_1", out, np.ones((3, 4)), np.arange(4.0))
    assert np.array_equal(out, np.ones((3, 4)) * np.arange(4.0))
    out = np.zeros(4)  # an operand of length 1, broadcast
    _run("fused_vn_m_0_1", out, np.ones(1) * 2.0, np.arange(4.0))
    assert np.array_equal(out, 2.0 * np.arange(4.0))
    assert _run("fused_rn_m_0_1", 1.5, 2.0, 3.0) == 7.5  # a number: out + expr
    out = np.zeros(4)  # unbroadcast to a like of another length: summed, as before
    _run("fused_vu_m_0_1", out, np.zeros(1), np.ones(4), np.arange(4.0))
    assert np.array_equal(out, np.full(4, 6.0))
    out = np.zeros(4)
    _run("fused_vt_a_0_1", out, (4,), np.ones(4), np.arange(4.0))
    assert np.array_equal(out, 1.0 + np.arange(4.0))
    with pytest.raises(ValueError, match="broadcast gradient"):
        _run("fused_vt_a_0_1", np.zeros(4), (3,), np.ones(4), np.arange(4.0))
    from numba.core.errors import TypingError

    with pytest.raises(TypingError, match="adds into a slice of an array"):
        _run("fused_vn_m_0_1", (1.0, 2.0), 2.0, 3.0)  # X[s] += E of a tuple: no view
    out = np.zeros(4, dtype=np.float32)  # float32: as before
    _run("fused_vn_m_0_1", out, np.ones(4), np.arange(4.0))
    assert np.array_equal(out, np.arange(4.0, dtype=np.float32))


def test_fused_scatter_makes_zeros_and_adds_at_the_slice_or_scatters_as_before():
    from srcad.runtime import helpers

    rng = np.random.default_rng(3)
    y, g, t = rng.normal(size=8), rng.normal(size=8), rng.normal(size=8)
    for index in (slice(None, -1, None), slice(1, None, None), slice(None, None, -1)):
        like = y[index]
        n = like.shape[0]
        got = _run("fused_su_m_0_1", y, index, like, g[:n], t[:n])
        want = helpers.scatter(helpers.unbroadcast(g[:n] * t[:n], like), y, index)
        assert np.array_equal(got, want) and got.shape == y.shape
    # other ranks, an int index, broadcasting: scatter itself, as before
    y2 = rng.normal(size=(3, 4))
    got = _run("fused_sn_m_0_1", y2, (slice(0, 2, None), 1), rng.normal(size=2) * 0 + 2.0, 3.0)
    want = np.zeros((3, 4))
    want[0:2, 1] = 6.0
    assert np.array_equal(got, want)
    got = _run("fused_su_m_0_1", y, slice(1, None, None), np.zeros(1), g[1:], t[1:])
    want = np.zeros(8)
    want[1:] = np.sum(g[1:] * t[1:])  # unbroadcast to a like of length 1: summed, then broadcast
    assert np.array_equal(got, want)


def test_fused_helper_fuses_the_ode_step_bit_for_bit():
    rng = np.random.default_rng(5)
    out, a, b, c = (rng.normal(size=50) for _ in range(4))
    want, got = out.copy(), out.copy()
    want[1:] += -(a[1:] * b[:-1]) + 2.0 * c[1:] - a[1:]
    _run("fused_vn_s_a_n_m_0_1_m_2_3_4", got[1:], a[1:], b[:-1], 2.0, c[1:], a[1:])
    assert np.array_equal(got, want)


ADDS = '''import numpy as np


def f(x, w):
    s = 0.0
    acc = x * 0.0
    for i in range(3):
        acc = acc + x * w[i] - w[i + 1] * x * x
        s = s + np.sum(acc * x[::-1])
    return s + np.sum(acc[1:] * x[:-1])
'''


def test_fused_additions_in_the_top_level_code(load):
    f = load("numba19b_adds", ADDS).f
    rng = np.random.default_rng(7)
    x, w = rng.normal(size=7), rng.normal(size=4)
    got = srcad.grad(f, wrt=("x", "w"), backend="numba")(x, w)
    ref = srcad.grad(f, wrt=("x", "w"))(x, w)
    assert close(got[0], ref[0], 1e-12) and close(got[1], ref[1], 1e-12)
    assert close(got[0], central(f, (x, w), 0), 1e-6) and close(got[1], central(f, (x, w), 1), 1e-6)


NEW_AXIS = '''import numpy as np


def f(x, mu, w):
    centred = x[:, None, :] - mu[None, :, :]
    return np.sum(centred * centred * w) + np.sum(x[1:] * x[:-1])
'''


@pytest.mark.skipif(not LONG, reason="the long run's (12 s of compiles)")
def test_scatter_at_a_new_axis_stays_scatter(load):
    """``scatter(-g, mu, (None, slice, slice))``: the index's new axis is scatter's to read;
    it is not fused (gmm's ``mu[None, :, :]``)."""
    f = load("numba19b_new_axis", NEW_AXIS).f
    rng = np.random.default_rng(11)
    x, mu, w = rng.normal(size=(5, 3)), rng.normal(size=(2, 3)), rng.normal(size=3)
    got = srcad.grad(f, wrt=("x", "mu"), backend="numba")(x, mu, w)
    ref = srcad.grad(f, wrt=("x", "mu"))(x, mu, w)
    assert close(got[0], ref[0], 1e-12) and close(got[1], ref[1], 1e-12)
    assert close(got[1], central(f, (x, mu, w), 1), 1e-6)


def test_keep_freed_memory_is_opt_in_and_says_whether_it_was_set():
    from srcad.backend import numba_memory

    assert numba_memory.keep_freed_memory() in (True, False)
    assert "keep_freed_memory" not in open(numba_backend.__file__).read()  # never by itself
