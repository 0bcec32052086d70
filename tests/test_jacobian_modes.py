"""``jacfwd(f)(x) == jacrev(f)(x)`` on every function of the test corpora that takes float or
array inputs: tests/corpus, tests/golden_cases.py, tests/model_cases.py, the NumPy models of
tests/test_numpy_models.py and the rule table of tests/test_numpy_rules.py. Forward mode (a
column per input element, ``srcad.jvp``) and reverse mode (a row per output element,
``srcad.vjp``) share no code past the rule table, so agreement to 1e-9 checks both; each
corpus is checked against finite differences by its own tests. Plus the cases issue 14 found:
the same array on both sides of a product, tangents broadcast to the output's shape, zero
tangents of constant outputs, and tuple outputs.
"""

import inspect

import golden_cases
import model_cases
import numpy as np
import pytest
import test_numpy_models
import test_numpy_rules
from corpus import ALL
from srcad.check import numerical_grad

import srcad


def _assert_same(jf, jr, what):
    jf = jf if isinstance(jf, tuple) else (jf,)
    jr = jr if isinstance(jr, tuple) else (jr,)
    assert len(jf) == len(jr), what
    for a, b in zip(jf, jr):
        assert np.shape(a) == np.shape(b), f"{what}: jacfwd {np.shape(a)}, jacrev {np.shape(b)}"
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=what)


def _indices(func, wrt):
    params = list(inspect.signature(func).parameters)
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    return tuple(w if isinstance(w, int) else params.index(w) for w in wrt)


ITEMS = [(f"corpus-{c.func.__name__}-{i}", c.func, args, _indices(c.func, c.wrt))
         for c in ALL for i, args in enumerate(c.inputs)]
ITEMS += [(f"golden-{f.__name__}", f, args, (0,)) for f, args in [
    (golden_cases.scalar_loop, (0.5, 5)), (golden_cases.taylor_exp, (0.7,)),
    (golden_cases.clipped_sum, (0.6, 6)), (golden_cases.branch_after_loop, (1.3, 4))]]
RNG = np.random.default_rng(14)
ITEMS += [
    ("model-log_softmax", model_cases.log_softmax, (RNG.normal(size=(2, 3)),), (0,)),
    ("model-vector_function", model_cases.vector_function, (np.array([0.3, 0.7]), 1.5), (0, 1)),
    ("model-regulariser", model_cases.make_regulariser(RNG.uniform(size=4)),
     (RNG.normal(size=4),), (0,)),
]
ITEMS += [(f"numpy-model-{name}", f, args, wrt)
          for name, (f, wrt, args) in test_numpy_models.MODELS.items() if name != "rnn-outputs"]
ITEMS += [(f"numpy-rule-{c.id}", c.make(np), c.args, c.wrt) for c in test_numpy_rules.CASES]


@pytest.mark.parametrize(("name", "f", "args", "wrt"), ITEMS, ids=[i[0] for i in ITEMS])
def test_jacfwd_equals_jacrev(name, f, args, wrt):
    _assert_same(srcad.jacfwd(f, wrt=wrt)(*args), srcad.jacrev(f, wrt=wrt)(*args), name)


# ---------------------------------------------------------------- what issue 14 found


def quadratic(a):
    return np.dot(a, a)


def products(a, m):
    return (np.outer(a, a).sum() + np.inner(a, a) + a @ a + np.einsum("i,i->", a, a)
            + np.vdot(m, m) + np.tensordot(m, m, 2) + np.sum(np.matmul(m.T, m)))


def broadcast(x):
    return x + np.ones(4)


def broadcast_row(x, w):
    return np.maximum(x, w) * 2.0 - np.exp(w)


def constant(x):
    return np.ones(3)


def pair(x, a):
    return x * 2.0, np.ones(3), [x * a, 1.0]


def test_the_same_array_on_both_sides_of_a_product():
    a, da = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    value, tangent = srcad.jvp(quadratic, (a,), (da,))
    assert tangent == pytest.approx(2 * np.dot(a, da))
    assert "np.dot(da, a)" in srcad.api.jvp_source(quadratic, a)
    m = np.arange(6.0).reshape(2, 3) / 5
    _assert_same(srcad.jacfwd(products, wrt=(0, 1))(a, m),
                 srcad.jacrev(products, wrt=(0, 1))(a, m), "products")
    assert srcad.jacfwd(products)(a, m) == pytest.approx(numerical_grad(products, (a, m), 0))


@pytest.mark.parametrize("x", [2.0, np.array([0.5, -0.5, 1.0, 2.0])])
def test_a_tangent_has_the_shape_of_the_result(x):
    value, tangent = srcad.jvp(broadcast, (x,), (np.ones_like(x) if np.ndim(x) else 1.0,))
    assert np.shape(tangent) == (4,) and np.all(tangent == 1.0)
    w = np.array([[0.1, 0.9], [-0.3, 0.4], [2.0, -2.0]])
    for x, u in [(0.2, 1.0), (np.array([0.2, 0.5]), np.array([1.0, -1.0]))]:
        value, tangent = srcad.jvp(broadcast_row, (x, w), (u, np.zeros_like(w)))
        assert np.shape(tangent) == np.shape(value) == (3, 2)
        _assert_same(srcad.jacfwd(broadcast_row, wrt=(0, 1))(x, w),
                     srcad.jacrev(broadcast_row, wrt=(0, 1))(x, w), "broadcast_row")


def test_constant_and_tuple_outputs_have_tangents_of_their_shape():
    value, tangent = srcad.jvp(constant, (2.0,), (1.0,))
    assert np.shape(tangent) == (3,) and not np.any(tangent)
    value, tangent = srcad.jvp(pair, (2.0, 3.0), (1.0, 0.5))
    assert isinstance(tangent, tuple) and isinstance(tangent[2], list)
    assert tangent[0] == 2.0 and np.shape(tangent[1]) == (3,) and not np.any(tangent[1])
    assert tangent[2] == [pytest.approx(3.0 + 2.0 * 0.5), 0.0]


def stacked(A):
    return np.sum(np.sin(np.vstack(A)) * np.cos(np.hstack(A)).reshape(2, 3)
                  + np.concatenate(A).reshape(2, 3) ** 2 + np.stack(A, 1).T ** 3)


def joined(x, y):
    return np.concatenate([[x], [y], np.array([1.0])]) * np.hstack([x, y, 2.0]) + np.stack(
        [x, y, x * y])


def test_joining_an_array_gives_an_array_gradient():
    A = np.arange(6.0).reshape(2, 3) / 7 + 0.1
    g = srcad.grad(stacked)(A)
    assert isinstance(g, np.ndarray) and g.shape == A.shape
    np.testing.assert_allclose(g, numerical_grad(stacked, (A,), 0), rtol=1e-7)
    _, pullback = srcad.vjp(_vstack, A)
    (ga,) = pullback(np.ones((2, 3)))  # a tuple: wrt is every argument
    assert isinstance(ga, np.ndarray) and ga.shape == A.shape
    _assert_same(srcad.jacfwd(joined, wrt=(0, 1))(0.3, 0.4),
                 srcad.jacrev(joined, wrt=(0, 1))(0.3, 0.4), "joined")


def _vstack(A):
    return np.vstack(A)


def filled(x, a):
    return np.sum(np.full(3, x) * a + np.full_like(a, x) ** 2)


def test_a_filled_array_carries_its_fill_value():
    a = np.array([1.0, 2.0, 3.0])
    assert srcad.grad(filled)(0.5, a) == pytest.approx(numerical_grad(filled, (0.5, a), 0))
    assert srcad.jvp(filled, (0.5, a), (1.0, np.zeros(3)))[1] == pytest.approx(6.0 + 3.0)
    assert srcad.hvp(filled, (0.5, a), 1.0) == pytest.approx(6.0)
    grad = srcad.grad(uniform_gradient)  # a uniform gradient, np.full(np.shape(a), ...)
    expected = [numerical_grad(lambda s, i=i: grad(a + s)[i], (0.0,), 0) for i in range(3)]
    assert srcad.hvp(uniform_gradient, (a,), np.ones(3)) == pytest.approx(expected)


def uniform_gradient(a):
    return np.sin(np.sum(a))


# ---------------------------------------------------------------- second derivatives


@pytest.mark.parametrize(("name", "f", "args"), test_numpy_rules.SECOND,
                         ids=[s[0] for s in test_numpy_rules.SECOND])
def test_hessian_forward_over_reverse_equals_reverse_over_reverse(name, f, args):
    for w in range(len(args)):
        _assert_same(srcad.hessian(f, wrt=w)(*args), srcad.hessian(f, wrt=w, mode="rev")(*args),
                     f"{name} wrt {w}")


@pytest.mark.parametrize("name", list(test_numpy_models.MODELS))
def test_hvp_of_a_model_matches_finite_differences_of_its_gradient(name):
    f, wrt, args = test_numpy_models.MODELS[name]
    w = wrt[0]
    v = np.random.default_rng(5).normal(size=np.shape(args[w]))
    grad = srcad.grad(f, wrt=w)

    def along(s):
        shifted = list(args)
        shifted[w] = args[w] + s * v
        return grad(*shifted)

    eps = 1e-5
    expected = (along(eps) - along(-eps)) / (2 * eps)
    np.testing.assert_allclose(srcad.hvp(f, args, v, wrt=w), expected, rtol=1e-5, atol=1e-6)


def grid(x, n):
    steps = np.arange(n) * 0.5 + np.linspace(0.0, 1.0, n)  # constant bounds: no gradient needed
    return np.sum(np.linspace(0.0, x, n) * steps)  # the values move with x: a rule


def arange_grid(x):
    return np.sum(np.arange(x, 5.0) ** 2)  # refused: no rule for a varying start


def test_a_grid_with_a_varying_bound_is_differentiated():
    expected = numerical_grad(grid, (2.0, 3), 0)
    assert srcad.grad(grid)(2.0, 3) == pytest.approx(expected, rel=1e-7)
    _, tangent = srcad.jvp(grid, (2.0, 3), (1.0,), wrt=(0,))
    assert tangent == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_arange_with_a_varying_start_is_refused(mode):
    with pytest.raises(srcad.MissingRuleError) as info:
        if mode == "grad":
            srcad.grad(arange_grid)(2.0)
        else:
            srcad.jvp(arange_grid, (2.0,), (1.0,))
    err = info.value
    assert err.lineno == inspect.getsourcelines(arange_grid)[1] + 1
    assert "np.arange" in str(err) and "stop_gradient" in err.hint
