"""A module that defines its own ``reversed``, ``slice``, ``len``, ... (names of Python's
builtins) for other purposes: srcad's generated code, which writes those builtins itself
(``for i in reversed(range(n))``, ``scatter(g, x, slice(None, 1, None))``), must still call
Python's, or a backward loop walks in the wrong order (a wrong gradient, no error).

Each program is written to a module in which every such name is defined as something else
(a function the program never calls); gradients are checked against finite differences.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

SHADOWS = """
def reversed(x):
    return x


def slice(*args):
    return 0


def len(x):
    return 1


def range(*args):
    return [0]


def zip(*args):
    return []


def enumerate(x):
    return []


def float(x):
    return 0.0


def list(x=()):
    return [0.0]


def tuple(x=()):
    return ()


def sum(x, start=0):
    return 0.0


def abs(x):
    return 0.0


def isinstance(x, t):
    return False
"""

PROGRAMS = {
    "loop_with_pops": """
def f(x):
    s = 0.0
    for i in builtins.range(5):
        if x > i - 2:
            s = s + x * x * i
        else:
            s = s - np.sin(x) * i
    return s
""",
    "list_loop": """
def f(x):
    out = []
    for i in builtins.range(4):
        out.append(x ** i)
    t = 0.0
    for v in out:
        t = t + v * v
    return t
""",
    "array_slices": """
def f(x):
    y = np.exp(x)[:2] * x[1:]
    return np.sum(y * y)
""",
    "while_loop": """
def f(x):
    term = 1.0
    s = 1.0
    n = 1
    while builtins.abs(term) > 1e-8:
        term = term * x / n
        s = s + term
        n += 1
    return s
""",
    "params": """
def f(x):
    h = x
    for W in [np.eye(2) * 0.5, np.ones((2, 2)) * 0.3]:
        h = np.tanh(W @ h)
    return np.sum(h * h)
""",
}


def _load(tmp_path, name, body):
    text = "import builtins\n\nimport numpy as np\n" + SHADOWS + "\n" + body
    return load_module(tmp_path, text, f"shadowed_{name}").f


POINTS = {"loop_with_pops": [0.4, -1.3, 2.7], "list_loop": [0.6, -0.9],
          "while_loop": [0.5, -1.2]}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_generated_code_calls_pythons_builtins(tmp_path, name, mode):
    f = _load(tmp_path, name, PROGRAMS[name])
    vector = name in ("array_slices", "params")
    points = [np.array([0.3, -0.4, 0.8][: 3 if name == "array_slices" else 2])] if vector \
        else POINTS[name]
    for x in points:
        expected = numerical_grad(f, (x,), 0)
        if mode == "grad":
            got = srcad.grad(f)(x)
        else:
            v = np.linspace(0.5, 1.5, np.size(x)) if vector else 1.0
            got = srcad.jvp(f, (x,), (v,))[1]
            expected = np.sum(expected * v)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


AMBIGUOUS = """
import numpy as np


def range(n):
    return [0, 1]


def f(x):
    s = 0.0
    for i in range(3):
        s = s + x * i
    for v in [x, x * x]:
        s = s + v
    return s
"""


def test_a_module_function_hiding_a_builtin_srcad_writes_is_refused(tmp_path):
    """The module's ``range`` is called by the code, and srcad's loops call Python's: one
    name cannot mean both, so srcad says so (it would have walked the wrong loop)."""
    module = load_module(tmp_path, AMBIGUOUS, "ambiguous_range")
    with pytest.raises(srcad.SrcadError, match="builtin range") as info:
        srcad.grad(module.f)(0.5)
    assert info.value.filename == module.__file__
