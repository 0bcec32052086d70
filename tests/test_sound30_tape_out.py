"""``srcad.tape`` given a NumPy function's ``out=`` with a Var that requires grad: NumPy wrote
the values into the plain array ``out``, the tape recorded a result nobody read, and the
gradient through ``out`` was silently zero (``np.multiply(x, 1.5, out=y)``: 0.0 where 3.15;
found writing the fuzzer's tests, where the tape was the second engine). Refused now, with the
rewrite; ``out=`` of plain values is NumPy's as before, and srcad.grad's reading of the same
program agrees with central differences. Imports NumPy, pytest, srcad, srcad.tape and the
tests' helpers."""

from __future__ import annotations

import numpy as np
import pytest
from program_files import load

import srcad
from srcad import tape
from srcad.tools.tape.var import TapeUnsupportedError

CALLS = {"multiply": "np.multiply(x, 1.5, out=y)", "add": "np.add(x, x * 2.0, out=y)",
         "sin": "np.sin(x, out=y)", "exp_tuple": "np.exp(x, out=(y,))",
         "power": "np.power(x, 2.0, out=y)", "subtract": "np.subtract(1.0, x, out=y)"}


def _text(call):
    return (f"import numpy as np\n\n\ndef f(x):\n    y = np.zeros(np.shape(x))\n    {call}\n"
            "    return np.sum(y ** 2) + np.sum(x)\n")


@pytest.mark.parametrize("name", CALLS)
def test_out_of_a_var_is_refused(tmp_path, name):
    f = load(tmp_path, f"out_{name}", _text(CALLS[name]))
    x = np.array([0.7, -0.4, 1.3])
    with pytest.raises(TapeUnsupportedError, match="out="):
        tape.grad(f)(x.copy())
    steps = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(srcad.grad(f)(x.copy()), steps, rtol=1e-5, atol=1e-6)


def test_out_of_plain_values_is_numpys(tmp_path):
    text = ("import numpy as np\n\n\ndef f(x, c):\n    y = np.zeros(3)\n"
            "    np.multiply(c, 2.0, out=y)\n    return np.sum(x * y)\n")
    f = load(tmp_path, "out_plain", text)
    c = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(tape.grad(f)(np.ones(3), c), 2.0 * c, rtol=1e-12)
