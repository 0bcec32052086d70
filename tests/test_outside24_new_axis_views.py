"""Writes through a view taken with new axes (issue 16, outside24 item 2): ``z = y[None]``,
``y[np.newaxis]``, ``y[..., None]``, ``y[:, None, 1:]`` then ``z[0, i] = v``, ``z[1:, :, 0] =
e``, ``z[0] *= c``: NumPy's view of ``y``, so the writes change ``y``.

Read as writes into ``y`` at the composed index (``frontend/views.py``,
``frontend/view_indices.py``: a new axis is ``None`` in the index into the base too; a view
axis that is a new one takes ``0``/``-1`` or a slice keeping its one place; a slice emptying
it picks no place). Generated family (base x view x writes) against central differences and
PyTorch, whose in-place writes through views are differentiated as NumPy's values change.
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

X0 = np.array([0.5, 1.2, -0.7])

BASES = {"vector": "x * 2.0", "matrix": "np.outer(x, x) + 1.0"}
#: (base, view index, writes through the view)
VIEWS = [
    ("vector", "None", ["z[0, 1] = x[0] ** 2", "z[0, 2] *= x[1]"]),
    ("vector", "np.newaxis", ["z[0, 1] = x[0] ** 2", "z[:, 0] = x[2] * x[1]"]),
    ("vector", "..., None", ["z[1, 0] = x[0] ** 2", "z[2] += x[1]"]),
    ("vector", ":, None", ["z[1] *= x[2]", "z[0:2, 0] = x[1:] * 3.0"]),
    ("vector", "None, :", ["z[1:] = 5.0",
                           "for i in range(3):\n        z[0, i] = z[0, i] + x[i] ** 2"]),
    ("matrix", "None", ["z[0, 1, 2] = x[0] * x[1]", "z[0, :, 0] *= x"]),
    ("matrix", "None, :, 1", ["z[0, 2] = x[1]", "z[..., 0] += x[2] ** 2"]),
    ("matrix", ":, None, 1:", ["z[1:, :, 0] = x[1:, None] * 3.0", "z[0, 0] *= x[2]"]),
    ("matrix", "None, 1", ["z[0, [0, 2]] = x[1:] ** 2", "z[-1, 1] = x[0]"]),
    ("matrix", "1, None", ["z[0] *= x", "z[:, ::2] = x[0]"]),
]
TEXT = """
def f(x):
    y = {base}
    z = y[{index}]
    {writes}
    return np.sum(y * x) + np.sum(np.sin(y))
"""


class _TorchNp:
    """The few ``np`` names the programs use, as PyTorch's."""

    def __init__(self, torch):
        self.sum, self.sin, self.outer, self.newaxis = torch.sum, torch.sin, torch.outer, None


CASES = [(k, w) for k in range(len(VIEWS)) for w in ("first", "second", "both")]


def _text(k, which):
    base, index, writes = VIEWS[k]
    chosen = {"first": writes[:1], "second": writes[1:], "both": writes}[which]
    return TEXT.format(base=BASES[base], index=index, writes="\n    ".join(chosen))


@pytest.mark.parametrize("k,which", sample(CASES, 4))
def test_a_write_through_a_view_with_new_axes(k, which, tmp_path):
    text = _text(k, which)
    f = load_module(tmp_path, "import numpy as np\n" + text).f
    g = srcad.grad(f)(X0.copy())
    np.testing.assert_allclose(g, central(f, (X0,), 0), rtol=1e-6, atol=1e-8)
    torch = pytest.importorskip("torch")
    t = load_module(tmp_path, text).f
    t.__globals__["np"] = _TorchNp(torch)
    tx = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
    t(tx).backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert srcad.grad(f)(X0.copy() + 0.1) == pytest.approx(
        central(f, (X0 + 0.1,), 0), rel=1e-6, abs=1e-8)  # the code made once, run again
