"""Reverse over reverse of an item of a list or dict written in a loop and read in one arm of
a branch (``seen[0] = z * 3.0``, then ``if j == 0: z = z * 1.2 else: z = z + seen[0]``):
the first backward sweep clears the written item's gradient to ``0.0`` (``cleared``) and meets
it with an array on the next turn, ``unbroadcast(0.0, t)``, which spreads the number to
``t``'s shape; the second sweep undid that by ``broadcast_as(g, 0.0)``, a ``ValueError``
("cannot broadcast a non-scalar to a scalar array") in ``srcad.hessian(mode="rev")`` (the
session 32 fuzzer's run 1: ``changing_truths``' dict of seen keys on a notebook's ``logq0``).
``broadcast_as`` now sums a value of a higher rank down to a ``like`` of one element: the
adjoint of that spread (``runtime/helpers``).

A generated family: a dict or a list, the item's key fixed or ``j % 2``, what is written, the
read in the else arm or after the branch, arrays of rank 1 and 2; ``hessian`` (reverse over
reverse; forward over reverse too in the long run) against autograd's and central differences
of srcad's gradient. A second class met on the way: the kinds of such a list's items
(``analysis/analyse``) took ``cleared``'s for its argument's and dropped them when those were
not one kind, so a merge took the cleared list's items to be arrays (``t.shape`` of the
``0.0``: ``AttributeError``); ``cleared`` puts a number beside them now. Imports itertools, NumPy,
autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG, sample_by

import srcad

HOLDERS = {"dict": "seen = {{}}", "list": "seen = [z * 1.0, z * 1.0]"}
KEYS = {"fixed": "0", "parity": "j % 2"}
WRITES = {"scaled": "z * 3.0", "sin": "np.sin(z)", "turn": "z * (j + 1)"}
READS = {
    "else": "        if j == 0:\n            z = z * 1.2\n        else:\n"
            "            z = z + seen[{k}]\n",
    "after": "        if j == 0:\n            z = z * 1.2\n        z = z * seen[{k}]\n",
}
RANKS = (1, 2)
CASES = [c for c in sample_by(list(itertools.product(HOLDERS, KEYS, WRITES, READS, RANKS)),
                               lambda case: (case[0], case[3]), 1000)
         if LONG or c[:2] != ("dict", "parity") and c[0:4:3] != ("dict", "after")]


@pytest.mark.parametrize("holder,key,write,read,rank", CASES)
def test_a_cleared_item_met_by_an_array(tmp_path, holder, key, write, read, rank):
    k = KEYS[key]
    text = (f"def f(z):\n    {HOLDERS[holder].format()}\n    for j in range(3):\n"
            f"        seen[{k}] = {WRITES[write]}\n" + READS[read].format(k=k) +
            "    return np.sum(z ** 2)\n")
    name = f"c_{holder}_{key}_{write}_{read}_{rank}"
    f, twin = load(tmp_path, name, "import numpy as np\n\n\n" + text, (np, anp))
    z = np.random.RandomState(rank).uniform(0.2, 0.7, size=(3,) if rank == 1 else (2, 2))
    want = np.asarray(autograd.hessian(twin)(z))
    g = srcad.grad(f)
    n = z.size
    fd = np.stack([(g(z + 1e-5 * e.reshape(z.shape)) - g(z - 1e-5 * e.reshape(z.shape)))
                   / 2e-5 for e in np.eye(n)], axis=-1).reshape(want.shape)
    np.testing.assert_allclose(fd, want, rtol=1e-5, atol=1e-6)
    for mode in ("rev", "fwd") if LONG else ("rev",):  # (forward over reverse: long run)
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(z), want, rtol=1e-9,
                                   atol=1e-10)
