"""Gradients over CuPy arrays (on a GPU) equal NumPy's: the family of tests/array_family.py,
in grad, value_and_grad, vjp and jvp. Skipped without CuPy or without a GPU (this suite's
machines have none; benchmarks/gpu_check.py runs the same check, with timings, where there is
one)."""

import numpy as np
import pytest
from array_family import COLS, FAMILY, IDS, RNG, ROUTED, W_NP, X_NP, Y_NP, vector_output

import srcad

cp = pytest.importorskip("cupy")
try:
    GPUS = cp.cuda.runtime.getDeviceCount()
except Exception:  # noqa: BLE001 (no driver: CuPy raises its own errors)
    GPUS = 0
pytestmark = pytest.mark.skipif(not GPUS, reason="no GPU")


def assert_close(got, want):
    got, want = cp.asnumpy(got), np.asarray(want)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert np.max(np.abs(got - want), initial=0.0) <= 1e-12 * scale


@pytest.mark.parametrize("f", FAMILY + ROUTED, ids=IDS + [f.__name__ for f in ROUTED])
def test_grad_equals_numpy(f):
    want = srcad.grad(f, wrt=(0, 1, 2))(W_NP, X_NP, Y_NP)
    got = srcad.grad(f, wrt=(0, 1, 2))(cp.asarray(W_NP), cp.asarray(X_NP), cp.asarray(Y_NP))
    assert all(isinstance(g, cp.ndarray) for g in got)
    for g, r in zip(got, want):
        assert_close(g, r)


@pytest.mark.parametrize("f", FAMILY[:6], ids=IDS[:6])
def test_value_and_grad_and_jvp_equal_numpy(f):
    args = (W_NP, X_NP, Y_NP)
    on_gpu = tuple(cp.asarray(a) for a in args)
    value, grad = srcad.value_and_grad(f)(*args)
    got_value, got_grad = srcad.value_and_grad(f)(*on_gpu)
    assert_close(got_value, value)
    assert_close(got_grad, grad)
    tw = RNG.normal(size=COLS)
    want = srcad.jvp(f, args, (tw,), wrt=0)
    got = srcad.jvp(f, on_gpu, (cp.asarray(tw),), wrt=0)
    for g, r in zip(got, want):
        assert_close(g, r)


def test_vjp_equals_numpy():
    dy = RNG.normal(size=len(Y_NP))
    want = srcad.vjp(vector_output, W_NP, X_NP, Y_NP)[1](dy)
    on_gpu = (cp.asarray(W_NP), cp.asarray(X_NP), cp.asarray(Y_NP))
    got = srcad.vjp(vector_output, *on_gpu)[1](cp.asarray(dy))
    for g, r in zip(got, want):
        assert_close(g, r)
