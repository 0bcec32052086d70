"""Logistic regression fitted by gradient descent on more data than the workers may hold.

    python examples/dask_logistic_regression.py          # 256 MB of data: a quick check
    python examples/dask_logistic_regression.py --size 4GB --memory-limit 500MB --workers 2
    python examples/dask_logistic_regression.py --numpy --size 1GB    # the same fit in memory

The loss is plain NumPy code; ``srcad.grad`` differentiates it once, and the same generated
code runs on Dask arrays: the data ``X`` (``--size`` bytes of float64) is generated chunk by
chunk from a seed and never held whole, so every step of the descent regenerates it, chunk by
chunk, on a ``dask.distributed.LocalCluster`` whose workers may each use ``--memory-limit``
bytes (Dask pauses a worker at 80% of its limit and restarts it at 95%, so a run that finishes
ran within it; a worker process needs about 150 MB of that for Python, NumPy and Dask
themselves). The default size is small, to run in seconds; the larger run above is 4x the
memory its workers may use. The gradient srcad returns for Dask data is a lazy Dask array;
``dask.compute`` computes it with the loss in one pass over the data. A text progress bar
follows the steps; the end prints the time and the peak memory (resident set) of each
process.

With ``--numpy`` the data is made in memory as one NumPy array instead (the same numbers) and
the same fit runs on it, for comparison: docs/larger-than-memory.md has both measured.
"""

import argparse
import resource
import sys
import time

import numpy as np

import srcad

try:
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster
except ImportError:
    dask = None


def loss(w, X, y):
    """The mean logistic loss of the weights ``w`` on the data (plain NumPy, no Dask in it)."""
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 1e-4 * np.sum(w * w)


def size_in_bytes(text):
    units = {"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "B": 1}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(float(text))


def data(n_bytes, features, chunk_rows, seed=0):
    """``X`` (rows x features) and labels ``y`` drawn from a known logistic model, as lazy
    Dask arrays generated chunk by chunk, and the model's weights."""
    rows = max(chunk_rows, n_bytes // (8 * features))
    truth = np.random.default_rng(seed).normal(size=features)
    X = da.random.default_rng(seed + 1).standard_normal((rows, features),
                                                       chunks=(chunk_rows, features))
    p = 1 / (1 + da.exp(-(X @ truth)))
    y = (da.random.default_rng(seed + 2).random(rows, chunks=chunk_rows) < p) * 1.0
    return X, y, truth


def bar(step, steps, text, width=30):
    done = int(width * step / steps)
    line = f"[{'#' * done}{'.' * (width - done)}] {step}/{steps} {text}"
    if sys.stdout.isatty():
        print("\r" + line, end="\n" if step == steps else "", flush=True)
    else:
        print(line, flush=True)


def fit(grad_and_loss, w, steps, rate):
    """Gradient descent: ``steps`` steps of size ``rate``; the loss of each step shown."""
    for step in range(1, steps + 1):
        value, g = grad_and_loss(w)
        w = w - rate * g
        bar(step, steps, f"loss {value:.6f}")
    return w


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="256MB", help="bytes of data (default 256MB)")
    parser.add_argument("--memory-limit", default="400MB",
                        help="memory each worker may use (default 400MB)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="threads per worker")
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--chunk-rows", type=int, default=125_000)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--numpy", action="store_true",
                        help="the same fit on the data made in memory as NumPy arrays")
    args = parser.parse_args()
    if dask is None:
        print("This example needs Dask: pip install 'srcad[dask]' (skipped).")
        return
    n_bytes = size_in_bytes(args.size)
    limit = size_in_bytes(args.memory_limit)
    X, y, truth = data(n_bytes, args.features, args.chunk_rows)
    w0 = np.zeros(args.features)
    value_and_grad = srcad.value_and_grad(loss)
    print(f"data: X {X.shape[0]:,} x {X.shape[1]} float64 = {X.nbytes / 1e9:.2f} GB in "
          f"{X.npartitions} chunks of {X.nbytes / X.npartitions / 1e6:.0f} MB")
    start = time.perf_counter()
    if args.numpy:
        with dask.config.set(scheduler="threads"):
            Xn, yn = dask.compute(X, y)  # the whole data in memory, as NumPy arrays
        made = time.perf_counter() - start
        print(f"NumPy in memory ({made:.1f} s to make the data)")
        w = fit(lambda w: value_and_grad(w, Xn, yn), w0, args.steps, args.rate)
        took = time.perf_counter() - start
        print(f"time {took:.1f} s ({(took - made) / args.steps:.2f} s a step); "
              f"peak memory of the process {peak_rss_mb():.0f} MB")
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads,
                               memory_limit=limit, processes=True, dashboard_address=None)
        with cluster, Client(cluster) as client:
            allowed = args.workers * limit
            print(f"workers: {args.workers} x {limit / 1e6:.0f} MB = {allowed / 1e6:.0f} MB "
                  f"allowed; the data is {X.nbytes / allowed:.1f}x that")
            w = fit(lambda w: dask.compute(*value_and_grad(w, X, y)), w0, args.steps,
                    args.rate)
            took = time.perf_counter() - start
            peaks = client.run(peak_rss_mb)
            print(f"time {took:.1f} s ({took / args.steps:.2f} s a step); peak memory of each "
                  f"worker {', '.join(f'{p:.0f}' for p in peaks.values())} MB "
                  f"(limit {limit / 1e6:.0f} MB); of this process {peak_rss_mb():.0f} MB")
    cosine = float(w @ truth / np.linalg.norm(w) / np.linalg.norm(truth))
    print(f"cosine between the fitted weights and the true ones: {cosine:.4f}")


if __name__ == "__main__":
    main()
