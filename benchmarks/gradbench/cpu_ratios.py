"""Gradient ÷ objective of srcad's GradBench objectives in CPU time, best of several rounds, one
process per checkout: steadier than GradBench's wall-clock means on a shared machine, and the
way to compare two versions of srcad side by side (run it for each, in turn).

    /work/main/.venv/bin/python benchmarks/gradbench/cpu_ratios.py /work/main .   # two checkouts
    /work/main/.venv/bin/python benchmarks/gradbench/cpu_ratios.py . --evals lstm det
    /work/main/.venv/bin/python benchmarks/gradbench/cpu_ratios.py /work/main . --backend numba \
        --evals ode ode10k gmm --rounds 20      # the tool's --backend numba

Each checkout's own ``srcad`` and ``benchmarks/gradbench/tool`` modules are imported in a
process of its own; inputs are random, of GradBench's default sizes (ode at n = 1000 and
10 000, s = 10; gmm d = 10, k = 10, n = 1000; kmeans n = 1000, k = 10, d = 8, and k = 100
as ``kmeans100``; det 6 × 6; ba one observation's Jacobian; lstm l = 2, c = 1024), but
ht's: GradBench's own hand1 of the big model, complicated (``ht``) and simple
(``ht-simple``). GradBench's Python package must be at ``--gradbench`` (``run.py`` extracts
it there).
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

EVALS = ("lstm", "ba", "ode", "ode10k", "gmm", "kmeans", "kmeans100", "det", "lse", "llsq", "ht",
         "ht-simple")


def _case(name, rng, np):
    if name == "lstm":
        m = importlib.import_module("lstm")
        b, layers, c = 14, 2, 1024
        args = (rng.normal(size=(2 * layers, 4 * b)), rng.normal(size=(3, b)),
                rng.normal(size=(2 * layers, b)), rng.normal(size=(c, b)))
        return m.lstm_objective, m._gradient, args, 2
    if name == "ba":
        m = importlib.import_module("ba")
        args = (rng.normal(size=11), rng.normal(size=3), 0.7, rng.normal(size=2))
        return m.reproj_err, m._reproj_jacobian, args, 300
    if name in ("ode", "ode10k"):
        m = importlib.import_module("ode")
        return m.last, m._gradient, (rng.uniform(size=1000 if name == "ode" else 10000), 10), 5
    if name == "gmm":
        m = importlib.import_module("gmm")
        d, k, n = 10, 10, 1000
        args = (rng.normal(size=k), rng.normal(size=(k, d)), rng.normal(size=(k, d)),
                rng.normal(size=(k, d * (d - 1) // 2)), rng.normal(size=(n, d)), 0.0, 1.0,
                m.lower_placement(d))
        return m.gmm_objective, m._gradient, args, 5
    if name in ("kmeans", "kmeans100"):
        m = importlib.import_module("kmeans")
        k = 100 if name == "kmeans100" else 10
        return m.kmeans_cost, m.direction, (rng.normal(size=(1000, 8)),
                                            rng.normal(size=(k, 8))), 20
    if name == "det":
        m = importlib.import_module("det")
        return m.det, m._gradient, (rng.normal(size=(6, 6)),), 3
    if name in ("ht", "ht-simple"):  # GradBench's own hand1 (big model), from --gradbench
        m = importlib.import_module("ht")
        io = importlib.import_module("gradbench.evals.ht.io")
        variant = "simple" if name == "ht-simple" else "complicated"
        folder = GRADBENCH[0] / f"evals/ht/data/{variant}_big"
        hand = io.read_hand_instance(folder / "model", next(folder.glob("hand1_*.txt")),
                                     variant == "complicated")
        return m.objective_, m.jacobian_, m._input(hand.to_dict()), 3
    if name == "lse":
        m = importlib.import_module("lse")
        return m.logsumexp, m._gradient, (rng.normal(size=20000),), 50
    m = importlib.import_module("llsq")
    return m.llsq, m._gradient, (rng.normal(size=1024), 64), 20


def _best(fn, args, reps, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(reps):
            fn(*args)
        best = min(best, (time.process_time() - start) / reps)
    return best


GRADBENCH = [Path("/tmp/gradbench")]  # (ht reads GradBench's data there)


def measure(repo: Path, gradbench: Path, evals, backend="python", rounds=5):
    """Print one line per eval for the checkout ``repo`` (run in a process of its own)."""
    GRADBENCH[0] = gradbench
    if any(e.startswith("ht") for e in evals):  # ht's data classes (dataclasses-json)
        sys.path.append("/tmp/deps-gradbench")  # last: NumPy stays this Python's
    sys.path[:0] = [str(repo), str(gradbench / "python/gradbench"),
                    str(repo / "benchmarks/gradbench/tool")]
    import numpy as np

    if backend == "numba":  # the tool's --backend numba: srcad.grad(..., backend="numba")
        importlib.import_module("run").numba_mode()

    rng = np.random.default_rng(0)
    for name in evals:
        f, g, args, reps = _case(name, rng, np)
        g(*args)
        f(*args)
        tf = tg = float("inf")
        for _ in range(rounds):  # round-robin: the objective and the gradient in turn
            tf = min(tf, _best(f, args, reps, 1))
            tg = min(tg, _best(g, args, max(1, reps // 2), 1))
        print(f"{name:8} objective {tf * 1e3:9.3f} ms  gradient {tg * 1e3:9.3f} ms  "
              f"ratio {tg / tf:6.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="*", type=Path, default=[Path(".")])
    parser.add_argument("--evals", nargs="+", default=list(EVALS), choices=EVALS)
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--backend", choices=("python", "numba"), default="python")
    parser.add_argument("--rounds", type=int, default=5, help="best of this many rounds")
    parser.add_argument("--keep-freed-memory", action="store_true",
                        help="glibc keeps freed memory for the next call, as "
                        "srcad.backend.numba_memory.keep_freed_memory() sets it (the GradBench "
                        "tool's --backend numba does), for every checkout alike")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        measure(args.repos[0].resolve(), args.gradbench, args.evals, args.backend, args.rounds)
        return
    for repo in args.repos:
        print(f"== {repo.resolve()}", flush=True)
        env = dict(os.environ, MALLOC_TRIM_THRESHOLD_=str(256 << 20),
                   MALLOC_MMAP_THRESHOLD_=str(32 << 20)) if args.keep_freed_memory else None
        subprocess.run([sys.executable, __file__, str(repo), "--one", "--gradbench",
                        str(args.gradbench), "--backend", args.backend, "--rounds",
                        str(args.rounds), "--evals", *args.evals], check=True, env=env)


if __name__ == "__main__":
    main()
