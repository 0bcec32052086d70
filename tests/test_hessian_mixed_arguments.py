"""``hessian(f, wrt=(0, 1), mode="rev")`` of a function of an array and a number.

Reverse over reverse differentiates the gradient, whose output is a tuple ``(array, number)``;
the Jacobian first tries it as a scalar output and expects ``check_scalar`` to refuse it with
``NonScalarOutputError``. ``check_scalar`` asked ``np.iscomplexobj`` of the tuple first, which
NumPy cannot make an array of (``ValueError: setting an array element with a sequence``): a
crash on a plain function (found by a helper writing tests for records, 2026-12-04). Every
Hessian block of a family of functions of arrays and numbers, in both modes, against
autograd's Hessian of the same function of one flat vector.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

BODIES = {
    "scaled_square": "np.sum(a * a) * np.sum(b) + np.sum(b * b) * 0.5",
    "sine": "np.sum(np.sin(a)) * np.sum(b) + np.sum(b ** 3)",
    "outer": "np.sum(np.outer(a, b) ** 2) if np.ndim(b) else np.sum(a ** 2 * b * b)",
}
SHAPES = {
    "vector_number": ((2,), ()),
    "number_vector": ((), (3,)),
    "matrix_number": ((2, 2), ()),
    "vector_vector": ((2,), (3,)),
}
CASES = list(itertools.product(BODIES, SHAPES))


def _value(shape, rng):
    return float(rng.standard_normal()) if shape == () else rng.standard_normal(shape)


@pytest.mark.parametrize("body, shapes", CASES, ids=["-".join(c) for c in CASES])
def test_hessian_of_an_array_and_a_number(tmp_path, body, shapes):
    if body == "outer" and SHAPES[shapes][0] != (2,):
        pytest.skip("np.outer of a matrix flattens it: another function")
    f, f_autograd = program_files.load(tmp_path, f"mixed_{body}_{shapes}",
                                       f"def f(a, b):\n    return {BODIES[body]}\n", (np, anp))
    rng = np.random.default_rng(len(body) + len(shapes))
    sa, sb = SHAPES[shapes]
    a, b = _value(sa, rng), _value(sb, rng)
    na = max(1, int(np.prod(sa)))

    def flat(v):
        return f_autograd(v[:na].reshape(sa) if sa else v[0],
                          v[na:].reshape(sb) if sb else v[na])

    point = np.concatenate([np.ravel(a), np.ravel(b)])
    expected = autograd.hessian(flat)(point)
    blocks = {(0, 0): expected[:na, :na], (0, 1): expected[:na, na:],
              (1, 0): expected[na:, :na], (1, 1): expected[na:, na:]}
    shape = {0: sa, 1: sb}
    for mode in ("fwd", "rev"):
        got = srcad.hessian(f, wrt=(0, 1), mode=mode)(a, b)
        for (i, j), want in blocks.items():
            block = np.asarray(got[i][j], dtype=float)
            assert block.shape == shape[i] + shape[j], (mode, i, j, block.shape)
            assert np.allclose(block.reshape(want.shape), want, rtol=1e-9, atol=1e-12), (
                mode, i, j, block, want)
