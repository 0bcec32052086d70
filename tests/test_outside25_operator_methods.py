"""Operators on objects of the user's classes (issue 16, outside25): ``v * w``, ``2.0 * v``,
``-v``, ``v @ w``, ``v[i]``, ``len(v)`` with ``v`` an argument (or a global) of a class with
``__mul__``, ``__rmul__``, ``__neg__``, ``__matmul__``, ``__getitem__``, ``__len__`` of its
own are the method calls Python makes (``frontend/operator_methods.py``). Before, ``v * w``
of such a constant argument was differentiated as arithmetic on numbers: a wrong gradient
(``[18, 18, 18]`` for ``[1, 2, 3]``). Generated family (operator x side) against central
differences and autograd (which runs the same methods on its boxes)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

CLASS = """
class V:
    def __init__(self, a):
        self.a = a
    def __add__(self, o):
        return np.sum(self.a * o) * 5.0
    def __radd__(self, o):
        return np.sum(self.a - o) * 2.0
    def __mul__(self, s):
        return np.sum(self.a * s)
    def __rmul__(self, s):
        return np.sum(self.a * np.sin(s)) * 3.0
    def __sub__(self, o):
        return np.sum(self.a * o * o)
    def __truediv__(self, s):
        return np.sum(self.a / (1.0 + s * s))
    def __matmul__(self, o):
        return self.a @ np.cos(o)
    def __neg__(self):
        return -np.sum(self.a ** 2)
    def __getitem__(self, i):
        return self.a[i] * 2.0
    def __len__(self):
        return len(self.a)
"""
EXPRS = {
    "add": "v + w", "radd": "float(w[0]) + v", "mul": "v * w", "rmul": "float(w[1]) * v",
    "rmul-const": "2.0 * v", "sub": "v - w", "div": "v / w", "matmul": "v @ w",
    "neg": "-v * w[2]", "getitem": "v[1] * w[0] + v[0]", "len": "len(v) * w[1]",
}
WHERE = {"argument": ("def f(w, v):\n    return {e}\n", True),
         "global": ("G = V(np.array([1.0, 2.0, 3.0]))\ndef f(w):\n    v = G\n"
                    "    return {e}\n", False)}
CASES = list(itertools.product(EXPRS, WHERE))
SOME = [(e, list(WHERE)[i % 2]) for i, e in enumerate(EXPRS)]


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("expr,where", CASES if LONG else SOME)
def test_operators_on_objects_are_their_methods(expr, where, tmp_path):
    text, passed = WHERE[where]
    text = CLASS + text.format(e=EXPRS[expr])
    m = load_module(tmp_path, NP + text)
    extra = (m.V(np.array([1.0, 2.0, 3.0])),) if passed else ()
    g = srcad.grad(m.f)(W.copy(), *extra)
    np.testing.assert_allclose(g, _fd(lambda w: m.f(w, *extra), W), rtol=1e-6, atol=1e-8)
    if expr in ("radd", "rmul"):
        return  # (autograd's float() takes no box)
    a = load_module(tmp_path, AG + text)
    extra_a = (a.V(np.array([1.0, 2.0, 3.0])),) if passed else ()
    np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy(), *extra_a), rtol=1e-10)


def test_what_python_would_not_run_as_a_method_is_refused(tmp_path):
    text = CLASS + (
        "class N:\n    def __init__(self, a):\n        self.a = a\n"
        "    def __mul__(self, o):\n        if o is None:\n            return NotImplemented\n"
        "        return np.sum(self.a * o)\n"
        "def f(w, v):\n    return v * w\n"
        "def g(w, v):\n    return w * v\n"
        "def h(w, v):\n    return v % w\n")
    m = load_module(tmp_path, NP + text)
    v = m.V(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(srcad.SrcadError, match="NotImplemented"):
        srcad.grad(m.f)(W.copy(), m.N(np.ones(3)))
    with pytest.raises(srcad.SrcadError, match="an array on the left when the code ran"):
        srcad.grad(m.g)(W.copy(), v)  # (NumPy's * would apply __rmul__ item by item)
    with pytest.raises(srcad.SrcadError, match="has no __mod__"):
        srcad.grad(m.h)(W.copy(), v)
    with pytest.raises(srcad.SrcadError, match="a NumPy number on the left"):
        srcad.grad(lambda w, v: w[0] * v)(W.copy(), v)  # (NumPy 2 passes float(w[0]) on)


HIDDEN = {
    "list item": ("def f(w, vs):\n    return vs[0] * w\n", "[V(A)]"),
    "attribute": ("def f(w, m):\n    return m.v * w\n", "M()"),
    "dict item": ("def f(w, d):\n    return d['k'] * w\n", "{'k': V(A)}"),
    # (a helper's result, v = mk() returning V(A): its class known, the method followed:
    # tests/test_outside26_object_operators.py)
    "method of self": ("def f(w, m):\n    return m.loss(w)\n", "M()"),
}


@pytest.mark.parametrize("how", sorted(HIDDEN))
def test_an_object_met_where_its_class_is_not_known_is_refused_when_run(how, tmp_path):
    """An operand whose class srcad does not know where it makes the code (an attribute, a
    container's item, a call's result) is checked when the code runs (analysis/
    operand_checks.py): it gave the gradient of arithmetic on numbers before, [18, 18, 18]
    for [1, 2, 3]."""
    text, arg = HIDDEN[how]
    m = load_module(tmp_path, NP + CLASS + "A = np.array([1.0, 2.0, 3.0])\n"
                    "class M:\n    def __init__(self):\n        self.v = V(A)\n"
                    "    def loss(self, w):\n        return self.v * w\n" + text)
    with pytest.raises(srcad.SrcadError, match="'\\*' with an object of your class V"):
        srcad.grad(m.f)(W.copy(), eval(arg, vars(m)))
