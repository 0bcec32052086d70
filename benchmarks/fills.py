"""Element-by-element fills in loops: srcad's gradient against the same loops written by hand.

``out = np.zeros(n)``, then ``out[k] = ...`` for each ``k`` (and a two-loop fill of an n x n
array): the forward sweep writes in place where nothing reads the old array
(``srcad.transform.owned_writes``), so the gradient is O(n) like the hand-written one, not
O(n²). Prints CPU time per call (best of several rounds) and srcad / hand for n = 10, 100,
1000 (the two-loop fill at n = 10, 30, 100).

    PYTHONPATH=. python benchmarks/fills.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import srcad


def fill(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k]) * w[k]
    return np.sum(out * out)


def fill_by_hand(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k]) * w[k]
    dout = 2.0 * out
    dx, dw = np.zeros(n), np.zeros(n)
    for k in range(n - 1, -1, -1):
        dx[k] = dout[k] * w[k] * np.cos(x[k])
        dw[k] = dout[k] * np.sin(x[k])
    return dx, dw


def grid(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = np.tanh(x[i] * w[j])
    return np.sum(out * out)


def grid_by_hand(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = np.tanh(x[i] * w[j])
    dout = 2.0 * out
    dx, dw = np.zeros(n), np.zeros(n)
    for i in range(n - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            d = dout[i, j] * (1.0 - out[i, j] ** 2)
            dx[i] += d * w[j]
            dw[j] += d * x[i]
    return dx, dw


def best(fn, args, rounds):
    """The least CPU time of one call over ``rounds`` rounds (several calls each when fast)."""
    start = time.process_time()
    fn(*args)
    once = max(time.process_time() - start, 1e-6)
    calls = max(1, int(0.05 / once))
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn(*args)
        times.append((time.process_time() - start) / calls)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    for label, f, hand, sizes in (("fill", fill, fill_by_hand, (10, 100, 1000)),
                                  ("grid", grid, grid_by_hand, (10, 30, 100))):
        df = srcad.grad(f, wrt=(0, 1))
        for n in sizes:
            rng = np.random.default_rng(n)
            x, w = rng.uniform(0.2, 0.9, n), rng.uniform(0.2, 0.9, n)
            got, want = df(x, w), hand(x, w)
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            t_src, t_hand = best(df, (x, w), args.rounds), best(hand, (x, w), args.rounds)
            rows.append((label, n, t_src, t_hand))
    print("| program | n | srcad (ms) | by hand (ms) | srcad / hand |")
    print("|---|---|---|---|---|")
    for label, n, t_src, t_hand in rows:
        print(f"| {label} | {n} | {t_src * 1e3:.3f} | {t_hand * 1e3:.3f} | "
              f"{t_src / t_hand:.2f} |")


if __name__ == "__main__":
    main()
