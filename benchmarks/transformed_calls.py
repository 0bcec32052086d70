"""Cost per call of every transformed function against ``grad``'s on the same function.

Each row is one function and argument; each column one API, timed after a first call (which
makes the code), as microseconds per call and as a ratio to the derivative it must compute:

- ``grad``: ``srcad.grad(f)(x)``, the reference, made once;
- ``vjp``: ``srcad.vjp(f, x)`` then the pullback of 1.0 (a primal and a gradient);
- ``pullback``: the pullback alone, made once (a gradient);
- ``jacobian``/``jacrev``/``jacfwd``: ``srcad.jacobian(f, ...)(x)`` made once (one gradient for
  a scalar output; ``jacfwd`` takes one forward pass per input element, so the ratio is per
  element);
- ``jvp``: ``srcad.jvp(f, (x,), (v,))`` (one forward pass);
- ``hessian``/``hvp`` against ``grad(grad(f))`` for a scalar ``x`` (per input element for
  ``hessian``).

Run: ``/work/main/.venv/bin/python benchmarks/transformed_calls.py``.
"""

from __future__ import annotations

import math
import time

import numpy as np

import srcad


def small(x):
    return math.sin(x) * x + x * x


def vector(x):
    return np.sum(np.sin(x) * x + np.exp(-x * x))


def loop(x):
    total = 0.0
    for k in range(10):
        total = total + np.sum(np.tanh(x * k) * x)
    return total


def per_call(fn, seconds=0.2):
    fn()
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            fn()
        n += 50
        elapsed = time.perf_counter() - start
        if elapsed > seconds:
            return elapsed / n * 1e6


def row(name, f, x):
    g = srcad.grad(f)
    size = int(np.size(x))
    ref = per_call(lambda: g(x))
    _, pullback = srcad.vjp(f, x)
    jac, jrev, jfwd = srcad.jacobian(f), srcad.jacrev(f), srcad.jacfwd(f)
    v = np.ones_like(x) if np.ndim(x) else 1.0
    times = {
        "grad": (ref, 1),
        "vjp": (per_call(lambda: srcad.vjp(f, x)[1](1.0)), 1),
        "pullback": (per_call(lambda: pullback(1.0)), 1),
        "jacobian": (per_call(lambda: jac(x)), 1),
        "jacrev": (per_call(lambda: jrev(x)), 1),
        "jacfwd": (per_call(lambda: jfwd(x)), size) if size <= 100 else None,
        "jvp": (per_call(lambda: srcad.jvp(f, (x,), (v,))), 1),
    }
    if not np.ndim(x):
        gg = srcad.grad(srcad.grad(f))
        ref2 = per_call(lambda: gg(x))
        hess = srcad.hessian(f)
        times["grad(grad)"] = (ref2, ref2 / ref)
        times["hessian"] = (per_call(lambda: hess(x)), ref2 / ref)
        times["hvp"] = (per_call(lambda: srcad.hvp(f, x, 1.0)), ref2 / ref)
    cells = [f"{name}"]
    for api, entry in times.items():
        if entry is not None:
            t, passes = entry
            cells.append(f"{api} {t:.2f}us ({t / passes / ref:.2f}x)")
    print(" | ".join(cells))


def main():
    print("per call, microseconds (ratio to grad's per derivative pass; hessian/hvp: to "
          "grad(grad))")
    row("scalar math", small, 0.7)
    for n in (2, 100, 10_000):
        row(f"vector n={n}", vector, np.linspace(0.1, 0.9, n))
    row("loop n=100", loop, np.linspace(0.1, 0.9, 100))
    row("loop scalar", loop, 0.4)


if __name__ == "__main__":
    main()
