"""``:=`` (issue 16: Python as people write it). An assignment expression in a statement's
expressions is the assignment where Python evaluates it: in a test, a return value, a call's
argument; in an operand of ``and``/``or`` or an arm of ``a if c else b`` only on the path that
evaluates it; in a ``while`` test on every pass (desugar reads ``while test: body`` as ``while
True: if not test: break; body``: a loop's header is lowered once, and a value it assigned was
read by the backward sweep as its last one, a wrong gradient the family caught while the form
was being written). In a comprehension, a lambda or a default it binds another scope's name:
refused, as is a ``while`` with an ``else`` (the break would skip it).

Each program is checked against autograd (which runs the Python as written): the gradient at
points on both sides of its branches, and both Hessian modes.
"""

from __future__ import annotations

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

PROGRAMS = {
    "if_test": "if (y := x * x) > 1.0:\n        return y * 2.0\n    return y + x",
    "elif_test": "if x > 5.0:\n        return x\n    elif (y := x * 3.0) > 2.0:\n"
                 "        return y * y\n    return x - 1.0",
    "return": "return np.sin(w := x * 2.0) * w",
    "call_argument": "return np.power(x, 2.0) + np.maximum(x, (m := x * 0.5)) * m",
    "and_right": "y = 0.5\n    if x > 2.0 and (y := x * x) > 1.0:\n        return y\n"
                 "    return y * x",
    "or_right": "y = 1.0\n    r = (x > 0.0) or (y := x * 4.0)\n    return y * x + r",
    "ifexp_arm": "y = 0.5\n    z = x * 3.0 if x < 0.0 else (y := x * x)\n    return y * z",
    "ifexp_test": "z = (q := x * x) * q if (p := x + 1.0) > 0.0 else p * p\n    return z * p",
    "while_test": "n = 0\n    s = 0.0\n    while (n := n + 1) < 4:\n        s = s + x ** n\n"
                  "    return s",
    "while_value": "s = x\n    k = 0\n    while (t := s * 0.5) > 0.1:\n        s = t + 0.01 * x\n"
                   "        k = k + 1\n    return s * t + k",
    "loop_body": "s = 0.0\n    for i in range(3):\n        if (v := x * (i + 1.0)) > 1.5:\n"
                 "            s = s + v * v\n    return s",
    "nested_def": "def inner(v):\n        return (u := v * v) + u\n    return inner(x) * x",
}
POINTS = (-1.3, 0.7, 1.6, 3.1)


def _functions(tmp_path, name):
    text = f"def f(x):\n    {PROGRAMS[name]}\n"
    return program_files.load(tmp_path, f"walrus_{name}", text, (np, anp))


@pytest.mark.parametrize("name", PROGRAMS)
def test_assignment_expression(tmp_path, name):
    f, f_autograd = _functions(tmp_path, name)
    for x in POINTS:
        assert f(x) == pytest.approx(f_autograd(x))
        value, grad = srcad.value_and_grad(f)(x)
        assert value == pytest.approx(f(x), rel=1e-12)
        assert grad == pytest.approx(autograd.grad(f_autograd)(x), rel=1e-9, abs=1e-12), x
        assert srcad.jvp(f, (x,), (1.0,))[1] == pytest.approx(grad, rel=1e-9, abs=1e-12)
        want = autograd.grad(autograd.grad(f_autograd))(x)
        for mode in ("fwd", "rev"):
            got = srcad.hessian(f, mode=mode)(x)
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (x, mode)


REFUSED = {
    "comprehension": ("ys = [y for v in range(3) if (y := x * v) > 0.5]\n    return sum(ys)",
                      "comprehension"),
    "lambda": ("g = lambda v: (u := v * x) + u\n    return g(2.0)", "lambda"),
    "while_else": ("n = 0\n    while (n := n + 1) < 3:\n        x = x * 2.0\n    else:\n"
                   "        x = x + 1.0\n    return x", "while loop with an else"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_assignment_expression_refused(tmp_path, name):
    body, words = REFUSED[name]
    f = program_files.load(tmp_path, f"walrus_refused_{name}", f"def f(x):\n    {body}\n")
    with pytest.raises(srcad.SrcadError, match=words) as caught:
        srcad.grad(f)(1.0)
    assert caught.value.lineno is not None and caught.value.hint
