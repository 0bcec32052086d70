"""Per-call CPU time of ``value_and_grad`` of a batch-norm layer storing its running statistics
into the dict it is given (srcad.written_state / srcad.written_once), as a ratio to the same
layer returning its new statistics instead (``return loss, new_state``, ``has_aux=True``).

Run against two trees alternately (session 37: the copy returning its state, one run per call,
against 1768c050's two runs)::

    python benchmarks/written_state.py /tmp/base-state37 /work/wt-state37
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import textwrap

CODE = textwrap.dedent('''
    import time, numpy as np, srcad

    def layer(x, gamma, beta, bn_param):
        momentum = bn_param.get("momentum", 0.9)
        mu = np.mean(x, axis=0)
        var = np.var(x, axis=0)
        xhat = (x - mu) / np.sqrt(var + 1e-5)
        bn_param["running_mean"] = momentum * bn_param["running_mean"] + (1 - momentum) * mu
        bn_param["running_var"] = momentum * bn_param["running_var"] + (1 - momentum) * var
        return np.sum((gamma * xhat + beta) ** 2)

    def returning(x, gamma, beta, bn_param):
        momentum = bn_param.get("momentum", 0.9)
        mu = np.mean(x, axis=0)
        var = np.var(x, axis=0)
        xhat = (x - mu) / np.sqrt(var + 1e-5)
        new = {"momentum": momentum,
               "running_mean": momentum * bn_param["running_mean"] + (1 - momentum) * mu,
               "running_var": momentum * bn_param["running_var"] + (1 - momentum) * var}
        return np.sum((gamma * xhat + beta) ** 2), new

    rng = np.random.default_rng(0)
    N, D = SIZE
    x, gamma, beta = rng.standard_normal((N, D)), np.ones(D), np.zeros(D)
    state = {"momentum": 0.9, "running_mean": np.zeros(D), "running_var": np.ones(D)}
    writes = srcad.value_and_grad(layer, wrt=(1, 2))
    pure = srcad.value_and_grad(returning, wrt=(1, 2), has_aux=True)

    def per_call(fn, n=300):
        best = float("inf")
        for _ in range(5):
            t = time.process_time()
            for _ in range(n):
                fn()
            best = min(best, (time.process_time() - t) / n)
        return best

    a = per_call(lambda: writes(x, gamma, beta, state))
    b = per_call(lambda: pure(x, gamma, beta, dict(state)))
    print(a * 1e6, b * 1e6)
''')


def main(trees, sizes=((8, 4), (64, 32), (256, 128)), rounds=3):
    script = pathlib.Path(tempfile.mkdtemp()) / "layer.py"  # (srcad reads the source)
    for size in sizes:
        script.write_text(CODE.replace("SIZE", repr(size)))
        for r in range(rounds):
            for tree in trees:
                out = subprocess.run([sys.executable, str(script)],
                                     env={"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"},
                                     capture_output=True, text=True, check=True).stdout.split()
                writes, pure = map(float, out)
                print(f"{size} round {r} {tree}: writes {writes:.1f} us, returning "
                      f"{pure:.1f} us, ratio {writes / pure:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
