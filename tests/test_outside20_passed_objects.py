"""Objects built from a record passed down, holding it (round 20's outside programs).

Met in wittawatj/kernel-gof (kernel goodness-of-fit tests; its demo notebooks and its test
suite): the objective ``flat_obj`` calls ``GaussFSSD.power_criterion(p, dat, gw, V)``, a
static method building the kernel ``k = KGauss(gw)`` and passing it to
``FSSD.power_criterion(p, dat, k, V)``, which builds ``fssd = FSSD(p, k, V, null_sim=None)``
(``FSSD.__init__`` calls ``super(FSSD, self).__init__(p, alpha)``, its base's metaclass
``ABCMeta``) and calls ``fssd.feature_tensor(X)``, which reads ``k = self.k`` and
``self.p.grad_log(X)``. Each step was refused: a record passed to a constructor in the
function it is passed to; an object built by its ``__init__``'s copy holding a record; a
local name for a record held (``k = self.k``); the methods of a class whose metaclass is
``abc.ABCMeta``; the class of an object held by an object built by its ``__init__``'s copy.

The family: how the holder is built (its ``__init__`` setting its fields directly, calling
``super().__init__``, ``super(H, self).__init__``, ``Base.__init__(self, ...)``, a base with
metaclass ``abc.ABCMeta``) x how its method reads the record (``self.k.eval``, ``k = self.k``)
x how the record reaches the constructor (built there, passed to a helper, through two static
methods as in kernel-gof, the density a closure's), against finite differences and autograd
on the same text; value_and_grad, jvp and (sampled) Hessians in both modes. Refusals: a name
bound to the record and then rebound, a class srcad does not follow (``__slots__``), an
``__init__`` reading the record it stores.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

COMMON = """
import abc

class Dens:
    def __init__(self, m):
        self.m = m

    def scale(self, X):
        return np.sum(-(X - self.m) ** 2) * 0.1 + 1.0

class KG:
    def __init__(self, s2):
        assert s2 > 0, "s2 must be > 0"
        self.s2 = s2

    def eval(self, X, Y):
        d2 = np.sum(X ** 2, 1)[:, None] - 2.0 * X @ Y.T + np.sum(Y ** 2, 1)[None, :]
        return np.exp(-d2 / (2.0 * self.s2))

class Base:
    def __init__(self, p, alpha):
        self.p = p
        self.alpha = alpha

class AbstractBase(metaclass=abc.ABCMeta):
    def __init__(self, p, alpha):
        self.p = p
        self.alpha = alpha

    @abc.abstractmethod
    def feat(self, X):
        pass
"""

INITS = {
    "direct": ("", "    def __init__(self, p, k, V):\n        self.p = p\n        self.k = k\n"
               "        self.V = V\n", "H(p, k, V)"),
    "super": ("(Base)", "    def __init__(self, p, k, V, null_sim=None, alpha=0.01):\n"
              "        super().__init__(p, alpha)\n        self.k = k\n        self.V = V\n"
              "        self.null_sim = null_sim\n", "H(p, k, V, null_sim=None)"),
    "super_named": ("(Base)", "    def __init__(self, p, k, V, alpha=0.01):\n"
                    "        super(H, self).__init__(p, alpha)\n        self.k = k\n"
                    "        self.V = V\n", "H(p, k, V)"),
    "base_init": ("(Base)", "    def __init__(self, p, k, V, alpha=0.01):\n"
                  "        Base.__init__(self, p, alpha)\n        self.k = k\n"
                  "        self.V = V\n", "H(p, k, V)"),
    "abc": ("(AbstractBase)", "    def __init__(self, p, k, V, alpha=0.01):\n"
            "        super().__init__(p, alpha)\n        self.V = V\n        self.k = k\n",
            "H(p, k, V, alpha=0.5)"),
}

READS = {
    "attr": "    def feat(self, X):\n"
            "        return self.k.eval(X, self.V) * self.p.scale(X)\n",
    "alias": "    def feat(self, X):\n        k = self.k\n        V = self.V\n"
             "        g = self.p.scale(X)\n        return k.eval(X, V) * g + k.s2\n",
}

ROUTES = {
    "inline": "def objective(x):\n    k = KG(x[0] ** 2 + 0.5)\n    p = DENS\n"
              "    V = x[1:].reshape(2, 2)\n    h = {make}\n    return np.sum(h.feat(X))\n",
    "helper": "def crit(p, X, k, V):\n    h = {make}\n    return np.sum(h.feat(X))\n\n"
              "def objective(x):\n    k = KG(x[0] ** 2 + 0.5)\n"
              "    return crit(DENS, X, k, x[1:].reshape(2, 2))\n",
    "static": "class Crit:\n    @staticmethod\n    def crit(p, X, k, V):\n        h = {make}\n"
              "        return np.sum(h.feat(X))\n\n"
              "class Outer(Crit):\n    @staticmethod\n    def crit(p, X, w, V):\n"
              "        k = KG(w)\n        return Crit.crit(p, X, k, V)\n\n"
              "def objective(x):\n    return -Outer.crit(DENS, X, x[0] ** 2 + 0.5, "
              "x[1:].reshape(2, 2))\n",
    "closure": "def make_objective(p):\n    def obj(s, V):\n        k = KG(s ** 2 + 0.5)\n"
               "        h = {make}\n        return np.sum(h.feat(X))\n\n"
               "    def flat(x):\n        return obj(x[0], x[1:].reshape(2, 2))\n"
               "    return flat\n\nobjective = make_objective(DENS)\n",
}

X = np.random.RandomState(3).randn(5, 2)
X0 = np.array([1.1, 0.2, 0.3, -0.4, 0.5])
CASES = list(itertools.product(INITS, READS, ROUTES))


def _text(init, read, route):
    bases, body, make = INITS[init]
    text = COMMON + f"\nclass H{bases}:\n" + body + "\n" + READS[read] + "\n"
    return text + "\nDENS = Dens(0.25)\n\n" + ROUTES[route].replace("{make}", make)


def _module(tmp_path, text, numpy_name, tag):
    path = tmp_path / f"passed20_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.X = X
    return module


@pytest.mark.parametrize("init,read,route", sample(CASES, 7))
def test_an_object_built_from_a_record_passed_down(init, read, route, tmp_path):
    text = _text(init, read, route)
    tag = f"{init}_{read}_{route}"
    m = _module(tmp_path, text, "numpy", tag)
    a = _module(tmp_path, text, "autograd.numpy", tag + "_ag")
    f, fa = m.objective, a.objective
    g = srcad.grad(f)(X0)
    np.testing.assert_allclose(g, numerical_grad(f, (X0,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(fa)(X0), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(X0)
    assert value == pytest.approx(f(X0), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    t = np.array([0.4, -1.1, 0.2, 0.6, -0.3])
    assert srcad.jvp(f, (X0,), (t,))[1] == pytest.approx(float(g @ t), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("init,read,route", sample(CASES, 19))
def test_second_order_both_modes(init, read, route, tmp_path):
    text = _text(init, read, route)
    tag = f"{init}_{read}_{route}_h"
    m = _module(tmp_path, text, "numpy", tag)
    a = _module(tmp_path, text, "autograd.numpy", tag + "_ag")
    want = autograd.hessian(a.objective)(X0)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.objective, mode=mode)(X0), want,
                                   rtol=1e-7, atol=1e-9)


def test_the_copy_reads_the_leaves_and_builds_no_object(tmp_path):
    m = _module(tmp_path, _text("super", "alias", "helper"), "numpy", "code")
    g = srcad.grad(m.objective)
    g(X0)
    text = srcad.source(g)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "KG(" not in code and "object_of" not in code and "H(" not in code
    assert "crit_fields" in code  # the helper's copy taking the record's leaves


REFUSED = """
class KG:
    def __init__(self, s2):
        self.s2 = s2

    def eval(self, X, Y):
        return np.exp(-(X @ Y.T) / (2.0 * self.s2))

class H:
    def __init__(self, k, V):
        self.k = k
        self.V = V

    def feat_rebound(self, X):
        k = self.k
        out = k.eval(X, self.V)
        k = KG(2.0)
        return out + k.eval(X, self.V)

class Slots:
    __slots__ = ("k", "V")

    def __init__(self, k, V):
        self.k = k
        self.V = V

    def feat(self, X):
        return self.k.eval(X, self.V)

class Base:
    def __init__(self, p):
        self.p = p

class ReadsIt(Base):
    def __init__(self, k, V):
        super().__init__(1.0)
        self.k = k
        self.scale = k.s2 * 2.0
        self.V = V

    def feat(self, X):
        return self.k.eval(X, self.V) * self.scale

def f_rebound(x):
    k = KG(x[0] ** 2)
    return np.sum(H(k, x[1:].reshape(2, 2)).feat_rebound(X))

def crit_slots(X, k, V):
    return np.sum(Slots(k, V).feat(X))

def f_slots(x):
    k = KG(x[0] ** 2)
    return crit_slots(X, k, x[1:].reshape(2, 2))

def crit_reads(X, k, V):
    t = ReadsIt(k, V)
    return np.sum(t.feat(X))

def f_reads(x):
    k = KG(x[0] ** 2)
    return crit_reads(X, k, x[1:].reshape(2, 2))
"""


@pytest.mark.parametrize("name,construct,words", [
    ("f_rebound", "return np.sum(H(k, x[1:].reshape(2, 2)).feat_rebound(X))",
     ["KG", "does not follow"]),
    ("f_slots", "return np.sum(Slots(k, V).feat(X))", ["record is passed", "does not follow"]),
    ("f_reads", "t = ReadsIt(k, V)", ["KG", "does not follow"]),
])
def test_what_stays_refused(name, construct, words, tmp_path):
    m = _module(tmp_path, REFUSED, "numpy", "refused")
    with pytest.raises(SrcadError) as info:
        srcad.grad(getattr(m, name))(X0)
    error = info.value
    assert error.filename == str(tmp_path / "passed20_refused.py")
    lines = (REFUSED).splitlines()
    assert lines[error.lineno - 2].strip() == construct  # (line 1 is the import)
    assert all(w in str(error) for w in words)
    assert "hint:" in str(error)


OVERWRITTEN = """
class Base:
    def __init__(self, k, V):
        self.k = 2.0 * k
        self.V = V

class H(Base):
    def __init__(self, k, V, c):
        self.k = k
        self.c = c
        super().__init__(k, V)

    def out(self, X):
        return np.sum(self.k * X @ self.V) * self.c.scale

class C:
    def __init__(self, s):
        self.scale = s

CC = C(3.0)

def objective(x):
    h = H(x[0], x[1:].reshape(2, 2), CC)
    return h.out(X[:2])
"""


def test_a_field_a_base_sets_again_is_its_last_value(tmp_path):
    m = _module(tmp_path, OVERWRITTEN, "numpy", "over")
    a = _module(tmp_path, OVERWRITTEN, "autograd.numpy", "over_ag")
    g = srcad.grad(m.objective)(X0)
    np.testing.assert_allclose(g, autograd.grad(a.objective)(X0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(m.objective, (X0,), 0), rtol=1e-6, atol=1e-8)
