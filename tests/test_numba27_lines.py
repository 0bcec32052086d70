"""What the Numba backend cannot compile, refused at the user's line; three classes that used
to be Numba typing errors at the ``def`` line now compile (numba27).

- A Numba typing error names the user's line and construct (srcad/backend/numba_errors.py:
  Numba's location in the generated code, mapped through the line origins emit keeps), and
  so does a refusal before compiling of a forward statement (its ``srcad_line``): both named
  the ``def`` line before.
- ``xs[i] = v`` on a list of arrays: refused at that line with two rewrites that compile (a
  new list; the rows of one array); on a list of numbers it compiles (``cleared`` of a list).
- ``np.array(a)`` of an array (a copy; Numba's ``np.array`` takes no array),
  ``np.array(L)`` of a list built by ``append`` in a loop (its gradient popped: a list) and
  ``out=`` (``y[Ellipsis] = v``) and ``sum(L)`` of a list of numbers compile; ``np.add.at``
  (srcad's own Python function) is refused at its line naming it, no longer as "the nested
  function 'np_add_at'"; an AssertionError in Numba's compiler is a refusal too.
Each compiled case against the Python backend (1e-12) and central differences. Found by the
long run of tests/test_properties_numba.py (25 of 56 refusals were ``np.array`` of an array).

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")
long_only = pytest.mark.skipif(not LONG, reason="the long run's (a Numba compile each)")


def _line(f, text):
    """The file line of the first line of ``f`` holding ``text``."""
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if text in line)


def array_items(a, x):
    xs = [a, a * x]
    xs[0] = xs[0] * x  # an item of a list of arrays written
    return np.sum(xs[0] * xs[1])


def array_items_loop(a, x):
    ys = [a * 1.0, a * 2.0, a * 3.0]
    for i in range(3):
        ys[i] = ys[i] * x
    return np.sum(ys[0] + ys[1] * ys[2])


def fresh_list(a, x):  # the first rewrite: a new list
    xs = [a, a * x]
    xs = [xs[0] * x, xs[1]]
    return np.sum(xs[0] * xs[1])


def rows(a, x):  # the second: the rows of one array
    X = np.stack([a, a * x])
    X[0] = X[0] * x
    return np.sum(X[0] * X[1])


def number_items(a, x):
    ys = [x, 2.0 * x, x * x]
    for i in range(3):
        ys[i] = ys[i] * a[i]
    ys[-1] = ys[0] * 3.0
    return ys[0] * ys[1] + ys[2]


def array_copy(a, x):
    b = np.array(a)  # np.array of an array: a copy
    b[0] = b[0] * x
    return np.sum(b * a) * x


def appended(a, x):
    L = []
    for i in range(3):
        L.append(np.sin(a[i]) * x)
    c = np.array(L)  # a list built by append, made an array
    return np.sum(c * c)


def written_out(a, x):
    b = np.sin(a) + x
    np.multiply(b, abs(x), out=b)  # srcad writes b[Ellipsis] = ...: compiled as b[...]
    return np.sum(b * b)


def summed_list(a, x):
    L = []
    for i in range(3):
        L.append(a[i] * x + 1.0)
    return sum(L) * L[-1] + sum([x, a[0]])  # sum() of a list of numbers


def added_at(a, x):
    b = a * x
    np.add.at(b, np.array([0, 0, 1]), a[:3])  # srcad's own function: refused at this line
    return np.sum(b * b)


def list_index(a, x):
    b = a * x
    return np.sum(b[[0, 0, 1]])  # a list display as an index


def mask_after_where(a, x):  # from the long run of tests/test_properties_numba.py
    b0 = a.copy()
    s3 = 0.0
    for e2 in b0:
        s3 = s3 + e2 * 0.5
    c4 = np.copy(b0)
    b6 = np.where(np.cos(b0.reshape(2, 3)) > 1.5, (c4.reshape(2, 3) * x),
                  (c4.reshape(2, 3) * c4.reshape(2, 3)) * 0.5)
    for i8 in range(2 - 1, 0, -1):
        b6[i8] = b6[i8] * np.dot(b0[:3], b0[:3])
    b6[b6 > 1.5] = (x + float(c4[0]))  # a 2-d mask: Numba's lowering asserts a 1-d one
    for i11 in range(2 - 1, 0, -1):
        b6[i11] = b6[i11] * s3
    out = np.concatenate((a.ravel(), np.array([x])))
    return np.sum(np.sin(out))


def forward_refused(a, x):
    b = a * x
    c = np.cumsum(b, axis=0)  # not compiled by the Numba backend (numba28: of a whole array, it is)
    return np.sum(c)


def _central(f, a, x, eps=1e-6):
    ga = [(f(a + eps * e, x) - f(a - eps * e, x)) / (2 * eps) for e in np.eye(len(a))]
    return np.array(ga), (f(a, x + eps) - f(a, x - eps)) / (2 * eps)


def _same(f):
    a = np.array([0.3, -0.7, 1.1])
    got = srcad.grad(f, wrt=(0, 1), backend="numba")(a, 0.6)
    want = srcad.grad(f, wrt=(0, 1))(a, 0.6)
    assert np.allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
    assert abs(got[1] - want[1]) <= 1e-12 * max(1.0, abs(want[1]))
    central = _central(f, a, 0.6)
    assert np.allclose(got[0], central[0], rtol=1e-6, atol=1e-6)
    assert abs(got[1] - central[1]) <= 1e-6 * max(1.0, abs(central[1]))


@long_only  # (Numba types the whole function first: ~2 s of CPU each)
@pytest.mark.parametrize("f, text", [(array_items, "xs[0] = xs[0] * x"),
                                     (array_items_loop, "ys[i] = ys[i] * x")])
def test_an_item_of_a_list_of_arrays_written_is_refused_at_its_line(f, text):
    a = np.array([0.3, -0.7, 1.1])
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(f, wrt=(0, 1), backend="numba")(a, 0.6)
    error = info.value
    assert error.lineno == _line(f, text), str(error)
    assert error.construct.startswith(text)
    assert "make a new list" in str(error) and "np.stack" in str(error)
    assert error.filename == __file__


def test_a_forward_statement_is_refused_at_its_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(forward_refused, wrt=(0, 1), backend="numba")(np.ones(3), 0.5)
    assert info.value.lineno == _line(forward_refused, "np.cumsum(b"), str(info.value)
    assert "np.cumsum along an axis" in str(info.value)


def test_a_list_index_is_refused_with_an_array_as_the_rewrite():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(list_index, wrt=(0, 1), backend="numba")(np.ones(3), 0.5)
    assert info.value.lineno == _line(list_index, "b[[0, 0, 1]]"), str(info.value)
    assert "as an index, np.array([...])" in str(info.value)


@long_only
def test_an_assertion_in_numbas_compiler_is_a_refusal():
    with pytest.raises(srcad.SrcadError, match="could not compile") as info:
        srcad.value_and_grad(mask_after_where, wrt=(0, 1), backend="numba")(np.zeros(6), 0.0)
    # (numba28: at the mask's line, from the statement Numba's lowering was at)
    assert info.value.lineno == _line(mask_after_where, "b6[b6 > 1.5] ="), str(info.value)


def test_np_add_at_is_refused_at_its_line_as_srcads_own_function():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(added_at, wrt=(0, 1), backend="numba")(np.ones(3), 0.5)
    assert info.value.lineno == _line(added_at, "np.add.at("), str(info.value)
    assert "np.add.at" in str(info.value) and "nested function" not in str(info.value)


@long_only
@pytest.mark.parametrize("f", [fresh_list, rows, number_items, array_copy, appended,
                               written_out, summed_list],
                         ids=lambda f: f.__name__)
def test_compiled_as_python_computes_it(f):
    _same(f)
