"""A constant array passed to a function of yours has its rank passed on (issue 16,
outside25): cs231n's ``svm_loss_naive(W, X, y, reg)`` called as ``lambda W: f(W, X, y,
0.1)[0]`` (``X``, ``y`` closure values) had ``scores = X.dot(W)`` of a rank not known in the
callee, so ``scores[i, y[i]]`` might be a view and the writes into ``scores`` were refused
(``analysis/value_kinds.arg_ranks``, used by the callee's analysis and its split alike).
Against central differences and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import srcad

torch = pytest.importorskip("torch")
RS = np.random.RandomState(1)
X, Y = RS.randn(6, 4), RS.randint(3, size=6)
W0 = RS.randn(4, 3) * 0.5


def svm_like(W, X, y, reg):
    scores = X.dot(W)
    for i in range(X.shape[0]):
        correct = scores[i, y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                scores[i, j] = 0
            else:
                t = scores[i, j] - correct + 1.0
                scores[i, j] = t if t > 0 else 0.0
    return np.sum(scores) / X.shape[0] + reg * np.sum(W * W), None


def _torch(W):
    w = torch.tensor(W, requires_grad=True)
    scores = torch.tensor(X) @ w
    rows = []
    for i in range(X.shape[0]):
        correct = scores[i, Y[i]]
        row = [torch.zeros((), dtype=w.dtype) if j == Y[i] else torch.clamp(
            scores[i, j] - correct + 1.0, min=0.0) for j in range(W.shape[1])]
        rows.append(torch.stack(row))
    loss = torch.stack(rows).sum() / X.shape[0] + 0.1 * (w * w).sum()
    loss.backward()
    return w.grad.numpy()


@pytest.mark.parametrize("how", ["closure", "global-default"])
def test_a_callee_given_constant_arrays(how):
    if how == "closure":
        def f(W):
            return svm_like(W, X, Y, 0.1)[0]
    else:
        def f(W, X=X, y=Y):
            return svm_like(W, X, y, 0.1)[0]
    g = srcad.grad(f)(W0.copy())
    fd = np.zeros_like(W0)
    for idx in np.ndindex(W0.shape):
        e = np.zeros_like(W0)
        e[idx] = 1e-6
        fd[idx] = (f(W0 + e) - f(W0 - e)) / 2e-6
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, _torch(W0), rtol=1e-10, atol=1e-12)
