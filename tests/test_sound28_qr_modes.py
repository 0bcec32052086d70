"""Sound28: ``scipy.linalg.qr(a, mode='r')`` (found by JAX's linalg tests through
tools/jax_scipy_records.py: testScipyQrModes) returns the 1-tuple ``(R,)``; its gradient read
``R`` as ``ans[1]`` before the factorisation's check, an IndexError (CRASH). Now the check comes
first: refused with the mode named, in reverse and forward mode. The modes that are
differentiated stay exact (central differences; under LONG only: tests/test_scipy_rules.py
checks them by default).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import srcad
from tests.sampling import LONG, sample

W = np.random.default_rng(28).standard_normal((4, 4))


def q_r(a):
    return np.sum(scipy.linalg.qr(a, mode="r")[0] * W[:a.shape[0], :a.shape[1]])


def q_raw(a):
    return np.sum(scipy.linalg.qr(a, mode="raw")[1] * W[:3, :3])


def q_economic(a):
    q, r = scipy.linalg.qr(a, mode="economic")
    return np.sum(q * W[:a.shape[0], :q.shape[1]]) + np.sum(r ** 2 * W[:r.shape[0], :r.shape[1]])


def q_full(a):
    q, r = scipy.linalg.qr(a)
    return np.sum(q * W[:q.shape[0], :q.shape[1]]) + np.sum(r * W[:r.shape[0], :r.shape[1]])


REFUSED = sample([(q_r, (3, 3)), (q_raw, (3, 3)), (q_r, (4, 3)), (q_r, (3, 4))], 4)


@pytest.mark.parametrize("fn, shape", REFUSED)
def test_qr_r_mode_refused(fn, shape):
    a = np.random.default_rng(0).standard_normal(shape)
    with pytest.raises(srcad.SrcadError, match="qr"):
        srcad.grad(fn)(a)
    with pytest.raises(srcad.SrcadError, match="qr"):
        srcad.jvp(fn, (a,), (np.ones(shape),))


EXACT = [(q_economic, (4, 3)), (q_economic, (3, 3)), (q_full, (3, 3))] if LONG else []


@pytest.mark.parametrize("fn, shape", EXACT)
def test_qr_differentiated_modes_exact(fn, shape):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape)
    v = rng.standard_normal(shape)
    h = 1e-6
    fd = (fn(a + h * v) - fn(a - h * v)) / (2 * h)
    assert np.isclose(np.sum(srcad.grad(fn)(a) * v), fd, rtol=1e-6, atol=1e-7)
    assert np.isclose(srcad.jvp(fn, (a,), (v,))[1], fd, rtol=1e-6, atol=1e-7)
