"""autograd's way of giving a function its derivative, unchanged: ``@primitive``,
``defvjp(fn, vjp_maker, ...)`` and ``defjvp(fn, jvp_maker, ...)`` from ``srcad.extend``.

Each rule here is registered twice, with the same makers: in srcad and in autograd (the second
engine); gradients are checked against both and against finite differences of the function.
"""

import math

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.extend import defjvp, defvjp, primitive

autograd = pytest.importorskip("autograd")
from autograd.extend import defjvp as ag_defjvp  # noqa: E402
from autograd.extend import defvjp as ag_defvjp  # noqa: E402
from autograd.extend import primitive as ag_primitive  # noqa: E402


def _lse(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def _lse_vjp(ans, x):
    return lambda g: np.full(x.shape, g) * np.exp(x - np.full(x.shape, ans))


def _scaled(x, y, *, power=2.0):
    return np.sum(x**power) * y


def _scaled_vjp_x(ans, x, y, *, power=2.0):
    return lambda g: g * y * power * x ** (power - 1)


def _scaled_vjp_y(ans, x, y, *, power=2.0):
    return lambda g: g * np.sum(x**power)


def _softplus(x):
    return math.log1p(math.exp(x))


def exp(ans, x):  # a maker whose name is a NumPy function's: the template must call *this*
    return lambda g: g / (1.0 + math.exp(-x))


#: name -> (function, vjp makers, jvp makers, argnums)
RULES = {
    "lse": (_lse, (_lse_vjp,), (lambda t, ans, x: np.sum(t * np.exp(x - ans)),), None),
    "scaled": (_scaled, (_scaled_vjp_x, _scaled_vjp_y),
               (lambda t, ans, x, y, power=2.0: np.sum(t * y * power * x ** (power - 1)),
                lambda t, ans, x, y, power=2.0: t * np.sum(x**power)), None),
    "softplus": (_softplus, (exp,), (lambda t, ans, x: t / (1.0 + math.exp(-x)),), None),
}


def _pair(key):
    """The function as srcad's primitive and as autograd's, each with the rule."""
    fn, vjps, jvps, argnums = RULES[key]
    ours = primitive(fn)  # fn itself: the rule is srcad's for fn
    defvjp(ours, *vjps, argnums=argnums)
    defjvp(ours, *jvps, argnums=argnums)
    theirs = ag_primitive(fn)  # a wrapper of autograd's, with autograd's rule
    ag_defvjp(theirs, *vjps)
    ag_defjvp(theirs, *jvps)
    return ours, theirs


LSE, AG_LSE = _pair("lse")
SCALED, AG_SCALED = _pair("scaled")
SOFTPLUS, AG_SOFTPLUS = _pair("softplus")


def lse_of_squares(y):
    return LSE(y**2) * 2.0 + np.sum(y)


def ag_lse_of_squares(y):
    return AG_LSE(y**2) * 2.0 + autograd.numpy.sum(y)


def scaled_model(x, y):
    return SCALED(np.sin(x), y * y) + SCALED(x, y, power=3.0)


def ag_scaled_model(x, y):
    anp = autograd.numpy
    return AG_SCALED(anp.sin(x), y * y) + AG_SCALED(x, y, power=3.0)


def softplus_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + SOFTPLUS(x * i - 1.0)
    return s


def ag_softplus_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + AG_SOFTPLUS(x * i - 1.0)
    return s


RNG = np.random.default_rng(7)
POINTS = [RNG.normal(size=n) for n in (1, 3, 6)]


@pytest.mark.parametrize("y", POINTS, ids=lambda y: f"n={y.size}")
def test_vjp_maker_gives_autograds_gradient(y):
    ours = srcad.grad(lse_of_squares)(y)
    np.testing.assert_allclose(ours, autograd.grad(ag_lse_of_squares)(y), rtol=1e-12)
    np.testing.assert_allclose(ours, numerical_grad(lse_of_squares, (y,), 0), rtol=1e-6)


@pytest.mark.parametrize("x", POINTS, ids=lambda y: f"n={y.size}")
@pytest.mark.parametrize("y", [0.7, -1.3])
def test_makers_for_two_arguments_and_a_keyword(x, y):
    ours = srcad.grad(scaled_model, wrt=("x", "y"))(x, y)
    theirs = autograd.grad(ag_scaled_model, (0, 1))(x, y)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ours[1], numerical_grad(scaled_model, (x, y), 1), rtol=1e-6)


@pytest.mark.parametrize("x", [-0.8, 0.3, 1.1])
@pytest.mark.parametrize("n", [1, 4])
def test_maker_named_like_a_numpy_function_is_the_maker(x, n):
    ours = srcad.grad(softplus_loop)(x, n)
    assert ours == pytest.approx(autograd.grad(ag_softplus_loop)(x, n), rel=1e-12)
    assert ours == pytest.approx(numerical_grad(softplus_loop, (x, n), 0), rel=1e-6)


@pytest.mark.parametrize("y", POINTS, ids=lambda y: f"n={y.size}")
def test_jvp_maker_gives_the_directional_derivative(y):
    v = RNG.normal(size=y.size)
    _, tangent = srcad.jvp(lse_of_squares, (y,), (v,))
    assert tangent == pytest.approx(float(numerical_grad(lse_of_squares, (y,), 0) @ v),
                                    rel=1e-6)
    assert tangent == pytest.approx(float(srcad.grad(lse_of_squares)(y) @ v), rel=1e-12)


def test_jvp_makers_of_two_arguments():
    x, y = POINTS[1], 0.4
    vx, vy = RNG.normal(size=x.size), 0.9
    _, tangent = srcad.jvp(scaled_model, (x, y), (vx, vy))
    gx, gy = srcad.grad(scaled_model, wrt=("x", "y"))(x, y)
    assert tangent == pytest.approx(float(gx @ vx + gy * vy), rel=1e-12)


def only_second(x, y):
    return x * y + 1.0


ONLY_SECOND = primitive(only_second)
defvjp(ONLY_SECOND, None, lambda ans, x, y: lambda g: g * x)


def uses_only_second(x, y):
    return ONLY_SECOND(x, y) * 3.0


def test_none_maker_refuses_that_argument_and_argnums_pick_the_others():
    assert srcad.grad(uses_only_second, wrt="y")(2.0, 5.0) == pytest.approx(6.0)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(uses_only_second, wrt="x")(2.0, 5.0)


def picked(x, y):
    return x * np.exp(y)


PICKED = primitive(picked)
defvjp(PICKED, lambda ans, x, y: lambda g: g * ans, argnums=(1,))


def uses_picked(x, y):
    return PICKED(x, y) + y


def test_argnums_name_the_arguments_the_makers_are_for():
    assert srcad.grad(uses_picked, wrt="y")(2.0, 0.5) == pytest.approx(2.0 * np.exp(0.5) + 1)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(uses_picked, wrt="x")(2.0, 0.5)


def plain(x):
    return np.tanh(x) * x


PLAIN = primitive(plain)  # no rule: srcad reads its source, like any function's


def uses_plain(x):
    return PLAIN(x) ** 2


@pytest.mark.parametrize("x", [-1.2, 0.4])
def test_primitive_without_a_rule_is_differentiated_from_its_source(x):
    assert srcad.grad(uses_plain)(x) == pytest.approx(numerical_grad(uses_plain, (x,), 0),
                                                      rel=1e-7)


def test_bad_autograd_form_rules_are_refused_where_they_are_given():
    def star(*args, **kwargs):  # (*args alone: tests/test_corpus31_star_rules.py)
        return args[0]

    with pytest.raises(srcad.RuleError, match="named parameters"):
        defvjp(star, lambda ans, *args: lambda g: g)
    with pytest.raises(srcad.RuleError, match="positional"):
        defvjp(plain, lambda ans, x: lambda g: g, lambda ans, x: lambda g: g)
    with pytest.raises(srcad.RuleError, match="not a function"):
        defvjp(only_second, 3.0, None)


def _ridge(x):
    return np.sum(np.tanh(x) ** 2)


def _ridge_vjp(ans, x):  # a nested def, as some autograd code writes its makers
    t = np.tanh(x)

    def vjp(g):
        return g * 2.0 * t * (1.0 - t**2)

    return vjp


RIDGE = primitive(_ridge)
defvjp(RIDGE, _ridge_vjp)
AG_RIDGE = ag_primitive(_ridge)
ag_defvjp(AG_RIDGE, _ridge_vjp)


def ridge_model(x):
    return RIDGE(x * 1.5) + LSE(np.cos(x))


def ag_ridge_model(x):
    return AG_RIDGE(x * 1.5) + AG_LSE(autograd.numpy.cos(x))


def _ag_lse_plain(x):  # autograd's own derivative of the function (no rule)
    anp = autograd.numpy
    m = anp.max(x)
    return m + anp.log(anp.sum(anp.exp(x - m)))


def ag_plain_lse_of_squares(y):
    return _ag_lse_plain(y**2) * 2.0 + autograd.numpy.sum(y)


def ag_plain_ridge_model(x):
    anp = autograd.numpy
    return anp.sum(anp.tanh(x * 1.5) ** 2) + _ag_lse_plain(anp.cos(x))


@pytest.mark.parametrize("x", POINTS, ids=lambda y: f"n={y.size}")
def test_second_order_through_vjp_makers_matches_autograd(x):
    """A maker's ``return lambda g: E`` (or nested ``def``) is read as one function of
    ``g``: the gradient code can be differentiated again (the makers here use NumPy, so
    autograd's Hessian is of the functions written without a rule)."""
    for ours, rule, plain in ((lse_of_squares, ag_lse_of_squares, ag_plain_lse_of_squares),
                              (ridge_model, ag_ridge_model, ag_plain_ridge_model)):
        np.testing.assert_allclose(srcad.grad(ours)(x), autograd.grad(rule)(x), rtol=1e-12)
        hessian = srcad.hessian(ours)(x)
        np.testing.assert_allclose(hessian, autograd.hessian(plain)(x), rtol=1e-9,
                                   atol=1e-12)
        column = numerical_grad(lambda v, f=ours: srcad.grad(f)(v)[0], (x,), 0)
        np.testing.assert_allclose(hessian[0], column, rtol=1e-5, atol=1e-8)


def test_gradient_code_calls_the_applied_maker():
    text = srcad.source(srcad.grad(lse_of_squares), POINTS[1])
    assert "_lse_vjp(" in text and ")(d" not in text  # m(g, ans, x), not m(ans, x)(g)


def lambda_maker_model(y):
    return LAMBDA_MADE(y * 2.0)


def lambda_made(y):
    return y**3


LAMBDA_MADE = primitive(lambda_made)
defvjp(LAMBDA_MADE, lambda ans, y: lambda g: g * 3.0 * y**2)  # a lambda maker: called as is


@pytest.mark.parametrize("y", [-0.7, 1.3])
def test_a_maker_of_another_shape_is_called_as_it_is_and_differentiated_again(y):
    """A lambda maker is called as it is; at second order the lambda it returns is read
    (closure conversion) and differentiated, checked against finite differences."""
    first = srcad.grad(lambda_maker_model)
    assert first(y) == pytest.approx(numerical_grad(lambda_maker_model, (y,), 0), rel=1e-7)
    assert srcad.grad(first)(y) == pytest.approx(numerical_grad(first, (y,), 0), rel=1e-6)


def _count_above(x, c):
    return float(np.sum(x > c))


COUNT = srcad.extend.notrace_primitive(_count_above)


def counted(x):
    return COUNT(x, 0.0) * np.sum(x * x)


def test_notrace_primitive_carries_no_gradient():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(srcad.grad(counted)(x), 2.0 * 2.0 * x, rtol=1e-15)
