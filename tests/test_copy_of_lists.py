"""``np.copy(xs)`` of a list (or tuple) of numbers carrying gradients is ``np.array(xs)``: its
gradient is a list again, which the list's own backward code reads (``.pop()`` of an appended
list, items of a display). Found by tests/test_properties_numba.py's generator (np.array
rewritten np.copy): ``AttributeError: 'numpy.ndarray' object has no attribute 'pop'`` in the
generated code. Each form against autograd (the same program with ``np.array``) and central
differences, in reverse and forward mode."""

import math

import autograd
import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

BUILDS = {
    "appended": ("    L = []\n    for i in range(3):\n        L.append(math.sin(a[i]) * x)\n"),
    "display": "    L = [math.sin(a[0]) * x, a[1], a[2] * a[0]]\n",
    "tuple": "    L = (math.sin(a[0]) * x, a[1], a[2] * a[0])\n",
    "comprehension": "    L = [math.sin(a[i]) * x for i in range(3)]\n",
}
USES = {
    "sum": "    return np.sum(b * b) + x\n",
    "scaled": "    c = b * 1.0\n    return np.sum(np.tanh(c * b))\n",
    "item": "    return np.sum(b) * L[-1]\n",
}


@pytest.mark.parametrize("build", sorted(BUILDS))
@pytest.mark.parametrize("use", sorted(USES))
def test_copy_of_a_list(tmp_path, build, use):
    body = BUILDS[build] + "    b = {}(L)\n" + USES[use]
    header = "import math\nimport numpy as np\nimport autograd.numpy as anp\n\n"
    ours = load_module(tmp_path, header + "def f(a, x):\n" + body.format("np.copy"))
    theirs = load_module(tmp_path, header + "def f(a, x):\n"
                     + body.format("anp.array").replace("np.", "anp.").replace("aanp.", "anp.")
                     .replace("math.sin", "anp.sin"))
    a, x = np.array([0.3, -0.7, 1.1]), 1.3
    ga, gx = srcad.grad(ours.f, wrt=(0, 1))(a.copy(), x)
    wa, wx = autograd.grad(theirs.f, (0, 1))(a.copy(), x)
    np.testing.assert_allclose(ga, wa, rtol=1e-12, atol=1e-14)
    assert math.isclose(gx, wx, rel_tol=1e-12, abs_tol=1e-14)
    na, nx = numerical_grad(ours.f, (a.copy(), x), wrt=(0, 1))
    np.testing.assert_allclose(ga, na, rtol=1e-6, atol=1e-8)
    assert math.isclose(gx, nx, rel_tol=1e-6, abs_tol=1e-8)
    u = np.array([0.5, -1.0, 0.25])
    _, tangent = srcad.jvp(ours.f, (a.copy(), x), (u, -0.5))
    assert math.isclose(tangent, float(np.dot(wa, u)) - 0.5 * wx, rel_tol=1e-10, abs_tol=1e-12)
