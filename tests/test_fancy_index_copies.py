"""An array indexed by a list is a copy: writes into it are the function's own.

``y = x[[0, 0, 2]]`` (or ``t = [2, 0]; y = x[t]``) is advanced indexing, which NumPy answers
with a new array (a list index is an integer or boolean array since NumPy 1.23), so
``y[0] = ...`` changes neither ``x`` nor anything else that is read afterwards. srcad took a
name bound to a list display for a possible tuple of slices (a view) and refused the write as
one into the argument. A generated family: copies made by list indices of 1-D and 2-D
arrays (constants, names, computed items, booleans, mixed with a slice), each written in one
of several ways and read together with the array it came from, checked against central finite
differences (NumPy's own semantics) and PyTorch (its list indices copy too); views made by
slices, integers and tuples stay refused.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load

import srcad
from srcad.errors import MutationError

#: (source of the copy, the array it reads: "x" a vector of 4, "A" a 3 x 4 matrix)
COPIES = [
    ("x[[0, 0, 2]]", "x"),
    ("x[t]", "x"),
    ("x[[k, k + 1, 3]]", "x"),
    ("x[[True, False, True, True]]", "x"),
    ("A[[0, 2]]", "A"),
    ("A[t]", "A"),
    ("A[[2, 0], 1:]", "A"),
    ("A[1:, [3, 0, 0]]", "A"),
    ("A[[1, 1], [0, 3]]", "A"),
]
#: writes into the copy y (a vector or a matrix: every one reads y's first row or item)
WRITES = [
    "y[0] = y[1] * 5.0",
    "y[0] = np.sin(y[0])",
    "y *= y",
    "y += 2.0",
    "y[1:] = y[1:] * 3.0",
]


def _text(copy, write):
    return (
        "def f(x, A):\n"
        "    k = 1\n"
        "    t = [2, 0]\n"
        f"    y = {copy}\n"
        f"    {write}\n"
        "    return np.sum(y * y) + np.sum(np.tanh(x) * x) + np.sum(A * A)\n"
    )


class _TorchNp:
    """The few ``np`` names the programs use, as PyTorch's."""

    def __init__(self, torch):
        self.sum, self.sin, self.tanh = torch.sum, torch.sin, torch.tanh


X = np.array([0.3, -0.7, 1.1, 0.5])
A = np.array([[0.2, -0.4, 0.9, 1.3], [0.6, 0.1, -1.2, 0.8], [-0.5, 0.7, 0.3, -0.9]])


def _fd(f, args, i, h=1e-6):
    g = np.zeros_like(args[i])
    for k in np.ndindex(args[i].shape):
        up = [a.copy() for a in args]
        down = [a.copy() for a in args]
        up[i][k] += h
        down[i][k] -= h
        g[k] = (f(*up) - f(*down)) / (2 * h)
    return g


CASES = list(itertools.product(range(len(COPIES)), range(len(WRITES))))


@pytest.mark.parametrize("c,w", CASES)
def test_a_write_into_a_list_indexed_copy(tmp_path, c, w):
    copy, _ = COPIES[c]
    f = load(tmp_path, f"fic{c}_{w}", _text(copy, WRITES[w]), modules=(np,))
    value, (gx, gA) = srcad.value_and_grad(f, wrt=(0, 1))(X.copy(), A.copy())
    assert value == pytest.approx(f(X.copy(), A.copy()), rel=1e-12)
    np.testing.assert_allclose(gx, _fd(f, [X, A], 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gA, _fd(f, [X, A], 1), rtol=1e-5, atol=1e-7)
    torch = pytest.importorskip("torch")
    g = load(tmp_path, f"ficT{c}_{w}", _text(copy, WRITES[w]), modules=(None,))
    g.__globals__["np"] = _TorchNp(torch)
    tx = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    tA = torch.tensor(A, dtype=torch.float64, requires_grad=True)
    try:
        g(tx, tA).backward()
    except RuntimeError as error:  # PyTorch's own limit: a value it saved was written
        assert "inplace operation" in str(error)
        return
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gA, tA.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("c", range(len(COPIES)))
def test_the_copy_in_forward_mode_and_second_order(tmp_path, c):
    copy, _ = COPIES[c]
    f = load(tmp_path, f"ficH{c}", _text(copy, WRITES[2]), modules=(np,))
    u, U = np.linspace(-1.0, 1.0, 4), np.ones_like(A) / 3
    _, tangent = srcad.jvp(f, (X.copy(), A.copy()), (u, U))
    gx, gA = srcad.grad(f, wrt=(0, 1))(X.copy(), A.copy())
    assert tangent == pytest.approx(float(gx @ u + np.sum(gA * U)), rel=1e-10)
    col = _fd(lambda x: srcad.grad(f)(x, A.copy()) @ u, [X], 0)
    for mode in ("fwd", "rev"):
        H = srcad.hessian(f, wrt=0, mode=mode)(X.copy(), A.copy())
        np.testing.assert_allclose(H @ u, col, rtol=1e-5, atol=1e-6)


#: views: a write into them changes the argument, and stays refused
VIEWS = ["x[1:]", "A[0]", "A[t]", "A[:, 1]", "A.T"]


@pytest.mark.parametrize("view", VIEWS)
def test_a_write_into_a_view_of_the_argument_stays_refused(tmp_path, view):
    text = (
        "def f(x, A):\n"
        "    t = (0,)\n"
        f"    y = {view}\n"
        "    y[0] = y[1] * 5.0\n"
        "    return np.sum(y * y) + np.sum(x * x) + np.sum(A * A)\n"
    )
    f = load(tmp_path, f"ficV{VIEWS.index(view)}", text, modules=(np,))
    with pytest.raises(MutationError) as info:
        srcad.grad(f, wrt=(0, 1))(X.copy(), A.copy())
    assert "line 4" in str(info.value)
    assert "copy()" in str(info.value)
