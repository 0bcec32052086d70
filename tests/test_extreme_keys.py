"""``max(a, b, c, key=k)`` and ``min(...)`` with several arguments and a key (refused before:
"this call form of max"): read as ``max((a, b, c), key=k)``, the item Python picks, its
gradient going to that item. A generated family: min/max x the key x how many arguments,
against finite differences and autograd (which runs Python's max on its boxes).
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

_KEYS = {"abs": "abs", "lambda": "lambda v: (v - 0.2) ** 2", "function": "score",
         "negated": "lambda v: -v"}
_ARGS = {2: "x[0] * 2.0, x[1]", 3: "x[0], np.sin(x[1]), x[2] * x[0]",
         4: "x[0], x[1], x[2], x[3] - 1.0"}
_CASES = list(itertools.product(("max", "min"), _KEYS, _ARGS))


@pytest.mark.parametrize("fn, key, n", _CASES, ids=[f"{f}-{k}-{n}" for f, k, n in _CASES])
def test_several_arguments_with_a_key(tmp_path, fn, key, n):
    text = ("def score(v):\n    return v * v * v\n\n\n"
            f"def f(x):\n    m = {fn}({_ARGS[n]}, key={_KEYS[key]})\n"
            "    return m * x[3] + m ** 2\n")
    f, f_autograd = program_files.load(tmp_path, f"extreme_{fn}_{key}_{n}", text, (np, anp))
    for x in (np.array([0.3, -0.9, 0.5, 1.2]), np.array([-1.1, 0.4, 0.2, -0.3])):
        want = autograd.grad(f_autograd)(x)
        got = srcad.grad(f)(x)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (x, got, want)
        fd = np.array([(f(x + e) - f(x - e)) / 2e-6 for e in np.eye(4) * 1e-6])
        assert np.allclose(got, fd, rtol=1e-5, atol=1e-7)
        assert np.isclose(srcad.jvp(f, (x,), (np.ones(4),))[1], np.sum(want), rtol=1e-9)
