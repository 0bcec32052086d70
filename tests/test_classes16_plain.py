"""Objects of plain classes built in the differentiated function (issue 16).

A class written by hand (``__init__`` setting ``self.mu = mu``, no dataclass) built from
differentiated values (``g = Gaussian(mu, s); g.logpdf(x)``) was refused ("srcad follows
objects built in the function only for dataclasses and named tuples"). Such a class is now
followed like a dataclass (:mod:`srcad.frontend.plain_classes`): its fields are the
attributes ``__init__`` sets, each a local of its own; its methods, properties and
``__call__`` are the copies taking the fields. A generated family of classes (one to four
fields, defaults, keywords, keyword-only parameters, branches setting the same attributes,
``super().__init__``, attributes updated in a loop, values computed from the parameters)
x uses (methods calling methods, properties, several objects, passed to helpers, built in a
loop, built as an argument, nested), each checked in grad, value_and_grad, jvp, vjp and the
Hessian in both modes, against central finite differences and autograd (the same classes
under ``autograd.numpy``).
"""

from __future__ import annotations

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from class_families import module_of
from sampling import sample

import srcad

CLASSES = '''
from dataclasses import dataclass

import numpy as np


class Lin:
    """Built as a dataclass: each parameter sets the attribute of its name."""

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def out(self, x):
        return np.tanh(self.w * x + self.b)

    def reg(self):
        return 0.1 * np.sum(self.w ** 2)

    def loss(self, x):
        return np.sum(self.out(x) ** 2) + self.reg()

    def __call__(self, x):
        return self.out(x) * self.b

    @property
    def w2(self):
        return self.w * self.w


class One:
    def __init__(self, w):
        self.w = w

    def out(self, x):
        return np.sin(self.w * x)


class Quad:
    def __init__(self, a, b, c=1.0, d=0.5):
        self.a = a
        self.b = b
        self.c = c
        self.d = d

    def poly(self, x):
        return self.a * x ** 3 + self.b * x ** 2 + self.c * x + self.d


class Gauss:
    """Fields computed from the parameters, one from another."""

    def __init__(self, mu, log_sigma, scale=1.0):
        self.mu = mu
        self.sigma = np.exp(log_sigma) * scale
        self.var = self.sigma ** 2

    def logpdf(self, x):
        return -0.5 * (x - self.mu) ** 2 / self.var - np.log(self.sigma)

    @property
    def prec(self):
        return 1.0 / self.var


class Kw:
    def __init__(self, w, *, b=0.5, power=2):
        self.w = w
        self.b = b
        self.power = power

    def out(self, x):
        return (self.w * x + self.b) ** self.power


class Branchy:
    def __init__(self, w, b, flip=False):
        if b is None:
            raise ValueError("b is needed")
        if flip:
            self.w = -w
        else:
            self.w = w * 1.5
        self.b = b

    def out(self, x):
        return np.cos(self.w * x) * self.b


class Base:
    def __init__(self, w):
        self.w = w * 2.0


class Child(Base):
    def __init__(self, w, b):
        super().__init__(w)
        self.b = b + np.sum(self.w)

    def __call__(self, x):
        return np.sin(self.w * x) + self.b


class Acc:
    def __init__(self, ws):
        self.total = 0.0
        for v in ws:
            self.total = self.total + v * v

    def scaled(self, k):
        return self.total * k


class MLP:
    def __init__(self, first, second):
        self.first = first
        self.second = second

    def __call__(self, x):
        return self.second(self.first(x))


def _scale(w):
    return 2.0 * np.tanh(w)


class Scaled:
    def __init__(self, w, shift=0.0):
        self.w = _scale(w) + shift


class Kid(Scaled):
    def __init__(self, b, *args, **kw):
        super().__init__(*args, **kw)
        self.b = b

    def out(self, x):
        return np.sum(self.w * x) + self.b * self.w[0]


class Kid2(Scaled):
    def __init__(self, w, b):
        Scaled.__init__(self, w, shift=b)
        self.b = b * 2

    def out(self, x):
        return np.sum(self.w * x) * self.b


class Const:
    K = 2.0

    def __init__(self, w):
        self.w = w * self.K
        self.v = self.w + self.K

    def out(self, x):
        return np.sin(self.w * x) * self.K + self.v ** 2


class Const5(Const):
    K = 5.0


@dataclass
class Pair:
    inner: object
    outer: object
    scale: float = 1.0

    def __call__(self, x):
        return self.outer(self.inner(x)) * self.scale


def make_gauss(w, b):
    if b > 0:
        return Gauss(w * 2.0, b)
    g = Gauss(w, -b)
    return g


def make_lin(w, b):
    return Lin(w, b * 2.0)


def helper_loss(p, x):
    return p.loss(x * 2.0)


def gauss_helper(g, x):
    return np.sum(g.logpdf(x)) * g.mu[0]


def apply_lin(p, x):
    return p(x) + p.w


def apply_mlp(m, x):
    return m(x)
'''

#: bodies of f(w, b, x): w an array of 3, b a number, x an array of 3
BODIES = {
    "method_calling_methods": "p = Lin(w, b)\n    return p.loss(x)",
    "keywords_call": "p = Lin(b=b, w=w * 2.0)\n    return np.sum(p(x))",
    "property_and_field": "p = Lin(np.cos(w), b)\n    return np.sum(p.w2 * x) + p.b",
    "passed_to_helper": "p = Lin(w, b)\n    return helper_loss(p, x)",
    "two_objects": "p = Lin(w, b)\n    q = Lin(w * w, -b)\n"
                   "    return p.loss(x) + np.sum(q(x) * p.out(x))",
    "one_field": "o = One(w)\n    return np.sum(o.out(x)) * b",
    "four_fields_default": "q = Quad(w, b, c=2.0)\n    return np.sum(q.poly(x))",
    "four_fields_all": "q = Quad(w * w, b, b * b, d=np.sum(np.sin(w)))\n"
                       "    return np.sum(q.poly(x))",
    "computed_fields": "g = Gauss(w, b, scale=2.0)\n"
                       "    return np.sum(g.logpdf(x)) + np.sum(g.prec)",
    "computed_default": "g = Gauss(w, b)\n    return np.sum(g.logpdf(x) * g.sigma)",
    "computed_to_helper": "g = Gauss(w, b)\n    return gauss_helper(g, x)",
    "keyword_only": "k = Kw(w, b=b)\n    return np.sum(k.out(x))",
    "branches_same_fields": "o = Branchy(w, b, flip=True)\n    p = Branchy(w, b)\n"
                            "    return np.sum(o.out(x) + p.out(x))",
    "super_init": "c = Child(w, b)\n    return np.sum(c(x)) + np.sum(c.w)",
    "init_calls_a_helper_star_args": "k = Kid(b, w, shift=0.5)\n    return k.out(x)",
    "explicit_base_init": "k = Kid2(w, b)\n    return k.out(x)",
    "returned_by_helpers": "g = make_gauss(w, b)\n    h = make_gauss(w, -b)\n"
                           "    l = make_lin(w, b)\n"
                           "    return np.sum(g.logpdf(x) + h.logpdf(x)) + l.loss(x)",
    "class_attributes": "o = Const(w)\n    p = Const5(w * b)\n"
                        "    return np.sum(o.out(x)) + np.sum(p.out(x) * p.K)",
    "updated_in_a_loop": "a = Acc(w)\n    return a.scaled(b) + np.sum(x * a.total)",
    "built_in_a_loop": "s = 0.0\n    for i in range(3):\n        p = Lin(w * (i + 1.0), b)\n"
                       "        s = s + p.loss(x)\n    return s",
    "list_filled_in_a_loop": "layers = []\n    for i in range(3):\n"
                             "        layers.append(Lin(w * (i + 1.0), b))\n    s = 0.0\n"
                             "    for layer in layers:\n        s = s + layer.loss(x)\n"
                             "    return s * len(layers)",
    "list_comprehension": "ls = [Lin(w * i, b - i) for i in range(1, 4)]\n    last = ls[-1]\n"
                          "    y = x\n    for l in ls:\n        y = l(y)\n"
                          "    return np.sum(y) + np.sum(last.w2)",
    "list_comprehension_over_pairs": "ls = [Lin(v, c) for v, c in zip([w, w * 2.0], [b, -b])]\n"
                                     "    s = 0.0\n    for l in ls:\n"
                                     "        s = s + l.loss(x)\n    return s",
    "list_comprehension_with_a_condition": "v = 1.0\n"
                                           "    ls = [Lin(w * v, b) for v in range(4) if v % 2]\n"
                                           "    s = v\n    for l in ls:\n"
                                           "        s = s + np.sum(l(x))\n    return s",
    "list_of_computed_objects": "comps = [Gauss(w * k, b * k) for k in range(1, 3)]\n"
                                "    p = 0.0\n    for c in comps:\n"
                                "        p = p + np.exp(c.logpdf(x))\n    first = comps[0]\n"
                                "    return np.sum(np.log(p)) + np.sum(first.sigma)",
    "list_of_computed_objects_appended": "comps = []\n    for k in range(2):\n"
                                         "        comps.append(Gauss(w + k, b))\n"
                                         "    s = 0.0\n    for c in comps:\n"
                                         "        s = s + np.sum(c.logpdf(x) * c.prec)\n"
                                         "    return s * len(comps)",
    "list_of_one_field_objects": "os = []\n    for k in range(2):\n"
                                 "        os.append(One(w * b + k))\n    first = os[0]\n"
                                 "    s = np.sum(first.out(x))\n    for o in os:\n"
                                 "        s = s + np.sum(o.out(x))\n    return s",
    "built_and_used_at_once": "y = np.exp(Lin(w, b).w * x) * 2.0\n"
                              "    return np.sum(y * Gauss(w, b).prec)",
    "built_and_called_at_once": "c = np.sum(Child(w, b)(x))\n    return Lin(w, b).loss(x) + c",
    "built_in_branches": "if np.sum(x) > 0:\n        p = Lin(w, b)\n    else:\n"
                         "        p = Lin(-w, b * b)\n    return p.loss(x)",
    "built_in_branches_taken_else": "if np.sum(x) > 10:\n        p = Gauss(w, b)\n    else:\n"
                                    "        p = Gauss(-w, b * b)\n"
                                    "    return np.sum(p.logpdf(x))",
    "built_in_a_loop_used_after": "for i in range(3):\n        p = Gauss(w * i, b)\n"
                                  "    return np.sum(p.logpdf(x))",
    "built_as_argument": "return np.sum(apply_lin(Lin(w, b), x))",
    "nested_as_argument": "return np.sum(apply_mlp(MLP(Lin(w, b), Lin(w * 2.0, b)), x))",
    "nested_built_here": "m = MLP(Lin(w, b), Lin(w * 2.0, b))\n    return np.sum(m(x))",
    "nested_named": "l1 = Lin(w, b)\n    l2 = Lin(np.sin(w), b * b)\n    m = MLP(l1, l2)\n"
                    "    return np.sum(m(x)) + np.sum(m.first.out(x)) + m.second.b",
    "nested_passed_on": "m = MLP(Lin(w, b), Lin(w, -b))\n    return np.sum(apply_mlp(m, x))",
    "nested_computed_inner": "m = MLP(Child(w, b), Lin(w, b))\n    return np.sum(m(x))",
    "nested_two_levels": "m = MLP(MLP(Lin(w, b), Lin(w, b)), Lin(w * w, b))\n"
                         "    return np.sum(m(x))",
    "nested_in_a_dataclass": "p = Pair(Lin(w, b), Child(w, b), scale=b)\n"
                             "    return np.sum(p(x))",
}


def _module(tmp_path, stem, body, numpy="numpy"):
    return module_of(tmp_path, CLASSES, stem, body, numpy)


W = np.array([0.3, -0.6, 0.9])
B = 0.7
X = np.array([0.4, -0.7, 1.1])


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[k] = h
        out[k] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def _modules(tmp_path, name):
    text = f"\n\ndef f(w, b, x):\n    {BODIES[name]}\n"
    return _module(tmp_path, f"pc_{name}", text), _module(tmp_path, f"pca_{name}", text,
                                                           "autograd.numpy")


@pytest.mark.parametrize("name", sample(list(BODIES), 2))
def test_gradients(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    value, (gw, gb) = srcad.value_and_grad(m.f, wrt=(0, 1))(W.copy(), B, X.copy())
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    np.testing.assert_allclose(gw, _fd(lambda w: m.f(w, B, X), W), rtol=1e-6, atol=1e-8)
    assert float(gb) == pytest.approx(float(_fd(lambda b: m.f(W, b, X), B)), rel=1e-6,
                                      abs=1e-8)
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), B, anp.array(X))
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    assert float(gb) == pytest.approx(float(ab), rel=1e-10, abs=1e-12)
    gx = srcad.grad(m.f, wrt=2)(W.copy(), B, X.copy())
    np.testing.assert_allclose(gx, autograd.grad(ma.f, 2)(anp.array(W), B, anp.array(X)),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sample(list(BODIES), 2))
def test_forward_mode_and_pullback(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    u, t = np.array([0.5, -1.0, 0.25]), 0.3
    aw, ab = autograd.grad(ma.f, (0, 1))(anp.array(W), B, anp.array(X))
    value, tangent = srcad.jvp(m.f, (W.copy(), B, X.copy()), (u, t), wrt=(0, 1))
    assert value == pytest.approx(m.f(W, B, X), rel=1e-12)
    assert tangent == pytest.approx(float(aw @ u + ab * t), rel=1e-9, abs=1e-12)
    value, pullback = srcad.vjp(m.f, W.copy(), B, X.copy(), wrt=(0, 1))
    pw, pb = pullback(2.0)
    np.testing.assert_allclose(pw, 2.0 * aw, rtol=1e-10, atol=1e-12)
    assert float(pb) == pytest.approx(2.0 * float(ab), rel=1e-10, abs=1e-12)


HESSIANS = ["method_calling_methods", "property_and_field", "passed_to_helper",
            "four_fields_all", "computed_fields", "computed_to_helper", "branches_same_fields",
            "super_init", "updated_in_a_loop", "built_in_a_loop", "nested_as_argument",
            "nested_named", "nested_two_levels", "nested_in_a_dataclass",
            "list_filled_in_a_loop", "list_comprehension", "init_calls_a_helper_star_args",
            "explicit_base_init", "returned_by_helpers", "list_comprehension_over_pairs",
            "list_of_computed_objects", "class_attributes"]


@pytest.mark.parametrize("name", sample(HESSIANS, 2))
def test_hessian_both_modes(tmp_path, name):
    m, ma = _modules(tmp_path, name)
    want = autograd.hessian(ma.f)(anp.array(W), B, anp.array(X))
    for mode in ("fwd", "rev"):
        got = srcad.hessian(m.f, mode=mode)(W.copy(), B, X.copy())
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_the_generated_code_reads_like_the_dataclass_case(tmp_path):
    m, _ = _modules(tmp_path, "computed_fields")
    g = srcad.grad(m.f, wrt=(0, 1))
    g(W.copy(), B, X.copy())
    text = _code(srcad.source(g))
    assert "g_mu = " in text and "g_var = " in text  # the fields are locals
    assert "Gauss_fields_fwd(w, b, 2.0)" in text and "logpdf_fields_fwd(g_mu" in text
    assert "Gauss(" not in text  # no object is built, forward or backward
    m, _ = _modules(tmp_path, "method_calling_methods")
    g = srcad.grad(m.f, wrt=(0, 1))
    g(W.copy(), B, X.copy())
    text = _code(srcad.source(g))
    assert "loss_fields_fwd(w, b, x)" in text and "Lin" not in text


def _code(text):
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_a_global_read_by_init_is_read_again(tmp_path):
    text = ("\nK = 2.0\n\n\nclass Scaled:\n    def __init__(self, w):\n        self.w = w * K\n\n"
            "    def out(self, x):\n        return np.sum(self.w * x)\n\n\n"
            "def f(w, b, x):\n    s = Scaled(w)\n    return s.out(x) * b\n")
    m = _module(tmp_path, "pc_global", text)
    g = srcad.grad(m.f)
    np.testing.assert_allclose(g(W.copy(), B, X.copy()), 2.0 * B * X)
    m.K = 3.0
    np.testing.assert_allclose(g(W.copy(), B, X.copy()), 3.0 * B * X)


def test_init_redefined_makes_the_code_again(tmp_path):
    m, _ = _modules(tmp_path, "computed_default")
    g = srcad.grad(m.f)
    first = g(W.copy(), B, X.copy())
    np.testing.assert_allclose(first, _fd(lambda w: m.f(w, B, X), W), rtol=1e-6, atol=1e-8)

    def init(self, mu, log_sigma, scale=1.0):
        self.mu = mu * 3.0
        self.sigma = np.exp(log_sigma) * scale
        self.var = self.sigma ** 2

    source = "\n".join(["def init(self, mu, log_sigma, scale=1.0):",
                        "    self.mu = mu * 3.0", "    self.sigma = np.exp(log_sigma) * scale",
                        "    self.var = self.sigma ** 2", ""])
    path = tmp_path / "pc_init.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location("pc_init", path)
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    m.Gauss.__init__ = other.init
    again = g(W.copy(), B, X.copy())
    np.testing.assert_allclose(again, _fd(lambda w: m.f(w, B, X), W), rtol=1e-6, atol=1e-8)
    assert not np.allclose(again, first)


def test_the_issue_example(tmp_path):
    """The class of issue 16's report, as written there."""
    text = ("\n\nclass Gaussian:\n    def __init__(self, mu, sigma):\n        self.mu = mu\n"
            "        self.sigma = sigma\n\n    def logpdf(self, x):\n"
            "        return -0.5 * ((x - self.mu) / self.sigma) ** 2 - np.log(self.sigma)\n\n\n"
            "def f(mu, s, x):\n    g = Gaussian(mu, s)\n    return np.sum(g.logpdf(x))\n")
    m = _module(tmp_path, "pc_issue", text)
    ma = _module(tmp_path, "pca_issue", text, "autograd.numpy")
    g = srcad.grad(m.f, wrt=(0, 1))
    got = g(0.3, 1.5, X.copy())
    want = autograd.grad(ma.f, (0, 1))(0.3, 1.5, anp.array(X))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[0] == pytest.approx(float(_fd(lambda mu: m.f(mu, 1.5, X), 0.3)), rel=1e-6)
    text = _code(srcad.source(g))
    assert "logpdf_fields_fwd(mu, s, x)" in text and "Gaussian" not in text


def test_a_class_value_is_read_when_the_code_runs(tmp_path):
    text = ("\n\nclass K2:\n    K = 2.0\n\n    def __init__(self, w):\n"
            "        self.w = w * self.K\n\n    def out(self, x):\n"
            "        return np.sum(self.w * x) * self.K\n\n\n"
            "def f(w, b, x):\n    o = K2(w)\n    return o.out(x) * b + o.K\n")
    m = _module(tmp_path, "pc_class_value", text)
    g = srcad.grad(m.f)
    np.testing.assert_allclose(g(W.copy(), B, X.copy()), 4.0 * B * X, rtol=1e-12)
    m.K2.K = 3.0
    np.testing.assert_allclose(g(W.copy(), B, X.copy()), 9.0 * B * X, rtol=1e-12)
    np.testing.assert_allclose(g(W.copy(), B, X.copy()), _fd(lambda w: m.f(w, B, X), W),
                               rtol=1e-6)
