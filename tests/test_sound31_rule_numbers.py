"""A user's rule (``srcad.extend.defvjp``) giving a number's gradient as a 0-d array
(``np.asarray(g * 2.0 * x)``), met by the reverse sweep's in-place add into a number's
gradient: ``k = 0; for j in range(1, 3): k += x * j; x = x + k; return sq(x)`` was
differentiated as ``dx_1 = np.asarray(...)``, ``dx = dx_1``, then ``dx += dx_1 * j`` in the
loop, in place on the one 0-d array (33.6 where 22.4; left open by session 30, whose fix made
srcad's own ``unbroadcast`` give numbers). A user rule's contribution to a number is made a
number (``total``) now. Rules in srcad's form and in autograd's (makers), each program against
central differences, autograd on the rule-less twin (the same arithmetic) and ``srcad.jvp``.
Imports itertools, NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG

import srcad

#: rule form -> the module head defining ``sq`` (the twin's ``sq`` is the plain arithmetic)
RULES = {
    "template": "import srcad\n\n\n@srcad.extend.defvjp(x='np.asarray(g * 2.0 * x)',\n"
                "                      jvp={'x': 'np.asarray(2.0 * x * t)'})\n"
                "def sq(x):\n    return x * x\n",
    "template_g": "import srcad\n\n\n@srcad.extend.defvjp(x='np.reshape(g * 2.0 * x, ())',\n"
                  "                      jvp={'x': 'np.reshape(2.0 * x * t, ())'})\n"
                  "def sq(x):\n    return x * x\n",
    "makers": "import srcad\n\n\ndef sq(x):\n    return x * x\n\n\n"
              "srcad.extend.defvjp(sq, lambda ans, x: lambda g: np.asarray(g * 2.0 * x))\n",
}
TWIN = "def sq(x):\n    return x * x\n"

#: loops and aliases that add into a number's gradient after the rule's contribution
BODIES = {
    "accumulated": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n    x = x + k\n"
                   "    return sq(x)\n",
    "aliased": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n    c = k\n"
               "    c *= 1.5\n    x = x + k\n    return sq(x) * c\n",
    "twice": "    k = x * 1.0\n    for j in range(3):\n        k = k + x * j\n    x = x * k\n"
             "    return sq(x) + sq(k)\n",
    "straight": "    y = x + 0.5\n    z = sq(y) + y\n    z += y * 3.0\n    return z * x\n",
    "branch": "    y = x * 1.0\n    if x > 0.0:\n        y = y + x * 2.0\n"
              "    return sq(y) + sq(x)\n",
}
BODIES_LONG = {
    "while": "    k = x\n    n = 0\n    while n < 3:\n        k = k + x * n\n        n += 1\n"
             "    return sq(k + x)\n",
    "nested": "    k = 0.0\n    for i in range(2):\n        for j in range(2):\n"
              "            k += x * (i + j)\n    return sq(x + k) * x\n",
}
CASES = list(itertools.product(RULES, {**BODIES, **(BODIES_LONG if LONG else {})}))


@pytest.mark.parametrize("rule,body", CASES)
def test_rule_zero_d_gradient_of_a_number(tmp_path, rule, body):
    text = {**BODIES, **BODIES_LONG}[body]
    head = "import numpy as np\n" + RULES[rule] + "\n\ndef f(x):\n" + text
    f = load(tmp_path, f"r_{rule}_{body}", head)
    twin = load(tmp_path, f"t_{rule}_{body}",
                TWIN + "\n\ndef f(x):\n" + text, (anp,))
    for x in (0.7, -0.43):
        got = srcad.grad(f)(x)
        assert isinstance(got, float), type(got)
        assert np.isclose(got, (f(x + 1e-6) - f(x - 1e-6)) / 2e-6, rtol=1e-5, atol=1e-7)
        assert np.isclose(got, autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)
        if rule != "makers":  # (autograd's form: no forward rule given)
            assert np.isclose(srcad.jvp(f, (x,), (1.0,))[1], got, rtol=1e-10)
