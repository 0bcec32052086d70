"""Derivatives of srcad's own code made for the arrays' ranks (branch ``lstm31``).

When code calls a derivative srcad made (``g = srcad.grad(inner)`` called in a loop, as
GradBench's particle and saddle do) and that code is differentiated again, the derivative's
code is split or run in forward mode for the call's arguments: their kinds, and now also their
arrays' ranks, so that ``x[0]`` of a vector is known to be a number and its gradient needs no
``unbroadcast`` nor ``shape_of``; ``scatter(v, x, i)`` (the gradient of ``x[i]``) is an array
of ``x``'s rank, ``dx.copy()`` of ``dx``'s.

A generated family: ``x`` a number, a 0-d array, a vector or a matrix; what the inner function
reads of it (an element, a slice, a row, the whole); ``w`` a number, a vector of ``x``'s
length, or of length 1 (broadcast); the outer function calling the inner gradient once or in a
loop of steps. The outer derivative in reverse mode (``grad`` of code calling ``grad``) and in
forward mode (``jvp``) against central differences of the outer function and autograd's twin.
One structural check: for a vector, the split of the inner gradient has no ``unbroadcast`` or
``shape_of`` where every value it indexes is a number.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample_by

import srcad

SOURCE = '''
def inner(x, w):
    a = {pick}
    b = (a - w) ** 2 + a * w
    return {np}.sum({np}.sin(b) * a) + {np}.sum({np}.sum(a * a) * w) * 0.25


g = {grad}(inner)


def outer(w, x0):
    x = x0
    for i in range({steps}):
        x = x - 0.02 * g(x, w)
    return {np}.sum(x * x) + {np}.sum(w * x)
'''

#: x's example value, and what inner may read of it for that rank
XS = {
    "number": (0.7, ["x", "x * 1.5"]),
    "0-d": (np.array(0.7), ["x", "x * 1.5"]),
    "vector": (np.array([0.7, -0.4, 1.1]), ["x[0]", "x[-3:]", "x", "x[0] * x[2] + x"]),
    "matrix": (np.array([[0.7, -0.4, 1.1], [0.3, 0.9, -0.6]]),
               ["x[0, 1]", "x[1]", "x[1:]", "x"]),
}
WS = {"number": 0.3, "vector": np.array([0.3, -0.2, 0.5]), "one": np.array([0.3])}

CASES = [(xk, pick, wk, steps) for steps in (1, 3) for xk, (_, picks) in XS.items()
         for pick in picks for wk in WS]
#: CI's sample: every rank and every pick kept whatever tests/sampling's stride is
CHOSEN = sample_by(CASES, lambda case: case[:2], 7)


def _load(tmp_path, pick, steps):
    """The family's functions for srcad (read from a file) and for autograd (its twin)."""
    path = tmp_path / "ranked.py"
    path.write_text("import numpy as np\nimport srcad\n" + SOURCE.format(
        pick=pick, np="np", grad="srcad.grad", steps=steps))
    ours = {}
    exec(compile(path.read_text(), str(path), "exec"), ours)
    twin = {"anp": anp, "autograd": autograd}
    exec(SOURCE.format(pick=pick, np="anp", grad="autograd.grad", steps=steps), twin)
    return ours, twin


def _central(f, w, h=1e-6):
    w = np.asarray(w, float)
    out = np.zeros_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e.flat[i] = h
        out.flat[i] = (f(w + e) - f(w - e)) / (2 * h)
    return out


@pytest.mark.parametrize("xk, pick, wk, steps", CHOSEN)
def test_outer_derivatives_of_a_ranked_inner_gradient(xk, pick, wk, steps, tmp_path):
    ours, twin = _load(tmp_path, pick, steps)
    x0, w = XS[xk][0], WS[wk]
    w = float(w) if wk == "number" else w
    value = twin["outer"](w, x0)
    want = autograd.grad(twin["outer"])(w, x0)
    got = srcad.grad(ours["outer"])(w, x0)
    assert np.shape(got) == np.shape(w)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    central = _central(lambda v: ours["outer"](v if wk != "number" else float(v), x0), w)
    np.testing.assert_allclose(got, central, rtol=1e-5, atol=1e-6)
    tangent = np.ones_like(np.asarray(w, float)) * 0.5 if wk != "number" else 0.5
    primal, along = srcad.jvp(ours["outer"], (w, x0), (tangent,), wrt=(0,))
    np.testing.assert_allclose(primal, value, rtol=1e-12)
    np.testing.assert_allclose(along, np.sum(np.asarray(want) * tangent), rtol=1e-8, atol=1e-10)


def test_a_vectors_items_are_numbers_in_the_split(tmp_path):
    """The inner gradient's split for a vector ``x`` and a number ``w`` reading ``x[0]``
    only: every value is a number, so no ``shape_of`` is left in it and two ``unbroadcast``
    (of the seed's item, whose kind the backward part is not told, and ``grad_sum``'s own
    rule's); 24 before ``lstm31``."""
    ours, _ = _load(tmp_path, "x[0] * x[2]", 1)
    x, w = XS["vector"][0], 0.3
    entry = ours["g"].__srcad__.split_call(("x", "w"), (x, w), {})
    text = entry.fwd_text + entry.bwd_text
    assert "shape_of" not in text and text.count("unbroadcast") <= 2, text


def test_the_ranked_split_is_made_per_rank(tmp_path):
    """One inner gradient called with a vector, then a matrix, then a vector again (its
    splits are cached per rank): each outer derivative right."""
    ours, twin = _load(tmp_path, "x[0]", 2)
    for kind, w in (("vector", 0.3), ("matrix", np.array([0.3])), ("vector", 0.3)):
        want = autograd.grad(twin["outer"])(w, XS[kind][0])
        np.testing.assert_allclose(srcad.grad(ours["outer"])(w, XS[kind][0]), want,
                                   rtol=1e-8, atol=1e-10)


def test_cases_cover_each_rank():
    assert {c[0] for c in CHOSEN} == set(XS)
    assert {(c[0], c[1]) for c in CHOSEN} == {(k, p) for k, (_, ps) in XS.items() for p in ps}
    assert len(CASES) >= 40
