"""Run the test functions of Google's Tangent through srcad, checking every derivative.

    python tools/tangent_suite.py [--repo PATH] [--only NAME ...] [--json F]

Tangent (github:google/tangent, the source-transformation library srcad is meant to surpass)
keeps its test functions in ``tests/functions.py``: about 120 small functions of scalars
``a, b, c``, a vector ``x``, an int ``n`` and a few named shapes, written to stress a
source transformer (branches, loops, overwrites, calls, containers, slicing). This tool reads
that file at run time from a fetched copy of the repository (``fetch github:google/tangent``;
default ``/work/.mirror/google+tangent/repo``), never copied into this repository, loads it
twice (once on NumPy for srcad, once on ``autograd.numpy`` for autograd) with a stand-in for
the ``tangent`` import, and for each function and each input set checks:

- reverse mode: ``srcad.grad`` (a scalar output) or ``srcad.vjp`` with a random cotangent,
  against central finite differences and against autograd;
- forward mode: ``srcad.jvp`` along a random direction, against finite differences;
- second order, for functions of scalars with a scalar output: ``srcad.hessian`` in both
  modes, against finite differences of autograd's gradient.

Outcomes per function: PASS, WRONG (a derivative disagrees with both references), REFUSED (a
``SrcadError``), CRASH (any other exception from srcad), UNSUPPORTED (Tangent's own API,
``insert_grad_of``, or TensorFlow), SKIP (the function itself fails on these inputs, or has
no differentiable input). Prints one line per function and the counts; ``--json`` writes them.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import tempfile
import types
import warnings

import numpy as np

import srcad

DEFAULT_REPO = "/work/.mirror/google+tangent/repo"
RTOL, ATOL = 1e-5, 1e-6


class Unsupported(Exception):
    """Tangent's own API, or TensorFlow: not a differentiation srcad is asked for."""


def _tangent_stand_in():
    """A module standing for ``tangent``: every name it is asked for is unsupported."""
    module = types.ModuleType("tangent")

    def named(name):
        def stand_in(*args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:  # a decorator
                def unsupported(*a, **k):
                    raise Unsupported(f"tangent.{name} (Tangent's own API)")
                return unsupported
            raise Unsupported(f"tangent.{name} (Tangent's own API)")
        return stand_in

    module.insert_grad_of = named("insert_grad_of")

    def attribute(name):
        if name.startswith("__"):  # __file__, __path__, ...: what a module without them gives
            raise AttributeError(name)
        return named(name)

    module.__getattr__ = attribute
    return module


def load(repo, folder):
    """The functions file, loaded twice: (on NumPy, on autograd.numpy)."""
    text = subprocess.run(["git", "-C", repo, "show", "HEAD:tests/functions.py"], check=True,
                          capture_output=True, text=True).stdout
    path = os.path.join(folder, "tangent_functions.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    sys.modules.setdefault("tangent", _tangent_stand_in())
    modules = []
    for name in ("tangent_functions", "tangent_functions_ag"):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    import autograd.numpy as anp

    modules[1].np = anp  # the functions read the global np when they run
    return modules


def _vector(rng, n=4):
    return rng.uniform(0.2, 0.9, size=n)


def input_sets(name, params, rng):
    """Input sets for a function's parameters, as Tangent's tests name them; None where a
    parameter is not one of those names."""
    scalars = [(0.7, 1.3, -0.4), (-1.1, 0.45, 2.2)]
    sets = []
    for a, b, c in scalars:
        values = {}
        for p in params:
            if p in ("a", "b", "c"):
                values[p] = {"a": a, "b": b, "c": c}[p]
            elif p == "x":
                values[p] = (_vector(rng, 6).reshape(3, 2) if name == "extended_slice"
                             else _vector(rng))
            elif p == "n":
                values[p] = 3
            elif p == "i":
                values[p] = 1
            elif p == "sqm":
                values[p] = rng.normal(size=(3, 3))
            elif p == "abc_packed_in_tuple":
                values[p] = (a, b, c)
            elif p == "val":
                values[p] = {"a": a, "b": b, "c": c}
            elif p == "p":
                values[p] = {"i": {"j": a, "k": b}}
            elif p == "inputs":
                values[p] = rng.normal(size=(3, 2))
            elif p == "W" and name == "rnn":
                values[p] = rng.normal(size=(2, 3))
            elif name == "logistic_regression":
                values.update(input=rng.random(3), label=np.eye(5)[1],
                              W=rng.normal(size=(3, 5)), b=rng.normal(size=5))
            elif name == "bilinear":
                values.update(x=rng.normal(size=3), h=rng.normal(size=2),
                              U=rng.normal(size=(2, 4)), W=rng.normal(size=(3, 4)),
                              b=rng.normal(size=4))
            else:
                return None
        sets.append([values[p] for p in params])
    return sets


def differentiable(value):
    """Whether a value is one srcad differentiates (a float, a float array, a container of
    them); ints (``n``, ``i``) are held fixed."""
    if isinstance(value, float) or isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return True
    if isinstance(value, (tuple, list)):
        return bool(value) and all(differentiable(v) for v in value)
    if isinstance(value, dict):
        return bool(value) and all(differentiable(v) for v in value.values())
    return False


def flat(tree):
    if isinstance(tree, dict):
        return np.concatenate([flat(tree[k]) for k in sorted(tree)]) if tree else np.zeros(0)
    if isinstance(tree, (tuple, list)):
        return np.concatenate([flat(v) for v in tree]) if tree else np.zeros(0)
    return np.atleast_1d(np.asarray(tree, dtype=float)).ravel()


def unflat(like, vector):
    """``vector``'s numbers in the structure of ``like`` (the inverse of :func:`flat`)."""
    pos = [0]

    def build(t):
        if isinstance(t, dict):
            return {k: build(t[k]) for k in sorted(t)}
        if isinstance(t, (tuple, list)):
            return type(t)(build(v) for v in t)
        size = int(np.size(t))
        chunk = vector[pos[0]:pos[0] + size]
        pos[0] += size
        return float(chunk[0]) if isinstance(t, float) else chunk.reshape(np.shape(t))
    return build(like)


def fd_directional(f, args, wrt, directions, h=1e-6):
    """Central difference of ``f`` along ``directions`` (one per ``wrt`` position)."""
    def moved(sign):
        new = list(args)
        for k, d in zip(wrt, directions):
            new[k] = unflat(args[k], flat(args[k]) + sign * h * flat(d))
        return flat(f(*copy.deepcopy(new)))  # (a function writing into its arguments)
    return (moved(1) - moved(-1)) / (2 * h)


def close(a, b):
    return np.allclose(flat(a), flat(b), rtol=RTOL, atol=ATOL)


def check(f, fa, args, rng):
    """Every stage's verdict for one input set: a dict stage -> (outcome, message)."""
    import autograd

    wrt = tuple(k for k, v in enumerate(args) if differentiable(v))
    if not wrt:
        return {"all": ("SKIP", "no differentiable input")}
    try:
        out = f(*copy.deepcopy(args))  # each call on its own copies: f may write into them
    except Unsupported as e:
        return {"all": ("UNSUPPORTED", str(e))}
    except Exception as e:  # the function itself fails on these inputs
        return {"all": ("SKIP", f"the function raises {type(e).__name__}: {e}")}
    if not differentiable(out) and not isinstance(out, (int, np.integer)):
        return {"all": ("SKIP", f"output of type {type(out).__name__}")}
    if not np.all(np.isfinite(flat(out))):  # outside the domain (arccos(-1.1)): no verdict
        return {"all": ("SKIP", "the function's value is not finite at these inputs")}
    scalar = np.ndim(out) == 0 and not isinstance(out, (tuple, list, dict))
    verdicts = {}
    directions = [unflat(args[k], rng.normal(size=flat(args[k]).size)) for k in wrt]

    def stage(label, run):
        try:
            verdicts[label] = run()
        except srcad.SrcadError as e:
            verdicts[label] = ("REFUSED", str(e).splitlines()[0])
        except Unsupported as e:
            verdicts[label] = ("UNSUPPORTED", str(e))
        except Exception as e:
            verdicts[label] = ("CRASH", f"{type(e).__name__}: {e}")

    def reverse():
        if scalar:
            grads = srcad.grad(f, wrt=wrt)(*copy.deepcopy(args))
            cot = 1.0
        else:
            cot = unflat(out, rng.normal(size=flat(out).size))
            if isinstance(out, (int, float)):
                cot = float(cot)
            value, pullback = srcad.vjp(f, *copy.deepcopy(args))
            grads = pullback(cot)
            grads = tuple(grads[k] for k in wrt)
        along = float(sum(np.dot(flat(g), flat(d)) for g, d in zip(grads, directions)))
        reference = float(np.dot(flat(cot), fd_directional(f, args, wrt, directions)))
        ok_fd = abs(along - reference) <= 1e-4 * (1 + abs(reference))
        try:
            ag = [autograd.grad(lambda *a: _weighted(fa(*a), cot), k)(*copy.deepcopy(args))
                  for k in wrt]
            ok_ag = all(close(g, a) for g, a in zip(grads, ag))
        except Exception:
            ok_ag = None
        if ok_fd or ok_ag:
            return ("PASS", "")
        return ("WRONG", f"directional {along!r}, finite differences {reference!r}")

    def forward():
        _, tangent = srcad.jvp(f, tuple(copy.deepcopy(args)), tuple(directions), wrt=wrt)
        reference = fd_directional(f, args, wrt, directions)
        if np.allclose(flat(tangent), reference, rtol=1e-4, atol=1e-5):
            return ("PASS", "")
        return ("WRONG", f"tangent {flat(tangent)!r}, finite differences {reference!r}")

    def second(mode):
        def run():
            H = srcad.hessian(f, wrt=wrt[0], mode=mode)(*copy.deepcopy(args))
            k = wrt[0]
            g = autograd.grad(fa, k)

            def ga(v):
                new = list(args)
                new[k] = v
                return float(g(*new))
            h = 1e-5
            reference = (ga(args[k] + h) - ga(args[k] - h)) / (2 * h)
            if abs(float(H) - reference) <= 1e-4 * (1 + abs(reference)):
                return ("PASS", "")
            return ("WRONG", f"hessian {float(H)!r}, finite differences of autograd "
                             f"{reference!r}")
        return run

    stage("reverse", reverse)
    stage("forward", forward)
    if scalar and isinstance(args[wrt[0]], float):
        stage("hessian fwd", second("fwd"))
        stage("hessian rev", second("rev"))
    return verdicts


def _weighted(out, cot):
    import autograd.numpy as anp

    if isinstance(out, dict):
        return sum(_weighted(out[k], cot[k]) for k in out)
    if isinstance(out, (tuple, list)):
        return sum(_weighted(o, c) for o, c in zip(out, cot))
    return anp.sum(out * cot)


ORDER = ("WRONG", "CRASH", "REFUSED", "UNSUPPORTED", "PASS", "SKIP")  # a function: its worst


def run(repo, only=()):
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        sys.path.insert(0, folder)
        mod, mod_ag = load(repo, folder)
        for name, f in list(vars(mod).items()):
            if not (isinstance(f, types.FunctionType) and f.__module__ == mod.__name__):
                continue
            if name.startswith("_") or name.startswith("tfe_") or only and name not in only:
                continue
            params = list(inspect.signature(f).parameters)
            sets = input_sets(name, params, rng)
            if sets is None:
                results[name] = {"outcome": "SKIP", "message": f"parameters {params}"}
                continue
            verdicts = {}
            for k, args in enumerate(sets):
                for stage, verdict in check(f, getattr(mod_ag, name), args, rng).items():
                    verdicts[f"{stage} #{k}"] = verdict
            worst = min((v[0] for v in verdicts.values()), key=ORDER.index)
            message = next((f"{s}: {v[1]}" for s, v in verdicts.items() if v[0] == worst), "")
            results[name] = {"outcome": worst, "message": message,
                             "stages": {s: v[0] for s, v in verdicts.items()}}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--only", nargs="*", default=())
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.repo):
        print(f"no mirror at {args.repo}: fetch github:google/tangent first")
        return 2
    results = run(args.repo, set(args.only))
    for name, r in results.items():
        message = f": {r['message']}" if r["message"] else ""
        print(f"{r['outcome']:12s} {name}{message}"[:300])
    return summarise(results, ORDER, "functions", args.json)


def summarise(results, order, what, json_path=None):
    """Print the counts of ``results`` (name -> {"outcome", "message", ...}) in ``order``,
    write them with the results to ``json_path``; the exit code: 1 on a WRONG or a CRASH."""
    counts = {}
    for r in results.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(", ".join(f"{k} {counts[k]}" for k in order if k in counts), f"({len(results)} {what})")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"counts": counts, "results": results}, f, indent=1)
    return 1 if counts.get("WRONG") or counts.get("CRASH") else 0


if __name__ == "__main__":
    sys.exit(main())
