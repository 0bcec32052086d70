"""Profile srcad's first-call transform (read, lower, analyse, reverse, tidy, emit, compile).

    python tools/profile_transform.py                 # per-phase table and total
    python tools/profile_transform.py --top 40        # and the 40 costliest functions (own time)
    python tools/profile_transform.py --dump OUT.txt  # every generated function's text, in order
    python tools/profile_transform.py --repeat 3      # best of 3 timed passes (no profiler)

The set, each made from scratch (``srcad.clear_cache()`` before each item):

- benchmarks/workloads.py W1-W7 (``srcad.grad`` on small arguments of the same kinds);
- benchmarks/scaling.py: straight-line code of 200 statements, loops nested 3 deep
  (``grad`` and ``jvp``);
- benchmarks/gradbench/tool/*.py: every eval module imported (each makes its derivatives on
  import), GradBench's ``gradbench.wrap`` replaced by a stand-in;
- tests/gen_programs_python.py: 40 programs (seeds 1, 76, 151, ...), ``value_and_grad`` or
  ``grad`` of the entry point as tests/test_properties_python.py takes it, ``jvp`` for a third.

``--dump`` writes the text of every function srcad compiles, in order, so two checkouts can be
compared byte for byte (``diff``): the transform's speed work must not change what it writes.
Imports srcad from the checkout this file is in.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import importlib
import io
import pstats
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import numpy as np  # noqa: E402

import srcad  # noqa: E402
from srcad import pipeline  # noqa: E402
from srcad.backend import emit  # noqa: E402

#: (phase, file suffix, function name): cumulative time of the outermost calls
PHASES = [
    ("read (parse)", "frontend/source.py", "read"),
    ("lower (front end, SSA)", "srcad/pipeline/lowering.py", "_lower"),
    ("analyse", "analysis/analyse.py", "__init__"),
    ("alias", "analysis/alias.py", "check"),
    ("soundness", "analysis/soundness.py", "check"),
    ("reverse sweep", "transform/reverse.py", "run"),
    ("forward sweep", "transform/forward.py", "run"),
    ("assemble", "backend/assemble.py", "assemble"),
    ("tidy", "backend/tidy.py", "tidy"),
    ("inline parts", "backend/inline.py", "inline_parts"),
    ("emit + compile", "backend/emit.py", "compile_function"),
    ("transform total (adjoint)", "srcad/pipeline/adjoints.py", "adjoint"),
    ("transform total (tangent)", "srcad/pipeline/tangents.py", "tangent"),
]


def _small(args):
    """The same kinds, small arrays: the transform, not the arithmetic, is timed."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            a = a[tuple(slice(0, 3) for _ in range(a.ndim))].copy()
        out.append(a)
    return tuple(out)


def _workloads():
    import workloads

    rng = np.random.default_rng(0)
    items = []
    for w in workloads.WORKLOADS:
        args = _small(w.make_args(rng))
        if w.name == "W2":
            args = (0.7, 5)
        items.append((w.name, lambda w=w, args=args: srcad.grad(w.f, wrt=w.wrt)(*args)))
    return items


def _scaling(directory):
    import scaling

    items = []
    for name, text in (("line200", scaling.straight_line_source(200)),
                       ("loops3", scaling.nested_loops_source(3))):
        mod = scaling.load(directory, f"prof_{name}", text)
        items.append((f"{name} grad", lambda f=mod.f: srcad.grad(f, wrt=(0, 1))(0.3, 0.7)))
        items.append((f"{name} jvp", lambda f=mod.f: srcad.jvp(f, (0.3, 0.7), (1.0, 0.0))))
    return items


class _Sparse:
    def __init__(self, *args):
        pass

    def insert_reproj_err_block(self, *args):
        pass

    def insert_w_err_block(self, *args):
        pass


def _gradbench():
    wrap = types.ModuleType("gradbench.wrap")
    wrap.multiple_runs = wrap.function = lambda pre=None, post=None: (lambda fn: fn)
    sparse = types.ModuleType("gradbench.adbench.ba_sparse_mat")
    sparse.BASparseMat = _Sparse
    package = types.ModuleType("gradbench")
    package.wrap = wrap
    adbench = types.ModuleType("gradbench.adbench")
    hand = types.ModuleType("gradbench.adbench.ht_data")
    hand.HandInput = _Sparse
    sys.modules.update({"gradbench": package, "gradbench.wrap": wrap,
                        "gradbench.adbench": adbench, "gradbench.adbench.ba_sparse_mat": sparse,
                        "gradbench.adbench.ht_data": hand})
    tool = ROOT / "benchmarks" / "gradbench" / "tool"
    sys.path.insert(0, str(tool))
    items = []
    for path in sorted(tool.glob("*.py")):
        if path.stem in ("run", "solver"):
            continue

        def load(stem=path.stem):
            sys.modules.pop(stem, None)
            importlib.import_module(stem)
        items.append((f"gradbench {path.stem}", load))
    return items


def _programs(directory):
    import gen_programs_python as gen

    items = []
    for seed in range(1, 3001, 75):
        prog = gen.program(seed)

        def run(prog=prog):
            mod = gen.load(prog.source, directory, "prof_prog")
            x, a = 0.3, np.array([0.5, -0.25, 0.75])
            with contextlib.suppress(srcad.SrcadError):
                if prog.entry in ("dataclass", "namedtuple"):
                    srcad.grad(mod.ENTRY)(mod.Params(x, a))
                    return
                made = (srcad.value_and_grad if prog.seed % 2 == 0 else srcad.grad)(
                    mod.ENTRY, wrt=(0, 1), has_aux=prog.entry == "aux")
                made(x, a)
                if prog.entry != "aux" and prog.seed % 3 == 0:
                    srcad.jvp(mod.ENTRY, (x, a), (0.3, a))
        items.append((f"program {seed}", run))
    return items


def items(directory):
    return _workloads() + _scaling(directory) + _gradbench() + _programs(directory)


def run_all(work, times):
    for label, fn in work:
        srcad.clear_cache()
        start = time.process_time()  # CPU time: the machine may be shared
        fn()
        times[label] = min(times.get(label, 1e9), time.process_time() - start)


def phase_table(stats):
    rows = []
    for phase, suffix, func in PHASES:
        total = 0.0
        for (filename, _, name), (_, _, _, ct, _) in stats.stats.items():
            if name == func and filename.replace("\\", "/").endswith(suffix):
                total += ct
        rows.append((phase, total))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--save", type=Path, help="write the profile (pstats) here")
    parser.add_argument("--only", help="only the items whose label starts so (W, line200, "
                        "gradbench, program ...)")
    parser.add_argument("--repeat", type=int, default=0,
                        help="time the set this many times without the profiler (best CPU "
                        "time of each item)")
    args = parser.parse_args()
    print(f"srcad from {Path(srcad.__file__).parent}", file=sys.stderr)
    texts, directory = [], None
    if args.dump:
        original = emit.compile_function

        def recording(fdef, user_func, helpers, spelled, label, *rest, **kw):
            fn = original(fdef, user_func, helpers, spelled, label, *rest, **kw)
            shown = f"#### {label}\n{fn.__srcad_source__}"
            texts.append(shown.replace(str(directory), "TMP"))  # the same in every run
            return fn
        emit.compile_function = recording
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        work = [(label, fn) for label, fn in items(directory)
                if args.only is None or label.startswith(args.only)]
        with contextlib.redirect_stdout(io.StringIO()):
            run_all(work, {})  # warm: imports, rule tables
        if args.dump:
            texts.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                run_all(work, {})
            args.dump.write_text("\n".join(texts))
            print(f"{len(texts)} functions written to {args.dump}")
            return
        if args.repeat:
            times = {}
            for _ in range(args.repeat):
                with contextlib.redirect_stdout(io.StringIO()):
                    run_all(work, times)
            groups = {}
            for label, t in times.items():
                group = label.split()[0] if label.split()[0] in ("program", "gradbench") \
                    else label
                groups[group] = groups.get(group, 0.0) + t
            for group, t in groups.items():
                print(f"{group:20s} {1000 * t:9.1f} ms")
            print(f"{'total':20s} {1000 * sum(times.values()):9.1f} ms")
            return
        profile = cProfile.Profile()
        with contextlib.redirect_stdout(io.StringIO()):
            profile.enable()
            run_all(work, {})
            profile.disable()
    stats = pstats.Stats(profile)
    if args.save:
        stats.dump_stats(args.save)
    print(f"{'phase':32s} {'cumulative s':>12s}")
    for phase, total in phase_table(stats):
        print(f"{phase:32s} {total:12.3f}")
    print(f"{'(profiled run, all items)':32s} {stats.total_tt:12.3f}")
    _ = pipeline
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
