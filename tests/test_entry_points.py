"""What srcad accepts as the function to differentiate (issue 16, entry points and scoping).

Lambdas (several on a line), bound methods, static and class methods, callable objects,
functions with a derivative rule, ``has_aux``, int arguments, value-neutral ``with`` blocks,
nested functions reading names assigned after them. Every gradient is checked against finite
differences and against the reference tape (``srcad.tape``), never against srcad's own numbers.
"""

import contextlib
import dataclasses
import math
import typing
import warnings

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(16)


def agree(f, args, wrt=0, got=None, tape=True):
    """srcad's gradient of ``f`` at ``args`` (or ``got``) against finite differences and the
    reference tape."""
    if got is None:
        got = srcad.grad(f, wrt=wrt)(*args)
    expected = numerical_grad(f, args, wrt)
    if isinstance(wrt, tuple):
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    if tape:
        reference = srcad.tape.grad(_named(f, len(args)), wrt=wrt)(*args)
        if isinstance(wrt, tuple):
            for g, e in zip(got, reference, strict=True):
                np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_allclose(got, reference, rtol=1e-12, atol=1e-12)
    return got


def _named(f, n):
    """``f`` for the tape, which names its parameters: a ``*args`` function behind one that
    names ``n`` of them."""
    if not f.__code__.co_flags & 4:  # no *args
        return f
    names = ", ".join(f"a{i}" for i in range(n))
    namespace = {"f": f}
    exec(f"def named({names}):\n    return f({names})\n", namespace)  # noqa: S102
    return namespace["named"]


# ---------------------------------------------------------------- lambdas

# several lambdas on each line: srcad must tell them apart by their code
ONE = [lambda x: x * x, lambda x: np.sin(x) * x, lambda x: np.exp(-x) + x ** 3]  # noqa: E731
TWO = [lambda x, y: x * y + y, lambda x, y: np.cos(x * y), lambda x, y: x / (1.0 + y * y)]
THREE = [lambda a, b, c: a * b * c, lambda a, b, c: a + b * np.tanh(c)]
SAME_NAMES = [lambda x: x * 2.0, lambda x: x * 3.0, lambda x: x * 4.0]  # only a constant differs
LAMBDAS = ONE + TWO + THREE + SAME_NAMES


@pytest.mark.parametrize("k", range(len(LAMBDAS)))
def test_lambda_any_arity_several_on_a_line(k):
    f = LAMBDAS[k]
    n = f.__code__.co_argcount
    args = tuple(float(v) for v in RNG.uniform(0.3, 1.5, n))
    for wrt in range(n):
        agree(f, args, wrt)
    if n > 1:
        agree(f, args, tuple(range(n)))


TWINS = [lambda x: x * x, lambda x: x * x]  # noqa: E731 - the same text: either will do


def test_lambdas_told_apart_by_their_code_alone(monkeypatch):
    """Python 3.10 has no columns in code objects: the compiled comparison alone must do."""
    from srcad.frontend import lambdas

    monkeypatch.setattr(lambdas, "_by_positions", lambda candidates, code: candidates)
    srcad.clear_cache()
    for f in LAMBDAS + TWINS:
        n = f.__code__.co_argcount
        args = tuple(float(v) for v in RNG.uniform(0.3, 1.5, n))
        agree(f, args, tuple(range(n)) if n > 1 else 0, tape=False)
    srcad.clear_cache()


def test_same_shape_lambdas_differ_only_in_a_constant():
    assert [srcad.grad(f)(1.5) for f in SAME_NAMES] == [2.0, 3.0, 4.0]


def test_lambda_made_inside_a_function_reads_its_closure():
    def make(k):
        return [lambda x: k * x * x, lambda x: k + x]

    square, shift = make(3.0)
    assert srcad.grad(square)(2.0) == 12.0
    assert srcad.grad(shift)(2.0) == 1.0


def test_lambdas_holding_comprehensions_over_closure_values():
    def make(k):
        return [lambda xs: sum([k * v * v for v in xs]), lambda xs: k * xs[0]]

    square_sum, first = make(2.0)
    for f in (square_sum, first):
        agree(f, ([1.0, 3.0],), tape=False)
        assert srcad.grad(f)([1.0, 3.0]) == pytest.approx(
            numerical_grad(f, ([1.0, 3.0],), 0))


def test_lambda_spanning_lines_in_a_call():
    g = srcad.grad(
        lambda x, y: x * y
        + x * x, wrt=1)
    assert g(2.0, 5.0) == 2.0


X = np.array([0.3, -0.8, 1.1])
V = np.array([0.5, 1.0, -2.0])


def _api_cases():
    # each line holds several lambdas: the one under test and the check's own
    return [
        ("grad", lambda: srcad.grad(lambda x: x * x)(3.0), lambda: 6.0),
        ("value_and_grad", lambda: srcad.value_and_grad(lambda x: x * x)(3.0), lambda: (9.0, 6.0)),
        ("vjp", lambda: srcad.vjp(lambda x: x * x, 3.0)[1](1.0), lambda: (6.0,)),
        ("jvp", lambda: srcad.jvp(lambda x: x * x, (3.0,), (1.0,)), lambda: (9.0, 6.0)),
        ("jacobian", lambda: srcad.jacobian(lambda x: x * x)(X), lambda: np.diag(2 * X)),
        ("jacfwd", lambda: srcad.jacfwd(lambda x: np.sin(x))(X), lambda: np.diag(np.cos(X))),
        ("hessian", lambda: srcad.hessian(lambda x: np.sum(x ** 3))(X), lambda: np.diag(6 * X)),
        ("hvp", lambda: srcad.hvp(lambda x: np.sum(x ** 3), X, V), lambda: 6 * X * V),
        ("two args", lambda: srcad.grad(lambda x, y: x * y, wrt=(0, 1))(3.0, 2.0),
         lambda: (2.0, 3.0)),
    ]


@pytest.mark.parametrize("case", _api_cases(), ids=[c[0] for c in _api_cases()])
def test_lambda_in_every_api(case):
    _, run, expected = case
    got, want = run(), expected()
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_grad_decorator_still_works():
    @srcad.grad
    def f(x):
        return x * x * x

    assert f(2.0) == 12.0


def test_lambda_source_reads_like_the_lambda():
    text = srcad.source(srcad.grad(ONE[1]), 1.0)
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    # np.sin gives nan at inf, never an exception: so does its derivative (np.cos, not math.cos)
    assert "dx = np.sin(x) + x * np.cos(x)" in code


# ---------------------------------------------------------------- int arguments


@pytest.mark.parametrize("n", [3, -2, 0, np.int64(5)])
def test_int_argument_gives_a_float_gradient(n):
    def f(x, y):
        return x * x * y + x

    g = srcad.grad(f)(n, 2)
    assert type(g) is float and g == 4.0 * float(n) + 1.0
    gx, gy = srcad.grad(f, wrt=(0, 1))(n, 2)
    assert type(gx) is float and type(gy) is float and gy == float(n) ** 2
    value, g = srcad.value_and_grad(f)(n, 2)
    assert g == 4.0 * float(n) + 1.0 and value == f(float(n), 2)


# ---------------------------------------------------------------- methods and objects


class Model:
    scale = 2.0

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def loss(self, x, y=1.0):
        r = self.w * x + self.b - y
        return r * r

    def array_loss(self, x):
        return np.sum(np.tanh(self.w * x) + self.b)

    @staticmethod
    def stat(x):
        return x ** 3

    @classmethod
    def klass(cls, x):
        return cls.scale * x * x

    def __call__(self, x):
        return np.sin(self.w * x)

    def writes(self, x):
        self.w = x
        return x


@pytest.mark.parametrize("w,b,x,y", [(0.5, 0.1, 1.2, 0.3), (-1.5, 2.0, 0.4, 1.0),
                                     (3.0, -0.5, -0.7, 2.5)])
def test_bound_method(w, b, x, y):
    model = Model(w, b)
    agree(model.loss, (x, y), 0)
    agree(model.loss, (x, y), (0, 1))
    agree(model.loss, (x, y), "y")


def test_bound_method_reads_attributes_live():
    model = Model(0.5, 0.1)
    g = srcad.grad(model.loss)
    before = g(1.2)
    model.w = 2.5  # the next call must see it
    after = g(1.2)
    assert before == pytest.approx(numerical_grad(Model(0.5, 0.1).loss, (1.2,), 0))
    assert after == pytest.approx(numerical_grad(Model(2.5, 0.1).loss, (1.2,), 0))
    model.w = np.array([1.0, 2.0])  # another kind: still right
    model.b = 0.0
    assert srcad.grad(model.array_loss)(1.5) == pytest.approx(
        numerical_grad(model.array_loss, (1.5,), 0))
    # and the same gradient object made earlier
    model2 = Model(1.0, 0.0)
    g2 = srcad.grad(model2.array_loss)
    first = g2(X)
    model2.w = 3.0
    np.testing.assert_allclose(first, 1.0 - np.tanh(X) ** 2)
    np.testing.assert_allclose(g2(X), 3.0 * (1.0 - np.tanh(3.0 * X) ** 2))


def test_two_objects_two_gradients():
    a, b = Model(1.0, 0.0), Model(3.0, 0.0)
    assert srcad.grad(a.loss)(1.0, 0.0) == 2.0
    assert srcad.grad(b.loss)(1.0, 0.0) == 18.0
    assert srcad.grad(a.loss)(1.0, 0.0) == 2.0


def test_static_class_and_call():
    model = Model(0.7, 0.0)
    agree(Model.stat, (1.3,))
    agree(model.stat, (1.3,))
    assert srcad.grad(Model.klass)(1.5) == pytest.approx(2 * Model.scale * 1.5)
    assert srcad.grad(model.klass)(1.5) == pytest.approx(2 * Model.scale * 1.5)
    assert srcad.grad(model)(0.4) == pytest.approx(0.7 * math.cos(0.28))
    np.testing.assert_allclose(srcad.jacobian(model)(X), np.diag(0.7 * np.cos(0.7 * X)))
    np.testing.assert_allclose(srcad.jvp(model, (X,), (V,))[1], 0.7 * np.cos(0.7 * X) * V)


def test_method_writing_an_attribute_is_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="attribute"):
        srcad.grad(Model(1.0, 0.0).writes)(2.0)


def test_unbound_method_with_the_object_as_argument():
    model = Model(1.5, 0.2)
    got = srcad.grad(Model.loss, wrt="x")(model, 0.3)
    assert got == pytest.approx(numerical_grad(model.loss, (0.3,), 0))


# ---------------------------------------------------------------- functions with a rule


def softplus(x):
    return np.log1p(np.exp(x))


srcad.extend.defvjp(softplus, "x", x="g / (1.0 + np.exp(-x))")

RULED = [(np.sqrt, 1.7), (np.sin, 0.4), (np.tanh, -0.3), (math.sin, 0.4), (math.exp, 0.2),
         (math.log, 2.5), (np.exp, 0.1), (softplus, 0.6), (np.arctan, 1.2)]


@pytest.mark.parametrize("fn,x", RULED, ids=[getattr(f, "__name__", "f") for f, _ in RULED])
def test_function_with_a_rule_in_every_api(fn, x):
    expected = numerical_grad(fn, (x,), 0)
    assert srcad.grad(fn)(x) == pytest.approx(expected, rel=1e-7)
    value, g = srcad.value_and_grad(fn)(x)
    assert value == pytest.approx(fn(x)) and g == pytest.approx(expected, rel=1e-7)
    assert srcad.vjp(fn, x)[1](1.0)[0] == pytest.approx(expected, rel=1e-7)
    if fn is not softplus:  # its rule has no forward form (refused: test_errors.py)
        assert srcad.jvp(fn, (x,), (1.0,))[1] == pytest.approx(expected, rel=1e-7)
    second = numerical_grad(srcad.grad(fn), (x,), 0)
    assert srcad.hessian(fn)(x) == pytest.approx(second, rel=1e-5)
    assert srcad.hvp(fn, x, 2.0) == pytest.approx(2.0 * second, rel=1e-5)


def test_ufunc_on_arrays_and_two_argument_rule():
    np.testing.assert_allclose(srcad.jacobian(np.sin)(X), np.diag(np.cos(X)))
    gx, gy = srcad.grad(np.arctan2, wrt=(0, 1))(0.3, 0.8)
    assert (gx, gy) == pytest.approx(numerical_grad(np.arctan2, (0.3, 0.8), (0, 1)))
    assert srcad.grad(np.sum)(X) == pytest.approx(np.ones(3))


def test_function_without_source_or_rule_is_refused():
    with pytest.raises(srcad.SourceUnavailableError, match="nextafter"):
        srcad.grad(math.nextafter)


# ---------------------------------------------------------------- has_aux


def with_aux(x, w):
    y = np.tanh(x * w)
    loss = np.sum(y * y)
    return loss, (y, "label", 3)


def test_has_aux_grad_and_value_and_grad():
    g, aux = srcad.grad(with_aux, has_aux=True)(X, 0.7)
    np.testing.assert_allclose(g, numerical_grad(lambda x, w: with_aux(x, w)[0], (X, 0.7), 0),
                               rtol=1e-6)
    np.testing.assert_allclose(aux[0], np.tanh(X * 0.7))
    assert aux[1:] == ("label", 3)
    (value, aux2), gw = srcad.value_and_grad(with_aux, wrt="w", has_aux=True)(X, 0.7)
    assert value == pytest.approx(with_aux(X, 0.7)[0])
    assert gw == pytest.approx(numerical_grad(lambda x, w: with_aux(x, w)[0], (X, 0.7), 1))
    assert aux2[1] == "label"
    gx, gw = srcad.grad(with_aux, wrt=(0, 1), has_aux=True)(X, 0.7)[0]
    assert gw == pytest.approx(srcad.tape.grad(lambda x, w: with_aux(x, w)[0], wrt=1)(X, 0.7))


def test_has_aux_decorator_lambda_and_method():
    @srcad.grad(has_aux=True)
    def f(x):
        return x * x, x + 1.0

    assert f(3.0) == (6.0, 4.0)
    assert srcad.grad(lambda x: (x ** 3, [x]), has_aux=True)(2.0) == (12.0, [2.0])

    class M:
        k = 2.0

        def loss(self, x):
            return self.k * x * x, self.k

    assert srcad.grad(M().loss, has_aux=True)(3.0) == (12.0, 2.0)


def test_has_aux_needs_a_pair():
    def f(x):
        return x * x

    with pytest.raises(srcad.SrcadError, match="pair") as info:
        srcad.grad(f, has_aux=True)(2.0)
    assert info.value.lineno == f.__code__.co_firstlineno
    assert info.value.filename == __file__


def pair_made_apart(x, w):
    out = with_aux(x, w)
    return out


def test_has_aux_source_is_shown():
    # a function returning pair displays: its own derivative, the aux in its return
    text = srcad.source(srcad.grad(with_aux, has_aux=True), X, 0.7)
    assert "return dx, aux" in text and "keep_aux" not in text
    # a pair made elsewhere: the shim's, whose forward sweep hands the aux over
    assert "keep_aux" in srcad.source(srcad.grad(pair_made_apart, has_aux=True), X, 0.7)


# ---------------------------------------------------------------- with blocks


def with_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x) * x
    return np.sum(y)


def with_warnings(x):
    s = 0.0
    for i in range(3):
        with warnings.catch_warnings():
            s = s + np.sin(x * i)
    return s


def with_several(x):
    with contextlib.suppress(), np.printoptions(precision=3):  # noqa: B022 - on purpose
        y = x * x
        if y > 1.0:
            with contextlib.nullcontext(y) as z:
                y = z * x
    return y


def with_raise(x):
    with np.errstate(all="raise"):
        y = x * x
    return y


def with_suppress_error(x):
    with contextlib.suppress(ValueError):
        y = x * x
    return y


def with_open(x):
    with open(__file__) as handle:
        y = x * len(handle.read(1))
    return y


@pytest.mark.parametrize("f,x", [(with_errstate, np.array([0.5, 2.0])), (with_warnings, 0.7),
                                 (with_several, 0.5), (with_several, 1.5)])
def test_value_neutral_with_blocks(f, x):
    agree(f, (x,))


@pytest.mark.parametrize("f,words", [(with_raise, "raise"), (with_suppress_error, "skips"),
                                     (with_open, "with block")])
def test_other_with_blocks_are_refused(f, words):
    with pytest.raises(srcad.UnsupportedSyntaxError, match=words) as info:
        srcad.grad(f)(1.0)
    assert info.value.lineno == f.__code__.co_firstlineno + 1


def with_try(x):
    try:
        y = x * x
    except ValueError:
        y = x
    return y


def test_try_is_refused_clearly():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="try") as info:
        srcad.grad(with_try)(1.0)
    assert info.value.lineno == with_try.__code__.co_firstlineno + 1


# ---------------------------------------------------------------- Python's scoping


def late_constant(x):
    def h(y):
        return y * Q
    Q = 3.0
    return h(x)


def late_active(x):
    def h(y):
        return y * Q + R
    Q = np.sin(x)
    R = x * x
    return h(x)


def late_rebound(x):
    def h(y):
        return y * Q
    Q = 2.0
    a = h(x)
    Q = x * x
    return a + h(x)


def late_in_loop(x):
    def h(y):
        return y * Q
    s = 0.0
    for i in range(3):
        Q = x * i
        s = s + h(x)
    return s


@pytest.mark.parametrize("f", [late_constant, late_active, late_rebound, late_in_loop])
@pytest.mark.parametrize("x", [0.3, 1.7, -0.9])
def test_nested_function_reads_names_assigned_after_it(f, x):
    agree(f, (x,))


def read_too_early(x):
    def h(y):
        return y * Q
    a = h(x)
    Q = 3.0
    return a + Q


def test_nested_function_called_before_its_name_is_assigned():
    with pytest.raises(srcad.SrcadError, match="not assigned yet"):
        srcad.grad(read_too_early)(1.0)


# ------------------------------------------------------- the checking tools take containers


def params_loss(p, x):
    return p["a"] * np.sum(p["w"] * x) + p["pair"][0] * p["pair"][1] ** 2


def _params():
    return {"a": 0.7, "w": RNG.normal(size=3), "pair": [1.3, -0.4]}


def test_check_grads_and_numerical_grad_take_dict_parameters():
    p, x = _params(), RNG.normal(size=3)
    srcad.check.check_grads(params_loss, p, x)  # every float argument, the dict among them
    srcad.check.check_grads(params_loss, p, x, wrt=0)
    g = srcad.grad(params_loss)(p, x)
    numeric = numerical_grad(params_loss, (p, x), 0)
    assert set(numeric) == {"a", "w", "pair"} and isinstance(numeric["pair"], list)
    for key in ("a", "w"):
        np.testing.assert_allclose(g[key], numeric[key], rtol=1e-6)
    np.testing.assert_allclose(g["pair"], numeric["pair"], rtol=1e-6)
    tape = srcad.tape.grad(params_loss)(p, x)
    np.testing.assert_allclose(g["w"], tape["w"], rtol=1e-12)
    assert g["pair"] == pytest.approx(tape["pair"], rel=1e-12)


def test_check_grads_catches_a_wrong_container_gradient(monkeypatch):
    from srcad.tools import check

    p, x = _params(), RNG.normal(size=3)
    real = srcad.grad

    def wrong(f, wrt=0):
        inner = real(f, wrt=wrt)

        def g(*args):
            out = inner(*args)
            bad = dict(out[0]) if isinstance(out, tuple) else dict(out)
            bad["a"] = bad["a"] + 0.1
            return (bad,) + tuple(out[1:]) if isinstance(out, tuple) else bad

        return g

    monkeypatch.setattr(srcad.api, "grad", wrong)
    with pytest.raises(AssertionError, match="finite differences"):
        check.check_grads(params_loss, p, x, wrt=0)


def test_compare_takes_dict_parameters():
    p, x = _params(), RNG.normal(size=3)
    c = srcad.compare(params_loss, p, x, repeat=0, engines=("tape", "finite differences"))
    assert c.agree
    np.testing.assert_allclose(c.grads("srcad")[0], c.grads("tape")[0], rtol=1e-12)
    assert len(c.grads("srcad")[0]) == 1 + 3 + 2


# ---------------------------------------------------------------- *args functions


def star_product(*args):
    return args[0] * args[1] ** 2 + np.sin(args[-1])


def star_after(x, *rest, k=2.0):
    s = x * k
    for r in rest:
        s = s + r * x
    return s


@pytest.mark.parametrize("f,args", [(star_product, (0.3, 1.2)), (star_product, (0.3, 1.2, -0.7)),
                                    (star_after, (0.8,)), (star_after, (0.8, 1.5, -2.0))])
def test_star_args_by_position(f, args):
    for k in range(len(args)):
        agree(f, args, k)
    got = srcad.value_and_grad(f, wrt=tuple(range(len(args))))(*args)
    assert got[0] == pytest.approx(f(*args))
    agree(f, args, tuple(range(len(args))), got=got[1])
    pullback = srcad.vjp(f, *args)[1]
    np.testing.assert_allclose(pullback(1.0), numerical_grad(f, args, tuple(range(len(args)))),
                               rtol=1e-6)
    tangent = srcad.jvp(f, args, (1.0,) * len(args))[1]
    assert tangent == pytest.approx(sum(numerical_grad(f, args, tuple(range(len(args))))))


def test_star_args_keyword_and_source():
    assert srcad.grad(star_after)(0.8, 1.5, k=3.0) == pytest.approx(3.0 + 1.5)
    text = srcad.source(srcad.grad(star_product), 1.0, 2.0)
    assert "def grad_star_product(args_0, args_1)" in text
    h = srcad.hessian(star_product, wrt=(0, 1))(0.3, 1.2)
    np.testing.assert_allclose(np.array(h, dtype=float),
                               [[0.0, 2 * 1.2], [2 * 1.2, 2 * 0.3 - np.sin(1.2)]], atol=1e-12)


def test_star_args_named_in_wrt_is_refused():
    with pytest.raises(srcad.WrtError, match="positional") as info:
        srcad.grad(star_after, wrt="rest")
    assert info.value.lineno == star_after.__code__.co_firstlineno


# ---------------------------------------------------------------- hvp's point


def two_args(x, w):
    return np.sum(np.sin(x) * w) + np.sum(x ** 3) * w


def test_hvp_curried_form_takes_the_arguments_like_hessian():
    w = 0.8
    h = srcad.hessian(two_args)(X, w)
    np.testing.assert_allclose(srcad.hvp(two_args)(X, w, V), h @ V, rtol=1e-12)
    np.testing.assert_allclose(srcad.hvp(two_args, (X, w), V), h @ V, rtol=1e-12)
    hw = srcad.hessian(two_args, wrt=1)(X, w)
    assert srcad.hvp(two_args, wrt=1)(X, w, 2.0) == pytest.approx(2.0 * hw)
    numeric = numerical_grad(lambda x: float(np.dot(srcad.grad(two_args)(x, w), V)), (X,), 0)
    np.testing.assert_allclose(srcad.hvp(two_args)(X, w, V), numeric, rtol=1e-6)
    with pytest.raises(TypeError, match="vector"):
        srcad.hvp(two_args, (X, w))


def test_a_bound_object_is_not_kept_for_ever():
    import gc
    import weakref

    model = Model(1.0, 0.0)
    gone = weakref.ref(model)
    assert srcad.grad(model.loss)(1.0, 0.0) == 2.0
    del model
    for k in range(70):  # other objects take its place among the shims kept
        assert srcad.grad(Model(float(k), 0.0).loss)(1.0, 0.0) == 2.0 * k * k
    gc.collect()
    assert gone() is None


# ---------------------------------------------------------------- a generated family of lambdas

_TERMS = ["x * y", "np.sin(x)", "x ** 3", "np.exp(-y) * x", "np.tanh(x - y)", "y / (1.0 + x * x)",
          "math.cos(y) * x", "x + 2.5", "np.log1p(x * x)", "(x - 1.0) * (y + 0.5)"]


def _generated_module(tmp_path, seed):
    """A module whose every line holds two to four lambdas of one or two parameters, written
    in random order and layout (some inside calls, some nested in a lambda's body)."""
    rng = np.random.default_rng(seed)
    lines, shapes = ["import math", "import numpy as np", "", "def keep(*fs):",
                     "    return list(fs)", ""], []
    for row in range(12):
        count = int(rng.integers(2, 5))
        texts, arities = [], []
        for _ in range(count):
            a, b = rng.choice(len(_TERMS), 2, replace=False)
            body = f"{_TERMS[a]} + {float(rng.uniform(0.5, 2.0)):.3f} * {_TERMS[b]}"
            if rng.random() < 0.4:
                texts.append(f"lambda x: {body.replace('y', '(x * 0.5)')}")
                arities.append(1)
            else:
                texts.append(f"lambda x, y: {body}")
                arities.append(2)
        joined = ", ".join(texts)
        layout = row % 3
        if layout == 0:
            lines.append(f"ROW{row} = [{joined}]")
        elif layout == 1:
            lines.append(f"ROW{row} = keep({joined})")
        else:
            lines.append(f"ROW{row} = list(({joined},))")
        shapes.append(arities)
    path = tmp_path / f"generated_lambdas_{seed}.py"
    path.write_text("\n".join(lines) + "\n")
    namespace = {"__name__": f"generated_lambdas_{seed}"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    return [namespace[f"ROW{row}"] for row in range(12)], shapes


@pytest.mark.parametrize("columns", [True, False], ids=["columns", "code alone"])
@pytest.mark.parametrize("seed", range(3))
def test_generated_lines_of_lambdas(tmp_path, seed, columns, monkeypatch):
    if not columns:  # as on Python 3.10: no co_positions, the compiled comparison decides
        from srcad.frontend import lambdas

        monkeypatch.setattr(lambdas, "_by_positions", lambda candidates, code: candidates)
    rows, shapes = _generated_module(tmp_path, seed)
    for row, arities in zip(rows, shapes, strict=True):
        for f, n in zip(row, arities, strict=True):
            args = (0.7, -0.4)[:n]
            agree(f, args, tuple(range(n)) if n > 1 else 0)


# ---------------------------------------------------------------- messages


def sorts_an_array(x):
    y = x * 1.0
    y.sort()
    return np.sum(y * y)


def sorts_a_list(x):
    ys = [x, 2.0 * x]
    ys.sort()
    return ys[0]


def sorts_an_argument(x):
    x.sort()
    return np.sum(x * x)


def test_sort_in_place_of_a_fresh_value_is_a_permutation():
    x = np.array([2.0, 1.0])
    np.testing.assert_allclose(srcad.grad(sorts_an_array)(x), numerical_grad(sorts_an_array,
                                                                              (x,)))
    assert srcad.grad(sorts_a_list)(1.0) == pytest.approx(1.0)
    assert srcad.grad(sorts_a_list)(-1.0) == pytest.approx(2.0)
    y = x.copy()  # the caller's array, sorted in place as the plain run does (state36)
    np.testing.assert_allclose(srcad.grad(sorts_an_argument)(y), 2.0 * x)
    np.testing.assert_array_equal(y, np.sort(x))


# ---------------------------------------------------------------- records (pytrees)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float


@dataclasses.dataclass(frozen=True)
class Frozen:
    scale: float
    layer: Layer


class Pair(typing.NamedTuple):
    a: float
    layer: Layer


class Custom:
    """Not a dataclass: registered below."""

    def __init__(self, k, v):
        self.k, self.v = k, v


srcad.register_pytree(Custom, lambda c: {"k": c.k, "v": c.v}, lambda d: Custom(d["k"], d["v"]))


def layer_loss(p, x):
    return np.sum(np.tanh(p.w * x + p.b) ** 2) + p.w.shape[0]


def frozen_loss(p, x):
    return p.scale * np.sum(p.layer.w * x) + p.layer.b ** 2 * p.scale


def pair_loss(q, x):
    return q.a * np.sum(np.sin(q.layer.w) * x) + q.layer.b * q.a


def custom_loss(c, x):
    return c.k * c.v * x + c.k ** 2


def _as_dict_loss(loss, record):
    """The same loss over the record's fields given as a dict (what srcad.tape and finite
    differences take), and those fields."""
    from srcad import pytrees

    fields = pytrees.flatten(record)

    def rebuilt(d, x):
        return loss(pytrees.unflatten(record, d), x)

    return rebuilt, fields


def _records():
    layer = Layer(RNG.normal(size=3), float(RNG.normal()))
    return [(layer_loss, layer), (frozen_loss, Frozen(1.7, layer)), (pair_loss, Pair(-0.6, layer)),
            (custom_loss, Custom(0.8, 1.3))]


@pytest.mark.parametrize("k", range(4))
def test_a_record_as_wrt_gives_a_record_of_gradients(k):
    loss, record = _records()[k]
    x = RNG.normal(size=3) if loss is not custom_loss else 0.9
    got = srcad.grad(loss)(record, x)
    assert type(got) is type(record)
    rebuilt, fields = _as_dict_loss(loss, record)
    expected = numerical_grad(rebuilt, (fields, x), 0)
    from srcad import pytrees

    flat = pytrees.flatten(got)
    for a, e in zip(srcad.core.trees.leaves(flat), srcad.core.trees.leaves(expected), strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-9)
    value, (g_record, g_x) = srcad.value_and_grad(loss, wrt=(0, 1))(record, x)
    assert value == pytest.approx(loss(record, x))
    np.testing.assert_allclose(g_x, numerical_grad(loss, (record, x), 1), rtol=1e-6)
    assert type(g_record) is type(record)


def test_record_fields_of_another_kind_make_new_code():
    a = Layer(np.array([1.0, 2.0]), 0.5)
    b = Layer(np.array([[1.0], [2.0]]), 0.5)  # another rank: other code, never the old one
    x = np.array([0.3, -0.2])
    g = srcad.grad(layer_loss)
    for p in (a, b, a):
        got = g(p, x)
        rebuilt, fields = _as_dict_loss(layer_loss, p)
        np.testing.assert_allclose(got.w, numerical_grad(rebuilt, (fields, x), 0)["w"],
                                   rtol=1e-6)


def passes_the_record_on(p, x):
    return layer_loss(p, x)


def stores_the_record(p, x):
    return [p][0].b * x


def writes_a_field(p, x):
    p.b = x
    return x


def calls_a_method(p, x):
    return p.k * x + p.scaled()


def test_a_record_used_whole_is_refused():
    layer = Layer(np.ones(2), 0.5)
    with pytest.raises(srcad.UnsupportedSyntaxError, match="fields") as info:
        srcad.grad(stores_the_record)(layer, np.ones(2))
    assert info.value.lineno == stores_the_record.__code__.co_firstlineno + 1
    # passed whole to a function of the user's: its copy taking the fields (passed_records)
    got, want = srcad.grad(passes_the_record_on)(layer, np.ones(2)), srcad.grad(layer_loss)(
        layer, np.ones(2))
    np.testing.assert_allclose(got.w, want.w)
    np.testing.assert_allclose(got.b, want.b)
    with pytest.raises(srcad.UnsupportedSyntaxError):
        srcad.grad(writes_a_field)(layer, 1.0)
    with pytest.raises(srcad.UnsupportedSyntaxError):
        srcad.grad(calls_a_method)(Custom(1.0, 2.0), 1.0)


def test_a_record_not_in_wrt_is_read_live():
    layer = Layer(np.array([1.0, 2.0]), 0.5)
    x = np.array([0.3, -0.2])
    g = srcad.grad(layer_loss, wrt=1)
    first = g(layer, x)
    layer.b = 2.0
    np.testing.assert_allclose(g(layer, x), numerical_grad(layer_loss, (layer, x), 1), rtol=1e-6)
    assert not np.allclose(first, g(layer, x))


def shadows_the_record(p, x):
    def h(p):
        return p.b * x
    return h(p)


def test_a_nested_parameter_named_like_the_record_is_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="nested function"):
        srcad.grad(shadows_the_record)(Layer(np.ones(2), 0.5), 1.0)


def test_a_lambda_whose_line_was_edited_is_refused(tmp_path):
    import importlib.util
    import linecache

    path = tmp_path / "edited_lambda.py"
    path.write_text("square = lambda x: x * x  # noqa: E731\n")
    spec = importlib.util.spec_from_file_location("edited_lambda", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.square(3.0) == 9.0
    path.write_text("square = lambda x: x * x * x  # noqa: E731\n")
    linecache.checkcache(str(path))
    with pytest.raises(srcad.SourceUnavailableError, match="edited"):
        srcad.grad(module.square)(3.0)
