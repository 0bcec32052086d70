"""srcad (the Python backend) against GradBench's stock PyTorch tool on lstm, in CPU time:
each tool's derivative ÷ objective, the functions GradBench times (the tools'
``objective.function`` and ``jacobian.function`` on their prepared inputs) called in turn,
round after round; the best round of each and the median. One process per tool, as under
GradBench (PyTorch's objects in srcad's process would make its collector walk them), the
two tools' processes alternating ``--repeats`` times, so that load from other processes falls
on both alike. GradBench's wall-clock means (run.py) on a shared machine move more between
runs than the two tools differ (PyTorch's own lstm ratio 1.96-2.54 in three runs of one
hour); this is the comparison to make there.

    PYTHONPATH=/tmp/deps-gradbench /work/main/.venv/bin/python \\
        benchmarks/gradbench/cpu_against_pytorch.py --sizes 2 4 --rounds 7 --repeats 3

Inputs are the eval's own (``gen_lstm`` of GradBench's text, read at run time, seed 0), of
``--chars`` characters and ``l`` layers for each of ``--sizes``. Single-threaded (PyTorch,
BLAS).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def measure(tool, sizes, chars, rounds, gradbench):
    sys.path[:0] = [str(REPO), str(gradbench / "python/gradbench"), str(HERE / "tool")]
    import numpy as np
    from gradbench.evals.lstm.run import gen_lstm

    if tool == "pytorch":
        import torch
        from gradbench.tools.pytorch import lstm as module

        torch.set_num_threads(1)
        pre = module.prepare_input
    else:
        import lstm as module  # srcad's tool module (tool/lstm.py): makes its code on import

        pre = module._input
    text = (gradbench / "evals/lstm/data/lstm_full.txt").read_text(encoding="utf8")
    for layers in sizes:
        np.random.seed(0)
        prepared = pre(gen_lstm(text[:chars], layers, chars).to_dict())  # as GradBench's pre
        f = functools.partial(module.objective.function, prepared)
        g = functools.partial(module.jacobian.function, prepared)
        f(), g()  # srcad's code is made on import; a first call each
        tf, tg = [], []
        for _ in range(rounds):
            for call, times in ((f, tf), (g, tg)):
                start = time.process_time()
                call()
                times.append(time.process_time() - start)
        print(f"lstm l={layers},c={chars} {tool:8} objective {min(tf) * 1e3:8.2f} ms "
              f"jacobian {min(tg) * 1e3:8.2f} ms  ratio best {min(tg) / min(tf):5.2f}  "
              f"median {statistics.median(tg) / statistics.median(tf):5.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2, 4], help="lstm's l")
    parser.add_argument("--chars", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        measure(args.one, args.sizes, args.chars, args.rounds, args.gradbench)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for _ in range(args.repeats):
        for tool in ("srcad", "pytorch"):
            subprocess.run([sys.executable, __file__, "--one", tool, "--rounds",
                            str(args.rounds), "--chars", str(args.chars), "--gradbench",
                            str(args.gradbench), "--sizes", *map(str, args.sizes)],
                           check=True, env=env)


if __name__ == "__main__":
    main()
