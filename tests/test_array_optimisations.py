"""Array code: shape classes (no unbroadcast where shapes are equal), np.sum/np.mean gradients
kept as one number until an array is needed, common subexpressions computed once. Each case
checks the generated code's shape *and* the numbers against finite differences."""

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(7)
X = RNG.standard_normal(6)
M = RNG.standard_normal((3, 4))


def check(f, args, wrt=0):
    g = srcad.grad(f, wrt=wrt)(*args)
    expected = numerical_grad(f, args, wrt)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)
    assert np.shape(g) == np.shape(args[wrt])
    text = srcad.source(srcad.grad(f, wrt=wrt), *args)
    body = text.split("\n")[1:]  # not the name nor the comments quoting the user's lines
    return "\n".join(line for line in body if not line.strip().startswith("#"))


def elementwise(x):
    return np.sum(np.sin(x) * np.exp(-(x**2)) / (1 + x**2))


def mean_of_log1p(w, A, y):
    return np.mean(np.log1p(np.exp(-y * (A @ w))))


def sum_then_matmul(x, A):
    return np.sum(A @ np.tanh(x))


def sum_of_scalar_broadcast(s, x):
    return np.sum(s * 2.0 + x)  # s's gradient sums the uniform gradient: 6 * 1.0


def sum_of_copy(x):
    y = x
    z = -y
    return np.sum(z) + np.sum(z * z)


def sum_used_in_branch(x, flag):
    s = np.sum(x * 3.0)
    if flag:
        s = s * 2.0
    return s


def mean_axis(x):
    return np.sum(np.mean(x * x, axis=0))


def sum_into_matrix(x):
    return np.sum(x @ M)


def linear_only(x):
    return np.sum(2.0 * x - 1.0)


def test_no_unbroadcast_between_arrays_of_one_shape():
    text = check(elementwise, (X,))
    assert "unbroadcast" not in text and "grad_sum" not in text
    assert text.count("x ** 2") == 1  # written twice by the user, computed once


def test_mean_gradient_is_one_number_and_never_needs_the_logarithm():
    A = RNG.standard_normal((5, 3))
    y = np.where(RNG.standard_normal(5) > 0, 1.0, -1.0)
    text = check(mean_of_log1p, (RNG.standard_normal(3), A, y))
    assert "log1p" not in text and "grad_mean" not in text
    assert ".size" in text


def test_uniform_gradient_made_an_array_before_a_matmul():
    A = RNG.standard_normal((4, 6))
    text = check(sum_then_matmul, (X, A))
    assert "broadcast_to" in text


def test_uniform_gradient_summed_into_a_scalar_operand():
    check(sum_of_scalar_broadcast, (0.7, X), wrt=0)
    check(sum_of_scalar_broadcast, (0.7, X), wrt=1)


def test_uniform_gradient_through_copies_and_negation():
    text = check(sum_of_copy, (X,))
    assert "grad_sum" not in text


def test_uniform_gradient_before_a_branch():
    check(sum_used_in_branch, (X, True))
    check(sum_used_in_branch, (X, False))


def test_reduction_over_one_axis_keeps_its_helper():
    check(mean_axis, (M,))


def test_uniform_gradient_into_a_matrix_product():
    check(sum_into_matrix, (RNG.standard_normal((2, 3)),))


def test_a_gradient_handed_to_the_user_is_a_whole_writable_array():
    g = srcad.grad(linear_only)(X)
    assert isinstance(g, np.ndarray) and g.shape == X.shape and g.flags.writeable
    np.testing.assert_allclose(g, np.full(X.shape, 2.0))
    g[0] = 5.0  # the user's to change
    assert "np.full" in srcad.source(srcad.grad(linear_only), X)


@pytest.mark.parametrize("f", [elementwise, sum_of_copy, linear_only, mean_axis])
def test_same_numbers_at_every_optimisation_level(f, monkeypatch):
    from srcad import pipeline

    arg = M if f is mean_axis else X
    tidy = srcad.grad(f)(arg)
    monkeypatch.setattr(pipeline.switches, "OPTIMIZE", 0)
    srcad.clear_cache()
    raw = srcad.grad(f)(arg)
    srcad.clear_cache()
    np.testing.assert_allclose(tidy, raw, rtol=1e-12)


def test_common_subexpressions_not_merged_when_something_changes_in_place():
    def f(x):
        a = x * 2.0
        b = x * 2.0
        a.sort()
        return np.sum(b * x)

    text = srcad.ssa(f)
    assert text.count("x * 2.0") == 2


def total(a):
    return float(np.add.reduce(a.ravel()))


srcad.extend.defvjp(total, "a", a="np.broadcast_to(g, np.shape(a))", uniform="g")


def uses_total(x):
    return total(np.cos(x) * 3.0)


def test_a_user_rule_can_declare_a_uniform_gradient():
    text = check(uses_total, (X,))
    assert "broadcast_to" not in text  # the element-wise rule below turns it whole


def test_shape_only_must_name_a_parameter():
    with pytest.raises(srcad.RuleError, match="shape_only"):
        srcad.extend.defvjp(lambda a: a, "a", a="g", shape_only="b")
