"""Nested derivatives in every mode: ``srcad.jvp`` and ``srcad.grad`` called inside code that
is differentiated in reverse mode (``grad``: reverse over forward, reverse over reverse) or in
forward mode (``jvp``: forward over forward, forward over reverse), as GradBench's
``particle`` and ``saddle`` evals ask (``rr``, ``rf``, ``fr``, ``ff``), and once more on top
(third derivatives through a ``jvp`` called in code).

Each case is a family (the function at several points, in both outer modes) checked against
central finite differences of the function itself and against autograd, whose ``grad`` and
``make_jvp`` nest (the mirrors below are the same functions written with autograd's NumPy).
"""

import numpy as np
import pytest
from sampling import LONG
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")
make_jvp = autograd.make_jvp


# ---------------------------------------------------------------- inner functions


def pot(x, w):
    return np.sin(x * w) / (1.0 + x * x) + w * np.exp(-x)


def ag_pot(x, w):
    return anp.sin(x * w) / (1.0 + x * x) + w * anp.exp(-x)


def vpot(p, w):
    """A potential of a point ``p`` (2-vector), as particle's."""
    return 1.0 / np.sqrt((p[0] - 2.0) ** 2 + (p[1] - w) ** 2) + np.sum(p * p) * w


def ag_vpot(p, w):
    return 1.0 / anp.sqrt((p[0] - 2.0) ** 2 + (p[1] - w) ** 2) + anp.sum(p * p) * w


def vec(p):
    return np.tanh(p) * p[0]


def ag_vec(p):
    return anp.tanh(p) * p[0]


D_POT = srcad.grad(pot)
E0, E1 = np.array([1.0, 0.0]), np.array([0.0, 1.0])


def _ag_jvp(f, argnum, args, tangent):
    return make_jvp(f, argnum)(*args)(tangent)[1]


# ---------------------------------------------------------------- outer functions


def jvp_scalar(x, w):
    t = srcad.jvp(pot, (x, w), (1.0,), wrt=(0,))[1]
    return t * t + w


def ag_jvp_scalar(x, w):
    t = _ag_jvp(ag_pot, 0, (x, w), 1.0)
    return t * t + w


def jvp_unpacked(x, w):
    v, t = srcad.jvp(pot, (x, w), (0.5, -1.0))
    return v * t


def ag_jvp_unpacked(x, w):
    t = _ag_jvp(ag_pot, 0, (x, w), 0.5) + _ag_jvp(ag_pot, 1, (x, w), -1.0)
    return ag_pot(x, w) * t


def jvp_varied_tangent(x, w):
    """The direction itself depends on the point."""
    return srcad.jvp(pot, (x, w), (x * w,), wrt="x")[1]


def ag_jvp_varied_tangent(x, w):
    return _ag_jvp(ag_pot, 0, (x, w), x * w)


def jvp_of_grad(x, w):
    """A second derivative inside: the jvp of a srcad.grad function."""
    return srcad.jvp(D_POT, (x, w), (1.0,), wrt=0)[1] * w


def ag_jvp_of_grad(x, w):
    return _ag_jvp(autograd.grad(ag_pot), 0, (x, w), 1.0) * w


def jvp_in_loop(x, w):
    """A descent whose steps take forward-mode slopes (saddle's inner loop, shortened)."""
    for _ in range(3):
        x = x - 0.1 * srcad.jvp(pot, (x, w), (1.0,), wrt=0)[1]
    return x * w


def ag_jvp_in_loop(x, w):
    for _ in range(3):
        x = x - 0.1 * _ag_jvp(ag_pot, 0, (x, w), 1.0)
    return x * w


def force_by_jvp(p, w):
    """particle's forward-mode force: the gradient of the potential, one column a jvp."""
    d0 = srcad.jvp(vpot, (p, w), (np.array([1.0, 0.0]),), wrt=(0,))[1]
    d1 = srcad.jvp(vpot, (p, w), (np.array([0.0, 1.0]),), wrt=(0,))[1]
    return np.array([d0, d1])


def jvp_array(w, p):
    f = force_by_jvp(p, w)
    return f[0] * f[0] + f[1] * p[0]


def ag_jvp_array(w, p):
    d0 = _ag_jvp(ag_vpot, 0, (p, w), E0)
    d1 = _ag_jvp(ag_vpot, 0, (p, w), E1)
    return d0 * d0 + d1 * p[0]


def jvp_array_out(w, p):
    """The tangent is an array; the direction is the (varied) point itself."""
    t = srcad.jvp(vec, (p * w,), (p,))[1]
    return np.sum(t * t) + w


def ag_jvp_array_out(w, p):
    t = _ag_jvp(ag_vec, 0, (p * w,), p)
    return anp.sum(t * t) + w


def jvp_of_held_lambda(x, w):
    """A lambda holding the point: the outer derivative sees through the values held."""
    return srcad.jvp(lambda y: pot(y * w, x), (x,), (w,))[1] + x


def ag_jvp_of_held_lambda(x, w):
    return _ag_jvp(lambda y: ag_pot(y * w, x), 0, (x,), w) + x


def grad_in_code(x, w):
    """reverse inside, for the forward-over-reverse rows."""
    return D_POT(x, w) ** 2 * w


def ag_grad_in_code(x, w):
    return autograd.grad(ag_pot)(x, w) ** 2 * w


SCALAR = [(jvp_scalar, ag_jvp_scalar), (jvp_unpacked, ag_jvp_unpacked),
          (jvp_varied_tangent, ag_jvp_varied_tangent), (jvp_of_grad, ag_jvp_of_grad),
          (jvp_in_loop, ag_jvp_in_loop), (grad_in_code, ag_grad_in_code),
          (jvp_of_held_lambda, ag_jvp_of_held_lambda)]
ARRAY = [(jvp_array, ag_jvp_array), (jvp_array_out, ag_jvp_array_out)]
POINTS = [(0.3, 1.3), (-0.8, 0.6), (1.1, -0.4)]
IDS = [f[0].__name__ for f in SCALAR]


@pytest.mark.parametrize(("f", "mirror"), SCALAR, ids=IDS)
@pytest.mark.parametrize(("x", "w"), POINTS)
def test_reverse_over_inner_derivative(f, mirror, x, w):
    ours = srcad.grad(f, wrt=(0, 1))(x, w)
    assert np.allclose(ours, numerical_grad(f, (x, w), (0, 1)), rtol=1e-6, atol=1e-8)
    want = (autograd.grad(mirror, 0)(x, w), autograd.grad(mirror, 1)(x, w))
    assert np.allclose(ours, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("f", "mirror"), SCALAR, ids=IDS)
@pytest.mark.parametrize(("x", "w"), POINTS)
def test_forward_over_inner_derivative(f, mirror, x, w):
    u = (0.6, -1.7)
    value, tangent = srcad.jvp(f, (x, w), u)
    assert value == pytest.approx(mirror(x, w), rel=1e-12)
    h = 1e-6
    fd = (f(x + h * u[0], w + h * u[1]) - f(x - h * u[0], w - h * u[1])) / (2 * h)
    assert tangent == pytest.approx(fd, rel=1e-6, abs=1e-8)
    want = _ag_jvp(mirror, 0, (x, w), u[0]) + _ag_jvp(mirror, 1, (x, w), u[1])
    assert tangent == pytest.approx(want, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize(("f", "mirror"), SCALAR[:4], ids=IDS[:4])
@pytest.mark.parametrize(("x", "w"), POINTS[:2])
@pytest.mark.parametrize("outer", ["rev", "fwd"])
def test_third_order_through_an_inner_jvp(f, mirror, x, w, outer):
    """grad of grad (or jvp of grad) of code calling srcad.jvp: the code of the jvp's split
    is split again at run time."""
    d1 = srcad.grad(f, wrt=0)
    if outer == "rev":
        ours = srcad.grad(d1, wrt=0)(x, w)
    else:
        ours = srcad.jvp(d1, (x, w), (1.0,), wrt=0)[1]
    assert ours == pytest.approx(numerical_grad(d1, (x, w), 0), rel=1e-5, abs=1e-6)
    want = autograd.grad(autograd.grad(mirror, 0), 0)(x, w)
    assert ours == pytest.approx(want, rel=1e-9, abs=1e-11)


@pytest.mark.parametrize(("f", "mirror"), ARRAY, ids=[f[0].__name__ for f in ARRAY])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_array_inner_jvp_both_outer_modes(f, mirror, seed):
    rng = np.random.default_rng(seed)
    w, p = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=2)
    ours = srcad.grad(f, wrt=(0, 1))(w, p)
    assert np.allclose(ours[0], numerical_grad(f, (w, p), 0), rtol=1e-6, atol=1e-8)
    assert np.allclose(ours[1], numerical_grad(f, (w, p), 1), rtol=1e-6, atol=1e-8)
    assert np.allclose(ours[0], autograd.grad(mirror, 0)(w, p), rtol=1e-10, atol=1e-12)
    assert np.allclose(ours[1], autograd.grad(mirror, 1)(w, p), rtol=1e-10, atol=1e-12)
    u = rng.normal(size=2)
    _, tangent = srcad.jvp(f, (w, p), (0.7, u))
    want = _ag_jvp(mirror, 0, (w, p), 0.7) + _ag_jvp(mirror, 1, (w, p), u)
    assert tangent == pytest.approx(want, rel=1e-10, abs=1e-12)


def test_a_call_not_giving_every_parameter_is_refused():
    def partial_primals(x):
        return srcad.jvp(pot_default, (x,), (1.0,))[1]

    with pytest.raises(srcad.SrcadError, match="every parameter") as info:
        srcad.grad(partial_primals)(0.3)
    assert info.value.filename == __file__ and info.value.lineno is not None


def pot_default(x, w=1.5):
    return np.sin(x * w)


def test_the_inner_jvp_follows_a_rebound_global(monkeypatch):
    """The jvp's code reads pot's globals: rebinding one makes it (and its split) again."""
    import sys

    module = sys.modules[__name__]
    d = srcad.grad(jvp_scalar, wrt=0)
    before = d(0.3, 1.3)
    monkeypatch.setattr(module, "pot", lambda x, w: x * x * w)
    after = d(0.3, 1.3)
    assert after == pytest.approx(numerical_grad(jvp_scalar, (0.3, 1.3), 0), rel=1e-6)
    assert after != pytest.approx(before, rel=1e-3)


# ---------------------------------------------------------------- every mode at every level


def base(x):
    return np.sin(x) * x * x + np.exp(0.3 * x)


def ag_base(x):
    return anp.sin(x) * x * x + anp.exp(0.3 * x)


def _level(inner, mode):
    """A function of x calling the derivative of ``inner`` inside its code: by ``srcad.grad``
    (``r``) or by ``srcad.jvp`` (``f``)."""
    if mode == "r":
        d_inner = srcad.grad(inner)

        def by_grad(x):
            return d_inner(x)

        return by_grad

    def by_jvp(x):
        return srcad.jvp(inner, (x,), (1.0,))[1]

    return by_jvp


def _tower(modes):
    f = base
    for mode in modes:
        f = _level(f, mode)
    return f


CHAINS = ["r", "f", "rr", "rf", "fr", "ff", "rrf", "frf", "ffr", "rfr"]


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("outer", ["rev", "fwd"])
@pytest.mark.parametrize("x", [0.4, -1.1] if LONG else [0.4])  # (CI: one point; long: two)
def test_every_mode_at_every_level(chain, outer, x):
    """Derivatives called in code, each level by reverse or forward mode, the outermost by
    grad or jvp: the (len(chain) + 1)-th derivative of base, as autograd's tower gives it."""
    f = _tower(chain)
    got = srcad.grad(f)(x) if outer == "rev" else srcad.jvp(f, (x,), (1.0,))[1]
    want = ag_base
    for _ in range(len(chain) + 1):
        want = autograd.grad(want)
    assert got == pytest.approx(want(x), rel=1e-9, abs=1e-10)
    h = 1e-5
    assert got == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-5, abs=1e-6)


def jvp_of_a_parameter(x, fn):
    return srcad.jvp(fn, (x, 1.0), (1.0,), wrt=0)[1]


def jvp_of_a_computed_tuple(x):
    primals = tuple([x, 2.0])
    return srcad.jvp(pot, primals, (1.0,), wrt=0)[1]


def star_pot(*xs):
    return pot(*xs)


def jvp_of_a_computed_tuple_into_args(x):
    primals = tuple([x, 2.0])
    return srcad.jvp(star_pot, primals, (1.0,), wrt=0)[1]


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_a_jvp_of_a_computed_tuple(mode):
    """(outside28) the primals held in a name, ``pot`` fixing their number: read by position
    after a run-time check of the length (srcad.frontend.jvp_spreads)."""
    f = jvp_of_a_computed_tuple
    got = srcad.grad(f)(0.3) if mode == "rev" else srcad.jvp(f, (0.3,), (1.0,))[1]
    h = 1e-5
    assert got == pytest.approx((f(0.3 + h) - f(0.3 - h)) / (2 * h), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f", [jvp_of_a_computed_tuple_into_args], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_other_forms_of_an_inner_jvp_are_refused(f, mode):
    """Never a constant: a form lowering does not read is refused at its line, saying which
    form srcad differentiates."""
    with pytest.raises(srcad.SrcadError) as info:
        if mode == "rev":
            srcad.grad(f)(0.3)
        else:
            srcad.jvp(f, (0.3,), (1.0,))
    assert info.value.lineno is not None
    assert "srcad.jvp(f, (x, w), (t,), wrt=0)" in (info.value.hint or "") or \
        "srcad.jvp" in str(info.value)


def f2(x, w):
    return np.sin(x) * w ** 2


D_F2 = srcad.grad(f2)


def calls_with_a_keyword(x):
    return D_F2(x, w=x * 2.0) * x  # 4 x^3 cos(x)


@pytest.mark.parametrize("x", [0.3, -0.8])
def test_a_derivative_called_with_keywords_to_third_order(x):
    """The call's keywords are passed by position in the derivative's code, so it is
    differentiated again like any other (here to the third derivative of 4 x^3 cos x)."""
    want = 24 * x * np.cos(x) - 24 * x ** 2 * np.sin(x) - 4 * x ** 3 * np.cos(x)
    assert srcad.grad(srcad.grad(calls_with_a_keyword))(x) == pytest.approx(want, rel=1e-10)
    second = srcad.grad(calls_with_a_keyword)
    assert srcad.jvp(second, (x,), (1.0,))[1] == pytest.approx(want, rel=1e-10)
