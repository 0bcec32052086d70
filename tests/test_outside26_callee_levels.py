"""Where the run-time operand check (``srcad/analysis/operand_checks.py``) is not written for
a callee's result (outside26): a function of the user's every ``return`` of which is a number
or an array made by operators or NumPy (``result_level``; a recursive call assumed so, then
confirmed), ``a.T``, ``a.ravel()`` of an array, a loop's value made of such, the gradient
``srcad.grad`` makes with respect to an array. Where the result may be an object of the user's
(an attribute read, a mutual recursion reaching one) the check stays and refuses such an
object when the code runs. Each case's gradient against central differences and
``srcad.tape``."""

from __future__ import annotations

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_merge25_operand_checks import Holder, Scaled  # the same user classes

import srcad
from srcad import tape
from srcad.errors import SrcadError

W = np.array([0.3, -0.7, 1.1])


def numbers(a):
    return np.sin(a) * 2.0 + a.T


def det_like(a, n):
    if n == 0:
        return a[0]
    return a[n] * det_like(a, n - 1) + 1.0


def loop_of(a):
    s = a * 0.0
    for i in range(3):
        s = s + np.cos(a).ravel() * (i + 1.0)
    return s


def attribute(m):
    return m.v


def even(m, n):
    if n == 0:
        return m.v
    return odd(m, n - 1)


def odd(m, n):
    return even(m, n - 1)


def f_numbers(w, m):
    return np.sum(numbers(w) * w)


def f_recursive(w, m):
    return det_like(w, 2) * w[0]


def f_loop(w, m):
    return np.sum(loop_of(w) * w)


def f_gradient(w, m):
    g = srcad.grad(lambda a: np.sum(a ** 3))
    return np.sum(g(w) * w)


def f_attribute(w, m):
    return np.sum(attribute(m) * w)


def f_mutual(w, m):
    return np.sum(even(m, 2) * w)


CHECKED = {f_numbers: 0, f_recursive: 0, f_loop: 0, f_gradient: 0, f_attribute: 1,
           f_mutual: 1}


@pytest.mark.parametrize("f", list(CHECKED), ids=lambda f: f.__name__)
def test_checks_written_for_callee_results(f):
    m = Holder(np.array([1.0, 2.0, 3.0]))
    g = srcad.grad(f)
    np.testing.assert_allclose(g(W.copy(), m), numerical_grad(lambda w: f(w, m), (W.copy(),)),
                               rtol=1e-6, atol=1e-8)
    if f is not f_gradient:  # (the tape does not run srcad.grad inside)
        np.testing.assert_allclose(g(W.copy(), m), tape.grad(f)(W.copy(), m), rtol=1e-10)
    assert srcad.source(g).count("check_operand") == CHECKED[f], srcad.source(g)


@pytest.mark.parametrize("f", [f_attribute, f_mutual], ids=lambda f: f.__name__)
def test_an_object_a_callee_may_return_is_refused_when_run(f):
    with pytest.raises(SrcadError, match="object of your class Scaled"):
        srcad.grad(f)(W.copy(), Holder(Scaled(2.0)))


# A merge (phi) of a value that may be an object of the user's: main (merge25) read every
# merge as "no object" (its sources were never looked at: ir.atoms_in of a list is empty), so
# ``u * w`` below had no check and gave the gradient of arithmetic on numbers: [2, 2, 2]
# for [1.2, -2.8, 4.4] with a Scaled whose * is nonlinear. The merge is now a number or an
# array only when every source is.
class Squared:
    def __init__(self, a):
        self.a = a

    def __mul__(self, other):
        return self.a * other * other

    __rmul__ = __mul__


def merge_if(w, m, flag):
    if flag > 0:
        u = m.v
    else:
        u = w
    return np.sum(u * w)


def merge_loop(w, m, flag):
    u = w
    for i in range(2):
        if i == 1 and flag > 0:
            u = m.v
    return np.sum(u * w)


def merge_call(w, m, flag):
    u = attribute(m) if flag > 0 else w * 2.0
    return np.sum(u * w)


def merge_items(w, m, flag):
    xs = [m.v, w]
    u = xs[0] if flag > 0 else xs[1]
    return np.sum(w * u)


@pytest.mark.parametrize("f", [merge_if, merge_loop, merge_call, merge_items],
                         ids=lambda f: f.__name__)
def test_a_merge_that_may_be_an_object_is_checked(f):
    for flag in (1.0, -1.0):
        m = Holder(np.array([1.0, 2.0, 3.0]))
        g = srcad.grad(f)(W.copy(), m, flag)
        fd = numerical_grad(lambda w, m=m, flag=flag: f(w, m, flag), (W.copy(),))
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, tape.grad(f)(W.copy(), m, flag), rtol=1e-10)
    with pytest.raises(SrcadError, match="object of your class Squared"):
        srcad.grad(f)(W.copy(), Holder(Squared(2.0)), 1.0)
