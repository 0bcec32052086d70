"""Every transformed function is made once per specialisation: ``vjp`` pullbacks, ``jvp``,
``jacobian``/``jacrev``/``jacfwd``, ``hessian`` and ``hvp`` called a second time with
arguments of the same kinds run no part of the pipeline again (counted on
``srcad.pipeline``'s entry points), and still give the right answer: checked against finite
differences and autograd. A global the code read bound to another object, or an argument of
another kind (float, vector, matrix, float32), gives a fresh, correct answer.
"""

import math
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad
from srcad import pipeline

SCALE = 1.5  # read by the functions below; the tests rebind it


def elementwise(x):
    return np.sin(x) * x + SCALE * x


def reduce_sum(x):
    return np.sum(np.tanh(x) * x) * SCALE


def two_args(x, w):
    return np.sum(np.exp(w * x)) + np.sum(x * x)


def loop_scalar(x):
    total = 0.0
    for k in range(3):
        total = total + math.sin(x * k) * SCALE
    return total


def _twin(f):
    """``f`` with autograd's NumPy for NumPy and ``math`` (autograd's twin, for the expected
    values), made when asked: it reads SCALE as the test has just bound it."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": anp, "math": anp},
                              f.__name__)


@pytest.fixture
def runs(monkeypatch):
    """How many times each pipeline entry point ran."""
    counts = {"adjoint": 0, "tangent": 0, "read": 0, "to_ssa": 0}
    for name in counts:
        original = getattr(pipeline, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(pipeline, name, counted)
    yield counts
    srcad.clear_cache()


def _arg(kind, rng):
    if kind == "float":
        return float(rng.uniform(0.2, 0.9))
    if kind == "vector":
        return rng.uniform(0.2, 0.9, size=3)
    if kind == "matrix":
        return rng.uniform(0.2, 0.9, size=(2, 2))
    return rng.uniform(0.2, 0.9, size=3).astype(np.float32)


def _calls(f, args):
    """Each API applied to ``f`` at ``args`` (w.r.t. the first argument): name -> thunk."""
    x = args[0]
    rest = args[1:]
    scalar_out = f is not elementwise
    calls = {
        "vjp": lambda: srcad.vjp(f, *args, wrt=0)[1](np.ones(np.shape(f(*args)))
                                                     if np.shape(f(*args)) else 1.0),
        "jvp": lambda: srcad.jvp(f, args, (np.ones(np.shape(x)) if np.shape(x) else 1.0,),
                                 wrt=(0,))[1],
        "jacobian": lambda: srcad.jacobian(f)(*args),
        "jacrev": lambda: srcad.jacrev(f)(*args),
        "jacfwd": lambda: srcad.jacfwd(f)(*args),
    }
    if scalar_out:
        calls["hessian"] = lambda: srcad.hessian(f)(*args)
        calls["hessian-rev"] = lambda: srcad.hessian(f, mode="rev")(*args)
        calls["hvp"] = lambda: srcad.hvp(f, tuple(args), np.ones(np.shape(x))
                                         if np.shape(x) else 1.0)
    del rest
    return calls


def _expected(name, f, args):
    """What autograd says (its jacobian/hessian have srcad's shapes)."""
    a = _twin(f)
    x = args[0]
    ones = np.ones(np.shape(x)) if np.shape(x) else 1.0
    if name == "vjp":
        return autograd.grad(lambda *xs: anp.sum(a(*xs)))(*args)
    if name == "jvp":
        return np.tensordot(autograd.jacobian(a)(*args), ones, axes=np.ndim(x)) \
            if np.ndim(x) else autograd.jacobian(a)(*args) * ones
    if name in ("jacobian", "jacrev", "jacfwd"):
        return autograd.jacobian(a)(*args)
    if name.startswith("hessian"):
        return autograd.hessian(a)(*args)
    h = autograd.hessian(a)(*args)
    return np.tensordot(h, ones, axes=np.ndim(x)) if np.ndim(x) else h * ones


CASES = [(f, kinds) for f, kinds in [
    (elementwise, ("float",)), (elementwise, ("vector",)), (elementwise, ("matrix",)),
    (reduce_sum, ("vector",)), (reduce_sum, ("matrix",)), (reduce_sum, ("float32",)),
    (two_args, ("vector", "vector")), (two_args, ("float", "vector")),
    (loop_scalar, ("float",))]]
CASES = sample_by(CASES, lambda c: c[0].__name__, 2)  # CI: each function, half its kinds
NAMES = ["vjp", "jvp", "jacobian", "jacrev", "jacfwd", "hessian", "hessian-rev", "hvp"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("f", "kinds"), CASES,
                         ids=[f"{f.__name__}-{'-'.join(k)}" for f, k in CASES])
def test_second_call_does_not_transform(runs, f, kinds, name):
    rng = np.random.default_rng(len(name) + 7 * len(kinds))
    args = tuple(_arg(k, rng) for k in kinds)
    calls = _calls(f, args)
    if name not in calls:
        pytest.skip("a Hessian needs a scalar output")
    call = calls[name]
    first = call()
    before = dict(runs)
    assert before["adjoint"] + before["tangent"] > 0, "the first call made nothing"
    second = call()
    assert runs == before, f"{name}: the second call ran the pipeline again: {runs} vs {before}"
    np.testing.assert_allclose(second, first, rtol=1e-12)
    want = _expected(name, f, tuple(np.asarray(a, dtype=float) if np.ndim(a) else a
                                    for a in args))
    tol = 1e-4 if kinds[0] == "float32" else 1e-8
    np.testing.assert_allclose(np.asarray(second, dtype=float), want, rtol=tol, atol=tol)
    if name in ("vjp", "jacobian", "jacrev", "jacfwd") and kinds[0] != "float32":
        # finite differences of the summed output: the pullback of ones, the Jacobian's
        # sum over its output axes
        fd = numerical_grad(lambda *xs: float(np.sum(f(*xs))), args)
        out_axes = np.ndim(second) - np.ndim(args[0])
        summed = second if name == "vjp" else np.sum(second, axis=tuple(range(out_axes)))
        np.testing.assert_allclose(summed, fd, rtol=1e-5, atol=1e-7)


def test_made_jacobian_reused_across_calls(runs):
    jac = srcad.jacobian(reduce_sum)
    x = np.linspace(0.1, 0.9, 4)
    jac(x)
    before = dict(runs)
    for k in range(5):
        got = jac(x + k)
        np.testing.assert_allclose(got, numerical_grad(reduce_sum, (x + k,)), rtol=1e-6)
    assert runs == before


@pytest.mark.parametrize("name", NAMES)
def test_rebound_global_gives_fresh_answer(runs, name, monkeypatch):
    x = np.array([0.3, 0.6, 0.8])
    f = reduce_sum if name.startswith("hess") or name == "hvp" else elementwise
    first = _calls(f, (x,))[name]()
    np.testing.assert_allclose(first, _expected(name, f, (x,)), rtol=1e-8, atol=1e-10)
    # another float: the same code reads the new value when it runs
    monkeypatch.setattr(__import__(__name__), "SCALE", 2.5)
    second = _calls(f, (x,))[name]()
    np.testing.assert_allclose(second, _expected(name, f, (x,)), rtol=1e-8, atol=1e-10)
    # a 0-d array now: the code is made again for it
    monkeypatch.setattr(__import__(__name__), "SCALE", np.array(2.0))
    made = runs["adjoint"] + runs["tangent"]
    third = _calls(f, (x,))[name]()
    np.testing.assert_allclose(third, _expected(name, f, (x,)), rtol=1e-8, atol=1e-10)
    assert runs["adjoint"] + runs["tangent"] > made


@pytest.mark.parametrize("name", ["jacobian", "jacfwd", "hessian", "hvp", "jvp", "vjp"])
def test_changed_argument_kind_gives_fresh_answer(runs, name):
    f = reduce_sum if name in ("hessian", "hvp") else elementwise
    made = []
    for kind in ("float", "vector", "matrix", "float32", "vector"):
        x = _arg(kind, np.random.default_rng(3))
        got = _calls(f, (x,))[name]()
        want = _expected(name, f, (np.asarray(x, dtype=float) if np.ndim(x) else x,))
        tol = 1e-4 if kind == "float32" else 1e-8
        np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=tol, atol=tol)
        made.append(runs["adjoint"] + runs["tangent"])
    assert made[-1] == made[-2], "a kind seen before was made again"


def test_jacobian_of_scalar_then_vector_output_same_kinds():
    """The reverse Jacobian takes grad for a scalar output and rows of vjp
    otherwise; one function whose output is a scalar or not depending on a value."""
    jac = srcad.jacobian(switching)
    for n in (1, 3, 1, 3):
        x = np.linspace(0.2, 0.8, 3)
        got = jac(x, n)
        want = autograd.jacobian(lambda v, n=n: a_switching(v, n))(x)
        np.testing.assert_allclose(got, want, rtol=1e-9)


def switching(x, n):
    if n == 1:
        return np.sum(x * x)
    return x * x * n


def a_switching(x, n):
    if n == 1:
        return anp.sum(x * x)
    return x * x * n
