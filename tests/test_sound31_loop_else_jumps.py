"""A ``break``, ``continue`` or ``return`` in the ``else`` part of a loop nested in a loop
(``for j in ...: ... else: s = s + 0.1; continue``) leaves the outer loop's iteration, so
the statements after the inner loop must not run then. The desugaring (``frontend/desugar``)
guarded the rest of the outer body only for a ``return`` in the inner loop: the ``continue``
of its ``else`` set a flag nothing read, and the outer body's rest ran anyway (the value
itself 16.82 where 20.76, every derivative with it; found by session 31's probes of the
break flags). The rest of the block is guarded by the flags the loop statement (its ``else``
part) may set now. A generated family: inner loops ``for``/``while``, with and without a
``break`` of their own, the ``else`` part's jump (``continue``, ``break``, ``return``, each
plain or under a test on the data), the inner loop at the top of the outer body or in an
``if``; value, gradient, ``jvp`` and (in the long run, or for ``continue``) the Hessian
(forward over reverse) against the program itself, autograd and central differences.
Imports itertools, NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG, sample
from twin_checks import central

import srcad

INNER = {
    "for_break": "for j in range(3):\n    if j > i:\n        break\n    s = s * c + np.sin(s)\n",
    "for_plain": "for j in range(i):\n    s = s * c + np.sin(s)\n",
    "while_break": "j = 0\nwhile j < 3:\n    j += 1\n    if np.sum(s) > 2.5 + i:\n"
                   "        break\n    s = s * c\n",
}
JUMPS = {
    "continue": "s = s + 0.1\ncontinue\n",
    "break": "s = s * 1.5\nbreak\n",
    "return": "return np.sum(s * c)\n",
    "if_continue": "if np.sum(s) > 1.0:\n    continue\ns = s + 0.2\n",
    "if_break": "if np.sum(s) > 2.0:\n    break\n",
}
PLACES = ("top", "in_if")


def _indent(text, n):
    return "".join(" " * n + line + "\n" for line in text.splitlines())


def program(inner, jump, place):
    loop = inner.rstrip("\n") + "\nelse:\n" + _indent(JUMPS[jump], 4)
    if place == "in_if":
        loop = "if np.sum(s) > -5.0:\n" + _indent(loop, 4)
    body = loop + "s = s * 0.9 + c\nif np.sum(s) > 40.0:\n    break\n"
    return ("import numpy as np\n\n\ndef f(x, c):\n    s = x * 1.0\n    for i in range(4):\n"
            + _indent(body, 8) + "    return np.sum(s * s) + c\n")


CASES = sample(itertools.product(INNER, JUMPS, PLACES), 3)


@pytest.mark.parametrize("inner,jump,place", CASES)
def test_jump_in_a_nested_loops_else(tmp_path, inner, jump, place):
    text = program(INNER[inner], jump, place)
    f = load(tmp_path, f"j_{inner}_{jump}_{place}", text)
    twin = load(tmp_path, f"t_{inner}_{jump}_{place}", text.replace(
        "import numpy as np\n", ""), (anp,))
    points = ((np.array([0.3, 0.5, -0.2]), 0.8), (np.array([0.6, 0.1, 0.45]), 1.1))
    for x, c in points if LONG else points[:1]:
        value, (gx, gc) = srcad.value_and_grad(f, wrt=(0, 1))(x, c)
        assert np.isclose(value, f(x, c), rtol=1e-12)
        want = autograd.grad(twin, (0, 1))(x, c)
        np.testing.assert_allclose(gx, want[0], rtol=1e-9, atol=1e-12)
        assert np.isclose(gc, want[1], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(gx, central(f, [x, c], 0), rtol=1e-5, atol=1e-6)
        t = np.array([0.2, -0.1, 0.4])
        _, tangent = srcad.jvp(f, (x, c), (t, 0.5))
        assert np.isclose(tangent, np.sum(want[0] * t) + 0.5 * want[1], rtol=1e-9)
        if LONG or jump == "continue":  # (the Hessian costs a second of compiling)
            np.testing.assert_allclose(srcad.hessian(f)(x, c),
                                       autograd.hessian(twin)(x, c), rtol=1e-8, atol=1e-10)
