"""The Jacobians' fronts (srcad/backend/dispatch_fronts.py): the code made for numbers compiled
into the function ``jacobian``/``jacrev``/``jacfwd`` return. Their results against autograd and
against the full path (a front with nothing compiled in), for floats, float64s, 0-d arrays
and ints, the result's type as before (a float), and the code made again when a name it read
is rebound."""

import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad

SCALE = 2.0


def f_math(x):
    return math.sin(x) * x + x * x


def f_np(x):
    return np.exp(-x * x) + np.tanh(x) * SCALE


def f_two(x, y):
    return math.cos(x * y) + x / (1.0 + y * y)


def a_math(x):
    return anp.sin(x) * x + x * x


def a_np(x):
    return anp.exp(-x * x) + anp.tanh(x) * SCALE


def a_two(x, y):
    return anp.cos(x * y) + x / (1.0 + y * y)


CASES = [(f_math, a_math, 0), (f_np, a_np, 0), (f_two, a_two, 0), (f_two, a_two, 1)]
MAKERS = [srcad.jacobian, srcad.jacrev, srcad.jacfwd]


@pytest.mark.parametrize("maker", MAKERS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}-{c[2]}")
def test_front_against_autograd_and_full_path(maker, case):
    f, a, wrt = case
    n = f.__code__.co_argcount
    jac = maker(f, wrt)
    full = maker(f, wrt).__srcad_fallback__  # the Jacobian's own lookup, nothing compiled in
    for point in (0.3, -1.2, 0.7):
        args = (point,) * n if n == 1 else (point, 0.5)
        want = float(autograd.grad(a, wrt)(*args))
        for kind in (float, np.float64, np.array):
            got = jac(*map(kind, args))
            assert type(got) is float
            assert got == pytest.approx(want, rel=1e-12, abs=1e-14)
        # the front ran the code compiled in, and agrees with the full path to the last bit
        assert jac.__srcad_inlined__ is not None
        assert jac(*args) == full(*args)


def test_int_arguments_take_the_full_path():
    jac = srcad.jacobian(f_math)
    assert jac(0.5) == pytest.approx(float(autograd.grad(a_math)(0.5)))
    got = jac(2)  # an int where wrt points: the full path's float, as before the fronts
    assert type(got) is float and got == pytest.approx(float(autograd.grad(a_math)(2.0)))
    fwd = srcad.jacfwd(f_math)
    assert fwd(2) == pytest.approx(float(autograd.grad(a_math)(2.0)))


def test_bool_refused_as_before():
    jac = srcad.jacobian(f_math)
    jac(0.5)
    with pytest.raises(Exception) as front:  # noqa: PT011 - whatever the full path raises
        jac(True)
    with pytest.raises(type(front.value)):
        srcad.jacobian(f_math)(True)


def test_rebound_name_makes_the_code_again():
    global SCALE
    jac, fwd = srcad.jacobian(f_np), srcad.jacfwd(f_np)
    before = (jac(0.4), fwd(0.4))
    SCALE = 3.0
    try:
        want = float(autograd.grad(a_np)(0.4))
        assert jac(0.4) == pytest.approx(want) and fwd(0.4) == pytest.approx(want)
        assert jac(0.4) != before[0]
    finally:
        SCALE = 2.0
    assert (jac(0.4), fwd(0.4)) == before


def test_front_follows_central_differences():
    jac = srcad.jacrev(f_two, 1)
    for x, y in ((0.2, 0.9), (1.5, -0.4)):
        h = 1e-6
        fd = (f_two(x, y + h) - f_two(x, y - h)) / (2 * h)
        assert jac(x, y) == pytest.approx(fd, rel=1e-6)


def test_arguments_given_as_before():
    jac = srcad.jacobian(f_two)
    assert jac(0.3, 0.5) == pytest.approx(float(autograd.grad(a_two)(0.3, 0.5)))
    for args in ((0.3,), (0.3, 0.5, 0.1), ()):  # too few, too many: refused as before
        with pytest.raises(TypeError) as got:
            jac(*args)
        with pytest.raises(type(got.value)):
            jac.__srcad_fallback__(*args)


def test_hessian_front():
    hess = srcad.hessian(f_math)
    for x in (0.3, -0.8):
        want = float(autograd.hessian(a_math)(x))
        assert hess(x) == pytest.approx(want, rel=1e-12)
        assert type(hess(np.float64(x))) is float
    assert hess.__srcad_inlined__ is not None


def test_front_signature_and_name():
    import inspect

    jac = srcad.jacobian(f_two)
    assert jac.__name__ == "f_two"
    assert list(inspect.signature(jac).parameters) == ["x", "y"]
    with pytest.raises(TypeError):
        jac(0.5, y=0.2)


def test_user_names_for_builtins_do_not_reach_the_front(tmp_path):
    import importlib.util

    path = tmp_path / "calls26_shadowing.py"
    path.write_text("import math\nfloat = int\ntype = None\n\n\n"
                    "def g(x):\n    return math.sin(x) * x\n")
    spec = importlib.util.spec_from_file_location("calls26_shadowing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for maker in (srcad.jacobian, srcad.jacfwd):
        jac = maker(module.g)
        for _ in range(2):
            got = jac(0.5)
            assert type(got) is float
            assert got == pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5), rel=1e-12)
        assert jac.__srcad_inlined__ is not None  # the front's code ran for the second call


def test_arrays_through_the_front_as_before():
    def vec(x):
        return np.sum(np.sin(x) * x)

    jac = srcad.jacobian(vec)
    x = np.linspace(0.1, 0.9, 5)
    for _ in range(2):
        got = jac(x)
        assert got.shape == (5,)
        np.testing.assert_allclose(got, autograd.grad(lambda a: anp.sum(anp.sin(a) * a))(x),
                                   rtol=1e-12)


@pytest.mark.parametrize("kind", [float, np.float64, int], ids=lambda k: k.__name__)
def test_jvp_hvp_vjp_of_numbers_against_autograd(kind):
    x = kind(2) if kind is int else kind(0.7)
    want_g = float(autograd.grad(a_math)(float(x)))
    want_h = float(autograd.hessian(a_math)(float(x)))
    for _ in range(3):  # the first call makes the code, the next ones take the kept closures
        value, tangent = srcad.jvp(f_math, (x,), (1.5,))
        assert value == pytest.approx(a_math(float(x)))
        assert tangent == pytest.approx(1.5 * want_g, rel=1e-12)
        assert srcad.hvp(f_math, x, 0.5) == pytest.approx(0.5 * want_h, rel=1e-12)
        value, pullback = srcad.vjp(f_math, x)
        assert value == pytest.approx(a_math(float(x)))
        assert pullback(1.0)[0] == pytest.approx(want_g, rel=1e-12)
        assert pullback(2.0)[0] == pytest.approx(2 * want_g, rel=1e-12)


def test_jvp_code_made_again_after_a_rebinding():
    global SCALE
    want = float(autograd.grad(a_np)(0.4))
    assert srcad.jvp(f_np, (0.4,), (1.0,))[1] == pytest.approx(want)
    assert srcad.jvp(f_np, (0.4,), (1.0,))[1] == pytest.approx(want)
    SCALE = 5.0
    try:
        assert srcad.jvp(f_np, (0.4,), (1.0,))[1] == pytest.approx(float(autograd.grad(a_np)(0.4)))
        assert srcad.hvp(f_np, 0.4, 1.0) == pytest.approx(float(autograd.hessian(a_np)(0.4)))
    finally:
        SCALE = 2.0
    assert srcad.jvp(f_np, (0.4,), (1.0,))[1] == pytest.approx(want)
