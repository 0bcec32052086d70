"""A differential fuzzer over outside programs: mutate functions other people wrote, then check
srcad's derivatives of every mutant against central differences and a second engine.

    python tools/mutant_programs.py [--seconds 3600] [--mutants 6] [--seed 0] [--json OUT]
                                    [--only SUBSTRING ...] [--show KEY#K] [--quiet]
                                    [--kinds MUTATION ...]

(``--kinds``: only these mutations, e.g. session 30's ``callee_lists fixed_lengths``;
``--json``: one JSON line per mutant, its checks' rows, and the source of every mutant not
passed or refused; ``--quiet`` prints only WRONG, CRASH and VAGUE lines and the tables.)

The other fuzzers (tests/gen_*.py, tests/test_properties_*.py) generate programs from srcad's
own grammar. This one starts from functions harvested at run time from fetched outside code
(``tools/mutant_sources.py``: autograd's examples and tests, the programs
``tools/corpus_programs.py`` and ``tools/jax_programs.py`` run, tangent's test functions;
nothing is copied here), finds arguments each runs on, and applies one to three mutations
(``tools/mutations.py``: aliasing, views, in-place operators, ``out=``, reordering, loops
made, unrolled and turned into ``while``, early returns, branches on data, lists of arrays,
closures over rebound names, default arguments...). Each function's original is checked too.

A mutant with a scalar value is differentiated itself (even-numbered mutants) or, as one
with an array value, through ``_srcad_F``, which calls it and weighs its value by fixed
random numbers; odd-numbered mutants are passed copies of their array arguments there
(``f(x.copy())``), so that a mutant writing into its parameter is followed through rather
than refused as a change of the caller's array.

Per mutant, with inputs copied for every call (a mutant may write into its arguments):

- ``value``: ``srcad.value_and_grad``'s value against the plain function's;
- ``rev``: srcad's gradient against autograd's (the mutant loaded on autograd's NumPy) or,
  where autograd cannot run it, ``srcad.tape``'s, judged along the element that differs most
  by central differences at two step sizes (``tools/differential.judge``); with no second
  engine, along a random direction by the differences alone;
- ``fwd``: ``srcad.jvp`` likewise;
- ``hvp-fwd``, ``hvp-rev`` (half the mutants, when the first order passed): the Hessian along
  the first differentiated argument times a random vector, by ``srcad.jvp`` of srcad's gradient
  and by ``srcad.hessian(mode="rev")`` (up to 16 elements), against central differences of the
  gradient at two steps (not judged where those are not steady).

Outcomes (the worst check of a mutant): WRONG (srcad disagrees with steady differences: a
bug), CRASH (an exception other than ``SrcadError`` from srcad or its generated code, or a
timeout), VAGUE (a ``SrcadError`` that names no line), KINK (differences not steady; look by
hand), REFUSED (a ``SrcadError`` with its line), CONVENTION (at a kink, srcad between the
one-sided differences), PASS. Mutants that fail or are not finite when run plainly are
counted as INVALID and not checked. Every mutant is reproducible from its key and seed
(``--show KEY#K`` prints it).

Since session 31 also (``tools/mutant_checks.py``): ``aux`` (a mutant differentiated itself,
every return made a pair ``return _r, AUX``, through ``has_aux=True``), and with the Hessians,
``jac-fwd``, ``jac-rev`` (``srcad.jacfwd``/``jacrev`` of the function's own output in every
differentiated argument at once) and ``hess-fwd``, ``hess-rev`` (``srcad.hessian`` of every
argument) against autograd; session 31's mutations are in ``tools/mutations31.py``.
Since session 32 (``tools/mutant_checks32.py``), with the Jacobians, ``jac-again``: the same
``jacfwd``/``jacrev``/``jacobian`` objects called again with other shapes, ranks, a number
where an array was and an ``int``; session 32's mutations are in ``tools/mutations32.py``.
Since session 33 (``tools/mutant_checks33.py``): ``raises`` (a mutant whose plain run raises:
its ``value_and_grad`` and ``jvp`` must raise too, one returning is WRONG; the mutant stays
INVALID otherwise) and ``trees`` (the gradient again through a dict, its keys reordered, an
extra key, named tuples and dataclasses of the same fields); session 33's mutations are in
``tools/mutations33.py``; session 34's (callees writing into their arguments, ``+=`` into
arrays of each dtype, discarded values raising for some shapes in callees, tree plans) in
``tools/mutations34.py``; session 35's (``op=`` into int, bool and narrow float items and
arrays; discarded operations on boolean and object arrays) in ``tools/mutations35.py``;
session 36's (copied containers' items, numbers written into arrays, loop-carried arrays,
nested containers, narrow dtypes with ``op=``, object arrays) in ``tools/mutations36.py``;
session 37's (element fills, fill recurrences, lists of lists changed through an item, callees
writing into what they are given, object arrays filled) in ``tools/mutations37.py``.

Imports: argparse, ast, collections, hashlib, importlib, json, os, pickle, random, signal,
subprocess, sys, tempfile, time, numpy, tools/differential, tools/mutant_checks,
tools/mutant_checks32, tools/mutant_checks33, tools/mutant_sources, tools/mutations,
tools/mutations31, tools/mutations32, tools/mutations33, tools/mutations34, tools/mutations35,
tools/mutations36, tools/mutations37,
and srcad, autograd in the worker.
"""

from __future__ import annotations

import argparse
import ast
import collections
import copy
import hashlib
import importlib.util
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import differential  # noqa: E402
import mutant_checks  # noqa: E402
import mutant_checks32  # noqa: E402
import mutant_checks33  # noqa: E402
import mutant_sources  # noqa: E402
import mutations  # noqa: E402
import mutations31  # noqa: E402,F401 - adds session 31's mutations to mutations.MUTATIONS
import mutations32  # noqa: E402,F401 - adds session 32's mutations to mutations.MUTATIONS
import mutations33  # noqa: E402,F401 - adds session 33's mutations to mutations.MUTATIONS
import mutations34  # noqa: E402 - adds session 34's mutations to mutations.MUTATIONS
import mutations35  # noqa: E402,F401 - adds session 35's mutations to mutations.MUTATIONS
import mutations36  # noqa: E402,F401 - adds session 36's mutations to mutations.MUTATIONS
import mutations37  # noqa: E402,F401 - adds session 37's mutations to mutations.MUTATIONS

ORDER = ["WRONG", "CRASH", "VAGUE", "KINK", "REFUSED", "CONVENTION", "PASS", "INVALID"]
MUTANT_SECONDS = 60  # (session 31: the aux, Jacobian and Hessian checks take their time)
WRAPPER = """
import numpy as _np


def _srcad_F({params}):
    _out = {name}({passed})
    return _np.sum(_out * _W)
"""


class Timeout(Exception):
    pass


class NearbyRaise(Exception):
    """The plain function raised at a point the differences took (not srcad's failure)."""


Prepared = collections.namedtuple("Prepared", "args data wrt info scalar shape params")


def _alarm(signum, frame):
    raise Timeout("no result in time")


def _seed(*parts):
    return int(hashlib.sha256(repr(parts).encode()).hexdigest()[:8], 16)


# ---- loading a mutant ----------------------------------------------------------------------

_COUNT = [0]


def load(text, folder, data, engine="numpy"):
    """The module of ``text`` (written to ``folder``), its data globals set first."""
    _COUNT[0] += 1
    name = f"mutant_{engine}_{os.getpid()}_{_COUNT[0]}"
    path = os.path.join(folder, name + ".py")
    with open(path, "w") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    for k, v in data.items():
        setattr(mod, k, copy.deepcopy(v))
    spec.loader.exec_module(mod)
    return mod


def module_text(fn, node, direct, engine="numpy", copies=()):
    """The mutant's module; unless ``direct``, with ``_srcad_F`` calling it (the parameters
    named in ``copies`` passed as ``p.copy()``: a mutant writing into them changes its own
    array) and weighing its output."""
    text = fn.module_text(node, engine)
    if "_srcad." in text:  # session 32's inner_grads: srcad.grad called in the mutant
        text = "import srcad as _srcad\n" + text
    if "_srcad_w_" in text:  # session 34's written_args: the module's writers
        text += mutations34.WRITERS
    if engine == "autograd":
        text = "import autograd.numpy as _np\n" + text
    else:
        text = "import numpy as _np\n" + text
    if not direct:
        passed = ", ".join(f"{p}.copy()" if p in copies else p for p in fn.params)
        text += WRAPPER.format(params=", ".join(fn.params), name=node.name, passed=passed)
    return text


def how_called(prepared, k):
    """(direct?, copies, weights) of mutant ``k``: a scalar function differentiated itself
    (even ``k``) or through the wrapper; odd ``k`` passes copies of its array arguments."""
    args, scalar, shape = prepared.args, prepared.scalar, prepared.shape
    direct = scalar and k % 2 == 0
    copies = () if k % 2 == 0 else {p for p, a in zip(prepared.params, args)
                                    if isinstance(a, np.ndarray)}
    weights = None if direct else np.asarray(
        np.random.RandomState(k).uniform(0.5, 1.5, size=shape))
    return direct, copies, weights


def call(f, args):
    return f(*copy.deepcopy(args))


def plain_value(f, args):
    out = call(f, args)
    return out if mutant_sources.finite_float(out) else None


# ---- preparing a function ------------------------------------------------------------------

def prepare(fn, folder, rs):
    """(args, data, wrt positions, locals' classes, scalar output?) for the first input
    profile the plain function runs on, or None."""
    ints = mutant_sources.int_names(fn.node)
    for positive in (True, False, "large"):
        for profile in mutant_sources.PROFILES:
            vals = mutant_sources.profile_values(fn.params + fn.data, ints, profile, rs,
                                                 positive)
            args = [vals[p] for p in fn.params]
            data = {d: vals[d] for d in fn.data}
            wrt = tuple(k for k, p in enumerate(fn.params) if not isinstance(vals[p], int))
            if not wrt:
                return None
            try:
                signal.alarm(3)
                mod = load(module_text(fn, fn.node, True), folder, data)
                f = getattr(mod, fn.name)
                out = plain_value(f, args)
                if out is None:
                    continue
                info = mutant_sources.locals_of(f, copy.deepcopy(args))
            except Exception:  # noqa: BLE001 - the profile does not fit
                continue
            finally:
                signal.alarm(0)
            scalar = isinstance(out, (float, np.floating)) or np.ndim(out) == 0
            return Prepared(args, data, wrt, info, scalar, np.shape(out), fn.params)
    return None


# ---- the checks ----------------------------------------------------------------------------

def second_engine(fn, node, how, folder, data, args, wrt):
    """The gradients of autograd (or else srcad.tape), or None."""
    direct, copies, weights = how
    try:
        import autograd
        mod = load(module_text(fn, node, direct, "autograd", copies), folder, data, "autograd")
        if not direct:
            mod._W = weights
        target = getattr(mod, fn.name if direct else "_srcad_F")
        g = autograd.grad(target, wrt)(*copy.deepcopy(args))
        return [np.asarray(x, dtype=float) for x in g], "autograd"
    except Exception:  # noqa: BLE001 - autograd cannot run it: try the tape
        pass
    try:
        from srcad import tape
        mod = load(module_text(fn, node, direct, copies=copies), folder, data, "tape")
        if not direct:
            mod._W = weights
        target = getattr(mod, fn.name if direct else "_srcad_F")
        g = tape.grad(target, wrt=wrt)(*copy.deepcopy(args))
        g = g if isinstance(g, tuple) else (g,)
        return [np.asarray(x, dtype=float) for x in g], "tape"
    except Exception:  # noqa: BLE001 - no second opinion
        return None, "none"


def failure(e, path):
    import srcad
    text = str(e).strip()
    first = text.splitlines()[0][:300] if text else ""
    if isinstance(e, srcad.SrcadError):
        kind = "REFUSED" if (os.path.basename(path) in text and "line" in text) else "VAGUE"
    elif isinstance(e, NearbyRaise):  # (not judged, as unsteady differences are not)
        kind = "KINK"
    else:
        kind = "CRASH"
    return kind, f"{type(e).__name__}: {first}"


def check_mutant(fn, node, prepared, folder, k, second=False):
    """[(check, outcome, detail)] for one mutant (``second``: its Hessian too)."""
    import srcad
    args, data, wrt = prepared.args, prepared.data, prepared.wrt
    how = how_called(prepared, k)
    direct, copies, weights = how
    text = module_text(fn, node, direct, copies=copies)
    try:
        mod = load(text, folder, data)
    except Exception as e:  # noqa: BLE001
        return [("plain", "INVALID", f"{type(e).__name__}: {e}")]
    if not direct:
        mod._W = weights
    target = getattr(mod, fn.name if direct else "_srcad_F")
    try:
        plain = call(target, args)
        if not mutant_sources.finite_float(plain) or not np.ndim(plain) == 0:
            return [("plain", "INVALID", f"not a finite number: {plain!r}"[:200])]
        plain = float(plain)
    except Timeout:
        raise
    except Exception as e:  # noqa: BLE001 - (session 33: its derivatives must raise too)
        return [("plain", "INVALID", f"{type(e).__name__}: {e}"[:200])] + (
            mutant_checks33.raise_rows(target, args, wrt, e, mod.__file__, failure))
    path = mod.__file__
    xs = [copy.deepcopy(args[k]) for k in wrt]

    def fw(*ws):
        full = copy.deepcopy(list(args))
        for k, w in zip(wrt, ws):
            full[k] = copy.deepcopy(w)
        try:
            return float(target(*full))
        except Exception as e:  # noqa: BLE001 - (session 33: not srcad's, the differences')
            raise NearbyRaise(f"the plain function raises near its arguments: {e!r}") from e

    rows = []
    other, engine = second_engine(fn, node, how, folder, data, args, wrt)
    try:
        value, g = srcad.value_and_grad(target, wrt=wrt)(*copy.deepcopy(args))
        g = g if isinstance(g, tuple) else (g,)
        if not differential.close(value, plain):
            rows.append(("value", "WRONG", f"srcad value {value!r}, plain {plain!r}"))
        else:
            rows.append(("value", "PASS", ""))
        check, outcome, detail = differential.compare_grads(
            fw, xs, g, other, np.random.RandomState(_seed(fn.key, "rev")))
        rows.append((check, outcome, detail + (f" [{engine}]" if detail else "")))
    except (Timeout, Exception) as e:  # noqa: BLE001
        rows.append(("rev",) + failure(e, path))
    if second and all(r[1] == "PASS" for r in rows):
        rows.extend(second_order(target, args, wrt, path))
    if direct and all(r[1] == "PASS" for r in rows):
        rows.extend(mutant_checks.aux_rows(fn, node, prepared, folder, k, load, module_text, fw,
                                           xs, other, np.random.RandomState(_seed(fn.key, "a")),
                                           failure))
    if direct and all(r[1] == "PASS" for r in rows):
        rows.extend(mutant_checks33.tree_rows(fn, node, prepared, folder, load, module_text, g,
                                              failure))
    if second and all(r[1] == "PASS" for r in rows):
        aux_text = module_text(fn, node, direct, "autograd", copies)
        rows.extend(mutant_checks.jacobian_rows(
            fn, node, prepared, folder, load, module_text,
            (aux_text, weights, fn.name if direct else "_srcad_F", target), failure))
    if second and all(r[1] == "PASS" for r in rows):
        try:
            rows.extend(mutant_checks32.again_rows(fn, node, prepared, folder, load,
                                                   module_text, failure,
                                                   np.random.RandomState(_seed(fn.key, "j"))))
        except ImportError:  # no autograd
            pass
    try:
        vs = [mutant_sources.make_value(np.shape(x), np.random.RandomState(_seed(fn.key, k)),
                                        positive=False) for k, x in enumerate(xs)]
        primals = tuple(copy.deepcopy(args))
        value, tangent = srcad.jvp(target, primals, tuple(vs), wrt=wrt)
        rows.append(differential.compare_jvp(fw, xs, vs, value, tangent, other))
    except (Timeout, Exception) as e:  # noqa: BLE001
        rows.append(("fwd",) + failure(e, path))
    return rows


def second_order(target, args, wrt, path):
    """Hessian-vector products along the first ``wrt`` argument, forward over reverse
    (``jvp`` of srcad's gradient) and reverse over reverse (``hessian(mode="rev")``, for
    at most 16 elements), against central differences of srcad's gradient (checked first)."""
    import srcad
    k = wrt[0]
    x = args[k]
    v = mutant_sources.make_value(np.shape(x), np.random.RandomState(7), positive=False)
    grad_f = srcad.grad(target, wrt=k)

    def g_at(h):
        full = copy.deepcopy(list(args))
        full[k] = x + h * v
        return np.asarray(grad_f(*full), dtype=float)

    scale = max(1.0, float(np.max(np.abs(x))))
    d1 = (g_at(1e-5 * scale) - g_at(-1e-5 * scale)) / (2e-5 * scale)
    d2 = (g_at(1e-4 * scale) - g_at(-1e-4 * scale)) / (2e-4 * scale)
    mag = max(1.0, float(np.max(np.abs(d1))))
    if not (np.all(np.isfinite(d1)) and np.max(np.abs(d1 - d2)) <= 1e-4 * mag):
        return [("hvp", "PASS", "differences not steady: not judged")]
    rows = []
    try:
        _, hv = srcad.jvp(grad_f, tuple(copy.deepcopy(args)), (v,), wrt=(k,))
        bad = np.max(np.abs(np.asarray(hv, dtype=float) - d1)) > 1e-4 * mag
        rows.append(("hvp-fwd", "WRONG" if bad else "PASS",
                     f"srcad {hv!r}, differences of the gradient {d1!r}" if bad else ""))
    except (Timeout, Exception) as e:  # noqa: BLE001
        rows.append(("hvp-fwd",) + failure(e, path))
    if np.size(x) <= 16:
        try:
            H = srcad.hessian(target, wrt=k, mode="rev")(*copy.deepcopy(args))
            hv = np.tensordot(np.asarray(H, dtype=float), v, axes=np.ndim(x)) if np.ndim(x) \
                else np.asarray(H, dtype=float) * v
            bad = np.max(np.abs(hv - d1)) > 1e-4 * mag
            rows.append(("hvp-rev", "WRONG" if bad else "PASS",
                         f"srcad {hv!r}, differences of the gradient {d1!r}" if bad else ""))
        except (Timeout, Exception) as e:  # noqa: BLE001
            rows.append(("hvp-rev",) + failure(e, path))
    return rows


def worst(rows):
    return min((r[1] for r in rows), key=ORDER.index)


# ---- the worker: one batch of functions ----------------------------------------------------

def worker(functions_file, keys, mutants, seed):
    with open(functions_file, "rb") as fh:
        functions = {f.key: f for f in pickle.load(fh)}
    signal.signal(signal.SIGALRM, _alarm)
    folder = tempfile.mkdtemp(prefix="mutants-")
    sys.path.insert(0, folder)
    for key in keys:
        fn = functions[key]
        print("@@START " + json.dumps(key), flush=True)
        rs = np.random.RandomState(_seed(key, seed))
        try:
            prepared = prepare(fn, folder, rs)
        except Exception:  # noqa: BLE001
            prepared = None
        if prepared is None:
            print("@@ITEM " + json.dumps({"key": key, "k": -1, "outcome": "UNUSABLE"}),
                  flush=True)
            continue
        for k in range(mutants + 1):
            item = run_mutant(fn, prepared, folder, seed, k)
            print("@@ITEM " + json.dumps(item), flush=True)


def make_mutant(fn, prepared, seed, k):
    rng = random.Random(_seed(fn.key, seed, k))
    if k == 0:
        return copy.deepcopy(fn.node), []
    return mutations.mutate(fn.node, prepared.info, rng, rng.choice([1, 1, 2, 3]))


def run_mutant(fn, prepared, folder, seed, k):
    try:
        node, done = make_mutant(fn, prepared, seed, k)
        ast.unparse(node)
    except Exception as e:  # noqa: BLE001 - a mutation this tree does not take
        return {"key": fn.key, "k": k, "outcome": "INVALID", "mutations": [],
                "rows": [["mutate", "INVALID", f"{type(e).__name__}: {e}"[:200]]]}
    if k and not done:
        return {"key": fn.key, "k": k, "outcome": "INVALID", "mutations": [],
                "rows": [["mutate", "INVALID", "no mutation applies"]]}
    signal.alarm(MUTANT_SECONDS)
    try:
        rows = check_mutant(fn, node, prepared, folder, k, second=k % 4 < 2)
    except Timeout:
        rows = [("all", "CRASH", "timeout")]
    except Exception as e:  # noqa: BLE001
        rows = [("all", "CRASH", f"harness {type(e).__name__}: {e}"[:300])]
    finally:
        signal.alarm(0)
    item = {"key": fn.key, "k": k, "mutations": done, "outcome": worst(rows),
            "rows": [list(r) for r in rows]}
    if item["outcome"] in ("WRONG", "CRASH", "VAGUE", "KINK"):
        item["source"] = ast.unparse(node)
    return item


# ---- the parent ----------------------------------------------------------------------------

def run_batches(functions_file, keys, args, deadline, out):
    pending = list(keys)
    while pending and time.time() < deadline:
        # the keys go in a file: on the command line they can pass the kernel's limit on one
        # argument (128 kB: E2BIG) once the harvest holds a few thousand functions
        keys_file = functions_file + ".keys"
        with open(keys_file, "w") as fh:
            json.dump(pending, fh)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", functions_file,
               "--mutants", str(args.mutants), "--seed", str(args.seed), "--keys",
               "@" + keys_file] + (["--kinds"] + args.kinds if args.kinds else [])
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=env, cwd=tempfile.gettempdir())
        current, last = None, time.time()
        done_keys = set()
        for line in proc.stdout:
            if line.startswith("@@START "):
                if current is not None:
                    done_keys.add(current)
                current = json.loads(line[8:])
            elif line.startswith("@@ITEM "):
                item = json.loads(line[7:])
                out(item)
            if time.time() > deadline:
                proc.kill()
                break
        proc.wait()
        if current is not None:
            done_keys.add(current)
        if proc.returncode not in (0, None) and current is not None and time.time() < deadline:
            out({"key": current, "k": -1, "outcome": "CRASH", "mutations": [],
                 "rows": [["worker", "CRASH", f"worker died ({proc.returncode})"]]})
        pending = [k for k in pending if k not in done_keys]
        if proc.returncode == 0:
            break
        del last


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3600)
    p.add_argument("--mutants", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None)
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--show", default=None)
    p.add_argument("--worker", default=None)
    p.add_argument("--keys", default=None)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--kinds", nargs="*", default=None)
    args = p.parse_args(argv)
    if args.kinds:
        chosen = [m for m in mutations.MUTATIONS if m.__name__ in args.kinds]
        if len(chosen) != len(set(args.kinds)):
            p.error(f"--kinds: one of {sorted(m.__name__ for m in mutations.MUTATIONS)}")
        mutations.MUTATIONS[:] = chosen
    if args.worker:
        if args.keys.startswith("@"):  # (a file of keys: see run_batches)
            with open(args.keys[1:]) as fh:
                keys = json.load(fh)
        else:
            keys = json.loads(args.keys)
        worker(args.worker, keys, args.mutants, args.seed)
        return 0
    start = time.time()
    functions = mutant_sources.harvest(args.only)
    if args.show:
        return show(functions, args)
    rng = random.Random(args.seed)
    rng.shuffle(functions)
    with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as fh:
        pickle.dump(functions, fh)
    if args.json:
        open(args.json, "w").close()
    counts = collections.Counter()
    by_mutation = collections.defaultdict(collections.Counter)
    items = []

    def out(item):
        items.append(item)
        counts[item["outcome"]] += 1
        for m in item.get("mutations", []) or ["(original)"]:
            by_mutation[m][item["outcome"]] += 1
        if item["outcome"] in ("WRONG", "CRASH", "VAGUE") or not args.quiet:
            detail = next((r[2] for r in item.get("rows", []) if r[1] == item["outcome"]), "")
            print(f"{item['outcome']:10} {item['key']}#{item['k']} {item.get('mutations')} "
                  f"{detail[:160]}", flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(item) + "\n")

    run_batches(fh.name, [f.key for f in functions], args, start + args.seconds, out)
    os.unlink(fh.name)
    if os.path.exists(fh.name + ".keys"):
        os.unlink(fh.name + ".keys")
    print(f"\n{len(functions)} functions harvested, "
          f"{len({i['key'] for i in items})} reached, {time.time() - start:.0f} s")
    print("  ".join(f"{k} {counts[k]}" for k in ORDER + ["UNUSABLE"] if counts[k]))
    print("\nby mutation:")
    for m, c in sorted(by_mutation.items()):
        print(f"  {m:20} " + "  ".join(f"{k} {c[k]}" for k in ORDER if c[k]))
    return 0


def show(functions, args):
    key, _, k = args.show.rpartition("#")
    fn = next(f for f in functions if f.key == key)
    folder = tempfile.mkdtemp(prefix="mutants-")
    sys.path.insert(0, folder)
    signal.signal(signal.SIGALRM, _alarm)
    prepared = prepare(fn, folder, np.random.RandomState(_seed(key, args.seed)))
    node, done = make_mutant(fn, prepared, args.seed, int(k))
    direct, copies, _ = how_called(prepared, int(k))
    print(module_text(fn, node, direct, copies=copies))
    print("# mutations:", done)
    print("# args:", prepared.args, "data:", prepared.data, "wrt:", prepared.wrt)
    print(run_mutant(fn, prepared, folder, args.seed, int(k)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
