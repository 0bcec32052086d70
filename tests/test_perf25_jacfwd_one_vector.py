"""``jacfwd`` of one small float64 vector called again (srcad.jacobians_batched.one_vector: the
call compiled with the batched code found, its rank, dtype and the identity tests of what the
code read): each call of a sequence mixing sizes, ranks, dtypes, outputs that are a number, a
0-d array or a vector, with a global array and a helper rebound between calls, gives what
autograd and central differences give; the rows are the caller's (changing one leaves the next
call's whole)."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

SCALE = np.array([1.5, -0.5, 2.0, 0.25, 1.0, -1.0, 0.5, 3.0])


def wave(t):
    return np.sin(t)


def other_wave(t):
    return np.cos(t) * t


def scalar_out(x):
    return np.sum(wave(x * SCALE[: x.shape[-1]]) * x) + np.sum(np.exp(-x * x))


def first(x):
    return x[1]  # the tangent is a view of the identity: copied


def zero_d(x):
    return np.array(np.sum(np.cos(x) * x))


def vector_out(x):
    return np.sin(x) * x


def _a(name, scale, helper):
    a_wave = (lambda t: anp.cos(t) * t) if helper is other_wave else anp.sin
    return {"scalar_out": lambda v: anp.sum(a_wave(v * scale[: v.shape[-1]]) * v)
            + anp.sum(anp.exp(-v * v)),
            "first": lambda v: v[1],
            "zero_d": lambda v: anp.sum(anp.cos(v) * v),
            "vector_out": lambda v: anp.sin(v) * v}[name]


RNG = np.random.default_rng(25)
POINTS = [RNG.uniform(0.2, 0.9, 3), RNG.uniform(0.2, 0.9, 2), RNG.uniform(0.2, 0.9, 5),
          RNG.uniform(0.2, 0.9, (2, 3)), RNG.uniform(0.2, 0.9, 3).astype(np.float32),
          RNG.uniform(0.2, 0.9, 4)]


@pytest.mark.parametrize("f", [scalar_out, first, zero_d, vector_out], ids=lambda f: f.__name__)
def test_one_vector_jacfwd_sequence(f):
    global SCALE, wave
    jac = srcad.jacfwd(f)
    base, first_wave = SCALE, wave
    try:
        for step, x in enumerate(POINTS + POINTS[:2]):
            SCALE = base if step % 3 != 2 else base[::-1].copy()
            wave = first_wave if step % 4 != 1 else other_wave  # (its code made again)
            xf = x.astype(float)
            ref = _a(f.__name__, SCALE.copy(), wave)
            want = autograd.jacobian(ref)(xf)
            tol = 1e-4 if x.dtype == np.float32 else 1e-10
            for _ in range(2):  # the second call takes the compiled one
                got = jac(x)
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
                assert np.shape(got) == np.shape(want)
                if np.ndim(got):
                    assert got.flags.writeable
                    got[...] = np.nan  # the caller's: the next call's rows are whole
            if x.dtype == np.float64 and np.ndim(want) == 1:
                fd = numerical_grad(lambda v: float(f(v)), (xf,))
                np.testing.assert_allclose(jac(x), fd, rtol=1e-6, atol=1e-6)
    finally:
        SCALE, wave = base, first_wave
