"""Checks shared by the tests of calls inside differentiated code (test_calls_soundness.py,
test_higher_order_python.py): a generated family of cases around each hand-written one, the
gradient against finite differences and the reference tape, and a refusal at its line."""

import inspect

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import tape


def family(cases, scales):
    """Each case ``(function, arguments, wrt, flag)`` at nearby points (the float and array
    arguments times each scale), with ids."""
    cases = [(f, tuple(a * s if isinstance(a, (float, np.ndarray)) else a for a in args), w, o)
             for f, args, w, o in cases for s in scales]
    return cases, [f"{getattr(c[0], '__name__', 'f')}-{i}" for i, c in enumerate(cases)]


def close(a, b, rel, abs_):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(close(x, y, rel, abs_) for x, y in zip(a, b))
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rel,
                       atol=abs_)


def check_gradient(func, args, wrt, taped):
    """srcad's gradient against central differences and (``taped``) the reference tape; the
    value of value_and_grad is the function's own."""
    ours = srcad.grad(func, wrt=wrt)(*args)
    assert close(ours, numerical_grad(func, args, wrt), 1e-6, 1e-8)
    if taped:
        assert close(ours, tape.grad(func, wrt=wrt)(*args), 1e-10, 1e-12)
    value, both = srcad.value_and_grad(func, wrt=wrt)(*args)
    assert value == pytest.approx(func(*args), rel=1e-12)  # the decorated value, not the inner
    assert close(both, ours, 1e-12, 0)


def check_second_derivative(func, args, wrt):
    """srcad's second derivative against central differences of its first."""
    d1 = srcad.grad(func, wrt=wrt)
    d2 = srcad.grad(d1, wrt=wrt)(*args)
    assert d2 == pytest.approx(numerical_grad(d1, args, wrt), rel=1e-5, abs=1e-6)


def line_of(func, marker):
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def check_refused(func, args, cls, where, marker, hint):
    """``srcad.grad(func)(*args)`` raises ``cls`` at the line of ``where`` holding ``marker``,
    with ``hint`` in its hint."""
    with pytest.raises(cls) as info:
        srcad.grad(func)(*args)
    assert info.value.lineno == line_of(where, marker)
    assert info.value.filename == inspect.getsourcefile(where)
    assert hint in info.value.hint


def check_first_order(f, fa, x, t):
    """``f``'s gradient at the array ``x`` against central differences and autograd (``fa``,
    the same program on autograd.numpy); value_and_grad's value and gradient; jvp along ``t``
    against the gradient's dot product."""
    import autograd

    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    _, tangent = srcad.jvp(f, (x,), (t,))
    assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)
