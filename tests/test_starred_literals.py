"""Starred items in list and tuple displays: ``[*xs, y]``, ``(*w, v)``, ``[*map(f, w), *gen]``.

They were refused ("starred expressions (*xs) in a literal"). The front end reads a display
with starred items as the concatenation Python builds, ``list(xs) + [y]`` (a tuple:
``tuple(xs) + (y,)``), forms srcad differentiates, when ``list``/``tuple`` are Python's own
where the function is (a name bound to something else keeps the refusal). A generated family
of displays x what is spread (a list, a tuple, an array, rows of a matrix, map, a generator,
range) x how the result is read, against finite differences and autograd, with jvp and both
Hessian modes.
"""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load

import srcad
from srcad.errors import SrcadError

#: what is spread (an expression of w, a vector of 3, giving at least two items)
SPREAD = {
    "list": "[w[0] * w[1], np.sin(w[2])]",
    "tuple": "(w[2] ** 2, w[0])",
    "array": "w * 2.0",
    "map": "map(np.tanh, w)",
    "generator": "(v * v for v in w)",
    "comprehension": "[v + w[0] for v in w[1:]]",
}
#: displays holding the spread items s (name S in the text) and other values
DISPLAYS = [
    "[*S, w[0]]",
    "[w[1], *S]",
    "[*S, w[2] * 3.0, *S]",
    "(*S, w[0])",
    "(w[1] * w[2], *S, *S)",
]
#: how the built sequence q is read
READS = [
    "return q[0] * q[-1] + q[1] ** 2",
    "return sum(q) * q[1]",
    "a, *rest = q\n    return a * len(rest) + rest[-1] ** 3",
]


def _text(spread, display, read):
    built = display.replace("S", spread)
    return f"def f(w):\n    q = {built}\n    {read}\n"


W = np.array([0.4, -0.9, 1.3])
CASES = list(itertools.product(SPREAD, range(len(DISPLAYS)), range(len(READS))))


def _fd(f, w, h=1e-6):
    return np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(len(w))])


@pytest.mark.parametrize("spread,d,r", CASES)
def test_a_display_with_starred_items(tmp_path, spread, d, r):
    text = _text(SPREAD[spread], DISPLAYS[d], READS[r])
    f, fa = load(tmp_path, f"st_{spread}_{d}_{r}", text, modules=(np, anp))
    value, g = srcad.value_and_grad(f)(W.copy())
    assert value == pytest.approx(f(W.copy()), rel=1e-12)
    np.testing.assert_allclose(g, _fd(f, W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(W.copy()), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("spread", list(SPREAD))
def test_forward_mode_and_second_order(tmp_path, spread):
    text = _text(SPREAD[spread], DISPLAYS[2], READS[0])
    f, fa = load(tmp_path, f"sth_{spread}", text, modules=(np, anp))
    u = np.array([0.5, -1.0, 0.25])
    _, t = srcad.jvp(f, (W.copy(),), (u,))
    assert t == pytest.approx(float(autograd.grad(fa)(W.copy()) @ u), rel=1e-10)
    want = autograd.hessian(fa)(W.copy())
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(W.copy()), want, rtol=1e-8,
                                   atol=1e-10)


@pytest.mark.parametrize("kind", ["list", "tuple"])
def test_a_shadowed_builtin_keeps_the_refusal(tmp_path, kind):
    text = (f"def {kind}(xs):\n    return xs\n\n\n"
            "def f(w):\n    q = " + ("[*w, w[0]]" if kind == "list" else "(*w, w[0])") +
            "\n    return q[0] * q[1]\n")
    f = load(tmp_path, f"sts_{kind}", text, modules=(np,))
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(W.copy())
    assert "starred" in str(info.value) and info.value.lineno == 6
