"""Sound25's independent fuzzer for wrong gradients: random programs of `gen_programs25`
(families "py" and "np": containers, user objects, closures over loop variables, aliasing,
in-place writes on views, dtype mixing, ties, index-driven reads, reductions with axes) and
`gen_forms25` ("fn", "fn2": math/NumPy calls in the forms people write, with their keywords)
and `gen_python25` ("py2": more Python forms: ``key=`` functions, ``itertools``, ``operator``,
dicts walked while rewritten, operator overloading, ``*args``/``**kwargs``).

For each program, at a random point, srcad's ``grad(f, wrt=(0, 1, 2))`` must either refuse with a
`SrcadError` naming the program's file and line, or give

- the gradient of autograd on the same source (on ``autograd.numpy``, 1e-8) where autograd runs
  the program and agrees with central differences, else central differences (1e-6); a program
  whose differences at two step sizes disagree (a kink near the point) is judged only where
  autograd runs it;
- the inputs unchanged, ``value_and_grad``'s value equal to the function's (1e-12);
- for a third of the seeds, ``jvp`` along a random tangent equal to the gradient's inner product
  with it (1e-8); for a quarter, ``vjp``'s pullback of 1.0 equal to the gradient (1e-12); for
  a fifth, ``hessian(f, wrt=0)`` equal to central differences of srcad's gradient (1e-4).

Anything else (another exception, a wrong number) fails. `outcome(family, seed, directory)`
classifies one program; `STATS` counts outcomes per family, written as JSON to the file named
by SRCAD_PROPERTY_STATS. The default run checks two programs per family; SRCAD_LONG_PROPERTIES=1
checks 300 per family (seeds 1 to 300). Imports NumPy, autograd, srcad and the three generators."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings
from collections import Counter

import autograd
import gen_forms25
import gen_programs25
import gen_python25
import numpy as np
import pytest
from sampling import sample
from twin_checks import close

import srcad
from srcad.errors import SrcadError

FAMILIES = ("py", "py2", "np", "fn", "fn2")
# CI's sample: seeds 1 and 151 of each family (jvp and Hessian seeds only in the long run)
CASES = [(fam, seed) for fam in FAMILIES for seed in sample(range(1, 301), 150)]
STATS = Counter()


def _text(family, seed):
    if family == "fn":
        return gen_forms25.fn_program(seed)
    if family == "fn2":
        return gen_forms25.fn2_program(seed)
    if family == "py2":
        return gen_python25.py2_program(seed)
    return gen_programs25.program(seed, family)


def _load(text, directory, stem):
    path = os.path.join(directory, stem + ".py")
    with open(path, "w") as out:
        out.write(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _copy(args):
    return [np.array(a) if np.ndim(a) else a for a in args]


def _central(F, args, h):
    out = []
    for k, v in enumerate(args):
        g = np.zeros(np.shape(v))
        for i in np.ndindex(g.shape):
            e = np.zeros(np.shape(v))
            e[i] = h
            up, down = list(args), list(args)
            up[k], down[k] = v + (e if e.ndim else h), v - (e if e.ndim else h)
            g[i] = (F(*up) - F(*down)) / (2 * h)
        out.append(g if g.ndim else float(g))
    return out


def _references(mod, twin, args):
    """(the gradient to meet, its tolerance, whether a kink is near), or None (unjudged)."""
    F = lambda *xs: mod.f(*_copy(xs))  # noqa: E731
    fd = _central(F, args, 1e-6)
    kink = not all(close(p, q, 1e-4) for p, q in zip(fd, _central(F, args, 1e-4)))
    try:
        ref = autograd.grad(lambda *xs: twin.f(*_copy(xs)), (0, 1, 2))(*args)
        ref = [np.asarray(r, float) for r in ref]
        if not all(close(p, q, 1e-6) for p, q in zip(ref, fd)):
            ref = None  # a kink, or a convention of autograd's (ties, a symmetrised rule)
    except Exception:  # autograd cannot run every program (in-place writes, ...)
        ref = None
    if ref is not None:
        return ref, 1e-8, kink
    return (None if kink else (fd, 1e-6, kink))


def _judge(mod, twin, args, rng, seed):
    """Problems with srcad's derivatives of ``mod.f`` at ``args`` ('unjudged' near a kink)."""
    refs = _references(mod, twin, args)
    if refs is None:
        return "unjudged"
    want, tol, _ = refs
    before = _copy(args)
    g = srcad.grad(mod.f, wrt=(0, 1, 2))(*args)
    if not all(np.array_equal(b, a) for b, a in zip(before, args)):
        return "WRONG: srcad's derivative changed its inputs"
    for k in range(3):
        if np.shape(g[k]) != np.shape(args[k]):
            return f"WRONG: gradient {k} has shape {np.shape(g[k])}"
        if not close(g[k], want[k], tol):
            return f"WRONG gradient {k}: {g[k]!r}, want {want[k]!r} (tolerance {tol})"
    v, _ = srcad.value_and_grad(mod.f, wrt=(0, 1, 2))(*_copy(args))
    if not close(v, mod.f(*_copy(args)), 1e-12):
        return f"WRONG value {v!r}"
    if seed % 3 == 0:
        ts = [0.3 if np.ndim(a) == 0 else rng.standard_normal(np.shape(a)) for a in args]
        _, tangent = srcad.jvp(mod.f, tuple(_copy(args)), tuple(ts))
        want_t = sum(np.sum(gk * t) for gk, t in zip(g, ts))
        if not close(tangent, want_t, 1e-8):
            return f"WRONG jvp {tangent!r}, the gradient gives {want_t!r}"
    if seed % 4 == 2:
        _, pullback = srcad.vjp(mod.f, *_copy(args))
        pulled = pullback(1.0)
        if not all(close(p, gk, 1e-12) for p, gk in zip(pulled, g)):
            return f"WRONG vjp {pulled!r}, the gradient is {g!r}"
    if seed % 5 == 0:
        h = srcad.hessian(mod.f, wrt=0)(*_copy(args))
        first = srcad.grad(mod.f, wrt=0)
        fd = (first(*([args[0] + 1e-5] + _copy(args[1:])))
              - first(*([args[0] - 1e-5] + _copy(args[1:])))) / 2e-5
        if not close(h, fd, 1e-4) and not refs[2]:
            return f"WRONG hessian {h!r}, differences of the gradient {fd!r}"
    return ""


def outcome(family, seed, directory):
    """('ok' | 'refused' | 'unjudged' | 'invalid' | 'wrong' | 'crash', detail, text)."""
    text, twin_text, _ = _text(family, seed)
    stem = f"fuzz25_{family}_{seed}"
    mod = _load(text, directory, stem)
    rng = np.random.default_rng(seed)
    if family in ("py", "py2"):
        args = [float(v) for v in rng.uniform(-1, 1, 3)]
    else:
        args = [float(rng.uniform(-1, 1)), rng.uniform(-1, 1, 4), rng.uniform(-1, 1, (3, 4))]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            v0 = mod.f(*_copy(args))
            if not np.isfinite(v0) or abs(v0) > 1e6:
                return "invalid", "not a moderate finite number", text
        except Exception as e:  # the generator wrote a program NumPy cannot run
            return "invalid", repr(e), text
        twin = _load(twin_text, directory, stem + "_twin")
        try:
            problem = _judge(mod, twin, args, rng, seed)
        except SrcadError as e:
            if e.filename == mod.__file__ and isinstance(e.lineno, int):
                return "refused", f"{type(e).__name__}: {e}", text
            return "crash", f"refusal not located in the program: {type(e).__name__}: {e}", text
        except Exception as e:
            return "crash", f"{type(e).__name__}: {e}", text
    if problem == "unjudged":
        return "unjudged", "", text
    return ("wrong", problem, text) if problem else ("ok", "", text)


@pytest.fixture(scope="module")
def gen_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz25"))


@pytest.mark.parametrize("family, seed", CASES)
def test_fuzz25_program(family, seed, gen_dir):
    verdict, detail, text = outcome(family, seed, gen_dir)
    STATS[f"{family} {verdict}"] += 1
    assert verdict not in ("wrong", "crash"), f"{verdict}: {detail}\n{text}"


def teardown_module():
    path = os.environ.get("SRCAD_PROPERTY_STATS")
    if path:
        with open(path + ".fuzz25.json", "w") as out:
            json.dump(dict(STATS), out, indent=1, sort_keys=True)
