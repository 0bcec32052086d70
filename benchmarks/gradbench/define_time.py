"""Where each GradBench eval's ``define`` time goes: imports against srcad's making of code.

    PYTHONPATH=.:/tmp/gradbench/python/gradbench:/tmp/deps-gradbench \\
        python benchmarks/gradbench/define_time.py [--evals det ode] [--rounds 3]

``define`` (see ``tool/run.py``) imports the eval's module from ``tool/``; the module's
warm-up calls make srcad's code for the kinds the eval sends. For each module, in a fresh
process each round: the CPU time (``time.process_time``) of importing srcad, then of the
module's other top-level imports (NumPy, GradBench's helpers, ...), then of the module
itself (srcad making its code, and the warm-up calls' small runs), split into srcad's
stages: the frontend and SSA (``pipeline.to_ssa``), the analyses and the reverse sweep
(the rest of ``pipeline.generating.generate``), tidy (``pipeline.switches.tidied``; the figure
keeps its old name, ``_tidy``), and the rest (assembling,
the tangent code's sweep, emitting and compiling the text, the calls). Best of ``--rounds``
by the module's time. Run two checkouts alternately: ratios, not seconds, compare.

The children read compiled bytecode (a ``PYTHONPYCACHEPREFIX`` in a temporary directory,
written by a first import; ``PYTHONDONTWRITEBYTECODE`` dropped), as an installed srcad is read:
without it ``import srcad`` compiles some 250 modules from their source, 0.8 s of CPU against
0.13 s (``--source`` shows that case, NumPy compiled too).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL = Path(__file__).resolve().parent / "tool"
EVALS = ("hello", "lse", "llsq", "gmm", "kmeans", "det", "ode", "ba", "ht", "lstm", "particle",
         "saddle")
STAGES = ("to_ssa", "generate", "_tidy")
#: where each stage is looked up when called: (module under srcad.pipeline, name)
TARGETS = {"to_ssa": (("", "to_ssa"), ("lowering", "to_ssa")),
           "generate": (("generating", "generate"),), "_tidy": (("switches", "tidied"),)}


def _child(name):
    """One round for module ``name``, in this (fresh) process: a JSON line of its figures."""
    sys.path.insert(0, str(TOOL))
    start = time.process_time()
    import srcad
    from srcad import pipeline
    figures = {"srcad import": time.process_time() - start}
    tree = ast.parse((TOOL / f"{name}.py").read_text())
    imports = ast.Module(body=[s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))
                               and not any(a.name == "srcad" for a in s.names)],
                         type_ignores=[])
    start = time.process_time()
    exec(compile(imports, f"{name}-imports", "exec"), {})
    figures["other imports"] = time.process_time() - start
    spent = dict.fromkeys(STAGES, 0.0)
    inner = []  # the time of wrapped calls within the one running: counted once, at its own

    def clocked(stage, fn):
        def call(*args, **kwargs):
            inner.append(0.0)
            begin = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.process_time() - begin
                spent[stage] += took - inner.pop()
                if inner:
                    inner[-1] += took
        return call

    for stage in STAGES:
        for module, attr in TARGETS[stage]:
            owner = getattr(pipeline, module) if module else pipeline
            setattr(owner, attr, clocked(stage, getattr(owner, attr)))
    start = time.process_time()
    __import__(name)
    figures["module"] = time.process_time() - start
    figures.update(spent)
    print(json.dumps(figures))
    assert srcad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evals", nargs="*", default=list(EVALS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--source", action="store_true",
                        help="no bytecode: every import compiles its source")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        return _child(opts.child)
    env = dict(os.environ)
    cache = tempfile.TemporaryDirectory()
    env["PYTHONPYCACHEPREFIX"] = cache.name  # (bytecode beside the sources is not read)
    if opts.source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # the cache stays empty: every import compiles
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", "import srcad"], check=True, env=env)
    print(f"{'eval':<9}{'srcad import':>13}{'imports':>9}{'making code':>13}{'frontend+SSA':>14}"
          f"{'analyses+reverse':>18}{'tidy':>7}{'rest':>7}")
    for name in opts.evals:
        best = None
        for _ in range(opts.rounds):
            out = subprocess.run([sys.executable, __file__, "--child", name], check=True,
                                 capture_output=True, text=True, env=env).stdout.splitlines()[-1]
            figures = json.loads(out)
            if best is None or figures["module"] < best["module"]:
                best = figures
        rest = best["module"] - sum(best[s] for s in STAGES)
        print(f"{name:<9}{best['srcad import']:>13.2f}{best['other imports']:>9.2f}"
              f"{best['module']:>13.2f}{best['to_ssa']:>14.2f}{best['generate']:>18.2f}"
              f"{best['_tidy']:>7.2f}{rest:>7.2f}", flush=True)
    cache.cleanup()


if __name__ == "__main__":
    main()
