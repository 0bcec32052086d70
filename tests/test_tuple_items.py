"""Kinds and ranks of the items of tuples: a tuple built in the function (``pair = (a, b)``)
or returned by a user function (``return hidden, cell``) has items whose kind and rank the
analysis knows, so ``pair[0]`` of a callee's result is an array of rank 1 or a number, not a
value "known at run time" (generated code then uses in-place list gradients, plain float
arithmetic, no ``np.shape`` per read). Each program below returns or builds tuples of numbers,
vectors, matrices and lists, reads them by positive and negative positions, in loops, in
branches and through recursion; each gradient is checked against autograd and finite
differences, and the analysis's conclusions on a few of them are checked directly.
"""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import pipeline
from srcad.analysis.analyse import Analysis
from srcad.core.kinds import ARRAY, SCALAR, SEQ

# ---------------------------------------------------------------- a family of callees


def _make(npm):
    """The programs, written once for NumPy and once for autograd's NumPy (``npm``)."""

    def cell(w, h, c):
        g = w * npm.concatenate((h, c))
        n = h.shape[0]
        c2 = c * npm.tanh(g[0:n]) + h * npm.sin(g[n:])
        return npm.tanh(c2) * h, c2

    def stats(v):
        return npm.sum(v * v), v * 2.0, npm.einsum("i,j->ij", v, v)

    def steps(w, h, c, n):
        total = 0.0
        layers = [h, c]
        for _ in range(n):
            h2, c2 = cell(w, layers[0], layers[1])
            layers = [h2, c2]
            total = total + npm.sum(h2) * 0.5
        return total + npm.sum(layers[-1])

    def indexed(w, h, c, n):
        total = 0.0
        for _ in range(n):
            out = cell(w, h, c)
            h, c = out[0], out[-1]
            s = stats(h)
            total = total + s[0] + npm.sum(s[-1]) * s[1][0]
        return total

    def branched(w, h, c, n):
        pair = (h * 2.0, npm.sum(c))
        if n > 1:
            pair = cell(w, pair[0], c)
        first = pair[0]
        return npm.sum(first * first) + npm.sum(pair[1])

    def recursive(w, h, c, n):
        if n == 0:
            return h, c
        h2, c2 = cell(w, h, c)
        return recursive(w, h2, c2, n - 1)

    def via_recursion(w, h, c, n):
        out = recursive(w, h, c, n)
        return npm.sum(out[0] * out[1])

    def straight(w, h, c, n):
        s = stats(h * c)
        return s[0] + npm.sum(s[-1]) * s[1][0] + npm.sum(w) * n

    return {"straight": straight, "steps": steps, "indexed": indexed, "branched": branched,
            "via_recursion": via_recursion}


PROGRAMS = _make(np)
A_PROGRAMS = _make(anp)
CASES = list(itertools.product(sorted(PROGRAMS), (2, 3), (1, 3)))


@pytest.mark.parametrize(("program", "size", "n"), CASES,
                         ids=[f"{p}-{s}-{n}" for p, s, n in CASES])
def test_tuple_items_gradients(program, size, n):
    rng = np.random.default_rng(size * 10 + n)
    w, h, c = rng.normal(size=2 * size) * 0.5, rng.normal(size=size), rng.normal(size=size)
    f = PROGRAMS[program]
    got = srcad.grad(f, wrt=(0, 1, 2))(w, h, c, n)
    want = autograd.grad(A_PROGRAMS[program], (0, 1, 2))(w, h, c, n)
    for i, (g, a) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, a, rtol=1e-10, atol=1e-10)
        fd = numerical_grad(f, (w, h, c, n), wrt=i)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def _analysis(f, kinds, ranks):
    fn, _ = pipeline.to_ssa(f)
    return Analysis(fn, kinds, (), param_ranks=ranks, callees=pipeline.CALLEES)


def test_items_of_a_callee_result_are_known():
    """``out[0]``, ``out[-1]`` of ``cell``'s result are arrays (vectors where the arguments'
    ranks are known), ``s[0]`` of ``stats`` a number, ``s[1]`` a vector, ``s[-1]`` a
    matrix."""
    kinds = {"w": ARRAY, "h": ARRAY, "c": ARRAY, "n": SCALAR}
    looped = _analysis(PROGRAMS["indexed"], kinds, {"w": 1, "h": 1, "c": 1})
    assert sorted(tuple(k for k, _ in items.values()) for items in
                  looped.tuple_items.values()) == [(ARRAY, ARRAY), (SCALAR, ARRAY, ARRAY)]
    assert all(looped.kinds[n] == SEQ for n in looped.tuple_items)
    an = _analysis(PROGRAMS["straight"], kinds, {"w": 1, "h": 1, "c": 1})
    assert list(an.tuple_items.values()) == [
        {0: (SCALAR, None), 1: (ARRAY, 1), 2: (ARRAY, 2)}]


def test_unknown_items_stay_unknown():
    """A tuple whose item kinds differ between returns, or a list, records nothing."""

    def either(a, flag):
        if flag:
            return a, 1.0
        return 1.0, a

    def caller(a, flag):
        out = either(a, flag)
        return np.sum(out[0]) * np.sum(out[1])

    an = _analysis(caller, {"a": ARRAY, "flag": SCALAR}, {"a": 1})
    assert not an.tuple_items
    a = np.array([0.5, 1.5])
    for flag in (True, False):
        got = srcad.grad(caller)(a, flag)
        np.testing.assert_allclose(got, numerical_grad(caller, (a, flag), wrt=0), rtol=1e-6)
