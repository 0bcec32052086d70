"""NumPy calls writing into a local array inside a loop (``np.add(X, X, out=X)``,
``np.copyto``, ``np.fill_diagonal``, ``np.add.at``): the lowering reads each as a new version
of the array (``X[...] = np.add(X, X)``), but the loop's carried names were found by
assignments only, so the loop carried no version of ``X`` and the code after it read one
made inside the body (``IRError: X_1 read before it is defined``; the mutant fuzzer on
pycse's ``objective`` with ``out=`` in a loop). Each form: srcad's value and gradient against
the plain function, central differences and autograd (a twin writing nothing), Hessians
both ways against differences of the gradient. Imports NumPy, autograd, pytest, srcad and
the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG

import srcad

#: write -> (srcad's statement, the twin's)
WRITES = {"out_add": ("np.add(X, X * 0.5, out=X)", "X = X + X * 0.5"),
          "out_multiply": ("np.multiply(X, np.sin(X), out=X)", "X = X * np.sin(X)"),
          "out_tuple": ("np.tanh(X, out=(X,))", "X = np.tanh(X)"),
          "copyto": ("np.copyto(X, X ** 2 * 0.5)", "X = X ** 2 * 0.5"),
          "add_at": ("np.add.at(X, [0, 0, 2], X[[1, 2, 0]])",
                     "X = X + np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]) @ X")}
LOOPS = {"for": ("for k in range({n}):\n", "    "),
         "while": ("k = 0\n    while k < {n}:\n        k += 1\n", "    "),
         "nested": ("for k in range({n}):\n        for j in range(1):\n", "        ")}
READS = {"unpacked": "x, y, z = X\n    return x ** 2 + y * z",
         "summed": "return np.sum(X ** 2)",
         "item": "a = X[0]\n    return a * X[1] + X[2]"}
CASES = list(itertools.product(WRITES, LOOPS, READS, (0, 2)))
CASES = CASES if LONG else CASES[::6]


def _text(write, loop, read, n, twin):
    head, indent = LOOPS[loop]
    return (f"import numpy as np\n\n\ndef f(X):\n    X = X * 1.0\n    {head.format(n=n)}"
            f"    {indent}{WRITES[write][twin]}\n    {READS[read]}\n")


@pytest.mark.parametrize("write,loop,read,n", CASES)
def test_write_in_loop(tmp_path, write, loop, read, n):
    f = load(tmp_path, f"w_{write}_{loop}_{read}_{n}", _text(write, loop, read, n, 0))
    twin = load(tmp_path, f"t_{write}_{loop}_{read}_{n}", _text(write, loop, read, n, 1),
                (anp,))
    x = np.array([0.4, -0.7, 0.9])
    value, grad = srcad.value_and_grad(f)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
    want = autograd.grad(twin)(x.copy())
    np.testing.assert_allclose(grad, want, rtol=1e-9, atol=1e-12)
    steps = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(grad, steps, rtol=1e-5, atol=1e-6)
    g = srcad.grad(f)
    hess = np.array([(g(x + 1e-5 * e) - g(x - 1e-5 * e)) / 2e-5 for e in np.eye(3)]).T
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x.copy()), hess, rtol=1e-5,
                                   atol=1e-6)
