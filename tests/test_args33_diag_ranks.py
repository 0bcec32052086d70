"""(args33) ``np.diag(x)`` is a view of ``x`` only for a matrix ``x`` (NumPy's read-only
diagonal); of a vector it is a new matrix (analysis/memory.py, where the rank is known: an
argument's, the key holds it, or an array made here). A write into the new matrix, ``x`` read
afterwards, was refused ("changes the argument x in place (D is part of it)"); now
differentiated. A generated family: where the vector comes from x writes into the matrix x
what is read after, against central differences and PyTorch (``torch.diag``, its writes in
place). ``np.diag`` of a matrix, read after a write into the matrix: still refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from sampling import LONG
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import MutationError

#: how the vector is made from x
SOURCES = {"argument": "v = x", "product": "v = x * 2.0", "ones": "v = np.ones(3) + x[0]"}
#: the write into D
WRITES = {"item": "D[0, 1] = x[2] * 3.0", "augment": "D[1] += x * x",
          "slice": "D[:, 2] = x[0] * x[1]", "k": "D = np.diag(v, 1)\n    D[0, 0] = x[1]"}
#: what is read after it
READS = {"both": "return np.sum(D * D) + np.sum(v ** 2)",
         "vector": "return np.sum(np.sin(D)) * np.sum(v)"}

CASES = list(itertools.product(SOURCES, WRITES, READS))
CASES = CASES if LONG else CASES[::4]
X = np.array([0.7, 1.3, -0.4])


@pytest.mark.parametrize("source, write, read", CASES)
def test_diag_of_vector_is_new(tmp_path, source, write, read):
    body = f"{SOURCES[source]}\n    D = np.diag(v)\n    {WRITES[write]}\n    {READS[read]}"
    text = f"import numpy as np\n\n\ndef f(x):\n    {body}\n"
    f = load_module(tmp_path, text).f
    grad = srcad.grad(f)(X.copy())
    assert np.allclose(grad, central(f, (X.copy(),), 0), atol=1e-6), text
    t = load_module(tmp_path, text.replace("import numpy as np", "import torch as np").replace(
        "np.ones(3)", "np.ones(3, dtype=np.float64)"), f"twin_{source}_{write}_{read}").f
    xt = torch.tensor(X, requires_grad=True)
    t(xt).backward()
    assert np.allclose(grad, xt.grad.numpy(), atol=1e-12), text


def test_diag_of_matrix_still_a_view(tmp_path):
    text = ("import numpy as np\n\n\ndef f(x):\n    M = np.outer(x, x)\n    d = np.diag(M)\n"
            "    M[0, 0] = 5.0\n    return np.sum(d * x)\n")
    f = load_module(tmp_path, text).f
    with pytest.raises(MutationError) as info:
        srcad.grad(f)(X.copy())
    assert info.value.lineno == 7
