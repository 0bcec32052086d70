"""Property-based tests: srcad's derivatives of random programs match three other opinions.

`gen_programs.programs()` writes random, valid Python functions (branches, loops, `break`,
`continue`, early returns, helper calls, lists). For each one and random inputs in
[-1.5, 1.5]:

- reverse mode (`srcad.grad`) matches central finite differences, the reference tape
  (`srcad.tape.grad`) and forward mode (`srcad.jvp`); `value_and_grad`'s value is `f`'s;
- the second derivative (`srcad.grad` of `srcad.grad`) matches finite differences of the first.

Finite differences (`fd_reference.py`) are Ridders' extrapolation from several starting
steps, with an error estimate: a reference is used only where that estimate is far below the
tolerance (steep, oscillatory programs such as `cos((1 + v**2) ** 2)` at v = 10 are judged
exactly; a point where no step gives a precise estimate is not judged, never at a looser
tolerance).

Non-smooth points. Comparisons, `abs`, `min` and `max` make the functions piecewise smooth.
Finite differences reveal a kink or jump near the input when the central estimate and the
one-sided estimates from the left and the right disagree; there, srcad's
derivative must still equal the one-sided derivative from the left or from the right, i.e. the
derivative of the piece the input lies in (a wrong value is never skipped). Exactly at a tie
(`x == 0.0` drawn for `if x > 0`), AD by its nature differentiates the pieces that were taken,
which can disagree with the function's own derivative (`max(x, 0) + min(x, 0)` at 0); a
disagreement at the drawn input is therefore re-checked at a generic point about 1e-3 away
(far enough that the one-sided differences there, with steps from 1e-4 down, do not reach back
across the kinks that meet at the drawn input), and only a disagreement that persists there fails.
Forward and reverse mode take the same pieces, so they must agree even at ties, and the
gradient must be finite wherever `f` is.

Features. `test_*_with_features` draw programs that may also use `gen_programs.FEATURES`:
decorated helpers and a decorated `f` (stacked, with arguments, with and without
`functools.wraps`), `*args`/`**kwargs` callees and `g(*t)` calls, `max`/`min` in loops that
append to lists, and list mutation (item writes, `pop`, copies, `insert`, aliases, appends after
a use). They also run the dot-product test <jvp(u), v> == <u, vjp(v)> for a random tangent `u`
and cotangent `v` (and vjp(v) == v * grad). A `SrcadError` from a mode is a refusal, not a
finding, when the program uses a feature srcad refuses by design (`gen_programs.REFUSABLE`);
a refusal of any other program fails. Refusals are counted per feature (`STATS`), and written
as JSON to the file named by SRCAD_PROPERTY_STATS. Array programs (mutation and aliasing of
NumPy arrays) are in test_properties_arrays.py.

The default run (CI) draws 20 core programs and 25 with features (second order: 15 and 15;
half as many since session 33, for CI's time; the programs are derandomized, the same each
run, so the exploring is the long run's).
`SRCAD_LONG_PROPERTIES=1` draws 2000 and 6000 (second order: 1000 and 2000), each times
SRCAD_PROPERTY_EXAMPLES (default 1); with test_properties_arrays.py's 9000 that is 20,000.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter

import fd_reference
import gen_programs
import numpy as np
import pytest
import srcad.tape
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import srcad

LONG = os.environ.get("SRCAD_LONG_PROPERTIES") == "1"
#: The long run's example counts are multiplied by SRCAD_PROPERTY_EXAMPLES (default 1).
SCALE = float(os.environ.get("SRCAD_PROPERTY_EXAMPLES", "1")) if LONG else 1.0


def examples(long, default):
    """How many programs a test draws: `default` in CI, `long` (scaled) in the long run."""
    return max(1, int(long * SCALE)) if LONG else default


FIRST_ORDER_EXAMPLES = examples(2000, 20)
FEATURE_EXAMPLES = examples(6000, 25)
SECOND_ORDER_EXAMPLES = examples(1000, 15)
SECOND_ORDER_FEATURE_EXAMPLES = examples(2000, 15)

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
TANGENTS = st.lists(st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False),
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
    """The finite-difference :class:`fd_reference.Reference` of d f / d args[i], or None where
    f fails nearby."""
    return fd_reference.reference(_phi(f, args, i))


def _close(a, b, rtol, scale):
    return abs(a - b) <= rtol * (1.0 + abs(b) + scale)


def _as_floats(grads, n):
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert len(grads) == n, f"{len(grads)} gradients for {n} parameters"
    return [float(g) for g in grads]


class Refused(Exception):
    """A mode of srcad refused the program with a `SrcadError` (recorded, not a problem)."""


def _refusable(refused, mode, call):
    """call(), or `Refused` after noting in `refused[mode]` the `SrcadError` it raised."""
    try:
        return call()
    except srcad.SrcadError as exc:
        refused[mode] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        raise Refused(mode) from None


def _problems(f, args, refused=None, u=DIRECTION, v=1.0, strict_tape=True):
    """``(problems, tie_sensitive)``: what is wrong with srcad's derivatives of f at args, split
    into what is wrong anywhere and what an exact tie at args could explain; None where f
    itself cannot be evaluated. An exception raised by srcad is a problem, not an error: its
    text is stable from run to run (generated file names are not), which hypothesis needs to
    shrink it. A `SrcadError` is a refusal instead: noted in `refused` (mode -> message), and
    the modes that did answer are still checked. `u` is the tangent for forward mode, `v` the
    cotangent for `vjp` (the dot-product test <jvp(u), v> == <u, vjp(v)>). The tape's own
    failures are problems only when `strict_tape`."""
    refused = {} if refused is None else refused
    try:
        return _problems_or_raise(f, args, refused, u, v, strict_tape)
    except Exception as exc:  # any exception from srcad is a finding
        return [f"srcad raised {type(exc).__name__}: {exc}"], []


def _fd_directional(f, args, u):
    """The derivative of f along u by finite differences, or None where f has a kink nearby."""
    def along(t):
        return f(*[a + t * d for a, d in zip(args, u)])
    ref = _fd_estimates(along, [0.0], 0)
    if ref is None or not fd_reference.smooth(ref, 1e-5, 0.0) or not fd_reference.usable(
            ref.central, ref.central_err, 1e-5, 0.0):
        return None
    return ref.central


def _problems_or_raise(f, args, refused, u, v, strict_tape):
    n = len(args)
    wrt = tuple(range(n))
    value = _value(f, args)
    if value is None:
        return None
    scale = abs(value) * 1e-6
    problems, tie_sensitive = [], []
    u = tuple(u[:n])

    grads = None
    try:
        got_value, grads = _refusable(refused, "grad",
                                      lambda: srcad.value_and_grad(f, wrt=wrt)(*args))
    except Refused:
        pass
    if grads is not None:
        grads = _as_floats(grads, n)
        if not _close(float(got_value), value, 1e-12, 0.0):
            problems.append(f"value_and_grad value {got_value!r} != f = {value!r}")
        if not all(math.isfinite(g) for g in grads):
            problems.append(f"non-finite gradient {grads!r} where f = {value!r} is finite")
    # without a gradient, forward and vjp are checked against finite differences along u
    along = sum(g * d for g, d in zip(grads, u)) if grads is not None else _fd_directional(
        f, args, u)
    gscale = scale + (sum(abs(g) for g in grads) if grads is not None else 0.0)

    tangent = None
    try:
        jvp_value, tangent = _refusable(refused, "jvp", lambda: srcad.jvp(f, tuple(args), u))
    except Refused:
        pass
    if tangent is not None:
        if not _close(float(jvp_value), value, 1e-12, 0.0):
            problems.append(f"jvp value {jvp_value!r} != f = {value!r}")
        if grads is not None and not _close(float(tangent), along, 1e-8, gscale):
            problems.append(f"jvp tangent {tangent!r} != <grad, u> = {along!r} (u = {u})")
        if grads is None and along is not None and not _close(float(tangent), along, 1e-5,
                                                              scale):
            tie_sensitive.append(f"jvp tangent {tangent!r} != finite differences along u"
                                 f" {along!r} (u = {u})")

    try:
        vjp_value, pullback = _refusable(refused, "vjp", lambda: srcad.vjp(f, *args))
        cotangents = _as_floats(_refusable(refused, "vjp", lambda: pullback(v)), n)
    except Refused:
        cotangents = None
    if cotangents is not None:
        if not _close(float(vjp_value), value, 1e-12, 0.0):
            problems.append(f"vjp value {vjp_value!r} != f = {value!r}")
        dual = sum(c * d for c, d in zip(cotangents, u))
        if tangent is not None and not _close(float(tangent) * v, dual, 1e-8, gscale * abs(v)):
            problems.append(f"<jvp(u), v> = {float(tangent) * v!r} != <u, vjp(v)> = {dual!r}"
                            f" (u = {u}, v = {v!r})")
        if grads is not None:
            for i, (g, c) in enumerate(zip(grads, cotangents)):
                if not _close(c, g * v, 1e-8, scale * abs(v)):
                    problems.append(f"d/d{i}: vjp({v!r}) {c!r} != {v!r} * grad = {g * v!r}")

    if grads is None:
        return problems, tie_sensitive
    try:
        tape = _as_floats(srcad.tape.grad(f, wrt=wrt)(*args), n)
    except Exception:  # the tape does not run every construct
        if strict_tape:
            raise
        tape = grads
    for i, (g, t) in enumerate(zip(grads, tape)):
        if not _close(g, t, 1e-7, scale):
            tie_sensitive.append(f"d/d{i}: srcad {g!r}, tape {t!r}")
    for i, g in enumerate(grads):
        ref = _fd_estimates(f, args, i)
        problem = fd_reference.judge(g, ref, scale)[0] if ref is not None else None
        if problem:
            tie_sensitive.append(f"d/d{i}: srcad {g!r}, {problem}")
    return problems, tie_sensitive


def _generic(args):
    return [a + 1e-3 * (1.0 + abs(a)) * d for a, d in zip(args, NUDGE)]


# --- refusals -------------------------------------------------------------------------------

#: test -> feature -> Counter of "programs" checked and "refused" (by any mode), and
#: "refused <mode>: <error type>" per mode; written out by `record_stats`.
STATS = {}


def record(test, features, refused):
    """Count one checked program of `test` under each of its features (and "all")."""
    table = STATS.setdefault(test, {})
    for feature in ("all", *(sorted(features) or ["core"])):
        counter = table.setdefault(feature, Counter())
        counter["programs"] += 1
        if refused:
            counter["refused"] += 1
        for mode, message in refused.items():
            counter[f"refused {mode}: {message.split(':')[0]}"] += 1
    if refused:
        messages = STATS.setdefault("messages", {})
        for message in refused.values():
            key = " ".join(message.split()[:40])
            key = re.sub(r"\S*gen_\w+\.py, line \d+: ", "", key)
            messages[key] = messages.get(key, 0) + 1


@pytest.fixture(scope="session", autouse=True)
def record_stats():
    """Write `STATS` to the JSON file named by SRCAD_PROPERTY_STATS, if set (the long run)."""
    yield
    path = os.environ.get("SRCAD_PROPERTY_STATS")
    if path and STATS:
        with open(path, "w") as out:
            json.dump(STATS, out, indent=1, sort_keys=True)


def check_refusals(refused, features, refusable):
    """Problems for refusals of programs that use no feature srcad may refuse by design."""
    if refused and not (set(features) & refusable):
        return [f"{mode} refused a program using only differentiable features: {message}"
                for mode, message in refused.items()]
    return []


# --- first order ----------------------------------------------------------------------------


def _check_first_order(gen_dir, program, inputs, u, v, test):
    f = gen_programs.load(program, gen_dir).f
    args = list(inputs[: len(program.params)])
    refused = {}
    strict_tape = not program.features
    found = _problems(f, args, refused, u, v, strict_tape)
    assume(found is not None)
    problems, tie_sensitive = found
    if tie_sensitive:
        # An exact tie at the drawn input can make AD differ from the function's own
        # derivative; the same disagreement at a generic point nearby cannot.
        generic = _generic(args)
        again = _problems(f, generic, {}, u, v, strict_tape)
        if again is not None:
            note(f"at the drawn input: {tie_sensitive}")
            problems += again[0] + [f"{p} (at {generic!r})" for p in again[1]]
    problems += check_refusals(refused, program.features, gen_programs.REFUSABLE)
    record(test, program.features, refused)
    assert not problems, f"{program.body}\nargs = {args!r}\n" + "\n".join(problems)


@settings(max_examples=FIRST_ORDER_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(), inputs=INPUTS)
def test_gradient_of_random_program(gen_dir, program, inputs):
    _check_first_order(gen_dir, program, inputs, DIRECTION, 1.0, "first order, core")


@settings(max_examples=FEATURE_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(features=gen_programs.EVERYTHING), inputs=INPUTS,
       u=TANGENTS, v=st.floats(-2.0, 2.0, allow_nan=False))
def test_gradient_of_random_program_with_features(gen_dir, program, inputs, u, v):
    """As above, on programs that may also use decorators, `*args`/`**kwargs` callees, `max`
    and `min` in loops and list mutation (`gen_programs.FEATURES`), with a random tangent `u`
    and cotangent `v` for the dot-product test."""
    _check_first_order(gen_dir, program, inputs, u, v, "first order, features")


# --- second order ---------------------------------------------------------------------------


def _second_order_problems(f, args, i, j, refused):
    """Compare d/dj (df/di) by reverse over reverse and forward over reverse with finite
    differences of srcad's df/di; None where those are unusable (f fails, kink nearby). A
    `SrcadError` is noted in `refused` (mode -> message)."""
    value = _value(f, args)
    if value is None:
        return None
    first = srcad.grad(f, wrt=i)
    try:
        ref = _fd_estimates(lambda *a: float(first(*a)), args, j)
    except srcad.SrcadError as exc:
        refused["grad"] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        return []
    except Exception as exc:  # a first-order failure is the first-order test's business
        return [f"first derivative raised {type(exc).__name__}: {exc}"]
    scale = abs(value) * 1e-6
    if ref is None or not fd_reference.smooth(ref, 1e-4, scale) or not fd_reference.usable(
            ref.central, ref.central_err, 1e-4, scale):
        return None  # a kink nearby, or a reference too rough to judge at 1e-4
    c2 = ref.central
    problems = []
    try:
        rev = float(srcad.grad(first, wrt=j)(*args))
        if not _close(rev, c2, 1e-4, scale):
            problems.append(f"reverse over reverse {rev!r}")
    except srcad.SrcadError as exc:
        refused["grad of grad"] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    except Exception as exc:  # any exception from srcad is a finding
        problems.append(f"reverse over reverse raised {type(exc).__name__}: {exc}")
    tangents = tuple(1.0 if k == j else 0.0 for k in range(len(args)))
    try:
        fwd = float(srcad.jvp(first, tuple(args), tangents)[1])
        if not _close(fwd, c2, 1e-4, scale):
            problems.append(f"forward over reverse {fwd!r}")
    except srcad.SrcadError as exc:
        refused["jvp of grad"] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    except Exception as exc:  # any exception from srcad is a finding
        problems.append(f"forward over reverse raised {type(exc).__name__}: {exc}")
    if problems:
        problems.append(f"finite differences of srcad's d/d{i}: {c2!r}")
    return problems


def _check_second_order(gen_dir, program, inputs, i, j, test):
    f = gen_programs.load(program, gen_dir).f
    args = _generic(inputs[: len(program.params)])
    refused = {}
    problems = _second_order_problems(f, args, i, j, refused)
    assume(problems is not None)
    problems += check_refusals(refused, program.features, gen_programs.REFUSABLE)
    record(test, program.features, refused)
    assert not problems, (f"{program.body}\nargs = {args!r}\nd2f/d{j}d{i}:\n"
                          + "\n".join(problems))


@settings(max_examples=SECOND_ORDER_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(max_statements=5),
       inputs=INPUTS, i=st.integers(0, 1), j=st.integers(0, 1))
def test_second_derivative_of_random_program(gen_dir, program, inputs, i, j):
    """d/dj (d f / di), by srcad twice, matches finite differences of srcad's d f / di."""
    _check_second_order(gen_dir, program, inputs, i, j, "second order, core")


@settings(max_examples=SECOND_ORDER_FEATURE_EXAMPLES, **SETTINGS)
@given(program=gen_programs.programs(max_statements=5, features=gen_programs.SECOND_ORDER),
       inputs=INPUTS, i=st.integers(0, 1), j=st.integers(0, 1))
def test_second_derivative_of_random_program_with_features(gen_dir, program, inputs, i, j):
    """The same on programs using `gen_programs.FEATURES` too."""
    _check_second_order(gen_dir, program, inputs, i, j, "second order, features")
