"""A lambda a helper binds to a name and returns, called by the caller (round 10).

Found in a textbook's library (jermwatt/mlrefined, ``multilayer_perceptron_batch_normalized``):
``standard_normalizer(x)`` computes the rows' means and deviations, binds ``normalizer =
lambda data: (data - x_means) / x_stds`` and returns ``normalizer``; the network calls
``normalizer = self.standard_normalizer(a); a = normalizer(a)`` after every layer. srcad took
``return lambda ...`` and ``def inner(...): ...; return inner`` (closure conversion,
:mod:`srcad.frontend.closures`) but not a lambda returned through a name: "calling the local
value 'normalizer', a function that standard_normalizer(...) returned". Python makes the same
function of ``name = lambda a: e`` as of ``def name(a): return e`` (but its ``__name__``), so
the maker's text is read with the def (:func:`srcad.frontend.closures._named_lambdas`).

The family: the maker (a module-level function, a method called on the object differentiated,
a helper nested in a builder) x how the lambda is bound (plainly, inside an ``if`` block that
adjusts a captured value first, with a default argument, reading the maker's parameter) x how
the caller uses it (called at once, called in a loop over layers); against central finite
differences and autograd on the same text, with value_and_grad, jvp and Hessians in both
modes. A name bound to two lambdas stays refused, with the hint.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import SrcadError

autograd = pytest.importorskip("autograd")

#: the maker's body (4 columns, a function of ``x``): it binds ``normalizer`` and returns it
BINDINGS = {
    "plain": """
    x_means = np.mean(x, axis=1)[:, None]
    x_stds = np.std(x, axis=1)[:, None]
    normalizer = lambda data: (data - x_means) / x_stds
    return normalizer
""",
    "in_if": """
    x_means = np.mean(x, axis=1)[:, None]
    x_stds = np.std(x, axis=1)[:, None]
    small = np.argwhere(x_stds < 1e-2)
    if len(small) > 0:
        adjust = np.zeros(x_stds.shape)
        adjust[[v[0] for v in small]] = 1.0
        x_stds = x_stds + adjust
    if x.shape[0] > 0:
        normalizer = lambda data: (data - x_means) / x_stds
    return normalizer
""",
    "default": """
    x_means = np.mean(x, axis=1)[:, None]
    normalizer = lambda data, c=2.0: c * (data - x_means) / np.sqrt(1.0 + x_means ** 2)
    return normalizer
""",
    "parameter": """
    normalizer = lambda data: np.tanh(data) * x[:, :1]
    return normalizer
""",
}

#: where the maker sits and how the differentiated function reaches it: (module text with
#: ``{maker}`` for the maker's def, the differentiated function's expression)
PLACES = {
    "module": ("""
def standard_normalizer(x):{body}

def layers(w, a):
    for W in w:
        a = np.tanh(W[0] + np.dot(a.T, W[1:])).T
        normalizer = standard_normalizer(a)
        a = normalizer(a)
    return a

def loss(w, a):
    return np.sum(np.sin(layers(w, a)) * np.arange(1.0, 1.0 + a.shape[1]))
""", lambda m: m.loss),
    "method": ("""
class Net:
    def standard_normalizer(self, x):{body}

    def layers(self, w, a):
        for W in w:
            a = np.tanh(W[0] + np.dot(a.T, W[1:])).T
            normalizer = self.standard_normalizer(a)
            a = normalizer(a)
        return a

    def loss(self, w, a):
        return np.sum(np.sin(self.layers(w, a)) * np.arange(1.0, 1.0 + a.shape[1]))
""", lambda m: m.Net().loss),
    "called_at_once": ("""
def standard_normalizer(x):{body}

def loss(w, a):
    h = np.tanh(w[0][0] + np.dot(a.T, w[0][1:])).T
    return np.sum(np.cos(standard_normalizer(h)(h)) * np.arange(1.0, 1.0 + a.shape[1]))
""", lambda m: m.loss),
}

A = np.random.RandomState(0).randn(2, 5)
W = [np.random.RandomState(1).randn(3, 3) * 0.8, np.random.RandomState(2).randn(4, 2) * 0.8]


def _indent(body, by):
    return "\n".join((" " * by + line) if line.strip() else line
                     for line in body.splitlines())


def _module(place, binding, tmp_path, numpy_name):
    text, _ = PLACES[place]
    body = _indent(BINDINGS[binding], 4 if place == "method" else 0)
    path = tmp_path / f"lam10_{place}_{binding}_{numpy_name.replace('.', '_')}.py"
    path.write_text(f"import {numpy_name} as np\n" + text.format(body=body))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _numeric(f, w):
    out = []
    for k in range(len(w)):
        def fk(v, k=k):
            ww = list(w)
            ww[k] = v
            return f(ww, A)
        out.append(numerical_grad(fk, (w[k],)))
    return out


CASES = list(itertools.product(PLACES, BINDINGS))


@pytest.mark.parametrize("place,binding", CASES)
def test_gradient_matches_finite_differences_and_autograd(place, binding, tmp_path):
    reach = PLACES[place][1]
    f = reach(_module(place, binding, tmp_path, "numpy"))
    fa = reach(_module(place, binding, tmp_path, "autograd.numpy"))
    g = srcad.grad(f)(W, A)
    want = autograd.grad(fa)(W, A)
    for got, fd, ag in zip(g, _numeric(f, W), want):
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got, ag, rtol=1e-9, atol=1e-11)
    value, g2 = srcad.value_and_grad(f)(W, A)
    assert value == pytest.approx(f(W, A), rel=1e-12)
    for a, b in zip(g2, g):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    v = [np.ones_like(W[0]) * 0.3, -np.ones_like(W[1]) * 0.2]
    _, tangent = srcad.jvp(lambda w: f(w, A), (W,), (v,))
    assert tangent == pytest.approx(sum(float(np.sum(a * b)) for a, b in zip(g, v)),
                                    rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("place", list(PLACES))
def test_hessians_both_modes(place, tmp_path):
    f = PLACES[place][1](_module(place, "plain", tmp_path, "numpy"))
    fa = PLACES[place][1](_module(place, "plain", tmp_path, "autograd.numpy"))
    w0 = W[0].ravel()

    def first(v, g=f):
        return g([v.reshape(3, 3), W[1]], A)

    def first_a(v):
        return fa([v.reshape(3, 3), W[1]], A)

    want = autograd.hessian(first_a)(w0)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(first, mode=mode)(w0), want,
                                   rtol=1e-7, atol=1e-9)


def test_two_lambdas_under_one_name_stay_refused(tmp_path):
    path = tmp_path / "lam10_twice.py"
    path.write_text("""import numpy as np

def make(x):
    f = lambda d: d * x
    f = lambda d: d + x
    return f

def loss(w):
    return np.sum(make(w)(w))
""")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SrcadError) as info:
        srcad.grad(module.loss)(np.array([0.5, 1.5]))
    assert info.value.lineno == 9
    assert "make(...) returned" in str(info.value)
    assert "call a named function" in str(info.value)


def test_the_generated_code_reads_the_lambda_as_a_def(tmp_path):
    f = PLACES["module"][1](_module("module", "plain", tmp_path, "numpy"))
    code = srcad.source(srcad.grad(f))
    assert "lambda" not in code
    assert "layers_fwd(w, a)" in code  # the loop over layers: a forward and a backward part
