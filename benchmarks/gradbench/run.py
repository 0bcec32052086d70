"""Run GradBench's own Python evals against srcad (and its stock ``jax`` and ``pytorch`` tools),
one thread, and write ``benchmarks/gradbench/results.md``.

GradBench's orchestrator is a Rust program that cannot be built here; this driver does its job:
it starts an eval process and a tool process, relays each line the eval writes to the tool and
each reply back (checking the reply's ``id``), and keeps every message. The evals validate each
answer themselves (against GradBench's ``manual`` C++ tool, built here with ``make``); their
``analysis`` verdicts are recorded.

GradBench's code is not part of this repository: it is read at run time from a copy extracted
from the fetched mirror (``--gradbench``, made from ``--mirror`` if missing). Python packages the
evals and the jax tool need (scipy, pydantic, dataclasses-json, jax) come from ``--deps``
(``pip install --target /tmp/deps-gradbench scipy pydantic dataclasses-json jax jaxlib``).

    /work/main/.venv/bin/python benchmarks/gradbench/run.py            # everything, ~40 min
    /work/main/.venv/bin/python benchmarks/gradbench/run.py --evals lse gmm --tools srcad
"""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PYTHON = sys.executable

#: each eval's arguments: GradBench's defaults, made smaller where the default takes hours in
#: Python (the table says which sizes ran)
EVALS = {
    "hello": [],
    "lse": ["-n", "2500", "20000", "160000", "640000"],
    "llsq": ["-n", "64", "1024", "8196"],
    "det": ["-l", "4", "5", "6"],
    "ode": ["-n", "1000", "10000", "-s", "1", "10"],
    "kmeans": ["-k", "10", "100", "-n", "1000", "-d", "8"],
    "gmm": ["-n", "1000", "-k", "5", "10", "-d", "2", "10"],
    "ba": ["--max", "1", "--min-runs", "1"],  # one Jacobian of ba1 takes about a minute
    "ht": ["--max", "2"],
    "lstm": ["-l", "2", "4", "-c", "1024"],
    "particle": [],
    "saddle": [],
}
TOOLS = ("srcad", "srcad-numba", "jax", "jax-ports", "pytorch")
#: the evals with a JAX version written here (``jax_ports/``: the stock jax tool has none)
PORTS = tuple(sorted(p.stem for p in (HERE / "jax_ports").glob("*.py")))
#: the tools a run uses unless told (``--backend numba`` makes ``srcad`` ``srcad-numba``)
DEFAULT_TOOLS = ("srcad", "jax", "pytorch")
#: the evals srcad-numba runs in a full run (loops over scalars and small arrays: issue 19)
NUMBA_EVALS = ("gmm", "lstm", "ode", "particle", "ht")
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
              "TORCH_NUM_THREADS": "1"}


def extract(mirror: Path, target: Path) -> None:
    """GradBench's files from the fetched bare repository (files absent from the snapshot are
    skipped: the ht eval then runs its smaller sizes, the lstm text is filled in)."""
    git = ["git", f"--git-dir={mirror}"]
    listing = subprocess.run(git + ["ls-tree", "-r", "HEAD"], capture_output=True, text=True,
                             check=True).stdout
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, obj = meta.split()
        if kind != "blob":
            continue
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        blob = subprocess.run(git + ["cat-file", "blob", obj], capture_output=True)
        if blob.returncode == 0:
            out.write_bytes(blob.stdout)


def fill_missing(target: Path) -> None:
    """The one data file the evals need that the snapshot lacks."""
    lstm = target / "evals/lstm/data/lstm_full.txt"
    if not lstm.exists():  # absent from the snapshot: any ASCII text of this length will do
        words = (REPO / "README.md").read_text(encoding="ascii", errors="ignore")
        lstm.write_text((words * (20000 // max(len(words), 1) + 1))[:20000], encoding="ascii")


def build_manual(gradbench: Path, json_mirror: Path) -> None:
    header = gradbench / "cpp/json.hpp"
    if not header.exists():
        text = subprocess.run(["git", f"--git-dir={json_mirror}", "show",
                               "HEAD:single_include/nlohmann/json.hpp"],
                              capture_output=True, check=True).stdout
        header.write_bytes(text)
    subprocess.run(["make", "-C", "tools/manual", "-j2"], cwd=gradbench, check=True,
                   capture_output=True)


def tool_command(tool: str, gradbench: Path) -> list[str]:
    if tool == "srcad":
        return [PYTHON, str(HERE / "tool/run.py")]
    if tool == "srcad-numba":  # srcad.grad(..., backend="numba") in every eval module
        return [PYTHON, str(HERE / "tool/run.py"), "--backend", "numba"]
    if tool == "jax":
        return [PYTHON, str(HERE / "jax_blocking.py")]
    if tool == "jax-ports":  # the same launcher, reading jax_ports/ (written here)
        return [PYTHON, str(HERE / "jax_blocking.py"), "--ports"]
    return [PYTHON, str(gradbench / f"python/gradbench/gradbench/tools/{tool}/run.py")]


def run_one(eval_name: str, tool: str, gradbench: Path, deps: str, timeout: float,
            min_seconds: float, cpu: int = -1) -> dict:
    """One eval against one tool: every evaluate message with its reply and verdict."""
    env = dict(os.environ, **ONE_THREAD)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), str(gradbench / "python/gradbench"), deps])
    env["GRADBENCH_DIR"] = str(gradbench)
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu >= 0 and hasattr(
        os, "sched_setaffinity") else None
    script = gradbench / f"python/gradbench/gradbench/evals/{eval_name}/run.py"
    extra = [] if eval_name == "hello" else ["--min-seconds", str(min_seconds),
                                             "--min-runs", "5"]
    ev = subprocess.Popen([PYTHON, str(script), *extra, *EVALS[eval_name]], cwd=gradbench,
                          env=env,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          preexec_fn=pin)
    tl = subprocess.Popen(tool_command(tool, gradbench), cwd=gradbench, env=env,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          preexec_fn=pin)
    record = {"eval": eval_name, "tool": tool, "evaluations": {}, "outcome": "done",
              "defined": None}
    deadline = time.monotonic() + timeout
    try:
        while True:
            line = _readline(ev.stdout, deadline)
            if not line:
                break
            message = json.loads(line)
            tl.stdin.write(line if line.endswith("\n") else line + "\n")
            tl.stdin.flush()
            reply_line = _readline(tl.stdout, deadline)
            if not reply_line:
                record["outcome"] = "tool exited"
                break
            reply = json.loads(reply_line)
            if reply.get("id") != message["id"]:
                record["outcome"] = f"protocol error: id {reply.get('id')} for {message['id']}"
                break
            _note(record, message, reply)
            ev.stdin.write(reply_line if reply_line.endswith("\n") else reply_line + "\n")
            ev.stdin.flush()
    except TimeoutError:
        record["outcome"] = "timeout"
    except BrokenPipeError:
        pass
    finally:
        for proc in (ev, tl):
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in (ev, tl):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return record


def _readline(stream, deadline):
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    ready, _, _ = select.select([stream], [], [], remaining)
    if not ready:
        raise TimeoutError
    return stream.readline()


def _note(record, message, reply):
    kind = message["kind"]
    if kind == "define":
        record["defined"] = bool(reply.get("success"))
        record["define_ns"] = sum(t["nanoseconds"] for t in reply.get("timings") or [])
        if not reply.get("success"):
            record["outcome"] = "undefined"
            record["define_error"] = reply.get("error")
    elif kind == "evaluate":
        timings = [t["nanoseconds"] for t in reply.get("timings") or []
                   if t.get("name") == "evaluate"]
        record["evaluations"][message["id"]] = {
            "function": message["function"], "description": message.get("description", ""),
            "success": bool(reply.get("success")), "error": reply.get("error"),
            "timings": _stats(timings), "valid": None}
    elif kind == "analysis":
        entry = record["evaluations"].get(message["of"])
        if entry is not None:
            entry["valid"] = message["valid"]
            entry["check"] = message.get("error")


#: which function of each eval is the primal; every other one is a derivative
PRIMAL = {"hello": "square", "kmeans": "cost", "gmm": "objective", "ba": "objective",
          "ht": "objective", "lstm": "objective"}


def summarise(record):
    """Per workload (description): mean primal and derivative run, first derivative run."""
    rows = {}
    for entry in record["evaluations"].values():
        row = rows.setdefault(entry["description"], {"primal": None, "derivs": []})
        if entry["function"] == PRIMAL.get(record["eval"], "primal"):
            row["primal"] = entry
        else:
            row["derivs"].append(entry)
    return rows


def _stats(ns):
    """What the report needs of a list of run times (ns): kept instead of every run."""
    if isinstance(ns, dict) or not ns:
        return ns or {}
    return {"runs": len(ns), "sum": sum(ns), "min": min(ns), "first": ns[0]}


def _mean(ns):
    ns = _stats(ns)
    return ns["sum"] / ns["runs"] / 1e9 if ns else None


def _steady(ns):
    """The best run: robust to the first run (JAX's compile, srcad's transform) and to the
    preemptions of a shared machine (a run longer than a time slice is often cut), which the
    mean and even the median are not."""
    ns = _stats(ns)
    return ns["min"] / 1e9 if ns else None


def _fmt(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _verdict(entry):
    if entry is None:
        return "—"
    if not entry["success"]:
        return "failed"
    return {True: "valid", False: "INVALID", None: "unchecked"}[entry["valid"]]


def write_results(records, path, command, min_seconds):
    lines = [
        "# srcad on GradBench",
        "",
        "Regenerate with:",
        "",
        f"    {command}",
        "",
        "GradBench's own Python evals (fetched, not part of this repository) drive each tool "
        "through GradBench's JSON protocol; `benchmarks/gradbench/run.py` relays the messages "
        "(GradBench's Rust orchestrator cannot be built here). One thread (BLAS, PyTorch and "
        "XLA single-threaded; each evaluation runs at least 5 times, ba's once). Answers are "
        "validated by the evals themselves, against "
        "GradBench's `manual` C++ tool built here. `jax` is the stock tool with its timer "
        "waiting for JAX's asynchronous results (`jax_blocking.py`); `pytorch` is the stock "
        "tool. Sizes: GradBench's defaults, reduced where Python takes too long (listed in "
        f"`EVALS` in run.py); each evaluation repeats for at least {min_seconds} s "
        "(GradBench's default is 1 s: the first run, with JAX's compile time or srcad's "
        "transform, weighs more here).",
        "",
        "**ratio** = mean derivative run ÷ mean primal run (GradBench's basis: every run, the "
        "first included); **best** = best derivative run ÷ best primal run (robust to the "
        "first run and to other work on the machine, as in benchmarks/run.py); **first** = "
        "the first derivative run (srcad: includes making the code; jax: compiling); "
        "**check** = the eval's verdict on primal / derivative.",
        "",
    ]
    by_eval = {}
    for r in records:
        by_eval.setdefault(r["eval"], []).append(r)
    summary = ["## Summary: derivative ÷ primal, summed over sizes (GradBench's basis: means; in "
               "brackets: the same from the best runs)", "",
               "| eval | " + " | ".join(TOOLS) + " |", "|---|" + "---|" * len(TOOLS)]
    for name, recs in by_eval.items():
        cells = []
        for tool in TOOLS:
            rec = next((r for r in recs if r["tool"] == tool), None)
            cells.append(_score(rec))
        summary.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += summary + [""] + _numba_against_jax(by_eval)
    for name, recs in by_eval.items():
        lines += [f"## {name}", "", "| tool | size | function | primal | derivative | ratio | "
                  "best | first | check |", "|---|---|---|---|---|---|---|---|---|"]
        for rec in recs:
            if rec["defined"] is False:
                err = (rec.get("define_error") or "not implemented").strip().splitlines()
                lines.append(f"| {rec['tool']} | — | — | — | — | — | — | — | undefined: "
                             f"{_cell(' '.join(err))} |")
                continue
            for desc, row in summarise(rec).items():
                p = _mean(row["primal"]["timings"]) if row["primal"] else None
                for d in row["derivs"]:
                    dm = _mean(d["timings"])
                    ratio = f"{dm / p:.2f}" if dm and p else "—"
                    ps, ds = _steady(row["primal"]["timings"] if row["primal"] else []), \
                        _steady(d["timings"])
                    steady = f"{ds / ps:.2f}" if ds and ps else "—"
                    first = _fmt(_stats(d["timings"])["first"] / 1e9) if d["timings"] else "—"
                    check = f"{_verdict(row['primal'])} / {_verdict(d)}"
                    if d.get("error"):
                        check += f": {_cell(d['error'])}"
                    elif d.get("check"):
                        check += f": {_cell(d['check'])}"
                    lines.append(f"| {rec['tool']} | {desc} | {d['function']} | {_fmt(p)} | "
                                 f"{_fmt(dm)} | {ratio} | {steady} | {first} | {check} |")
            if rec["outcome"] not in ("done", "undefined"):
                lines.append(f"| {rec['tool']} | — | — | — | — | — | — | — | {rec['outcome']} |")
        defines = [f"{r['tool']} {_fmt(r['define_ns'] / 1e9)}" for r in recs
                   if r.get("define_ns")]
        if defines:
            lines += ["", "Define (import; srcad makes its code here): " + ", ".join(defines)
                      + "."]
        lines.append("")
    notes = HERE / "notes.md"  # what the figures say, written by hand after a run
    if notes.exists():
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _size_ratios(rec):
    """size -> mean derivative ÷ mean primal, for each size ``rec`` timed validly."""
    out = {}
    for desc, row in summarise(rec).items() if rec and rec["defined"] is not False else ():
        p = _mean(row["primal"]["timings"]) if row["primal"] else None
        for d in row["derivs"]:
            dm = _mean(d["timings"])
            if p and dm and d["success"] and d["valid"] is not False:
                out[f"{desc} {d['function']}"] = dm / p
    return out


def _summed(rec, of=None):
    """Summed mean derivative ÷ summed mean primal over the sizes timed validly (inf: none);
    ``of=_steady``: the same from the best runs."""
    of = of or _mean
    p_sum = d_sum = 0.0
    for row in summarise(rec).values():
        p = of(row["primal"]["timings"]) if row["primal"] else None
        for d in row["derivs"]:
            dm = of(d["timings"])
            if p and dm and d["success"] and d["valid"] is not False:
                p_sum, d_sum = p_sum + p, d_sum + dm
    return d_sum / p_sum if p_sum else math.inf


def _jax_reference(recs):
    """The jax figure an eval is measured against: GradBench's stock tool where it has the
    eval, else the port written here (``jax_ports/``), and the tool's name."""
    stock = next((r for r in recs if r["tool"] == "jax"), None)
    port = next((r for r in recs if r["tool"] == "jax-ports"), None)
    if port is not None and (stock is None or stock["defined"] is False):
        return port, "jax-ports"
    return stock, "jax"


def _alone_times(rec):
    """function -> best run (s), for an eval timing derivatives alone (particle, saddle)."""
    out = {}
    for row in summarise(rec).values() if rec and rec["defined"] is not False else ():
        for d in row["derivs"]:
            if d["success"] and d["valid"] is not False and d["timings"]:
                out[d["function"]] = _steady(d["timings"])
    return out


def _numba_against_jax(by_eval):
    """The issue's target for srcad-numba: at or below jax's derivative ÷ primal, per eval
    (summed over sizes, as the summary) and size by size; jax is GradBench's stock tool, or
    where it has no module for the eval the port written here (``jax-ports``). An eval that
    times its derivatives alone (particle) is compared run time to run time, best runs."""
    lines = ["## srcad-numba against jax (the Numba backend's target: at or below jax's "
             "derivative ÷ primal)", "",
             "jax: GradBench's stock tool; **jax-ports**: where the stock tool has no module "
             "for the eval, a JAX version written in this repository (`jax_ports/`, not "
             "GradBench's). **meets it?** on GradBench's basis (means: jax's first run, "
             "which compiles, included) and, after the slash, on the best runs (jax.jit's "
             "steady state). particle has no primal: each variant's best run against jax's.",
             "", "| eval | srcad-numba | jax | jax tool | meets it? (means / best) | sizes "
             "at or below jax's (means) |", "|---|---|---|---|---|---|"]
    for name, recs in by_eval.items():
        numba = next((r for r in recs if r["tool"] == "srcad-numba"), None)
        if numba is None:
            continue
        jax, jax_tool = _jax_reference(recs)
        mine, theirs = _score(numba), _score(jax)
        ours, ref = _size_ratios(numba), _size_ratios(jax)
        shared = [k for k in ours if k in ref]
        alone, alone_ref = _alone_times(numba), _alone_times(jax)
        if not ours and (numba["outcome"] == "not run" or "failed" in mine
                         or "refused" in mine or mine == "undefined"):
            verdict = "no: " + ("not run" if numba["outcome"] == "not run" else "refused or "
                                "failed (see below)")
        elif not ours and alone and alone_ref:  # particle: run times, variant by variant
            shared = [k for k in alone if k in alone_ref]
            met = [k for k in shared if alone[k] <= alone_ref[k]]
            verdict = ("yes" if len(met) == len(shared) else
                       "no" if not met else f"partly: {', '.join(met)}")
            lines.append(f"| {name} | {mine} | {theirs} | {jax_tool} | {verdict} | "
                         f"{len(met)} of {len(shared)} variants |")
            continue
        elif not ours:
            verdict = "no jax figure" if not ref else "no ratio (derivatives timed alone)"
        elif not ref:
            verdict = "no jax figure"
        else:  # the summary's figures: summed derivative ÷ summed primal, jax's sizes
            verdict = ("yes" if _summed(numba) <= _summed(jax) else "no") + " / " + (
                "yes" if _summed(numba, _steady) <= _summed(jax, _steady) else "no")
        sizes = (f"{sum(ours[k] <= ref[k] for k in shared)} of {len(shared)}" if shared
                 else "—")
        lines.append(f"| {name} | {mine} | {theirs} | {jax_tool} | {verdict} | {sizes} |")
    return lines + [""]


def _score(rec):
    if rec is None:
        return "not run"
    if rec["defined"] is False:
        return "undefined"
    rows = summarise(rec)
    if rows and not any(row["primal"] for row in rows.values()):  # particle, saddle
        parts = []
        for row in rows.values():
            for d in row["derivs"]:
                best = _steady(d["timings"])
                parts.append(f"{d['function']} {_verdict(d)}"
                             + (f" {_fmt(best)}" if d["success"] and best else ""))
        return ", ".join(parts)
    p_sum = d_sum = ps_sum = ds_sum = 0.0
    bad = False
    for row in summarise(rec).values():
        if not row["primal"] or not row["derivs"]:
            continue
        p = _mean(row["primal"]["timings"])
        for d in row["derivs"]:
            dm = _mean(d["timings"])
            if dm is None or p is None or not d["success"] or d["valid"] is False:
                bad = True
                continue
            p_sum += p
            d_sum += dm
            ps_sum += _steady(row["primal"]["timings"])
            ds_sum += _steady(d["timings"])
    text = f"{d_sum / p_sum:.2f} ({ds_sum / ps_sum:.2f})" if p_sum else "—"
    if rec["outcome"] not in ("done",):
        text += f" ({rec['outcome']})"
    elif bad:
        text += " (some failed)"
    return text


def _merged(path, others):
    records = json.loads(path.read_text()) if path.exists() else []
    for other in others:
        new = json.loads(other.read_text())
        keys = {(r["eval"], r["tool"]) for r in new}
        records = [r for r in records if (r["eval"], r["tool"]) not in keys] + new
    return records


def _cell(text):
    text = " ".join(str(text).split()).replace(f"{REPO}/", "")  # paths from the repository
    return text.replace("|", "\\|")[:450]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evals", nargs="+", default=list(EVALS))
    parser.add_argument("--tools", nargs="+", default=None, choices=TOOLS,
                        help="default: srcad, jax and pytorch on every eval, and srcad-numba "
                        f"on {', '.join(NUMBA_EVALS)}")
    parser.add_argument("--backend", choices=("python", "numba"), default="python",
                        help="srcad's backend: numba runs the srcad tool as srcad-numba "
                        "(srcad.grad(..., backend='numba'); an eval it cannot compile is "
                        "reported refused, with the reason)")
    parser.add_argument("--gradbench", type=Path, default=Path("/tmp/gradbench"))
    parser.add_argument("--mirror", type=Path,
                        default=Path("/work/.mirror/gradbench+gradbench/repo"))
    parser.add_argument("--json-mirror", type=Path,
                        default=Path("/work/.mirror/nlohmann+json/repo"))
    parser.add_argument("--deps", default="/tmp/deps-gradbench")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds per eval and tool")
    parser.add_argument("--min-seconds", type=float, default=0.3,
                        help="each evaluation repeats for at least this long (GradBench: 1)")
    parser.add_argument("--cpu", type=int, default=-1,
                        help="pin the processes to this CPU (default: not pinned; one thread "
                        "each all the same)")
    parser.add_argument("--out", type=Path, default=HERE / "results.md")
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    parser.add_argument("--merge", type=Path, nargs="*", default=[],
                        help="records of other runs to add to --json first")
    parser.add_argument("--report-only", action="store_true",
                        help="write results.md from results.json without running anything")
    args = parser.parse_args()
    plan = [(e, t) for e in args.evals for t in (args.tools or DEFAULT_TOOLS)]
    if args.tools is None:
        plan += [(e, "srcad-numba") for e in args.evals if e in NUMBA_EVALS]
    if args.backend == "numba":
        plan = [(e, "srcad-numba" if t == "srcad" else t) for e, t in plan]
    plan = [(e, t) for e, t in plan if t != "jax-ports" or e in PORTS]
    plan = sorted(set(plan), key=lambda p: (list(EVALS).index(p[0]), TOOLS.index(p[1])))
    if args.report_only:
        args.evals, plan = [], []
    elif not (args.gradbench / "python/gradbench").exists():
        extract(args.mirror, args.gradbench)
    if args.evals:
        fill_missing(args.gradbench)
    if args.evals and not (args.gradbench / "tools/manual/bin/lse").exists():
        build_manual(args.gradbench, args.json_mirror)
    if args.merge:  # add another run's records (made in parallel on another CPU)
        args.json.write_text(json.dumps(_merged(args.json, args.merge), indent=1))
    old = json.loads(args.json.read_text()) if args.json.exists() else []
    for rec in old:  # records written with every run's time
        for entry in rec["evaluations"].values():
            entry["timings"] = _stats(entry["timings"])
    records = [r for r in old if (r["eval"], r["tool"]) not in set(plan)]
    for eval_name, tool in plan:
        start = time.monotonic()
        rec = run_one(eval_name, tool, args.gradbench, args.deps, args.timeout,
                      args.min_seconds, args.cpu)
        print(f"{eval_name:9} {tool:11} {rec['outcome']:10} {_score(rec):>24} "
              f"({time.monotonic() - start:.0f} s)", flush=True)
        records.append(rec)
        args.json.write_text(json.dumps(records, indent=1))
    order = {e: i for i, e in enumerate(EVALS)}
    records.sort(key=lambda r: (order.get(r["eval"], 99), TOOLS.index(r["tool"])))
    args.json.write_text(json.dumps(records, indent=1))
    write_results(records, args.out,
                  "/work/main/.venv/bin/python benchmarks/gradbench/run.py", args.min_seconds)


if __name__ == "__main__":
    main()
