"""Higher-order Python inside differentiated code (issue 16): functions passed as values and
held in locals (the callee is specialised on the function passed), methods of objects whose
class is known, functools.partial, map/filter, ``*``/``**`` in calls, zip(*pairs), generators
consumed by a loop, and srcad.grad called inside the function differentiated.

Every gradient is checked against finite differences and a second engine: the reference tape
(which runs the same Python), or autograd for derivatives of derivatives (the tape cannot see
inside a derivative srcad made)."""

import inspect
import math

import higher_order_cases as hc
import numpy as np
import pytest
from call_checks import check_gradient, check_refused, check_second_derivative, family
from srcad.check import numerical_grad

import srcad
from srcad.errors import UnsupportedSyntaxError

# (function, arguments, wrt, the tape can run it)
CASES = [
    (hc.passes_ufunc, (0.7,), 0, True),
    (hc.passes_user_function, (0.7,), 0, True),
    (hc.passes_lambda, (0.7,), 0, True),
    (hc.passes_lambda_holding, (0.7, 1.3), (0, 1), True),
    (hc.uses_default_function, (0.7,), 0, True),
    (hc.named_lambda_passed, (0.7, 1.3), (0, 1), True),
    (hc.nested_def_passed, (0.7, 1.3), (0, 1), True),
    (hc.lambda_in_loop, (0.7, 1.3), (0, 1), True),
    (hc.passes_holding_on, (0.7, 1.3), (0, 1), True),
    (hc.passes_holding_on, (0.7, 1.3), 0, True),
    (hc.passes_through_two_levels, (0.7,), 0, True),
    (hc.local_alias, (0.7,), 0, True),
    (hc.local_choice, (0.7,), 0, True),
    (hc.local_choice, (0.3,), 0, True),
    (hc.global_choice, (0.7,), 0, True),
    (hc.three_way_choice, (0.7, 2.0), 0, True),
    (hc.three_way_choice, (0.7, 0.5), 0, True),
    (hc.three_way_choice, (0.7, -1.0), 0, True),
    (hc.array_map, (np.array([0.3, -0.7, 1.2]),), 0, True),
    (hc.method_of_global, (0.7,), 0, True),
    (hc.method_of_argument, (hc.Model(0.8), 0.7), 1, True),
    (hc.method_of_argument, (hc.Sub(0.8), 0.7), 1, True),
    (hc.method_of_built, (0.7,), 0, True),
    (hc.calls_base_method, (0.7,), 0, True),
    (hc.calls_super, (0.7,), 0, True),
    (hc.power3, (0.7,), 0, True),
    (hc.partial_holding, (0.7, 1.3), (0, 1), True),
    (hc.maps, (0.7,), 0, True),
    (hc.for_over_map, (0.7,), 0, True),
    (hc.splats, (0.7,), 0, True),
    (hc.zips, (0.7,), 0, True),
    (hc.random_shape, (0.7,), 0, False),  # the draw would differ
    (hc.loops_over_generator, (0.7,), 0, True),
    (hc.generator_of_values, (0.7,), 0, True),
    (hc.calls_grad, (0.7,), 0, False),
    (hc.calls_stored_grad, (0.7,), 0, False),
    (hc.calls_value_and_grad, (0.7,), 0, False),
    (hc.meta_step, (0.7,), 0, False),
    (hc.array_meta, (np.array([0.3, -0.8, 1.1]),), 0, False),
]
# a generated family around each case: the same function at nearby points
FAMILY, IDS = family(CASES, (1.0, 0.85, 1.2))


@pytest.mark.parametrize(("func", "args", "wrt", "taped"), FAMILY, ids=IDS)
def test_gradient_matches_finite_differences_and_tape(func, args, wrt, taped):
    check_gradient(func, args, wrt, taped)


@pytest.mark.parametrize(("func", "args", "wrt", "taped"),
                         [c for c in FAMILY if c[3] and isinstance(c[2], int)],
                         ids=[i for i, c in zip(IDS, FAMILY) if c[3] and isinstance(c[2], int)])
def test_second_derivative_matches_finite_differences(func, args, wrt, taped):
    if isinstance(args[wrt], np.ndarray):  # a gradient, not a number: its Jacobian
        d1 = srcad.grad(func, wrt=wrt)
        got = srcad.jacobian(d1, wrt=wrt)(*args)
        h, x = 1e-6, args[wrt]
        for j in range(x.size):
            e = np.zeros_like(x)
            e.flat[j] = h
            up = args[:wrt] + (x + e,) + args[wrt + 1:]
            down = args[:wrt] + (x - e,) + args[wrt + 1:]
            column = (d1(*up) - d1(*down)) / (2 * h)
            assert np.allclose(got[..., j], column, rtol=1e-5, atol=1e-6)
        return
    check_second_derivative(func, args, wrt)


FORWARD = [hc.passes_ufunc, hc.passes_user_function, hc.local_alias, hc.local_choice,
           hc.method_of_global, hc.method_of_built, hc.calls_base_method, hc.power3, hc.maps,
           hc.splats, hc.zips, hc.loops_over_generator, hc.generator_of_values,
           hc.passes_lambda_holding, hc.partial_holding, hc.named_lambda_passed,
           hc.lambda_in_loop, hc.passes_holding_on]


@pytest.mark.parametrize("func", FORWARD, ids=[f.__name__ for f in FORWARD])
@pytest.mark.parametrize("x", [0.3, 0.7, 1.1])
def test_forward_mode_agrees(func, x):
    args = (x,) + (1.3,) * (len(inspect.signature(func).parameters) - 1)
    tangents = (1.0,) + (0.0,) * (len(args) - 1)
    value, tangent = srcad.jvp(func, args, tangents)
    assert value == pytest.approx(func(*args), rel=1e-12)
    assert tangent == pytest.approx(srcad.grad(func, wrt=0)(*args), rel=1e-10)


# ---------------------------------------------------------------- derivatives inside


autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")


def _ag_inner(x):
    return anp.sin(x) * x * x


def _ag_inner_loss(w):
    return (w * 1.5 - 2.0) ** 2 + anp.sin(w)


def _ag_array_loss(w):
    return anp.sum(anp.tanh(w) ** 2 + 0.5 * w)


MIRRORS = [
    (hc.calls_grad, lambda x: autograd.grad(_ag_inner)(x)),
    (hc.calls_stored_grad, lambda x: autograd.grad(_ag_inner)(x) * x),
    (hc.calls_value_and_grad, lambda x: _ag_inner(x) * autograd.grad(_ag_inner)(x)),
    (hc.meta_step, lambda w: _ag_inner_loss(w - 0.1 * autograd.grad(_ag_inner_loss)(w))),
]


@pytest.mark.parametrize(("func", "mirror"), MIRRORS, ids=[m[0].__name__ for m in MIRRORS])
@pytest.mark.parametrize("x", [0.35, 0.7, 1.4, -0.9])
def test_grad_inside_is_differentiated_again(func, mirror, x):
    """The outer gradient sees through the inner one: a second derivative, not the first."""
    ours = srcad.grad(func)(x)
    assert ours == pytest.approx(autograd.grad(mirror)(x), rel=1e-10)
    assert ours == pytest.approx(numerical_grad(func, (x,), 0), rel=1e-6)
    if func is hc.calls_grad:  # the second derivative of inner, which its first is not
        assert ours != pytest.approx(srcad.grad(hc.inner)(x), rel=1e-3)


def test_meta_learning_on_arrays_matches_autograd():
    w = np.array([0.3, -0.8, 1.1, 0.05])

    def mirror(v):
        return _ag_array_loss(v - 0.3 * autograd.grad(_ag_array_loss)(v))

    ours = srcad.grad(hc.array_meta)(w)
    assert np.allclose(ours, autograd.grad(mirror)(w), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- specialisations stay true


def test_another_function_gets_its_own_specialisation(monkeypatch):
    d = srcad.grad(hc.global_choice)
    assert d(0.7) == pytest.approx(3 * 0.7 ** 2)
    monkeypatch.setattr(hc, "FLAG", False)
    assert d(0.7) == pytest.approx(math.cos(0.7) * 0.7 + math.sin(0.7))
    monkeypatch.setattr(hc, "cube", lambda t: t * t)
    monkeypatch.setattr(hc, "FLAG", True)
    assert d(0.7) == pytest.approx(1.4)


def test_a_method_redefined_later_is_read_again(monkeypatch):
    d = srcad.grad(hc.method_of_argument, wrt=1)
    model = hc.Model(0.8)
    before = d(model, 0.7)
    monkeypatch.setattr(hc.Model, "predict", hc.Sub.predict)
    after = d(model, 0.7)
    assert after != pytest.approx(before)
    assert after == pytest.approx(numerical_grad(hc.method_of_argument, (model, 0.7), 1))


def test_an_attribute_hiding_the_method_is_called_as_python_does():
    """(outside23) the object's own function hides the class's method: the code is made for
    it (part of the specialisation), as Python calls it; set after the code was made, the
    check stops the code with a SrcadError at the line."""
    model = hc.Model(0.8)
    model.predict = lambda x: np.sin(x) * 3.0  # Python calls this, not Model.predict
    got = srcad.grad(hc.method_of_argument, wrt=1)(model, 0.7)
    assert got == pytest.approx(numerical_grad(hc.method_of_argument, (model, 0.7), 1))
    plain = hc.Model(0.8)
    made = srcad.grad(hc.Model.loss, wrt=1)
    made(plain, 0.7)
    plain.predict = lambda x: 0.0
    with pytest.raises(srcad.SrcadError, match="attribute 'predict' of its own") as err:
        made(plain, 0.7)  # the code made for the class's predict is not run
    assert err.value.lineno is not None


def test_generated_code_reads_like_the_call():
    text = srcad.source(srcad.grad(hc.passes_ufunc))
    assert "apply_fwd" in text and "np.sin" in text
    text = srcad.source(srcad.grad(hc.local_choice))
    assert " is cube" in text  # g = cube if ... else wave: an if on which g is


# ---------------------------------------------------------------- refused


REFUSED = [
    (hc.keeps_map, (0.7,), UnsupportedSyntaxError, hc.keeps_map, "# refused",
     "list(map(...))"),
    (hc.keeps_generator, (0.7,), UnsupportedSyntaxError, hc.keeps_generator, "# refused",
     "for v in evens(...)"),
    (hc.changes_what_generator_reads, (0.7,), UnsupportedSyntaxError,
     hc.changes_what_generator_reads, "# refused", "list(windows(...))"),
    (hc.unknown_local, (0.7,), UnsupportedSyntaxError, hc.unknown_local, "# refused",
     "call a named function"),
    (hc.reassigned_after_lambda, (0.7, 1.3), UnsupportedSyntaxError,
     hc.reassigned_after_lambda, "# refused", "pass w to it as an argument"),
]


def test_a_spread_of_a_run_time_length():
    """``scaled(x, *rest)`` with ``rest`` a tuple argument (refused before round 16): the
    call is differentiated for the length met (srcad.runtime.spread_calls)."""
    for wrt in (0, 1):
        got = srcad.grad(hc.splat_active, wrt=wrt)(0.7, (2.0,))
        want = numerical_grad(hc.splat_active, (0.7, (2.0,)), wrt)
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("func", "args", "cls", "where", "marker", "hint"), REFUSED,
                         ids=[r[0].__name__ for r in REFUSED])
def test_refused_with_the_line_and_a_hint(func, args, cls, where, marker, hint):
    check_refused(func, args, cls, where, marker, hint)


PASSED_FUNCTIONS = [np.sin, np.exp, np.tanh, math.cos, hc.apply_default]
PASSED_TO = [hc.apply, hc.apply_twice, hc.apply_through]


@pytest.mark.parametrize("fn", PASSED_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("through", PASSED_TO, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.3, 0.7])
def test_a_function_parameter_in_forward_mode(fn, through, x):
    """Forward mode makes the code per function passed, as reverse mode does: the tangent
    equals reverse mode's gradient and finite differences, for each function (one code each:
    a second function gives its own derivative, not the first one's)."""
    value, tangent = srcad.jvp(through, (fn, x), (1.0,), wrt=1)
    assert value == pytest.approx(through(fn, x), rel=1e-12)
    assert tangent == pytest.approx(srcad.grad(through, wrt=1)(fn, x), rel=1e-9)
    step = 1e-6
    fd = (through(fn, x + step) - through(fn, x - step)) / (2 * step)
    assert tangent == pytest.approx(fd, rel=1e-5, abs=1e-8)
