"""Recursive nested functions and lists holding themselves (issue 16, outside24 items 3, 5).

A nested ``def`` calling itself (``def rec(n, y): return y if n == 0 else rec(n - 1, y *
y)`` inside the function differentiated) was refused ("the nested function 'rec' calls
itself"); it is lifted as any nested ``def`` and its calls of itself made calls of the
lifted function passing the enclosing values on (``frontend/recursive_defs.py``), a
recursive function of the user's as a module-level one is. Generated family (body x what
it reads of the enclosing function x depth) against central differences and autograd,
first and second derivatives. ``rec`` used as a value inside itself stays refused.

``a.append(a)`` (a list put into itself) crashed with RecursionError in ``zeros_like``: an
``UnsupportedSyntaxError`` at the line (``frontend/validate.py``), and a ``MutationError``
where the text does not show it (``b = a; a.append(b)``: ``runtime/zero_grads.held_itself``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG, sample
from test_robustness import load_module

import srcad
from srcad.errors import MutationError, UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

BODIES = {
    "ternary": "        return y if n == 0 else rec(n - 1, np.sin(y) * {c} + y)",
    "if": "        if n <= 0:\n            return y\n"
          "        return rec(n - 1, y * np.cos(y) * {c})",
    "twice": "        if n == 0:\n            return y\n"
             "        return rec(n - 1, y) * 0.5 + rec(n - 1, np.tanh(y * {c}))",
    "loop": "        s = 0.0\n        for k in range(n):\n            s = s + rec(k, y * {c})\n"
            "        return np.sin(y) + s",
}
READS = {  # what the helper reads of the enclosing function: c
    "constant": ("", "0.8"),
    "parameter": ("", "x"),
    "late": ("    c = 0.5 * x + 0.2\n", "c"),
}
DEPTHS = (1, 3)

TEXT = """
def f(x):
    def rec(n, y):
{body}
{after}    return rec({depth}, x) + rec(1, 0.3 * x)
"""
CASES = list(itertools.product(BODIES, READS, DEPTHS))


def _text(body, reads, depth):
    after, c = READS[reads]
    return TEXT.format(body=BODIES[body].format(c=c), after=after, depth=depth)


@pytest.mark.parametrize("body,reads,depth", sample(CASES, 5))
def test_a_nested_function_calling_itself(body, reads, depth, tmp_path):
    text = _text(body, reads, depth)
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    x = 0.7
    g = srcad.grad(m.f)(x)
    assert g == pytest.approx((m.f(x + 1e-6) - m.f(x - 1e-6)) / 2e-6, rel=1e-6, abs=1e-8)
    assert g == pytest.approx(autograd.grad(a.f)(x), rel=1e-10, abs=1e-12)
    if not LONG and (body, reads, depth) != CASES[0]:
        return  # (the Hessians: a second each, in the long run)
    h = srcad.hessian(m.f)(x)
    assert h == pytest.approx(autograd.grad(autograd.grad(a.f))(x), rel=1e-8, abs=1e-10)


def test_a_nested_function_calling_itself_on_arrays(tmp_path):
    text = """
def f(x):
    def rec(n, v):
        if n == 0:
            return np.sum(v ** 2)
        return rec(n - 1, np.tanh(v) * x[0] + x)
    return rec(3, x)
"""
    m, a = load_module(tmp_path, NP + text), load_module(tmp_path, AG + text)
    x = np.array([0.4, -0.3, 0.8])
    np.testing.assert_allclose(srcad.grad(m.f)(x), autograd.grad(a.f)(x), rtol=1e-10)


def test_a_nested_function_used_as_a_value_inside_itself_stays_refused(tmp_path):
    text = """
def f(x):
    def rec(n, y):
        g = rec
        return y if n == 0 else g(n - 1, y * y)
    return rec(3, x)
"""
    m = load_module(tmp_path, NP + text)
    with pytest.raises(UnsupportedSyntaxError, match="uses itself") as err:
        srcad.grad(m.f)(0.5)
    assert err.value.lineno == 4


SELF = {
    "append": "    a.append(a)",
    "insert": "    a.insert(0, [1.0, a])",
    "extend": "    a.extend([2.0, a])",
    "item": "    a[0] = [a]",
    "add": "    a += [a]",
}


@pytest.mark.parametrize("how", SELF)
def test_a_list_put_into_itself_is_refused_at_its_line(how, tmp_path):
    text = f"def f(x):\n    a = [x, 2.0 * x]\n{SELF[how]}\n    return a[1] * 3.0\n"
    m = load_module(tmp_path, NP + text)
    with pytest.raises(UnsupportedSyntaxError, match="holds itself") as err:
        srcad.grad(m.f)(0.5)
    assert err.value.lineno == 4


def test_a_list_holding_itself_through_another_name_is_a_srcad_error(tmp_path):
    text = "def f(x):\n    a = [x]\n    b = a\n    a.append(b)\n    return a[0] * 2.0\n"
    m = load_module(tmp_path, NP + text)
    with pytest.raises(MutationError, match="holds itself"):
        srcad.grad(m.f)(0.5)


def test_a_list_extended_by_itself_is_differentiated(tmp_path):
    text = "def f(x):\n    a = [x, 2.0 * x]\n    a.extend(a)\n    a.append(a[0])\n" \
           "    return sum(a) * x\n"
    m = load_module(tmp_path, NP + text)
    assert srcad.grad(m.f)(0.5) == pytest.approx(14.0 * 0.5)
