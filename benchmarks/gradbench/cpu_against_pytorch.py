"""srcad (the Python backend) against GradBench's stock PyTorch tool, side by side in one
process: each tool's derivative ÷ objective in CPU time, the functions GradBench times (the
tools' ``objective.function`` and ``jacobian.function`` on their prepared inputs) called in
turn, round after round, so that load from other processes falls on both alike; the best
round of each and the median. GradBench's wall-clock means (run.py) on a shared machine move
more between runs than the two tools differ (lstm: PyTorch's own ratio 1.96-2.54 in three runs
of one hour); this is the comparison to make there.

    PYTHONPATH=/tmp/deps-gradbench /work/main/.venv/bin/python \\
        benchmarks/gradbench/cpu_against_pytorch.py --sizes 2 4 --rounds 15

Inputs are the eval's own (``gen_lstm`` of GradBench's text, read at run time, seed 0), of
``c = 1024`` characters and ``l`` layers for each of ``--sizes``. Single-threaded (PyTorch,
BLAS).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2, 4], help="lstm's l")
    parser.add_argument("--chars", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    args = parser.parse_args()
    sys.path[:0] = [str(REPO), str(args.gradbench / "python/gradbench"), str(HERE / "tool")]
    import lstm as ours  # srcad's tool module (tool/lstm.py): makes its code on import
    import numpy as np
    import torch
    from gradbench.evals.lstm.run import gen_lstm
    from gradbench.tools.pytorch import lstm as theirs

    torch.set_num_threads(1)
    text = (args.gradbench / "evals/lstm/data/lstm_full.txt").read_text(encoding="utf8")
    for layers in args.sizes:
        np.random.seed(0)
        raw = gen_lstm(text[:args.chars], layers, args.chars).to_dict()
        calls = {}
        for tool, module, pre in (("srcad", ours, ours._input),
                                  ("pytorch", theirs, theirs.prepare_input)):
            prepared = pre(raw)  # the ``pre`` of wrap.multiple_runs, once, as GradBench does
            for what in ("objective", "jacobian"):
                calls[tool, what] = functools.partial(getattr(module, what).function, prepared)
        times = {key: [] for key in calls}
        for call in calls.values():  # a first call each: srcad's code is made on import
            call()
        for _ in range(args.rounds):
            for key, call in calls.items():
                start = time.process_time()
                call()
                times[key].append(time.process_time() - start)
        for tool in ("srcad", "pytorch"):
            f, g = times[tool, "objective"], times[tool, "jacobian"]
            print(f"lstm l={layers},c={args.chars} {tool:8} objective {min(f) * 1e3:8.2f} ms "
                  f"jacobian {min(g) * 1e3:8.2f} ms  ratio best {min(g) / min(f):5.2f}  "
                  f"median {statistics.median(g) / statistics.median(f):5.2f}", flush=True)


if __name__ == "__main__":
    main()
