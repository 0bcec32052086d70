"""Property-based tests: srcad's derivatives of random programs match three other opinions.

`gen_programs.programs()` writes random, valid Python functions (branches, loops, `break`,
`continue`, early returns, helper calls, lists). For each one and random inputs in
[-1.5, 1.5]:

- reverse mode (`srcad.grad`) matches central finite differences, the reference tape
  (`srcad.tape.grad`) and forward mode (`srcad.jvp`); `value_and_grad`'s value is `f`'s;
- the second derivative (`srcad.grad` of `srcad.grad`) matches finite differences of the first.

Non-smooth points. Comparisons, `abs`, `min` and `max` make the functions piecewise smooth.
Finite differences reveal a kink or jump near the input when the central estimates at two step
sizes and the one-sided estimates from the left and the right disagree; there, srcad's
derivative must still equal the one-sided derivative from the left or from the right, i.e. the
derivative of the piece the input lies in (a wrong value is never skipped). Exactly at a tie
(`x == 0.0` drawn for `if x > 0`), AD by its nature differentiates the pieces that were taken,
which can disagree with the function's own derivative (`max(x, 0) + min(x, 0)` at 0); a
disagreement at the drawn input is therefore re-checked at a generic point about 1e-3 away
(far enough that the one-sided differences there, with step 1e-5, do not reach back across the
kinks that meet at the drawn input), and only a disagreement that persists there fails.
Forward and reverse mode take the same pieces, so they must agree even at ties, and the
gradient must be finite wherever `f` is.

The default run draws 60 programs; `SRCAD_LONG_PROPERTIES=1` draws 2000 (the second-order
test 40 and 1000).
"""

from __future__ import annotations

import math
import os

import gen_programs
import numpy as np
import pytest
import srcad.tape
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st
from srcad.check import numerical_grad

import srcad

LONG = os.environ.get("SRCAD_LONG_PROPERTIES") == "1"
FIRST_ORDER_EXAMPLES = 2000 if LONG else 60
SECOND_ORDER_EXAMPLES = 1000 if LONG else 40

SETTINGS = dict(
    deadline=None,
    derandomize=not LONG,  # the bounded run in CI is the same every time; the long one explores
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large],
)

#: The largest |f| tolerated: beyond it finite differences lose too many digits.
VALUE_LIMIT = 1e6
#: Fixed, irrational-looking offsets: the generic point near a drawn input.
NUDGE = (0.7071067811865476, -0.5772156649015329, 0.3183098861837907)
#: A fixed direction for forward mode.
DIRECTION = (1.0, -0.5, 0.25)

INPUTS = st.lists(st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False),
                  min_size=3, max_size=3)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


# --- evaluation helpers ---------------------------------------------------------------------


def _value(f, args):
    """f(*args) as a float, or None where f fails, overflows or is too large."""
    try:
        with np.errstate(all="ignore"):
            out = float(f(*args))
    except (ArithmeticError, ValueError):
        return None
    if not math.isfinite(out) or abs(out) > VALUE_LIMIT:
        return None
    return out


def _phi(f, args, i):
    def phi(t):
        shifted = list(args)
        shifted[i] = args[i] + t
        return f(*shifted)

    return phi


def _fd_estimates(f, args, i):
    """(central at eps 1e-3, central at eps 1e-4, left, right) or None if f fails nearby."""
    phi = _phi(f, args, i)
    try:
        c1 = numerical_grad(f, args, i, eps=1e-3)
        c2 = numerical_grad(f, args, i, eps=1e-4)
        h = 1e-5
        p0, r1, r2, l1, l2 = phi(0.0), phi(h), phi(2 * h), phi(-h), phi(-2 * h)
    except (ArithmeticError, ValueError):
        return None
    right = (-3 * p0 + 4 * r1 - r2) / (2 * h)
    left = (3 * p0 - 4 * l1 + l2) / (2 * h)
    estimates = (c1, c2, left, right)
    if not all(math.isfinite(e) for e in estimates):
        return None
    return estimates


def _close(a, b, rtol, scale):
    return abs(a - b) <= rtol * (1.0 + abs(b) + scale)


def _as_floats(grads, n):
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert len(grads) == n, f"{len(grads)} gradients for {n} parameters"
    return [float(g) for g in grads]


def _problems(f, args):
    """``(problems, tie_sensitive)``: what is wrong with srcad's derivatives of f at args, split
    into what is wrong anywhere and what an exact tie at args could explain; None where f
    itself cannot be evaluated. An exception raised by srcad is a problem, not an error: its
    text is stable from run to run (generated file names are not), which hypothesis needs to
    shrink it."""
    try:
        return _problems_or_raise(f, args)
    except Exception as exc:  # any exception from srcad is a finding
        return [f"srcad raised {type(exc).__name__}: {exc}"], []


def _problems_or_raise(f, args):
    n = len(args)
    wrt = tuple(range(n))
    value = _value(f, args)
    if value is None:
        return None
    scale = abs(value) * 1e-6
    problems = []

    got_value, grads = srcad.value_and_grad(f, wrt=wrt)(*args)
    grads = _as_floats(grads, n)
    if not _close(float(got_value), value, 1e-12, 0.0):
        problems.append(f"value_and_grad value {got_value!r} != f = {value!r}")
    if not all(math.isfinite(g) for g in grads):
        problems.append(f"non-finite gradient {grads!r} where f = {value!r} is finite")

    direction = DIRECTION[:n]
    jvp_value, tangent = srcad.jvp(f, tuple(args), direction)
    expected = sum(g * v for g, v in zip(grads, direction))
    if not _close(float(jvp_value), value, 1e-12, 0.0):
        problems.append(f"jvp value {jvp_value!r} != f = {value!r}")
    if not _close(float(tangent), expected, 1e-8, scale + sum(abs(g) for g in grads)):
        problems.append(f"jvp tangent {tangent!r} != <grad, v> = {expected!r} (v = {direction})")

    tie_sensitive = []
    tape = _as_floats(srcad.tape.grad(f, wrt=wrt)(*args), n)
    for i, (g, t) in enumerate(zip(grads, tape)):
        if not _close(g, t, 1e-7, scale):
            tie_sensitive.append(f"d/d{i}: srcad {g!r}, tape {t!r}")
    for i, g in enumerate(grads):
        estimates = _fd_estimates(f, args, i)
        if estimates is None:
            continue
        c1, c2, left, right = estimates
        smooth = all(_close(e, c2, 1e-5, scale) for e in (c1, left, right))
        if smooth and not _close(g, c2, 1e-5, scale):
            tie_sensitive.append(f"d/d{i}: srcad {g!r}, finite differences {c2!r}")
        if not smooth and not (_close(g, left, 1e-4, scale) or _close(g, right, 1e-4, scale)):
            tie_sensitive.append(f"d/d{i}: srcad {g!r} is neither the left ({left!r}) nor "
                                 f"the right ({right!r}) derivative (kink nearby)")
    return problems, tie_sensitive


def _generic(args):
    return [a + 1e-3 * (1.0 + abs(a)) * d for a, d in zip(args, NUDGE)]


# --- first order ----------------------------------------------------------------------------


@settings(max_examples=FIRST_ORDER_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(), inputs=INPUTS)
def test_gradient_of_random_program(gen_dir, program, inputs):
    f = gen_programs.load(program, gen_dir).f
    args = list(inputs[: len(program.params)])
    found = _problems(f, args)
    assume(found is not None)
    problems, tie_sensitive = found
    if tie_sensitive:
        # An exact tie at the drawn input can make AD differ from the function's own
        # derivative; the same disagreement at a generic point nearby cannot.
        generic = _generic(args)
        again = _problems(f, generic)
        if again is not None:
            note(f"at the drawn input: {tie_sensitive}")
            problems += again[0] + [f"{p} (at {generic!r})" for p in again[1]]
    assert not problems, f"{program.body}\nargs = {args!r}\n" + "\n".join(problems)


# --- second order ---------------------------------------------------------------------------


def _second_order_problems(f, args, i, j):
    """Compare d/dj (df/di) by reverse over reverse and forward over reverse with finite
    differences of srcad's df/di; None where those are unusable (f fails, kink nearby)."""
    value = _value(f, args)
    if value is None:
        return None
    first = srcad.grad(f, wrt=i)
    try:
        estimates = _fd_estimates(lambda *a: float(first(*a)), args, j)
    except Exception as exc:  # a first-order failure is the first-order test's business
        return [f"first derivative raised {type(exc).__name__}: {exc}"]
    if estimates is None:
        return None
    c1, c2, left, right = estimates
    scale = abs(value) * 1e-6
    if not all(_close(e, c2, 1e-4, scale) for e in (c1, left, right)):
        return None
    problems = []
    try:
        rev = float(srcad.grad(first, wrt=j)(*args))
        if not _close(rev, c2, 1e-4, scale):
            problems.append(f"reverse over reverse {rev!r}")
    except Exception as exc:  # any exception from srcad is a finding
        problems.append(f"reverse over reverse raised {type(exc).__name__}: {exc}")
    tangents = tuple(1.0 if k == j else 0.0 for k in range(len(args)))
    try:
        fwd = float(srcad.jvp(first, tuple(args), tangents)[1])
        if not _close(fwd, c2, 1e-4, scale):
            problems.append(f"forward over reverse {fwd!r}")
    except Exception as exc:  # any exception from srcad is a finding
        problems.append(f"forward over reverse raised {type(exc).__name__}: {exc}")
    if problems:
        problems.append(f"finite differences of srcad's d/d{i}: {c2!r}")
    return problems


@settings(max_examples=SECOND_ORDER_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(max_statements=5),
       inputs=INPUTS, i=st.integers(0, 1), j=st.integers(0, 1))
def test_second_derivative_of_random_program(gen_dir, program, inputs, i, j):
    """d/dj (d f / di), by srcad twice, matches finite differences of srcad's d f / di."""
    f = gen_programs.load(program, gen_dir).f
    args = _generic(inputs[: len(program.params)])
    problems = _second_order_problems(f, args, i, j)
    assume(problems is not None)
    assert not problems, (f"{program.body}\nargs = {args!r}\nd2f/d{j}d{i}:\n"
                          + "\n".join(problems))
