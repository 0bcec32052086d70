"""Operators and methods on objects built inside the differentiated function (issue 16,
outside26; ``srcad/frontend/object_operators.py``): ``u = V(w); (u + v).norm()``, ``V(w) *
2.0``, ``2.0 * V(w)``, a list of such objects, a method returning ``V(...)``, ``u += w``, a loop
``u = u * w``, ``-V(w)``. They were refused ("used in a way srcad does not follow field by
field"). Generated family (class kind x form) against central differences and autograd, which
runs the same methods on its boxes."""

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

METHODS = """
    def __add__(self, o):
        return V(self.a + o)
    def __sub__(self, o):
        return V(self.a - o.a)
    def __mul__(self, s):
        return V(self.a * s)
    def __rmul__(self, s):
        return V(s * np.sin(self.a))
    def __neg__(self):
        return V(-self.a)
    def __matmul__(self, o):
        return np.sum(self.a * np.cos(o))
    def norm(self):
        return np.sum(self.a * self.a)
    def scaled(self, s):
        return V(self.a * s)
"""
CLASSES = {
    "plain": "class V:\n    def __init__(self, a):\n        self.a = a\n" + METHODS,
    "computed init": "class V:\n    def __init__(self, a):\n        self.a = a * 1.0\n"
                     "        self.n = 3\n" + METHODS,
    "dataclass": "from dataclasses import dataclass\n@dataclass\nclass V:\n    a: object\n"
                 + METHODS,
}
FORMS = {
    "u + v": "def f(w, v):\n    u = V(w)\n    return (u + v).norm()\n",
    "V(w) * 2": "def f(w, v):\n    u = V(w) * 2.0\n    return u.norm() + v[0]\n",
    "2 * V(w)": "def f(w, v):\n    return (2.0 * V(w * v)).norm()\n",
    "list": "def f(w, v):\n    us = [V(w), V(w * v)]\n    s = 0.0\n    for u in us:\n"
            "        s = s + (u * 3.0).norm()\n    return s\n",
    "appended": "def f(w, v):\n    us = []\n    for i in range(3):\n"
                "        us.append(V(w * (i + 1.0)))\n    s = 0.0\n"
                "    for k in range(len(us)):\n        s = s + us[k] @ v\n    return s\n",
    "method returning": "def f(w, v):\n    u = V(w).scaled(2.0)\n    return (u * v).norm()\n",
    "named method": "def f(w, v):\n    u = V(w)\n    r = u.scaled(v)\n    return r.norm()\n",
    "+=": "def f(w, v):\n    u = V(w)\n    u += v * w\n    return u.norm()\n",
    "loop": "def f(w, v):\n    u = V(w)\n    for i in range(3):\n        u = u * v\n"
            "    return u.norm()\n",
    "two objects": "def f(w, v):\n    u = -V(w)\n    return (u - V(w * w)).norm() + (u @ v)\n",
    "helper": "def make(a):\n    return V(a)\ndef f(w, v):\n    return (make(w) + v).norm()\n",
    "number result": "def f(w, v):\n    return (V(w) @ v) * 2.0 + (V(v) @ w)\n",
}
CASES = list(itertools.product(CLASSES, FORMS))
SOME = [(list(CLASSES)[i % len(CLASSES)], form) for i, form in enumerate(FORMS)][::3]
V0 = np.array([1.1, 0.5, -0.8])


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("kind,form", CASES if LONG else SOME)
def test_operators_on_objects_built_here(kind, form, tmp_path):
    text = CLASSES[kind] + FORMS[form]
    m = load_module(tmp_path, NP + text)
    g = srcad.grad(m.f)(W.copy(), V0)
    np.testing.assert_allclose(g, _fd(lambda w: m.f(w, V0), W), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, AG + text)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy(), V0), rtol=1e-10, atol=1e-12)
    both = srcad.grad(m.f, wrt=(0, 1))(W.copy(), V0)
    np.testing.assert_allclose(both[1], _fd(lambda v: m.f(W, v), V0), rtol=1e-6, atol=1e-8)


REFUSED = {
    # a subclass with its own __radd__: Python tries it first for such a right operand
    "subclass reflected": ("class S(V):\n    def __radd__(self, o):\n        return 0.0\n"
                           "def f(w, v):\n    u = V(w)\n    return (u + v).norm()\n"),
    # a name also bound to something else: its class is not certain
    "rebound": ("def f(w, v):\n    u = V(w)\n    if v[0] > 0:\n        u = w\n"
                "    return np.sum(u * 2.0)\n"),
    # the object on the right of an array: NumPy's operator, item by item
    "array on the left": "def f(w, v):\n    return (v * V(w)).norm()\n",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_is_not_certain_stays_refused(case, tmp_path):
    m = load_module(tmp_path, NP + CLASSES["plain"] + REFUSED[case])
    with pytest.raises(srcad.SrcadError):
        srcad.grad(m.f)(W.copy(), V0)


def test_a_helpers_object_of_constants(tmp_path):
    """``v = mk()`` returning ``V(A)``: its class is known where the code is made, so
    ``v * w`` is ``V.__mul__(v, w)`` (it was checked when it ran and refused, outside25)."""
    m = load_module(tmp_path, NP + CLASSES["plain"] + "A = np.array([1.0, 2.0, 3.0])\n"
                    "def mk():\n    return V(A)\ndef f(w):\n    v = mk()\n"
                    "    return (v * w) @ w\n")
    g = srcad.grad(m.f)(W.copy())
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
    assert "check_operand" not in srcad.source(srcad.grad(m.f))
