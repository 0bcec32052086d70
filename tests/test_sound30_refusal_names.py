"""Refusals name the user's constructs, never srcad's own names: a nested ``def m`` srcad
lifted (its ``m_local``, in the message and in the hint's "in m (line N) write ...", whose
line was the lifted text's, not the user's file's), an SSA version of the user's ``y``
(``y_2``, in "writing a differentiated value into y_2, an array that may hold integers"),
the value srcad made for ``x = a if c else b`` (``_x_2``: "x is the same object as _x_2"),
as the mutant fuzzer saw them. Each program is refused (a ``SrcadError`` naming the file and
line); the message must name the user's text and hold no name the program does not spell.
Imports re, NumPy, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import re

import numpy as np
import pytest
from program_files import load

import srcad

#: name -> (the function's body, what the message must say, the hint's)
CASES = {
    "nested_augment": ("    def m(z):\n        z *= 2.0\n    m(x)\n    return np.sum(x)\n",
                       "m(...) (which changes", "in m (line 6) write z = z * 2.0"),
    "nested_item_write": ("    def m(z):\n        z[0] = z[0] * 3.0\n        return z\n"
                          "    q = m(x[1:])\n    return np.sum(x) + np.sum(q)\n",
                          "m(...) (which changes", "x = x.copy()"),
    "nested_two_params": ("    s = x * 2.0\n    def helper(a, b):\n        b += a\n"
                          "        return b\n    helper(s, x)\n    return np.sum(x * s)\n",
                          "helper(...) (which changes", "in helper (line 7) write b = b + a"),
    "int_then_array": ("    y = 0\n    for k in range(2):\n        y += x * (k + 1.0)\n"
                       "    for i in range(1, 3):\n        y[i] = y[i] * y[i - 1]\n"
                       "    return np.sum(y)\n", "a differentiated value into y, an array", None),
    "ternary_alias": ("    x = x * 2.0 if np.sum(x) > 1.0 else -x\n    o = x\n    x += x\n"
                      "    return np.sum(o * x)\n", "x is the same object as another name for x",
                      None),
    "int_array_branch": ("    y = np.zeros(3, dtype=int)\n    if x[0] > 0.0:\n"
                         "        y = y + 1\n    y[0] = x[1] * 2.0\n    return np.sum(y * x)\n",
                         "a differentiated value into y, an array", None),
}


def _srcad_names(message, text):
    """Names in ``message`` that look like srcad's (``m_local``, ``y_2``) and ``text`` does not
    spell."""
    found = set(re.findall(r"\b[A-Za-z_]\w*_(?:local|\d+)\b", message))
    return {n for n in found if not re.search(rf"\b{n}\b", text)}


@pytest.mark.parametrize("case", CASES)
def test_refusal_names_the_users_text(tmp_path, case):
    body, says, hint = CASES[case]
    text = f"import numpy as np\n\n\ndef f(x):\n{body}"
    f = load(tmp_path, f"names_{case}", text)
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(f)(np.array([0.5, 1.5, -0.7]))
    message = str(caught.value)
    assert f"names_{case}.py, line" in message
    assert says in message, message
    if hint:
        assert hint in message, message
    assert not _srcad_names(message, text), message
