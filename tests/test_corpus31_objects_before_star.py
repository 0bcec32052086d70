"""``f(data, *params)``: an object of the user's written before a starred argument (corpus31).

Met in derrynknife/SurPyval (14 programs, every maximum-likelihood fit): the objective calls
``model.dist._neg_ll_func(model.surv_data, *params, gamma, f0, p)``, whose callee reads
``data.x_o``, ``data.c``, ... . The call is :func:`srcad.runtime.spread_calls.star_call`'s
(the length of ``params`` is known only when it runs), and its form took every argument in
one tuple: the object's class unknown there, reading its attribute counted as a possible
effect, and the call was refused. Now the arguments before the first starred one are
operands of their own: each is differentiated or not as the caller's analysis says, and an
object of the user's among them makes the form specialised on its class and the parts it
holds (the form's key holds them, as an argument's cache key does), so ``data.x`` is a read
of a known class and the gradient flows to ``params``.

The family: the callee (a function, a method of an object, one passing the object on to a
helper, one calling the object's method), where the object comes from (a global, a closure
cell, an argument not differentiated, an attribute of ``self``), what follows the starred
argument (nothing, a number, a keyword), the number of parameters (1 to 3), against central
differences and autograd on the same text; value_and_grad, jvp and Hessians on a sample. The
object read live: changing its arrays between calls changes the gradient; an object of
another class makes new code. Refused still: a callee writing an attribute of the object
(tests/test_lead30_attribute_stores.py), an object built from differentiated values, a
record differentiated and passed whole before the star.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import LONG, sample
from twin_checks import central

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

PRELUDE = """
class Data:
    def __init__(self, x, c):
        self.x = x
        self.c = c

    def weights(self):
        return self.c * self.x


class Other:
    def __init__(self, x, c):
        self.x = c
        self.c = x


def helper(data, a):
    return np.sum(np.sin(data.x * a) * data.c)


def spread_into(data, *ps):
    return sum(np.sum(np.cos(p * data.x) * data.c) for p in ps) + 0.5
"""

#: the callee reached by ``callee(data, *params, ...)``; ``TAIL`` is what follows the star
CALLEES = {
    "function": """
        def callee(data, *params{TAIL}):
            total = 0.0
            for i, p in enumerate(params):
                total = total + np.sum((data.x * p - 0.1 * i) ** 2 * data.c)
            return total * scale
        """,
    "passes_on": """
        def callee(data, *params{TAIL}):
            return scale * sum(helper(data, p) for p in params) + np.sum(data.x) * params[0]
        """,
    "unpacks": """
        def callee(data, *params{TAIL}):
            *head, last = params
            return scale * spread_into(data, *head) * last + np.sum(data.x) * params[0]
        """,
    "object_method": """
        def callee(data, *params{TAIL}):
            w = data.weights()
            return scale * np.sum(w * np.tanh(params[-1] * data.x)) + params[0] ** 2
        """,
}

TAILS = {"none": ("", "", ""), "number": ("", ", 1.5", ""),  # 1.5: the last of params
         "keyword": (", scale=1.0", "", ", scale=0.75")}

#: where the object comes from: (the code around the call, how the call names the callee)
SOURCES = {
    "global": "DATA = Data(X, C)\ndef f(p):\n    return {CALL}(DATA, *p{ARGS})\n",
    "closure": "def make(data):\n    def f(p):\n        return {CALL}(data, *p{ARGS})\n"
               "    return f\nf = make(Data(X, C))\n",
    "argument": "def g(p, data):\n    return {CALL}(data, *p{ARGS})\n"
                "def f(p):\n    return g(p, Data(X, C))\n",
    "attribute": "class Model:\n    def __init__(self):\n        self.data = Data(X, C)\n"
                 "    def f(self, p):\n        return {CALL}(self.data, *p{ARGS})\n"
                 "f = Model().f\n",
}

#: how the callee is named: a function, or a method of an object holding no data
NAMES = {"function": "callee", "method": "DIST.callee"}


def _source(callee, tail, where, name):
    params, args, keywords = TAILS[tail]
    body = textwrap.dedent(CALLEES[callee]).replace("{TAIL}", params)
    if tail != "keyword":
        body = body.replace("):\n", "):\n    scale = 1.0\n", 1)
    if name == "method":
        body = "class Dist:\n" + textwrap.indent(
            body.replace("def callee(data", "def callee(self, data"), "    ") + "DIST = Dist()\n"
    call = NAMES[name]
    return ("X = np.array([0.5, -1.0, 2.0])\nC = np.array([1.0, 0.0, 0.5])\n" + PRELUDE + body
            + SOURCES[where].replace("{CALL}", call).replace("{ARGS}", args + keywords))


def _module(source, tmp_path, numpy_name, tag):
    path = tmp_path / f"objects31_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _point(n):
    return np.linspace(0.3, -0.6, n) + 0.05 * n


CASES = list(itertools.product(CALLEES, TAILS, SOURCES, NAMES, (1, 2, 3)))


@pytest.mark.parametrize("callee,tail,where,name,n", sample(CASES, 1 if LONG else 8))
def test_an_object_before_the_star(callee, tail, where, name, n, tmp_path):
    source = _source(callee, tail, where, name)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    p = _point(n)
    g = srcad.grad(m.f)(p)
    np.testing.assert_allclose(g, central(m.f, (p,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.f)(p), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(m.f)(p)
    assert value == pytest.approx(m.f(p), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12)
    t = np.cos(np.arange(n) + 1.0)
    _, tangent = srcad.jvp(m.f, (p,), (t,))
    assert tangent == pytest.approx(float(g @ t), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("callee,where", [("passes_on", "closure")] + ([
    ("function", "global"), ("object_method", "attribute")] if LONG else []))
def test_hessians_in_both_modes(callee, where, tmp_path):
    source = _source(callee, "number", where, "method")
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    p = _point(3)
    expected = autograd.hessian(a.f)(p)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.f, mode=mode)(p), expected, rtol=1e-8,
                                   atol=1e-10)
    np.testing.assert_allclose(srcad.jacobian(m.f)(p), autograd.grad(a.f)(p), rtol=1e-10)


UNPACKED = """
import numpy as np


class Model:
    def inner(self, *ps):
        return sum(np.sin(p) * (i + 1.0) for i, p in enumerate(ps))

    def kept(self, *params):
        *head, last = params
        return self.inner(*head) * last

    def changed(self, *params):
        first, *rest = params
        rest.append(first * 2.0)
        return self.inner(*rest) + first


MODEL = Model()


def f_kept(p):
    return MODEL.kept(*p)


def f_changed(p):
    return MODEL.changed(*p)
"""


@pytest.mark.parametrize("n", [1, 2, 4])
def test_starred_unpacking_of_args(n, tmp_path):
    """``*head, last = params`` of a ``*args`` tuple: ``head`` a list of its items, spliced
    into ``self.inner(*head)`` (SurPyval's ``*params, gamma, f0, p = params`` then
    ``self.log_df(x, *params)``; the method's spread of an unknown length was refused there
    as a possible effect); a list changed after (``rest.append``): as before, refused."""
    path = tmp_path / f"objects31_unpacked_{n}.py"
    path.write_text(UNPACKED)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    p = _point(n) + 0.2
    np.testing.assert_allclose(srcad.grad(m.f_kept)(p), central(m.f_kept, (p,), 0),
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(SrcadError, match="may change what it is given"):
        srcad.grad(m.f_changed)(p)
    t = np.cos(np.arange(n) + 1.0)
    _, tangent = srcad.jvp(m.f_kept, (p,), (t,))
    assert tangent == pytest.approx(float(central(m.f_kept, (p,), 0) @ t), rel=1e-6)


def test_the_object_is_read_when_the_code_runs(tmp_path):
    """The object's arrays are read live (not constants of the code made for it), and an
    object of another class (its attributes meaning other things) gets code of its own."""
    m = _module(_source("function", "none", "argument", "method"), tmp_path, "numpy", "np")
    p = _point(2)
    data = m.Data(np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, 0.5]))

    def f(q):
        return m.DIST.callee(data, *q)

    first = srcad.grad(f)(p)
    np.testing.assert_allclose(first, central(f, (p,), 0), rtol=1e-6, atol=1e-8)
    data.x = np.array([2.0, 1.0, -3.0])
    second = srcad.grad(f)(p)
    np.testing.assert_allclose(second, central(f, (p,), 0), rtol=1e-6, atol=1e-8)
    assert not np.allclose(first, second)
    data = m.Other(np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, 0.5]))
    np.testing.assert_allclose(srcad.grad(f)(p), central(f, (p,), 0), rtol=1e-6, atol=1e-8)


WRITES = """
import numpy as np

class Data:
    def __init__(self, x):
        self.x = x

def stores(data, *params):
    data.last = params[0]
    return np.sum(data.x * params[0])

def reads(data, *params):
    return np.sum(data.x * params[0] * params[-1])

def f_stores(p, data):
    return stores(data, *p)

def f_built(p):
    return reads(Data(p * 2.0), *p)
"""


@dataclasses.dataclass
class Record:
    x: np.ndarray


def test_refused_still(tmp_path):
    path = tmp_path / "objects31_writes.py"
    path.write_text(WRITES)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    p = np.array([0.4, -0.2])
    with pytest.raises(SrcadError, match="change"):
        srcad.grad(m.f_stores)(p, m.Data(np.ones(3)))
    with pytest.raises(SrcadError, match="built from differentiated values"):
        srcad.grad(m.f_built)(p)

    def whole(record, q):
        return m.reads(record, *q)

    with pytest.raises(SrcadError, match="record"):
        srcad.grad(whole, wrt=0)(Record(np.ones(3)), p)
    got = srcad.grad(whole, wrt=1)(Record(np.array([1.0, 2.0, 3.0])), p)
    np.testing.assert_allclose(got, central(lambda q: whole(Record(np.array([1.0, 2.0, 3.0])),
                                                            q), (p,), 0), rtol=1e-6)
