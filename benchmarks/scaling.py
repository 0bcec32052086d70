"""How srcad's transformation time grows with the size of the function.

    python benchmarks/scaling.py             # straight-line 10..1000 statements, loops 1..5 deep
    python benchmarks/scaling.py --quick     # smaller sizes, one repeat (a few seconds)

Two families of generated functions, each written to a module in a temporary directory and
imported (srcad needs real source):

- straight-line code of N statements, each reading the one or two statements before it;
- loops nested D deep (``for i_k in range(2)``), with a branch and three statements in the
  innermost body.

For each it reports the time of the first call of ``srcad.grad(f)`` minus a cached call (the
transformation: read, lower, reverse, tidy, compile), the same for ``srcad.jvp`` (forward
mode), and the length of the generated source. The growth is summarised as the exponent of a
power law fitted through the sizes (1 = linear); it is reported, not asserted. Every gradient
is checked against central finite differences before it is timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import sys
import tempfile
import time
from pathlib import Path

from srcad.check import numerical_grad

import srcad

_counter = itertools.count()


def straight_line_source(n):
    """``f(x, y)`` of n statements; each reads the previous one or two values."""
    lines = ["import math", "", "", "def f(x, y):", "    v0 = x * y + math.sin(x)"]
    for i in range(1, n):
        a, b = f"v{i - 1}", f"v{max(i - 3, 0)}" if i % 2 else "x"
        op = i % 4
        if op == 0:
            expr = f"math.sin({a}) * 0.5 + {b} * 0.25"
        elif op == 1:
            expr = f"{a} * 0.9 + math.tanh({b}) * 0.1"
        elif op == 2:
            expr = f"{a} * {b} * 0.3 + y * 0.01"
        else:
            expr = f"math.cos({a} - {b}) * 0.7"
        lines.append(f"    v{i} = {expr}")
    lines.append(f"    return v{n - 1}")
    return "\n".join(lines) + "\n"


def nested_loops_source(depth):
    """``f(x, y)`` with ``depth`` nested ``for`` loops of two iterations each."""
    lines = ["import math", "", "", "def f(x, y):", "    s = x", "    t = y"]
    pad = "    "
    for k in range(depth):
        lines.append(f"{pad}for i{k} in range(2):")
        pad += "    "
    lines += [
        f"{pad}if s > t:",
        f"{pad}    s = math.sin(s) * 0.9 + x * 0.1",
        f"{pad}else:",
        f"{pad}    s = s * 0.8 + math.cos(t) * 0.2",
        f"{pad}t = t * 0.95 + s * 0.05",
        f"{pad}s = s + t * y * 0.01",
    ]
    lines.append("    return s + t")
    return "\n".join(lines) + "\n"


def load(directory, name, text):
    path = Path(directory) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def first_call_minus_cached(make_call, repeats):
    """Best over `repeats` of (first call - cached call) with a fresh transform each time."""
    best = math.inf
    for _ in range(repeats):
        srcad.clear_cache()
        call = make_call()
        start = time.perf_counter()
        call()
        first = time.perf_counter() - start
        start = time.perf_counter()
        call()
        cached = time.perf_counter() - start
        best = min(best, first - cached)
    return best


def measure(directory, name, text, repeats):
    mod = load(directory, name, text)
    args = (0.3, 0.7)
    grads = srcad.grad(mod.f, wrt=(0, 1))(*args)
    expected = numerical_grad(mod.f, args, (0, 1))
    ok = all(abs(g - e) <= 1e-6 * (1 + abs(e)) for g, e in zip(grads, expected))

    def reverse():
        g = srcad.grad(mod.f, wrt=(0, 1))
        return lambda: g(*args)

    def forward():
        # a fresh function object each time: the jvp cache is keyed on the function
        fresh = load(directory, f"{name}_j{next(_counter)}", text).f
        return lambda: srcad.jvp(fresh, args, (1.0, 0.0))

    rev = first_call_minus_cached(reverse, repeats)
    fwd = first_call_minus_cached(forward, repeats)
    generated = srcad.source(srcad.grad(mod.f, wrt=(0, 1)), *args)
    return {"rev": rev, "fwd": fwd, "lines": len(generated.splitlines()),
            "source_lines": len(text.splitlines()), "ok": ok}


def slope(sizes, times):
    """Least-squares exponent p of times ~ c * sizes ** p."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den


def table(title, label, rows):
    print(f"\n{title}")
    print(f"| {label:>10} | source lines | generated lines | reverse (ms) | forward (ms) | "
          f"grad = FD |")
    print("|" + "---:|" * 5 + ":---:|")
    for size, r in rows:
        print(f"| {size:>10} | {r['source_lines']:>12} | {r['lines']:>15} | "
              f"{r['rev'] * 1e3:>12.1f} | {r['fwd'] * 1e3:>12.1f} | {'yes' if r['ok'] else 'NO'}"
              f" |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args(argv)
    lengths = [10, 30, 100, 300] if options.quick else [10, 30, 100, 300, 1000]
    depths = [1, 2, 3] if options.quick else [1, 2, 3, 4, 5]
    repeats = 1 if options.quick else options.repeats
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))

    with tempfile.TemporaryDirectory() as directory:
        # one repeat for the long ones: they take seconds, so noise hardly matters there
        straight = [(n, measure(directory, f"scaling_line_{n}", straight_line_source(n),
                                repeats if n < 300 else 1)) for n in lengths]
        nested = [(d, measure(directory, f"scaling_loop_{d}", nested_loops_source(d), repeats))
                  for d in depths]

    table("Straight-line code: transformation time by number of statements", "statements",
          straight)
    p_rev = slope(lengths, [r["rev"] for _, r in straight])
    p_fwd = slope(lengths, [r["fwd"] for _, r in straight])
    p_gen = slope(lengths, [r["lines"] for _, r in straight])
    print(f"\ngrowth exponent (1 = linear): reverse {p_rev:.2f}, forward {p_fwd:.2f}, "
          f"generated lines {p_gen:.2f}")
    per = [r["rev"] / n * 1e6 for n, r in straight]
    print("reverse time per statement (us): " + ", ".join(
        f"{n}: {t:.0f}" for n, t in zip(lengths, per)))

    table("Nested loops: transformation time by depth (the body's size is fixed)", "depth",
          nested)
    ratios = [b["rev"] / a["rev"] for (_, a), (_, b) in zip(nested, nested[1:])]
    print("\nreverse time ratio per extra level: " + ", ".join(f"{r:.2f}" for r in ratios)
          + " (about 1 + (one level's cost / total): linear in depth; about 2 would be "
          "exponential)")
    if not all(r["ok"] for _, r in straight + nested):
        print("\nWARNING: some gradients disagree with finite differences (see the tables)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
