"""autograd's ``defjvp`` alone, on a function srcad has its own rule for (round 11).

Found in a library of parameter patterns (rgiordan/paragami, ``autograd_supplement_lib``),
which re-states at import the tangents of ``gammaln``, ``digamma``, ``polygamma``,
``np.linalg.inv``, ``solve`` and ``slogdet`` with autograd's ``defjvp``. Two faults before: a
ufunc's rule was refused at once ("8 parameters, but the ufunc takes 1 inputs": its signature
has ``out=``, ``where=``...), and the rule made of the tangents replaced srcad's own, so the
function lost its reverse mode ("no derivative of np.linalg.inv with respect to its argument
'a'") and, without a reverse rule, its forward mode too. autograd keeps a primitive's
vector-Jacobian products when ``defjvp`` gives its tangents; srcad now keeps its own rules
with the user's tangents in them (:meth:`srcad.rules.registry.Rule.with_forward`), and
``defjvp(f, None)`` of a function srcad knows has no derivative adds nothing.

The family: functions x call sites (the function alone, inside a computation, twice), each
with the user's tangent counted (forward mode must call it), against central finite
differences and autograd: grad (srcad's reverse rule), jvp (the user's tangent),
value_and_grad, Hessians in both modes. The registry is restored after each test.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import scipy.special as sp
from srcad.check import numerical_grad

import srcad
import srcad.extend as ext
from srcad import extend_autograd
from srcad.rules.registry import _key, registry

autograd = pytest.importorskip("autograd")
anp = autograd.numpy
asp = pytest.importorskip("autograd.scipy.special")

CALLS = {"n": 0}


def _counted(maker):
    def counted(*args):
        CALLS["n"] += 1
        return maker(*args)
    counted.__name__ = maker.__name__
    return counted


def inv_jvp(g, ans, x):
    dot = np.dot if ans.ndim == 2 else partial(np.einsum, "...ij,...jk->...ik")
    return -dot(dot(ans, g), ans)


def solve_jvp_a(g, ans, a, b):
    return -np.linalg.solve(a, g @ ans)


def solve_jvp_b(g, ans, a, b):
    return np.linalg.solve(a, g)


def gammaln_jvp(g, ans, x):
    return g * sp.psi(x)


def digamma_jvp(g, ans, x):
    return g * sp.polygamma(1, x)


A = np.array([[2.0, 0.3, 0.1], [0.2, 1.5, -0.4], [0.1, 0.3, 3.0]])
B = np.array([0.5, -1.0, 2.0])

#: name -> (function, makers, srcad's objective of x, autograd's, point)
CASES = {
    "inv": (np.linalg.inv, (inv_jvp,),
            lambda x: np.sum(np.linalg.inv(x) ** 2),
            lambda x: anp.sum(anp.linalg.inv(x) ** 2), A),
    "inv_in_a_computation": (np.linalg.inv, (inv_jvp,),
                             lambda x: np.sum(np.tanh(np.linalg.inv(x * 1.5) @ B)),
                             lambda x: anp.sum(anp.tanh(anp.linalg.inv(x * 1.5) @ B)), A),
    "solve_both": (np.linalg.solve, (solve_jvp_a, solve_jvp_b),
                   lambda x: np.sum(np.linalg.solve(x, B) ** 3),
                   lambda x: anp.sum(anp.linalg.solve(x, B) ** 3), A),
    "gammaln_ufunc": (sp.gammaln, (gammaln_jvp,),
                      lambda x: np.sum(sp.gammaln(x) * x),
                      lambda x: anp.sum(asp.gammaln(x) * x), np.array([0.7, 1.9, 3.2])),
    "digamma_twice": (sp.digamma, (digamma_jvp,),
                      lambda x: np.sum(sp.digamma(x) * sp.digamma(2.0 * x)),
                      lambda x: anp.sum(asp.digamma(x) * asp.digamma(2.0 * x)),
                      np.array([0.8, 1.4, 2.5])),
}


@pytest.fixture
def restored():
    """The registry's rules and the autograd-form table, as they were, after the test."""
    registry.rules_for(sp.gammaln)  # SciPy's rules loaded now, so that they are kept
    saved = {k: list(v) for k, v in registry.rules.items()}
    makers = dict(extend_autograd._MAKERS)
    yield
    registry.rules.clear()
    registry.rules.update(saved)
    extend_autograd._MAKERS.clear()
    extend_autograd._MAKERS.update(makers)
    srcad.clear_cache()


@pytest.mark.parametrize("name", list(CASES))
def test_tangents_given_keep_the_gradient(name, restored):
    fn, makers, f, af, x = CASES[name]
    ext.defjvp(fn, *[_counted(m) for m in makers])
    expected = autograd.grad(af)(x)
    g = srcad.grad(f)(x)  # srcad's own reverse rule: refused before
    np.testing.assert_allclose(g, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-6, atol=1e-8)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(af(x), rel=1e-12)
    np.testing.assert_allclose(g2, expected, rtol=1e-9, atol=1e-12)
    u = np.cos(np.arange(x.size, dtype=float).reshape(x.shape) + 0.3)
    before = CALLS["n"]
    _, t = srcad.jvp(f, (x,), (u,))  # the user's tangent
    assert CALLS["n"] > before
    assert t == pytest.approx(float(np.sum(expected * u)), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("name", ["inv", "gammaln_ufunc"])
def test_hessians_in_both_modes(name, restored):
    fn, makers, f, af, x = CASES[name]
    ext.defjvp(fn, *makers)
    expected = autograd.hessian(af)(x)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), expected, rtol=1e-7,
                                   atol=1e-9)


def test_a_zero_tangent_of_a_constant_function_adds_nothing(restored):
    before = list(registry.rules.get(_key(sp.gammasgn), []))
    assert ext.defjvp(sp.gammasgn, None) is sp.gammasgn
    assert registry.rules.get(_key(sp.gammasgn), []) == before
    f = lambda x: np.sum(sp.gammasgn(x) * x ** 2)  # noqa: E731
    x = np.array([0.5, -0.5, 2.5])
    np.testing.assert_allclose(srcad.grad(f)(x), sp.gammasgn(x) * 2 * x)


def test_a_ufunc_takes_a_rule_of_its_inputs(restored):
    """A ufunc srcad has no rule for: the autograd-form rule names its inputs only."""
    def i0_vjp(ans, x):
        return lambda g: g * sp.i1(x)

    def i0_jvp(g, ans, x):
        return g * sp.i1(x)

    ext.defvjp(sp.i0, i0_vjp)
    ext.defjvp(sp.i0, i0_jvp)
    f = lambda x: np.sum(sp.i0(x) * x)  # noqa: E731
    x = np.array([0.3, 1.2, -0.7])
    np.testing.assert_allclose(srcad.grad(f)(x), numerical_grad(f, (x,)), rtol=1e-6)
    _, t = srcad.jvp(f, (x,), (np.ones(3),))
    assert t == pytest.approx(float(np.sum(numerical_grad(f, (x,)))), rel=1e-6)


def test_tangents_then_gradients_make_one_rule_of_the_user(restored):
    """defjvp then defvjp (autograd's two halves): the user's rule in both modes, as before."""
    calls = {"vjp": 0}

    def inv_vjp(ans, x):
        calls["vjp"] += 1
        return lambda g: -ans.T @ g @ ans.T

    ext.defjvp(np.linalg.inv, inv_jvp)
    ext.defvjp(np.linalg.inv, inv_vjp)
    f, af, x = CASES["inv"][2], CASES["inv"][3], A
    np.testing.assert_allclose(srcad.grad(f)(x), autograd.grad(af)(x), rtol=1e-9)
    assert calls["vjp"] > 0
