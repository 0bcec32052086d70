"""Session 23's speed mechanisms keep every value: a loop calling a user function, a common
factor taken out of sums where one product is negated, forward mode's ``tangent_sum``
(np.add.reduce for an exact ndarray, np.sum for anything else), ``jvp``'s one-array path and
``jacfwd``'s one-vector path (its identity made once, never handed to the caller). Checked
against central differences and autograd."""

import ast
import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.runtime.numpy_reductions import tangent_sum


def cell(w, h):  # more statements than a part written into its caller may have
    a = w * h
    b = np.tanh(a)
    c = b * b
    d = np.sin(c)
    e = d + h
    f = e * 0.5
    g = np.cos(f)
    k = g * w
    m = k + b
    return m


def a_cell(w, h):
    b = anp.tanh(w * h)
    return anp.cos((anp.sin(b * b) + h) * 0.5) * w + b


def looped(w, h, n):
    for _ in range(n):
        h = cell(w, h)
    return np.sum(h * h)


def a_looped(w, h, n):
    for _ in range(n):
        h = a_cell(w, h)
    return anp.sum(h * h)


def test_loop_calling_a_user_function():
    w, h = np.linspace(0.1, 0.9, 5), np.linspace(-0.5, 0.5, 5)
    got = srcad.grad(looped, wrt=(0, 1))(w, h, 4)
    want = autograd.grad(a_looped, (0, 1))(w, h, 4)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)


SIGNS = list(itertools.product((1.0, -1.0), (1.0, -1.0), ("+", "-")))


@pytest.mark.parametrize(("sa", "sb", "op"), SIGNS)
def test_common_factor_with_negated_products(sa, sb, op, tmp_path):
    # (srcad reads the source: a file of its own)
    left = "-(x * a)" if sa < 0 else "x * a"
    right = "-(x * b)" if sb < 0 else "x * b"
    path = tmp_path / f"signed_{int(sa > 0)}{int(sb > 0)}{'p' if op == '+' else 'm'}.py"
    path.write_text("import numpy as np\n\n\ndef f(x, a, b):\n"
                    f"    return np.sum(np.sin({left} {op} {right}) * x)\n")
    space = {}
    exec(compile(path.read_text(), str(path), "exec"), space)  # noqa: S102
    f = space["f"]
    x, a, b = np.linspace(0.2, 0.8, 4), np.linspace(-1.0, 1.0, 4), np.linspace(0.3, 0.6, 4)
    g = srcad.grad(f, wrt=(0, 1, 2))(x, a, b)
    for i, gi in enumerate(g):
        np.testing.assert_allclose(gi, numerical_grad(f, (x, a, b), i), rtol=1e-6, atol=1e-9)
    v = np.array([0.3, -0.2, 0.5, 1.0])
    value, tangent = srcad.jvp(f, (x, a, b), (v, v, v))
    h = 1e-6
    fd = (f(x + h * v, a + h * v, b + h * v) - f(x - h * v, a - h * v, b - h * v)) / (2 * h)
    assert value == pytest.approx(f(x, a, b), rel=1e-14)
    assert tangent == pytest.approx(fd, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("value", [
    np.linspace(0.0, 1.0, 7), np.arange(6.0).reshape(2, 3), np.float32([1.5, 2.25]),
    np.array(2.5), 1.75, [1.0, 2.0, 3.5], [[1.0, 2.0], [3.0, 4.0]], np.arange(4),
    np.ma.masked_array([1.0, 2.0, 4.0], mask=[False, True, False])])
def test_tangent_sum_is_np_sum(value):
    got, want = tangent_sum(value), np.sum(value)
    assert type(got) is type(want) and got == want


def test_tangent_sum_over_axes_is_np_sum():
    t = np.arange(24.0).reshape(2, 3, 4)
    for axis in (None, 0, (1,), (1, 2), -1):
        np.testing.assert_array_equal(tangent_sum(t, axis), np.sum(t, axis=axis))


def vector(x):
    return np.sum(np.sin(x) * x + np.exp(-x * x))


def a_vector(x):
    return anp.sum(anp.sin(x) * x + anp.exp(-x * x))


def test_jvp_tangents_given_as_lists_and_zero_d_arrays():
    x = np.linspace(0.1, 0.9, 3)
    want = float(np.dot(autograd.grad(a_vector)(x), [1.0, -2.0, 0.5]))
    for tangent in ([1.0, -2.0, 0.5], np.array([1.0, -2.0, 0.5])):
        _, got = srcad.jvp(vector, (x,), (tangent,))
        assert got == pytest.approx(want, rel=1e-12)
    x0 = np.array(0.4)
    _, got = srcad.jvp(vector, (x0,), (np.array(2.0),))
    assert got == pytest.approx(2.0 * autograd.grad(a_vector)(0.4), rel=1e-12)


def test_jvp_one_array_path_sees_a_rebound_name_and_a_bad_tangent():
    x, v = np.linspace(0.1, 0.9, 4), np.ones(4)
    for _ in range(3):  # the kept path, several times
        _, t = srcad.jvp(vector, (x,), (v,))
    assert t == pytest.approx(float(np.sum(autograd.grad(a_vector)(x))), rel=1e-12)
    with pytest.raises(srcad.SrcadError):
        srcad.jvp(vector, (x,), (np.ones(3),))  # refused by the full path, each time
    with pytest.raises(srcad.SrcadError):
        srcad.jvp(vector, (x,), (np.ones(3),))
    _, t32 = srcad.jvp(vector, (x.astype(np.float32),), (v.astype(np.float32),))
    assert t32 == pytest.approx(t, rel=1e-5)
    x2 = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    _, t2 = srcad.jvp(vector, (x2,), (np.ones((2, 3)),))
    assert t2 == pytest.approx(float(np.sum(autograd.grad(a_vector)(x2))), rel=1e-12)


def test_jacfwd_vector_path_gives_the_caller_its_own_arrays():
    ident = srcad.jacfwd(lambda x: x * 1.0)
    j = ident(np.ones(3))
    j[0, 0] = 7.0  # the caller's array
    np.testing.assert_array_equal(ident(np.ones(3)), np.eye(3))
    first = srcad.jacfwd(lambda x: x[0] + 0.0 * x[1])
    row = first(np.ones(2))
    row[1] = 5.0
    np.testing.assert_array_equal(first(np.ones(2)), [1.0, 0.0])
    for n in (1, 2, 5, 64, 65):
        x = np.linspace(0.1, 0.9, n)
        np.testing.assert_allclose(srcad.jacfwd(vector)(x), autograd.grad(a_vector)(x),
                                   rtol=1e-12)


FORMS = [f"{lhs} {op} {rhs}" for lhs in ("g * a * c", "-(g * a * c)", "g * a")
         for op in ("+", "-") for rhs in ("g * b", "-(g * b)", "g * b * c", "-(g * c * b)")]


@pytest.mark.parametrize("text", FORMS)
def test_simplifier_takes_a_common_factor_out_keeping_signs(text):
    from srcad.transform.templates import simplify

    tree = ast.parse(text, mode="eval")
    done = ast.unparse(simplify(tree))
    space = {"g": 1.7, "a": -0.3, "b": 2.9, "c": 0.45}
    assert eval(done, {}, space) == pytest.approx(eval(text, {}, space), rel=1e-14)  # noqa: S307
    assert done.count("g") == 1, done  # the factor taken out
