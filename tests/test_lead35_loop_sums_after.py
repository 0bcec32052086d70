"""A one-number gradient of a whole sum inside a loop's body (transform/loop_sums) is dead
after the loop: it is never made an array there. Found by tools/handgrad_programs.py on a
course's naive convolution: `out[i, j] = np.sum(window * w[j]) + b[j]` over windows of an
array computed before the loop, in a callee, gave `np.broadcast_to(dt, np.shape(t))` after
the backward loop for a `t` the forward part never saved (NameError). A generated family:
where the loop is (a callee or the function), what the window is, what the array was made
by before the loop, and how the sum is written; against central differences and autograd."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample_by

import srcad

WINDOWS = {"rows": "y[k:k + 2]", "columns": "y[:, k:k + 2]", "item": "y[k]"}
BEFORE = {"scaled": "y = x * 2.0", "padded": "y = NP.pad(x, 1, 'constant')",
          "sine": "y = NP.sin(x)"}
SUMS = {"np.sum": "NP.sum({} * w)", "method": "({} * w).sum()", "plus": "NP.sum(w * {}) + c"}
WHERE = ("callee", "inline")


def _source(window, before, total, where, twin=False):
    term = SUMS[total].format(WINDOWS[window])
    body = [BEFORE[before], "out = NP.zeros(2)", "for k in range(2):", "    out[k] = " + term]
    if twin:  # autograd writes no item: the same values as a stack of the loop's terms
        body = [BEFORE[before], f"out = NP.stack([{term} for k in range(2)])"]
    if where == "callee":
        return "\n".join(["def inner(x, w, c):"] + ["    " + b for b in body]
                         + ["    return out", "def f(x, w, c):",
                            "    return NP.sum(inner(x, w, c) * NP.arange(1.0, 3.0))"])
    return "\n".join(["def f(x, w, c):"] + ["    " + b for b in body]
                     + ["    return NP.sum(out * NP.arange(1.0, 3.0))"])


def _shapes(window, before):
    grow = 2 if before == "padded" else 0
    x = (4, 3) if window != "rows" else (4,)
    if window == "rows":
        return x, (2,)
    return x, (x[0] + grow, 2) if window == "columns" else (x[1] + grow,)


def _load(source, np_module):
    ns = {"NP": np_module}
    exec(compile(source, "<loop_sums_after>", "exec"), ns)  # noqa: S102 - our own text
    return ns["f"]


CASES = list(itertools.product(WINDOWS, BEFORE, SUMS, WHERE))


@pytest.mark.parametrize("case", sample_by(CASES, lambda c: (c[0], c[3]), 8), ids=str)
def test_loop_sum_gradient_not_made_after_the_loop(case, tmp_path):
    window, before, total, where = case
    source = _source(window, before, total, where)
    path = tmp_path / "loop_sums_after.py"
    path.write_text("import numpy as NP\n" + source + "\n")
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - srcad reads the file
    f, twin = ns["f"], _load(_source(window, before, total, where, twin=True), anp)
    rng = np.random.default_rng(len(source))
    xs, ws = _shapes(window, before)
    x, w, c = rng.normal(size=xs), rng.normal(size=ws), float(rng.normal())
    got = srcad.grad(f, wrt=(0, 1, 2))(x, w, c)
    want = autograd.grad(twin, (0, 1, 2))(x, w, c)
    for g, a in zip(got, want):
        assert np.allclose(g, a, rtol=1e-9, atol=1e-9)
    h, e = 1e-6, np.zeros_like(x)
    e.flat[0] = h
    assert np.isclose(got[0].flat[0], (f(x + e, w, c) - f(x - e, w, c)) / (2 * h), atol=1e-5)
