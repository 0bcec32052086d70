"""The Numba backend on code calling user functions: each callee's forward and backward parts are
compiled by Numba with the code calling them. A generated family (callees of six shapes: a
formula, a loop, a branch, a tuple result, a callee calling another, a callee calling a
function with nothing to differentiate; called in three kinds of loop) is compared with the
Python backend (to 1e-12) and with central finite differences, in reverse and forward mode;
an array callee (GradBench's ``ode`` right-hand side) the same way.
Skipped where numba is not installed."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

#: callee shapes: the callee's source, with {a} and {b} two updates of (s, v, x)
CALLEES = {
    "formula": ["def step(s, v, x):", "    return {a}"],
    "loop": ["def step(s, v, x):", "    t = s", "    for j in range(3):",
             "        s = t * 0.5 + 0.1 * j", "        t = {a}", "    return t"],
    "branch": ["def step(s, v, x):", "    if v > x:", "        c = {a}", "        r = c * c",
               "    else:", "        r = {b}", "    return r * 0.5"],
    "tuple": ["def pair(s, v, x):", "    return {a}, {b}", "", "",
              "def step(s, v, x):", "    p, q = pair(s, v, x)", "    return p * 0.5 + q * 0.25"],
    "nested": ["def inner(s, v, x):", "    return {a}", "", "",
               "def step(s, v, x):", "    return inner(s, v, x) * 0.5 + inner(v, s, x) * 0.25"],
    "inactive": ["def gain(k):", "    if k > 1:", "        return math.sqrt(1.0 + k)",
                 "    return 0.5", "", "",
                 "def step(s, v, x):", "    return ({a}) * gain(2) + gain(0) * v"],
}

#: the caller's loop over the array y, calling step(s, v, x)
LOOPS = {
    "for": ["for i in range(len(y)):", "    s = step(s, y[i], x)"],
    "while": ["while i < len(y) and abs(s) < 4.0:", "    s = step(s, y[i], x) + 0.1 * s",
              "    i += 1"],
    "branch": ["for i in range(len(y)):", "    if y[i] > 0.0:", "        s = step(s, y[i], x)",
               "    else:", "        s = s * x + step(y[i], s, x)"],
}

UPDATES = [
    ("s * 0.9 + math.sin(v * x)", "s - math.exp(x * v) * 0.1"),
    ("math.tanh(s + v * x)", "s * v + x * x"),
]

CASES = list(itertools.product(CALLEES, LOOPS, range(len(UPDATES))))


def _module(case):
    callee, loop, k = case
    a, b = UPDATES[k]
    lines = ["import math", "", ""] + [line.format(a=a, b=b) for line in CALLEES[callee]]
    lines += ["", "", "def f(x, y):", "    s = 0.25", "    i = 0"]
    lines += ["    " + line for line in LOOPS[loop]]
    lines.append("    return s * x + s")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def load(load_module):
    """A function that writes a case to a module of its own (srcad reads source) and imports
    it."""
    return lambda case, text=None: load_module(
        "numba_callee_" + "_".join(map(str, case)), text or _module(case))


def _fd(f, x, y, h=1e-6):
    dx = (f(x + h, y) - f(x - h, y)) / (2 * h)
    dy = np.zeros_like(y)
    for k in range(len(y)):
        e = np.zeros_like(y)
        e[k] = h
        dy[k] = (f(x, y + e) - f(x, y - e)) / (2 * h)
    return dx, dy


def _close(a, b, tol):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


#: CI: each program and loop once, the two variants in turn (Numba compiles each: seconds);
#: the long run all of them
SAMPLED = CASES if LONG else [c for i, c in enumerate(CASES) if (i // 2 + i) % 4 == 0]


@pytest.mark.parametrize("case", SAMPLED, ids=lambda c: "-".join(map(str, c)))
def test_callee_family_matches_python_backend_and_finite_differences(load, case):
    f = load(case).f
    rng = np.random.default_rng(len(CASES) + CASES.index(case))
    fast = srcad.value_and_grad(f, wrt=("x", "y"), backend="numba")
    slow = srcad.value_and_grad(f, wrt=("x", "y"))
    for _ in range(3):
        x, y = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=5)
        value, (dx, dy) = fast(x, y)
        ref_value, (ref_dx, ref_dy) = slow(x, y)
        assert math.isclose(value, f(x, y), rel_tol=1e-12, abs_tol=1e-12)
        assert _close(dx, ref_dx, 1e-12) and _close(dy, ref_dy, 1e-12)
        fd_dx, fd_dy = _fd(f, x, y)
        assert _close(dx, fd_dx, 1e-5) and _close(dy, fd_dy, 1e-5)


@pytest.mark.parametrize("case", CASES[::4], ids=lambda c: "-".join(map(str, c)))
def test_callee_family_forward_mode_and_pullback(load, case):
    f = load(case).f
    rng = np.random.default_rng(CASES.index(case))
    x, y = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=5)
    tx, ty = 0.7, rng.uniform(-1.0, 1.0, size=5)
    # (a callee returning a tuple: its tangent, a list display of tangents of one type)
    value, tangent = srcad.jvp(f, (x, y), (tx, ty), backend="numba")
    ref_value, ref_tangent = srcad.jvp(f, (x, y), (tx, ty))
    assert math.isclose(value, ref_value, rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(tangent, ref_tangent, rel_tol=1e-12, abs_tol=1e-12)
    h = 1e-6
    fd = (f(x + h * tx, y + h * ty) - f(x - h * tx, y - h * ty)) / (2 * h)
    assert math.isclose(tangent, fd, rel_tol=1e-5, abs_tol=1e-6)
    _, pullback = srcad.vjp(f, x, y, backend="numba")
    gx, gy = pullback(1.5)
    ref_gx, ref_gy = srcad.vjp(f, x, y)[1](1.5)
    assert _close(gx, ref_gx, 1e-12) and _close(gy, ref_gy, 1e-12)


ODE = '''import numpy as np


def rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def last(x, s):
    h = 2.0 / s
    y = np.zeros_like(x)
    for _ in range(s):
        k1 = rhs(x, y)
        k2 = rhs(x, y + h / 2 * k1)
        k3 = rhs(x, y + h / 2 * k2)
        k4 = rhs(x, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[-1]
'''


@pytest.mark.parametrize("n, s", [(3, 2), (6, 5), (10, 12)])
def test_array_callee_of_runge_kutta(load, n, s):
    f = load(("ode",), ODE).last
    x = np.linspace(0.2, 1.3, n)
    got = srcad.grad(f, backend="numba")(x, s)
    assert _close(got, srcad.grad(f)(x, s), 1e-12)
    h = 1e-6
    fd = [(f(x + h * e, s) - f(x - h * e, s)) / (2 * h) for e in np.eye(n)]
    assert _close(got, fd, 1e-6)


LAYERS = '''import numpy as np


def cell(w, h, x):
    a = np.tanh(w * x + h)
    return a, a * h + {extra}


def layers(w, state, x):
    new = []
    for i in range(len(state)):
        h, c = cell(w[i], state[i], x)
        new.append(c)
        x = h
    return x * 2.0, new


def scaled(pair):
    a, v = pair
    return a * np.sum(v * v)


def f(w, s, seq):
    state = [s[i] for i in range(len(s))]
    total = 0.0
    for t in range(len(seq)):
        y, state = layers(w, state, seq[t])
        total = total + np.sum(y * y) + np.sum(state[{pick}])
        total = total + scaled((0.5 * total, state[0]))
    return total
'''


@pytest.mark.parametrize("extra, pick", [("np.sin(h)", -1)])  # (one case: Numba compiles ~10 s)
def test_list_of_arrays_through_a_callee(load, extra, pick):
    """A list of arrays handed to a callee that returns ``(array, list)``, its items read
    (GradBench's ``lstm`` in small), and a tuple of a number and an array handed to a callee:
    the gradient of the list is a list of arrays, of each tuple a tuple of gradients each of
    its own type."""
    module = load(("layers", pick), LAYERS.format(extra=extra, pick=pick))
    rng = np.random.default_rng(pick + 7)
    w, s, seq = (rng.uniform(-1.0, 1.0, size=(3, 2)), rng.uniform(-1.0, 1.0, size=(3, 2)),
                 rng.uniform(-1.0, 1.0, size=(4, 2)))
    got = srcad.grad(module.f, wrt=(0, 1), backend="numba")(w, s, seq)
    ref = srcad.grad(module.f, wrt=(0, 1))(w, s, seq)
    for a, b, x in zip(got, ref, (w, s)):
        assert _close(a, b, 1e-12)
        h = 1e-6
        fd = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[k] = h
            args = (w + e, s, seq) if x is w else (w, s + e, seq)
            minus = (w - e, s, seq) if x is w else (w, s - e, seq)
            fd[k] = (module.f(*args) - module.f(*minus)) / (2 * h)
        assert _close(a, fd, 1e-6)
