"""The Numba backend's small arrays held as numbers (srcad/backend/numba_scalars.py) and
``srcad.numba_function`` of a plain function (its own compiled form).

Each case runs the Numba backend (the compiled code written with its 2-element arrays as
numbers, where the code proves it may be) against the Python backend (1e-12) and central
differences; the program is read for what was replaced. Breaking a condition keeps the
array an array (a display of ints, a broadcast with a larger array, an item written after a
hand-over whose old name is read again): the values stay the Python backend's.

Imports ``srcad`` and ``srcad.backend`` (numba_backend, numba_scalars).
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend, numba_scalars

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")
long_only = pytest.mark.skipif(not LONG, reason="the long run's (Numba compiles: tens of s)")


def _pull(x, w):
    r = np.array([x[0] - 3.0, x[1] * w])
    return r * (w * w)


def _flight(w):
    x = np.array([0.0, 2.0])
    v = np.array([0.5, 0.0])
    for _ in range(6):
        v = v - 0.1 * _pull(x, w)
        x = x + 0.1 * v
    y = x.copy()
    y[1] = y[1] * w
    return y[0] * y[1] + x[1]


def _ints(w):
    a = np.array([1, 3])  # an int64 array: not held as numbers (the guard's typing error)
    b = a * w
    return b[0] * b[1] + a[1] / 2


def _broadcast(w, m):
    a = np.array([w, 2.0 * w])
    b = a + m  # (3, 2): broadcast with a larger array, an array
    return np.sum(b * b)


def _written(w):
    a = np.array([w, 1.0])
    for _ in range(3):
        a = a * w + np.array([1.0, a[0]])  # a display inside an expression
        a[1] = a[1] - w  # an item written into a copy
    return a[0] + 2 * a[1]


def _bools(w):
    a = np.array([True, False])  # a bool array: kept an array
    b = np.array([w, w * w]) * a
    return b[0] + b[1]


def _central(f, w, eps=1e-6):
    return (f(w + eps) - f(w - eps)) / (2 * eps)


def _scalarised(f, *args):
    fn, _ = srcad.api._jvp_function(f, ("w",), args, "numba")
    py = fn.__srcad_taking__[0].py_func if hasattr(fn, "__srcad_taking__") else fn.py_func
    return numba_scalars.replace(py)


@needs_numba
@long_only
@pytest.mark.parametrize("w", [0.7, -1.3, 2.2])
def test_flight_jvp_and_grad(w):
    """A loop stepping 2-element arrays, a callee returning one: forward and reverse mode."""
    made = _scalarised(_flight, w)
    assert made is not None and "x__0" in made.__srcad_source__
    assert "_pull" in made.__srcad_source__ and "__sr" in made.__srcad_source__
    value, tangent = srcad.jvp(_flight, (w,), (1.0,), backend="numba")
    ref_value, ref_tangent = srcad.jvp(_flight, (w,), (1.0,))
    assert value == pytest.approx(ref_value, rel=1e-12, abs=1e-12)
    assert tangent == pytest.approx(ref_tangent, rel=1e-12, abs=1e-12)
    assert tangent == pytest.approx(_central(_flight, w), rel=1e-6)
    assert srcad.grad(_flight, backend="numba")(w) == pytest.approx(ref_tangent, rel=1e-12)


@needs_numba
@long_only
def test_written_items_and_displays():
    made = _scalarised(_written, 0.7)
    assert made is not None and "a_1__0" in made.__srcad_source__
    for w in (0.7, -1.1):
        got = srcad.jvp(_written, (w,), (1.0,), backend="numba")
        want = srcad.jvp(_written, (w,), (1.0,))
        assert got[0] == pytest.approx(want[0], rel=1e-12)
        assert got[1] == pytest.approx(want[1], rel=1e-12)
        assert got[1] == pytest.approx(_central(_written, w), rel=1e-6)


@needs_numba
@long_only
def test_conditions_keep_arrays():
    """An int display and a broadcast against a larger array: the values of the Python
    backend (the code compiled as it was where a guard fails)."""
    for f, args in [(_ints, (0.3,)), (_broadcast, (0.3, np.ones((3, 2)))), (_bools, (0.3,))]:
        got = srcad.jvp(f, args, (1.0,), wrt=(0,), backend="numba")
        want = srcad.jvp(f, args, (1.0,), wrt=(0,))
        assert got[0] == pytest.approx(want[0], rel=1e-12)
        assert got[1] == pytest.approx(want[1], rel=1e-12)


@needs_numba
def test_numba_function_of_a_plain_function():
    """``srcad.numba_function(f, ...)`` of a plain function: ``f``'s own value, called from
    Numba code, its arrays held as numbers."""
    import numba

    primal = srcad.numba_function(_flight, 0.0)

    @numba.njit
    def twice(w):
        return primal(w) + primal(2.0 * w)

    for w in (0.4, -0.9):
        assert twice(w) == pytest.approx(_flight(w) + _flight(2.0 * w), rel=1e-12)


# ---------------------------------------------------------------- the analysis alone (no Numba)


def _analysed(text, helpers=(), given=None):
    """The names ``numba_scalars`` holds as numbers in the function ``text`` (calling srcad's
    Numba helpers by the names ``helpers``), analysed without compiling."""
    spelled = {f"numba_{h}": h for h in helpers}
    params = ", ".join(spelled)
    body = "".join("    " + line + "\n" for line in text.strip().splitlines())
    name = text.split("def ", 1)[1].split("(", 1)[0]
    scope = {"np": np}
    exec(f"def factory({params}):\n{body}    return {name}\n", scope)  # noqa: S102
    stubs = []
    for helper in spelled.values():
        def stub(*args):
            raise NotImplementedError
        stub.__srcad_numba_helper__ = helper
        stubs.append(stub)
    fn = scope["factory"](*stubs)
    fn.__srcad_source__ = text.strip() + "\n"
    found = numba_scalars._Program().function(fn, given or {}, False)
    return set(found.lengths)


def test_hand_over_read_again_keeps_arrays():
    assert _analysed("""
def f(w):
    a = np.array([w, 1.0])
    b = a
    b[0] = 2.0
    return a[0] + b[1]
""") == set()
    assert _analysed("""
def f(w):
    a = np.array([w, 1.0])
    b = a
    b[0] = 2.0 * a[1]
    return b[0] + b[1]
""") == {"a", "b"}


def test_conditions_break_replacement():
    assert _analysed("""
def f(x, w):
    x[0] = w
    return x[0] * x[1]
""", given={"x": 2}) == set()  # an item written into what the caller holds
    assert _analysed("""
def f(w):
    a = np.array([w, 1.0])
    a[0] += w
    return a[0]
""") == set()
    assert _analysed("""
def f(w, c):
    a = np.array([w, 1.0])
    if c:
        a = np.ones(2)
    return a[1]
""") == set()  # assigned by a form it does not know
    assert _analysed("""
def f(w):
    a = np.array([w, 1.0])
    b = np.array([1.0, w])
    c = numba_fused_wi_a_0_1(a, b)
    return a[0] + c[1]
""", ["fused_wi_a_0_1"]) == set()  # written into a's array, read as a: all kept
    assert _analysed("""
def f(w):
    a = np.array([w, 1.0])
    z = numba_zeros_float(a)
    s = numba_scatter(w, a, 1)
    return z[0] + s[-1] + a[0]
""", ["zeros_float", "scatter"]) == {"a", "z", "s"}
    assert _analysed("""
def f(w, k):
    a = np.array([w, 1.0])
    s = numba_scatter(w, a, 1)
    return s[0] + a[k]
""", ["scatter"]) == set()  # an index not a constant: a kept, and what is made from it
