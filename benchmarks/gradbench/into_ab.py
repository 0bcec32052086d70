"""Backward parts adding into the caller's arrays (``srcad.transform.into``) on and off, side by
side in one process: the objective, the gradient made with the variants and the gradient made
without them (the code ``main`` made before), timed round-robin in CPU time, best of many
rounds (steadier than one process per version on a loaded machine).

    .venv/bin/python benchmarks/gradbench/into_ab.py --gradbench /tmp/gradbench --rounds 30

Inputs as ``cpu_ratios.py``'s (lstm l = 2, c = 1024; ode n = 1000 and 10 000, s = 10; det
6 x 6): the evals whose code the variants change.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

import numpy as np

import srcad
from srcad import pipeline

HERE = Path(__file__).parent


def _best_of(fns, args, reps, rounds):
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):  # round-robin: each round times every version once
            start = time.process_time()
            for _ in range(reps):
                fn(*args)
            best[k] = min(best[k], (time.process_time() - start) / reps)
    return best


def _made(f, wrt, args, into):
    """``srcad.grad(f, wrt)`` made with the variants (``into``) or without them (its callees
    split by ``pipeline.PLAIN_CALLEES``, which never makes them)."""
    f = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                           f.__closure__)  # a function of its own: a derivative of its own
    kept = pipeline.CALLEES
    if not into:
        pipeline.CALLEES = pipeline.PLAIN_CALLEES
    try:
        g = srcad.grad(f, wrt=wrt)
        g(*args)
    finally:
        pipeline.CALLEES = kept
    return g


def _first(args):
    """The CPU time of importing each tool module (which makes its gradient and calls it
    once) in this fresh process, with the variants or without them."""
    import importlib

    if args.first == "off":
        pipeline.CALLEES = pipeline.PLAIN_CALLEES
    for name in dict.fromkeys("ode" if e == "ode10k" else e for e in args.evals):
        start = time.process_time()
        importlib.import_module(name)
        print(f"{name:7} import (its gradient made), variants {args.first}: "
              f"{(time.process_time() - start) * 1e3:8.1f} ms", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--evals", nargs="+", default=["lstm", "ode", "ode10k", "det"])
    parser.add_argument("--first", choices=["on", "off"],
                        help="only the CPU time of making the code (importing the tool "
                             "module), one version: run once per version, each in a fresh "
                             "process")
    args = parser.parse_args()
    sys.path[:0] = [str(args.gradbench / "python/gradbench"), str(HERE / "tool")]
    if args.first:  # the tool modules make their gradients when imported: time that
        _first(args)
        return
    import det
    import lstm
    import ode

    rng = np.random.default_rng(0)
    for name in args.evals:
        if name == "lstm":
            b, layers, c = 14, 2, 1024
            inputs = (rng.normal(size=(2 * layers, 4 * b)), rng.normal(size=(3, b)),
                      rng.normal(size=(2 * layers, b)), rng.normal(size=(c, b)))
            f, wrt, reps = lstm.lstm_objective, (0, 1), 1
        elif name == "det":
            inputs, f, wrt, reps = (rng.normal(size=(6, 6)),), det.det, 0, 3
        else:
            inputs = (rng.uniform(size=1000 if name == "ode" else 10000), 10)
            f, wrt, reps = ode.last, 0, 5
        on, off = _made(f, wrt, inputs, True), _made(f, wrt, inputs, False)
        assert "_bwd_into" in srcad.source(on) or name != "lstm"
        assert "_bwd_into" not in srcad.source(off)
        got, ref = on(*inputs), off(*inputs)
        for a, b in zip(*((got, ref) if isinstance(got, tuple) else ((got,), (ref,)))):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        tf, t_on, t_off = _best_of([f, on, off], inputs, reps, args.rounds)
        print(f"{name:7} objective {tf * 1e3:8.3f} ms  gradient: variants {t_on * 1e3:8.3f} ms "
              f"(ratio {t_on / tf:5.2f}), without {t_off * 1e3:8.3f} ms (ratio {t_off / tf:5.2f})"
              f"  on/off {t_on / t_off:4.2f}", flush=True)


if __name__ == "__main__":
    main()
