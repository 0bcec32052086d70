"""Run a Tangent fork's own test files with srcad as their autodiff engine.

    python tools/tangent_tests.py [--repo PATH] [--only FILE ...] [--json F]

The maintained fork of Google's Tangent (github:pedronahum/tangent; default path
``/work/.mirror/pedronahum+tangent/repo``, fetched, never copied into this repository) has
test files of ordinary Python differentiated by ``tangent.grad``: classes and inheritance,
slicing, loops and branches, tuple returns, small networks, Newton iterations. Each file runs
under pytest in its own process, from a copy of the fork's ``tests/`` folder, with ``tangent``
being ``tools/tangent_shim.py`` (its docstring says what that stands for; the tests' code is
not touched). Every derivative is also checked against central finite differences.

Per test: PASS; WRONG (srcad's derivative disagrees with finite differences); REFUSED (a
``SrcadError``); CRASH (any other exception raised inside srcad); MISMATCH (the test's own
assertion fails on a derivative the finite differences accept: a convention of Tangent's the
shim does not reproduce, or an expectation of the test's own; read the message);
UNSUPPORTED (Tangent's own machinery: its AST passes, caches, TensorFlow); ERROR (the test
fails outside srcad); SKIP. A file that imports Tangent's internals at the top counts once, as
UNSUPPORTED.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from tangent_suite import summarise  # noqa: E402

DEFAULT_REPO = "/work/.mirror/pedronahum+tangent/repo"
ORDER = ("WRONG", "CRASH", "REFUSED", "MISMATCH", "ERROR", "UNSUPPORTED", "SKIP", "PASS")


def extract(repo, target):
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD", "tests"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", target], input=archive, check=True)
    shim = os.path.join(target, "shim", "tangent")
    os.makedirs(shim)
    with open(os.path.join(shim, "__init__.py"), "w") as f:
        f.write("from tangent_shim import *  # noqa\n"
                "from tangent_shim import missing as __getattr__  # noqa\n")
    with open(os.path.join(shim, "grad_util.py"), "w") as f:
        f.write("from tangent_shim import INPUT_DERIVATIVE, grad, autodiff  # noqa\n")
    return os.path.join(target, "tests")


def classify(record, wrong):
    outcome, message = record["outcome"], record["message"]
    if wrong:
        return "WRONG", wrong
    if outcome == "passed":
        return "PASS", ""
    if outcome == "skipped":
        return "SKIP", message
    if "Unsupported" in message or "tangent_shim" in message and "Unsupported" in message:
        return "UNSUPPORTED", message
    if "srcad.errors" in message or "Error: " in message and any(
            name in message for name in ("UnsupportedSyntaxError", "MissingRuleError",
                                         "MutationError", "NonScalarOutputError",
                                         "SourceUnavailableError", "WrtError", "SrcadError",
                                         "RuleError", "BackendError")):
        return "REFUSED", message
    if "AssertionError" in message or message.startswith("E       assert") or " assert " in message:
        return "MISMATCH", message
    if record.get("srcad"):
        return "CRASH", message
    return "ERROR", message


def run_file(folder, name, seconds):
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as log:
        path = log.name
    env = dict(os.environ, SRCAD_TANGENT_LOG=path, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(folder), "shim"), HERE,
                                           folder, os.path.dirname(HERE)]))
    try:
        subprocess.run([sys.executable, "-m", "pytest", "-q",
                        "-p", "no:cacheprovider", "-p", "tangent_shim", "-o", "addopts=",
                        "--noconftest",
                        "--rootdir", folder, name], cwd=folder, env=env, capture_output=True,
                       text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    records = []
    with open(path) as f:
        for line in f:
            records.append(json.loads(line))
    os.unlink(path)
    wrong = {}
    for r in records:
        if r["kind"] == "WRONG":
            wrong.setdefault(r["test"].split("::", 1)[-1], r["message"])
    results = {}
    for r in records:
        if r["kind"] != "outcome":
            continue
        test = r["test"].split("::", 1)[-1] if "::" in r["test"] else r["test"]
        if r["when"] == "collect" or "::" not in r["test"]:
            results[f"{name} (the file)"] = ("UNSUPPORTED" if "tangent" in r["message"]
                                             else "ERROR", r["message"])
            continue
        verdict = classify(r, wrong.get(test))
        previous = results.get(f"{name}::{test}")
        if previous is None or ORDER.index(verdict[0]) < ORDER.index(previous[0]):
            results[f"{name}::{test}"] = verdict
    if not results:
        results[f"{name} (the file)"] = ("ERROR", "no test ran (a collection error?)")
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--only", nargs="*", default=())
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.repo):
        print(f"no mirror at {args.repo}: fetch github:pedronahum/tangent first")
        return 2
    results = {}
    with tempfile.TemporaryDirectory() as target:
        folder = extract(args.repo, target)
        names = sorted(n for n in os.listdir(folder) if n.startswith("test_") and n.endswith(".py"))
        for name in names:
            if args.only and name not in args.only:
                continue
            for test, (outcome, message) in run_file(folder, name, args.seconds).items():
                results[test] = {"outcome": outcome, "message": message}
                if outcome != "PASS":
                    print(f"{outcome:12s} {test}: {message}"[:400], flush=True)
    return summarise(results, ORDER, "tests", args.json)


if __name__ == "__main__":
    sys.exit(main())
