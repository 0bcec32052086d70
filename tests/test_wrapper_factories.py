"""Functions that a helper makes and returns with ``*args``/``**kwargs`` (decorator factories,
wrappers: ``sym_arg(fun, 1)(x, A)``), called in the function differentiated (found in a peer's
test suite: a wrapper symmetrising one argument of a density was refused as "a function made
and returned at run time").

The returned function is lifted like any closure srcad converts (srcad.frontend.closures), its
``*args`` and ``**kwargs`` kept: the call fixes how many. Its body commonly copies ``args`` into
a list and replaces one item at an index it was given (``args[argnum] = ...``): a list written at
an index srcad does not know keeps its length, so ``fun(*args)`` still spreads item by item.
A generated family: how the wrapper changes the call (one argument, the result, keywords passed
through, two wrappers stacked, ``functools.wraps``), which argument, and where the wrapper is
made (in the function, in a helper), against finite differences and autograd, with grad,
value_and_grad, jvp and a Hessian in both modes.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

_HELPERS = '''
import functools


def quad(x, A, scale=1.0):
    return scale * (x @ A @ x) + np.sum(np.sin(A))


def quad_ax(A, x, scale=1.0):
    return quad(x, A, scale)


def sym_arg(fun, argnum):
    def T(X):
        return np.swapaxes(X, -1, -2)

    def symmetrize(X):
        return 0.5 * (X + T(X))

    def symmetrized(*args, **kwargs):
        args = list(args)
        args[argnum] = symmetrize(args[argnum])
        return fun(*args, **kwargs)
    return symmetrized


def scaled(fun, c):
    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        return c * fun(*args, **kwargs)
    return wrapper


def squared_arg(fun, argnum):
    def wrapper(*args):
        a = list(args)
        a[argnum] = a[argnum] ** 2
        return fun(*a)
    return wrapper


def with_scale(fun, s):
    def wrapper(*args, **kwargs):
        return fun(*args, scale=s, **kwargs)
    return wrapper
'''
_CALLS = {  # {q}({a}): quad(x, A) for k = 1, quad_ax(A, x) for k = 0 (A is argument k)
    "sym": "sym_arg({q}, {k})({a})",
    "sym_named": "g = sym_arg({q}, {k})\n    return g({a})",
    "scaled": "scaled({q}, 2.5)({a})",
    "scaled_keyword": "scaled({q}, 0.5)({a}, scale=3.0)",
    "squared": "squared_arg({q}, {k})({a})",
    "squared_other": "squared_arg({q}, {o})({a})",
    "stacked": "scaled(sym_arg({q}, {k}), 1.5)({a})",
    "keywords": "with_scale({q}, 2.0)({a})",
}
_CASES = list(itertools.product(_CALLS, (0, 1)))


def _program(tmp_path, call, k):
    body = _CALLS[call].format(k=k, o=1 - k, q="quad" if k else "quad_ax",
                               a="x, A" if k else "A, x")
    text = _HELPERS + "\n\ndef f(A, x):\n    " + ("return " if "return" not in body else "") \
        + body + "\n"
    return program_files.load(tmp_path, f"wrap_{call}_{k}", text, (np, anp))


@pytest.mark.parametrize("call, k", _CASES, ids=[f"{c}-{k}" for c, k in _CASES])
def test_a_wrapper_made_and_called(tmp_path, call, k):
    f, f_autograd = _program(tmp_path, call, k)
    rs = np.random.RandomState(k + len(call))
    A, x = rs.randn(3, 3), rs.randn(3)
    for wrt in (0, 1):
        want = autograd.grad(f_autograd, wrt)(A, x)
        got = srcad.grad(f, wrt=wrt)(A, x)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (wrt, got, want)
        value, g = srcad.value_and_grad(f, wrt=wrt)(A, x)
        assert np.isclose(value, f(A, x), rtol=1e-12) and np.allclose(g, want, rtol=1e-10)
        args = [A, x]
        step = np.zeros_like(args[wrt])
        step.flat[1] = 1e-6
        plus, minus = list(args), list(args)
        plus[wrt], minus[wrt] = args[wrt] + step, args[wrt] - step
        fd = (f(*plus) - f(*minus)) / 2e-6
        assert np.isclose(want.flat[1], fd, rtol=1e-5, atol=1e-7)
        tangent = [np.zeros_like(A), np.zeros_like(x)]
        tangent[wrt] = step / 1e-6
        jvp = srcad.jvp(f, (A, x), tuple(tangent))[1]
        assert np.isclose(jvp, np.sum(want * tangent[wrt]), rtol=1e-9, atol=1e-12)
    expected = autograd.hessian(f_autograd, 1)(A, x)
    for mode in ("rev", "fwd"):
        got = srcad.hessian(f, wrt=1, mode=mode)(A, x)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), mode


_WRITES = {  # a list of known length written at an index srcad does not know, then spread
    "param": "a = list(args)\n    a[k] = a[k] * 2.0\n    return quad(*a)",
    "computed": "a = [x, A]\n    j = int(k > 0)\n    a[j] = np.tanh(a[j])\n    return quad(*a)",
    "twice": "a = list(args)\n    a[k] = a[k] * 2.0\n    a[1 - k] = a[1 - k] + 1.0\n"
             "    return quad(*a)",
    "negative": "a = list(args)\n    a[-1 - k] = a[-1 - k] * 3.0\n    return quad(*a)",
}


@pytest.mark.parametrize("write, k", list(itertools.product(_WRITES, (0, 1))))
def test_a_list_written_at_a_computed_index_spreads(tmp_path, write, k):
    text = _HELPERS + "\n\ndef g(k, x, A, *args):\n    " + _WRITES[write] + \
        "\n\n\ndef f(A, x):\n    return g(" + str(k) + ", x, A, x, A)\n"
    f, f_autograd = program_files.load(tmp_path, f"spread_{write}_{k}", text, (np, anp))
    rs = np.random.RandomState(k)
    A, x = rs.randn(3, 3), rs.randn(3)
    for wrt in (0, 1):
        want = autograd.grad(f_autograd, wrt)(A, x)
        got = srcad.grad(f, wrt=wrt)(A, x)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (wrt, got, want)
    expected = autograd.hessian(f_autograd, 1)(A, x)
    assert np.allclose(srcad.hessian(f, wrt=1)(A, x), expected, rtol=1e-9, atol=1e-12)


def test_a_spread_list_grown_after_the_write(tmp_path):
    """``a.append(v)`` after ``a[k] = v``: the length is known only when the code runs, so
    the spread is a run-time call (srcad.runtime.spread_calls), differentiated through."""
    text = _HELPERS + "\n\ndef cubic(x, A, c):\n    return quad(x, A) * c\n\n\n" \
        "def f(A, x):\n    a = [x, A]\n    k = int(x[0] > 0)\n" \
        "    a[k] = a[k] * 2.0\n    a.append(1.5)\n    return cubic(*a)\n"
    f = program_files.load(tmp_path, "grown", text, (np,))
    A, x = np.random.RandomState(3).randn(3, 3), np.array([0.4, -0.2, 0.9])
    for wrt in (0, 1):
        got = srcad.grad(f, wrt=wrt)(A, x)
        arg = (A, x)[wrt]
        fd = np.zeros(arg.shape)
        for i in np.ndindex(arg.shape):
            step = np.zeros(arg.shape)
            step[i] = 1e-6
            plus = (A + step, x) if wrt == 0 else (A, x + step)
            minus = (A - step, x) if wrt == 0 else (A, x - step)
            fd[i] = (f(*plus) - f(*minus)) / 2e-6
        assert np.allclose(got, fd, rtol=1e-5, atol=1e-7), (wrt, got, fd)
