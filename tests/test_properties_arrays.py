"""Property-based tests on random NumPy programs that mutate and alias arrays and lists.

`gen_array_programs.array_programs()` writes a module with `f(a, x)` (a scalar) and `fv(a, x)`
(a 1-D array) sharing one random body of slices, views, copies, writes (`b[i] = s`, `b[1:] *= c`,
repeated fancy indices, `np.add.at`, `out=`, masks, writes in loops, through views, into the
argument), `sort`, lists appended to, popped, written and aliased, and `max`/`min` in loops.
For an array `a` of shape (6,) and a float `x`, each drawn in [-1.5, 1.5], srcad must either
refuse with a `SrcadError` or:

- `value_and_grad(f)` gives `f`'s value and a gradient that matches central finite differences
  (on the 7 coordinates of `a` and `x`; the reference tape too when the program writes into no
  array, since the tape drops values stored into arrays);
- `jvp(f)` along a random `u` gives <grad, u>, and `jvp(fv)`'s value is `fv`'s;
- the dot-product test: <jvp(fv)(u), v> == <u, vjp(fv)(v)> for a random cotangent `v`, and
  <jvp(fv)(u), v> matches finite differences of <fv, v> along `u`.

A refusal is accepted when the program uses a feature srcad refuses by design
(`gen_array_programs.REFUSABLE`); a refusal of a program using only the others is a failure.
Non-smooth points are told from bugs as in test_properties.py (one-sided differences, and a
re-check at a generic point near the drawn input). Every call gets fresh copies of `a`, so a
program that writes into its argument cannot change the inputs of the next call.

The default run (CI) draws 25 programs (50 before session 33); `SRCAD_LONG_PROPERTIES=1`
draws 9000 (times SRCAD_PROPERTY_EXAMPLES).
"""

from __future__ import annotations

import math

import fd_reference
import gen_array_programs
import gen_programs
import numpy as np
import pytest
import srcad.tape
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from test_properties import (
    NUDGE,
    SETTINGS,
    VALUE_LIMIT,
    _close,
    _fd_estimates,
    check_refusals,
    examples,
    record,
    record_stats,  # noqa: F401  (writes the refusal statistics of this module too)
)

import srcad

ARRAY_EXAMPLES = examples(9000, 25)

COORDS = st.lists(st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False),
                  min_size=7, max_size=7)
TANGENTS = st.lists(st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False),
                    min_size=7, max_size=7)
COTANGENTS = st.lists(st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False),
                      min_size=24, max_size=24)

#: Features whose programs write into an array: the tape drops values stored into arrays.
WRITES = {"write_clean", "fancy_repeat", "add_at", "out", "mask_write", "loop_write",
          "write_shared", "write_arg", "write_after_read", "sort", "iter_mutate"}


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_arrays")


def _split(p):
    return np.array(p[:6], dtype=float), float(p[6])


def _scalar_of(f):
    """f as a function of the 7 coordinates, on fresh copies."""
    def F(*p):
        a, x = _split(p)
        return float(f(a, x))
    return F


def _evaluate(module, p):
    """(f, fv) at p, or None where either fails or is too large."""
    a, x = _split(p)
    try:
        with np.errstate(all="raise"):
            value = float(module.f(a.copy(), x))
            vector = np.asarray(module.fv(a.copy(), x), dtype=float)
    except (ArithmeticError, ValueError, FloatingPointError):
        return None
    if not math.isfinite(value) or abs(value) > VALUE_LIMIT:
        return None
    if vector.ndim != 1 or not np.all(np.isfinite(vector)) or np.max(np.abs(vector)) > 1e4:
        return None
    return value, vector


class _Refused(Exception):
    pass


def _mode(refused, mode, call):
    try:
        return call()
    except srcad.SrcadError as exc:
        refused[mode] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        raise _Refused from None


def _problems(module, p, u, v, features, refused):
    try:
        return _problems_or_raise(module, p, u, v, features, refused)
    except Exception as exc:  # any exception from srcad is a finding
        return [f"srcad raised {type(exc).__name__}: {exc}"], []


def _problems_or_raise(module, p, u, v, features, refused):
    evaluated = _evaluate(module, p)
    if evaluated is None:
        return None
    value, vector = evaluated
    v = np.asarray(v[: len(vector)], dtype=float)
    a, x = _split(p)
    ua, ux = _split(u)
    u_flat = np.asarray(u, dtype=float)
    scale = abs(value) * 1e-6
    problems, tie_sensitive = [], []

    grads = None
    given = a.copy()  # the generated code must leave its arguments as they were
    try:
        got, (ga, gx) = _mode(refused, "grad",
                              lambda: srcad.value_and_grad(module.f, wrt=(0, 1))(given, x))
        if not np.array_equal(given, a):
            problems.append(f"value_and_grad changed its argument a: {a!r} -> {given!r}")
        grads = np.concatenate([np.asarray(ga, dtype=float).ravel(), [float(gx)]])
    except _Refused:
        pass
    if grads is not None:
        if np.shape(ga) != (6,):
            problems.append(f"gradient for a has shape {np.shape(ga)}")
        if not _close(float(got), value, 1e-12, 0.0):
            problems.append(f"value_and_grad value {got!r} != f = {value!r}")
        if not np.all(np.isfinite(grads)):
            problems.append(f"non-finite gradient {grads!r} where f = {value!r} is finite")
        gnorm = float(np.sum(np.abs(grads)))
        try:
            jvp_value, tangent = _mode(refused, "jvp", lambda: srcad.jvp(
                module.f, (a.copy(), x), (ua.copy(), ux)))
            expected = float(np.dot(grads, u_flat))
            if not _close(float(jvp_value), value, 1e-12, 0.0):
                problems.append(f"jvp(f) value {jvp_value!r} != f = {value!r}")
            if not _close(float(tangent), expected, 1e-8, scale + gnorm):
                problems.append(f"jvp(f) tangent {tangent!r} != <grad, u> = {expected!r}")
        except _Refused:
            pass

    # the dot-product test on the vector-valued fv
    tangent = cotangent = None
    try:
        jvp_value, tangent = _mode(refused, "jvp", lambda: srcad.jvp(
            module.fv, (a.copy(), x), (ua.copy(), ux)))
        jvp_value, tangent = np.asarray(jvp_value), np.asarray(tangent, dtype=float)
        if jvp_value.shape != vector.shape or not np.allclose(jvp_value, vector, 1e-12, 1e-12):
            problems.append(f"jvp(fv) value {jvp_value!r} != fv = {vector!r}")
        if tangent.shape != vector.shape:
            problems.append(f"jvp(fv) tangent has shape {tangent.shape}, fv {vector.shape}")
            tangent = None
    except _Refused:
        pass
    try:
        given, cotangent_given = a.copy(), v.copy()
        vjp_value, pullback = _mode(refused, "vjp", lambda: srcad.vjp(module.fv, given, x))
        ca, cx = _mode(refused, "vjp", lambda: pullback(cotangent_given))
        if not (np.array_equal(given, a) and np.array_equal(cotangent_given, v)):
            problems.append("vjp or its pullback changed an argument or the cotangent")
        cotangent = np.concatenate([np.asarray(ca, dtype=float).ravel(), [float(cx)]])
        vjp_value = np.asarray(vjp_value)
        if vjp_value.shape != vector.shape or not np.allclose(vjp_value, vector, 1e-12, 1e-12):
            problems.append(f"vjp(fv) value {vjp_value!r} != fv = {vector!r}")
        if np.shape(ca) != (6,):
            problems.append(f"vjp(fv) cotangent for a has shape {np.shape(ca)}")
            cotangent = None
    except _Refused:
        pass
    vscale = float(np.sum(np.abs(vector))) * 1e-6
    if tangent is not None:
        forward = float(np.dot(tangent, v))
        if cotangent is not None:
            backward = float(np.dot(u_flat, cotangent))
            size = float(np.sum(np.abs(cotangent)) + np.sum(np.abs(tangent)))
            if not _close(forward, backward, 1e-8, vscale + size):
                problems.append(f"<jvp(u), v> = {forward!r} != <u, vjp(v)> = {backward!r}")
        along = _fd_estimates(lambda t: float(np.dot(np.asarray(module.fv(
            *_split(list(p + t * u_flat))), dtype=float), v)), [0.0], 0)
        if along is not None and fd_reference.smooth(along, 1e-5, vscale):
            problem = fd_reference.judge(forward, along, vscale)[0]
            if problem:
                tie_sensitive.append(f"<jvp(fv)(u), v> = {forward!r}, {problem}")

    if grads is None:
        return problems, tie_sensitive
    F = _scalar_of(module.f)
    if not features & WRITES:
        try:
            ta, tx = srcad.tape.grad(module.f, wrt=(0, 1))(a.copy(), x)
            tape = np.concatenate([np.asarray(ta, dtype=float).ravel(), [float(tx)]])
        except Exception:  # the tape does not run every construct (np.cumsum, ...)
            tape = grads
        for i, (g, t) in enumerate(zip(grads, tape)):
            if not _close(g, t, 1e-7, scale):
                tie_sensitive.append(f"d/dp{i}: srcad {g!r}, tape {t!r}")
    for i, g in enumerate(grads):
        ref = _fd_estimates(F, list(p), i)
        problem = fd_reference.judge(g, ref, scale)[0] if ref is not None else None
        if problem:
            tie_sensitive.append(f"d/dp{i}: srcad {g!r}, {problem}")
    return problems, tie_sensitive


#: Distinct offsets for the 7 coordinates (equal ones would keep ties such as np.max's).
NUDGE7 = NUDGE + (-0.8862269254527580, 0.6931471805599453, -0.4142135623730950,
                  0.2718281828459045)


def _generic(p):
    return np.array([c + 1e-3 * (1.0 + abs(c)) * NUDGE7[k] for k, c in enumerate(p)])


@settings(max_examples=ARRAY_EXAMPLES, **SETTINGS)
@given(program=gen_array_programs.array_programs(), coords=COORDS, u=TANGENTS, v=COTANGENTS)
def test_random_array_program(gen_dir, program, coords, u, v):
    module = gen_programs.load(program, gen_dir)
    p = np.array(coords)
    refused = {}
    found = _problems(module, p, u, v, program.features, refused)
    assume(found is not None)
    problems, tie_sensitive = found
    if tie_sensitive:
        generic = _generic(p)
        again = _problems(module, generic, u, v, program.features, {})
        if again is not None:
            note(f"at the drawn input: {tie_sensitive}")
            problems += again[0] + [f"{q} (at {list(generic)!r})" for q in again[1]]
    problems += check_refusals(refused, program.features, gen_array_programs.REFUSABLE)
    record("arrays", program.features, refused)
    assert not problems, (f"{program.body}\na, x = {list(p[:6])!r}, {p[6]!r}\n"
                          + "\n".join(problems))
