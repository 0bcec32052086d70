"""Python as people write it, round 7 (issue 16).

- closure conversion (:mod:`srcad.frontend.closures`): a helper returning different functions
  on different paths (``if``/``elif``/``else``, ``return f1 if c else f2``), on a value not
  differentiated or on a differentiated comparison; a made function calling other functions
  the helper defines; a helper nested in a builder function; ``nonlocal`` state refused with
  a hint that fits;
- a list of made functions (:mod:`srcad.frontend.lower_made_lists`), called in loops,
  comprehensions and by index, to second order;
- ``math.gamma``/``math.lgamma`` (srcad's own digamma family, checked against SciPy),
  ``np.float32(x)`` of a differentiated value refused, ``iter``/
  ``next`` (:mod:`srcad.frontend.lower_next`),
  ``max``/``min``/``sorted`` with a user key reading differentiated values (``key=d.get``).

Gradients are checked against central finite differences and autograd running the same text
(or a form of it autograd runs), and forward mode against the gradient.
"""

from __future__ import annotations

import importlib.util
import math
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError
from srcad.runtime.special import polygamma_real

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])
Y = np.array([-0.4, 0.8, -0.6, 1.1])  # other signs: the other paths


def _module(source, tmp_path, numpy_name, tag=""):
    path = tmp_path / f"forms7_{tag}{abs(hash((source, numpy_name)))}.py"
    head = "import math\nimport functools\n"
    if numpy_name == "autograd.numpy":
        head += "from autograd.scipy.special import gammaln\n"
    path.write_text(f"import {numpy_name} as np\n" + head + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, points, tmp_path, second=None, hessian=False, jvp=True):
    """At each point: srcad's gradient against finite differences and autograd (``second``:
    the text autograd runs, if not ``source``), its jvp against the gradient (with ``jvp``);
    ``hessian``: srcad's Hessian against finite differences of its gradient."""
    f = _module(source, tmp_path, "numpy").f
    ag = autograd.grad(_module(second or source, tmp_path, "autograd.numpy", "ag").f)
    df = srcad.grad(f)
    for x in points:
        g = df(x)
        np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, ag(x), rtol=1e-10, atol=1e-12)
        if not jvp:
            continue
        u = np.cos(np.arange(np.size(x)) + 0.5)
        _, t = srcad.jvp(f, (x,), (u if np.ndim(x) else 0.7,))
        assert t == pytest.approx(float(np.sum(g * (u if np.ndim(x) else 0.7))), rel=1e-9,
                                  abs=1e-12)
    if hessian:
        x = points[0]
        h = srcad.hessian(f)(x)
        rows = [numerical_grad(lambda v, i=i: df(v)[i], (x,)) for i in range(np.size(x))]
        np.testing.assert_allclose(h, np.array(rows), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- functions on several paths

# how make chooses (on k, not differentiated, or on a, differentiated) x how it returns
CHOICES = {
    "if": "if {c}:\n        return {f1}\n    return {f2}",
    "ifexp": "return {f1} if {c} else {f2}",
    "elif": "if {c}:\n        return {f1}\n    elif a[1] > 5.0:\n        return {f3}\n"
            "    else:\n        return {f2}",
}
CONDITIONS = {"flag": "k > 0", "compared": "np.sum(a) > 0.0"}
PATHS = """
def make(a, k):
    b = np.tanh(a)
    c = a * a

    def first(t):
        return np.sum(b * t) * SCALE

    def third(t):
        return np.sum(t)

    {choice}


SCALE = 1.5


def f(x):
    h = make(x, {k})
    return h(x) + h(x[::-1] * 0.5)
"""


@pytest.mark.parametrize("choice, condition", [("if", "flag"), ("ifexp", "compared"),
                                               ("elif", "compared")])
def test_a_helper_returning_different_functions_on_different_paths(choice, condition,
                                                                   tmp_path):
    body = CHOICES[choice].format(c=CONDITIONS[condition], f1="first", f3="third",
                                  f2="lambda t: np.sum(np.sin(c * t))")
    for k in ((1, 0) if condition == "flag" else (1,)):
        _agree(PATHS.format(choice=body, k=k), [X, Y], tmp_path, jvp=choice == "if")


INNER = """
def make(a):
    s = np.tanh(a)
    w = np.sum(a * a)

    def base(t):
        return np.sum(s * t)

    def mid(t):
        return base(t) * w + base(2.0 * t)

    def top(t):
        return {top}

    return top


def f(x):
    h = make(x)
    return h(x) + h(np.cos(x))
"""


@pytest.mark.parametrize("top", ["base(t) * t[0]", "mid(t) * t[0] + base(t)"])
def test_a_made_function_calling_functions_its_helper_defines(top, tmp_path):
    _agree(INNER.format(top=top), [X], tmp_path)


BUILDER = """
def act(v):
    return np.tanh(v)


def builder(scale):
    shift = scale * 2.0

    def square(t):
        return t * t

    def make(a):
        b = a * scale

        def g(t):
            return np.sum(act(b * t) + shift * square(t))

        return g

    return make


make = builder(1.5)


def f(x):
    h = make(x)
    return h(x) + h(np.ones(4))
"""


def test_a_helper_nested_in_a_builder(tmp_path):
    _agree(BUILDER, [X], tmp_path)


def test_nonlocal_state_in_a_made_function_is_refused_with_a_fitting_hint(tmp_path):
    source = ("def make(a):\n    n = 0\n\n    def g(t):\n        nonlocal n\n        n += 1\n"
              "        return np.sum(a * t) * n\n\n    return g\n\n\n"
              "def f(x):\n    h = make(x)\n    return h(x) + h(x)\n")
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(X)
    message = str(info.value)
    assert "line" in message and "nonlocal n" in message and "return y, n + 1" in message


# ---------------------------------------------------------------- lists of made functions

LISTS = """
def make(a, p=2.0):
    b = np.tanh(a)
    if a > 0:
        return lambda t: b * t * t * p
    return lambda t: a * np.sin(t) * p


def f(x):
    fs = [make(x[i]) for i in range(3)]
    {use}
"""
USES = {
    "loop": "s = 0.0\n    for h in fs:\n        s = s + h(x[3])\n    return s",
    "comprehension": "return sum(h(1.5) for h in fs) * fs[1](x[2]) + len(fs)",
    "chosen": "h = make(x[0], p=2.0) if x[1] > 0 else make(x[2], p=x[3])\n"
              "    if x[0] > 0:\n        q = make(x[3])\n    else:\n        q = make(x[1])\n"
              "    return h(x[3]) + fs[0](x[1]) * q(x[2])",
}


@pytest.mark.parametrize("use", USES)
def test_a_list_of_made_functions(use, tmp_path):
    _agree(LISTS.format(use=USES[use]), [X, Y], tmp_path, hessian=use == "loop", jvp=False)


# ---------------------------------------------------------------- math.gamma, math.lgamma

@pytest.mark.parametrize("n", range(4))
def test_digamma_family_against_scipy(n):
    special = pytest.importorskip("scipy.special")
    for x in (1e-3, 0.3, 1.0, 2.5, 7.3, 15.0, 123.4, -0.5, -2.7):
        want = special.polygamma(n, x)
        assert polygamma_real(n, x) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert math.isnan(polygamma_real(n, -2.0))  # a pole


GAMMAS = {  # srcad's text -> autograd's (math's C functions take no autograd box)
    "math.lgamma(x * x + 1.0)": "gammaln(x * x + 1.0)",
    "math.gamma(x) * x": "np.exp(gammaln(x)) * x",
    "math.lgamma(x) ** 2 + math.gamma(x / 2.0)": "gammaln(x) ** 2 + np.exp(gammaln(x / 2.0))",
}


@pytest.mark.parametrize("expr", GAMMAS)
def test_math_gamma_and_lgamma(expr, tmp_path):
    text = "def f(x):\n    return {}\n"
    _agree(text.format(expr), [0.7, 2.5, 6.1], tmp_path, second=text.format(GAMMAS[expr]))
    if not expr.startswith("math.gamma"):
        return
    f = _module(text.format(expr), tmp_path, "numpy").f
    second = srcad.grad(srcad.grad(f))
    for x in (0.7, 2.5):
        assert second(x) == pytest.approx(numerical_grad(srcad.grad(f), (x,)), rel=1e-6)


# ---------------------------------------------------------------- np.float32, iter/next, key=

def test_float32_of_a_differentiated_value_is_refused_with_a_hint(tmp_path):
    """Rounding to float32 is flat between float32 numbers: finite differences see steps, so
    no derivative would be checked true; refused at the line (a constant is fine)."""
    f = _module("def f(x):\n    return np.float32(x * 0.5 + 1.3) * 1.0 + x\n", tmp_path,
                "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(0.71)
    assert "line 5" in str(info.value) and "np.float64(x)" in str(info.value)
    g = _module("def f(x):\n    return np.float32(3.0) * x + np.float64(x) ** 2\n",
                tmp_path, "numpy", "const").f
    assert srcad.grad(g)(0.7) == pytest.approx(3.0 + 1.4, rel=1e-7)


NEXTS = {
    "straight": "it = iter([x[0], x[1] * 2.0, x[2]])\n    a = next(it)\n    b = next(it)\n"
                "    return a * b + next(it) ** 2",
    "loop": "it = iter(x)\n    s = 0.0\n    for i in range(3):\n        s = s + next(it) * i\n"
            "    return s * next(it, 5.0) + next(it, 7.0)",
    "expression": "it = iter((x[0], x[1]))\n    next(it)\n    return np.sin(next(it)) * x[3]",
    "branch": "it = iter(x)\n    if x[3] > 0:\n        v = next(it)\n    else:\n"
              "        v = 2.0\n    return v * next(it)",
}


@pytest.mark.parametrize("body", NEXTS)
def test_iter_and_next(body, tmp_path):
    _agree(f"def f(x):\n    {NEXTS[body]}\n", [X, Y], tmp_path)


def test_next_past_the_end_raises_stop_iteration(tmp_path):
    f = _module("def f(x):\n    it = iter([x])\n    next(it)\n    return next(it)\n",
                tmp_path, "numpy").f
    with pytest.raises(StopIteration):
        srcad.grad(f)(1.0)


@pytest.mark.parametrize("change", ["xs[0] = 5.0 * x", "xs.append(3.0 * x)"])
def test_next_over_a_list_changed_after_iter_is_refused(change, tmp_path):
    """Python's iterator reads the list as it is when next runs: not rewritten, refused."""
    f = _module(f"def f(x):\n    xs = [x, 2.0 * x]\n    it = iter(xs)\n    a = next(it)\n"
                f"    {change}\n    return a * next(it)\n", tmp_path, "numpy").f
    with pytest.raises(SrcadError):
        srcad.grad(f)(1.5)


KEYS = {
    "d.get": "d = {'a': x[0], 'b': 2.0 * x[1], 'c': -x[2]}\n    k = max(d, key=d.get)\n"
             "    j = min(d, key=d.get)\n    s = sorted(d, key=d.get)\n"
             "    return d[k] * d[j] + d[s[1]] ** 2",
    "lambda reading x": "xs = [x[0], 2.0 * x[1], x[2] * x[3], 1.0]\n"
                        "    c = max(xs, key=lambda v: -(v - x[3] * 1.7) ** 2)\n"
                        "    s = sorted(xs, key=lambda v: abs(v - x[0]))\n"
                        "    return c * s[-1] + s[0]",
}


@pytest.mark.parametrize("body", KEYS)
def test_a_user_key_reading_differentiated_values(body, tmp_path):
    _agree(f"def f(x):\n    {KEYS[body]}\n", [X, Y], tmp_path)
