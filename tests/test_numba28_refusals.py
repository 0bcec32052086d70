"""What the Numba backend cannot compile is refused with a SrcadError at the user's line,
naming the construct and what to write instead (#19), and the classes users meet compile
where they can (srcad/backend/numba_names.py ``INSTEAD``, ``WHOLE``, ``refused_form``;
numba_reductions.py; numba_displays.py; numba_errors.py).

Refused before compiling (the check over the generated code; a spy on ``numba_backend.jit``
shows Numba is never called): sorting (``np.sort``, ``sorted``), ``np.add.at``, a loop
variable read after the loop, ``np.mean`` / ``np.cumsum`` along an axis, ``np.argsort``
without ``kind='mergesort'``, a list display as an index. Each function's gradient under the
Python backend is checked against central differences (the construct is sound there); the
rewrite each message names compiles under Numba and agrees with the Python backend to 1e-12
(LONG: a compile of seconds each), as do ``np.mean``, ``np.cumsum`` of a whole array, list
displays of number constants and writes at a 1-d mask or a 1-d int array (repeats and negative
ints included: numba_masks.py), which compile now. A 2-d boolean mask written (``m[mask] =
v``) fails in Numba's lowering with an AssertionError that carries no location: it is placed
at the user's line (LONG).

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed), ``sampling``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _sort(a, x):
    return np.sum(np.sort(a * x) * np.arange(len(a)))


def _sorted(a, x):
    s = 0.0
    k = 1.0
    for v in sorted([a[0] * x, a[1], a[2]]):
        s = s + v * k
        k = k + 1.0
    return s


def _add_at(a, x):
    b = np.zeros(3)
    np.add.at(b, np.array([0, 1, 1]), a[:3] * x)
    return np.sum(b * b)


def _after_loop(a, x):
    s = 0.0
    for i in range(len(a)):
        s = s + a[i] * x
    return s * i


def _index_write(a, x):
    b = a * 1.0
    b[np.array([0, 2, 2])] = np.array([x, 2.0 * x, 3.0 * x])
    return np.sum(b * b)


def _mean_axis(a, x):
    return np.sum(np.mean(np.sin(a.reshape(2, 3)) * x, axis=0))


def _cumsum_axis(a, x):
    return np.sum(np.sin(np.cumsum(a.reshape(2, 3) * x, axis=1)))


def _argsort(a, x):
    v = a * x
    order = np.argsort(v)
    return v[order[0]] * 2.0 + v[order[-1]]


def _display_index(a, x):
    return np.sum(a[[0, 2, 2]] * x)


#: (function, the construct's line as written, words of the message's rewrite)
REFUSED = [
    (_sort, "return np.sum(np.sort(a * x) * np.arange(len(a)))", "kind='mergesort'"),
    (_sorted, "for v in sorted([a[0] * x, a[1], a[2]]):", "s[k] = v[order[k]]"),
    (_add_at, "np.add.at(b, np.array([0, 1, 1]), a[:3] * x)", "b[idx[k]] += v[k]"),
    (_after_loop, "return s * i", "last = i"),
    (_mean_axis, "return np.sum(np.mean(np.sin(a.reshape(2, 3)) * x, axis=0))",
     "np.sum(a, axis=k) / a.shape[k]"),
    (_cumsum_axis, "return np.sum(np.sin(np.cumsum(a.reshape(2, 3) * x, axis=1)))",
     "c[i] = c[i - 1] + a[i]"),
    (_argsort, "order = np.argsort(v)", "kind='mergesort'"),
    (_display_index, "return np.sum(a[[0, 2, 2]] * x)", "np.array([...])"),
]

A = np.array([0.3, -1.1, 0.8, 1.7, -0.4, 0.9])
X = 0.7


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    (at,) = [first + i for i, ln in enumerate(lines) if ln.strip() == text]
    return at


def _central(f, a, x, h=1e-6):
    ga = np.zeros(a.shape)
    for i in range(a.size):
        e = np.zeros(a.shape)
        e[i] = h
        ga[i] = (f(a + e, x) - f(a - e, x)) / (2 * h)
    return ga, (f(a, x + h) - f(a, x - h)) / (2 * h)


@pytest.mark.parametrize("fn, text, rewrite", REFUSED, ids=[f.__name__ for f, *_ in REFUSED])
def test_refused_before_compiling_at_the_line(fn, text, rewrite, monkeypatch):
    def no_compile(*args, **kwargs):
        raise AssertionError("Numba was asked to compile a refused construct")

    monkeypatch.setattr(numba_backend, "jit", no_compile)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.value_and_grad(fn, wrt=(0, 1), backend="numba")(A.copy(), X)
    err = info.value
    assert err.filename == __file__ and err.lineno == _line_of(fn, text), str(err)
    assert rewrite in str(err), str(err)
    assert err.__cause__ is None and "numba.core" not in str(err)


@pytest.mark.parametrize("fn", [f for f, *_ in REFUSED[:4]], ids=lambda f: f.__name__)
def test_the_python_backend_differentiates_them(fn):
    value, (ga, gx) = srcad.value_and_grad(fn, wrt=(0, 1))(A.copy(), X)
    ca, cx = _central(fn, A, X)
    assert np.allclose(ga, ca, atol=1e-6) and np.isclose(gx, cx, atol=1e-6)


# ------------------------------------------------ compiled: each against the Python backend


def _sort_rewritten(a, x):
    v = a * x
    order = np.argsort(v, kind="mergesort")
    s = np.empty(len(v))
    for k in range(len(v)):
        s[k] = v[order[k]]
    return np.sum(s * np.arange(len(a)))


def _add_at_rewritten(a, x):
    b = np.zeros(3)
    idx = np.array([0, 1, 1])
    v = a[:3] * x
    for k in range(len(idx)):
        b[idx[k]] += v[k]
    return np.sum(b * b)


def _after_loop_rewritten(a, x):
    s = 0.0
    last = 0
    for i in range(len(a)):
        s = s + a[i] * x
        last = i
    return s * last


def _index_write_rewritten(a, x):
    b = a * 1.0
    idx = np.array([0, 2, 2])
    v = np.array([x, 2.0 * x, 3.0 * x])
    for k in range(len(idx)):
        b[idx[k]] = v[k]
    return np.sum(b * b)


def _mask_where(a, x):
    b = a.reshape(2, 3) * x
    b = np.where(b > 0.5, x + 1.0, b)
    return np.sum(np.sin(b))


def _mean(a, x):
    return np.mean(np.sin(a) * x)


def _cumsum(a, x):
    return np.sum(np.sin(np.cumsum(a * x)))


def _cumsum_2d(a, x):
    return np.sum(np.sin(np.cumsum(a.reshape(3, 2) * x)) * np.arange(6.0))


def _constants(a, x):
    s = 0.0
    for c in [1.0, -2.0, 3.0]:
        s = s + c * x * a[0]
    return s


def _constants_zipped(a, x):
    s = 0.0
    for v, w in zip(a, [0.5, -1.0, 2.0]):
        s = s + v * w * x
    return s


def _int_constants(a, x):
    s = 0.0
    for k in [0, 2, 1]:
        s = s + a[k] * x * k
    return s


def _index_negative(a, x):
    b = np.cos(a) * x
    b[np.array([1, -5, 3])] = x * a[:3]
    return np.sum(b * b * a)


def _rows_written(a, x):
    m = a.reshape(3, 2) * x
    m[np.array([0, 2, 0])] = np.array([[x, 1.0], [2.0, x], [x * x, 3.0]])
    return np.sum(np.sin(m) * a.reshape(3, 2))


def _mask_dot(a, x):
    b = np.sin(a) * x
    b[b > 0.3] = np.dot(a, a)
    return np.sum(b * b)


def _mask_number(a, x):
    c = a * a
    c[c > 0.2] = x
    return np.sum(np.sin(c) * a)


def _pairs_written(a, x):
    m = a.reshape(2, 3) * x
    m[np.array([0, 1]), np.array([2, 0])] = x
    return np.sum(m * m)


def _mask_written(a, x):
    b = a * x
    b[b > 0.5] = 1.0
    return np.sum(np.sin(b))


def _mask_summed(a, x):
    b = np.sin(a) * x
    return np.sum(np.where(b > 0.5, b * b, 0.0))


def _list_as_array(a, x):
    L = []
    for i in range(3):
        L.append(a[i] * x)
    A = np.array(L)
    return np.sum(A * A) + A[-1]


def _list_and_array(a, x):
    L = []
    for i in range(3):
        L.append(a[i] * x)
    A = np.array(L)
    return np.sum(A * A) + L[-1]


COMPILED = [_cumsum, _mean, _constants, _cumsum_2d, _constants_zipped, _int_constants,
            _sort_rewritten, _add_at_rewritten, _after_loop_rewritten,
            _index_write_rewritten, _mask_where, _list_as_array, _mask_summed, _index_write,
            _index_negative, _rows_written, _mask_dot, _mask_number, _mask_written]


@pytest.mark.skipif(not LONG, reason="the long run's (a compile of seconds each)")
@pytest.mark.parametrize("fn", COMPILED, ids=lambda f: f.__name__)
def test_compiled_as_the_python_backend(fn):
    value, (ga, gx) = srcad.value_and_grad(fn, wrt=(0, 1))(A.copy(), X)
    got_value, (got_a, got_x) = srcad.value_and_grad(fn, wrt=(0, 1), backend="numba")(
        A.copy(), X)
    assert np.isclose(got_value, value, rtol=1e-12, atol=1e-14)
    assert np.allclose(got_a, ga, rtol=1e-12, atol=1e-14) and np.isclose(
        got_x, gx, rtol=1e-12, atol=1e-14)
    ca, cx = _central(fn, A, X)
    assert np.allclose(ga, ca, atol=1e-6) and np.isclose(gx, cx, atol=1e-6)


def _mask_2d(a, x):
    m = np.zeros((2, 3))
    m[a.reshape(2, 3) > 0.5] = 1.0
    return np.sum(np.sin(a)) + np.sum(m) * x


def _mask_2d_written(a, x):
    b = a.reshape(2, 3) * x
    b[b > 0.5] = 1.0
    return np.sum(np.sin(b))



@pytest.mark.skipif(not LONG, reason="the long run's (a compile of seconds each)")
@pytest.mark.parametrize("fn, text, rewrite", [
    (_mask_2d, "m[a.reshape(2, 3) > 0.5] = 1.0", "np.where(mask, v, m)"),  # Numba asserts
    (_mask_2d_written, "b[b > 0.5] = 1.0", "np.where(mask, v, m)"),  # srcad's cleared
    (_list_and_array, "A = np.array(L)", "A = np.array(L) then A[i]"),  # a typing error
    (_pairs_written, "m[np.array([0, 1]), np.array([2, 0])] = x", "y[idx[k]] = v[k]"),
], ids=["mask_2d", "mask_2d_written", "list_and_array", "pairs_written"])
def test_refused_while_compiling_at_the_line(fn, text, rewrite):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.value_and_grad(fn, wrt=(0, 1), backend="numba")(A.copy(), X)
    err = info.value
    assert err.filename == __file__ and err.lineno == _line_of(fn, text), str(err)
    assert rewrite in str(err) and err.__cause__ is None, str(err)


def _plain(a, x):
    s = 0.0
    for i in range(len(a)):
        s = s + a[i] * x
    return s


def test_a_numba_error_without_a_line_names_the_def_line(monkeypatch):
    """Numba gives some errors no location (numba_errors.compile_error): the SrcadError names
    the user's file and the function's def line, never Numba's traceback."""
    from numba.core.dispatcher import Dispatcher
    from numba.core.errors import NumbaError

    def fail(self, signature):
        raise NumbaError("an error of Numba's without a location")

    monkeypatch.setattr(Dispatcher, "compile", fail)
    with pytest.raises(srcad.SrcadError) as info:
        srcad.value_and_grad(_plain, wrt=(0, 1), backend="numba")(A.copy(), X)
    err = info.value
    assert err.filename == __file__ and err.lineno == _line_of(_plain, "def _plain(a, x):")
    assert "without a location" in str(err) and err.__cause__ is None


def _short_mask(a, x):
    b = np.sin(a) * x
    m = a[:3] > 0.0
    b[m] = x
    return np.sum(b * b)


@pytest.mark.skipif(not LONG, reason="the long run's (a compile of seconds)")
def test_a_mask_of_another_length_raises_as_numpy_does():
    """Numba's indexing by a mask shorter than the array writes other places silently; the
    gradient's helpers raise NumPy's IndexError before any gradient is returned."""
    for backend in ("python", "numba"):
        with pytest.raises(IndexError, match="boolean index did not match"):
            srcad.value_and_grad(_short_mask, wrt=(0, 1), backend=backend)(A.copy(), X)
