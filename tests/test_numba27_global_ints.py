"""A global int read by a callee under the Numba backend (srcad/backend/numba_constants.py,
``global_ints``): ``cam[ROT:ROT + 3]`` with ``ROT = 0`` at module level (GradBench's ``ba``, as
ADBench writes it) compiles as that constant, where it was refused ("the global value 'ROT'").
srcad records the read with the int's value as its fingerprint, so rebinding the global makes
the code again: the gradient follows it, as the Python backend's does. A global float read by a
callee stays refused (Python reads it live). Checked against the Python backend (1e-12) and
central differences.

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed).
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

START = 1
WIDTH = 2
SCALE = 0.5  # a float: read live by Python, refused in a callee by this backend
FLIP = True


def _window(x):
    s = 0.0
    for k in range(START, START + WIDTH):
        s = s + x[k] * x[k]
    return s if FLIP else -s


def windowed(x):
    return _window(x) * np.sum(x[START:START + WIDTH])


def _scaled(x):
    return x[0] * SCALE


def scaled(x):
    return _scaled(x) * 2.0


def _central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.skipif(not LONG, reason="the long run's (a Numba compile per value)")
def test_a_callee_reading_global_ints_compiles_and_follows_them():
    global START, FLIP
    x = np.array([0.5, -1.5, 2.5, 0.7, 1.1])
    fast, reference = srcad.grad(windowed, backend="numba"), srcad.grad(windowed)
    for start, flip in [(1, True), (2, True), (0, False), (3, False)]:
        START, FLIP = start, flip
        try:
            got = fast(x)
            assert np.allclose(got, reference(x), rtol=1e-12, atol=1e-12), (start, flip)
            assert np.allclose(got, _central(windowed, x), rtol=1e-6, atol=1e-6)
        finally:
            START, FLIP = 1, True


def test_a_callee_reading_a_global_float_is_refused():
    with pytest.raises(srcad.SrcadError, match="the global value 'SCALE'"):
        srcad.grad(scaled, backend="numba")(np.array([0.5, 1.5]))
