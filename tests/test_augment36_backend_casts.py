"""``y op= v`` keeps ``y``'s dtype, or raises where Python raises, in every backend (session 36;
:mod:`srcad.frontend.augmented_casts`, :mod:`srcad.backend.numba_casts`):

* Numba: the compiled code wrote ``y_1 = y * s`` without the cast, so a float32 ``y`` times a
  float64 ``s`` was float64 where the plain run keeps float32 (the value differed at float32's
  rounding: 0.42299997746944434 against 0.4229999899864197 below), and a dead ``z /= 2`` into
  an int array was dropped: a gradient returned for a function that raises. The cast is
  compiled now (the plain run's value, bit for bit), and an int ``z /= 2`` is refused when
  Numba compiles, naming the line;
* Dask: ``y *= s`` on a Dask array rebinds ``y`` (Dask arrays have no in-place operations), so
  the plain run computes in float64 as srcad does: checked, value and gradient;
* array-api-strict: its in-place operation raises where the dtype would change (float32
  times a float64 array); srcad's code returned a value and a gradient. It raises the
  library's own error now, and keeps float32 where the library does (``y *= 2.0``).

Gradients against central differences on the float64 twin and the Python backend."""

import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

X = np.array([0.4, -1.3])
Z = np.array([1.1, 0.7], dtype=np.float32)

NAMED = """import numpy as np


def f(x, z):
    y = z.copy()
    y {op} np.sum(x) * 0.7
    return np.sum(y * x)


def h(x):
    z = np.arange(3)
    z /= 2
    return np.sum(x) * x
"""
OPS = ["*=", "+=", "-=", "/="]


@pytest.mark.parametrize("op", OPS)
def test_numba_keeps_a_float32_dtype(load_module, op):
    if not LONG:
        pytest.skip("the long run's (Numba compiles: ~10 s a case)")
    pytest.importorskip("numba")
    m = load_module(f"aug36_numba_{op[0] == '*'}_{abs(hash(op))}", NAMED.format(op=op))
    value, g = srcad.value_and_grad(m.f, backend="numba")(X, Z)
    assert value == m.f(X, Z)  # bit for bit: float32's rounding, as the plain run
    python = srcad.value_and_grad(m.f)(X, Z)
    assert value == python[0]
    np.testing.assert_allclose(g, python[1], rtol=1e-12)
    np.testing.assert_allclose(g, central(m.f, (X, Z.astype(float)), 0), rtol=1e-5)


def test_numba_refuses_an_int_array_divided_in_place(load_module):
    pytest.importorskip("numba")
    m = load_module("aug36_numba_int", NAMED.format(op="*="))
    with pytest.raises(TypeError):  # NumPy's UFuncTypeError
        m.h(1.3)
    with pytest.raises(srcad.SrcadError) as caught:  # (returned 2.6 at 56e98853)
        srcad.grad(m.h, backend="numba")(1.3)
    assert "line 12" in str(caught.value) and "z /= 2" in str(caught.value)


def test_dask_rebinds_as_the_plain_run(load_module):
    da = pytest.importorskip("dask.array")
    m = load_module("aug36_dask", NAMED.format(op="*="))
    x, z = da.from_array(X, chunks=1), da.from_array(Z, chunks=1)
    plain = m.f(x, z).compute()
    assert plain.dtype == np.float64 and plain != m.f(X, Z)  # not NumPy's float32 value
    value, g = srcad.value_and_grad(m.f)(x, z)
    assert np.asarray(value) == plain
    want = central(lambda v: float(m.f(v, Z.astype(float))), (X,), 0)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


STRICT = """from array_api_compat import array_namespace


def f(x):
    s = array_namespace(x)
    y = s.ones(2, dtype=s.float32) * 1.3
    y *= {value}
    return s.sum(y * x)
"""


@pytest.mark.parametrize("kind", ["grad", "jvp"])
def test_array_api_strict_raises_where_it_raises(load_module, kind):
    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    m = load_module("aug36_strict_raises", STRICT.format(value="s.sum(x)"))
    x = xp.asarray(X)
    with pytest.raises(TypeError) as plain:  # float32 *= a float64 array: no in-place cast
        m.f(x)
    with pytest.raises(type(plain.value)) as caught:  # (a value and a gradient at 56e98853)
        srcad.grad(m.f)(x) if kind == "grad" else srcad.jvp(m.f, (x,), (xp.ones_like(x),))
    assert str(caught.value) == str(plain.value)


def test_array_api_strict_keeps_float32(load_module):
    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    m = load_module("aug36_strict_kept", STRICT.format(value="2.0"))
    x = xp.asarray(X)
    value, g = srcad.value_and_grad(m.f)(x)
    assert float(value) == float(m.f(x))
    want = central(lambda v: float(m.f(xp.asarray(v))), (X,), 0)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5)
