"""The short paths a second call of ``vjp``, ``jvp``, ``jacobian``, ``hessian`` and ``hvp``
takes (found by the argument types, array ranks and dtypes, not the full cache key) hold
only what they were made for: a sequence of calls mixing argument kinds, shapes, numbers of
arguments, outputs that are scalars or not, and bad tangents gives at each step what a fresh
call gives, checked against autograd and finite differences; bad input is refused each time.
"""

import math

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad
from test_jacobian_caching import a_switching, switching  # a scalar for n == 1, else not

import srcad
from srcad.errors import SrcadError, WrtError


def f(x, w):
    return np.sum(np.sin(x * w) * x) + w * w


def a_f(x, w):
    return anp.sum(anp.sin(x * w) * x) + w * w




def star(*xs):
    total = 0.0
    for x in xs:
        total = total + np.sum(np.cos(x) * x)
    return total


def a_star(*xs):
    total = 0.0
    for x in xs:
        total = total + anp.sum(anp.cos(x) * x)
    return total


RNG = np.random.default_rng(11)
# argument sequences: kinds seen before come back after others, shapes change within a rank
POINTS = [0.4, RNG.uniform(0.2, 0.9, 3), RNG.uniform(0.2, 0.9, 5), 0.7,
          RNG.uniform(0.2, 0.9, (2, 2)), RNG.uniform(0.2, 0.9, 3),
          RNG.uniform(0.2, 0.9, 3).astype(np.float32), RNG.uniform(0.2, 0.9, 4)]


def _close(got, want, tol=1e-8):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("order", range(4))
def test_jvp_sequence(order):
    points = POINTS[order:] + POINTS[:order]
    for x in points:
        w = 1.3
        v = np.ones(np.shape(x)) if np.shape(x) else 1.0
        value, tangent = srcad.jvp(f, (x, w), (v,), wrt=(0,))
        xf = np.asarray(x, dtype=float) if np.ndim(x) else x
        want = np.sum(autograd.grad(a_f)(xf, w) * v)
        tol = 1e-4 if np.asarray(x).dtype == np.float32 else 1e-8
        _close(value, f(x, w), tol)
        _close(tangent, want, tol)
        fd = numerical_grad(lambda t, xf=xf, v=v, w=w: f(xf + t * v, w), (0.0,))
        _close(tangent, fd, 1e-5)


@pytest.mark.parametrize("bad", [np.ones(4), 1.0, np.ones((3, 1)), np.ones(3, dtype=np.float32)[:2],
                                 None])
def test_jvp_bad_tangent_refused_after_fast_path(bad):
    x = np.linspace(0.2, 0.8, 3)
    srcad.jvp(f, (x, 1.0), (np.ones(3),), wrt=(0,))  # the fast path exists now
    with pytest.raises(SrcadError, match="tangent"):
        srcad.jvp(f, (x, 1.0), (bad,), wrt=(0,))
    # and the good call still works after the refusal
    _, t = srcad.jvp(f, (x, 1.0), (np.ones(3),), wrt=(0,))
    _close(t, np.sum(autograd.grad(a_f)(x, 1.0)))


def test_jvp_scalar_tangent_for_scalar_kinds():
    srcad.jvp(f, (0.3, 1.0), (1.0,), wrt=(1,))
    for tangent in (2.0, np.float64(0.5), 3):
        _, t = srcad.jvp(f, (0.3, 1.0), (tangent,), wrt=(1,))
        _close(t, autograd.grad(a_f, 1)(0.3, 1.0) * tangent)
    with pytest.raises(SrcadError, match="tangent"):
        srcad.jvp(f, (0.3, 1.0), (np.ones(2),), wrt=(1,))


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_sequence(mode):
    jac = srcad.jacobian(f, wrt=(0, 1), mode=mode)
    for x in POINTS:
        xf = np.asarray(x, dtype=float) if np.ndim(x) else x
        got = jac(x, 0.9)
        tol = 1e-4 if np.asarray(x).dtype == np.float32 else 1e-8
        _close(got[0], autograd.grad(a_f, 0)(xf, 0.9), tol)
        _close(got[1], autograd.grad(a_f, 1)(xf, 0.9), tol)
        if np.ndim(x) and tol < 1e-6:
            _close(got[0], numerical_grad(lambda v: f(v, 0.9), (xf,)), 1e-5)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_output_scalar_then_not(mode):
    jac = srcad.jacobian(switching, mode=mode)
    for n in (1, 1, 3, 1, 2, 1):
        x = np.linspace(0.2, 0.8, 3)
        _close(jac(x, n), autograd.jacobian(lambda v, n=n: a_switching(v, n))(x))


def test_jacobian_takes_a_container_after_arrays():
    """The types seen before (an array) must not send a list where wrt points down the
    array path: the list's Jacobian is a list, as a fresh Jacobian's."""

    def f(p):
        return np.sum(p[0] * p[1])

    jac = srcad.jacobian(f)
    _close(jac(np.array([2.0, 3.0])), np.array([3.0, 2.0]))
    p = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    got = jac(p)
    assert isinstance(got, list) and len(got) == 2
    _close(got[0], p[1])  # d/dp0 sum(p0 * p1) = p1
    _close(got[1], p[0])
    fresh = srcad.jacobian(f)(p)
    _close(got[0], fresh[0])
    _close(got[1], fresh[1])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_vjp_star_args_numbers_of_arguments(n):
    for count in (n, n + 1, n, 1):
        xs = tuple(np.linspace(0.1, 0.9, 2 + k) for k in range(count))
        value, pullback = srcad.vjp(star, *xs)
        _close(value, star(*xs))
        grads = pullback(1.0)
        for k in range(count):
            _close(grads[k], autograd.grad(a_star, k)(*xs))
        grads = pullback(2.0)  # the seed multiplies
        _close(grads[0], 2.0 * autograd.grad(a_star, 0)(*xs))


def test_vjp_output_scalar_then_not():
    x = np.linspace(0.2, 0.8, 3)
    for n in (1, 3, 1, 2):
        value, pullback = srcad.vjp(switching, x, n, wrt=0)
        dy = 1.0 if n == 1 else np.linspace(1.0, 2.0, 3)
        want = autograd.grad(lambda v, n=n, dy=dy: anp.sum(a_switching(v, n) * dy))(x)
        _close(pullback(dy), want)
        with pytest.raises(SrcadError, match="cotangent"):
            pullback(np.ones(4))


@pytest.mark.parametrize("x", [0.3, 1.1, np.linspace(0.2, 0.8, 3)])
def test_hessian_and_hvp_sequence(x):
    h = srcad.hessian(f)
    for scale in (1.0, 2.0, 1.0):
        xs = x * scale
        want = autograd.hessian(a_f)(xs, 0.7)
        _close(h(xs, 0.7), want)
        v = np.linspace(1.0, 2.0, np.size(xs)).reshape(np.shape(xs)) if np.ndim(xs) else 1.5
        got = srcad.hvp(f, (xs, 0.7), v)
        _close(got, np.tensordot(want, v, axes=np.ndim(xs)) if np.ndim(xs) else want * v)


def vector_out(x, w, scale=2.0):
    return np.sin(x * w) * scale + x[::-1] * w


def a_vector_out(x, w, scale=2.0):
    return anp.sin(x * w) * scale + x[::-1] * w


@pytest.mark.parametrize("wrt", [0, 1, (0, 1), (1, 0)])
def test_reverse_jacobian_rows_share_one_forward_part(wrt):
    """A vector output's reverse Jacobian runs f's forward part once and its backward part per
    row (the context read, never changed): each row right, call after call, for arguments
    of other kinds and shapes, a default given or not, and an integer array refused."""
    jac = srcad.jacobian(vector_out, wrt=wrt)
    for x, w, extra in [(np.linspace(0.1, 0.9, 3), 1.3, ()), (np.linspace(0.1, 0.9, 5), 0.7, ()),
                        (np.linspace(0.2, 0.8, 3), np.linspace(0.5, 1.5, 3), ()),
                        (np.linspace(0.1, 0.9, 3), 1.3, (3.0,)),
                        (np.linspace(0.1, 0.9, 4), 2, ())]:
        got = jac(x, w, *extra)
        wrts = wrt if isinstance(wrt, tuple) else (wrt,)
        want = [autograd.jacobian(a_vector_out, k)(x, float(w) if k == 1 and np.ndim(w) == 0
                                                   else w, *extra) for k in wrts]
        got = got if isinstance(wrt, tuple) else (got,)
        for g, h in zip(got, want):
            _close(g, h)
        fd = numerical_grad(lambda v, w=w, extra=extra: float(np.sum(vector_out(v, w, *extra))),
                            (x,))
        if 0 in wrts:
            _close(np.sum(got[wrts.index(0)], axis=0), fd, 1e-5)
    if 0 in (wrt if isinstance(wrt, tuple) else (wrt,)):
        with pytest.raises(WrtError, match="dtype"):
            jac(np.arange(3), 1.0)


SCALE = 2.0


def sine(t):
    return math.sin(t)


def cosine_times(t):
    return math.cos(t) * t


def g(x, w):
    return sine(x * w) * SCALE + x * x * w


def g_other(x, w):
    return math.sin(x) * w * SCALE


_A_HELPERS = {"sine": anp.sin, "cosine_times": lambda t: anp.cos(t) * t}


@pytest.mark.parametrize("api", ["jacobian", "jacrev", "jacfwd", "hessian", "hvp", "jvp", "vjp"])
def test_number_closures_follow_rebinding(api):
    """The closure each API keeps per argument types for numbers (srcad.fast_calls) holds only
    while what its code read stands: a global rebound to an object of the same kind (read at
    the call), a helper rebound to another function (code made again), the function's
    __code__ replaced, then all put back; each step called twice (the second on the
    closure), against autograd, and the first derivative against finite differences."""
    global SCALE, sine
    made = {"jacobian": lambda: srcad.jacobian(g, wrt=(0, 1)), "jacrev": lambda: srcad.jacrev(g),
            "jacfwd": lambda: srcad.jacfwd(g, wrt=(0, 1)), "hessian": lambda: srcad.hessian(g)}
    fn = made[api]() if api in made else None
    code, first_sine = g.__code__, sine
    steps = [(2.0, "sine", 0), (3.0, "sine", 0), (3.0, "cosine_times", 0), (3.0, "sine", 1),
             (2.0, "sine", 0)]
    try:
        for scale, helper, variant in steps:
            SCALE, sine = scale, first_sine if helper == "sine" else cosine_times
            g.__code__ = code if variant == 0 else g_other.__code__

            def a_g(x, w, helper=helper, variant=variant, scale=scale):
                if variant:
                    return anp.sin(x) * w * scale
                return _A_HELPERS[helper](x * w) * scale + x * x * w

            for x, w in [(0.4, 1.3), (0.4, 1.3), (0.9, 2)]:
                wf = float(w)
                d0, d1 = autograd.grad(a_g, 0)(x, wf), autograd.grad(a_g, 1)(x, wf)
                fd = numerical_grad(lambda v, w=w: g(v, w), (x,))
                if api in ("jacobian", "jacfwd"):
                    got = fn(x, w)
                    _close(got[0], d0)
                    _close(got[0], fd, 1e-5)
                    if type(w) is float:
                        _close(got[1], d1)
                elif api == "jacrev":
                    _close(fn(x, w), d0)
                elif api == "hessian":
                    _close(fn(x, w), autograd.hessian(a_g)(x, wf))
                elif api == "hvp":
                    _close(srcad.hvp(g, (x, w), 1.5), 1.5 * autograd.hessian(a_g)(x, wf))
                elif api == "jvp" and type(w) is float:
                    value, tangent = srcad.jvp(g, (x, w), (1.0, 0.5))
                    _close(value, a_g(x, wf))
                    _close(tangent, d0 + 0.5 * d1)
                elif api == "vjp":
                    value, pullback = srcad.vjp(g, x, w, wrt=0)
                    _close(value, a_g(x, wf))
                    _close(pullback(1.0), d0)
                    _close(pullback(2.0), 2.0 * d0)
    finally:
        SCALE, sine, g.__code__ = 2.0, first_sine, code


def root(x, w):
    return math.sqrt(x) * w


@pytest.mark.parametrize("x", [0.5, np.linspace(0.2, 0.8, 3)])
def test_vjp_of_a_number_output_hands_over_its_gradient(x):
    """vjp of an output that is a number computes value and gradient together (one
    value_and_grad call): the pullback of 1.0 gives the gradient each time as arrays of the
    caller's own (changing one leaves the next as it was), other cotangents scale it; a
    gradient that fails where the value does not (sqrt at 0) fails at the pullback, as
    before, not at vjp."""
    for _ in range(3):
        value, pullback = srcad.vjp(f, x, 0.8)
        _close(value, f(x, 0.8))
        want = (autograd.grad(a_f, 0)(x, 0.8), autograd.grad(a_f, 1)(x, 0.8))
        first = pullback(1.0)
        if np.ndim(x):
            first[0][...] = -1.0  # the caller's to change
        again = pullback(1.0)
        _close(again[0], want[0])
        _close(again[1], want[1])
        _close(pullback(2.5)[0], 2.5 * np.asarray(want[0]))
        fd = numerical_grad(lambda v: f(v, 0.8), (x,))
        _close(again[0], fd, 1e-5)
    for point in (0.0, 0.0, 4.0):
        value, pullback = srcad.vjp(root, point, 2.0, wrt=0)
        _close(value, root(point, 2.0))
        if point:
            _close(pullback(1.0), 0.5)
        else:
            with pytest.raises(ZeroDivisionError):
                pullback(1.0)


WEIGHTS = np.array([0.5, -1.5, 2.0])


def weighted(x, y):
    return np.sum(np.tanh(x * y) * WEIGHTS[0]) + np.sum(x) * WEIGHTS[1]


def a_weighted(x, y, weights):
    return anp.sum(anp.tanh(x * y) * weights[0]) + anp.sum(x) * weights[1]


# (x, y): ranks, dtypes, shapes shared or not, a 0-d array, a big array (np.sum's gradient a
# read-only broadcast view, which a row must not be), kinds seen before coming back
ARRAY_PAIRS = [(RNG.uniform(0.2, 0.9, 3), RNG.uniform(0.2, 0.9, 3)),
               (RNG.uniform(0.2, 0.9, 3), RNG.uniform(0.2, 0.9, 1)),
               (RNG.uniform(0.2, 0.9, (2, 3)), RNG.uniform(0.2, 0.9, 3)),
               (np.array(0.4), np.array(0.7)),
               (RNG.uniform(0.2, 0.9, 3).astype(np.float32), RNG.uniform(0.2, 0.9, 3)),
               (RNG.uniform(0.2, 0.9, 5000), RNG.uniform(0.2, 0.9, 5000)),
               (RNG.uniform(0.2, 0.9, 4), RNG.uniform(0.2, 0.9, 4)),
               (RNG.uniform(0.2, 0.9, 2), RNG.uniform(0.2, 0.9, 1))]


@pytest.mark.parametrize("order", range(0, len(ARRAY_PAIRS), 3))
@pytest.mark.parametrize("wrt", [0, (0, 1)])
@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_of_arrays_by_their_layouts(order, wrt, mode):
    """The Jacobians' lookups for arrays by their ranks, dtypes and shared shapes (reverse:
    srcad.fast_calls.rev_arrays; forward: the batched code by plain key) give at each call of
    a sequence mixing them what autograd and finite differences give, rows the caller may
    change (the next call's as they were), and follow a global rebound to another array (the
    same kind) and back."""
    global WEIGHTS
    jac = srcad.jacobian(weighted, wrt=wrt, mode=mode)
    pairs = ARRAY_PAIRS[order:] + ARRAY_PAIRS[:order]
    if mode == "fwd":  # (a column per element: not 5000 of them)
        pairs = [pair for pair in pairs if pair[0].size < 100]
    first = WEIGHTS
    try:
        for step, (x, y) in enumerate(pairs + pairs[:3]):
            WEIGHTS = first if step % 4 != 3 else first[::-1].copy()
            xf, yf = x.astype(float), y.astype(float)
            for _ in range(2):  # the second call takes the lookup
                got = jac(x, y)
                rows = (got,) if wrt == 0 else got
                tol = 1e-4 if x.dtype == np.float32 else 1e-8
                _close(rows[0], autograd.grad(a_weighted, 0)(xf, yf, WEIGHTS), tol)
                if wrt != 0:
                    _close(rows[1], autograd.grad(a_weighted, 1)(xf, yf, WEIGHTS), tol)
                assert all(np.shape(r) == np.shape(a) for r, a in zip(rows, (x, y)))
                for r in rows:
                    if np.ndim(r):
                        assert r.flags.writeable
                        r[...] = np.nan  # the caller's: the next call's rows are whole
            if x.size <= 5 and x.dtype == np.float64:
                fd = numerical_grad(lambda v, y=yf: weighted(v, y), (xf,))
                _close(rows[0] if not np.ndim(rows[0]) else jac(x, y)[0] if wrt else
                       jac(x, y), fd, 1e-5)
    finally:
        WEIGHTS = first


def test_jacobian_rows_are_never_read_only_views():
    """A row of grad's code that is a read-only view (a broadcast gradient) is copied; one the
    caller may change is the row itself; a rank-0 array's is a float."""
    from srcad.fast_calls import owned

    view = np.broadcast_to(np.array([1.0, 2.0]), (3, 2))
    row = owned(view, np.ones((3, 2)))
    assert row.flags.writeable and not np.shares_memory(row, view)
    _close(row, view)
    mine = np.arange(3.0)
    assert owned(mine, np.ones(3)) is mine
    assert type(owned(np.array(2.5), np.array(1.0))) is float


def summed(x, y):
    return np.sum(np.sin(x) * y) + np.sum(x) * 2.0


def a_summed(x, y):
    return anp.sum(anp.sin(x) * y) + anp.sum(x) * 2.0


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("as_list", [False, True])
def test_forward_sums_of_arrays(shape, as_list):
    """Forward mode writes np.sum(a) of an array as a.sum() (its tangent stays np.sum: a
    0-d array's tangent is a number, a tangent may be given as a list): jvp against autograd
    and finite differences, for arrays of rank 0, 1 and 2 and tangents as arrays or lists."""
    x = RNG.uniform(0.2, 0.9, shape)
    y = RNG.uniform(0.2, 0.9, shape)
    v = RNG.uniform(-1.0, 1.0, shape)
    tangent = v.tolist() if as_list else v
    for _ in range(2):
        value, t = srcad.jvp(summed, (x, y), (tangent,), wrt=(0,))
        _close(value, summed(x, y))
        _close(t, np.sum(autograd.grad(a_summed)(x, y) * v))
        _close(t, numerical_grad(lambda s: summed(x + s * v, y), (0.0,)), 1e-5)
