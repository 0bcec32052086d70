"""How the first call's transform time, and tidy's share of it, grow with a function's length.

    PYTHONPATH=. python benchmarks/tidy_scaling.py              # 50, 100, 200, 400 statements
    PYTHONPATH=. python benchmarks/tidy_scaling.py --sizes 100 --rounds 5
    PYTHONPATH=. python benchmarks/tidy_scaling.py --families continues --sizes 400 800

Five families of generated functions of N statements (written to a temporary module, as
srcad needs real source): straight-line code on numbers and on NumPy arrays (each statement
reading the one or two before it), the same bodies inside a ``for`` loop of a few
iterations, and the loop on numbers with a ``continue`` every 20 statements. For each, the
CPU time (``time.process_time``, best of ``--rounds``, each from ``srcad.clear_cache()``)
of the first ``srcad.grad`` call and of :func:`srcad.backend.tidy.tidy` within it, and a hash
of the generated text: a speed change to tidy must leave every text as it was (compare the
hashes of two checkouts). Ratios, not seconds, are what compare: run two checkouts
alternately on the same machine.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import srcad
from srcad import pipeline

_counter = itertools.count()


def body(n, arrays):
    """N statements, each reading the previous one or two values."""
    fn = "np." if arrays else "math."
    lines = []
    for i in range(1, n + 1):
        a, b = f"v{i - 1}", f"v{max(i - 3, 0)}" if i % 2 else "x"
        op = i % 4
        if op == 0:
            expr = f"{fn}sin({a}) * 0.5 + {b} * 0.25"
        elif op == 1:
            expr = f"{a} * 0.9 + {fn}tanh({b}) * 0.1"
        elif op == 2:
            expr = f"{a} * {b} * 0.3 + y * 0.01"
        else:
            expr = f"{fn}cos({a} - {b}) * 0.7"
        lines.append(f"v{i} = {expr}")
    return lines


def source(n, arrays, loop, skips=False):
    out = ["import math", "import numpy as np", "", "", "def f(x, y):", "    v0 = x * y"]
    pad = "    "
    if loop:
        out.append("    for k in range(3):")
        pad = "        "
    for i, line in enumerate(body(n, arrays), 1):
        out.append(pad + line)
        if skips and i % 20 == 0 and i < n:  # a continue every 20 statements
            out += [pad + f"if v{i} > 5.0:", pad + "    continue"]
    if loop:
        out.append(f"        v0 = v{n}")
    total = f"np.sum(v{n})" if arrays else f"v{n}"
    out.append(f"    return {total}")
    return "\n".join(out) + "\n"


def load(directory, text):
    name = f"tidy_scaling_{next(_counter)}"
    path = Path(directory) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


class _TidyClock:
    """Adds up the CPU time spent in tidy (``pipeline.switches.tidy``)."""

    def __init__(self):
        self.spent = 0.0
        self.inner = pipeline.switches.tidy
        pipeline.switches.tidy = self

    def __call__(self, *args, **kwargs):
        start = time.process_time()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.spent += time.process_time() - start


def measure(f, args, rounds, clock):
    best_total = best_tidy = float("inf")
    text = ""
    for _ in range(rounds):
        srcad.clear_cache()
        clock.spent = 0.0
        start = time.process_time()
        g = srcad.grad(f)
        g(*args)
        best_total = min(best_total, time.process_time() - start)
        best_tidy = min(best_tidy, clock.spent)
        text = srcad.source(g, *args)
    return best_total, best_tidy, hashlib.sha1(text.encode()).hexdigest()[:10]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 100, 200, 400])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--families", nargs="*", default=(),
                        help="only the families whose name holds one of these words")
    opts = parser.parse_args(argv)
    clock = _TidyClock()
    print(f"srcad from {Path(srcad.__file__).parent}")
    print(f"{'family':<33}{'N':>5}{'first call s':>14}{'tidy s':>10}{'tidy %':>8}  text")
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        for arrays, loop, skips in ((False, False, False), (True, False, False),
                                    (False, True, False), (True, True, False),
                                    (False, True, True)):
            family = ("arrays" if arrays else "numbers") + (" in a loop" if loop else "") + (
                ", continues" if skips else "")
            if opts.families and not any(word in family for word in opts.families):
                continue
            for n in opts.sizes:
                f = load(directory, source(n, arrays, loop, skips))
                args = (np.linspace(0.1, 0.5, 4), 0.3) if arrays else (0.2, 0.3)
                total, tidy_s, digest = measure(f, args, opts.rounds, clock)
                print(f"{family:<33}{n:>5}{total:>14.3f}{tidy_s:>10.3f}"
                      f"{100 * tidy_s / total:>7.0f}%  {digest}", flush=True)


if __name__ == "__main__":
    main()
