"""``np.tril``/``np.triu`` of a vector (sound29's mutant fuzzer, on autograd's ``test_tril``
given a vector): NumPy reads a 1-D ``m`` as the rows of a square matrix (``np.tril(x)[i, j] =
x[j]`` for ``j <= i``), and srcad's rule gave ``np.tril(g, k)``, the gradient of that
matrix, shape ``(n, n)``, for an argument of shape ``(n,)`` (autograd's own rule does the
same). The rule now sums it down to the argument's shape (``unbroadcast``).

A generated family: both functions, ``k`` in -1, 0, 1, arguments of 1, 2 and 3 dimensions,
the result weighed by fixed random numbers; srcad's gradient against central differences
element by element (the function is linear: the differences are exact but for rounding)
and its jvp against them along a random direction. Cheap by default (one case), every case
under ``SRCAD_LONG_PROPERTIES=1``. Imports NumPy, srcad, and the tests' program_files,
sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import module
from sampling import LONG

import srcad

TEMPLATE = """\
import numpy as np


def f(x):
    y = np.{fn}(x, {k})
    return np.sum(y * W)
"""

CASES = list(itertools.product(["tril", "triu"], [-1, 0, 1], [(3,), (1,), (3, 4), (2, 3, 3)]))
FIRST = [("tril", 0, (3,))]


def _central_gradient(f, x, h=1e-3):
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("fn,k,shape", FIRST + (CASES if LONG else []))
def test_triangle_of_any_rank(tmp_path, fn, k, shape):
    rng = np.random.default_rng(len(shape) * 10 + k)
    mod = module(tmp_path, f"tri_{fn}", TEMPLATE.format(fn=fn, k=k))
    x = rng.standard_normal(shape)
    mod.W = rng.standard_normal(getattr(np, fn)(x, k).shape)
    g = srcad.grad(mod.f)(x)
    want = _central_gradient(mod.f, x)
    assert g.shape == x.shape
    assert np.allclose(g, want, rtol=1e-8, atol=1e-9)
    v = rng.standard_normal(shape)
    _, t = srcad.jvp(mod.f, (x,), (v,))
    assert np.isclose(t, np.sum(want * v), rtol=1e-8, atol=1e-9)
