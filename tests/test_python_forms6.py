"""Python as people write it, round 6 (issue 16).

- ``divmod``, ``math.prod``, ``math.dist`` and ``math.hypot`` of any number of coordinates,
  read as the Python they compute (:mod:`srcad.frontend.builtin_code`);
- ``super().m(...)`` and ``super(C, self).m(...)`` in a method (:mod:`srcad.frontend.lower_super`):
  the base class's method, found from the method's class and self's class;
- closure-conversion leftovers refused with a hint that fits: a comprehension of made
  functions, an if/else choosing between two ``make(...)`` results, a nested function
  appending to its enclosing function's list;
- named tuples and dataclasses built inside the differentiated function
  (:mod:`srcad.frontend.lower_records`): ``p = Pt(x, y)`` then ``p.x * p.y``, keywords and
  defaults, ``Pt(*vals)``, ``Pt._make``, ``p._replace(...)``, ``dataclasses.replace(p, ...)``,
  a field of a mutable dataclass assigned; a record used whole is refused with a hint.

Gradients are checked against central finite differences and against autograd running the same
text, and forward mode against the gradient.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

X = np.array([0.3, -1.2, 0.5, 0.7])

HEAD = """\
import collections
import dataclasses
import functools
import math
import typing

Pt = collections.namedtuple("Pt", "a b")


class Q(typing.NamedTuple):
    a: float
    b: float = 2.0


@dataclasses.dataclass
class D:
    a: float
    b: float = 0.5


@dataclasses.dataclass(frozen=True)
class F:
    a: float
    b: float

"""


def _module(source, tmp_path, numpy_name, tag=""):
    path = tmp_path / f"forms6_{tag}{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + HEAD + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, x, tmp_path, second=None):
    """``second``: the same function in a form autograd runs (math's C functions take no
    autograd box)."""
    f = _module(source, tmp_path, "numpy").f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    ag = _module(second or source, tmp_path, "autograd.numpy", "ag").f
    np.testing.assert_allclose(g, autograd.grad(ag)(x), rtol=1e-10, atol=1e-12)
    u = np.cos(np.arange(x.size) + 0.5)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)


# how the record is built (from u = np.sin(x[0]) * x, v = x[1] * x[2]) x how it is read
BUILDS = {
    "positional": "p = {C}(u, v)",
    "keywords": "p = {C}(b=v, a=u)",
    "starred": "vals = [u, v]\n    p = {C}(*vals)",
    "replace": "p = {C}(v, v)\n    p = dataclasses.replace(p, a=u)",
    "rebuilt": "p = {C}(v, u)\n    p = {C}(p.b, p.a)",
    "in a branch": "if x[3] > 0:\n        p = {C}(u, v)\n    else:\n        p = {C}(v, u)",
}
READS = {
    "product": "return np.sum(p.a * p.b)",
    "loop": "s = 0.0\n    for i in range(2):\n        s = s + np.sum(p.a ** 2) * p.b\n    return s",
    "tanh": "return np.sum(np.tanh(p.a)) + p.b",
}
CLASSES = ["Pt", "Q", "D", "F"]


def _case(cls, build, read):
    text = BUILDS[build].format(C=cls)
    if build == "replace" and cls in ("Pt", "Q"):
        text = text.replace("dataclasses.replace(p, a=u)", "p._replace(a=u)")
    return (f"def f(x):\n    u = np.sin(x[0]) * x\n    v = x[1] * x[2]\n    {text}\n"
            f"    {READS[read]}\n")


@pytest.mark.parametrize("cls, build, read", [
    (c, b, r) for (c, b), r in zip(itertools.product(CLASSES, BUILDS),
                                   itertools.cycle(READS))])
def test_a_record_built_in_the_function(cls, build, read, tmp_path):
    _agree(_case(cls, build, read), X, tmp_path)


@pytest.mark.parametrize("source", [
    # defaults, _make, a field assigned, a record in a callee, a nested function reading one
    "def f(x):\n    q = Q(x[0] * x[1])\n    d = D(a=x[2])\n    return q.a * q.b + d.a * d.b\n",
    "def f(x):\n    p = Pt._make([x[0], x[1] ** 2])\n    return p.a * p.b\n",
    "def f(x):\n    d = D(x[0], x[1])\n    d.a = d.a * d.b\n    d.b = d.b + x[2]\n"
    "    return d.a + d.b ** 2\n",
    "def h(y):\n    p = Pt(y[0], y[1:])\n    return p.a * np.sum(p.b)\n\n\n"
    "def f(x):\n    return h(x) + h(x[::-1])\n",
    "def f(x):\n    p = Pt(x[0], x[1])\n\n    def g(t):\n        return t * p.a + p.b\n\n"
    "    return g(x[2]) * g(x[3])\n",
    # a record passed whole to a function of the user's (tests/test_records_passed.py)
    "def h(p):\n    return p.a * p.b\n\n\ndef f(x):\n    p = D(x[0], x[1])\n    return h(p)\n",
])
def test_record_forms(source, tmp_path):
    _agree(source, X, tmp_path)


@pytest.mark.parametrize("body", [
    "p = Pt(x[0], x[1])\n    return p",
    "p = Pt(x[0], x[1])\n    q = p\n    return q.a",
    "p = D(x[0], x[1])\n    return [p][0].a",
])
def test_a_record_used_whole_is_refused_with_a_hint(body, tmp_path):
    source = f"def helper(p):\n    return p.a\n\n\ndef f(x):\n    {body}\n"
    f = _module(source, tmp_path, "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(X)
    text = str(info.value)
    assert "line" in text and ("fields" in text or "record" in text)


BUILTINS = [  # (source, the same for autograd or None)
    ("def f(x):\n    q, r = divmod(x[0] * 7.0 + 2.9, x[3] + 1.0)\n"
     "    return q * r + r ** 2 * x[1]\n",
     "def f(x):\n    a, b = x[0] * 7.0 + 2.9, x[3] + 1.0\n    q = np.floor(a / b)\n"
     "    r = a - q * b\n    return q * r + r ** 2 * x[1]\n"),
    ("def f(x):\n    q, r = divmod(x * 3.0 + 4.85, 1.3)\n"
     "    return np.sum(r * x) + divmod(x[1], 0.7)[1]\n",
     "def f(x):\n    r = x * 3.0 + 4.85 - np.floor((x * 3.0 + 4.85) / 1.3) * 1.3\n"
     "    return np.sum(r * x) + x[1] - np.floor(x[1] / 0.7) * 0.7\n"),
    ("def f(x):\n    return math.prod([x[0], x[1], x[2]]) + math.prod(x[1:], start=x[0])\n", None),
    ("def f(x):\n    return math.dist([x[0], x[1]], [x[2], 2.0]) * math.dist(x[:2], x[2:])\n",
     "def f(x):\n    return np.sqrt((x[0] - x[2]) ** 2 + (x[1] - 2.0) ** 2) * "
     "np.sqrt(np.sum((x[:2] - x[2:]) ** 2))\n"),
    ("def f(x):\n    return math.hypot(x[0], x[1], x[2]) + math.hypot(x[1]) + "
     "math.hypot(x[0], x[1], x[2], x[3], 1.5)\n",
     "def f(x):\n    return np.sqrt(x[0] ** 2 + x[1] ** 2 + x[2] ** 2) + np.abs(x[1]) + "
     "np.sqrt(np.sum(x ** 2) + 2.25)\n"),
]


@pytest.mark.parametrize("source, second", BUILTINS)
def test_builtins_read_as_python(source, second, tmp_path):
    _agree(source, X, tmp_path, second)


CLASSES_TEXT = """
class Base:
    def __init__(self, c):
        self.c = c

    def val(self, x):
        return self.c * x * x

    @staticmethod
    def shift(x):
        return np.sin(x)

    @classmethod
    def scale(cls, x):
        return cls.k * x


class Mid(Base):
    k = 2.0

    def val(self, x):
        return super().val(x) + np.cos(x) * self.c


class Leaf(Mid):
    k = 3.0

    def val(self, x):
        return super().val(x) * x + super(Mid, self).val(x)

    def other(self, x):
        return super().shift(x) + super(Leaf, self).scale(x) + super().val(x)


model = Leaf(1.5)
"""


@pytest.mark.parametrize("body", [
    "return np.sum(model.val(x))",
    "return np.sum(model.other(x) ** 2)",
    "m = Mid(0.7)\n    return np.sum(m.val(x) * model.val(x[::-1]))",
])
def test_super_in_methods(body, tmp_path):
    _agree(CLASSES_TEXT + f"\n\ndef f(x):\n    {body}\n", X, tmp_path)


MAKE = "def make(w):\n    def g(t):\n        return w * t * t\n\n    return g\n\n\n"


@pytest.mark.parametrize("body, hint", [  # (a comprehension of them, make(a) if c else
    # make(b): test_python_forms7; branches doing more, each h = make(...): test_python_forms8)
    ("if x[1] > 0:\n        h = make(x[0])\n        y = 2.0\n    else:\n"
     "        h = lambda t: t * x[2]\n        y = 1.0\n    return h(x[3]) * y",
     "choose the values, not the function"),
    ("acc = []\n\n    def add(v):\n        acc.append(v * v)\n\n    add(x[0])\n    add(x[1])\n"
     "    return sum(acc)", "return the new value from the nested function"),
])
def test_closure_leftovers_refused_with_a_fitting_hint(body, hint, tmp_path):
    f = _module(MAKE + f"def f(x):\n    {body}\n", tmp_path, "numpy").f
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(X)
    assert hint in str(info.value) and "line" in str(info.value)
