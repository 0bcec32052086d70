"""srcad (the Python backend) against GradBench's stock PyTorch tool on lstm and ba, in CPU time:
each tool's derivative ÷ objective, the functions GradBench times (the tools'
``objective.function`` and ``jacobian.function`` on their prepared inputs) called in turn,
round after round; the best round of each and the median (lstm: and the best rounds summed
over ``--sizes``, gradient ÷ objective, as GradBench sums them); the derivative's first call
over its best (GradBench's wall mean includes it) and the cyclic collector's share of its
rounds. One process per tool, as under
GradBench (PyTorch's objects in srcad's process would make its collector walk them), the
two tools' processes alternating ``--repeats`` times, so that load from other processes falls
on both alike. GradBench's wall-clock means (run.py) on a shared machine move more between
runs than the two tools differ (PyTorch's own lstm ratio 1.96-2.54 in three runs of one
hour); this is the comparison to make there.

    PYTHONPATH=/tmp/deps-gradbench /work/main/.venv/bin/python \\
        benchmarks/gradbench/cpu_against_pytorch.py --sizes 2 4 --rounds 7 --repeats 3
    PYTHONPATH=/tmp/deps-gradbench /work/main/.venv/bin/python \\
        benchmarks/gradbench/cpu_against_pytorch.py --eval ba --repeats 3 \\
        --checkouts /tmp/base .      # ba: two srcad checkouts and PyTorch, in turn

Inputs are the eval's own (``gen_lstm`` of GradBench's text, read at run time, seed 0), of
``--chars`` characters and ``l`` layers for each of ``--sizes``; ba's one observation's
values repeated as GradBench's ``ba`` inputs repeat them (n = 10 cameras, m = 100 points,
``--obs`` observations). det and particle (``--eval det --sizes 5 6 7``, ``--eval
particle``): srcad alone (GradBench's PyTorch tool has neither), checkout against checkout.
``--checkouts``: srcad's tool from each of these checkouts (its
``srcad`` and ``benchmarks/gradbench/tool``), one process each, in turn with PyTorch's.
Single-threaded (PyTorch, BLAS).
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def _tool(tool, name, gradbench, repo):
    """``(module, prepare)`` of eval ``name``'s tool: GradBench's PyTorch tool (one thread) or
    srcad's tool module from checkout ``repo`` (tool/NAME.py: makes its code on import)."""
    sys.path[:0] = [str(repo), str(gradbench / "python/gradbench"),
                    str(repo / "benchmarks/gradbench/tool")]
    if tool == "pytorch":
        import torch

        torch.set_num_threads(1)
        module = importlib.import_module(f"gradbench.tools.pytorch.{name}")
        return module, module.prepare_input
    module = importlib.import_module(name)
    return module, getattr(module, "_input", None)  # (particle: no input to prepare)


def measure(tool, sizes, chars, rounds, gradbench, repo=REPO):
    module, pre = _tool(tool, "lstm", gradbench, repo)
    import numpy as np
    from gradbench.evals.lstm.run import gen_lstm

    text = (gradbench / "evals/lstm/data/lstm_full.txt").read_text(encoding="utf8")
    sums = [0.0, 0.0]
    for layers in sizes:
        np.random.seed(0)
        prepared = pre(gen_lstm(text[:chars], layers, chars).to_dict())  # as GradBench's pre
        f = functools.partial(module.objective.function, prepared)
        g = functools.partial(module.jacobian.function, prepared)
        best = _report(f"lstm l={layers},c={chars} {tool:8}", f, g, rounds)
        sums = [s + b for s, b in zip(sums, best)]
    if len(sizes) > 1:  # GradBench's basis: summed over sizes
        where = "" if tool == "pytorch" else repo
        print(f"lstm summed {tool:8} objective {sums[0] * 1e3:8.2f} ms jacobian "
              f"{sums[1] * 1e3:8.2f} ms  ratio best {sums[1] / sums[0]:5.2f}  {where}",
              flush=True)


def measure_ba(tool, obs, rounds, gradbench, repo=REPO):
    """ba's jacobian ÷ objective for one tool (srcad's from checkout ``repo``)."""
    module, pre = _tool(tool, "ba", gradbench, repo)
    raw = {"n": 10, "m": 100, "p": obs, "cam": [0.1 * (i + 1) for i in range(11)],
           "x": [0.3, 0.2, 3.0], "w": 0.8, "feat": [0.4, 0.5]}
    prepared = pre(raw)
    f = functools.partial(module.objective.function, prepared)
    g = functools.partial(module.jacobian.function, prepared)
    _report(f"ba p={obs} {tool:8} {'' if tool == 'pytorch' else repo}", f, g, rounds)


def measure_det(obs, rounds, gradbench, repo, sizes=(5, 6, 7)):
    """det's gradient ÷ primal (srcad only: GradBench's PyTorch tool has no det), ``l`` of
    each of ``sizes``, GradBench's random matrices (seed 31337)."""
    module, pre = _tool("srcad", "det", gradbench, repo)
    import numpy as np

    np.random.seed(31337)
    for ell in sizes:
        A = pre({"A": np.random.rand(ell * ell).tolist(), "ell": ell})
        _report(f"det l={ell} srcad {repo}", functools.partial(module.det, A),
                functools.partial(module._gradient, A), rounds)


def measure_particle(rounds, gradbench, repo):
    """particle's four variants (srcad only), each whole solve from w = 0 (as GradBench times
    them) against ``miss`` at w = 0 with the reverse-mode force (one simulated flight)."""
    module, _ = _tool("srcad", "particle", gradbench, repo)
    f = functools.partial(module.miss, 0.0, module.potential_grad_r)
    for variant in ("rr", "rf", "fr", "ff"):
        _report(f"particle {variant} srcad {repo}", f,
                functools.partial(getattr(module, variant).solve, 0.0), rounds)


def _report(what, f, g, rounds):
    """Print and return the best CPU times of ``f`` and ``g``; also each one's first call
    over its best (GradBench's mean includes it: a tape's memory is new to the process
    then, PyTorch sets itself up), and the share of ``g``'s rounds the cyclic collector
    took (:mod:`gc`'s callbacks: the collections a tape's lists and tuples set off)."""
    firsts = []
    for call in (f, g):  # srcad's code is made on import; a first call each
        start = time.process_time()
        call()
        firsts.append(time.process_time() - start)
    collecting = _Collector()
    tf, tg = [], []
    for _ in range(rounds):
        for call, times in ((f, tf), (g, tg)):
            collecting.on = call is g
            start = time.process_time()
            call()
            times.append(time.process_time() - start)
    collecting.close()
    print(f"{what} objective {min(tf) * 1e3:8.2f} ms jacobian {min(tg) * 1e3:8.2f} ms  "
          f"ratio best {min(tg) / min(tf):5.2f}  "
          f"median {statistics.median(tg) / statistics.median(tf):5.2f}  "
          f"first {(firsts[0] / min(tf) - 1) * 100:+.0f}% "
          f"/ {(firsts[1] / min(tg) - 1) * 100:+.0f}%  "
          f"gc {collecting.spent / sum(tg) * 100:4.1f}%", flush=True)
    return min(tf), min(tg)


class _Collector:
    """The CPU time :mod:`gc`'s collections take while ``on``."""

    def __init__(self):
        self.on, self.spent, self._start = False, 0.0, 0.0
        gc.callbacks.append(self)

    def __call__(self, phase, info):
        if phase == "start":
            self._start = time.process_time()
        elif self.on:
            self.spent += time.process_time() - self._start

    def close(self):
        gc.callbacks.remove(self)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval", choices=("lstm", "ba", "det", "particle"),
                        default="lstm")
    parser.add_argument("--sizes", nargs="+", type=int, default=[2, 4],
                        help="lstm's l (det's l: --sizes 5 6 7)")
    parser.add_argument("--chars", type=int, default=1024)
    parser.add_argument("--obs", type=int, default=300, help="ba's p")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--checkouts", nargs="+", type=Path, default=[REPO])
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        tool, _, repo = args.one.partition("@")
        repo = Path(repo) if repo else REPO
        if args.eval == "ba":
            measure_ba(tool, args.obs, args.rounds, args.gradbench, repo)
        elif args.eval == "det":
            measure_det(args.obs, args.rounds, args.gradbench, repo, args.sizes)
        elif args.eval == "particle":
            measure_particle(args.rounds, args.gradbench, repo)
        else:
            measure(tool, args.sizes, args.chars, args.rounds, args.gradbench, repo)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    runs = [f"srcad@{c.resolve()}" for c in args.checkouts] + (
        ["pytorch"] if args.eval in ("lstm", "ba") else [])  # (no PyTorch det or particle)
    for _ in range(args.repeats):
        for one in runs:
            subprocess.run([sys.executable, __file__, "--one", one, "--eval", args.eval,
                            "--rounds", str(args.rounds), "--chars", str(args.chars), "--obs",
                            str(args.obs), "--gradbench", str(args.gradbench), "--sizes",
                            *map(str, args.sizes)], check=True, env=env)


if __name__ == "__main__":
    main()
