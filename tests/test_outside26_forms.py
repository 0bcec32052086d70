"""Ordinary forms (issue 16, outside26): ``[x] * n`` and ``n * [x]`` with a NumPy integer
count (``np.int64(3)``: Python repeats the list by its index; a 0-d array stays refused,
NumPy multiplies), and nested ``def``s calling each other (``even``/``odd``, a cycle of
three, different numbers of parameters; ``frontend/mutual_defs.py``: one nested function
calling itself). Refused before ("[...] * n with n a int64", "a nested function calling
the nested function 'even'"). Against central differences and autograd."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.7, 1.1])

REPEATS = """
def f(w, n):
    xs = [w * 2.0] * n
    ys = n * [w * 3.0, w]
    return sum(np.sum(x * y) for x, y in zip(xs, ys)) + len(xs) + len(ys)
"""


def _fd(f, w):
    w = np.asarray(w, dtype=float)
    if w.ndim == 0:
        return (f(w + 1e-6) - f(w - 1e-6)) / 2e-6
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("n", [3, np.int64(3), np.int32(2), np.uint8(1)][0 if LONG else 1::2],
                         ids=lambda n: type(n).__name__)
def test_a_list_repeated_by_a_numpy_integer(n, tmp_path):
    m = load_module(tmp_path, NP + REPEATS)
    g = srcad.grad(m.f)(W.copy(), n)
    np.testing.assert_allclose(g, _fd(lambda w: m.f(w, n), W), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + REPEATS)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy(), n), rtol=1e-10)


def test_a_list_repeated_by_an_array_stays_refused(tmp_path):
    m = load_module(tmp_path, NP + REPEATS)
    with pytest.raises(srcad.SrcadError, match="with n a ndarray"):
        srcad.grad(m.f)(W.copy(), np.array(2))


MUTUAL = {
    "even odd": """
def f(x):
    def even(n, y):
        if n == 0:
            return y
        return odd(n - 1, y * x)
    def odd(n, y):
        if n == 0:
            return -y
        return even(n - 1, np.sin(y) + x)
    return even(4, x) + odd(3, x * x)
""",
    "three": """
def f(x):
    s = x * 0.5
    def a(n, y):
        return y if n <= 0 else b(n - 1, y * s)
    def b(n, y):
        return np.cos(y) if n <= 0 else c(n - 1, y + s)
    def c(n, y):
        return y * y if n <= 0 else a(n - 1, np.tanh(y))
    return a(5, x)
""",
    "parameters differ": """
def f(x):
    def down(n, y, k):
        if n == 0:
            return y * k
        return up(n - 1, y * x)
    def up(n, y):
        return down(n, np.exp(-y * y), 2.0) if n > 0 else y
    return down(3, x, 1.5)
""",
    "arrays": """
def f(x):
    def ping(n, v):
        if n == 0:
            return np.sum(v)
        return pong(n - 1, v * x)
    def pong(n, v):
        return ping(n, np.sin(v) + x) if n > 0 else np.sum(v * v)
    return ping(4, np.array([1.0, 2.0]) * x)
""",
}


@pytest.mark.parametrize("case", sorted(MUTUAL) if LONG else ["even odd", "three"])
def test_nested_defs_calling_each_other(case, tmp_path):
    m = load_module(tmp_path, NP + MUTUAL[case])
    g = srcad.grad(m.f)(0.7)
    np.testing.assert_allclose(g, _fd(m.f, 0.7), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + MUTUAL[case])
    np.testing.assert_allclose(g, autograd.grad(a.f)(0.7), rtol=1e-10)


def test_a_nested_function_used_otherwise_stays_refused(tmp_path):
    m = load_module(tmp_path, NP + """
def f(x):
    def even(n, y):
        return y if n == 0 else odd(n - 1, y * x)
    def odd(n, y):
        return -y if n == 0 else even(n - 1, y + x)
    g = odd
    return even(2, x) + g(1, x)
""")
    with pytest.raises(srcad.SrcadError):
        srcad.grad(m.f)(0.7)


def _uses_t(x, d):
    t = x * 2.0
    t = t + np.sin(x) * np.cos(t)
    d.setdefault("a", []).append(t)
    return np.sum(x * t)


def test_messages_take_no_temporary_for_the_users_t():
    """A variable of yours named ``t`` shares its stem with srcad's temporaries (``t_3``);
    the names messages give values (analysis/write_names.py ``user_names``) map only the SSA
    versions of ``t`` to ``t``, not srcad's own ``t_4`` (``fn.temps``, from the namer)."""
    from srcad import pipeline
    from srcad.analysis import write_names

    fn, _ = pipeline.to_ssa(_uses_t)
    named = write_names.user_names(fn)
    assert fn.temps and not set(named) & set(fn.temps)
    assert "t" in named.values()
