"""Run a second corpus of public programs (not autograd's own examples) with srcad.

    python tools/corpus_programs.py [--seconds 30] [--pythonpath DIR] [--only NAME ...]

Each program is a file of a public repository that takes derivatives with autograd, read at
run time from a fetched copy (``fetch github:OWNER/NAME``; ``/work/.mirror/OWNER+NAME/repo``),
never copied into this repository. The repository's committed files are extracted into a
temporary folder (so a program finds its data files) and the program runs there under
``tools/example_shim.py``: only its ``autograd`` imports are pointed at NumPy, SciPy and srcad,
and every derivative's first calls are checked against finite differences. The outcomes are
those of ``tools/example_programs.py`` (PASS, WRONG, REFUSED, CRASH, ...).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from example_programs import run_one  # noqa: E402

MIRRORS = "/work/.mirror"
#: (repository, path of the program in it): programs from public projects' folders
CORPUS = [
    ("imyoungmin/DENN", "ODE.py"),
    ("imyoungmin/DENN", "PDE.py"),
    ("cpsource/PlayWithAI", "finance/WMT/autograd/zautograd.py"),
    # gradient estimators for discrete variables (REINFORCE, concrete, REBAR, RELAX): estimators
    # built from elementwise_grad, value_and_grad and make_vjp of sampled objectives
    ("duvenaud/relax", "relax-autograd/demo_concrete.py"),
    ("duvenaud/relax", "relax-autograd/demo_rebar.py"),
    ("duvenaud/relax", "relax-autograd/demo_reinforce.py"),
    ("duvenaud/relax", "relax-autograd/demo_relax.py"),
    ("duvenaud/relax", "relax-autograd/tests.py"),
    # black-box variational inference as a base class with abstract model methods
    ("jamesvuc/BBVI", "Examples/BBVI_test1.py"),
    ("jamesvuc/BBVI", "Examples/BBVI_test2.py"),
    ("jamesvuc/BBVI", "Examples/BBVI_test3.py"),
    # talk demos: derivatives of tanh to high order, a sinusoid and its Taylor series
    ("HIPS/hypergrad", "talks/code/tanh.py"),
    ("HIPS/hypergrad", "talks/code/sinusoid.py"),
    ("HIPS/hypergrad", "talks/code/sinusoid-taylor.py"),
    ("mattjj/autodidact", "examples/tanh.py"),
    # a learner's scripts: autograd's README example and a regression model
    ("richardmyu/python-demo", "my-collect/feature/test-autograd/test-autograd.py"),
    ("richardmyu/python-demo", "my-collect/feature/test-autograd/test-autograd-regression-model.py"),
]


def extract(repo_dir, target, folder=""):
    """The repository's committed files in ``target``; only ``folder``'s when the snapshot
    lacks some large file elsewhere (a fetched snapshot may list files it does not hold)."""
    done = subprocess.run(["git", "-C", repo_dir, "archive", "HEAD"], capture_output=True)
    if done.returncode != 0:
        done = subprocess.run(["git", "-C", repo_dir, "archive", "HEAD", folder or "."],
                              check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", target], input=done.stdout, check=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--pythonpath", help="extra packages (e.g. a --target install of scipy)")
    args = parser.parse_args(argv)
    counts = {}
    for repo, path in CORPUS:
        name = f"{repo}:{path}"
        if args.only and not any(o in name for o in args.only):
            continue
        repo_dir = os.path.join(MIRRORS, repo.replace("/", "+"), "repo")
        if not os.path.isdir(repo_dir):
            result = {"outcome": "ENVIRONMENT", "message": f"fetch github:{repo} first",
                      "seconds": 0.0}
        else:
            with tempfile.TemporaryDirectory(prefix="srcad-corpus-") as tmp:
                extract(repo_dir, tmp, os.path.dirname(path))
                folder = os.path.join(tmp, os.path.dirname(path))
                result = run_one(folder, os.path.basename(path), args.seconds, args.pythonpath)
        counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
        where = f" at {result['where']}" if result.get("where") else ""
        message = f": {result['message']}" if result.get("message") else ""
        print(f"{result['outcome']:<16} {name:<40} checks={result.get('checks', 0):<3} "
              f"{result['seconds']:>6.1f}s{where}{message}", flush=True)
    print("TOTAL " + " ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("WRONG") else 0


if __name__ == "__main__":
    sys.exit(main())
