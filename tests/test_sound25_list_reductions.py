"""Reductions given a list of arrays (sound25's fuzzer: ``np.maximum.reduce([a, b])`` crashed
``srcad.jvp`` with ``TypeError: can't multiply sequence by non-int of type 'list'``): the
tangent of a list of arrays is a list, and the forward rules of ``np.max``/``min``/``amax``/
``amin``/``prod``/``var``/``std``/``linalg.norm``/``maximum.reduce``/``minimum.reduce``/
``multiply.reduce`` multiplied it by the (list) gradient of their result with ``*``; ``np.ptp``
subtracted two lists in both modes, and ``np.maximum.accumulate``'s tangent indexed a list.

A generated family: each reduction, over a list of two or three arrays built from the
arguments, with and without ``axis``, its gradient against central differences and its ``jvp``
against the gradient's inner product with the tangent. Imports NumPy and srcad."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import sample
from twin_checks import close

import srcad

W = np.arange(1.0, 5.0)

REDUCTIONS = {
    "max": lambda xs: np.max(xs, axis=0),
    "min": lambda xs: np.min(xs, axis=0),
    "amax": lambda xs: np.amax(xs, axis=0),
    "amin": lambda xs: np.amin(xs),
    "prod": lambda xs: np.prod(xs, axis=0),
    "var": lambda xs: np.var(xs, axis=0),
    "std": lambda xs: np.std(xs, axis=0),
    "norm": lambda xs: np.linalg.norm(xs, axis=0),
    "ptp": lambda xs: np.ptp(xs, axis=0),
    "ptp_all": lambda xs: np.ptp(xs),
    "maximum.reduce": lambda xs: np.maximum.reduce(xs),
    "minimum.reduce": lambda xs: np.minimum.reduce(xs),
    "multiply.reduce": lambda xs: np.multiply.reduce(xs),
    "maximum.accumulate": lambda xs: np.maximum.accumulate(xs),
    "minimum.accumulate": lambda xs: np.minimum.accumulate(xs, axis=1),
    "nanmax": lambda xs: np.nanmax(xs, axis=0),
    "nanprod": lambda xs: np.nanprod(xs, axis=0),
}

LISTS = {
    "two": lambda x, a: [a, a * x],
    "three": lambda x, a: [np.sin(a), a * x, a + x],
}


def _function(reduce, build):
    def f(x, a):
        return np.sum(np.sin(reduce(build(x, a))) * W)
    return f


CASES = sample([(r, k) for k in LISTS for r in REDUCTIONS], 5)


@pytest.mark.parametrize("reduction, items", CASES)
def test_reduction_of_a_list(reduction, items):
    reduce, build = REDUCTIONS[reduction], LISTS[items]
    # a module-level name srcad can read the source of: the lambdas are looked up as globals
    f = _function(reduce, build)
    x, a = 0.7, np.array([0.3, -0.2, 0.5, 0.9])
    gx, ga = srcad.grad(f, wrt=(0, 1))(x, a)
    h = 1e-6
    want_x = (f(x + h, a) - f(x - h, a)) / (2 * h)
    want_a = np.array([(f(x, a + h * e) - f(x, a - h * e)) / (2 * h) for e in np.eye(4)])
    assert close(gx, want_x, 1e-6) and close(ga, want_a, 1e-6), (gx, want_x, ga, want_a)
    t = np.array([0.5, -1.0, 0.25, 2.0])
    _, tangent = srcad.jvp(f, (x, a), (0.3, t))
    assert close(tangent, 0.3 * gx + np.dot(ga, t), 1e-8)
