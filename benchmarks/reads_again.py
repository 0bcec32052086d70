"""Loops over small arrays whose backward sweep reads items again instead of saving them
(``srcad/transform/reads_again.py``): srcad's gradient ÷ a hand-written one, CPU time per call,
best of several rounds.

    PYTHONPATH=. python benchmarks/reads_again.py            # this checkout
    PYTHONPATH=. python benchmarks/reads_again.py --saved    # flags saved, not tested again

Run it for two checkouts in turn (``PYTHONPATH=/tmp/base ...``) to compare them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import srcad


def branch(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.5:
            s = s + x[i] ** 2
        else:
            s = s - np.sin(x[i])
    return s


def branch_hand(x):
    dx = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0.5:
            dx[i] += 2.0 * x[i]
        else:
            dx[i] -= np.cos(x[i])
    return dx


def rows(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(3):
            s = s + np.sin(x[i, j]) * w[j]
    return s


def rows_hand(x, w):
    dx = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in range(3):
            dx[i, j] += np.cos(x[i, j]) * w[j]
    return dx


def grid(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s = s + np.sin(x[i, j]) * x[i, j]
    return s


def grid_hand(x):
    dx = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            dx[i, j] += np.cos(x[i, j]) * x[i, j] + np.sin(x[i, j])
    return dx


def steps(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + (x[i + 1] - x[i]) ** 2
    return s


def steps_hand(x):
    dx = np.zeros_like(x)
    for i in range(len(x) - 1):
        d = 2.0 * (x[i + 1] - x[i])
        dx[i + 1] += d
        dx[i] -= d
    return dx


PROGRAMS = {"branch": (branch, branch_hand, lambda n, rng: (rng.random(n),)),
            "rows": (rows, rows_hand, lambda n, rng: (rng.random((n, 3)), rng.random(3))),
            "grid": (grid, grid_hand, lambda n, rng: (rng.random((n, 3)),)),
            "steps": (steps, steps_hand, lambda n, rng: (rng.random(n),))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saved", action="store_true", help="flags saved, not tested again")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    if args.saved:
        from srcad.transform import reads_again
        reads_again.RETEST_FLAGS = False
    rng = np.random.default_rng(0)
    for name, (f, hand, make) in PROGRAMS.items():
        grad = srcad.grad(f)
        cells = []
        for n in (10, 100, 1000):
            values = make(n, rng)
            np.testing.assert_allclose(grad(*values), hand(*values), rtol=1e-12)
            reps = max(1, 20000 // n)
            best = {}
            for _ in range(args.rounds):
                for label, fn in (("srcad", grad), ("hand", hand)):
                    start = time.process_time()
                    for _ in range(reps):
                        fn(*values)
                    took = (time.process_time() - start) / reps
                    best[label] = min(best.get(label, took), took)
            cells.append(f"n={n} {best['srcad'] / best['hand']:.2f}")
        print(f"{name:8s}", "  ".join(cells))


if __name__ == "__main__":
    main()
