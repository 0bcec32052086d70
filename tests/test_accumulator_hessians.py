"""Second derivatives of loops whose values are items of an array argument (``a = th[0]``):
srcad does not know such an item's rank, so its first derivative's accumulators (``dexp = 0.0``
then ``dexp += dP`` in the backward loop) were taken as possibly lists holding what is added to
them, and the second derivative was refused ("dP shares memory with dexp") on a Kalman
filter's likelihood. A sum is a list only where its left operand is one: an accumulator that
starts as a number holds nothing of what is added to it. A generated family: recurrences in the
style of filters and smoothers, with ``+=``, ``-=`` and ``*=`` on values read from the
parameters, against autograd's Hessian in both modes.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

_STEPS = {  # the body of ``for yt in ys:``, with a, q, r read from th
    "kalman": "P = a * a * P + q\nS = P + r\nll = ll - 0.5 * (np.log(S) + (yt - m) ** 2 / S)\n"
              "K = P / S\nm = m + K * (yt - m)\nP = (1 - K) * P",
    "smoother": "m = a * m + (1 - a) * yt\nll += (yt - m) ** 2 * q",
    "gain": "K = P / (P + r)\nll += K * yt\nP = (1 - K) * P + q",
    "product": "P *= a\nll -= P * yt * q",
    "branch": "if yt > 0:\n    ll += q * yt * m\nelse:\n    ll -= r * yt\nm = a * m + yt",
}
_READS = {
    "items": "a, q, r = th[0], np.exp(th[1]), np.exp(th[2])",
    "unpacked": "a, lq, lr = th\nq, r = np.exp(lq), np.exp(lr)",
    "tanh": "a = np.tanh(th[0])\nq = th[1] ** 2 + 0.1\nr = np.exp(th[2])",
}
_CASES = list(itertools.product(_STEPS, _READS))


@pytest.mark.parametrize("step, read", _CASES, ids=[f"{s}-{r}" for s, r in _CASES])
def test_hessian_of_a_recurrence(tmp_path, step, read):
    body = _READS[read] + "\nm, P, ll = 0.0, 1.0, 0.0\nfor yt in ys:\n" + "".join(
        f"    {line}\n" for line in _STEPS[step].split("\n")) + "return ll"
    text = "def f(th, ys):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    f, f_autograd = program_files.load(tmp_path, f"acc_{step}_{read}", text, (np, anp))
    ys = np.array([0.3, -0.2, 0.5, 1.1])
    th = np.array([0.5, -1.0, -0.5])
    expected = autograd.hessian(lambda v: f_autograd(v, ys))(th)
    assert np.allclose(srcad.grad(f)(th, ys), autograd.grad(f_autograd)(th, ys), rtol=1e-10)
    for mode in ("rev", "fwd"):
        got = srcad.hessian(f, mode=mode)(th, ys)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12), (mode, got, expected)
    v = np.array([0.3, -0.7, 1.1])
    hvp = srcad.hvp(f)(th, ys, v)
    assert np.allclose(hvp, expected @ v, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("step, read", _CASES, ids=[f"{s}-{r}" for s, r in _CASES])
def test_no_idle_branches_are_left(tmp_path, step, read):
    """The first derivative's code, read: no ``if nz_dt: pass`` left over once the sweep's
    addition under it was moved out (an ``nz_`` flag is only ever True or False)."""
    import ast

    body = _READS[read] + "\nm, P, ll = 0.0, 1.0, 0.0\nfor yt in ys:\n" + "".join(
        f"    {line}\n" for line in _STEPS[step].split("\n")) + "return ll"
    text = "def f(th, ys):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    f = program_files.load(tmp_path, f"idle_{step}_{read}", text, (np,))
    g = srcad.grad(f)
    assert np.allclose(g(np.array([0.5, -1.0, -0.5]), np.array([0.3, -0.2])),
                       srcad.tape.grad(f)(np.array([0.5, -1.0, -0.5]), np.array([0.3, -0.2])))
    for node in ast.walk(ast.parse(srcad.source(g))):
        if isinstance(node, ast.If):
            assert not all(isinstance(s, ast.Pass) for s in node.body), ast.unparse(node)
