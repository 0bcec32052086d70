"""A function value (a lambda, a nested ``def`` held in a name, passed to a function of yours or
to ``map``) reading a local that the function binds more than once, every binding before the
statement that makes the value: ``x = x * 2.0`` then ``apply(lambda u: u * x, a)``. Python reads
``x`` when the function is called, and from that statement on ``x`` holds one value, so the value
the function holds is the one it reads: differentiated (it was refused as "a function value
reading 'x', which the function assigns more than once"; found by
tests/test_properties_python.py, a common form: ``x = np.asarray(x)`` before a lambda). Bound
again after the value is made, or in the loop making it, it stays refused at the line. Each
case against autograd on the same source and central differences. Imports NumPy, autograd and
srcad."""

import itertools

import autograd
import numpy as np
import pytest
from class_families import module_of
from twin_checks import central, close

import srcad
from srcad.errors import SrcadError

HEAD = """\
import numpy as np


def apply(fn, u):
    return fn(u) * 1.5 + u


def f(x, a):
"""

BEFORE = {
    "scaled": "    x = x * 2.0\n",
    "array": "    x = np.array(x) * 1.0\n    a = a + x\n",
    "branches": "    if x > 0:\n        x = x * 2.0\n    else:\n        x = x - 1.0\n",
    "loop_before": "    for i in range(2):\n        x = np.sin(x) + 0.5\n",
}

USES = {
    "lambda_passed": "    r = apply(lambda u: u * x + a, a)\n",
    "def_held": "    def inner(u):\n        return np.tanh(u * x)\n    h = inner\n"
                "    r = apply(h, a)\n",
    "lambda_map": "    r = sum(map(lambda u: u * x, [a, a * a]))\n",
    "lambda_held": "    h = lambda u: np.exp(0.5 * np.sin(u * x))\n"
                   "    r = apply(h, a) + apply(h, x)\n",
}


#: made inside a loop that also binds the name: stays refused
LOOPED = "    r = 0.0\n    for i in range(2):\n        x = x * 2.0\n" \
         "        r = r + apply(lambda u: u * x, a)\n"

CASES = list(itertools.product(sorted(BEFORE), sorted(USES)))


def _check(tmp_path, text, stem):
    mod = module_of(tmp_path, text, stem, "")
    twin = module_of(tmp_path, text, stem + "_ag", "", numpy="autograd.numpy")
    x, a = 0.7, np.array([0.3, -0.5, 1.0])
    gx, ga = srcad.grad(mod.f, wrt=(0, 1))(x, a)
    wx, wa = autograd.grad(twin.f, (0, 1))(x, a)
    assert close(gx, wx, 1e-10) and close(ga, wa, 1e-10), (text, gx, ga, wx, wa)
    assert close(ga, central(mod.f, [x, a], 1), 1e-6)
    _, tangent = srcad.jvp(mod.f, (x, a), (1.0, np.zeros(3)))
    assert close(tangent, wx, 1e-10)


@pytest.mark.parametrize("before,use", CASES)
def test_bound_before_the_function_value(tmp_path, before, use):
    text = HEAD + BEFORE[before] + USES[use] + "    return np.sum(r)\n"
    _check(tmp_path, text, f"settled_{before}_{use}")


@pytest.mark.parametrize("use", ["lambda_held"])
def test_bound_again_after_it_is_refused(tmp_path, use):
    text = (HEAD + BEFORE["scaled"] + USES[use] + "    x = x + 1.0\n"
            "    return np.sum(r + apply(h, a))\n")
    mod = module_of(tmp_path, text, "settled_after", "")
    with pytest.raises(SrcadError) as info:
        srcad.grad(mod.f, wrt=(0, 1))(0.7, np.array([0.3, -0.5, 1.0]))
    assert info.value.filename == mod.__file__ and info.value.lineno == 11  # where h is passed
    assert "assigns more than once" in str(info.value)


def test_bound_in_the_loop_making_it_is_refused(tmp_path):
    mod = module_of(tmp_path, HEAD + LOOPED + "    return np.sum(r)\n", "settled_loop", "")
    with pytest.raises(SrcadError) as info:
        srcad.grad(mod.f, wrt=(0, 1))(0.7, np.array([0.3, -0.5, 1.0]))
    assert info.value.filename == mod.__file__ and info.value.lineno == 12
