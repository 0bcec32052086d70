"""``vjp`` and ``jvp`` of numbers compiled in one frame (srcad/backend/call_fronts.py): the
value and gradient code in the function ``srcad.vjp(f, ...)`` finds on ``f``, the gradient
code in the pullback it returns, the forward-mode code in ``jvp``'s. Their results against
autograd, central differences and the full path (the first call, which makes the code), for
floats, float64s, ints, 0-d arrays and arrays (the last ones: not compiled, as before), bools
refused as before; one transform per specialisation; the code made again when a name it read
is rebound; a wrapper that copied ``f.__dict__`` differentiated as itself; a pullback called
in differentiated code; ``clear_cache`` forgets the fronts."""

import functools
import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from srcad import pipeline
from srcad.backend import call_fronts

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


CASES = [(f_math, a_math), (f_np, a_np), (f_two, a_two)]


def _args(f, point, kind):
    return (kind(point),) if f.__code__.co_argcount == 1 else (kind(point), kind(0.5))


def test_vjp_front_against_autograd_and_the_full_path():
    srcad.clear_cache()
    for (f, a), kind, point in [(CASES[0], float, 0.3), (CASES[1], np.float64, -1.2),
                                (CASES[2], float, 0.3), (CASES[2], float, -1.2),
                                (CASES[2], np.float64, 0.3)]:
        args = _args(f, point, kind)
        want = [float(autograd.grad(a, k)(*map(float, args))) for k in range(len(args))]
        value0, pullback0 = srcad.vjp(f, *args)  # the full path makes the code
        first = pullback0(1.0)
        for _ in range(3):  # then the closure kept, then the front compiled at its second call
            value, pullback = srcad.vjp(f, *args)
            assert value == value0 and type(value) is type(value0)
            got = pullback(1.0)
            assert got == first and [type(g) for g in got] == [type(g) for g in first]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-14)
            assert pullback(1.0) == first  # the gradient made again: the same numbers
            assert pullback(2.0) == pytest.approx([2 * w for w in want], rel=1e-12, abs=1e-14)
        assert call_fronts.pullback_of(pullback) is not None  # the compiled pullback ran
        assert call_fronts.VJP in vars(f)


@pytest.mark.parametrize("kind", [float, np.float64], ids=lambda k: k.__name__)
def test_jvp_front_against_autograd_and_the_full_path(kind):
    srcad.clear_cache()
    for f, a in CASES:
        _jvp_case(f, a, kind)


def _jvp_case(f, a, kind):
    args = _args(f, 0.7, kind)
    tangents = tuple(kind(t) for t in (1.5, -0.25)[:len(args)])
    want = sum(float(autograd.grad(a, k)(*map(float, args))) * float(t)
               for k, t in enumerate(tangents))
    first = srcad.jvp(f, args, tangents)
    for _ in range(3):
        got = srcad.jvp(f, args, tangents)
        assert got == first and type(got[1]) is type(first[1])
        assert got[1] == pytest.approx(want, rel=1e-12)
    assert call_fronts.JVP in vars(f)


def test_fronts_follow_central_differences():
    h = 1e-6
    for x, y in ((0.2, 0.9), (1.5, -0.4)):
        fd = ((f_two(x + h, y) - f_two(x - h, y)) / (2 * h),
              (f_two(x, y + h) - f_two(x, y - h)) / (2 * h))
        for _ in range(3):
            assert srcad.vjp(f_two, x, y)[1](1.0) == pytest.approx(fd, rel=1e-6)
            assert srcad.jvp(f_two, (x, y), (1.0, 0.0))[1] == pytest.approx(fd[0], rel=1e-6)


def test_other_kinds_take_the_paths_they_took():
    srcad.clear_cache()
    for _ in range(3):
        srcad.vjp(f_math, 0.5)[1](1.0)
        srcad.jvp(f_math, (0.5,), (1.0,))
    g = float(autograd.grad(a_math)(2.0))
    for x in (2, np.array(2.0), np.array([2.0, 2.0])):  # an int, 0-d and 1-d arrays
        for _ in range(2):
            value, pullback = srcad.vjp(f_np if np.ndim(x) else f_math, x)
            if np.ndim(x):
                dy = np.ones(np.shape(x))
                want = autograd.grad(lambda v: anp.sum(a_np(v)))(np.asarray(x, dtype=float))
                np.testing.assert_allclose(pullback(dy)[0], want, rtol=1e-12)
            else:
                assert pullback(1.0)[0] == pytest.approx(g, rel=1e-12)
                assert srcad.jvp(f_math, (x,), (1.0,))[1] == pytest.approx(g, rel=1e-12)
    def with_bool():  # a bool: what the full path does, with the fronts and without them
        try:
            value, pullback = srcad.vjp(f_math, True)
            return value, pullback(1.0), srcad.jvp(f_math, (True,), (1.0,))
        except Exception as exc:  # noqa: BLE001
            return type(exc)

    fast = with_bool()
    srcad.clear_cache()
    assert with_bool() == fast


def test_bad_cotangent_refused_by_the_compiled_pullback():
    for _ in range(3):
        _, pullback = srcad.vjp(f_math, 0.4)
    assert call_fronts.pullback_of(pullback) is not None
    with pytest.raises(srcad.SrcadError):
        pullback(np.ones(3))
    with pytest.raises(srcad.SrcadError):
        pullback(None)


@pytest.fixture
def runs(monkeypatch):
    counts = {"adjoint": 0, "tangent": 0}
    for name in counts:
        original = getattr(pipeline, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(pipeline, name, counted)
    yield counts
    srcad.clear_cache()


def test_one_transform_per_specialisation(runs):
    srcad.clear_cache()
    for _ in range(2):
        srcad.vjp(f_two, 0.3, 0.5)[1](1.0)
        srcad.vjp(f_two, 0.3, 0.5)[1](2.0)  # (the vjp code: made at the first other dy)
        srcad.jvp(f_two, (0.3, 0.5), (1.0, 0.0))
    made = dict(runs)
    for _ in range(5):
        srcad.vjp(f_two, 0.3, 0.5)[1](1.0)
        srcad.vjp(f_two, 0.3, 0.5)[1](2.0)
        srcad.jvp(f_two, (0.3, 0.5), (1.0, 0.0))
    assert runs == made
    srcad.vjp(f_two, np.float64(0.3), np.float64(0.5))  # another kind: its own code
    assert srcad.vjp(f_two, np.float64(0.3), 0.5)[1](1.0) == pytest.approx(
        srcad.vjp(f_two, 0.3, 0.5)[1](1.0), rel=1e-15)


def test_rebound_name_makes_the_code_again():
    global SCALE
    for _ in range(3):
        before = (srcad.vjp(f_np, 0.4)[1](1.0), srcad.jvp(f_np, (0.4,), (1.0,)))
    SCALE = 3.0
    try:
        want = float(autograd.grad(a_np)(0.4))
        for _ in range(3):
            assert srcad.vjp(f_np, 0.4)[1](1.0)[0] == pytest.approx(want, rel=1e-12)
            assert srcad.jvp(f_np, (0.4,), (1.0,))[1] == pytest.approx(want, rel=1e-12)
        _, pullback = srcad.vjp(f_np, 0.4)
        pullback(1.0)
        SCALE = 4.0  # the pullback's second gradient: made by the code for the name as bound
        assert pullback(1.0)[0] == pytest.approx(float(autograd.grad(a_np)(0.4)), rel=1e-12)
    finally:
        SCALE = 2.0
    assert (srcad.vjp(f_np, 0.4)[1](1.0), srcad.jvp(f_np, (0.4,), (1.0,))) == before


def test_wrapper_copying_the_dict_is_differentiated_as_itself():
    for _ in range(3):
        srcad.vjp(f_math, 0.6)[1](1.0)
        srcad.jvp(f_math, (0.6,), (1.0,))

    @functools.wraps(f_math)  # copies f_math.__dict__, its fronts with it
    def doubled(x):
        return 2.0 * (math.sin(x) * x + x * x)

    assert call_fronts.VJP in vars(doubled)
    want = 2 * float(autograd.grad(a_math)(0.6))
    for _ in range(3):
        assert srcad.vjp(doubled, 0.6)[1](1.0)[0] == pytest.approx(want, rel=1e-12)
        assert srcad.jvp(doubled, (0.6,), (1.0,))[1] == pytest.approx(want, rel=1e-12)


def test_compiled_pullback_in_differentiated_code():
    for _ in range(3):
        _, pullback = srcad.vjp(f_math, 0.8)
    assert call_fronts.pullback_of(pullback) is not None

    def uses(s):
        return pullback(s)[0] * s

    g = float(autograd.grad(a_math)(0.8))
    assert srcad.grad(uses)(1.5) == pytest.approx(2 * g * 1.5, rel=1e-12)


def test_clear_cache_forgets_the_fronts():
    for _ in range(3):
        srcad.vjp(f_math, 0.6)[1](1.0)
        srcad.jvp(f_math, (0.6,), (1.0,))
    assert call_fronts.VJP in vars(f_math) and call_fronts.JVP in vars(f_math)
    srcad.clear_cache()
    assert call_fronts.VJP not in vars(f_math) and call_fronts.JVP not in vars(f_math)
    assert srcad.vjp(f_math, 0.6)[1](1.0)[0] == pytest.approx(
        float(autograd.grad(a_math)(0.6)), rel=1e-12)


def test_arguments_given_otherwise_take_the_full_path():
    for _ in range(3):
        srcad.vjp(f_two, 0.3, 0.5)[1](1.0)
        srcad.jvp(f_two, (0.3, 0.5), (1.0, 0.0))
    with pytest.raises(TypeError):
        srcad.vjp(f_two, 0.3)
    assert srcad.vjp(f_two, 0.3, 0.5, wrt=1)[1](1.0) == pytest.approx(
        float(autograd.grad(a_two, 1)(0.3, 0.5)), rel=1e-12)
    assert srcad.jvp(f_two, [0.3, 0.5], [1.0, 0.0])[1] == pytest.approx(
        float(autograd.grad(a_two, 0)(0.3, 0.5)), rel=1e-12)
    with pytest.raises(srcad.SrcadError):
        srcad.jvp(f_two, (0.3, 0.5), (1.0,))


def test_hvp_front_and_fronts_of_a_derivative():
    """``hvp(f, x, v)`` of one number: its front on ``f`` (the forward-mode code of
    ``grad(f)`` compiled in); ``vjp`` and ``jvp`` of ``grad(f)`` itself (a function srcad
    made, whose own cells must not reach the code compiled in)."""
    srcad.hessian(f_np)(0.3)  # (grad(f)'s dispatcher compiled in first, as in the benchmark)
    want = float(autograd.hessian(a_np)(0.3))
    for _ in range(3):
        assert srcad.hvp(f_np, 0.3, 0.5) == pytest.approx(0.5 * want, rel=1e-12)
        assert srcad.hvp(f_np, (0.3,), 0.5) == pytest.approx(0.5 * want, rel=1e-12)
    front = vars(f_np)[call_fronts.HVP]
    assert front(0.3, 0.5, f_np) == srcad.hvp(f_np, 0.3, 0.5)  # the front gave the result
    assert front(np.float64(0.3), 0.5, f_np) is None  # another type: hvp's own path
    assert srcad.hvp(f_np, np.float64(0.3), 0.5) == pytest.approx(0.5 * want, rel=1e-12)
    g = srcad.grad(f_np)
    for _ in range(3):
        value, pullback = srcad.vjp(g, 0.3)
        assert pullback(1.0)[0] == pytest.approx(want, rel=1e-12)
        assert srcad.jvp(g, (0.3,), (2.0,))[1] == pytest.approx(2 * want, rel=1e-12)
    assert call_fronts.pullback_of(pullback) is not None
    assert vars(g)[call_fronts.JVP]((0.3,), (2.0,), g) is not None


def f_sqrt(x):
    return math.sqrt(x) + x


def test_an_error_of_the_gradient_alone_is_raised_by_the_pullback():
    """As the closure's: ``vjp`` gives the value, the pullback raises what the gradient
    meets (here 1 / (2 sqrt(0)))."""
    for _ in range(3):
        assert srcad.vjp(f_sqrt, 0.25)[1](1.0)[0] == pytest.approx(2.0, rel=1e-12)
    assert call_fronts.VJP in vars(f_sqrt)
    for _ in range(2):
        value, pullback = srcad.vjp(f_sqrt, 0.0)
        assert value == 0.0
        with pytest.raises(ZeroDivisionError):
            pullback(1.0)
