"""The Numba backend against the Python backend on random array programs.

`gen_array_programs.array_programs()` draws modules whose `f(a, x)` slices, views, copies,
writes into arrays (in loops and branches, through views, with repeated fancy indices), sorts
and keeps lists. Where the Python backend (the reference, itself checked against finite
differences by tests/test_properties_arrays.py) gives `value_and_grad(f)`, the Numba backend
must either refuse with a `SrcadError` or give the same value and gradient to 1e-12 (relative)
and leave the argument as the Python backend (a plain run) leaves it. This watches the Numba
backend's own rewrites of the generated code (writes in place of `N = N + E`, fused
expressions, reused stacks, item writes into fresh arrays): a write they put where Python
would have made a new array shows up here as a different gradient.

Each program compiles with Numba (a second or more), so CI draws 2 programs (3 before
session 33); the long run (`SRCAD_LONG_PROPERTIES=1`) draws 300 times
SRCAD_PROPERTY_EXAMPLES (with np.array(b) also written np.copy(b): 146 of 200 compared, none
different, 40 refused by the Numba backend, on 6 December).
"""

from __future__ import annotations

import re

import gen_array_programs
import gen_programs
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from test_properties import SETTINGS, examples

import srcad
from srcad.backend import numba_backend

NUMBA_EXAMPLES = examples(300, 2)

COORDS = st.lists(st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False),
                  min_size=7, max_size=7)


def numba_friendly(program):
    """The program with the generator's output line written as Numba takes it:
    ``np.concatenate([np.ravel(o), ...])`` as ``np.concatenate((o.ravel(), ...))`` (the same
    values; the Python backend gets the same source). ``np.array(b)`` of an array stays (the
    Numba backend refuses it: Numba's ``np.array`` takes no array)."""
    def ravels(match):
        parts = re.sub(r"np\.ravel\(([^()]*(?:\([^()]*\))?[^()]*)\)", r"\1.ravel()",
                       match.group(1))
        return f"np.concatenate(({parts},))"
    source = re.sub(r"np\.concatenate\(\[(.*)\]\)", ravels, program.source)
    return gen_array_programs.ArrayProgram(source, program.features)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_numba")


def _python(module, a, x):
    """The Python backend's value and gradient, and ``a`` (a copy) as the call left it."""
    a = a.copy()
    try:
        with np.errstate(all="ignore"):
            return srcad.value_and_grad(module.f, wrt=(0, 1))(a, x), a
    except srcad.SrcadError:
        return None
    except (ArithmeticError, ValueError, IndexError):
        return None


@pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")
@settings(max_examples=NUMBA_EXAMPLES, **SETTINGS)
@given(program=gen_array_programs.array_programs(), p=COORDS)
def test_numba_backend_matches_python(gen_dir, program, p):
    module = gen_programs.load(numba_friendly(program), gen_dir)
    a, x = np.array(p[:6], dtype=float), float(p[6])
    reference = _python(module, a, x)
    if reference is None:
        return
    (value, (ga, gx)), left_a = reference
    if not (np.all(np.isfinite(ga)) and np.isfinite(gx) and np.isfinite(value)):
        return
    given_a = a.copy()
    try:
        with np.errstate(all="ignore"):
            got, (na, nx) = srcad.value_and_grad(module.f, wrt=(0, 1), backend="numba")(
                given_a, x)
    except srcad.SrcadError as exc:
        note(f"refused by the Numba backend: {str(exc).splitlines()[0]}")
        return
    # a program writing into its argument leaves it as a plain run does (written_state)
    assert np.array_equal(given_a, left_a), "the backends left the argument differently"
    assert np.isclose(float(got), float(value), rtol=1e-12, atol=1e-12), (got, value)
    assert np.allclose(np.asarray(na, dtype=float), np.asarray(ga, dtype=float),
                       rtol=1e-12, atol=1e-12), (na, ga)
    assert np.isclose(float(nx), float(gx), rtol=1e-12, atol=1e-12), (nx, gx)
