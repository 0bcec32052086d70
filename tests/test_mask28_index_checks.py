"""An advanced index under the Numba backend is checked as NumPy checks it
(srcad/backend/numba_index_checks.py): Numba 0.68 reads and writes through a boolean mask
shorter than its axis without a word (a 3-item mask of a 5-item array: items 0 and 2), and
says "index is out of bounds" for an int of an index array out of range. Every subscript of
the Numba code whose index may hold an array is checked first: a mask's shape against the
axes it indexes, an index array's ints in range after counting negatives from the end, each
with NumPy's IndexError and message, in the forward and backward code, the user's function
and a callee compiled with it.

By default (no compile of a derivative, which takes seconds): which axes each array of an
index indexes (``_axes``), where the checks go in the code (``add_checks``). LONG: a
``numba.njit`` call of the check, and the family (read and write; a 1-d mask at axis 0 and
after a slice, too short and too long; ints out of range, positive and negative, and in
range with negatives; a loop; a callee; forward mode), each against the Python backend (the
same error and message, or the same gradient, itself checked against central differences).

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed),
``srcad.backend.numba_index_checks``, ``srcad.backend.numba_index_overload``, ``sampling``.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def test_axes_of_each_index_array():
    from numba import typeof

    from srcad.backend.numba_index_overload import _axes

    x3 = typeof(np.ones((2, 3, 4)))
    mask1, mask2 = np.ones(3, np.bool_), np.ones((2, 3), np.bool_)
    ints, sl = np.arange(2), slice(1, None)
    assert _axes(x3, typeof(mask1)) == ([(0, 0, True, 1)], False)
    assert _axes(x3, typeof((sl, mask1))) == ([(1, 1, True, 1)], True)
    assert _axes(x3, typeof((mask2, ints))) == ([(0, 0, True, 2), (1, 2, False, 1)], True)
    assert _axes(x3, typeof((Ellipsis, ints))) == ([(1, 2, False, 1)], True)
    assert _axes(x3, typeof((None, 0, ints))) == ([(2, 1, False, 1)], True)
    assert _axes(x3, typeof((0, sl))) == ([], True)


def _checked_source(src):
    from srcad.backend.numba_index_checks import add_checks

    fdef = ast.parse(src).body[0]
    fdef.body = add_checks(fdef, fdef.body, lambda helper: ast.Name(id="chk", ctx=ast.Load()))
    return ast.unparse(fdef)


def test_names_holding_only_ints_are_not_checked():
    from srcad.backend.numba_index_checks import int_names

    fdef = ast.parse("def f(x, j):\n    S = []\n    T = []\n    for k in range(3):\n"
                     "        S.append(k)\n        T.append(j)\n    for j in range(2):\n"
                     "        pass\n    for step in range(2):\n        k = S[step]\n"
                     "        n = T[step]\n    q = [i for i in range(2)]\n"
                     "    for i in range(2):\n        pass\n    p = 0\n    p += k * 2\n    r = 0\n"
                     "    r += 1.5\n").body[0]
    assert int_names(fdef.body, ["x", "j"]) == {"k", "step", "p"}


def test_where_the_checks_go():
    got = _checked_source("def f(x, m, i):\n    y = x[m]\n    x[1:, m] = 2.0\n"
                          "    z = x[x > 0.0] + x[i, 0] + x[0] + x[1:3]\n"
                          "    while x[m][0] > 1.0:\n        i = i - 1\n    return y\n")
    assert got.splitlines()[1:] == [
        "    chk(x, m)", "    y = x[m]",
        "    chk(x, (slice(1, None, None), m))", "    x[1:, m] = 2.0",
        "    chk(x, (i, 0))", "    z = x[chk(x, x > 0.0)] + x[i, 0] + x[0] + x[1:3]",
        "    while x[chk(x, m)][0] > 1.0:",
        "        i = i - 1", "    return y"]


@pytest.mark.skipif(not LONG, reason="a Numba compile: 1-14 s on a loaded machine")
def test_the_check_itself():
    import numba

    from srcad.backend.numba_index_checks import checked_index
    from srcad.backend.numba_index_overload import _checked_index  # noqa: F401 (registers it)

    @numba.njit
    def read(x, m):
        return x[checked_index(x, m)]

    x = np.arange(5.0)
    for index in (np.array([True, False, True]), np.array([0, 7])):
        with pytest.raises(IndexError) as numpy_error:
            x[index]
        with pytest.raises(IndexError) as numba_error:
            read(x, index)
        assert str(numba_error.value) == str(numpy_error.value)
    assert read(x, np.array([-1, 2])).tolist() == [4.0, 2.0]


# ---------------------------------------------------------------- the family (LONG)


def _read(x, w, m):
    return np.sum(x * w[m])


def _read_after_slice(x, w, m):
    return np.sum(x * w[1:, m])


def _write(x, w, m):
    v = w * 1.0
    v[m] = 0.0
    return np.sum(x[0] * v * v)


def _write_differentiated(x, w, m):
    v = x * 1.0
    v[m] = 2.0
    return np.sum(v * x)


def _loop(x, w, m):
    s = 0.0
    for k in range(2):
        s = s + np.sum(x * w[m]) * (k + 1.0)
    return s


def _inner(w, m):
    return w[m] * 2.0


def _callee(x, w, m):
    return np.sum(x * _inner(w, m))


_W, _W2 = np.arange(5.0) - 1.5, np.arange(12.0).reshape(3, 4) * 0.25
_T, _F = True, False
FAMILY = [  # (function, x, w, index): x's shape is what w[index] gives when it is right
    (_read, np.ones(2), _W, np.array([_T, _F, _T])),
    (_read, np.ones(2), _W, np.array([_T, _F, _T, _F, _F, _F])),
    (_read, np.array([1.5, -2.0]), _W, np.array([_T, _F, _F, _T, _F])),
    (_read, np.ones(2), _W, np.array([0, 7])),
    (_read, np.ones(2), _W, np.array([0, -7])),
    (_read, np.array([1.5, -2.0]), _W, np.array([-1, 2])),
    (_read_after_slice, np.ones((2, 2)), _W2, np.array([_T, _T])),
    (_read_after_slice, np.ones((2, 2)), _W2, np.array([0, 4])),
    (_read_after_slice, np.array([[1.0, 2.0], [3.0, -1.0]]), _W2, np.array([_T, _F, _F, _T])),
    (_write, np.array([1.5, 0.5]), _W, np.array([_T, _F, _T])),
    (_write, np.array([1.5, 0.5]), _W, np.array([_T, _F, _T, _F, _T])),
    (_write_differentiated, _W, _W, np.array([_T, _F, _T])),
    (_write_differentiated, _W, _W, np.array([4, -6])),
    (_write_differentiated, _W, _W, np.array([_T, _F, _T, _T, _F])),
    (_loop, np.ones(2), _W, np.array([_T, _F, _T])),
    (_loop, np.array([0.5, 2.0]), _W, np.array([_T, _T, _F, _F, _F])),
    (_callee, np.ones(2), _W, np.array([_T, _F, _T])),
    (_callee, np.array([0.5, 2.0]), _W, np.array([_F, _T, _F, _F, _T])),
]


def _outcome(fn):
    try:
        return fn()
    except IndexError as exc:
        return exc


def _central(f, x, *rest, h=1e-6):
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        out[k] = (f(up, *rest) - f(down, *rest)) / (2 * h)
    return out


@pytest.mark.skipif(not LONG, reason="compiles a derivative a case (seconds each): LONG")
@pytest.mark.parametrize("case", FAMILY, ids=lambda c: getattr(c, "__name__", None))
def test_numba_checks_as_numpy(case):
    f, x, w, index = case
    python = _outcome(lambda: srcad.grad(f)(x, w, index))
    numba = _outcome(lambda: srcad.grad(f, backend="numba")(x, w, index))
    if isinstance(python, IndexError):
        assert isinstance(numba, IndexError) and str(numba) == str(python)
        fwd = _outcome(lambda: srcad.jvp(f, (x, w, index), (np.ones_like(x),), wrt=0,
                                         backend="numba"))
        assert isinstance(fwd, IndexError) and str(fwd) == str(python)
        return
    np.testing.assert_allclose(python, _central(f, x, w, index), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(numba, python, rtol=1e-12, atol=1e-12)
