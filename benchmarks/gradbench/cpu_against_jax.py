"""srcad-numba against the JAX ports (``jax_ports/``) in CPU time: each eval's derivative ÷
objective (particle: each variant's time), best of ``--rounds`` rounds, objective and
derivative in turn, one process per tool; JAX's results waited for
(``jax.block_until_ready``), its compile left out (a first call before timing), as srcad's
making of code is. The steady-state comparison a loaded machine does not blur the way it
blurs GradBench's wall-clock means (run.py).

    /work/main/.venv/bin/python benchmarks/gradbench/cpu_against_jax.py --evals lstm ht particle
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def _inputs(name, gradbench):
    """The eval's own input for one size (made by the eval's code, read at run time)."""
    if name == "lstm":
        import numpy as np
        from gradbench.evals.lstm.run import gen_lstm

        np.random.seed(0)
        text = (gradbench / "evals/lstm/data/lstm_full.txt").read_text()[:1024]
        return {"l=2,c=1024": gen_lstm(text, 2, 1024).to_dict()}
    if name == "ht":
        from gradbench.evals.ht import io

        folder = gradbench / "evals/ht/data/complicated_big"
        return {p.stem: io.read_hand_instance(folder / "model", p, True).to_dict()
                for p in sorted(folder.glob("hand[12]_*.txt"))}
    return {"w=0": {"w": 0.0}}


def _best(call, reps, rounds):
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(reps):
            call()
        best = min(best, (time.process_time() - start) / reps)
    return best


def measure(tool, evals, gradbench, rounds):
    """One line per size (or variant): the tool's objective, derivative, ratio."""
    folder = HERE / ("jax_ports" if tool == "jax-ports" else "tool")
    sys.path[:0] = [str(REPO), str(gradbench / "python/gradbench"), str(folder)]
    os.chdir(gradbench)
    if tool == "jax-ports":
        import jax

        block = jax.block_until_ready
    else:
        importlib.import_module("run").numba_mode()
        from srcad.backend.numba_memory import keep_freed_memory

        keep_freed_memory()  # as the tool's --backend numba

        def block(x):
            return x
    for name in evals:
        module = importlib.import_module(name)
        for size, raw in _inputs(name, gradbench).items():
            if name == "particle":
                for variant in ("rr", "ff", "fr", "rf"):
                    fn = getattr(module, variant).function
                    arg = float(raw["w"]) if tool != "jax-ports" else __import__(
                        "jax.numpy").numpy.asarray(float(raw["w"]))
                    block(fn(arg))
                    t = _best(lambda fn=fn, arg=arg: block(fn(arg)), 1, rounds)
                    print(f"{tool:11} {name:8} {variant:14} {t * 1e3:10.3f} ms", flush=True)
                continue
            prepared = module._input(raw)
            f, g = module.objective.function, module.jacobian.function
            block(f(prepared))
            block(g(prepared))
            tf = tg = float("inf")
            for _ in range(rounds):
                tf = min(tf, _best(lambda f=f, p=prepared: block(f(p)), 3, 1))
                tg = min(tg, _best(lambda g=g, p=prepared: block(g(p)), 1, 1))
            print(f"{tool:11} {name:8} {size:14} objective {tf * 1e3:9.3f} ms  derivative "
                  f"{tg * 1e3:9.3f} ms  ratio {tg / tf:7.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evals", nargs="+", default=["lstm", "ht", "particle"],
                        choices=("lstm", "ht", "particle"))
    parser.add_argument("--tools", nargs="+", default=["srcad-numba", "jax-ports"],
                        choices=("srcad-numba", "jax-ports"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--deps", default="/tmp/deps-gradbench")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        measure(args.one, args.evals, args.gradbench, args.rounds)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(args.gradbench / "python/gradbench"),
                                         args.deps])
    for tool in args.tools:  # a process each: the two tools' modules share names
        subprocess.run([sys.executable, __file__, "--one", tool, "--rounds", str(args.rounds),
                        "--gradbench", str(args.gradbench), "--evals", *args.evals],
                       check=True, env=env)


if __name__ == "__main__":
    main()
