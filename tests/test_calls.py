"""Calls, closures, globals, methods and user rules: each gradient against finite differences
and, where the reference tape runs the function, against the tape."""

import math

import calls_cases as cc
import pytest
from srcad.check import numerical_grad

import srcad

CASES = [
    (cc.level1, (0.7, 1.3), (0, 1)),
    (cc.poly_at, (0.6,), 0),
    (cc.poly_at, (-1.4,), 0),
    (cc.mutual, (0.3,), 0),
    (cc.uses_lambda, (0.9,), 0),
    (cc.uses_global, (1.7,), 0),
    (cc.returns_tuple, (0.4,), 0),
    (cc.call_with_keywords, (0.8,), 0),
    (cc.uses_softplus, (0.2,), 0),
    (cc.uses_polyval, (0.35,), 0),
    (cc.make_scaled(0.7), (0.3,), 0),
    (cc.star_args, (0.5, 2.0), (0, 1)),
    (cc.star_slices, (0.5, 2.0, 1.5), (0, 1, 2)),
    (cc.star_slices, (-0.7, 1.0, 0.25), (0, 2)),
    (cc.nested_helpers, (0.5, 1.5), (0, 1)),
    (cc.nested_in_loop, (0.3,), 0),
    (cc.uses_imported_helper, (0.4,), 0),
]


@pytest.mark.parametrize(("func", "args", "wrt"), CASES,
                         ids=[f"{c[0].__name__}-{c[1]}" for c in CASES])
def test_call_gradients_match_finite_differences(func, args, wrt):
    ours = srcad.grad(func, wrt=wrt)(*args)
    assert ours == pytest.approx(numerical_grad(func, args, wrt), rel=1e-7, abs=1e-8)


def test_helper_is_called_not_inlined():
    text = srcad.source(srcad.grad(cc.level1, wrt=(0, 1)), 0.7, 1.3, callees=False)
    assert "level2_fwd(" in text and "level2_bwd(" in text
    assert "math.sin" not in text  # level3's body stays in level3's own generated parts


def test_recursion_matches_closed_form():
    x = 0.6
    coeffs = [1.0, -2.0, 0.5, 3.0, 0.25]
    expected = sum(i * c * x ** (i - 1) for i, c in enumerate(coeffs) if i)
    assert srcad.grad(cc.poly_at)(x) == pytest.approx(expected, rel=1e-12)


def test_global_rebinding_is_seen_on_the_next_call():
    g = srcad.grad(cc.uses_global)
    assert g(1.0) == 2.0
    old = cc.SCALE
    try:
        cc.SCALE = 5.0
        assert g(1.0) == 5.0  # globals are read live, not frozen into the generated code
    finally:
        cc.SCALE = old


def test_closure_value_is_a_constant():
    scaled = cc.make_scaled(0.5)
    assert srcad.grad(scaled)(0.2) == pytest.approx(0.5 * math.exp(0.1))


def test_user_rule_replaces_the_source():
    # the rule is used: at 800 the body would overflow math.exp, the rule needs only exp(-x)
    text = srcad.source(srcad.grad(cc.uses_softplus), 0.2)
    assert "softplus_bwd" not in text and "math.exp(-x)" in text
    assert srcad.grad(cc.uses_softplus)(0.2) == pytest.approx(3 / (1 + math.exp(-0.2)))


def test_rule_for_a_function_without_source():
    # a C ufunc: srcad cannot read it, but differentiates it through its rule, called or not
    assert srcad.grad(__import__("numpy").ldexp)(0.35, 3) == 8.0
    assert srcad.grad(cc.uses_ldexp)(0.35) == pytest.approx(2 * 8 * 0.35)


def test_rule_for_a_numpy_function_not_in_the_registry():
    assert srcad.grad(cc.uses_polyval)(0.35) == pytest.approx(
        numerical_grad(cc.uses_polyval, (0.35,), 0), rel=1e-7)


def test_stop_gradient():
    # d/dx [stop(x*x) * x] = x*x
    assert srcad.grad(cc.uses_stop_gradient)(1.5) == 2.25


def test_method_with_self_attributes():
    model = cc.Model(0.25)
    g = srcad.grad(cc.Model.loss, wrt=("x", "w"))
    x, w = 0.5, 2.0
    gx, gw = g(model, x, w)
    r = x * w - 0.25
    assert (gx, gw) == pytest.approx((2 * r * w, 2 * r * x))


def test_attribute_read_of_object_argument():
    class Cfg:
        scale = 3.0

    def f(x, cfg):
        return x * cfg.scale

    assert srcad.grad(f)(2.0, Cfg()) == 3.0


@pytest.mark.parametrize(("signature", "templates", "words"), [
    ("x", {"y": "g"}, "unknown parameters"),
    ("x, y", {"x": "g"}, "does not match"),
    ("x", {"x": "g *"}, "not a Python expression"),
    ("x", {"x": "g * undefined_helper(x)"}, "not defined"),
])
def test_bad_rules_are_refused(signature, templates, words):
    def target(x):
        return x

    with pytest.raises(srcad.RuleError) as info:
        srcad.extend.defvjp(target, signature, **templates)
    assert words in str(info.value)


def test_structured_arguments_keep_their_structure():
    def f(params, x):
        w, b = params["w"], params["b"]
        pair = params["pair"]
        return math.tanh(w * x + b) + pair[0] * pair[1]

    params = {"w": 0.5, "b": 0.1, "pair": (2.0, 3.0)}
    grads = srcad.grad(f)(params, 1.5)
    assert set(grads) == {"w", "b", "pair"} and isinstance(grads["pair"], tuple)
    t = math.tanh(0.5 * 1.5 + 0.1)
    assert grads["w"] == pytest.approx((1 - t * t) * 1.5)
    assert grads["b"] == pytest.approx(1 - t * t)
    assert grads["pair"] == pytest.approx((3.0, 2.0))


def test_list_argument_gradient_is_a_list():
    def f(xs):
        return sum(v * v for v in xs)

    assert srcad.grad(f)([1.0, 2.0, 3.0]) == [2.0, 4.0, 6.0]
    assert srcad.grad(f)((1.0, 2.0)) == (2.0, 4.0)


def test_tape_agrees_on_calls():
    tape = pytest.importorskip("srcad.tape")
    for func, args, wrt in CASES[:8]:
        assert srcad.grad(func, wrt=wrt)(*args) == pytest.approx(
            tape.grad(func, wrt=wrt)(*args), rel=1e-10)


def test_nested_function_reads_outer_values_at_call_time():
    """The lifted helper gets the outer values as arguments: gradients flow through them."""
    text = srcad.source(srcad.grad(cc.nested_helpers, wrt=(0, 1)), 0.5, 1.5)
    assert "scaled_local_fwd(w, x)" in text
    value, tangent = srcad.jvp(cc.nested_helpers, (0.5, 1.5), (0.0, 1.0))
    assert tangent == pytest.approx(srcad.grad(cc.nested_helpers, wrt=1)(0.5, 1.5))


def test_redefined_helper_gets_a_fresh_derivative(monkeypatch):
    """A helper redefined after the gradient was made (as in a notebook) is seen: the
    gradient is made again, never computed with the old helper's derivative."""
    g = srcad.grad(cc.uses_rebinding_target)
    assert g(2.0) == 12.0

    def cubed(x):
        return x * x * x

    monkeypatch.setattr(cc, "rebinding_target", cubed)
    assert g(2.0) == 36.0
