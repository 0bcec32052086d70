"""The Numba backend's constant arrays made once and tuples' tangents kept tuples
(srcad/backend/numba_constants.py).

A seed ``np.array([1.0, 0.0])`` given to a callee is a read-only constant, and the tangent
of a tuple a callee returns (an array and a number: refused before, a list of one type) a
tuple: checked in forward mode against the Python backend
(1e-12) and central differences, and the generated code read for the forms; a callee
that writes into the constant it is given writes into its own copy, at every call.

Imports ``srcad`` and ``srcad.backend`` (numba_backend, numba_constants).
"""

from __future__ import annotations

import ast

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend, numba_constants

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _pair(x, e):
    return (x * e[0] - x[::-1] * e[1], x[1] * x[0] * e[0])  # (an array and a number)


def _seeded(x, w):
    a, b = _pair(x * w, np.array([1.5, -0.25]))
    return np.sum(a) * b


def _written(v):
    v[0] = 2.0
    return v[0] * v[1]


def _writes_into_seed(x):
    return _written(np.array([1.0, 3.0])) * x


def test_rewrite_forms():
    fdef = ast.parse("def f(x):\n    a = g(x, np.array([1.0, -2.5]), np.array([1, 2]))\n"
                     "    b = np.array([1.0, 0.0])\n    return h(b, [x, x])\n").body[0]
    names = []

    def helper(n):
        names.append(n)
        return ast.Name(id="numba_" + n, ctx=ast.Load())

    numba_constants.rewrite(fdef, lambda ident: ident == "np", helper, {"g": 0, "h": 0})
    text = ast.unparse(fdef)
    # the float display given to a callee only; ints, a named display, a list stay
    assert text.count("numba_constant_") == 1 and "np.array([1, 2])" in text
    assert "b = np.array([1.0, 0.0])" in text and "[x, x]" in text
    value = np.frombuffer(bytes.fromhex(names[0][len("constant_"):]))
    assert value.tolist() == [1.0, -2.5]


@needs_numba
def test_seeds_and_tuple_tangents_against_python():
    x, w, dx, dw = np.array([0.3, -1.2]), 0.7, np.array([0.4, 1.1]), -0.6
    got = srcad.jvp(_seeded, (x, w), (dx, dw), backend="numba")
    want = srcad.jvp(_seeded, (x, w), (dx, dw))
    assert abs(got[0] - want[0]) <= 1e-12 and abs(got[1] - want[1]) <= 1e-12
    h = 1e-6
    fd = (_seeded(x + h * dx, w + h * dw) - _seeded(x - h * dx, w - h * dw)) / (2 * h)
    assert abs(got[1] - fd) <= 1e-6 * max(1.0, abs(fd))
    from srcad.api import _jvp_function

    fn, _ = _jvp_function(_seeded, ("x", "w"), (x, w), "numba")
    from srcad.backend.emit import program_text

    text = program_text(getattr(fn, "__srcad_taking__", [fn])[0])
    assert "numba_constant_" in text and "array_list" not in text


@needs_numba
@pytest.mark.skipif(not LONG, reason="the long run's (a second compile)")
def test_a_callee_writing_into_the_constant():
    """The callee's write is into its own copy (srcad's code copies an array it writes
    into), so the constant is the same at every call."""
    want = srcad.jvp(_writes_into_seed, (0.5,), (1.0,))
    for _ in range(2):
        assert srcad.jvp(_writes_into_seed, (0.5,), (1.0,), backend="numba") == want
