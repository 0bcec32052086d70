"""Run public example programs, unchanged, with srcad as their autodiff engine.

    python tools/example_programs.py [--repo PATH] [--seconds 60] [--only NAME ...] [--json F]

Reads HIPS/autograd's ``examples/`` folder (and its subfolders: ``fluidsim/``) at run time from a
fetched copy of the repository (``fetch github:HIPS/autograd``; default path
``/work/.mirror/HIPS+autograd/repo``), never
copied into this repository. Each program runs in its own process under
``tools/example_shim.py`` (read its docstring: only the ``autograd`` imports are pointed at
NumPy, SciPy and srcad; every derivative's first calls are checked against finite differences)
for at most ``--seconds`` (a program still training correctly when the time is up passes).

Programs that download MNIST get a small synthetic MNIST in the same file format instead
(there is no network here); that changes their data, not their code.

Prints one line per program: PASS, WRONG, REFUSED (a ``SrcadError``), CRASH (any other exception
from srcad or from the program under srcad), UNSUPPORTED-API (autograd internals such as
``primitive``), NO-GRADIENT (the program takes no derivative), ENVIRONMENT (a missing package or
file) or TIMEOUT (no derivative checked in time), with the first error and where it happened.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REPO = "/work/.mirror/HIPS+autograd/repo"
#: files of the folder that are libraries of the others, not programs
NOT_PROGRAMS = {"__init__.py", "data.py", "data_mnist.py"}


def extract(repo, target):
    """Write the repository's examples/ folder (as committed) into ``target``."""
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD", "examples"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", target], input=archive, check=True)
    return os.path.join(target, "examples")


def fake_mnist(folder, n_train=600, n_test=100):
    """MNIST's four files, in its format, with random images: no download."""
    data = os.path.join(folder, "data")
    os.makedirs(data, exist_ok=True)
    rng = np.random.default_rng(0)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        with gzip.open(os.path.join(data, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with gzip.open(os.path.join(data, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def programs(folder):
    """The programs of the folder and its subfolders (``fluidsim/wing.py``): relative paths."""
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if os.path.isdir(path):
            yield from (os.path.join(entry, n) for n in sorted(os.listdir(path))
                        if n.endswith(".py") and n not in NOT_PROGRAMS)
        elif entry.endswith(".py") and entry not in NOT_PROGRAMS:
            yield entry


def run_one(folder, name, seconds, pythonpath):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [p for p in (pythonpath, os.path.dirname(HERE), os.environ.get("PYTHONPATH")) if p]),
        MPLBACKEND="Agg", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, os.path.join(HERE, "example_shim.py"),
                               os.path.join(folder, name), str(seconds)],
                              cwd=os.path.dirname(os.path.join(folder, name)), env=env,
                              capture_output=True, text=True, timeout=seconds + 60)
        out = proc.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += '\n@@RESULT {"outcome": "TIMEOUT", "message": "did not stop"}\n'
        proc = None
    result = None
    for line in out.splitlines():
        if line.startswith("@@RESULT "):
            result = json.loads(line[len("@@RESULT "):])
    if result is None:
        tail = (proc.stderr if proc else "").strip().splitlines()[-1:] or ["no result"]
        result = {"outcome": "CRASH", "message": tail[0][:300]}
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=DEFAULT_REPO)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--pythonpath", help="extra packages (e.g. a --target install of scipy)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.repo):
        print(f"no repository at {args.repo}: fetch github:HIPS/autograd first", file=sys.stderr)
        return 2
    results = {}
    with tempfile.TemporaryDirectory(prefix="srcad-examples-") as tmp:
        folder = extract(args.repo, tmp)
        fake_mnist(folder)
        names = sorted(programs(folder))
        if args.only:
            names = [n for n in names if n in args.only or n[:-3] in args.only
                     or os.path.basename(n)[:-3] in args.only]
        for name in names:
            result = results[name] = run_one(folder, name, args.seconds, args.pythonpath)
            where = f" at {result['where']}" if result.get("where") else ""
            message = f": {result['message']}" if result.get("message") else ""
            print(f"{result['outcome']:<16} {name:<40} checks={result.get('checks', 0):<3} "
                  f"kinks={result.get('kinks', 0):<3} {result['seconds']:>6.1f}s{where}{message}",
                  flush=True)
    counts = {}
    for r in results.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print("TOTAL " + " ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if counts.get("WRONG") else 0


if __name__ == "__main__":
    sys.exit(main())
