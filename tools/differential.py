"""The shared half of the differential suites: a case's module, its checks, their outcomes.

Used by ``tools/opinfo_suite.py`` (PyTorch's OpInfo samples), ``tools/jax_records_suite.py``
(JAX's op records) and ``tools/jax_scipy_records.py`` (JAX's SciPy and linear-algebra tests).
Each of those reads its outside source and builds, per case, a NumPy/SciPy call on parameters
``x0, x1, ...``; this module writes the call into a small module

    def f(x0, x1):
        out = np.arctan2(x0, x1)
        return np.sum(out * W0)

(``make_module``: one fixed random weight ``W<i>`` per floating part of the output, a complex
output by its real and imaginary parts) and judges srcad's derivatives of ``f`` against a
second engine's gradients and central differences:

``judge``          a directional derivative against central differences at two step sizes:
                   PASS, WRONG (steady differences that disagree), CONVENTION (a kink, srcad
                   between the one-sided differences), KINK (look by hand)
``compare_grads``  srcad's reverse gradients against the other engine's (judged where they
                   differ, along the element that differs most)
``compare_jvp``    srcad's forward tangent likewise
``failure``        an exception as REFUSED (``srcad.SrcadError``) or CRASH
``checked``        one check under a time limit (a timeout is a CRASH)

Imports: numpy, srcad (at call time).
"""

from __future__ import annotations

import importlib.util
import os
import signal

import numpy as np

OUTCOMES = ["PASS", "WRONG", "CONVENTION", "KINK", "REFUSED", "CRASH", "UNMAPPED"]

MODULE = """\
import numpy as np
import scipy.integrate
import scipy.linalg
import scipy.special
import scipy.stats
{prelude}

def f({params}):
    out = {call}
    return {terms}


def g({params}):
    return {call}
"""


def part(value, path, kind):
    """The floating part ``kind`` ('re', 'im', 'plain') of ``value`` at ``path`` ('[0][1]')."""
    for index in path.strip("[]").split("]["):
        if index:
            value = value[int(index)]
    if kind == "re":
        return value.real
    if kind == "im":
        return value.imag
    return value


def make_module(names, call, parts, folder, name, consts=(), prelude=""):
    """The module of a case (``f`` weighs each floating part of ``out``, ``g`` returns it),
    written to ``folder`` and imported (so srcad can read its source); ``consts`` are set on it
    before it runs. Returns (module, text)."""
    terms = []
    for i, (path, kind) in enumerate(parts):
        value = f"out{path}"
        value = {"re": f"np.real({value})", "im": f"np.imag({value})"}.get(kind, value)
        terms.append(f"np.sum({value} * W{i})")
    text = MODULE.format(params=", ".join(names), call=call, terms=" + ".join(terms) or "0.0",
                         prelude=prelude)
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    for k, v in dict(consts).items():
        setattr(mod, k, v)
    spec.loader.exec_module(mod)
    return mod, text


# ---- judging ---------------------------------------------------------------------------------

def close(a, b, tol=1e-6):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    ok = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
    diff = np.where(ok, 0.0, np.abs(a - b))
    finite = np.abs(b[np.isfinite(b)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    return bool(np.all(diff <= tol * scale)) and not np.any(np.isnan(diff))


def fixed_steps(xs):
    """1e-6 and 1e-4: the OpInfo samples' steps."""
    return 1e-6, 1e-4, False


def scaled_steps(xs):
    """1e-6 times the inputs' size (1e-9 near 0) and 100 times that, a smaller step again
    where the two disagree (near a pole): JAX's records' steps."""
    scale = max([1.0] + [float(np.max(np.abs(x))) for x in xs if np.size(x)])
    scale = min(scale, 1.0) if all(np.max(np.abs(x), initial=0) < 1e-3 for x in xs) else scale
    tiny = min([1.0] + [float(np.min(np.abs(x))) for x in xs if np.size(x)])
    h1 = 1e-6 * scale if tiny > 1e-4 else 1e-9
    return h1, h1 * 100, True


def judge(fn, xs, vs, claimed, steps=scaled_steps, agree="central differences agree with srcad"):
    """PASS / WRONG / CONVENTION / KINK for a directional derivative ``claimed`` of the plain
    function ``fn`` along ``vs``, by central differences at two step sizes."""
    h1, h2, retry = steps(xs)

    def along(h):
        plus = fn(*[x + h * v for x, v in zip(xs, vs)])
        minus = fn(*[x - h * v for x, v in zip(xs, vs)])
        return (plus - minus) / (2 * h), plus, minus

    base = fn(*xs)
    d1, plus, minus = along(h1)
    d2, _, _ = along(h2)
    mag = max(1.0, abs(d1), abs(claimed))
    if not (np.isfinite(d1) and np.isfinite(d2)):
        return "KINK", f"differences not finite ({d1}, {d2})"
    if retry and abs(d1 - d2) > 1e-5 * mag:  # strongly curved (near a pole): a smaller step
        d2 = along(h1 / 10)[0]
    if np.isfinite(d2) and abs(d1 - d2) <= 1e-5 * mag:
        if abs(claimed - d1) <= 1e-5 * mag:
            return "PASS", agree
        return "WRONG", f"srcad {claimed!r}, central differences {d1!r} (steady: {d2!r})"
    right, left = (plus - base) / h1, (base - minus) / h1
    lo, hi = min(left, right), max(left, right)
    if lo - 1e-5 * mag <= claimed <= hi + 1e-5 * mag:
        return "CONVENTION", f"kink: one-sided {left!r} / {right!r}, srcad {claimed!r}"
    return "KINK", f"kink: one-sided {left!r} / {right!r}, srcad {claimed!r}"


def compare_grads(f, xs, g, other, rng, **how):
    """srcad's gradients ``g`` against the other engine's (``other``, or None: a random
    direction judged by differences alone); ``how`` goes to ``judge``."""
    for i, (x, gi) in enumerate(zip(xs, g)):
        gi = np.asarray(gi, dtype=float)
        if gi.shape != np.shape(x):
            return ("rev", "WRONG", f"gradient {i} has shape {gi.shape}, not {np.shape(x)}")
        if other is not None and close(gi, other[i]):
            continue
        if not gi.size:
            continue
        if other is not None and np.shape(other[i]) == gi.shape:
            k = int(np.argmax(np.nan_to_num(np.abs(gi - other[i]), nan=np.inf)))
            v = np.zeros(np.shape(x))
            v.flat[k] = 1.0
        else:
            v = rng.standard_normal(np.shape(x))
        vs = [np.zeros(np.shape(y)) for y in xs]
        vs[i] = float(v) if isinstance(x, float) else v
        outcome, detail = judge(f, xs, vs, float(np.sum(gi * v)), **how)
        if outcome != "PASS":
            return ("rev", outcome, f"d/dx{i}: {detail}")
    return ("rev", "PASS", "")


def compare_jvp(f, xs, vs, value, tangent, other, **how):
    fx = f(*xs)
    if not close(value, fx):
        return ("fwd", "WRONG", f"jvp value {value!r}, f {fx!r}")
    if other is not None:
        want = sum(float(np.sum(g * v)) for g, v in zip(other, vs))
        if close(tangent, want):
            return ("fwd", "PASS", "")
    outcome, detail = judge(f, xs, vs, float(tangent), **how)
    return ("fwd", outcome, detail)


# ---- failures and time limits ----------------------------------------------------------------

class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("no result in time")


def failure(e):
    import srcad
    kind = "REFUSED" if isinstance(e, srcad.SrcadError) else "CRASH"
    first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
    return kind, f"{type(e).__name__}: {first}"


def checked(check, timeout, fn, *args):
    """``fn(*args)`` (a (check, outcome, detail) row) within ``timeout`` seconds; an exception
    (a timeout included) is the row (check, REFUSED or CRASH, message)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - every failure is an outcome
        return (check,) + failure(e)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
