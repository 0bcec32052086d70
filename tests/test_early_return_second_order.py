"""Second derivatives of a function whose loop may return early (found by the long property
run, 2026-12-04: ``for i in range(0): if x > x and x > 0.1: return x`` then ``return x + (x +
x) * y``).

The first derivative's code computes a temporary only where the function did not return in
the loop (``if t_4: t_5 = x + x``) and reads it under the same test in its backward part.
Differentiated again, that read is of a name unset on one path: srcad guards it with a check
that raises Python's ``UnboundLocalError`` where it would be unset, and building that check
read the line number of a name srcad's own code has none for (``AttributeError``, a crash in
both second-order modes). A generated family around it: loops of 0, 1 and 3 iterations, a
return taken never, sometimes or at once, three final expressions; the Hessian by reverse over
reverse and forward over reverse, against autograd's.
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

LOOPS = (0, 1, 3)
TESTS = {
    "never": "x > x and x > 0.1",
    "sometimes": "x * i > 0.5",
    "at_once": "y < 10.0",
}
RESULTS = {
    "sum": "x + (x + x) * y",
    "product": "x * y * y",
    "sine": "np.sin(x) * y + x",
}
CASES = list(itertools.product(LOOPS, TESTS, RESULTS))


def _program(tmp_path, n, test, result):
    text = (f"def f(x, y):\n    v = x\n    for i in range({n}):\n        if {TESTS[test]}:\n"
            f"            return x * y\n        v = v * 0.5\n    return {RESULTS[result]}\n")
    return program_files.load(tmp_path, f"early_{n}_{test}_{result}", text, (np, anp))


@pytest.mark.parametrize("n, test, result", CASES, ids=[f"{n}-{t}-{r}" for n, t, r in CASES])
def test_second_derivative_after_a_loop_that_may_return(tmp_path, n, test, result):
    f, f_autograd = _program(tmp_path, n, test, result)
    check_second_derivatives(f, f_autograd, (0.7, -0.4))


def check_second_derivatives(f, f_autograd, args):
    """Every second derivative of ``f(x, y)`` at ``args``, reverse over reverse and forward
    over reverse, against autograd's Hessian; returns that Hessian."""
    expected = autograd.hessian(lambda v: f_autograd(v[0], v[1]))(np.array(args))
    for i, j in itertools.product((0, 1), repeat=2):
        first = srcad.grad(f, wrt=i)
        rev = srcad.grad(first, wrt=j)(*args)
        fwd = srcad.jvp(first, args, tuple(float(k == j) for k in (0, 1)))[1]
        assert np.isclose(rev, expected[i, j], rtol=1e-9, atol=1e-12), (args, i, j, rev)
        assert np.isclose(fwd, expected[i, j], rtol=1e-9, atol=1e-12), (args, i, j, fwd)
    return expected
