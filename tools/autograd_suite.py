"""Differential testing: HIPS autograd's own test suite, run with srcad as the engine.

    python tools/autograd_suite.py [MIRROR] [--json OUT] [--jobs N] [--timeout S] [--files a,b]

MIRROR is a clone of https://github.com/HIPS/autograd (a work tree or a git directory; default
/work/.mirror/HIPS+autograd/repo). Its ``tests/`` are read at run time, never copied into this
repository. Each test function runs in a fresh subprocess (``tools/autograd_shim.py`` is the
worker side) with a timeout, so a hang or a hard crash costs one test only.

Every item gets one outcome:

    PASS             srcad's derivatives agree with finite differences of the original function
    WRONG            srcad returned a derivative (or value) that disagrees
    REFUSED          srcad raised a srcad.SrcadError
    CRASH            another exception from inside srcad or its generated code, or a timeout
    SKIP             the test exercises autograd internals (boxes, tracers, vspaces, primitive)
    UNSUPPORTED-API  the test calls an autograd operator srcad has no counterpart for
    ERROR            the test code itself failed outside srcad (a harness or NumPy difference)

Items are the test functions, except that each of ``combo_check``'s combinations is an item of
its own. The per-file table is printed; ``--json`` writes every item's outcome, exception type
and first message line.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MIRROR = "/work/.mirror/HIPS+autograd/repo"
OUTCOMES = ["PASS", "WRONG", "REFUSED", "CRASH", "SKIP", "UNSUPPORTED-API", "ERROR"]
NOT_TESTS = {"conftest.py", "numpy_utils.py", "profiling.py", "_test_complexity.py"}


def extract_tests(mirror, dest):
    """Copy the mirror's tests/ into ``dest`` (from a work tree or from git's HEAD)."""
    work = os.path.join(mirror, "tests")
    if os.path.isdir(work):
        shutil.copytree(work, dest, dirs_exist_ok=True)
        return
    try:
        data = subprocess.run(["git", "-C", mirror, "archive", "HEAD", "tests"],
                              capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"autograd_suite: cannot read tests/ from the mirror {mirror!r} ({e}).\n"
                 "Clone https://github.com/HIPS/autograd and pass its path.")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(os.path.dirname(dest), filter="data")


def _worker_command(*args):
    return [sys.executable, os.path.abspath(__file__), *args]


def _items(stdout):
    out = []
    for line in stdout.splitlines():
        if line.startswith("@@ITEM "):
            out.append(json.loads(line[len("@@ITEM "):]))
    return out


def _env(pythonpath, tmp):
    env = dict(os.environ)
    env["AUTOGRAD_SUITE_TMP"] = tmp
    parts = [ROOT] + ([pythonpath] if pythonpath else [])
    if env.get("PYTHONPATH"):
        parts.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def run_file(tests_dir, filename, timeout, env, wanted):
    """One worker process per test file; it forks a child per test (see ``worker``)."""
    args = ["--file", tests_dir, filename, str(timeout), *sorted(wanted)]
    try:
        p = subprocess.run(_worker_command(*args), capture_output=True, text=True, env=env,
                           timeout=timeout * 50 + 600)
        out, code, err = p.stdout, p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        code, err = "timeout", "the file's worker ran out of time"
    items = _items(out)
    if not items or code not in (0,):
        lines = [ln for ln in (err or "").strip().splitlines() if ln.strip()]
        message = lines[-1] if lines else f"exit code {code}"
        if "@@LOADED" not in out:
            items.append({"item": filename, "outcome": "ERROR", "exception": "ImportError",
                          "message": message[:300]})
        elif code != 0:
            items.append({"item": filename, "outcome": "CRASH", "exception": "WorkerDied",
                          "message": message[:300]})
    for item in items:
        item["file"] = filename
    return items


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mirror", nargs="?", default=DEFAULT_MIRROR)
    ap.add_argument("--json", default="autograd-suite.json", help="where to write every item")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per test function")
    ap.add_argument("--files", default="", help="comma-separated test files (default: all)")
    ap.add_argument("--tests", default="", help="comma-separated test names (default: all)")
    ap.add_argument("--pythonpath", default="",
                    help="extra import path for the workers (e.g. where SciPy is installed)")
    ap.add_argument("--name-lambdas", action="store_true",
                    help="rename lambdas before srcad sees them (looks past srcad's dispatch "
                         "crash on def <lambda>)")
    ap.add_argument("--quiet", action="store_true", help="print only the table")
    args = ap.parse_args(argv)
    if not os.path.exists(args.mirror):
        sys.exit(f"autograd_suite: no autograd mirror at {args.mirror!r}.\n"
                 "Clone https://github.com/HIPS/autograd and pass its path as the argument.")
    tmp = tempfile.mkdtemp(prefix="autograd-suite-")
    env = _env(args.pythonpath, tmp)
    if args.name_lambdas:
        env["AUTOGRAD_SUITE_NAME_LAMBDAS"] = "1"
    try:
        tests_dir = os.path.join(tmp, "tests")
        extract_tests(args.mirror, tests_dir)
        files = sorted(f for f in os.listdir(tests_dir)
                       if f.startswith("test_") and f.endswith(".py") and f not in NOT_TESTS)
        if args.files:
            wanted = {f if f.endswith(".py") else f + ".py" for f in args.files.split(",")}
            files = [f for f in files if f in wanted]
        wanted_tests = set(filter(None, args.tests.split(",")))
        items = []
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(run_file, tests_dir, f, args.timeout, env, wanted_tests)
                       for f in files]
            for future in futures:
                done = future.result()
                items += done
                if not args.quiet:
                    for item in done:
                        print(f"{item['outcome']:<16}{item['file']}::{item['item']}"
                              + (f"  {item.get('exception')}: {item.get('message', '')}"
                                 if item["outcome"] != "PASS" else ""), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    table = summarise(items)
    print(table)
    print()
    print(summarise_stages(items))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"totals": totals(items), "items": items}, f, indent=1, default=str)
    return 0


def totals(items):
    return dict(collections.Counter(i["outcome"] for i in items))


STAGES = [("fwd", "forward, order 1"), ("rev", "reverse, order 1"),
          ("fwd2", "forward over reverse, order 2"), ("rev2", "reverse over reverse, order 2")]


def summarise_stages(items):
    """Per stage of the gradient checks (an item's outcome is its worst stage's)."""
    counts = {label: collections.Counter() for label, _ in STAGES}
    for item in items:
        for part in (item.get("stage") or "").split():
            label, _, outcome = part.partition(":")
            if label in counts:
                counts[label][outcome] += 1
    names = ["PASS", "WRONG", "REFUSED", "CRASH", "ERROR"]
    rows = ["| stage | checked | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 2)]
    for label, title in STAGES:
        c = counts[label]
        rows.append(f"| {title} | {sum(c.values())} | " + " | ".join(str(c[n]) for n in names)
                    + " |")
    return "\n".join(rows)


def summarise(items):
    by_file = collections.defaultdict(collections.Counter)
    for i in items:
        by_file[i["file"]][i["outcome"]] += 1
    head = "| file | items | " + " | ".join(OUTCOMES) + " |"
    rows = [head, "|" + "---|" * (len(OUTCOMES) + 2)]
    total = collections.Counter()
    for f in sorted(by_file):
        c = by_file[f]
        total += c
        rows.append(f"| {f} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOMES)
                    + " |")
    rows.append(f"| **total** | {sum(total.values())} | "
                + " | ".join(str(total[o]) for o in OUTCOMES) + " |")
    return "\n".join(rows)


def worker(argv):
    """Import the test file once, then run each test in a forked child with a timeout."""
    tests_dir, filename, timeout, wanted = argv[0], argv[1], float(argv[2]), set(argv[3:])
    sys.path.insert(0, ROOT)
    sys.path.insert(0, HERE)
    import autograd_shim

    stream = sys.stdout
    sys.stdout = sys.stderr  # the tests' own prints stay out of the item stream
    module = autograd_shim.load(tests_dir, filename)
    stream.write("@@LOADED\n")
    stream.flush()
    for test_id in autograd_shim.test_ids(module):
        if wanted and test_id.partition("[")[0] not in wanted:
            continue
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                autograd_shim.run_test(module, test_id, stream)
                stream.flush()
            except BaseException:
                code = 1
            os._exit(code)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                _emit(stream, test_id, "Timeout", f"no result within {timeout:g} s")
                break
            time.sleep(0.02)
        if done and status != 0:
            how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                   else f"exit code {os.WEXITSTATUS(status)}")
            _emit(stream, test_id, "ProcessDied", f"the test's process ended with {how}")


def _emit(stream, test_id, exception, message):
    record = {"item": test_id, "outcome": "CRASH", "exception": exception, "message": message}
    stream.write("@@ITEM " + json.dumps(record) + "\n")
    stream.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--file":
        worker(sys.argv[2:])
    else:
        sys.exit(main())
