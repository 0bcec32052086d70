"""Classes of wrong answers, crashes and spurious refusals found by running srcad on code
written outside the project (issues 14 and 16, round 7: tools/autograd_suite.py,
tools/example_programs.py, tools/corpus_programs.py and hostile programs in the style of the
issue texts).

Each class is a case and a small generated family around it, checked against central finite
differences and autograd running the same text.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import math
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

X = np.array([0.5, -0.3, 0.8, -1.3])


def _module(source, tmp_path, numpy_name):
    path = tmp_path / f"outside7_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(source, x, tmp_path, hessian=False):
    """srcad's gradient of ``f`` at ``x`` against finite differences and autograd, its jvp
    against the gradient; ``hessian``: its Hessian against finite differences of its
    gradient and against autograd's."""
    f = _module(source, tmp_path, "numpy").f
    fa = _module(source, tmp_path, "autograd.numpy").f
    df = srcad.grad(f)
    g = df(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    u = np.cos(np.arange(np.size(x)) + 0.5)
    _, t = srcad.jvp(f, (x,), (u,))
    assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
    if hessian:
        h = srcad.hessian(f)(x)
        rows = [numerical_grad(lambda v, i=i: df(v)[i], (x,)) for i in range(np.size(x))]
        np.testing.assert_allclose(h, np.array(rows), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(h, autograd.hessian(fa)(x), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- lists of made functions
# A list of functions a helper makes, built of constants only (``[make(1.0 * i) for i in
# ...]``) or read with the differentiated values elsewhere: the call of the helper's
# ``make_all`` stayed a call of a name the generated code did not bind (NameError).

MADE = """
def make(a, p=2.0):
    def h(t):
        return a * t ** p
    return h


def f(x):
    fs = [make({item}) for i in range(3)]
    {use}
"""
ITEMS = ["1.0 * i", "0.5 + i", "x[i]"]
USES = {
    "loop": "s = 0.0\n    for h in fs:\n        s = s + h(x[3])\n    return s",
    "sum": "return sum(h(x[3]) for h in fs) * fs[1](x[2])",
    "index": "return fs[0](x[3]) * fs[2](x[1]) + len(fs)",
}


@pytest.mark.parametrize("item, use", list(itertools.product(ITEMS, USES)))
def test_a_list_of_made_functions_of_constants(item, use, tmp_path):
    _agree(MADE.format(item=item, use=USES[use]), X, tmp_path)


# ---------------------------------------------------------------- a negative base
# ``d/db a ** b`` at a negative base ``a`` is complex (log(a)). (1) Its term is zero where the
# tangent or cotangent it multiplies is zero: an exponent passed as a constant to a helper, a
# default of a made function, carried in a context or a list item, got a zero tangent there,
# and the complex zero was refused by check_real in jvp, hessian and hvp (issue 16's note).
# (2) Where it is not zero, a real program has no derivative in b there (nan, as NumPy,
# autograd and JAX): a complex one added into an item of a real gradient array lost its
# imaginary part unseen (``x[0] ** x[1] + x[2]`` gave the real part, a finite wrong number).

HELPERS = {
    "callee": "def h(a, p, t):\n    return a * t ** p\n\n\ndef f(x):\n"
              "    return h(x[0], 2.0, x[3]) + x[1] * h(x[2], 3.0, x[3])\n",
    "made": "def make(a, p=2.0):\n    def h(t):\n        return a * t ** p\n    return h\n\n\n"
            "def f(x):\n    h = make(x[0])\n    return h(x[3]) * x[1]\n",
    "env": "def make(a, p=2.0):\n    q = p + 1.0\n    def h(t):\n        return a * t ** q\n"
           "    return h\n\n\ndef f(x):\n    return make(x[0])(x[3]) + make(x[1])(x[2])\n",
    "listed": MADE.format(item="x[i]", use=USES["loop"]),
    "tuple": "def f(x):\n    ps = (x[0], 2.0)\n    return ps[0] * x[3] ** ps[1] + x[1]\n",
}


@pytest.mark.parametrize("form", HELPERS)
def test_a_constant_exponent_at_a_negative_base(form, tmp_path):
    _agree(HELPERS[form], X, tmp_path, hessian=True)
    f = _module(HELPERS[form], tmp_path, "numpy").f
    v = np.cos(np.arange(4.0))
    np.testing.assert_allclose(srcad.hvp(f, (X,), v), srcad.hessian(f)(X) @ v, rtol=1e-10)


POWERS = {"**": "{a} ** {b}", "pow": "pow({a}, {b})", "np.power": "np.power({a}, {b})"}
SHAPES = {"item": ("x[0]", "x[1]"), "slice": ("x[:2]", "x[2]")}


@pytest.mark.parametrize("power, shape", list(itertools.product(POWERS, SHAPES)))
def test_a_differentiated_exponent_at_a_negative_base_is_nan(power, shape, tmp_path):
    """``x[2] * 2.0 + sum(a ** b)``: nan in the exponent's slot (never its real part), the
    other slots exact, as autograd."""
    a, b = SHAPES[shape]
    source = f"def f(x):\n    return x[3] * 2.0 + np.sum({POWERS[power].format(a=a, b=b)})\n"
    f = _module(source, tmp_path, "numpy").f
    fa = _module(source, tmp_path, "autograd.numpy").f
    x = np.array([-1.3, 2.0, 2.0, 0.5])
    with np.errstate(invalid="ignore"):
        g = srcad.grad(f)(x)
        want = autograd.grad(fa)(x)
        _, t = srcad.jvp(f, (x,), (np.ones(4),))
    k = 1 if shape == "item" else 2
    assert np.isnan(g[k]) and np.isnan(want[k]) and np.isnan(t)
    rest = [i for i in range(4) if i != k and np.isfinite(want[i])]
    np.testing.assert_allclose(g[rest], want[rest], rtol=1e-12)


# ---------------------------------------------------------------- tangents shaped unlike
# A tangent or cotangent unlike its value (a float or a shorter list for a list argument, a
# tuple around an array) raised TypeError or IndexError in the generated code, or gave a
# result of another shape: a SrcadError now, item by item.

def _g(a, b):
    return a * b[0] + b[1] * np.sin(a)


UNLIKE = {
    "float for a list": lambda: srcad.jvp(_g, (1.0, [2.0, 3.0]), (1.0, 2.0)),
    "short list": lambda: srcad.jvp(_g, (1.0, [2.0, 3.0]), (1.0, [2.0])),
    "dict for a list": lambda: srcad.jvp(_g, (1.0, [2.0, 3.0]), (1.0, {"a": 1.0})),
    "tuple around an array": lambda: srcad.jvp(np.sin, (X,), ((X,),)),
    "hvp, tuple around v": lambda: srcad.hvp(lambda x: np.sum(np.sin(x) * x), (X,), (X,)),
    "vjp, tuple around the cotangent": lambda: srcad.vjp(np.sin, X)[1]((X,)),
    "vjp, short list": lambda: srcad.vjp(lambda x: [x, x * 2.0], 1.5)[1]([1.0]),
}


@pytest.mark.parametrize("case", UNLIKE)
def test_a_tangent_unlike_its_value_is_refused(case):
    with pytest.raises(srcad.SrcadError, match="value"):
        UNLIKE[case]()
    value, tangent = srcad.jvp(_g, (1.0, [2.0, 3.0]), (1.0, [0.5, -1.0]))
    assert tangent == pytest.approx(2.0 + 3.0 * np.cos(1.0) + 0.5 - np.sin(1.0), rel=1e-12)


# ---------------------------------------------------------------- a partial as the function
# ``srcad.grad(functools.partial(loss, X=X, y=y))`` was refused ("cannot differentiate a
# functools.partial object"): read through a shim with the parameters the partial takes.

def _loss(w, X, y, lam=0.1):
    return np.sum((X @ w - y) ** 2) + lam * np.sum(w * w)


_XD = np.array([[1.0, 2.0], [0.5, -1.0], [0.3, 0.2]])
_YD = np.array([0.1, 0.2, -0.3])
PARTIALS = {
    "keywords": (lambda: functools.partial(_loss, X=_XD, y=_YD), ()),
    "positional rest": (lambda: functools.partial(_loss, lam=0.5), (_XD, _YD)),
    "of a partial": (lambda: functools.partial(functools.partial(_loss, y=_YD), X=_XD), ()),
    "of a lambda": (lambda: functools.partial(lambda a, w: a * np.sum(w ** 3), 2.0), ()),
    "of a rule": (lambda: functools.partial(np.sum, axis=0), ()),
}


@pytest.mark.parametrize("case", PARTIALS)
def test_a_partial_as_the_function_differentiated(case):
    make, rest = PARTIALS[case]
    f, w = make(), np.array([0.3, -0.4])
    g = srcad.grad(f)(w, *rest)
    np.testing.assert_allclose(g, numerical_grad(lambda v: f(v, *rest), (w,)), rtol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(f)(w, *rest), rtol=1e-12)
    h = srcad.hessian(f)(w, *rest)
    np.testing.assert_allclose(h, autograd.hessian(f)(w, *rest), rtol=1e-9, atol=1e-12)


def test_a_partial_of_math_pow():
    """tests/test_bad_inputs.py refused it (no source) before."""
    f = functools.partial(math.pow, 2.0)
    assert srcad.grad(f)(1.5) == pytest.approx(2.0 ** 1.5 * math.log(2.0), rel=1e-14)


# ---------------------------------------------------------------- cls.method(...) in a classmethod
# ``cls.sq(v)`` in a classmethod was refused ("no derivative rule for .sq"), whether the
# classmethod was the function differentiated (``srcad.grad(Model.make)``) or called.

class _Model:
    scale = 2.0

    @staticmethod
    def sq(v):
        return v * v

    @classmethod
    def cube(cls, v):
        return cls.sq(v) * v * cls.scale

    @classmethod
    def make(cls, v):
        return cls.sq(v) + cls.cube(v) + np.sin(v)


def _calls_make(x):
    return _Model.make(x[0]) * x[1]


def test_cls_method_in_a_classmethod():
    for f, x in ((_Model.make, 0.7), (_Model.cube, -1.3), (_calls_make, np.array([0.7, 1.1]))):
        g = srcad.grad(f)(x)
        np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-7)
        np.testing.assert_allclose(g, autograd.grad(f)(x), rtol=1e-12)
