"""ode's and lstm's gradients written by hand in NumPy, beside srcad's: how far the Python backend's
generated code is from what a careful person writes, and how far that is from the issue's
target (ode: 2x ``jax.jit(grad)``'s ratio, 1.67 x 2 = 3.34; lstm: PyTorch's 2.79). CPU time,
the best of several rounds going round-robin over the functions in one process; GradBench's
objectives (``tool/ode.py`` at s = 10, ``tool/lstm.py`` at l = 2, c = 1024):

    /work/main/.venv/bin/python benchmarks/gradbench/by_hand.py

Two hand-written adjoints of the Runge-Kutta step: ``into_caller`` adds the gradient of
``rhs``'s ``x`` into the caller's buffer (``dx[1:] += ...``) and the step's ``dy`` in place;
``returned`` has ``rhs``'s backward part return a new array of zeros with its part written
in, which the caller adds (the calling convention srcad's split functions have).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def rhs(x, y):
    return np.concatenate((x[:1], x[1:] * y[:-1]))


def rhs_into_caller(x, y, g, dx):
    dx[0] += g[0]
    dx[1:] += g[1:] * y[:-1]
    dy = np.zeros_like(y)
    dy[:-1] = g[1:] * x[1:]
    return dy


def rhs_returned(x, y, g, dx):
    part = np.zeros_like(x)
    part[1:] = g[1:] * y[:-1]
    part[:1] += g[:1]
    dx += part
    dy = np.zeros_like(y)
    dy[:-1] = g[1:] * x[1:]
    return dy


def gradient(x, s, backward):
    """The gradient of the last component of ``ode(x, s)`` w.r.t. ``x``."""
    h = 2.0 / s
    y = np.zeros_like(x)
    kept = []
    for _ in range(s):
        k1 = rhs(x, y)
        y2 = y + h / 2 * k1
        k2 = rhs(x, y2)
        y3 = y + h / 2 * k2
        k3 = rhs(x, y3)
        y4 = y + h * k3
        k4 = rhs(x, y4)
        kept.append((y, y2, y3, y4))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    dy = np.zeros_like(x)
    dy[-1] = 1.0
    dx = np.zeros_like(x)
    for y1, y2, y3, y4 in reversed(kept):
        dk = dy * (h / 6)
        g4 = backward(x, y4, dk, dx)
        dy = dy + g4
        dk3 = 2 * dk + h * g4
        g3 = backward(x, y3, dk3, dx)
        dy += g3
        dk2 = 2 * dk + (h / 2) * g3
        g2 = backward(x, y2, dk2, dx)
        dy += g2
        dk1 = dk + (h / 2) * g2
        dy += backward(x, y1, dk1, dx)
    return dx


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_gradient(main, extra, state, sequence):
    """The gradient of GradBench's lstm objective (``tool/lstm.py``) w.r.t. ``main`` and
    ``extra``, by hand: the forward pass keeps each cell's gates, the backward pass adds
    into one buffer per parameter."""
    layers, b = len(state) // 2, state.shape[1]
    hs, cs = [state[2 * k] for k in range(layers)], [state[2 * k + 1] for k in range(layers)]
    steps = len(sequence) - 1
    tape = []
    for t in range(steps):
        x = sequence[t] * extra[0]
        cells = []
        for k in range(layers):
            h, c = hs[k], cs[k]
            joined = np.concatenate((x, h, x, h))
            gates = joined * main[2 * k] + main[2 * k + 1]
            f, i = _sigmoid(gates[:b]), _sigmoid(gates[b:2 * b])
            o, change = _sigmoid(gates[2 * b:3 * b]), np.tanh(gates[3 * b:])
            cs[k] = c * f + i * change
            tc = np.tanh(cs[k])
            hs[k] = x = o * tc
            cells.append((joined, c, f, i, o, change, tc))
        e = np.exp(x * extra[1] + extra[2])
        tape.append((x, cells, e, e.sum() + 2.0))
    count = steps * b
    dmain, dextra = np.zeros_like(main), np.zeros_like(extra)
    dh, dc = [np.zeros(b) for _ in range(layers)], [np.zeros(b) for _ in range(layers)]
    for t in reversed(range(steps)):
        x, cells, e, total = tape[t]
        dynorm = sequence[t + 1] / -count
        dypred = dynorm - (dynorm.sum() / total) * e
        dextra[1] += dypred * x
        dextra[2] += dypred
        dx = dypred * extra[1]
        for k in reversed(range(layers)):
            joined, c, f, i, o, change, tc = cells[k]
            dhk = dh[k] + dx
            dcell = dc[k] + dhk * o * (1.0 - tc * tc)
            dgates = np.empty(4 * b)
            dgates[:b] = dcell * c * f * (1.0 - f)
            dgates[b:2 * b] = dcell * change * i * (1.0 - i)
            dgates[2 * b:3 * b] = dhk * tc * o * (1.0 - o)
            dgates[3 * b:] = dcell * i * (1.0 - change * change)
            dc[k] = dcell * f
            dmain[2 * k] += dgates * joined
            dmain[2 * k + 1] += dgates
            djoined = dgates * main[2 * k]
            dx = djoined[:b] + djoined[2 * b:3 * b]
            dh[k] = djoined[b:2 * b] + djoined[3 * b:]
        dextra[0] += dx * sequence[t]
    return dmain, dextra


def _round_robin(calls, reps, rounds=7):
    """The best CPU time per call of each of ``calls`` (name -> thunk), over ``rounds`` rounds
    that go round-robin over them, so that load from other processes falls on all alike."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, fn in calls.items():
            start = time.process_time()
            for _ in range(reps):
                fn()
            best[name] = min(best[name], (time.process_time() - start) / reps)
    return best


def main():
    sys.path[:0] = [str(HERE.parent.parent), "/tmp/gradbench/python/gradbench",
                    str(HERE / "tool")]
    import ode

    for n in (1000, 10_000):
        x = np.random.default_rng(0).uniform(size=n)
        calls = {"objective": lambda x=x: ode.last(x, 10),
                 "by hand, into the caller": lambda x=x: gradient(x, 10, rhs_into_caller),
                 "by hand, returned": lambda x=x: gradient(x, 10, rhs_returned),
                 "srcad": lambda x=x: ode._gradient(x, 10)}
        for name in list(calls)[1:]:
            np.testing.assert_allclose(calls[name](), ode._gradient(x, 10), rtol=1e-12)
        best = _round_robin(calls, 10)
        print(f"ode n={n:6} | " + " | ".join(
            f"{name} {t / best['objective']:.2f}" for name, t in list(best.items())[1:]))
    import lstm

    rng = np.random.default_rng(0)
    args = (rng.normal(size=(4, 56)), rng.normal(size=(3, 14)), rng.normal(size=(4, 14)),
            rng.normal(size=(1024, 14)))
    for ours, theirs in zip(lstm_gradient(*args), lstm._gradient(*args)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    best = _round_robin({"objective": lambda: lstm.lstm_objective(*args),
                         "by hand": lambda: lstm_gradient(*args),
                         "srcad": lambda: lstm._gradient(*args)}, 1, rounds=5)
    print("lstm l=2, c=1024 | " + " | ".join(
        f"{name} {t / best['objective']:.2f}" for name, t in list(best.items())[1:]),
        flush=True)


if __name__ == "__main__":
    main()
