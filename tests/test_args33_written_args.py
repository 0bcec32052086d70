"""(args33) A function of the user's writing into the array it is given, the caller reading
the array afterwards (``update(a, x); return a.sum()``): the call is lowered as a copy
returning the array, which the caller rebinds (srcad/frontend/written_args.py), the alias
analysis checking the rest (srcad/analysis/written_back.py).

A generated family: writes (an item and a slice ``+=``, ``a += ...``, a view's ``*=``,
``np.add.at``, ``out=a``, a nested writer, a loop of item writes, a view returned too) x call
shapes (once, on an array carrying a gradient, in a loop, in a branch) against central
differences and autograd on a functional twin (autograd refuses writes in place; the twin
writes ``a = ...`` where the program writes into ``a``), forward mode against the gradient,
Hessians against autograd's. Each class was refused before (MutationError "update(...)
(which changes what it is given in place): a is read afterwards"). Then the refusals:
aliasing srcad cannot settle, each at its line with its rewrite.
"""

from __future__ import annotations

import itertools
import uuid

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import MutationError

#: name -> (the callee's body writing into a, the functional twin's body, returns a view)
WRITES = {
    "item": ("a[0] = x[0] * 2.0\n    a[1:] += x[1:]",
             "a = np.concatenate([x[:1] * 2.0, a[1:] + x[1:]])", False),
    "bare": ("a += x * a", "a = a + x * a", False),
    "view": ("u = a[1:]\n    u *= x[:2]",
             "a = np.concatenate([a[:1], a[1:] * x[:2]])", False),
    "add_at": ("np.add.at(a, [0, 0, 2], x)",
               "a = a + np.stack([x[0] + x[1], 0.0 * x[0], x[2]])", False),
    "out": ("np.multiply(a, x, out=a)", "a = a * x", False),
    "nested": ("inner(a, x)", "a = np.concatenate([a[:1], a[1:2] * x[1:2], a[2:]])", False),
    "loop": ("for i in range(3):\n        a[i] = a[i] * x[i] + 1.0", "a = a * x + 1.0", False),
    "returns": ("a[2] = np.sin(x[2])\n    return a[1:]",
                "a = np.concatenate([a[:2], np.sin(x[2:])])\n    return a, a[1:]", True),
}

#: name -> the caller's body ({r}: what it adds of the callee's result)
SHAPES = {
    "once": "a = np.ones(3)\n    {call}\n    return np.sum(a * a) * x[0]{r}",
    "active": "a = x * np.arange(1.0, 4.0)\n    {call}\n    return np.sum(np.sin(a)){r}",
    "loop": "a = np.ones(3)\n    for k in range(2):\n        {call}\n    return np.sum(a * a)",
    "branch": "a = np.ones(3)\n    if x[0] > 0:\n        {call}\n    return np.sum(a * x)",
}

#: CI's cases (each shape, four writes; a nested writer in test_leapfrog_simulation); the
#: long run: every pair
CASES = list(itertools.product(WRITES, SHAPES)) if LONG else [
    ("item", "once"), ("bare", "loop"), ("view", "active"), ("returns", "branch")]
X = np.array([0.7, 1.3, -0.4])


def _program(tmp_path, write, shape):
    body, twin, returns = WRITES[write]
    r = " + np.sum(r)" if returns else ""
    caller = SHAPES[shape].format(call="r = update(a, x)" if returns else "update(a, x)", r=r)
    text = ("import numpy as np\n\n\ndef inner(b, y):\n    b[1] = b[1] * y[1]\n\n\n"
            f"def update(a, x):\n    {body}\n\n\ndef f(x):\n    {caller}\n")
    # the twin: update returns the new array (and its result): a = ..., a, r = ...
    twin_caller = SHAPES[shape].format(
        call="a, r = update(a, x)" if returns else "a = update(a, x)", r=r)
    twin_text = ("import autograd.numpy as np\n\n\n"
                 f"def update(a, x):\n    {twin}" + ("" if returns else "\n    return a") +
                 f"\n\n\ndef f(x):\n    {twin_caller}\n")
    name = f"args33_{write}_{shape}_{uuid.uuid4().hex[:8]}"
    return (load_module(tmp_path, text, name).f,
            load_module(tmp_path, twin_text, name + "_twin").f, text)


@pytest.mark.parametrize("write, shape", CASES)
def test_written_args(tmp_path, write, shape):
    f, twin, text = _program(tmp_path, write, shape)
    assert np.isclose(f(X.copy()), twin(X.copy())), text  # (the twin is the program)
    value, grad = srcad.value_and_grad(f)(X.copy())
    assert np.isclose(value, f(X.copy())), text
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-5), text
    assert np.allclose(grad, autograd.grad(twin)(X.copy()), atol=1e-9), text
    v = np.array([0.3, -1.1, 0.7])
    _, tangent = srcad.jvp(f, (X.copy(),), (v,))
    assert np.isclose(tangent, grad @ v, atol=1e-9), text


@pytest.mark.parametrize("write", list(WRITES) if LONG else list(WRITES)[:1])
def test_written_args_hessian(tmp_path, write):
    f, twin, text = _program(tmp_path, write, "active")
    assert np.allclose(srcad.hessian(f)(X.copy()), autograd.hessian(twin)(X.copy()),
                       atol=1e-8), text


def test_number_given_to_augmented_parameter(tmp_path):
    """``t += x`` binds a new number: the caller's ``t`` is kept (written_back.settle)."""
    text = ("import numpy as np\n\n\ndef inc(t, x):\n    t += x\n    return 2.0 * t\n\n\n"
            "def f(x):\n    t = 1.5 * x[1]\n    s = inc(t, x[0])\n    return t * x[0] + s\n")
    f = load_module(tmp_path, text).f
    grad = srcad.grad(f)(X.copy())
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-6)
    assert np.allclose(grad, [1.5 * X[1] + 2.0, 1.5 * X[0] + 3.0, 0.0])
    # a constant number (folded into the call) and a loop's: the value, jvp and the Hessian
    # too (which values vary is read again once t_1 = t; a wrong value and gradient before)
    callers = ["t = 1.5\n    s = inc(t, x[0])\n    return t * x[0] + s"]
    if LONG:
        callers.append("t = 1.5\n    for k in range(2):\n        s = inc(t, x[0])\n"
                       "    return t * x[1] + s")
    for caller in callers:
        g = load_module(tmp_path, text.split("def f")[0] + f"def f(x):\n    {caller}\n").f
        value, grad = srcad.value_and_grad(g)(X.copy())
        assert np.isclose(value, g(X.copy())), caller
        assert np.allclose(grad, central(g, (X.copy(),), 0), atol=1e-6), caller
        assert np.isclose(srcad.jvp(g, (X.copy(),), (np.ones(3),))[1], grad.sum()), caller
        assert np.allclose(srcad.hessian(g)(X.copy()), 0.0), caller


def test_has_aux(tmp_path):
    text = ("import numpy as np\n\n\ndef update(a, x):\n    a[1:] += x[1:] * a[:2]\n\n\n"
            "def f(x):\n    a = np.ones(3)\n    update(a, x)\n    return np.sum(a * x), a\n")
    f = load_module(tmp_path, text).f
    grad, aux = srcad.grad(f, has_aux=True)(X.copy())
    assert np.allclose(aux, f(X.copy())[1])
    assert np.allclose(grad, central(lambda x: f(x)[0], (X.copy(),), 0), atol=1e-6)


# ------------------------------------------------------------------------- refused

REFUSED = {
    # two arguments one object, or overlapping views: the callee reads them apart
    "same": ("def two(p, q):\n    p[0] = q[1] * 2.0\n    return np.sum(q)\n\n\n"
             "def f(x):\n    a = x * 1.0\n    return two(a, a)  # here\n", "copy"),
    "overlap": ("def two(p, q):\n    p[0] = q[1] * 2.0\n    return np.sum(q)\n\n\n"
                "def f(x):\n    a = x * 1.0\n    return two(a[:2], a[1:])  # here\n", "copy"),
    # the old object still read after the call: a view, a second name
    "view_read": ("def update(a, x):\n    a[0] = x[0]\n\n\n"
                  "def f(x):\n    a = np.ones(3)\n    v = a[1:]\n    update(a, x)  # here\n"
                  "    return np.sum(v * x[1:]) + np.sum(a)\n", "copy"),
    "second_name": ("def update(a, x):\n    a[0] = x[0]\n\n\n"
                    "def f(x):\n    a = np.ones(3)\n    b = a\n    update(a, x)  # here\n"
                    "    return np.sum(b * x)\n", "copy"),
    # a global: Python changes what srcad's code would not (the caller's own argument:
    # differentiated since state36, srcad.written_state, tests/test_state36_written_state.py)
    "global": ("G = np.ones(3)\n\n\ndef update(a, x):\n    a[0] = x[0]\n\n\n"
               "def f(x):\n    update(G, x)  # here\n    return np.sum(x * 2.0)\n", "copy"),
    # a write into the array a for loop iterates over
    "iterated": ("def update(a, x):\n    a[0] = a[0] + x[0]\n\n\n"
                 "def f(x):\n    a = x * 1.0\n    t = 0.0\n    for e in a:\n"
                 "        update(a, x)  # here\n        t = t + e\n    return t\n", "copy"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused(tmp_path, case):
    body, hint = REFUSED[case]
    text = f"import numpy as np\n\n\n{body}"
    f = load_module(tmp_path, text).f
    args = (X.copy(), np.ones(3)) if case == "argument" else (X.copy(),)
    with pytest.raises(MutationError) as info:
        srcad.grad(f)(*args)
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if "# here" in t)
    assert info.value.lineno == line, (text, str(info.value))
    assert hint in (info.value.hint or ""), (text, str(info.value))


# ------------------------------------------------------------------------- programs

SIMULATION = """import numpy as np


def kick(vel, acc, dt):
    vel += acc * dt / 2.0


def drift(pos, vel, dt):
    pos += vel * dt


def step(pos, vel, dt):
    kick(vel, -np.sin(pos), dt)
    drift(pos, vel, dt)
    kick(vel, -np.sin(pos), dt)


def f(x):
    pos = x * 1.0
    vel = np.zeros(3)
    for _ in range(3):
        step(pos, vel, 0.1)
    return np.sum(pos ** 2) + np.sum(vel * x)
"""


def _simulation_twin(x):
    pos, vel = x * 1.0, anp.zeros(3)
    for _ in range(3):
        vel = vel - anp.sin(pos) * 0.05
        pos = pos + vel * 0.1
        vel = vel - anp.sin(pos) * 0.05
    return anp.sum(pos ** 2) + anp.sum(vel * x)


def test_leapfrog_simulation(tmp_path):
    """A leapfrog step changing its state arrays in place through two levels of callees, in a
    loop (``vel += acc * dt / 2.0``, session 32's corpus)."""
    f = load_module(tmp_path, SIMULATION).f
    grad = srcad.grad(f)(X.copy())
    assert np.allclose(grad, autograd.grad(_simulation_twin)(X.copy()), atol=1e-12)
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-6)
    _, tangent = srcad.jvp(f, (X.copy(),), (np.ones(3),))
    assert np.isclose(tangent, grad.sum())
    if LONG:  # (Numba compiles each part: seconds)
        assert np.allclose(srcad.grad(f, backend="numba")(X.copy()), grad, atol=1e-12)


def test_method_writing_its_field(tmp_path):
    """``s.step(x)`` writing into ``self.v`` of an object built in the function: the field is
    a name there (frontend/lower_records.py), written back as any argument."""
    text = ("import numpy as np\n\n\nclass Sim:\n    def __init__(self, v):\n        self.v = v\n"
            "\n    def step(self, x):\n        self.v[1:] += x[1:] * self.v[:2]\n\n\n"
            "def f(x):\n    s = Sim(np.ones(3))\n    s.step(x)\n    s.step(x)\n"
            "    return np.sum(s.v * x)\n")
    f = load_module(tmp_path, text).f
    grad = srcad.grad(f)(X.copy())
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-6)
