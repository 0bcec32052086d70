"""``M[i][j] = v`` and ``M[i][j] op= v`` on a list (or dict) of lists or arrays (issue 16,
outside25): refused before ("assignment into a subscript of an expression": the rows may be
shared). Read as Python runs it, the row named and put back (``frontend/nested_rows.py``),
with a check when the code runs that the row stands alone in ``M``; rows that are one list
(``[[0.0] * n] * m``, ``[r, r]``) raise ``MutationError`` at the line then. Generated family
(how ``M`` is made x how it is written) against central differences and autograd (which
keeps its boxes in lists; a list of NumPy arrays: central differences only)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

MAKE = {
    "comprehension": "M = [[0.0] * 3 for _ in range(3)]",
    "append": "M = []\n    for i in range(3):\n        M.append([w[i], 0.0, 1.0])",
    "display": "M = [[w[0], 0.5, 0.0], [0.0, w[1], 0.0], [1.0, 0.0, w[2]]]",
    "dict": "M = {}\n    for i in range(3):\n        M[i] = [0.0, w[i], 0.0]",
    "arrays": "M = [np.zeros(3) + w[i] for i in range(3)]",
}
WRITE = {
    "fill": "for i in range(3):\n        for j in range(3):\n"
            "            M[i][j] = M[i][j] + w[i] * w[j] + i",
    "augment": "for i in range(3):\n        for j in range(i + 1):\n"
               "            M[i][j] += w[j] * M[j][i]",
    "scale": "for i in range(3):\n        M[i][(i + 1) % 3] *= w[i]",
    "once": "M[2][0] = np.sin(w[0]) * M[1][1]\n    M[0][2] -= M[2][0] ** 2",
}
TEXT = """
def f(w):
    {make}
    {write}
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + M[i][j] * M[j][i] * (i + 1.0)
    return s
"""
CASES = list(itertools.product(MAKE, WRITE))
#: by default each way of making the list once, each write at least once
DIAGONAL = [(make, list(WRITE)[i % len(WRITE)]) for i, make in enumerate(MAKE)]


def _fd(f, w):
    return np.array([(f(w + 1e-6 * e) - f(w - 1e-6 * e)) / 2e-6 for e in np.eye(len(w))])


@pytest.mark.parametrize("make,write", CASES if LONG else DIAGONAL)
def test_writes_through_the_rows_of_a_list(make, write, tmp_path):
    text = TEXT.format(make=MAKE[make], write=WRITE[write])
    m = load_module(tmp_path, NP + text)
    g = srcad.grad(m.f)(W.copy())
    np.testing.assert_allclose(g, _fd(m.f, W), rtol=1e-6, atol=1e-8)
    if make != "arrays":  # (autograd writes into no array)
        a = load_module(tmp_path, AG + text)
        np.testing.assert_allclose(g, autograd.grad(a.f)(W.copy()), rtol=1e-10, atol=1e-12)


SHARED = {
    "repeat": "M = [[0.0] * 3] * 3",
    "one-row": "r = [0.0, 0.0, 0.0]\n    M = [r, r, [1.0, 1.0, 1.0]]",
    "held": "r = [0.0, 0.0, 0.0]\n    M = [r, [r], [1.0, 1.0, 1.0]]",
    "views": "b = np.zeros(5)\n    M = [b[k:k + 3] for k in range(3)]",
}


@pytest.mark.parametrize("make", sorted(SHARED))
def test_shared_rows_are_refused_when_the_code_runs(make, tmp_path):
    text = f"def f(w):\n    {SHARED[make]}\n    M[0][1] = w[0] * 2.0\n    return M[0][1]\n"
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.MutationError, match=r"line \d+: M\[0\]\[1\] = ") as err:
        srcad.grad(m.f)(W.copy())
    assert "the row M[0]" in str(err.value) and "for _ in range(m)" in str(err.value)


def test_a_name_holding_the_row_stays_refused(tmp_path):
    text = ("def f(w):\n    M = [[w[0], w[1]], [w[2], 0.0]]\n    r = M[0]\n"
            "    M[0][1] = w[2] ** 2\n    return r[1] * M[1][0]\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.MutationError, match="M\\[0\\] shares memory with r"):
        srcad.grad(m.f)(W.copy())


def test_an_array_met_where_a_list_was_expected_is_refused(tmp_path):
    """``A[i][j] = v`` where the text does not show ``A`` is an array (an argument's copy
    made by a helper): a mask's rows would be a copy, which the put back would write."""
    text = ("def mk(w):\n    return np.outer(w, w)\n"
            "def f(w):\n    A = mk(w)\n    A[w > 0][0] = 1.0\n    return np.sum(A)\n")
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.SrcadError, match="line"):
        srcad.grad(m.f)(W.copy())


@pytest.mark.skipif(not LONG, reason="second order: the long run")
def test_second_derivatives_match_central_differences(tmp_path):
    text = ("def f(w):\n    M = [[0.0] * 2 for _ in range(2)]\n    for i in range(2):\n"
            "        M[i][1 - i] += w[i] * w[2]\n    return M[0][1] * M[1][0] + M[1][1]\n")
    m = load_module(tmp_path, NP + text)
    h = srcad.hessian(m.f)(W.copy())
    g = srcad.grad(m.f)
    fd = np.array([(g(W + 1e-6 * e) - g(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)
    _, tangent = srcad.jvp(m.f, (W.copy(),), (np.array([1.0, 0.5, -0.3]),))
    np.testing.assert_allclose(tangent, g(W) @ np.array([1.0, 0.5, -0.3]), rtol=1e-10)


def test_second_order_keeps_the_check(tmp_path):
    """A derivative differentiated again reads the first derivative's code: the check
    there is kept (it was dropped as 'not relied on': shared rows gave a zero Hessian)."""
    m = load_module(tmp_path, NP + "def shared(w):\n    M = [[0.0] * 3] * 3\n"
                    "    M[0][0] = w[0] ** 2\n    return M[1][0] * w[1]\n")
    for second in (srcad.hessian(m.shared), srcad.grad(lambda x: srcad.grad(m.shared)(x)[0])):
        with pytest.raises(srcad.MutationError, match="the row M\\[0\\]"):
            second(W.copy())
