"""A negative base to a differentiated or fractional power (issue 14): Python's value is
complex there (``(-2.0) ** 1.5``), NumPy's nan, and ``d/db a ** b = a ** b * log(a)`` is
complex for every ``b`` (even where ``a ** b`` is real, ``b`` an integer). Where the value is
real, so is the function around ``b`` (nan, NumPy's value off the integers): srcad gives a nan
derivative in ``b``, as autograd and JAX do (a complex one was lost when added into an item
of a real gradient array: ``x[0] ** x[1] + x[2]`` gave its real part, round 7). Where the
value is complex, srcad refuses with
a SrcadError at the function's line (``check_real``), in reverse and forward mode, where the
exponent rule's ``math.log`` raised a bare ValueError and ``abs``'s sign helper a TypeError;
a positive base gives the finite-difference gradient. A generated family: the spelling of the
power (``**``, ``**=``, ``pow``, ``math.pow``, ``np.power``, ``np.float_power``) x the base's
type (Python float, NumPy scalar, array) x its sign x which operand is differentiated.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import srcad


def _power(spelling):
    def op(a, b):
        if spelling == "**":
            return a ** b
        if spelling == "**=":
            a = a * 1.0
            a **= b
            return a
        if spelling == "pow":
            return pow(a, b)
        if spelling == "math.pow":
            return math.pow(a, b)
        if spelling == "np.power":
            return np.power(a, b)
        return np.float_power(a, b)
    return op


_SPELLINGS = ["**", "**=", "pow", "math.pow", "np.power", "np.float_power"]
_BASES = {"float": float, "np.float64": np.float64, "array": lambda v: np.array([v, 1.3])}
# each spelling with each base type once, the exponent or the base differentiated in turn
_CASES = [(s, base, ("exponent", "base")[i % 2]) for i, (s, base) in
          enumerate(itertools.product(_SPELLINGS, _BASES))
          if not (s == "math.pow" and base == "array")]


def _outcome(thunk):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's nan for a negative base
        try:
            return thunk()
        except srcad.SrcadError as e:
            return e
        except (ValueError, TypeError) as e:  # Python's own (math.pow's domain)
            return type(e)


@pytest.mark.parametrize("spelling, base, wrt", _CASES)
def test_negative_base(spelling, base, wrt):
    """Refused at the line, or Python's own error, or (NumPy's nan value) a nan gradient;
    with the base's sign flipped, finite differences."""
    op, make = _power(spelling), _BASES[base]
    for sign in (-1.7, 1.7) if base == "array" else (-1.7,):
        if wrt == "base":  # fractional: complex (Python), nan (NumPy) for a negative base
            def f(x, sign=sign):
                return np.sum(op(make(x), 1.5))
            x0 = sign
        else:  # an integer power: a real value, a complex derivative for a negative base
            def f(x, sign=sign):
                return np.sum(op(make(sign), x))
            x0 = 2.0
        want = _outcome(lambda: f(x0))  # noqa: B023 - used at once
        runs = [("rev", lambda: srcad.value_and_grad(f)(x0))]  # noqa: B023
        if base == "float":
            runs.append(("fwd", lambda: srcad.jvp(f, (x0,), (1.0,))))  # noqa: B023
        for how, run in runs:
            got = _outcome(run)
            if isinstance(want, type):  # Python raised: so does srcad's forward sweep
                assert got is want, (how, got)
            elif isinstance(got, srcad.SrcadError):
                assert sign < 0 and got.lineno is not None, (how, got)
            elif sign < 0 and wrt == "exponent":  # a real value, no real derivative: nan
                value, grad = got
                assert np.allclose(value, want) and np.all(np.isnan(grad)), (how, got)
            else:
                value, grad = got
                fd = _outcome(lambda: (f(x0 + 1e-6) - f(x0 - 1e-6)) / 2e-6)  # noqa: B023
                assert sign > 0 or np.isnan(want), (how, got)  # NumPy's nan: nan gradient
                assert np.allclose(value, want, equal_nan=True), how
                assert np.allclose(grad, fd, rtol=1e-5, equal_nan=True), (how, grad, fd)


@pytest.mark.parametrize("x0", [-1.5, -0.4])
def test_abs_of_fractional_power(x0):
    """``abs(x ** 1.5)``: real by Python, through a complex value srcad takes for real."""
    def f(x):
        return abs(x ** 1.5)

    assert isinstance(_outcome(lambda: srcad.value_and_grad(f)(x0)), srcad.SrcadError)
    assert isinstance(_outcome(lambda: srcad.jvp(f, (x0,), (1.0,))), srcad.SrcadError)
