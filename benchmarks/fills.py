"""Element-by-element fills in loops: srcad's derivatives against the same loops written by hand.

``out = np.zeros(n)``, then ``out[k] = ...`` for each ``k`` (and a two-loop fill of an n x n
array): the forward sweep writes in place where nothing reads the old array
(``srcad.transform.owned_writes``), so the gradient is O(n) like the hand-written one, not
O(n²); forward mode (``jvp``, and ``hvp``'s forward pass over the gradient's code) writes
the values and their tangents in place likewise (``owned_writes.forward_in_place``). Prints
CPU time per call (best of several rounds) and srcad / hand for n = 10, 100, 1000 (the
two-loop fill at n = 10, 30, 100), for each mode: ``grad``, ``jvp``, ``hvp``.

    PYTHONPATH=. python benchmarks/fills.py [--rounds 5] [--modes grad,jvp,hvp]
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


def fill_jvp_by_hand(x, w, dx, dw):
    n = x.shape[0]
    out, dout = np.zeros(n), np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k]) * w[k]
        dout[k] = dx[k] * np.cos(x[k]) * w[k] + dw[k] * np.sin(x[k])
    return np.sum(out * out), np.sum(2.0 * out * dout)


def grid_jvp_by_hand(x, w, dx, dw):
    n = x.shape[0]
    out, dout = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = np.tanh(x[i] * w[j])
            dout[i, j] = (1.0 - out[i, j] ** 2) * (dx[i] * w[j] + x[i] * dw[j])
    return np.sum(out * out), np.sum(2.0 * out * dout)


def fill_hvp_by_hand(x, w, v):
    """``H v`` of ``fill`` in ``x`` (``w`` fixed), loops as in the gradient by hand."""
    n = x.shape[0]
    out, dout = np.zeros(n), np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k]) * w[k]
        dout[k] = v[k] * np.cos(x[k]) * w[k]
    hv = np.zeros(n)
    for k in range(n - 1, -1, -1):
        hv[k] = 2.0 * w[k] * (dout[k] * np.cos(x[k]) - out[k] * np.sin(x[k]) * v[k])
    return hv


def _grad_rows(label, f, hand, n, x, w, rounds):
    df = srcad.grad(f, wrt=(0, 1))
    for a, b in zip(df(x, w), hand(x, w)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    return best(df, (x, w), rounds), best(hand, (x, w), rounds)


def _jvp_rows(label, f, hand, n, x, w, rounds):
    dx, dw = np.cos(x), np.sin(w)
    jvp = lambda x, w, dx, dw: srcad.jvp(f, (x, w), (dx, dw))  # noqa: E731
    np.testing.assert_allclose(jvp(x, w, dx, dw), hand(x, w, dx, dw), rtol=1e-10)
    return best(jvp, (x, w, dx, dw), rounds), best(hand, (x, w, dx, dw), rounds)


def _hvp_rows(label, f, hand, n, x, w, rounds):
    v = np.cos(x)
    hvp = srcad.hvp(f, wrt=0)  # hvp(x, w, v)
    np.testing.assert_allclose(hvp(x, w, v), hand(x, w, v), rtol=1e-10, atol=1e-12)
    return best(hvp, (x, w, v), rounds), best(hand, (x, w, v), rounds)


#: mode -> (how its rows are timed, (program, by hand, sizes) for each row)
MODES = {"grad": (_grad_rows, (("fill", fill, fill_by_hand, (10, 100, 1000)),
                               ("grid", grid, grid_by_hand, (10, 30, 100)))),
         "jvp": (_jvp_rows, (("fill", fill, fill_jvp_by_hand, (10, 100, 1000)),
                             ("grid", grid, grid_jvp_by_hand, (10, 30, 100)))),
         "hvp": (_hvp_rows, (("fill", fill, fill_hvp_by_hand, (10, 100, 1000)),))}


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
    parser.add_argument("--modes", default="grad,jvp,hvp", help="of " + ", ".join(MODES))
    args = parser.parse_args(argv)
    rows = []
    for mode in args.modes.split(","):
        timed, programs = MODES[mode]
        for label, f, hand, sizes in programs:
            for n in sizes:
                rng = np.random.default_rng(n)
                x, w = rng.uniform(0.2, 0.9, n), rng.uniform(0.2, 0.9, n)
                t_src, t_hand = timed(label, f, hand, n, x, w, args.rounds)
                rows.append((f"{label} ({mode})", n, t_src, t_hand))
    print("| program | n | srcad (ms) | by hand (ms) | srcad / hand |")
    print("|---|---|---|---|---|")
    for label, n, t_src, t_hand in rows:
        print(f"| {label} | {n} | {t_src * 1e3:.3f} | {t_hand * 1e3:.3f} | "
              f"{t_src / t_hand:.2f} |")


if __name__ == "__main__":
    main()
