"""Issue 16's list of what was seen, case by case, in one acceptance file: each form the issue
names (lambdas, methods and classes, higher-order Python, late-bound closures, nested
gradients, SciPy's logsumexp, value-neutral ``with`` blocks, functions with a rule, the API
seams) differentiated and checked against central differences or the closed form; the
issue's stated refusal (``contextlib.suppress`` of an exception) refused at its line.
Imports the standard library, NumPy, pytest, SciPy (skipped without it), srcad and the tests'
twin_checks."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import warnings

import numpy as np
import pytest
from twin_checks import central

import srcad

X0 = np.array([0.1, -0.4, 0.9])


def close_to_differences(f, x=X0):
    np.testing.assert_allclose(srcad.grad(f)(x), central(f, (x,), 0), rtol=1e-6, atol=1e-7)


# lambdas: one and two parameters, two on one line
SIN, COS = (lambda x: np.sin(x)), (lambda x: np.cos(x))


def test_lambdas():
    assert srcad.grad(lambda x: x * x)(3.0) == 6.0
    np.testing.assert_allclose(srcad.grad(lambda x, y: x * y + y, wrt=(0, 1))(3.0, 2.0),
                               (2.0, 4.0))
    assert np.isclose(srcad.grad(SIN)(0.3), np.cos(0.3))
    assert np.isclose(srcad.grad(COS)(0.3), -np.sin(0.3))


class Model:
    def __init__(self, s):
        self.s = s

    def predict(self, x):
        return np.tanh(self.s * x)

    def loss(self, x):
        return np.sum(self.predict(x) ** 2)

    @property
    def scale(self):
        return self.s * 2.0

    def scaled(self, x):
        return np.sum(self.scale * x ** 2)

    def __call__(self, x):
        return np.sum(x ** 3)

    @staticmethod
    def static(x):
        return np.sum(x ** 2)

    @classmethod
    def of_class(cls, x):
        return np.sum(x ** 2)


def test_methods_properties_call_static_class():
    model = Model(0.7)
    close_to_differences(model.loss)          # a bound method calling self.predict
    close_to_differences(model.scaled)        # a property read
    np.testing.assert_allclose(srcad.grad(model)(X0), 3 * X0 ** 2)
    np.testing.assert_allclose(srcad.grad(Model.static)(X0), 2 * X0)
    np.testing.assert_allclose(srcad.grad(Model.of_class)(X0), 2 * X0)


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def dataclass_loss(p, x):
    return np.sum((p.w * x + p.b) ** 2)


def test_dataclass_wrt_gives_a_dataclass():
    p = Params(np.array([0.5, -1.0, 2.0]), 0.3)
    g = srcad.grad(dataclass_loss)(p, X0)
    assert isinstance(g, Params)
    r = 2 * (p.w * X0 + p.b)
    np.testing.assert_allclose(g.w, r * X0)
    assert np.isclose(g.b, np.sum(r))


def apply(f, x):
    return f(x)


def power_sum(x, p):
    return np.sum(x ** p)


def three(a, b, c):
    return a * b * c


def squares(x):
    for i in range(3):
        yield x[i] ** 2


def through_parameter(x):
    return np.sum(apply(np.sin, x))


def through_partial(x):
    g = functools.partial(power_sum, p=3)
    return g(x)


def through_map(x):
    return sum(map(np.sin, [x[0], x[1], x[2]]))


def through_zip(x):
    a, b = zip(*[(x[0], x[1]), (x[2], x[0])])
    return sum(a) * sum(b)


def through_star(x):
    xs = [x[0], x[1], x[2]]
    return three(*xs)


def through_randn(x):
    rs = np.random.RandomState(0)
    shape = (3,)
    return np.sum(x * rs.randn(*shape))


def through_generator(x):
    t = 0.0
    for v in squares(x):
        t = t + v
    return t


def late_bound(x):
    def inner(y):
        return np.sum(Q * y)
    Q = np.sin(x)
    return inner(x)


@pytest.mark.parametrize("f", [through_parameter, through_partial, through_map, through_zip,
                               through_star, through_randn, through_generator, late_bound])
def test_higher_order_python(f):
    close_to_differences(f)


def inner_loss(w, x):
    return np.sum(np.sin(w * x))


def meta(w):
    g = srcad.grad(inner_loss)(w, X0)
    return np.sum((w - 0.1 * g) ** 2)


def with_aux(x):
    return np.sum(x ** 2), x * 2


def test_nested_grad_and_has_aux():
    close_to_differences(meta)
    g, aux = srcad.grad(with_aux, has_aux=True)(X0)
    np.testing.assert_allclose(g, 2 * X0)
    np.testing.assert_allclose(aux, 2 * X0)


def logsumexp_of(x):
    import scipy.special
    return scipy.special.logsumexp(x)


def test_scipy_logsumexp():
    pytest.importorskip("scipy")
    np.testing.assert_allclose(srcad.grad(logsumexp_of)(X0), np.exp(X0) / np.sum(np.exp(X0)))


def neutral_blocks(x):
    with np.errstate(all="ignore"):
        a = np.log(x ** 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = np.sum(a)
    with contextlib.suppress():  # noqa: B022 - the issue names this form
        c = b * 2.0
    return c


def suppressing(x):
    with contextlib.suppress(ZeroDivisionError):
        c = np.sum(x) * 2.0
    return c


def test_value_neutral_with_and_the_refused_suppress():
    close_to_differences(neutral_blocks)
    with pytest.raises(srcad.SrcadError, match=r"test_issue16_seen\.py.*line \d+.*suppress"):
        srcad.grad(suppressing)(X0)


def test_functions_with_a_rule():
    assert np.isclose(srcad.grad(np.sqrt)(4.0), 0.25)
    assert np.isclose(srcad.grad(math.sin)(0.5), math.cos(0.5))


def second(params, x):
    return np.sum(params[0] * x) + params[1]


def first(params, x):
    return second(params, x)


def list_through_two_calls(params):
    return first(params, X0)


y = 5.0


def uses_y(y):
    return y * y


def global_named_as_parameter(x):
    return uses_y(x) + y


def test_generated_code_crashes_seen():
    g = srcad.grad(list_through_two_calls)([np.ones(3), 0.5])
    np.testing.assert_allclose(g[0], X0)
    assert np.isclose(g[1], 1.0)
    assert np.isclose(srcad.grad(global_named_as_parameter)(3.0), 6.0)


def dict_loss(d):
    return np.sum(d["a"] ** 2) + d["b"]


def star_args(*xs):
    return xs[0] * xs[1]


def sorted_in_place(x):
    z = x * 1.0
    z.sort()
    return z[0] * 2.0 + z[2]


def test_api_seams():
    assert hasattr(srcad, "tape") and hasattr(srcad, "check")
    srcad.check.check_grads(dict_loss, {"a": X0, "b": 1.0})
    r = srcad.grad(lambda x: x * x)(3)
    assert isinstance(r, float) and r == 6.0
    assert srcad.grad(star_args)(2.0, 5.0) == 5.0
    close_to_differences(sorted_in_place)
    v = np.array([1.0, 0.0, -1.0])
    np.testing.assert_allclose(srcad.hvp(lambda x: np.sum(x ** 3))(X0, v), 6 * X0 * v)
