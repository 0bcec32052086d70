"""NumPy's index helpers in differentiated code: ``K[np.diag_indices_from(K)] += noise``.

``np.diag_indices``, ``np.diag_indices_from``, ``np.tril_indices``, ``np.triu_indices`` (and
their ``_from`` forms) and ``np.mask_indices`` return positions (integer arrays; the ``_from``
forms read only the shape): they were refused ("no derivative rule"), which stopped Gaussian
process code adding noise to a kernel's diagonal. They are now without derivative
(:mod:`srcad.rules.numpy`), and the reads and writes at the positions they give are
differentiated as any indexing. A family of reads and writes against central finite
differences and autograd (for a write in place, on the same matrix built without writing,
which autograd needs), with jvp and Hessians in both modes.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad

#: the matrix K (from x, three numbers) and what is done at the positions
MATRIX = "K = np.outer(x, x) * np.array([[1.0, 0.5, 2.0]]) + 1.0\n"
READS = {
    "diag_from": "np.sum(K[np.diag_indices_from(K)] ** 2)",
    "diag": "np.sum(np.sin(K[np.diag_indices(3)]))",
    "tril": "np.sum(K[np.tril_indices(3, -1)] ** 3)",
    "triu_from": "np.sum(np.exp(K[np.triu_indices_from(K, 1)] * 0.1))",
    "tril_from": "np.sum(K[np.tril_indices_from(K)] * np.arange(6.0))",
    "mask": "np.sum(K[np.mask_indices(3, np.triu)] ** 2)",
}
#: writes in place, each with the same matrix built without writing (autograd's twin)
WRITES = {
    "noise": ("K[np.diag_indices_from(K)] += x[0] ** 2", "K = K + np.eye(3) * x[0] ** 2"),
    "zero_upper": ("K[np.triu_indices(3, 1)] = 0.0", "K = K * np.tril(np.ones((3, 3)))"),
    "copy_lower": ("K[np.triu_indices_from(K, 1)] = K.T[np.triu_indices_from(K, 1)]",
                   "K = np.tril(K) + np.tril(K, -1).T"),
    "scale_diag": ("K[np.diag_indices(3)] *= x[1]", "K = K + np.eye(3) * K * (x[1] - 1.0)"),
}


@pytest.mark.parametrize("read", READS)
def test_reads_at_index_helpers(tmp_path, read):
    text = f"def f(x):\n    {MATRIX}    return {READS[read]}\n"
    f = load(tmp_path, f"ih_{read}", text, modules=(np,))
    # autograd takes the _from forms and mask_indices as functions it cannot differentiate
    # through: its twin names the same positions by size
    twin = text.replace("_from(K", "(3").replace("np.mask_indices(3, np.triu)",
                                                "np.triu_indices(3)")
    fa = load(tmp_path, f"iha_{read}", twin, modules=(anp,))
    x = np.array([0.4, -0.7, 1.2])
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    _, tangent = srcad.jvp(f, (x,), (np.ones(3),))
    assert tangent == pytest.approx(float(np.sum(g)), rel=1e-9)
    want = autograd.hessian(fa)(x)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("write", WRITES)
def test_writes_at_index_helpers(tmp_path, write):
    body = "    return np.sum(np.sin(K) * np.arange(9.0).reshape(3, 3)) + np.sum(K ** 2)\n"
    written, built = WRITES[write]
    f = load(tmp_path, f"ihw_{write}", f"def f(x):\n    {MATRIX}    {written}\n" + body,
             modules=(np,))
    fa = load(tmp_path, f"ihwa_{write}", f"def f(x):\n    {MATRIX}    {built}\n" + body,
              modules=(anp,))
    x = np.array([0.4, -0.7, 1.2])
    assert f(x) == pytest.approx(fa(x), rel=1e-12)
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, numerical_grad(f, (x,)), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(x), rtol=1e-10, atol=1e-12)
    _, tangent = srcad.jvp(f, (x,), (np.ones(3),))
    assert tangent == pytest.approx(float(np.sum(g)), rel=1e-9)
    want = autograd.hessian(fa)(x)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), want, rtol=1e-8, atol=1e-10)
