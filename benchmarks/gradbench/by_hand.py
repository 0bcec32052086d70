"""ode's gradient written by hand in NumPy, beside srcad's: how far the Python backend's
generated code is from what a careful person writes, and how far that is from the issue's
target (2x ``jax.jit(grad)``'s ratio, 1.67 x 2 = 3.34). CPU time, best of five rounds, one
process, GradBench's ode objective (``tool/ode.py``), s = 10:

    /work/main/.venv/bin/python benchmarks/gradbench/by_hand.py

Two hand-written adjoints of the Runge-Kutta step: ``into_caller`` adds the gradient of
``rhs``'s ``x`` into the caller's buffer (``dx[1:] += ...``) and the step's ``dy`` in place;
``returned`` has ``rhs``'s backward part return a new array of zeros with its part written
in, which the caller adds (the calling convention srcad's split functions have).
"""

from __future__ import annotations

import sys
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


def main():
    sys.path[:0] = [str(HERE.parent.parent), "/tmp/gradbench/python/gradbench",
                    str(HERE / "tool"), str(HERE)]
    import ode
    from cpu_ratios import _best

    for n in (1000, 10_000):
        x = np.random.default_rng(0).uniform(size=n)
        row = [f"n={n:6}"]
        primal = _best(ode.last, (x, 10), 20)
        for name, fn in (("by hand, into the caller", lambda a, s: gradient(a, s, rhs_into_caller)),
                         ("by hand, returned", lambda a, s: gradient(a, s, rhs_returned)),
                         ("srcad", ode._gradient)):
            np.testing.assert_allclose(fn(x, 10), ode._gradient(x, 10), rtol=1e-12)
            row.append(f"{name} {_best(fn, (x, 10), 10) / primal:.2f}")
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
