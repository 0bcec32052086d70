"""Imports among the function's own statements (``import numpy as np``, ``from scipy.special
import expit as sig``, ``import scipy.stats``): the module or object, imported while srcad
makes the code, a constant of it (refused before: "an import inside the function"). One in a
branch or a loop, or one binding a name read before it stays refused. Against
finite differences and autograd (``autograd.numpy`` imported the same way).
"""

from __future__ import annotations

import itertools

import numpy as np
import program_files
import pytest

import srcad

autograd = pytest.importorskip("autograd")

_IMPORTS = {
    "numpy_as": ("import {np} as xp", "xp.sum(xp.sin(x) * x)"),
    "from_as": ("from {np} import tanh as th, exp", "th(x).sum() + exp(x[0])"),
    "math": ("import math\n    from math import pi", "x[0] * math.e + pi * x[1]"),
    "dotted": ("import {np}.linalg", "{np}.linalg.norm(x) + x[2]"),
    "two": ("import {np} as xp\n    import math as m", "xp.prod(x) * m.pi"),
}
_AFTER = {"return": "return {e}",
          "loop": "s = 0.0\n    for i in range(2):\n        s = s + ({e}) * (i + 1)\n    return s"}
_CASES = list(itertools.product(_IMPORTS, _AFTER))


def _text(imports, after, np_name):
    stmt, expr = _IMPORTS[imports]
    body = stmt.format(np=np_name) + "\n    " + _AFTER[after].format(e=expr.format(np=np_name))
    return "def f(x):\n    " + body + "\n"


@pytest.mark.parametrize("imports, after", _CASES, ids=[f"{i}-{a}" for i, a in _CASES])
def test_an_import_among_the_functions_statements(tmp_path, imports, after):
    f = program_files.load(tmp_path, f"imp_{imports}_{after}", _text(imports, after, "numpy"))
    f_autograd = program_files.load(tmp_path, f"imp_{imports}_{after}_ag",
                                    _text(imports, after, "autograd.numpy"))
    x = np.array([0.4, -0.7, 1.3])
    want = autograd.grad(f_autograd)(x)
    got = srcad.grad(f)(x)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (got, want)
    fd = np.array([(f(x + e) - f(x - e)) / 2e-6 for e in np.eye(3) * 1e-6])
    assert np.allclose(got, fd, rtol=1e-5, atol=1e-7)
    assert np.isclose(srcad.jvp(f, (x,), (np.ones(3),))[1], np.sum(want), rtol=1e-9)
    assert np.allclose(srcad.hessian(f)(x), autograd.hessian(f_autograd)(x), rtol=1e-8,
                       atol=1e-10)


@pytest.mark.parametrize("body", [
    "if x[0] > 0:\n        import math\n    return x[0] * 2.0",
    "for i in range(1):\n        import math\n    return x[0] * math.pi",
    "y = math.pi * x[0]\n    import math\n    return y",
    "import math\n    math = 2.0\n    return x[0] * math",
])
def test_other_imports_stay_refused(tmp_path, body):
    text = "import math\n\n\ndef f(x):\n    " + body + "\n"
    f = program_files.load(tmp_path, f"imp_refused_{abs(hash(body))}", text)
    with pytest.raises(srcad.SrcadError):
        srcad.grad(f)(np.array([0.3, 0.2]))
