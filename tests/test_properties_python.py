"""Differential fuzzing of Python as people write it (issue 16's features): random programs of
`gen_programs_python` (classes, methods, properties, `__call__`, static and class methods,
dataclasses and named tuples, lambdas, late-bound closures, function values, `functools.partial`,
`map`, `filter`, `zip(*xs)`, `f(*t)`, `f(**kw)`, defaults, generators, `with` blocks, gradients
taken inside the code, `has_aux`, records as the argument).

For each program and a float ``x`` and an array ``a`` of shape (3,) drawn in [-1, 1], srcad's
`value_and_grad` (or `grad`) of the program's entry point, with respect to both, must either

- refuse with a `SrcadError` naming the program's file and a line, or
- give `SCALAR`'s value (1e-12) and a gradient equal to autograd's on the same source (on
  autograd.numpy, 1e-10) and to central differences (1e-6); where autograd cannot run the
  program, central differences alone; where the two references disagree with each other (a kink
  of `filter`'s test near the input) the program is not judged;
- and, for a third of the programs, `srcad.jvp` along a random tangent gives the gradient's
  inner product with it; for a quarter, ``grad(grad(ENTRY, wrt=0), wrt=0)`` equals autograd's
  second derivative (1e-8);
- after the program's knobs change (a global number, an attribute, a class attribute, a module
  function rebound), the *same* derivative called again must match the references at the new
  values (Python reads them when the code runs).

A `TypeError` from the code's own guard (the object holds a function of its own where srcad
read its class's method, after a knob) is accepted too. Any other exception, or a wrong
number, fails. `outcome(seed, directory)` classifies one program
(tools or a long run can call it); `STATS` counts the outcomes and refusals per feature, written
as JSON to the file named by SRCAD_PROPERTY_STATS.

The default run (CI) checks 12 programs (`sampling.sample`); `SRCAD_LONG_PROPERTIES=1` checks
all 3000 seeds.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter

import autograd
import gen_programs_python as gen
import numpy as np
import pytest
from sampling import sample
from twin_checks import close

import srcad
from srcad.errors import SrcadError

# from 1: CI's sample (1, 251, 501, ...) then holds seeds of each check (seed % 3 == 0: jvp;
# seed % 4 == 1: a second derivative; 0, 250, 500, ... held no second derivative)
SEEDS = sample(range(1, 3001), 250)
STATS = Counter()


def _central(F, x, a, h=1e-6):
    gx = (F(x + h, a) - F(x - h, a)) / (2 * h)
    ga = np.zeros(3)
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        ga[i] = (F(x, a + e) - F(x, a - e)) / (2 * h)
    return gx, ga


def _derivative(prog, mod):
    """A function of (x, a) giving srcad's (value, gx, ga) for the program's entry point."""
    use_vg = prog.seed % 2 == 0
    if prog.entry in ("dataclass", "namedtuple"):
        made = (srcad.value_and_grad if use_vg else srcad.grad)(mod.ENTRY)

        def run(x, a):
            out = made(mod.Params(x, a))
            v, g = out if use_vg else (mod.SCALAR(x, a), out)
            assert type(g) is mod.Params, f"the gradient is a {type(g).__name__}, not Params"
            return v, g.x, g.a
        return run
    if prog.entry == "aux":
        made = (srcad.value_and_grad if use_vg else srcad.grad)(mod.ENTRY, wrt=(0, 1),
                                                                  has_aux=True)

        def run(x, a):
            if use_vg:
                (v, aux), (gx, ga) = made(x, a)
            else:
                (gx, ga), aux = made(x, a)
                v = mod.SCALAR(x, a)
            assert close(aux, 2.0 * v, 1e-12), f"aux {aux!r} is not 2 * {v!r}"
            return v, gx, ga
        return run
    made = (srcad.value_and_grad if use_vg else srcad.grad)(mod.ENTRY, wrt=(0, 1))

    def run(x, a):
        if use_vg:
            v, (gx, ga) = made(x, a)
        else:
            (gx, ga), v = made(x, a), mod.SCALAR(x, a)
        return v, gx, ga
    return run


def _references(mod, twin, x, a):
    """(autograd's (gx, ga) or None, central differences' (gx, ga))."""
    try:
        ref = autograd.grad(twin.SCALAR, (0, 1))(x, a)
        ref = (float(ref[0]), np.asarray(ref[1], float))
    except Exception:  # autograd cannot run every program (a dataclass of boxes, ...)
        ref = None
    return ref, _central(mod.SCALAR, x, a)


def _judge(got, mod, twin, x, a, where):
    """Problems with srcad's (value, gx, ga) at (x, a)."""
    v, gx, ga = got
    want_v = mod.SCALAR(x, a)
    problems = []
    if not close(v, want_v, 1e-12):
        problems.append(f"{where}: value {v!r}, SCALAR gives {want_v!r}")
    if np.ndim(gx) != 0 or np.shape(ga) != (3,):
        problems.append(f"{where}: gradient shapes {np.shape(gx)}, {np.shape(ga)}")
        return problems
    ref, fd = _references(mod, twin, x, a)
    fd_ok = close(gx, fd[0], 1e-6) and close(ga, fd[1], 1e-6)
    if ref is not None:
        ref_ok = close(gx, ref[0], 1e-10) and close(ga, ref[1], 1e-10)
        refs_agree = close(ref[0], fd[0], 1e-6) and close(ref[1], fd[1], 1e-6)
        if not ref_ok and refs_agree:
            problems.append(f"{where}: WRONG gradient ({gx!r}, {ga!r}); autograd ({ref[0]!r}, "
                            f"{ref[1]!r}), differences ({fd[0]!r}, {fd[1]!r})")
        elif not refs_agree:
            STATS["unjudged (references disagree)"] += 1
        elif not fd_ok:
            problems.append(f"{where}: gradient off differences only")
    elif not fd_ok:
        problems.append(f"{where}: WRONG gradient ({gx!r}, {ga!r}); differences "
                        f"({fd[0]!r}, {fd[1]!r}); autograd cannot run the program")
    return problems


def _second_order(mod, twin, x, a):
    """Problems with ``grad(grad(ENTRY, wrt=0), wrt=0)`` at (x, a), against autograd's (or,
    where autograd cannot run the program or gives no finite number, central differences of
    srcad's first derivative)."""
    got = srcad.grad(srcad.grad(mod.ENTRY, wrt=0), wrt=0)(x, a)
    try:
        want = float(autograd.grad(autograd.grad(twin.SCALAR, 0), 0)(x, a))
        tol = 1e-8
    except Exception:
        want = math.nan
    if not math.isfinite(want):  # autograd cannot run it, or overflows on its way (seed 501:
        # cosh of a large number inside autograd's second derivative, nan; srcad's is finite)
        first = srcad.grad(mod.ENTRY, wrt=0)
        want, tol = (first(x + 1e-6, a) - first(x - 1e-6, a)) / 2e-6, 1e-5
    if not close(got, want, tol):
        return [f"WRONG second derivative {got!r}, want {want!r}"]
    return []


def _turn_knobs(prog, *modules):
    for m in modules:
        for kind, name, *rest in prog.knobs:
            if kind == "global":  # a string names another module global (an array)
                setattr(m, name, getattr(m, rest[0]) if isinstance(rest[0], str) else rest[0])
            elif kind == "attr":  # a string names a module function (a method replaced)
                value = getattr(m, rest[1]) if isinstance(rest[1], str) else rest[1]
                setattr(getattr(m, name), rest[0], value)
            elif kind == "mutate":  # a global array changed in place
                getattr(m, name)[...] = rest[0]
            else:  # rebind a module function
                setattr(m, name, getattr(m, rest[0]))


def outcome(seed, directory):
    """('ok' | 'refused' | 'guarded' | 'crash' | 'wrong' | 'invalid', detail, program) of
    program `seed` ('guarded': the code's own check refused a function the object holds in
    place of its class's method, a TypeError when it runs, never a wrong gradient)."""
    prog = gen.program(seed)
    mod = gen.load(prog.source, directory, "pyprog")
    twin = gen.load(prog.twin, directory, "pyprog_twin")
    rng = np.random.default_rng(seed)
    x, a = float(rng.uniform(-1, 1)), rng.uniform(-1, 1, 3)
    try:
        mod.SCALAR(x, a)
    except Exception as e:  # the generator wrote a program Python cannot run: its bug
        return "invalid", repr(e), prog
    try:
        run = _derivative(prog, mod)
        problems = _judge(run(x, a), mod, twin, x, a, "first call")
        if not problems and prog.entry not in ("dataclass", "namedtuple", "aux") and seed % 3 == 0:
            tx, ta = 0.3, rng.uniform(-1, 1, 3)
            _, tangent = srcad.jvp(mod.ENTRY, (x, a), (tx, ta))
            _, gx, ga = run(x, a)
            if not close(tangent, gx * tx + np.dot(ga, ta), 1e-9):
                problems.append(f"WRONG jvp {tangent!r}, grad gives {gx * tx + np.dot(ga, ta)!r}")
        if not problems and prog.entry not in ("dataclass", "namedtuple", "aux") and \
                seed % 4 == 1:
            problems += _second_order(mod, twin, x, a)
        if not problems and prog.knobs:
            _turn_knobs(prog, mod, twin)
            problems += _judge(run(x, a), mod, twin, x, a, "after the knobs turned")
    except SrcadError as e:
        located = e.filename == mod.__file__ and isinstance(e.lineno, int)
        if located:
            return "refused", f"{type(e).__name__}: {e}", prog
        return "crash", f"refusal not located in the program: {type(e).__name__}: {e}", prog
    except AssertionError as e:
        return "wrong", str(e), prog
    except TypeError as e:
        if str(e).startswith("srcad differentiated"):  # a guard in the code: sound
            return "guarded", str(e), prog
        return "crash", f"TypeError: {e}", prog
    except Exception as e:
        return "crash", f"{type(e).__name__}: {e}", prog
    if problems:
        return ("wrong" if any("WRONG" in p or "value" in p for p in problems) else "crash",
                "\n".join(problems), prog)
    return "ok", "", prog


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_python")


@pytest.mark.parametrize("seed", SEEDS)
def test_python_program(seed, gen_dir):
    verdict, detail, prog = outcome(seed, gen_dir)
    STATS[verdict] += 1
    if verdict == "refused":
        for feature in prog.features:
            STATS[f"refused with {feature}"] += 1
    assert verdict in ("ok", "refused", "guarded"), f"{verdict}: {detail}\n{prog!r}"


def teardown_module():
    path = os.environ.get("SRCAD_PROPERTY_STATS")
    if path:
        with open(path + ".python.json", "w") as out:
            json.dump(dict(STATS), out, indent=1, sort_keys=True)
