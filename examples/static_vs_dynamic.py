"""The second article's graph as a static graph (srcad) and as a dynamic graph (the tape).

    python examples/static_vs_dynamic.py

g(a, o): b = 5 - 3a, c = 2b + 3, d = 5b + 6, e = 7c + d**2, f = 2e, g = 3f - o.
By the chain rule dg/da = (84 + 60 d) * (-3) = -252 - 180 d and dg/do = -1; at a = 2, o = 1,
d = 1 and dg/da = -432.

A static graph is built once and then run on every input: srcad writes the derivative as Python
source on the first call, compiles it, and later calls only run it. A dynamic graph is recorded
anew while each call runs: srcad.tape (like PyTorch) builds a graph of Var objects on every call,
then walks it backwards. This script times both, on one input and on fifty.
"""

import time

import numpy as np
from seed_graphs import g
from srcad.compare import compare

import srcad
from srcad import tape

A_VAL, O_VAL = 2.0, 1.0


def per_call(fn, args, calls):
    """Best of three: seconds per call of fn(*args) over `calls` calls."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def us(seconds):
    return f"{seconds * 1e6:.1f} µs"


def by_hand():
    print("=== by hand (chain rule) ===")
    b = 5 - 3 * A_VAL
    c = 2 * b + 3
    d = 5 * b + 6
    e = 7 * c + d**2
    f = 2 * e
    value = 3 * f - O_VAL
    print(f"b = {b}, c = {c}, d = {d}, e = {e}, f = {f}, g = {value}")
    print(f"dg/da = -252 - 180 * d = {-252 - 180 * d}    dg/do = -1")
    return value, -252 - 180 * d


def static():
    print("\n=== static graph: srcad builds the derivative once ===")
    start = time.perf_counter()
    dg = srcad.value_and_grad(g, wrt=("a", "o"))
    value, (da, do) = dg(A_VAL, O_VAL)  # the first call reads, transforms and compiles g
    build = time.perf_counter() - start
    print(f"g = {value}   dg/da = {da}   dg/do = {do}")
    print(srcad.source(dg))
    run = per_call(dg, (A_VAL, O_VAL), 20000)
    print(f"build (first call): {build * 1e3:.2f} ms    each later call: {us(run)}")
    return dg, value, da, do, build, run


def dynamic():
    print("\n=== dynamic graph: srcad.tape records the graph on every call ===")
    y = tape.trace(g, A_VAL, O_VAL, wrt=("a", "o"))
    print(f"one call records a graph ending in {y!r}; is_leaf={y.is_leaf}")
    dg = tape.value_and_grad(g, wrt=("a", "o"))
    value, (da, do) = dg(A_VAL, O_VAL)
    print(f"g = {value}   dg/da = {da}   dg/do = {do}")
    run = per_call(dg, (A_VAL, O_VAL), 2000)
    print(f"no build step; each call (record + backward): {us(run)}")
    return dg, value, da, do, run


def fifty_inputs(static_run, build, tape_dg, tape_run):
    print("\n=== fifty inputs (the article's 50 data sets) ===")
    inputs = [(0.1 * i, 1.0 + 0.01 * i) for i in range(50)]
    srcad.clear_cache()
    start = time.perf_counter()
    dg = srcad.value_and_grad(g, wrt=("a", "o"))
    static_results = [dg(a, o) for a, o in inputs]
    static_total = time.perf_counter() - start
    start = time.perf_counter()
    dynamic_results = [tape_dg(a, o) for a, o in inputs]
    dynamic_total = time.perf_counter() - start
    assert np.allclose([s[1] for s in static_results], [d[1] for d in dynamic_results])
    print(f"static  (1 build + 50 runs): {static_total * 1e3:.2f} ms")
    print(f"dynamic (50 recordings):     {dynamic_total * 1e3:.2f} ms")
    calls = build / max(tape_run - static_run, 1e-12)
    print(f"the build pays for itself after about {calls:.0f} calls "
          f"({build * 1e3:.2f} ms / ({us(tape_run)} - {us(static_run)}))")


def control_flow():
    print("\n=== a static graph that still branches on values ===")

    def halve_until_small(x):
        y = x
        while y > 1.0:
            y = y * 0.5
        return y * x

    for x in (0.5, 3.0, 40.0):
        s = srcad.grad(halve_until_small)(x)
        t = tape.grad(halve_until_small)(x)
        print(f"x = {x:>4}: srcad {s:.6f}   tape {t:.6f}")
    print("The tape records the path each call takes; srcad's generated code keeps the")
    print("while loop and counts its iterations, so one build serves every path.")


def main():
    value, expected = by_hand()
    _, s_value, s_da, s_do, build, static_run = static()
    tape_dg, t_value, t_da, t_do, tape_run = dynamic()
    assert np.allclose([s_value, s_da, s_do], [value, expected, -1])
    assert np.allclose([t_value, t_da, t_do], [value, expected, -1])
    fifty_inputs(static_run, build, tape_dg, tape_run)
    control_flow()
    print("\n=== every engine at hand (srcad.compare) ===")
    compare(g, A_VAL, O_VAL, show=True)


if __name__ == "__main__":
    main()
