"""``jvp`` of one array and its tangent, called again (srcad.fast_calls._one_array: the
closure compiled with the first call's rank, dtype and the identity tests of what the code
read): each call of a sequence mixing ranks, dtypes and shapes, with a global array and a
helper rebound between calls and the function's code replaced, gives what autograd and
central differences give; the closure kept is the compiled one while one rank and dtype
has been seen."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import fast_calls

WEIGHTS = np.array([0.5, -1.5, 2.0])


def sine(t):
    return np.sin(t)


def cosine_times(t):
    return np.cos(t) * t


def h(x):
    return np.sum(sine(x * WEIGHTS[: x.shape[-1]]) * x) + np.sum(np.exp(-x * x))


def h_other(x):
    return np.sum(np.tanh(x) * x)


_A = {sine: anp.sin, cosine_times: lambda t: anp.cos(t) * t}  # (the first sine)


def _reference(helper, variant):
    if variant:
        return lambda v: anp.sum(anp.tanh(v) * v)
    a_helper, w = _A[helper], WEIGHTS.copy()
    return lambda v: anp.sum(a_helper(v * w[: v.shape[-1]]) * v) + anp.sum(anp.exp(-v * v))


RNG = np.random.default_rng(25)
POINTS = [RNG.uniform(0.2, 0.9, 3), RNG.uniform(0.2, 0.9, 2), RNG.uniform(0.2, 0.9, (2, 3)),
          RNG.uniform(0.2, 0.9, 3).astype(np.float32), RNG.uniform(0.2, 0.9, 3)]


def _kept():
    return fast_calls.table(fast_calls.JVPS, h, None).get((np.ndarray, np.ndarray))


@pytest.mark.parametrize("order", [2])
def test_one_array_jvp_follows_ranks_dtypes_and_rebinding(order):
    global WEIGHTS, sine
    first_w, first_sine, code = WEIGHTS, sine, h.__code__
    steps = [(0, False, 0), (0, True, 0), (1, False, 0), (0, False, 1), (0, False, 0)]
    points = POINTS[order:] + POINTS[:order]
    try:
        for x in points:
            for helper, other_w, variant in steps:
                sine = first_sine if helper == 0 else cosine_times
                WEIGHTS = first_w[::-1].copy() if other_w else first_w
                h.__code__ = code if variant == 0 else h_other.__code__
                v = np.linspace(0.5, 1.5, x.size).reshape(x.shape).astype(x.dtype)
                ref = _reference(sine, variant)
                xf, vf = x.astype(float), v.astype(float)
                want = np.sum(autograd.grad(ref)(xf) * vf)
                tol = 1e-4 if x.dtype == np.float32 else 1e-9
                for _ in range(2):  # the second call takes the closure kept
                    value, tangent = srcad.jvp(h, (x,), (v,))
                    np.testing.assert_allclose(value, ref(xf), rtol=tol, atol=tol)
                    np.testing.assert_allclose(tangent, want, rtol=tol, atol=tol)
                if x.dtype == np.float64:
                    fd = numerical_grad(lambda t, xf=xf, vf=vf: h(xf + t * vf), (0.0,))
                    np.testing.assert_allclose(tangent, fd, rtol=1e-5, atol=1e-5)
    finally:
        WEIGHTS, sine, h.__code__ = first_w, first_sine, code


def test_the_compiled_closure_is_kept_for_one_rank_and_dtype():
    def k(x):
        return np.sum(np.sin(x) * x)

    x, v = np.linspace(0.1, 0.9, 4), np.ones(4)
    for _ in range(2):
        srcad.jvp(k, (x,), (v,))
    kept = fast_calls.table(fast_calls.JVPS, k, None)[(np.ndarray, np.ndarray)]
    assert kept.__code__.co_filename == "<srcad jvp of one array>"
    srcad.jvp(k, (np.ones((2, 2)),), (np.ones((2, 2)),))  # a second rank: the general one
    kept = fast_calls.table(fast_calls.JVPS, k, None)[(np.ndarray, np.ndarray)]
    assert kept.__code__.co_filename != "<srcad jvp of one array>"
    for y in (x, np.ones((2, 2)) * 0.3):
        _, t = srcad.jvp(k, (y,), (np.ones_like(y),))
        np.testing.assert_allclose(t, np.sum(np.cos(y) * y + np.sin(y)), rtol=1e-12)
