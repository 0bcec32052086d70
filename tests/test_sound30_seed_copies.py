"""A callee returning an array whose backward part writes its gradient's items (``y[i] =
y[i] * y[i - 1]`` in a loop: ``dy = cleared(dy, i) + ...`` then ``dy[i] += ...``): the
backward part copied its seed as a list (``dy = list(dy)``, meant for a list the callee
returns and pops from), and an array became a list of its items or rows: rows could not be
cleared and added to (a crash of the first order), a loop that did not run left a list where
an array was read (``-dy / 2.0``), and forward over reverse gave the list's tangent twice the
items (a broadcast ``ValueError``; found by the mutant fuzzer on kernel-gof's
``isogauss_log_den`` given ``out=X`` and an item loop). The seed of an array or a number is
not copied now (the sweep adds in place only into arrays it made), one of unknown kind by
``mutable``. Each form: the gradient against central differences and autograd (on a twin
writing no items), the
Hessian forward over reverse and reverse over reverse against differences of the gradient.
Imports NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG

import srcad

#: form -> (srcad's text, the autograd twin's: no writes)
MADE = {"scaled": ("x * 2.0",) * 2, "outer": ("np.outer(x, x)",) * 2, "sin": ("np.sin(x)",) * 2,
        "out_written": ("x.copy()\n    np.multiply(x, 1.5, out=y)", "x * 1.5")}
STEPS = {"chain": ("y[i] = y[i] * y[i - 1]", "y = put(y, i, y[i] * y[i - 1])"),
         "copy_back": ("y[i] = y[i - 1] * 3.0", "y = put(y, i, y[i - 1] * 3.0)"),
         "augmented": ("y[i] += y[i - 1] ** 2", "y = put(y, i, y[i] + y[i - 1] ** 2)")}
PUT = ("def put(y, i, v):\n    return np.concatenate([y[:i], np.reshape(v, (1,) + np.shape(y)[1:]),"
       " y[i + 1:]])\n\n\n")
READS = {"sum_weighted": "np.sum(y * np.cos(np.arange(y.size).reshape(y.shape)))",
         "scaled_minus": "np.sum(-y / 2.0) + np.sum(y ** 2)"}
CASES = list(itertools.product(MADE, STEPS, READS, (1, 2, 3)))
CASES = CASES if LONG else CASES[::5]


def _text(made, step, read, twin=0):
    return (f"import numpy as np\n\n\n{PUT if twin else ''}def g(x, n):\n"
            f"    y = {MADE[made][twin]}\n"
            f"    for i in range(1, n):\n        {STEPS[step][twin]}\n    return y\n\n\n"
            f"def f(x, n):\n    y = g({'x' if twin else 'x.copy()'}, n)\n"
            f"    return {READS[read]}\n")


def _differences(fun, x, n, h):
    return np.array([(fun(x + h * e, n) - fun(x - h * e, n)) / (2 * h)
                     for e in np.eye(x.size)]).T


@pytest.mark.parametrize("made,step,read,n", CASES)
def test_callee_item_loop(tmp_path, made, step, read, n):
    f = load(tmp_path, f"s_{made}_{step}_{read}_{n}", _text(made, step, read))
    twin = load(tmp_path, f"t_{made}_{step}_{read}_{n}", _text(made, step, read, 1), (anp,))
    x = np.array([0.7, -0.4, 1.3])
    g = srcad.grad(f)
    got = g(x.copy(), n)
    np.testing.assert_allclose(got, _differences(f, x, n, 1e-6), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, autograd.grad(twin)(x.copy(), n), rtol=1e-10, atol=1e-12)
    want = _differences(g, x, n, 1e-5)
    v = np.array([0.3, 0.5, -0.2])
    _, hv = srcad.jvp(g, (x.copy(), n), (v,), wrt=(0,))
    np.testing.assert_allclose(hv, want @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcad.hessian(f, mode="rev")(x.copy(), n), want, rtol=1e-5,
                               atol=1e-6)


def test_caller_seed_stays_whole(tmp_path):
    """The caller's cotangent of a callee writing its gradient's rows is not changed."""
    text = ("import numpy as np\n\n\ndef f(x, n):\n    y = np.outer(x, x)\n"
            "    for i in range(1, n):\n        y[i] = y[i] * y[i - 1]\n    return y\n")
    h = load(tmp_path, "s_seed_vjp", text)
    x = np.array([0.7, -0.4, 1.3])
    ct = np.arange(9.0).reshape(3, 3)
    kept = ct.copy()
    _, pullback = srcad.vjp(h, x, 3)
    first = pullback(ct)[0]
    np.testing.assert_array_equal(ct, kept)
    np.testing.assert_allclose(pullback(ct)[0], first, rtol=0)
    np.testing.assert_allclose(first, _differences(lambda z, n: np.sum(h(z, n) * ct), x, 3, 1e-6),
                               rtol=1e-5, atol=1e-6)
