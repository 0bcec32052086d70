"""A float argument's gradient is a float, even where its code computes it from ints.

``grad(lambda x, n: x * n)(3.0, 4)`` is ``n`` written out: the int 4 before
(srcad.backend.int_grads). A generated family of bodies whose gradient with respect to the
float ``x`` is made of ints only (the int parameters, ``len``, a ``range`` counter, int
arithmetic), each checked for its value (against finite differences and autograd) and for its
type: a Python float for a float or ``np.float64`` argument, a ``np.float32`` for a
``np.float32`` one. Bodies whose gradient already is a float keep their code unchanged.
"""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load

import srcad

#: bodies of f(x, n, m, xs): the gradient with respect to x is an int for int n, m
INT_BODIES = [
    "return x * n",
    "return n * x",
    "return x * n + x * m",
    "return -(x * n)",
    "return x * n * m",
    "return x * (n // 2)",
    "return x * len(xs)",
    "return (x * n if n > 2 else x * m)",
    "y = x * n\n    return y - x * m",
    "s = 0.0\n    for i in range(n):\n        s = s + x * i\n    return s",
    "k = n + m\n    return k * x",
    "return x * n + 5",
]
#: bodies whose gradient is a float whatever n is: no float() is written
FLOAT_BODIES = [
    "return x * x * n",
    "return np.sin(x) * n",
    "return x / n",
    "return x * 2.5",
]
POINTS = [(3.0, 4, 2), (-1.5, 3, 5), (0.0, 1, 0)]


def _program(tmp_path, body, k):
    text = f"def f(x, n, m, xs):\n    {body}\n"
    if "np." in text:
        return load(tmp_path, f"fg{k}", text, modules=(np, anp))
    return load(tmp_path, f"fg{k}", text, modules=(None, None))


def _fd(f, x, *rest, h=1e-6):
    return (f(x + h, *rest) - f(x - h, *rest)) / (2 * h)


@pytest.mark.parametrize("k,body", list(enumerate(INT_BODIES)))
def test_an_int_valued_gradient_is_a_float(tmp_path, k, body):
    f, fa = _program(tmp_path, body, k)
    xs = [1.0, 2.0, 3.0]
    for x, n, m in POINTS:
        g = srcad.grad(f)(x, n, m, xs)
        assert type(g) is float, (body, g)
        assert g == pytest.approx(_fd(f, x, n, m, xs), abs=1e-6)
        assert g == pytest.approx(float(autograd.grad(fa)(x, n, m, xs)))
        value, g2 = srcad.value_and_grad(f)(x, n, m, xs)
        assert value == f(x, n, m, xs) and type(g2) is float and g2 == g
        g64 = srcad.grad(f)(np.float64(x), n, m, xs)
        assert type(g64) is float and g64 == g
        g32 = srcad.grad(f)(np.float32(x), n, m, xs)
        assert type(g32) is np.float32 and g32 == pytest.approx(g, rel=1e-6)


@pytest.mark.parametrize("k,body", list(enumerate(INT_BODIES)))
def test_two_float_arguments(tmp_path, k, body):
    """wrt x and a float w next to it: x's gradient a float, w's untouched."""
    text = f"def f(x, w, n, m, xs):\n    {body.replace('return ', 'return w * w + ', 1)}\n"
    f = load(tmp_path, f"fg2_{k}", text)
    for x, n, m in POINTS:
        dx, dy = srcad.grad(f, wrt=(0, 1))(x, 1.5, n, m, [1.0, 2.0, 3.0])
        assert type(dx) is float and type(dy) is float
        assert dx == pytest.approx(_fd(f, x, 1.5, n, m, [1.0, 2.0, 3.0]), abs=1e-6)
        assert dy == pytest.approx(3.0)


@pytest.mark.parametrize("k,body", list(enumerate(FLOAT_BODIES)))
def test_float_gradients_keep_their_code(tmp_path, k, body):
    f, fa = _program(tmp_path, body, 100 + k)
    for x, n, m in POINTS:
        if "/ n" in body and n == 0:
            continue
        g = srcad.grad(f)(x, n, m, [1.0])
        assert type(g) in (float, np.float64)
        assert g == pytest.approx(float(autograd.grad(fa)(x, n, m, [1.0])))
    assert "float(" not in srcad.source(srcad.grad(f), 3.0, 4, 2, [1.0])


def test_the_code_reads_as_written_by_hand(tmp_path):
    f = load(tmp_path, "fgsrc", "def f(x, n):\n    return x * n\n")
    src = srcad.source(srcad.grad(f), 3.0, 4)
    assert "dx = float(n)" in src and "return dx" in src
    # a float n: nothing to convert
    assert "float(" not in srcad.source(srcad.grad(f), 3.0, 4.0)


def test_bool_and_int_arguments_side_by_side(tmp_path):
    f = load(tmp_path, "fgbool", "def f(x, flag, n):\n    return x * flag + x * n\n")
    for flag, n in itertools.product((True, False), (0, 3)):
        g = srcad.grad(f)(2.0, flag, n)
        assert type(g) is float and g == float(flag) + n


def test_an_unknown_value_is_left_as_it_is(tmp_path):
    """A NumPy call's value may be an array or a complex number: float() is never written
    around what is not certainly a Python number."""
    f = load(tmp_path, "fgnp", "import numpy as np\n\ndef f(x, n):\n"
             "    return x * np.sum(n)\n")
    g = srcad.grad(f)(2.0, np.arange(3))
    assert g == 3
    assert "float(" not in srcad.source(srcad.grad(f), 2.0, np.arange(3))
