"""``x[i] = v`` into a parameter given a number: Python's TypeError, refused at the line.

Met in round 23's corpus (a course notebook showing what autograd cannot do: ``def f8(x):
x[2] = 3; return x * 2`` then ``grad(f8)(8.4)``): Python raises ``TypeError: 'float' object
does not support item assignment``; srcad's generated code failed in its own line ``x_1 =
x.copy()`` with an ``AttributeError`` naming no line of the program. The code is made for the
argument's type, so a write into a parameter given a number is refused where it is written
(``analysis/soundness.number_write``), naming the file, the line and the rewrite. Arrays (a 0-d
one too) are as before: a write into the caller's array is a ``MutationError``, into a copy
differentiated.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcad


def direct(x):
    x[2] = 3
    return x * 2


def helper(y):
    y[0] = 1.0
    return y


def through_helper(x):
    return helper(x) * 3.0


def in_branch(x, k):
    if k > 0:
        x[0] = x * 2
    return x


NUMBERS = [8.4, np.float64(8.4), 3]
CASES = [(direct, ()), (through_helper, ()), (in_branch, (1,))]


@pytest.mark.parametrize("value", NUMBERS, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("fn,extra", CASES, ids=lambda c: getattr(c, "__name__", "x"))
def test_a_write_into_a_number_is_refused_at_its_line(fn, extra, value):
    with pytest.raises(TypeError):  # what Python does
        fn(value, *extra)
    with pytest.raises(srcad.SrcadError, match="given a number") as info:
        srcad.grad(fn)(value, *extra)
    assert info.value.lineno is not None and "test_corpus23_number_writes" in str(info.value)


def copied(x):
    y = x.copy()
    y[1] = y[0] * x[2]
    return np.sum(y * x)


def test_arrays_are_as_before():
    x = np.array([0.5, -1.5, 2.0])
    with pytest.raises(srcad.NonScalarOutputError):  # (its write into x: differentiated
        srcad.grad(direct)(x.copy())  # since state36, srcad.written_state)
    g = srcad.grad(copied)(x)
    h = 1e-6
    fd = [(copied(x + h * e) - copied(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    a = np.array(2.0)  # a 0-d array is an array, not a number: written in place (state36)
    assert srcad.grad(lambda a: np.sum(direct0(a)))(a) == pytest.approx(3.0)
    assert a == 6.0


def direct0(a):
    a[()] = a * 3.0
    return a
