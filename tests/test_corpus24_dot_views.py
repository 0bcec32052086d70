"""Round 24 (outside programs with hand-written gradients): the forms of cs231n's classifiers.

``scores = X.dot(W)`` then ``correct = scores[i, y[i]]`` and writes into ``scores``; ``dS =
np.zeros_like(scores)`` then ``dS[i, :] += ...``; ``X.dot(W)`` of a global array ``X``. Each
was refused (an element taken as a view of the array; the product's dtype not known to be
float; "no derivative rule for X.dot"). Checked against central differences and, where the
function has no writes, autograd; views that do share memory stay refused.
"""

import numpy as np
import pytest

import srcad

RS = np.random.RandomState(0)
X = RS.randn(5, 4)
Y = np.array([0, 2, 1, 2, 0])
W0 = RS.randn(4, 3)


def element_then_write(W, X, y):
    s = X.dot(W)
    for i in range(X.shape[0]):
        c = s[i, y[i]]
        s[i, y[i]] = 0.0
        s[i, 1] = s[i, 1] - c
    return np.sum(s * s)


def element_const_then_write(W, X, y):
    s = np.dot(X, W)
    c = s[1, 2]
    s[1, 0] = 0.0
    return np.sum(s) + c * c


def element_in_branches(W, X, y):
    s = X @ W
    for i in range(X.shape[0]):
        c = s[i, y[i]]
        for j in range(s.shape[1]):
            if j == y[i]:
                s[i, j] = 0.0
            elif s[i, j] - c + 1.0 > 0:
                s[i, j] = s[i, j] - c + 1.0
            else:
                s[i, j] = 0.0
    return np.sum(s)


def zeros_like_product(W, X, y):
    s = X.dot(W)
    d = np.zeros_like(s)
    for i in range(X.shape[0]):
        d[i, :] += np.exp(s[i, :]) / np.sum(np.exp(s[i, :]))
    return np.sum(d * s)


def global_dot(W, X, y):
    return np.sum(np.tanh(X_GLOBAL.dot(W)) ** 2)


def global_transpose_dot(W, X, y):
    return np.sum(X_GLOBAL.T.dot(X_GLOBAL.dot(W)) ** 2)


def global_method_reduction(W, X, y):
    return np.sum(W * X_GLOBAL.sum(axis=0)[:, None]) + np.sum(X_GLOBAL.dot(W).mean(axis=0))


def slice_view_then_write(W, X, y):
    s = X.dot(W)
    r = s[1, :]  # a view srcad follows: the write changes r too
    s[1, 0] = 0.0
    return np.sum(s) + np.sum(r)


X_GLOBAL = X
FORMS = [slice_view_then_write, element_then_write, element_const_then_write, element_in_branches,
         zeros_like_product, global_dot, global_transpose_dot, global_method_reduction]


def _differences(f, W, eps=1e-6):
    g = np.zeros_like(W)
    for i in np.ndindex(W.shape):
        e = np.zeros_like(W)
        e[i] = eps
        g[i] = (f(W + e, X, Y) - f(W - e, X, Y)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_forms_against_differences(f):
    W = W0 + 0.01 * np.arange(W0.size).reshape(W0.shape)
    got = srcad.grad(f)(W, X, Y)
    np.testing.assert_allclose(got, _differences(f, W), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [global_dot, global_transpose_dot], ids=lambda f: f.__name__)
def test_global_methods_against_autograd(f):
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp

    def twin(W):  # the same function in autograd's NumPy (a method of a plain array)
        if f is global_dot:
            return anp.sum(anp.tanh(anp.dot(X_GLOBAL, W)) ** 2)
        return anp.sum(anp.dot(X_GLOBAL.T, anp.dot(X_GLOBAL, W)) ** 2)
    np.testing.assert_allclose(srcad.grad(f)(W0, X, Y), autograd.grad(twin)(W0), rtol=1e-9)


def test_global_array_rebound_and_changed():
    global X_GLOBAL
    d = srcad.grad(global_dot)
    try:
        for new in (RS.randn(6, 4), None):
            if new is None:
                X_GLOBAL[:] = 0.5  # changed in place: read live
            else:
                X_GLOBAL = new  # rebound: the code follows
            np.testing.assert_allclose(d(W0, X, Y), _differences(global_dot, W0),
                                       rtol=1e-5, atol=1e-6)
    finally:
        X_GLOBAL = X


def row_view_then_write(W, X, y):
    s = X.dot(W)
    r = s[1]  # a row: a view of s
    s[1, 0] = 0.0
    return np.sum(s) + np.sum(r)


def test_a_row_view_stays_refused():
    with pytest.raises(srcad.SrcadError, match="shares memory"):
        srcad.grad(row_view_then_write)(W0, X, Y)
