"""An element of a new 2-D array read into a name, then the array written in place: ``M =
np.outer(x, x); a = M[0, 0]; np.fill_diagonal(M, 5.0)`` was refused as "M shares memory with
a", the rank of ``M`` unknown (so ``M[0, 0]`` might have been a view of a 3-D array). The
ranks of arrays whose call spells their axes (``np.zeros((n, m))``, ``x.reshape(2, 2)``,
``np.outer``, ``np.eye``) are known now (``analysis/value_kinds._made_rank``): an index with
an int per axis reads a number. Each constructor × index form × in-place write: a number
read is differentiated (against central differences and torch running the same program, the
element read as ``.clone()``: torch's is a view), a row or column read (a real view written)
is refused or differentiated exactly (torch reading the view). Imports itertools, NumPy,
pytest, srcad, torch (skipped without it) and the tests' helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load
from sampling import sample

import srcad

torch = pytest.importorskip("torch")

#: (NumPy, torch) spellings of a new 2 x 2 array made of x (4 numbers)
MADE = {
    "outer": ("np.outer(x[:2], x[2:])", "torch.outer(x[:2], x[2:])"),
    "reshape_method": ("x.reshape(2, 2) * 1.0", "x.reshape(2, 2) * 1.0"),
    "reshape_tuple": ("np.reshape(x, (2, 2)).copy()", "x.reshape(2, 2).clone()"),
    "zeros": ("np.zeros((2, 2)) + x[0] * x[1:3]",
              "torch.zeros((2, 2), dtype=x.dtype) + x[0] * x[1:3]"),
    "eye": ("np.eye(2) * x[3] + x[0]", "torch.eye(2, dtype=x.dtype) * x[3] + x[0]"),
    "linspace": ("np.linspace(x[:2], x[2:], 2)", "torch.stack([x[:2], x[2:]])"),
}
#: index forms: (NumPy read, torch read, whether it is a number, not a view of M)
READS = {
    "ints": ("M[0, 0]", "M[0, 0].clone()", True),
    "other_ints": ("M[1, 0]", "M[1, 0].clone()", True),
    "negative": ("M[-1, 1]", "M[-1, 1].clone()", True),
    "names": ("M[i, j]", "M[i, j].clone()", True),
    "twice": ("M[0][1]", "M[0][1].clone()", True),
    "row": ("M[0]", "M[0]", False),
    "row_slice": ("M[0, :]", "M[0, :]", False),
    "column": ("M[:, 1]", "M[:, 1]", False),
}
#: in-place writes of M: (NumPy, torch)
WRITES = {
    "fill_diagonal": ("np.fill_diagonal(M, 5.0)", "M.fill_diagonal_(5.0)"),
    "row": ("M[1] = 2.0 * M[1]", "M[1] = 2.0 * M[1]"),
    "item": ("M[0, 1] = x[2] * 3.0", "M[0, 1] = x[2] * 3.0"),
    "augmented": ("M += x[1]", "M += x[1]"),
    "column": ("M[:, 0] = x[:2]", "M[:, 0] = x[:2]"),
    "copyto": ("np.copyto(M, M * x[0])", "M.copy_(M.clone() * x[0])"),
}
CASES = sample(itertools.product(MADE, READS, WRITES), 9)
PROGRAM = """import {np}

def f(x):
    i, j = 0, 1
    M = {made}
    a = {read}
    {write}
    return {total}(a * {total}(M)) + {total}(M * M) * x[1]
"""


def _program(module, made, read, write, total):
    return PROGRAM.format(np=module, made=made, read=read, write=write, total=total)


@pytest.mark.parametrize("made,read,write", CASES)
def test_an_element_read_then_the_array_written(tmp_path, made, read, write):
    text = _program("numpy as np", MADE[made][0], READS[read][0], WRITES[write][0], "np.sum")
    f = load(tmp_path, f"p_{made}_{read}_{write}", text)
    x = np.array([0.7, -1.3, 0.4, 1.1])
    try:
        got = srcad.grad(f)(x)
    except srcad.SrcadError as e:  # only a view of M written: refused
        assert not READS[read][2] and "shares memory with a" in str(e), e
        return
    h = 1e-6
    want = np.array([(f(x + e) - f(x - e)) / (2 * h) for e in np.eye(4) * h])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    twin = load(tmp_path, f"t_{made}_{read}_{write}", _program(
        "torch", MADE[made][1], READS[read][1], WRITES[write][1], "torch.sum"))
    t = torch.tensor(x, requires_grad=True)
    twin(t).backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-10, atol=1e-12)
    value, grad = srcad.value_and_grad(f)(x)
    assert np.isclose(value, f(x)) and np.allclose(grad, got, rtol=1e-12)
