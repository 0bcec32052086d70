"""srcad's own transforms called inside the function differentiated, and their results called:
``y, pullback = srcad.vjp(g, x)`` then ``pullback(dy)``, ``srcad.hvp(g)(x, v)`` and
``srcad.hvp(g, (x,), v)``, ``srcad.jvp(g, (x,), (v,))``, ``srcad.jacobian(g)(x)``,
``srcad.hessian(g)(x)`` (issue 16).

The outer derivative sees through the inner one: a pullback is the gradient of
``sum(g(x) * dy)`` in the primals (``srcad.nested_vjp``), a call of a derivative srcad
differentiates again, in the primals and in ``dy``. Each case is checked with ``grad``,
``value_and_grad``, ``jvp``, ``vjp`` and the Hessian in both modes, against autograd's own nested
``make_vjp``/``grad``/``jacobian`` and central finite differences; then the forms still refused.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


# ---------------------------------------------------------------- inner functions (both engines)


def g(x, w):
    return np.sum(np.sin(x * w) * x)


def ag_g(x, w):
    return anp.sum(anp.sin(x * w) * x)


def vec(x, w):
    return np.tanh(x * w) + x ** 2


def ag_vec(x, w):
    return anp.tanh(x * w) + x ** 2


def with_aux(x, w):
    return np.sum(np.cos(x) * w), x * w


def ag_with_aux(x, w):
    return anp.sum(anp.cos(x) * w), x * w


def ag_vjp(fun, argnum, args, dy):
    """autograd's vjp of ``fun`` in its argument ``argnum`` at ``args``, along ``dy``."""
    return autograd.make_vjp(fun, argnum)(*args)[0](dy)


def ag_hvp(fun, argnum, args, v):
    """H · v of the scalar ``fun`` in its argument ``argnum``, by autograd (reverse over
    reverse: the gradient of <grad fun, v> with ``v`` an argument of its own)."""
    def inner(*a):
        return anp.sum(autograd.grad(fun, argnum)(*a[:-1]) * a[-1])
    return autograd.grad(inner, argnum)(*args, v)


# ---------------------------------------------------------------- the cases: (srcad, autograd)


def vjp_sin(x, w):
    y, pullback = srcad.vjp(np.sin, x)
    return np.sum(pullback(np.ones(3))[0] * y) * w


def ag_vjp_sin(x, w):
    return anp.sum(ag_vjp(anp.sin, 0, (x,), anp.ones(3)) * anp.sin(x)) * w


def vjp_user_wrt_all(x, w):
    y, pb = srcad.vjp(g, x, w)
    dx, dw = pb(1.5)
    return np.sum(dx * x) + dw * y


def ag_vjp_user_wrt_all(x, w):
    return anp.sum(ag_vjp(ag_g, 0, (x, w), 1.5) * x) + ag_vjp(ag_g, 1, (x, w), 1.5) * ag_g(x, w)


def vjp_vector_wrt_one(x, w):
    y, pb = srcad.vjp(vec, x, w, wrt=0)
    return np.sum(pb(np.cos(x)) ** 2) + y[1] * w


def ag_vjp_vector_wrt_one(x, w):
    return anp.sum(ag_vjp(ag_vec, 0, (x, w), anp.cos(x)) ** 2) + ag_vec(x, w)[1] * w


def vjp_by_name(x, w):
    _, pb = srcad.vjp(vec, x, w, wrt="w")
    return pb(x * x) * np.sum(x)


def ag_vjp_by_name(x, w):
    return ag_vjp(ag_vec, 1, (x, w), x * x) * anp.sum(x)


def vjp_lambda_holding(x, w):
    y, pb = srcad.vjp(lambda a: np.tanh(a * w), x)
    first = pb(np.cos(x))[0]
    second = pb(y)[0]  # called twice, with another cotangent
    return np.sum(first ** 2) + np.sum(second * x)


def ag_vjp_lambda_holding(x, w):
    def fn(a):
        return anp.tanh(a * w)
    return anp.sum(ag_vjp(fn, 0, (x,), anp.cos(x)) ** 2) + anp.sum(
        ag_vjp(fn, 0, (x,), fn(x)) * x)


def vjp_has_aux(x, w):
    y, pb, aux = srcad.vjp(with_aux, x, w, wrt=(1,), has_aux=True)
    return pb(2.0)[0] * np.sum(aux) + y


def ag_vjp_has_aux(x, w):
    def value(a, b):
        return ag_with_aux(a, b)[0]
    y, aux = ag_with_aux(x, w)
    return ag_vjp(value, 1, (x, w), 2.0) * anp.sum(aux) + y


def hvp_curried(x, w):
    return np.sum(srcad.hvp(g)(x, w, np.cos(x)) * x)


def ag_hvp_curried(x, w):
    return anp.sum(ag_hvp(ag_g, 0, (x, w), anp.cos(x)) * x)


def hvp_point(x, w):
    return np.sum(srcad.hvp(g, (x, w), x * w) ** 2)


def ag_hvp_point(x, w):
    return anp.sum(ag_hvp(ag_g, 0, (x, w), x * w) ** 2)


def hvp_second_arg(x, w):
    return srcad.hvp(g, wrt=1)(x, w, 2.0) * w + np.sum(x)


def ag_hvp_second_arg(x, w):
    return ag_hvp(ag_g, 1, (x, w), 2.0) * w + anp.sum(x)


def jvp_in_code(x, w):
    y, t = srcad.jvp(g, (x, w), (np.sin(x), 0.5))
    return y * t


def ag_jvp_in_code(x, w):
    t = anp.sum(autograd.grad(ag_g, 0)(x, w) * anp.sin(x)) + autograd.grad(ag_g, 1)(x, w) * 0.5
    return ag_g(x, w) * t


def jacobian_in_code(x, w):
    return np.sum(srcad.jacobian(vec)(x, w) ** 2) * w


def ag_jacobian_in_code(x, w):
    return anp.sum(autograd.jacobian(ag_vec)(x, w) ** 2) * w


def hessian_in_code(x, w):
    h = srcad.hessian(g)(x, w)
    return np.sum(h * h) + h[0, 1] * w


def ag_hessian_in_code(x, w):
    h = autograd.hessian(ag_g)(x, w)
    return anp.sum(h * h) + h[0, 1] * w


CASES = [
    (vjp_sin, ag_vjp_sin),
    (vjp_user_wrt_all, ag_vjp_user_wrt_all),
    (vjp_vector_wrt_one, ag_vjp_vector_wrt_one),
    (vjp_by_name, ag_vjp_by_name),
    (vjp_lambda_holding, ag_vjp_lambda_holding),
    (vjp_has_aux, ag_vjp_has_aux),
    (hvp_curried, ag_hvp_curried),
    (hvp_point, ag_hvp_point),
    (hvp_second_arg, ag_hvp_second_arg),
    (jvp_in_code, ag_jvp_in_code),
    (jacobian_in_code, ag_jacobian_in_code),
    (hessian_in_code, ag_hessian_in_code),
]
IDS = [f.__name__ for f, _ in CASES]
POINTS = [(np.array([0.3, -0.5, 0.8]), 1.3), (np.array([-1.1, 0.4, 0.25]), -0.7)]


def close(a, b, rtol=1e-9, atol=1e-11):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol,
                       atol=atol)


@pytest.mark.parametrize("point", range(len(POINTS)))
@pytest.mark.parametrize(("f", "mirror"), CASES, ids=IDS)
def test_first_order(f, mirror, point):
    x, w = POINTS[point]
    assert close(f(x, w), mirror(x, w), rtol=1e-12)
    want = autograd.grad(mirror, (0, 1))(x, w)
    got = srcad.grad(f, wrt=(0, 1))(x, w)
    for a, b, n in zip(got, want, numerical_grad(f, (x, w), (0, 1))):
        assert close(a, b) and close(a, n, rtol=1e-6, atol=1e-7)
    value, (dx, dw) = srcad.value_and_grad(f, wrt=(0, 1))(x, w)
    assert close(value, mirror(x, w), rtol=1e-12) and close(dx, want[0]) and close(dw, want[1])
    u = np.array([0.4, -1.2, 0.7])
    tangent = srcad.jvp(f, (x, w), (u, -0.3))[1]
    assert close(tangent, np.dot(want[0], u) - 0.3 * want[1])
    _, pullback = srcad.vjp(f, x, w)
    assert all(close(a, 2.5 * b) for a, b in zip(pullback(2.5), want))


@pytest.mark.parametrize(("f", "mirror"), CASES, ids=IDS)
def test_second_order(f, mirror):
    x, w = POINTS[0]
    want = autograd.hessian(mirror)(x, w)
    assert close(srcad.hessian(f)(x, w), want, rtol=1e-8, atol=1e-10)
    assert close(srcad.hessian(f, mode="rev")(x, w), want, rtol=1e-8, atol=1e-10)
    mixed = autograd.jacobian(autograd.grad(mirror, 0), 1)(x, w)
    assert close(srcad.jacobian(srcad.grad(f, wrt=0), wrt=1)(x, w), mixed, rtol=1e-8,
                 atol=1e-10)


def test_pullback_reads_like_the_gradient():
    """The generated code calls the pullback's derivative once, split for the sweeps."""
    def f(x):
        y, pullback = srcad.vjp(np.sin, x)
        return pullback(1.0)[0] * y

    text = srcad.source(srcad.grad(f))
    assert "derivative_fwd(pullback_sin" in text and "derivative_bwd(" in text
    assert srcad.grad(f)(0.7) == pytest.approx(np.cos(1.4), rel=1e-12)
    assert srcad.grad(srcad.grad(f))(0.7) == pytest.approx(-2 * np.sin(1.4), rel=1e-12)


# ---------------------------------------------------------------- what stays refused


def two_outputs(x):
    return np.sin(x), np.cos(x)


def vjp_of_tuple_output(x):
    _, pb = srcad.vjp(two_outputs, x)
    return pb((1.0, 1.0))[0]


def vjp_wrong_cotangent(x):
    _, pb = srcad.vjp(np.sin, x)
    return np.sum(pb(1.0)[0])


def hvp_point_a_name(x, v):
    return np.sum(srcad.hvp(g, x, v))


def vjp_bad_wrt(x):
    _, pb = srcad.vjp(np.sin, x, wrt=3)
    return pb(1.0)


def line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


def test_tuple_output_refused_at_the_call():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(vjp_of_tuple_output)(0.3)
    assert info.value.lineno == line_of(vjp_of_tuple_output, "srcad.vjp(")
    assert "whose output is a tuple" in info.value.message
    assert "np.concatenate" in info.value.hint


def test_cotangent_shaped_unlike_the_value_refused():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(vjp_wrong_cotangent)(np.array([0.3, 0.4]))
    assert "the cotangent has shape ()" in info.value.message
    assert info.value.lineno == line_of(vjp_wrong_cotangent, "srcad.vjp(")


def test_hvp_point_not_a_tuple_written_here_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(hvp_point_a_name)(np.array([0.3, 0.4]), np.ones(2))
    assert info.value.lineno == line_of(hvp_point_a_name, "srcad.hvp(")
    assert "srcad.hvp(f, (x,), v)" in info.value.hint


def test_wrt_naming_no_argument_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(vjp_bad_wrt)(0.3)
    assert info.value.lineno == line_of(vjp_bad_wrt, "srcad.vjp(")
    assert "wrt=3" in info.value.message and "position among the arguments" in info.value.hint
