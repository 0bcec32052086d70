"""A write through two subscripts of an array, ``A[i][j] = v``, ``A[:, j][k] += v``,
``A[i][1:] *= c`` (issue 16, outside24): refused before ("assignment into a subscript of an
expression"); written with the view named (``frontend/nested_writes.py``), a write into
``A`` at the composed index (``frontend/views.py``). Generated family (array x write x in a
loop or not) against central differences and PyTorch (whose writes through views are
differentiated as NumPy's values change); a list of lists keeps the refusal."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

W = np.array([0.3, -0.4, 0.7])
BASES = {"zeros": "np.zeros((3, 3)) + w[2]", "outer": "np.outer(w, w) + 1.0",
         "reshape": "(w * 2.0).reshape(3, 1) * np.ones((3, 2))"}
WRITES = {
    "item": "A[{i}][1] = w[0] * A[{i}][0]",
    "augmented": "A[{i}][0] += w[1] ** 2",
    "column": "A[:, 1][{i}] = A[{i}][0] + w[2]",
    "slice": "A[{i}][1:] *= w[0]",
}
WHERE = {"once": "i", "loop": "i"}
TEXT = """
def f(w):
    A = {base}
    {head}{write}
    return np.sum(A * A) + np.sum(np.sin(A))
"""
CASES = list(itertools.product(BASES, WRITES, WHERE))


class _TorchNp:
    def __init__(self, torch):
        self.sum, self.sin, self.outer = torch.sum, torch.sin, torch.outer
        dt = torch.float64
        self.zeros = lambda s: torch.zeros(s, dtype=dt)
        self.ones = lambda s: torch.ones(s, dtype=dt)


def _text(base, write, where):
    head = "for i in range(3):\n        " if where == "loop" else "i = 2\n    "
    return TEXT.format(base=BASES[base], head=head, write=WRITES[write].format(i="i"))


@pytest.mark.parametrize("base,write,where", sample(CASES, 4))
def test_a_write_through_two_subscripts(base, write, where, tmp_path):
    text = _text(base, write, where)
    f = load_module(tmp_path, "import numpy as np\n" + text).f
    g = srcad.grad(f)(W.copy())
    np.testing.assert_allclose(g, central(f, (W,), 0), rtol=1e-6, atol=1e-8)
    torch = pytest.importorskip("torch")
    t = load_module(tmp_path, text).f
    t.__globals__["np"] = _TorchNp(torch)
    tw = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    try:
        t(tw).backward()
    except RuntimeError as error:  # PyTorch's own limit: a value it saved was written
        assert "inplace operation" in str(error)
        return
    np.testing.assert_allclose(g, tw.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_a_list_of_lists_is_written_through_its_row(tmp_path):
    """(outside25: refused before, "subscript of an expression"; frontend/nested_rows.py)
    the rows of a display are separate lists; rows that are one list are refused when the
    code runs (tests/test_outside25_nested_rows.py)."""
    f = load_module(tmp_path, "def f(w):\n    M = [[0.0, 0.0], [0.0, 0.0]]\n"
                    "    M[0][1] = w[0] * 2.0\n    return M[0][1] + M[1][1]\n").f
    np.testing.assert_allclose(srcad.grad(f)(W.copy()), [2.0] + [0.0] * (len(W) - 1))
    g = load_module(tmp_path, "def g(w):\n    r = [0.0, 0.0]\n    M = [r, r]\n"
                    "    M[0][1] = w[0] * 2.0\n    return M[0][1] + M[1][1]\n").g
    with pytest.raises(srcad.MutationError, match="row M\\[0\\] is also another item"):
        srcad.grad(g)(W.copy())
