"""Round 29: a function a callee returns, chosen among its lambdas on several paths (dtak/rrr's
``input_gradients(params, y=None, scale='log')``: ``if scale == 'log': p = lambda x: ...
else: ...; ...; return elementwise_grad(p2)``, called at once in the objective it
differentiates). The call ``F(a)(b)`` is read as a copy of ``F`` calling the derivative where
it returns it (srcad.frontend.applied_calls); the choice is made by the string the call passes
or defaults (a fixed parameter; ``==`` between constants folds the test:
srcad.frontend.fixed_tests.constant_way). Second order, checked against central differences
and autograd; forms srcad cannot read so stay refused.
"""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.tools.check import numerical_grad
from tests.sampling import LONG


def made(np, grad):
    def gradient_of(W, kind=None, scale="log"):
        if scale == "log":
            p = lambda x: np.sum(np.log1p(np.exp(W * x)))  # noqa: E731
        else:
            p = lambda x: np.sum(np.exp(W * x) * 0.1)  # noqa: E731
        if kind is None:
            kind = "sum" if scale == "log" else "sq"
        if kind == "sum":
            p2 = p
        elif kind != "sq":
            p2 = lambda x: np.sum(np.cos(W * x))  # noqa: E731
        else:
            p2 = lambda x: np.sum(np.sin(W * x) ** 2)  # noqa: E731
        return grad(p2)

    def defaults(W, x):
        return np.sum(W * gradient_of(W)(x) ** 2)

    def linear(W, x):
        return np.sum(gradient_of(W, scale="lin")(x) ** 2)

    def given(W, x):
        return np.sum(gradient_of(W, "sq", "lin")(x) * W)

    def keywords(W, x):
        return np.sum(gradient_of(W, scale="log", kind="cos")(x) * W)

    return [defaults, linear, given, keywords]


FUNCS, AFUNCS = made(np, srcad.grad), made(anp, autograd.grad)
W, X = np.array([0.4, -1.1, 0.8]), 0.7


@pytest.mark.parametrize("k", range(4) if LONG else [], ids=lambda k: FUNCS[k].__name__)
def test_second_order_through_the_chosen_lambda(k):
    got = srcad.grad(FUNCS[k])(W, X)
    np.testing.assert_allclose(got, autograd.grad(AFUNCS[k])(W, X), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, numerical_grad(lambda w: FUNCS[k](w, X), (W,)),
                               rtol=1e-5, atol=1e-8)


def calls_a_lambda(W, kind="sq"):
    p = lambda x: np.sum(np.tanh(W * x))  # noqa: E731
    if kind == "sq":
        p2 = lambda x: p(x) ** 2  # noqa: E731 - a lambda calling a lambda: refused
    else:
        p2 = p
    return srcad.grad(p2)


def applied_to_a_call(W, x):
    return np.sum(calls_a_lambda(W, "id")(np.sin(x)) * W)  # b computed: not read so


def lambda_in_lambda(W, x):
    return np.sum(calls_a_lambda(W)(x) * W)


@pytest.mark.parametrize("fn", [applied_to_a_call, lambda_in_lambda], ids=lambda f: f.__name__)
def test_still_refused(fn):
    with pytest.raises(SrcadError):
        srcad.grad(fn)(W, X)


def mode_tests(x, mode="a", flag=None):
    s = 0.0
    for _ in range(3):
        if mode == "a" and flag is None:
            s = s + x * x
        else:
            s = s + 10 * x
        mode = "b"  # rebound in the loop: the test reads each value
    return s


def calls_mode_tests(x):
    return mode_tests(x) + mode_tests(x, "b")


def test_constant_tests_in_loops():
    np.testing.assert_allclose(srcad.grad(calls_mode_tests)(1.5), 3.0 + 20 + 30)


def test_new_defaults_make_the_code_again():
    if not LONG:
        pytest.skip("two second-order transforms: the long run")
    fs, afs = made(np, srcad.grad), made(anp, autograd.grad)
    first = srcad.grad(fs[0])(W, X)
    for f in (fs[0], afs[0]):
        inner = [c.cell_contents for c in f.__closure__
                 if getattr(c.cell_contents, "__name__", "") == "gradient_of"][0]
        inner.__defaults__ = (None, "lin")
    again = srcad.grad(fs[0])(W, X)
    assert not np.allclose(first, again)
    np.testing.assert_allclose(again, autograd.grad(afs[0])(W, X), rtol=1e-9, atol=1e-12)
