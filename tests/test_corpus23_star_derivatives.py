"""The derivative of a ``*args`` function, called inside code that is differentiated again.

Met in round 23's corpus (a course project solving the diffusion equation with a network:
``ele_grad(ele_grad(self.trial, 0), 0)(x, t, P)`` inside the loss): the autograd shim's
``elementwise_grad`` differentiates ``summed(*args)``, so its derivative is the one
``srcad.api._star_args`` makes for a ``*args`` function (a wrapper choosing the derivative
made for the call's count of arguments). Called inside a function srcad differentiates, that
wrapper was refused as "a function made by srcad (a pullback, a Jacobian, ...)", although
``srcad.grad`` of a named-parameter function was taken there. Lowering now resolves it to the
derivative made for the call's count (``frontend/lower_calls._needs_resolving``, then
``Callees.call_object``), a derivative srcad differentiates in turn.

The family: the function differentiated first (a ``*args`` function, a closure summing a
function of two named parameters through ``*args``) x the maker (``grad``,
``value_and_grad``) x the argument it is taken for (0, 1) x how the derivative is called
(by name, with ``*args`` of a tuple, through a ``*args`` closure holding it, as the derivative
of that closure again: a second derivative), against central differences and autograd on
the same text.
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from sampling import sample
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")

HEAD = """
def base(x, p):
    return np.sin(x * p) * x + np.cos(p) * x ** 2

def star(*xs):
    return np.sum(base(xs[0], xs[1]))

def mk(fun):
    def summed(*args):
        return np.sum(fun(*args))
    return summed
"""

INNERS = {"star": "star", "closure": "mk(base)"}
MAKERS = {"grad": "{v}", "value_and_grad": "{v}[1]"}
CALLS = {
    "named": "    v = d(x, p)\n",
    "starred": "    args = (x, p)\n    v = d(*args)\n",
    "wrapped": "    v = DD(x, p)\n",
    "second": "    v = D2(x, p)\n",
}
CASES = [c for c in itertools.product(INNERS, MAKERS, (0, 1), CALLS)
         if c[1] == "grad" or c[3] in ("named", "starred")]  # a pair is not summed
P0 = np.array([0.3, -0.7, 1.1])
X0 = np.array([0.9, 0.4, -1.3])


def _text(inner, maker, k, call, engine):
    def made(name, fn, kk):
        wrt = f"wrt={kk}" if engine == "srcad" else str(kk)
        return f"{name} = D.{maker}({fn}, {wrt})\n"

    read = MAKERS[maker].format(v="v")
    second = "D2 = D.grad(mk(d), 0)\n" if engine == "autograd" else "D2 = D.grad(mk(d), wrt=0)\n"
    return (f"import {engine} as D\n" + HEAD + made("d", INNERS[inner], k)
            + "DD = mk(d)\n" + (second if maker == "grad" else "D2 = DD\n")
            + "\ndef f(p, x):\n" + CALLS[call]
            + f"    v = {read}\n" * (call in ("named", "starred"))
            + "    return np.sum(v * p) + np.sum(p ** 2)\n")


def _module(tmp_path, text, numpy_name, tag):
    path = tmp_path / f"star23_{tag}.py"
    path.write_text(f"import {numpy_name} as np\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("inner,maker,k,call", sample(CASES, 6))
def test_a_star_args_derivative_called_in_differentiated_code(inner, maker, k, call,
                                                               tmp_path):
    tag = f"{inner}_{maker}_{k}_{call}"
    m = _module(tmp_path, _text(inner, maker, k, call, "srcad"), "numpy", tag)
    a = _module(tmp_path, _text(inner, maker, k, call, "autograd"), "autograd.numpy",
                tag + "_ag")
    value, g = srcad.value_and_grad(m.f)(P0, X0)
    assert value == pytest.approx(a.f(P0, X0), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(a.f)(P0, X0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, central(m.f, (P0, X0), 0), rtol=1e-6, atol=1e-8)
    # and with respect to x, through the inner derivative's other argument
    np.testing.assert_allclose(srcad.grad(m.f, wrt=1)(P0, X0),
                               autograd.grad(a.f, 1)(P0, X0), rtol=1e-9, atol=1e-12)


def test_the_shims_nested_elementwise_grad_of_a_bound_method(tmp_path):
    """The corpus program's form: elementwise_grad of elementwise_grad of a bound method with
    three arguments, inside a method differentiated with respect to the network's weights."""
    text = """
class Net:
    def __call__(self, X, P):
        return np.tanh(X @ P)

    def trial(self, x, t, P):
        X = np.concatenate((x, t), axis=1)
        return np.sin(np.pi * x) * (1 + t * self(X, P))

    def residual(self, X, P):
        x, t = X[:, :1], X[:, 1:]
        lhs = EG(EG(self.trial, 0), 0)(x, t, P)
        rhs = EG(self.trial, 1)(x, t, P)
        return lhs - rhs

    def cost(self, P, X):
        return np.mean(self.residual(X, P) ** 2)
"""
    maker = ("import srcad\n\n"  # as tools/example_shim.py's elementwise_grad
             "def summed_grad(fun, wrt=0):\n"
             "    def summed(*args):\n        return np.sum(fun(*args))\n"
             "    return srcad.grad(summed, wrt=wrt)\n\n"
             "def EG(fun, argnum=0):\n    return summed_grad(fun, argnum)\n\n"
             "EG.__srcad_derivative_maker__ = (summed_grad, {'argnum': 'wrt'})\n")
    m = _module(tmp_path, maker + text, "numpy", "net")
    a = _module(tmp_path, "from autograd import elementwise_grad as EG\n" + text,
                "autograd.numpy", "net_ag")
    X = np.random.default_rng(3).random((4, 2))
    P = np.array([[0.4], [-0.6]])
    g = srcad.grad(m.Net().cost)(P, X)
    np.testing.assert_allclose(g, autograd.grad(a.Net().cost)(P, X), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(g, central(m.Net().cost, (P, X), 0), rtol=1e-5, atol=1e-8)
