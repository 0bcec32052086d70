"""Tidy's kept name counts (:class:`srcad.backend.tidy_walk.KeptCounts`): the counts a rewrite
that changed nothing took are handed to the next rewrite; the code made with them is the code
made counting afresh every time, on functions whose tidying takes several rounds (loops,
``continue``, early ``return``, saves, flags, a callee). Imports: numpy, pytest, srcad,
golden_cases."""

import golden_cases
import numpy as np
import pytest

import srcad
from srcad.backend import tidy_walk


def _continues(x, n):
    s = 0.0
    for i in range(n):
        if x * i > 3.0:
            continue
        t = np.sin(x) * i
        s = s + t * t
    return s


def _early(x):
    for k in range(4):
        if x > 2.0:
            return x * k
        x = x * 1.5 + np.cos(x)
    return x


def _inner(a, b):
    return np.tanh(a) * b


def _arrays(w, v):
    total = 0.0
    for row in w:
        total = total + np.sum(_inner(row, v) ** 2)
    return total


CASES = [(golden_cases.scalar_loop, (0.3, 5)), (golden_cases.taylor_exp, (0.7,)),
         (golden_cases.clipped_sum, (0.4, 6)), (golden_cases.branch_after_loop, (0.2, 3)),
         (_continues, (0.5, 6)), (_early, (0.4,)),
         (_arrays, (np.linspace(0.1, 1.2, 6).reshape(3, 2), np.array([0.3, -0.8])))]


def _texts(f, args):
    srcad.clear_cache()
    g = srcad.grad(f, wrt=0)
    g(*args)
    df = srcad.jvp(g, args, (1.0 if np.ndim(args[0]) == 0 else np.ones_like(args[0]),),
                   wrt=(0,))
    return srcad.source(g), df


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_kept_counts_make_the_same_code(f, args, monkeypatch):
    kept_text, kept_df = _texts(f, args)
    monkeypatch.setattr(tidy_walk.KeptCounts, "take", lambda self: None)  # count afresh
    fresh_text, fresh_df = _texts(f, args)
    assert kept_text == fresh_text
    np.testing.assert_allclose(kept_df[1], fresh_df[1], rtol=0, atol=0)
