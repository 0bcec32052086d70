"""Measure srcad against a hand-written gradient and against the peers that are installed.

    python benchmarks/run.py                 # full run: prints the tables, writes results.md
    python benchmarks/run.py --quick         # smoke run: short timings, writes nothing
    python benchmarks/run.py --only W1,W5    # some workloads only (writes nothing)
    python benchmarks/run.py --threads 1     # one BLAS/PyTorch thread: steadier when busy

For every workload in ``workloads.py`` it times, in this one process, the plain function, the
hand-written gradient, srcad's gradient (a cached call), srcad's first-call transform time,
``srcad.tape``, srcad's Numba backend on the loop workloads W2 and W3 (its cached call, and its
first call: transform and compile) when numba is importable, and HIPS autograd, PyTorch eager
and JAX (``grad`` and ``jit(grad)``) when they are importable. Every time is the minimum over
several repeats of a loop that runs for at least 0.2 s; the repeats go round-robin over the
engines so that load from other processes falls on all of them alike. Before timing, each
gradient is compared with the hand-written one (which is itself checked against central finite
differences); a mismatch is printed loudly and makes the exit status 1. An engine that fails
(srcad may lack a rule) shows ``error: <message>`` in the table and the run goes on.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gc
import importlib.metadata
import math
import os
import platform
import re
import subprocess
import sys
import time
import timeit
import tracemalloc
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# the srcad of the checkout this script is in (the installed one may be another checkout's)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import srcad.tape  # noqa: E402
from workloads import WORKLOADS  # noqa: E402 (beside this script, so on sys.path when it runs)

import srcad  # noqa: E402

HERE = Path(__file__).resolve().parent

try:
    import torch
except ImportError:
    torch = None
try:
    import autograd
    import autograd.numpy as anp
except ImportError:
    autograd = None
try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

# Gradient engines in table order; "function" is the plain function, the others its gradient.
ENGINES = ["hand", "srcad", "srcad-numba", "tape", "autograd", "torch", "jax", "jax-jit"]
PEERS = ["tape", "autograd", "torch", "jax", "jax-jit"]
MEMORY_WORKLOADS = ("W6",)
#: the workloads timed with srcad's Numba backend too (srcad.grad(f, backend="numba"))
NUMBA_WORKLOADS = ("W2", "W3")


@dataclass
class Settings:
    target: float  # seconds per timed repeat, at least
    repeats: int
    transform_repeats: int


FULL = Settings(target=0.2, repeats=7, transform_repeats=5)
QUICK = Settings(target=0.01, repeats=2, transform_repeats=1)


@dataclass
class Result:
    """What was measured for one workload. Times are seconds per call."""

    name: str
    title: str
    times: dict = field(default_factory=dict)  # engine -> seconds, or "error: ..." text
    transform: float | str | None = None  # srcad first call minus a cached call
    jit_compile: float | str | None = None
    numba_first: float | str | None = None  # srcad-numba's first call: transform + compile
    generated: float | None = None  # calling srcad's generated function directly
    memory: dict = field(default_factory=dict)  # engine -> peak bytes
    problems: list = field(default_factory=list)  # loud messages: mismatches
    errors: dict = field(default_factory=dict)  # engine -> full error text


# ================================================================================================
# Timing
# ================================================================================================


class Clock:
    """Times ``fn(*args)``: a loop of calls running at least ``target`` seconds, repeated.

    The harness makes one clock per engine, then runs the repeats round-robin over them, so a
    burst of load from other processes falls on all engines alike rather than on one.
    """

    def __init__(self, fn, args, target):
        self.timer = timeit.Timer("fn(*args)", globals={"fn": fn, "args": args})
        self.loops, elapsed = 1, self.timer.timeit(1)
        while elapsed < target:
            guess = self.loops * target / max(elapsed, 1e-9)
            self.loops = int(min(max(guess * 1.2, self.loops * 2), self.loops * 100))
            elapsed = self.timer.timeit(self.loops)
        self.best = elapsed

    def repeat(self):
        self.best = min(self.best, self.timer.timeit(self.loops))

    @property
    def per_call(self):
        """Seconds per call: the best repeat divided by its number of calls."""
        return self.best / self.loops


def time_all(clocks, settings):
    """Run the repeats of every clock round-robin; seconds per call for each."""
    for _ in range(settings.repeats - 1):
        for clock in clocks.values():
            clock.repeat()
    return {name: clock.per_call for name, clock in clocks.items()}


def first_call(make, args, cached, settings):
    """Seconds of a fresh object's first call, minus one cached call: the transform cost."""
    best = math.inf
    for _ in range(settings.transform_repeats):
        fresh = make()
        gc.collect()
        start = time.perf_counter()
        fresh(*args)
        best = min(best, time.perf_counter() - start)
    return max(best - cached, 0.0)


def peak_memory(fn, args):
    """Peak bytes allocated (Python objects and NumPy buffers) during one call of ``fn``."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del out
    return peak


# ================================================================================================
# Checking gradients
# ================================================================================================


def as_tuple(grads, single):
    return (grads,) if single else tuple(grads)


def to_numpy(value):
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=np.float64)


def compare(got, expected, w):
    """None if the gradients agree, else a one-line description of the worst difference."""
    single = isinstance(w.wrt, int)
    got, expected = as_tuple(got, single), as_tuple(expected, single)
    if len(got) != len(expected):
        return f"{len(got)} gradients, expected {len(expected)}"
    for position, a, b in zip(w.wrt_positions, got, expected):
        a, b = to_numpy(a), to_numpy(b)
        if a.shape != b.shape:
            return f"gradient of argument {position} has shape {a.shape}, expected {b.shape}"
        if not np.allclose(a, b, rtol=w.rtol, atol=w.atol):
            worst = np.max(np.abs(a - b) / (w.atol + w.rtol * np.abs(b)))
            return (f"gradient of argument {position} differs: max |got - expected| = "
                    f"{np.max(np.abs(a - b)):.3g} ({worst:.3g}x the tolerance)")
    return None


def check_hand_written(w, args, rng):
    """Compare the hand-written gradient with central differences along a random direction."""
    grads = as_tuple(w.hand(*args), isinstance(w.wrt, int))
    directions = [rng.standard_normal(np.shape(args[p])) for p in w.wrt_positions]

    def shifted(step):
        moved = list(args)
        for p, v in zip(w.wrt_positions, directions):
            moved[p] = args[p] + step * (float(v) if np.ndim(v) == 0 else v)
        return w.f(*moved)

    eps = 1e-6
    numeric = (shifted(eps) - shifted(-eps)) / (2 * eps)
    exact = sum(float(np.sum(g * v)) for g, v in zip(grads, directions))
    if not math.isclose(numeric, exact, rel_tol=1e-5, abs_tol=1e-7):
        return (f"hand-written gradient disagrees with finite differences: "
                f"{exact!r} vs {float(numeric)!r}")
    return None


_LOCATION = re.compile(r"^\S+\.py, line \d+: ")


def one_line(exc):
    """The first line of an exception's message, without a leading "file, line N: "."""
    lines = str(exc).strip().splitlines()
    text = _LOCATION.sub("", lines[0]) if lines else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ================================================================================================
# The engines: each makes a callable taking the workload's arguments (or its own copy of them)
# ================================================================================================


def rebind(f, **modules):
    """A copy of ``f`` whose globals name other modules (``np`` -> ``autograd.numpy``)."""
    env = dict(f.__globals__, **modules)
    return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)


def make_autograd(w, args):
    fa = rebind(w.f, np=anp, math=anp)
    if isinstance(w.wrt, int):
        return autograd.grad(fa, w.wrt), args
    positions = w.wrt_positions

    def packed(wrt_values, *rest):
        full = list(rest)
        for p, v in zip(positions, wrt_values):
            full[p] = v
        return fa(*full)

    grad = autograd.grad(packed)
    return grad, (tuple(args[p] for p in positions), *args)


def make_torch(w, args):
    def tensor(value, position):
        if isinstance(value, (float, np.ndarray)):
            t = torch.tensor(value, dtype=torch.float64)
            return t.requires_grad_() if position in w.wrt_positions else t
        return value

    targs = [tensor(a, i) for i, a in enumerate(args)]
    leaves = [targs[p] for p in w.wrt_positions]
    single = isinstance(w.wrt, int)

    def torch_grad(*targs):
        for leaf in leaves:
            leaf.grad = None
        w.torch_f(*targs).backward()
        return leaves[0].grad if single else tuple(leaf.grad for leaf in leaves)

    return torch_grad, tuple(targs)


def make_jax(w, args, jit):
    """A new ``jax.grad`` (under ``jax.jit`` if asked): each one compiles afresh."""
    fj = rebind(w.f, np=jnp, math=jnp)
    jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
    g = jax.grad(fj, argnums=w.wrt)
    g = jax.jit(g) if jit else g

    def jax_grad(*a):
        return jax.block_until_ready(g(*a))

    return jax_grad, jargs


# ================================================================================================
# Running one workload
# ================================================================================================


def run_workload(w, settings, log):
    log(f"{w.name}: {w.title}")
    rng = np.random.default_rng(0)
    args = tuple(w.make_args(rng))
    res = Result(w.name, w.title)
    expected = w.hand(*args)
    problem = check_hand_written(w, args, rng)
    if problem:
        res.problems.append(problem)

    def failed(engine, exc):
        res.times[engine] = "error: " + one_line(exc)
        res.errors[engine] = one_line(exc)

    clocks = {}

    def measure(engine, setup, check=True):
        """Make the engine's callable, check its gradient, set up its clock; None if it failed."""
        log(f"  {engine}")
        try:  # any failure is reported in the table, never fatal
            fn, fargs = setup()
            got = fn(*fargs)
            if check:
                problem = compare(got, expected, w)
                if problem:
                    res.problems.append(f"{engine}: {problem}")
                    res.errors[engine] = "MISMATCH: " + problem
            clocks[engine] = Clock(fn, fargs, settings.target)
        except Exception as exc:
            failed(engine, exc)
            return None
        return fn, fargs

    def make_srcad():
        return srcad.grad(w.f, wrt=w.wrt)

    def make_fresh_srcad():  # grad(f) again reuses the transform: forget it first
        srcad.clear_cache()
        return make_srcad()

    def make_numba_srcad():
        return srcad.grad(w.f, wrt=w.wrt, backend="numba")

    def make_fresh_numba_srcad():
        srcad.clear_cache()
        return make_numba_srcad()

    measure("function", lambda: (w.f, args), check=False)
    measure("hand", lambda: (w.hand, args))
    made = measure("srcad", lambda: (make_srcad(), args))
    generated = None
    if made:  # private attributes: the last generated function, behind the dispatcher
        transformed = getattr(made[0], "__srcad__", made[0])
        generated = getattr(transformed, "_last", None)
    if generated is not None:
        measure("generated", lambda: (generated, args), check=False)

    numba_made = None
    if w.name in NUMBA_WORKLOADS and numba_available():
        numba_made = measure("srcad-numba", lambda: (make_numba_srcad(), args))

    setups = {"tape": lambda: (srcad.tape.grad(w.f, wrt=w.wrt), args)}
    if autograd is not None:
        setups["autograd"] = lambda: make_autograd(w, args)
    if torch is not None:
        setups["torch"] = lambda: make_torch(w, args)
    for engine, setup in setups.items():
        measure(engine, setup)
    jitted = None
    if jax is not None:
        measure("jax", functools.partial(make_jax, w, args, False))
        jitted = measure("jax-jit", functools.partial(make_jax, w, args, True))

    log("  timing")
    res.times.update(time_all(clocks, settings))
    res.generated = res.times.pop("generated", None)
    if made:
        try:
            res.transform = first_call(make_fresh_srcad, args, res.times["srcad"], settings)
        except Exception as exc:
            res.transform = "error: " + one_line(exc)
    if numba_made:
        try:  # the whole first call (transform and compile), as a user waits for it
            res.numba_first = first_call(make_fresh_numba_srcad, args, 0.0, settings)
        except Exception as exc:
            res.numba_first = "error: " + one_line(exc)
    if jitted:
        try:
            res.jit_compile = first_call(lambda: make_jax(w, args, True)[0], jitted[1],
                                         res.times["jax-jit"], settings)
        except Exception as exc:
            res.jit_compile = "error: " + one_line(exc)

    if w.name in MEMORY_WORKLOADS:
        setups = {"function": lambda: (w.f, args), "hand": lambda: (w.hand, args),
                  "srcad": lambda: (make_srcad(), args), **setups}
        setups.pop("torch", None)  # tracemalloc does not see PyTorch's allocator
        for engine, setup in setups.items():
            if isinstance(res.times.get(engine), float):
                try:
                    fn, fargs = setup()
                    fn(*fargs)  # srcad: generate the code before measuring
                    res.memory[engine] = peak_memory(fn, fargs)
                except Exception as exc:
                    res.problems.append(f"{engine}: memory measurement failed: {one_line(exc)}")
    return res


# ================================================================================================
# Reporting
# ================================================================================================


def numba_available():
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def fmt_time(seconds):
    if not isinstance(seconds, float):
        return "—" if seconds is None else short(seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def short(text, width=72):
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def fmt_dispatch(cached, generated):
    """srcad's cost of calling the gradient object rather than the function it generated."""
    if not (isinstance(cached, float) and isinstance(generated, float)):
        return "—"
    if cached - generated < 0.01 * cached:
        return "< 1%"  # lost in the timing noise of a long call
    return fmt_time(cached - generated)


def ratio(a, b):
    if not (isinstance(a, float) and isinstance(b, float) and b > 0):
        return "—"
    r = a / b
    return f"{r:.2f}" if r < 10 else f"{r:.1f}" if r < 100 else f"{r:.0f}"


def flag(res, engine, cell):
    """Mark a cell whose gradient did not match."""
    return f"**{cell} MISMATCH**" if res.errors.get(engine, "").startswith("MISMATCH") else cell


def engines_present(results):
    return [e for e in ENGINES if any(e in r.times for r in results)]


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def times_table(results):
    engines = engines_present(results)
    header = ["workload", "function"] + engines + ["srcad transform"]
    if any(r.numba_first is not None for r in results):
        header.append("srcad-numba first call")
    if any(r.jit_compile is not None for r in results):
        header.append("jax-jit compile")
    rows = []
    for r in results:
        row = [r.name, fmt_time(r.times.get("function"))]
        row += [flag(r, e, fmt_time(r.times.get(e))) for e in engines]
        row.append(fmt_time(r.transform))
        if "srcad-numba first call" in header:
            row.append(fmt_time(r.numba_first))
        if "jax-jit compile" in header:
            row.append(fmt_time(r.jit_compile))
        rows.append(row)
    return table(header, rows)


def ratios_table(results):
    engines = engines_present(results)
    peers = [e for e in engines if e in PEERS]
    own = ("hand", "srcad", "srcad-numba")
    header = (["workload"] + [f"{e} ÷ f" for e in engines if e in own]
              + ["**srcad ÷ hand**", "generated ÷ hand", "srcad dispatch"]
              + [f"{e} ÷ hand" for e in peers])
    rows = []
    for r in results:
        t = r.times
        row = [r.name]
        row += [ratio(t.get(e), t.get("function")) for e in engines if e in own]
        row.append(f"**{ratio(t.get('srcad'), t.get('hand'))}**")
        row.append(ratio(r.generated, t.get("hand")))
        row.append(fmt_dispatch(t.get("srcad"), r.generated))
        row += [ratio(t.get(e), t.get("hand")) for e in peers]
        rows.append(row)
    return table(header, rows)


def memory_table(results):
    rows = []
    for r in results:
        if not r.memory:
            continue
        hand = r.memory.get("hand")
        for engine, peak in r.memory.items():
            rel = f"{peak / hand:.2f}" if hand else "—"
            rows.append([r.name, engine, f"{peak / 1024:.0f} KiB", rel])
    return table(["workload", "engine", "peak traced memory", "÷ hand"], rows) if rows else ""


def targets(results):
    """The project's performance targets, each marked met or not."""
    lines = []

    def mark(ok):
        return "met" if ok else "**not met**"

    for r in results:
        t = r.times
        s, h = t.get("srcad"), t.get("hand")
        if isinstance(s, float) and isinstance(h, float):
            lines.append(f"- {r.name}: srcad ÷ hand = {s / h:.2f} (target ≤ 1.15): "
                         f"{mark(s / h <= 1.15)}")
        else:
            lines.append(f"- {r.name}: srcad ÷ hand: no measurement ({short(s, 80)})")
        limit = {"W1": 15e-3, "W5": 60e-3}.get(r.name)
        if limit is not None:
            if isinstance(r.transform, float):
                lines.append(f"- {r.name}: first-call transform {fmt_time(r.transform)} "
                             f"(target ≤ {limit * 1e3:.0f} ms): {mark(r.transform <= limit)}")
            else:
                lines.append(f"- {r.name}: first-call transform: no measurement")
        if r.name in ("W1", "W2", "W3", "W4", "W6") and isinstance(s, float):
            for peer in ("autograd", "torch", "jax"):
                p = t.get(peer)
                if isinstance(p, float):
                    lines.append(f"- {r.name}: {peer} eager slower than srcad "
                                 f"({p / s:.2f}x): {mark(p > s)}")
    return "\n".join(lines)


def error_list(results):
    lines = []
    for r in results:
        for engine, text in r.errors.items():
            lines.append(f"- {r.name} {engine}: {text}")
        for problem in r.problems:
            if problem.split(":")[0] not in r.errors:
                lines.append(f"- {r.name}: {problem}")
    return "\n".join(lines)


def git_state():
    """The commit the run measured, and whether the work tree had changes."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True,
                              timeout=10).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "../srcad")
    except (OSError, subprocess.SubprocessError):
        return "commit unknown"
    if not commit:
        return "commit unknown"
    return f"commit {commit}" + (" with uncommitted changes in srcad/" if dirty else "")


def machine_info():
    def version(module):
        if module is None:
            return "not installed"
        try:
            return importlib.metadata.version(module.__name__)
        except importlib.metadata.PackageNotFoundError:
            return getattr(module, "__version__", "installed")

    env = [f"{k}={os.environ[k]}" for k in sorted(os.environ)
           if k.startswith(("OPENBLAS", "OMP_", "MKL_")) and os.environ[k]]
    info = [
        f"python {platform.python_version()} ({platform.python_implementation()})",
        f"numpy {np.__version__}",
        f"srcad {srcad.__version__}, {git_state()}",
        f"autograd {version(autograd)}",
        f"torch {version(torch)}"
        + (f" ({torch.get_num_threads()} threads)" if torch is not None else ""),
        f"jax {version(jax)}",
        f"cpu count {os.cpu_count()}; {platform.machine()} {platform.processor() or ''}".strip(),
        f"platform {platform.platform()}",
        "environment " + (", ".join(env) if env else "(no OPENBLAS_*/OMP_*/MKL_* set)"),
        "load average at the start {:.2f} {:.2f} {:.2f} (other processes skew timings)".format(
            *os.getloadavg()),
    ]
    return info


def report(results, settings, quick, command):
    mode = "quick (smoke run, not for quoting)" if quick else "full"
    parts = [
        "# srcad benchmark results",
        "",
        f"Made by `{command}` on "
        f"{time.strftime('%Y-%m-%d %H:%M')}; {mode}: each time is the minimum of "
        f"{settings.repeats} repeats of a loop running at least {settings.target:g} s. "
        "See benchmarks/README.md for what each column means.",
        "",
        "## Machine",
        "",
        *[f"- {line}" for line in machine_info()],
        "",
        "## Time per call",
        "",
        times_table(results),
        "",
        "## Ratios",
        "",
        "`X ÷ f`: gradient time over the plain function's time. `X ÷ hand`: over the "
        "hand-written gradient's time. `generated ÷ hand`: srcad's generated function called "
        "directly, without the gradient object around it. `srcad dispatch`: the difference, "
        "the cost of the gradient object's call (cache lookup on the argument types).",
        "",
        ratios_table(results),
    ]
    memory = memory_table(results)
    if memory:
        parts += ["", "## Peak memory of one gradient call (tracemalloc)", "", memory]
    parts += ["", "## Targets", "", targets(results)]
    errors = error_list(results)
    if errors:
        parts += ["", "## Errors and mismatches", "", errors]
    return "\n".join(parts) + "\n"


def chart(results, path):
    """A bar chart of gradient time ÷ hand-written time, if matplotlib is installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    engines = [e for e in engines_present(results) if e != "hand"]
    names = [r.name for r in results]
    width = 0.8 / max(len(engines), 1)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for i, engine in enumerate(engines):
        values = [r.times[engine] / r.times["hand"]
                  if isinstance(r.times.get(engine), float)
                  and isinstance(r.times.get("hand"), float) else 0.0 for r in results]
        xs = [j + (i - (len(engines) - 1) / 2) * width for j in range(len(names))]
        ax.bar(xs, values, width, label=engine)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.15, color="grey", linewidth=0.8, linestyle="--", label="srcad target 1.15")
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("gradient time ÷ hand-written (log scale)")
    ax.set_title("srcad benchmarks (missing bar: error or not installed)")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ================================================================================================
# Main
# ================================================================================================


THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def limit_threads(n, argv):
    """Limit every thread pool to ``n`` threads. BLAS reads its limit when NumPy is first
    imported, so unless the variables already say ``n`` this runs the script again with them."""
    if any(os.environ.get(v) != str(n) for v in THREAD_VARIABLES):
        env = dict(os.environ, **{v: str(n) for v in THREAD_VARIABLES})
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv], env)
    if torch is not None:
        torch.set_num_threads(n)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="short timings for a smoke run")
    parser.add_argument("--only", help="comma-separated workload names, e.g. W1,W5")
    parser.add_argument("--repeats", type=int,
                        help="timed repeats per engine (default 7, or 2 with --quick); more "
                             "repeats help on a busy machine")
    parser.add_argument("--threads", type=int,
                        help="limit BLAS, OpenMP and PyTorch to this many threads (the script "
                             "runs itself again with OPENBLAS_NUM_THREADS etc. set); 1 gives "
                             "steadier numbers on a shared machine")
    parser.add_argument("--output", type=Path,
                        help="where to write the markdown report (default: benchmarks/results.md, "
                             "for a full run of every workload only); the chart goes beside it")
    opts = parser.parse_args(argv)

    chosen = WORKLOADS
    if opts.only:
        wanted = [n.strip().upper() for n in opts.only.split(",") if n.strip()]
        known = {w.name for w in WORKLOADS}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {sorted(known)}")
        chosen = [w for w in WORKLOADS if w.name in wanted]
    if opts.threads:
        limit_threads(opts.threads, sys.argv[1:] if argv is None else argv)
    settings = QUICK if opts.quick else FULL
    if opts.repeats:
        settings = dataclasses.replace(settings, repeats=max(opts.repeats, 1))
    # results.md holds full runs of every workload only; --output writes any run
    output = opts.output or (None if opts.quick or opts.only else HERE / "results.md")

    def log(message):
        print(message, file=sys.stderr, flush=True)

    results = []
    for w in chosen:
        try:
            results.append(run_workload(w, settings, log))
        except Exception as exc:  # a bug in the workload itself: report it, go on
            broken = Result(w.name, w.title)
            broken.problems.append(f"the workload itself failed: {one_line(exc)}")
            results.append(broken)
    command = " ".join(["python benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)])
    text = report(results, settings, opts.quick, command)
    print(text)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        log(f"wrote {output}")
        png = output.with_suffix(".png")
        if chart(results, png):
            log(f"wrote {png}")
        else:
            log("matplotlib is not installed: no chart")

    problems = [f"{r.name} {p}" for r in results for p in r.problems]
    if problems:
        bar = "!" * 78
        log(f"\n{bar}\nPROBLEMS: GRADIENT MISMATCH OR BROKEN WORKLOAD\n" + "\n".join(problems)
            + f"\n{bar}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
