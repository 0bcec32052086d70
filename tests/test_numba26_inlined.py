"""Callee parts inlined by Numba into the code calling them outside loops, compiled apart in
loops (srcad/backend/numba_inlined.py). Inlined code is lowered with the caller's options, so
a caller compiled without bounds checks (it indexes srcad's stacks only) calls twins
compiled apart with their checks: an index out of range in the callee raises IndexError as
in Python, never a read past the array, whether the call is in a loop or not. Checked
against the Python backend and central differences.

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")
pytestmark = needs_numba


def _pick(x, i):
    return x[i] * x[i] * 2.0


def _summed(x, i):
    s = 0.0
    for k in range(3):
        s = s + _pick(x, i + k)
    return s


def _once(x, i):
    return _pick(x, i) * 3.0


def test_a_callee_called_once_indexes_as_python_does():
    x = np.array([0.5, -1.0, 2.0, 1.5])
    g = srcad.grad(_once, backend="numba")
    assert np.allclose(g(x, 3), srcad.grad(_once)(x, 3), rtol=1e-12, atol=1e-12)
    with pytest.raises(IndexError):
        srcad.grad(_once)(x, 4)
    with pytest.raises(IndexError):
        g(x, 4)


def test_a_callee_in_a_loop_indexes_as_python_does():
    x = np.array([0.5, -1.0, 2.0, 1.5])
    g = srcad.grad(_summed, backend="numba")
    got = g(x, 1)
    want = srcad.grad(_summed)(x, 1)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    h = 1e-6
    central = [(_summed(x + h * e, 1) - _summed(x - h * e, 1)) / (2 * h) for e in np.eye(4)]
    assert np.allclose(got, central, rtol=1e-6, atol=1e-6)
    with pytest.raises(IndexError):
        srcad.grad(_summed)(x, 2)  # x[4]: Python raises
    with pytest.raises(IndexError):
        g(x, 2)  # and so does the compiled code, the callee's read inlined into it
