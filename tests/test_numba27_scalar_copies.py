"""numba_scalars' copies of callees' parts inlined into a caller compiled without bounds checks
(srcad/backend/numba_inlined.py, ``_copy_indexes``).

A caller that subscripts srcad's stacks only is compiled without Numba's bounds checks; the
copies :mod:`srcad.backend.numba_scalars` makes of the callees' parts it calls (a small array
the caller made, given as numbers) are inlined into it and lowered with its options. On main
(before numba27) an index past the end in such a copy read past the array (``[0, 0, 0]``
for ``x[3]`` of three items, a segmentation fault for ``x[100000]``) where Python raises
IndexError: the caller is now compiled with its checks when a copy it holds indexes anything.
Each case: the Numba backend against the Python backend (1e-12) and central differences in
range, IndexError out of range in both, and the compile seen holding a copy.

Imports ``srcad``, ``srcad.backend`` (numba_backend, numba_inlined).
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend, numba_inlined

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _energy(p, x, k):
    return x[k] * x[k] + p[0] * p[1]


def _read(x, k):
    return x[k] * 2.0


def _nested(p, x, k):
    return _read(x, k) * _read(x, k) + p[0] * p[1]


def _summed(p, x, k):
    s = p[0] * p[1]
    for j in range(k):
        s = s + x[j] * x[j]
    return s



def _f_energy(x, k, w):
    p = np.array([w, 1.0])
    return _energy(p, x, k)


def _f_nested(x, k, w):
    p = np.array([w, 1.0])
    return _nested(p, x, k)


def _f_summed(x, k, w):
    p = np.array([w, 1.0])
    return _summed(p, x, k)


#: (function, an index in range, one past the end, mode); the default test's case apart
CASES = [(_f_energy, 1, 3, "value_and_grad"), (_f_nested, 2, 3, "grad"),
         (_f_nested, 2, 3, "value_and_grad"), (_f_summed, 3, 4, "grad"),
         (_f_summed, 3, 4, "value_and_grad")]


@pytest.fixture
def compiles(monkeypatch):
    """(boundscheck asked, boundscheck given, whether a scalar copy is held) per compile."""
    seen = []
    original = numba_backend.for_caller

    def spy(fn, boundscheck):
        made, checked = original(fn, boundscheck)
        copies = [c.cell_contents for c in fn.__closure__ or ()
                  if getattr(c.cell_contents, "__srcad_scalar_copy__", False)]
        seen.append((boundscheck, checked, bool(copies)))
        return made, checked

    monkeypatch.setattr(numba_backend, "for_caller", spy)
    return seen


def _central(f, x, k, w, eps=1e-6):
    return np.array([(f(x + eps * e, k, w) - f(x - eps * e, k, w)) / (2 * eps)
                     for e in np.eye(len(x))])


def _check(f, good, bad, compiles, mode):
    x = np.array([0.5, -1.5, 2.5])
    if mode == "grad":
        numba_g, python_g = srcad.grad(f, backend="numba"), srcad.grad(f)
    else:
        numba_g = srcad.value_and_grad(f, backend="numba")
        python_g = srcad.value_and_grad(f)
    got, want = numba_g(x, good, 0.3), python_g(x, good, 0.3)
    if mode != "grad":
        assert abs(got[0] - want[0]) <= 1e-12 * max(1.0, abs(want[0]))
        got, want = got[1], want[1]
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.allclose(got, _central(f, x, good, 0.3), rtol=1e-6, atol=1e-6)
    assert any(copy and not asked and checked for asked, checked, copy in compiles), compiles
    for k in (bad, bad + 1, 100000):
        with pytest.raises(IndexError):
            python_g(x, k, 0.3)
        with pytest.raises(IndexError):
            numba_g(x, k, 0.3)  # main: [0, 0, 0], or a segmentation fault


@pytest.mark.skipif(not LONG, reason="the long run's (a Numba compile; CI's budget)")
def test_a_scalar_copy_indexing_past_the_end_raises(compiles):
    _check(_f_energy, 1, 3, compiles, "grad")


@pytest.mark.skipif(not LONG, reason="the long run's (a Numba compile each)")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}-{c[3]}")
def test_scalar_copies_index_as_python_does(case, compiles):
    f, good, bad, mode = case
    _check(f, good, bad, compiles, mode)


def test_a_copy_without_subscripts_keeps_the_caller_unchecked():
    """Only a copy that indexes makes the caller checked (``_copy_indexes``)."""
    class Part:
        __srcad_scalar_copy__ = True
        __srcad_numba_part__ = True

        def __init__(self, source):
            def py_func():
                return None
            py_func.__srcad_source__ = source
            self.py_func = py_func

    assert not numba_inlined._copy_indexes(Part("def f(a, b):\n    return a * b\n"), set())
    assert numba_inlined._copy_indexes(Part("def f(x, k):\n    return x[k]\n"), set())
