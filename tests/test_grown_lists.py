"""A list summed, then grown in place (append, insert, extend), differentiated to second order.

The reverse sweep makes ``sum(ys)``'s gradient from ``ys`` as it is when it runs, after the
growth: one item too many, which ``add`` drops as it zips. The forward mode of that reverse
sweep (``hessian``'s default, forward over reverse) kept the extra item, and the later
``.pop()`` of each earlier append took the wrong one: a wrong Hessian, no error (found by the
long property run, 2026-12-03). Each program here is checked in reverse, forward and both
Hessian modes, against finite differences and against autograd.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

autograd = pytest.importorskip("autograd")

BUILDS = {
    "appends": "ys = []\n    ys.append(y)\n    ys.append(y * 0.5)",
    "loop": "ys = []\n    for i in range(2):\n        ys.append(y * (i + 1.0))",
}
WRITES = {
    "none": "",
    "one": "ys[0] = ys[0] * x",
    "loop": "for j in range(len(ys)):\n        ys[j] = ys[j] * x",
}
GROWS = {
    "append_const": ("ys.append(3.0)", "s * s * x"),
    "append_value": ("ys.append(s * s)", "s + ys[-1] * x"),
    "insert": ("ys.insert(0, s * x)", "s * s + ys[0]"),
    "extend": ("ys.extend([2.0, s * x])", "s * s + ys[3]"),
}
CASES = list(itertools.product(BUILDS, WRITES, GROWS))


def _program(tmp_path, build, write, grow):
    step, result = GROWS[grow]
    text = (f"def f(x, y):\n    {BUILDS[build]}\n    {WRITES[write]}\n    s = sum(ys)\n"
            f"    {step}\n    return {result}\n")
    path = tmp_path / f"grown_{build}_{write}_{grow}.py"
    path.write_text(text)
    namespace = {}
    exec(compile(text, str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("build, write, grow", CASES, ids=["-".join(c) for c in CASES])
def test_summed_then_grown(tmp_path, build, write, grow):
    f = _program(tmp_path, build, write, grow)
    args = (0.7, -0.4)
    fd = np.array(numerical_grad(f, args, (0, 1)))
    assert np.allclose(srcad.grad(f, wrt=(0, 1))(*args), fd, rtol=1e-6, atol=1e-8)
    tangents = [srcad.jvp(f, args, u)[1] for u in ((1.0, 0.0), (0.0, 1.0))]
    assert np.allclose(tangents, fd, rtol=1e-6, atol=1e-8)
    expected = autograd.hessian(lambda v: f(v[0], v[1]))(np.array(args))
    for mode in ("fwd", "rev"):
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(*args), dtype=float)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), (mode, got, expected)
