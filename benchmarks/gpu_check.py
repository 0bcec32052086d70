"""srcad's gradients on a GPU (CuPy arrays): equal to NumPy's, and how long they take.

    python benchmarks/gpu_check.py              # the check, then timings of the logistic loss
    python benchmarks/gpu_check.py --rows 4000000
    python benchmarks/gpu_check.py --rules      # also every example of the rule table
    python benchmarks/gpu_check.py --rules --standin   # the table's sweep without a GPU, on
                                                        # tests/device_standin.py's arrays

The same plain NumPy functions as tests/test_cupy.py (tests/array_family.py: the logistic and
least-squares losses, elementwise chains, reductions over each axis, broadcasting, products,
and np.sort and scipy.linalg, which srcad calls in CuPy's own form: srcad/runtime/routes.py)
are differentiated with CuPy arrays and with NumPy arrays; each gradient must agree to 1e-12
(relative to its largest entry). Then the logistic loss's gradient is timed on both at
``--rows`` x ``--features``. Without CuPy or without a GPU it says so and exits 0: run it on a
machine that has one. It is not part of the test run (the tests skip there); the exit status is
1 when a gradient differs.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

from array_family import FAMILY, INDEXING, ROUTED, W_NP, X_NP, Y_NP, logistic  # noqa: E402

import srcad  # noqa: E402


def gpu():
    """CuPy, or None (with the reason printed) when there is no GPU to run on."""
    try:
        import cupy as cp
    except ImportError:
        print("gpu_check: CuPy is not installed (pip install cupy-cuda12x); nothing to check")
        return None
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 (CuPy raises its own errors without a driver)
        print(f"gpu_check: no GPU ({exc}); nothing to check")
        return None
    if not count:
        print("gpu_check: no GPU; nothing to check")
        return None
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    print(f"gpu_check: {count} GPU(s), the first a {name}")
    return cp


def check(cp):
    """Every function of the family, and the indexing cases, on the GPU against NumPy; the
    number that differ or crash (a refusal, BackendError, is not counted: CuPy may lack
    np.add.at)."""
    wrong = 0
    cases = [(f, (0, 1, 2), (W_NP, X_NP, Y_NP)) for f in FAMILY + ROUTED]
    cases += [(f, 0, (X_NP[:6],)) for f, _ in INDEXING]
    for f, wrt, args in cases:
        want = srcad.grad(f, wrt=wrt)(*args)
        try:
            got = srcad.grad(f, wrt=wrt)(*(cp.asarray(a) for a in args))
            got, want = (got, want) if isinstance(wrt, tuple) else ((got,), (want,))
            error = max(float(np.max(np.abs(cp.asnumpy(g) - r))) / max(1.0, np.max(np.abs(r)))
                        for g, r in zip(got, want))
            status = "PASS" if error <= 1e-12 else "WRONG"
            detail = f"relative error {error:.1e}"
        except srcad.SrcadError as exc:
            status, detail = "REFUSED", str(exc).splitlines()[0]
        except Exception as exc:  # noqa: BLE001 (a crash is reported, the check goes on)
            status, detail = "CRASH", f"{type(exc).__name__}: {exc}"
        wrong += status in ("WRONG", "CRASH")
        print(f"  {status:8} {f.__name__:28} {detail}")
    return wrong


def rule_sweep(to_device, to_host, is_device):
    """Every example of the rule table (tests/test_forward_rules.py) with an array argument,
    its arrays on the device: the gradient must be a device array equal to NumPy's to 1e-12
    (PASS), or NumPy's numbers in a NumPy array or list (HOST), or a refusal (REFUSED); WRONG
    and CRASH are counted as failures. Returns their number."""
    import collections
    import warnings

    import test_forward_rules as T

    counts = collections.Counter()
    for case in T.CASES:
        s, args, wrt = T.scalar_case(case)
        if not any(isinstance(a, np.ndarray) and a.ndim for a in args):
            continue
        try:
            want = srcad.grad(s, wrt=wrt)(*args)
        except Exception:  # noqa: BLE001 (not differentiated on NumPy: not this check's)
            continue
        dargs = tuple(to_device(a) if isinstance(a, np.ndarray) and a.ndim else a for a in args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                s(*dargs)
            except Exception:  # noqa: BLE001 (the function itself needs NumPy arrays)
                counts["the function itself fails"] += 1
                continue
            try:
                got = srcad.grad(s, wrt=wrt)(*dargs)
                status = "PASS"
                for g, w in zip(got, want):
                    host = to_host(g)
                    host = np.stack(host) if isinstance(host, list) else np.asarray(host)
                    scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
                    if np.max(np.abs(host - w), initial=0.0) > 1e-12 * scale:
                        status = "WRONG"
                        break
                    if np.ndim(w) and not is_device(g):
                        status = "HOST"
            except srcad.SrcadError as exc:
                status = "REFUSED"
                print(f"  REFUSED  {case[1][:60]}: {str(exc).splitlines()[0][:160]}")
            except Exception as exc:  # noqa: BLE001 (a crash is reported, the sweep goes on)
                status = "CRASH"
                print(f"  CRASH    {case[1][:60]}: {type(exc).__name__}: {exc}")
        counts[status] += 1
        if status == "WRONG":
            print(f"  WRONG    {case[1][:60]}")
    print("rule table:", ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return counts["WRONG"] + counts["CRASH"]


def timed(fn, sync, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def timings(cp, rows, features):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, features))
    y = (rng.random(rows) > 0.5) * 1.0
    w = np.zeros(features)
    grad = srcad.grad(logistic)
    on_gpu = (cp.asarray(w), cp.asarray(X), cp.asarray(y))
    grad(*on_gpu)  # the first call makes the code

    def sync():
        cp.cuda.Device().synchronize()

    cpu = timed(lambda: grad(w, X, y), lambda: None)
    gpu_time = timed(lambda: grad(*on_gpu), sync)
    print(f"logistic loss, {rows:,} x {features}: NumPy {cpu * 1e3:.1f} ms, "
          f"CuPy {gpu_time * 1e3:.1f} ms a gradient ({cpu / gpu_time:.1f}x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--rules", action="store_true",
                        help="also differentiate every example of the rule table")
    parser.add_argument("--standin", action="store_true",
                        help="no GPU: the rule table's sweep on tests/device_standin.py")
    args = parser.parse_args()
    if args.standin:
        from device_standin import Device, on_device, to_host

        return 1 if rule_sweep(on_device, to_host, lambda g: isinstance(g, Device)) else 0
    cp = gpu()
    if cp is None:
        return 0
    wrong = check(cp)
    if args.rules:
        wrong += rule_sweep(cp.asarray, lambda g: cp.asnumpy(g) if isinstance(g, cp.ndarray)
                            else ([cp.asnumpy(v) for v in g] if isinstance(g, list) else g),
                            lambda g: isinstance(g, cp.ndarray))
    timings(cp, args.rows, args.features)
    total = len(FAMILY) + len(ROUTED) + len(INDEXING)
    print(f"gpu_check: {total - wrong} of {total} functions as NumPy or refused")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
