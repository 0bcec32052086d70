"""Round 29: a list of functions and ``None`` rebound under a length test (the JAX reading
group's MaskedAutoReg: ``if len(acts) == 1 and len(params) > 1: acts = [acts[0] for _ in
range(h - 1)] + [None]``, then ``if acts[j]: z = acts[j](z)``). The specialisation fixes the
lengths of list and tuple parameters (srcad.frontend.fixed_lengths), so the rebinding's test
takes one way while the code is made and the list read stays the one passed. Checked against
central differences and autograd; forms where the length may have changed stay refused.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.frontend.fixed_lengths import check_length
from srcad.tools.check import numerical_grad
from tests.sampling import LONG, sample


def made(np):  # srcad's (on NumPy) and autograd's (on its numpy)
    def dense(z, params, acts):
        if len(acts) == 1 and len(params) > 1:
            h = len(params)
            acts = [acts[0] for _ in range(h - 1)] + [None]
        else:
            assert len(params) == len(acts)
        for j, (W, b) in enumerate(params):
            z = np.dot(z, W) + b
            if acts[j]:
                z = acts[j](z)
        return z

    def dense_not(z, params, acts):  # the test written the other way round
        if not 1 != len(acts):
            acts = [acts[0]] * len(params)
        for j in range(len(params)):
            z = np.dot(z, params[j][0]) + params[j][1]
            if acts[j] is not None:
                z = acts[j](z)
        return z

    return dense, dense_not


dense, dense_not = made(np)
adense, adense_not = made(anp)


def relu(v):
    return np.maximum(v, 0.0) + 0.1 * v


def arelu(v):
    return anp.maximum(v, 0.0) + 0.1 * v


RS = np.random.RandomState(29)
P2 = [(RS.randn(3, 3) * .5, RS.randn(3) * .5), (RS.randn(3, 3) * .5, RS.randn(3) * .5)]
P3 = P2 + [(RS.randn(3, 3) * .5, RS.randn(3) * .5)]
Z = RS.randn(3)
ACTS = [np.tanh, None]  # a global list of functions and None (its items guarded)
AACTS = [anp.tanh, None]


def f_argument(z, p, acts):
    return np.sum(dense(z, p, acts) ** 2)


def f_global(z, p):
    return np.sum(dense(z, p, ACTS) ** 2)


def make_closure(acts):
    def f(z, p):
        return np.sum(dense(z, p, acts) ** 2)
    return f


def f_display(z, p):  # a list display built in the caller
    return np.sum(dense(z, p, [np.tanh, relu, None]) ** 2)


def f_tuple(z, p):
    return np.sum(dense_not(z, p, (np.sin, None)) ** 2)


def f_top(z, p, acts):  # the test in the function differentiated itself
    return np.sum(dense(z, p, acts) ** 2)


# name, srcad's function, args, autograd's function (on autograd's numpy)
CASES = [
    ("argument", f_argument, (Z, P2, [np.tanh, None]),
     lambda z, p: anp.sum(adense(z, p, AACTS) ** 2)),
    ("global", f_global, (Z, P2), lambda z, p: anp.sum(adense(z, p, AACTS) ** 2)),
    ("closure", make_closure([relu, np.tanh]), (Z, P2),
     lambda z, p: anp.sum(adense(z, p, [arelu, anp.tanh]) ** 2)),
    ("display", f_display, (Z, P3),
     lambda z, p: anp.sum(adense(z, p, [anp.tanh, arelu, None]) ** 2)),
    ("tuple", f_tuple, (Z, P2), lambda z, p: anp.sum(adense_not(z, p, (anp.sin, None)) ** 2)),
    ("three layers", f_argument, (Z, P3, [np.tanh, None, np.tanh]),
     lambda z, p: anp.sum(adense(z, p, [anp.tanh, None, anp.tanh]) ** 2)),
]


@pytest.mark.parametrize("case", sample(CASES, 1) if LONG else CASES[:1],
                         ids=lambda c: c[0])
def test_against_autograd_and_differences(case):
    name, fn, args, reference = case
    got = srcad.grad(fn, (0, 1))(*args)
    want = autograd.grad(reference, (0, 1))(*args[:2])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)
    for (gW, gb), (wW, wb) in zip(got[1], want[1]):
        np.testing.assert_allclose(gW, wW, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(gb, wb, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[0], numerical_grad(lambda z: fn(z, *args[1:]), (args[0],)),
                               rtol=1e-5, atol=1e-7)


def test_other_cases_long():
    if not LONG:
        pytest.skip("the whole family runs in the long run")
    for _name, fn, args, reference in [CASES[1], CASES[2], CASES[4], CASES[5]]:
        got = srcad.grad(fn)(*args)
        np.testing.assert_allclose(got, autograd.grad(reference)(*args[:2]), rtol=1e-9)


def test_made_again_when_the_list_changes():
    if not LONG:
        pytest.skip("the long run (CI keeps one case of the family)")
    acts = [np.tanh, None]
    f = make_closure(acts)
    g = srcad.grad(f)
    first = g(Z, P2)
    acts[1] = relu  # in place, between calls: the items are guarded
    want = autograd.grad(lambda z: anp.sum(adense(z, P2, [anp.tanh, arelu]) ** 2))(Z)
    np.testing.assert_allclose(g(Z, P2), want, rtol=1e-9)
    acts.pop()  # one item: the other way of the test (refused at the comprehension's list)
    with pytest.raises(SrcadError):
        g(Z, P2)
    assert not np.allclose(first, want)


def test_a_new_length_is_a_new_specialisation():
    if not LONG:
        pytest.skip("the long run (CI keeps one case of the family)")
    g = srcad.grad(f_argument)
    g(Z, P2, [np.tanh, None])
    got = g(Z, P3, [np.tanh, None, relu])
    want = autograd.grad(lambda z: anp.sum(adense(z, P3, [anp.tanh, None, arelu]) ** 2))(Z)
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_second_order():
    if not LONG:
        pytest.skip("a Hessian: the long run")
    h = srcad.hessian(lambda z: f_argument(z, P2, [np.tanh, None]))(Z)
    want = autograd.hessian(lambda z: anp.sum(adense(z, P2, AACTS) ** 2))(Z)
    np.testing.assert_allclose(h, want, rtol=1e-8, atol=1e-10)


def changed_first(z, p, acts):
    acts.append(None)  # in place before the test: its length is not the one passed
    if len(acts) == 1:
        acts = [acts[0], None]
    for j in range(len(p)):
        z = np.dot(z, p[j][0]) + p[j][1]
        if acts[j]:
            z = acts[j](z)
    return np.sum(z ** 2)


def in_a_loop(z, p, acts):
    for j in range(len(p)):
        if len(acts) == 1:  # not a test of the body itself: not fixed
            acts = [acts[0], None]
        z = np.dot(z, p[j][0]) + p[j][1]
        if acts[j]:
            z = acts[j](z)
    return np.sum(z ** 2)


@pytest.mark.parametrize("fn", [changed_first, in_a_loop], ids=lambda f: f.__name__)
def test_still_refused(fn):
    with pytest.raises(SrcadError):
        srcad.grad(fn)(Z, P2, [np.tanh])


def test_the_list_changed_while_the_code_runs():
    if not LONG:
        pytest.skip("the long run (CI keeps one case of the family)")
    acts = [np.tanh, None]

    def f(z, p):
        acts.append(None)  # before the call: the callee was made for two items
        return np.sum(dense(z, p, acts) ** 2)

    with pytest.raises(SrcadError):
        srcad.grad(f)(Z, P2)


def test_check_length():
    check_length([1, 2], 2, ("f.py", 3, "g(x, acts)"))
    with pytest.raises(SrcadError, match="list of 2 items, and it now holds 3"):
        check_length([1, 2, 3], 2, ("f.py", 3, "g(x, acts)"))


def flows(z, params, acts):  # IAF's MakeFlow: the lists read in a loop, lengths unknown here
    total = 0.0
    for param, act in zip(params, acts):
        total = total + np.sum(dense(z, param, act[1]) * dense(z, param, act[0]))
    return total


def aflows(z, params, acts):
    total = 0.0
    for param, act in zip(params, acts):
        total = total + anp.sum(adense(z, param, act[1]) * adense(z, param, act[0]))
    return total


def test_lengths_met_when_the_code_runs():
    if not LONG:
        pytest.skip("the long run (CI keeps one case of the family)")
    acts = [([np.tanh, None], [np.sin, None]), ([None, relu], [np.tanh, np.tanh])]
    aacts = [([anp.tanh, None], [anp.sin, None]), ([None, arelu], [anp.tanh, anp.tanh])]
    got = srcad.grad(lambda z, p: flows(z, [p, p], acts), (0, 1))(Z, P2)
    want = autograd.grad(lambda z, p: aflows(z, [p, p], aacts), (0, 1))(Z, P2)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9)
    np.testing.assert_allclose(got[1][1][0], want[1][1][0], rtol=1e-9)
    np.testing.assert_allclose(got[0], numerical_grad(
        lambda z: flows(z, [P2, P2], acts), (Z,)), rtol=1e-5, atol=1e-7)
