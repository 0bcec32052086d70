"""A callee returning its array parameter itself on every path (``return u if c > 1.0 else u``,
``if c > 1.0: return u`` / ``return u``), called where the caller's gradient of the argument is
already an array it made (``call(a)`` after ``a * v``, in a loop): the variant of the backward
part that adds into the caller's array (srcad/transform/into.py) named its seed and its buffer
both ``du``, and its code did not compile (``SyntaxError: duplicate argument 'du'``; found by
tests/test_properties_python.py, seed 50109). The plain backward part is called there now.
Against autograd on the same source and central differences. Imports NumPy, autograd, srcad."""

import autograd
import numpy as np
import pytest
from class_families import module_of
from twin_checks import central, close

import srcad

CALLEES = {
    "ternary": "def helper(u, c):\n    return u if c > 1.0 else u\n",
    "branches": "def helper(u, c):\n    if c > 1.0:\n        return u\n    return u\n",
    "ternary_np": "def helper(u, c):\n    return (u if np.all(c > 1.0) else u)\n",
}

CALLERS = {
    "after_use": "def f(a):\n    return np.sum(a * 0.5 + helper(a, 1.5) * 2.0)\n",
    "in_call": "def call(u, v):\n    return helper(u, 1.5) * 2.0 + u * v\n\n\n"
               "def f(a):\n    return np.sum(call(a, 0.5))\n",
    "loop": "def f(a):\n    s = a * 1.0\n    for i in range(3):\n"
            "        s = s * np.sin(a) + helper(a, 0.5 + i)\n    return np.sum(s)\n",
}


@pytest.mark.parametrize("caller", sorted(CALLERS))
@pytest.mark.parametrize("callee", sorted(CALLEES))
def test_callee_returning_its_parameter(tmp_path, callee, caller):
    text = "import numpy as np\n\n\n" + CALLEES[callee] + "\n\n" + CALLERS[caller]
    mod = module_of(tmp_path, text, f"into_{callee}_{caller}", "")
    twin = module_of(tmp_path, text, f"into_{callee}_{caller}_ag", "", numpy="autograd.numpy")
    a = np.array([0.3, -0.5, 1.0])
    got = srcad.grad(mod.f)(a)
    assert close(got, autograd.grad(twin.f)(a), 1e-10), text
    assert close(got, central(mod.f, [a], 0), 1e-6)
    hess = srcad.hessian(mod.f)(a)
    assert close(hess, autograd.hessian(twin.f)(a), 1e-9)
