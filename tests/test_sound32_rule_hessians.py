"""Second order through a user's rule giving a number's gradient as a 0-d array (session 31's
``total(...)``): the Hessian of ``k = 0; for j in range(1, 3): k += x * j; x = x + k; return
sq(x)`` was refused ("dx shares memory with another name for dx", srcad's own name), as the
second sweep took ``dx_1 = total(np.asarray(...))`` for an array that ``dx = dx_1; dx += ...``
changes in place. ``total`` of a number or an array is a number (``analysis/value_kinds``).
``srcad.hessian``, ``jacfwd(grad)`` and ``grad(grad)`` of each program against autograd on its
rule-less twin and against central differences of that twin's gradient. Imports itertools,
NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import LONG
from test_sound31_rule_numbers import RULES, TWIN

import srcad

#: loops adding into a number's gradient after the rule's contribution
BODIES = {
    "accumulated": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n    x = x + k\n"
                   "    return sq(x)\n",
    "while": "    k = x\n    n = 0\n    while n < 3:\n        k = k + x * n\n        n += 1\n"
             "    return sq(k + x)\n",
    "augmented_twice": "    k = 0.0\n    for j in range(3):\n        k += x * j\n"
                       "        k += sq(x)\n    return sq(k) * x\n",
}
BODIES_LONG = {
    "branch_loop": "    k = 0\n    for j in range(3):\n        if j % 2:\n            k += x * j\n"
                   "        else:\n            k += sq(x)\n    return sq(x + k)\n",
    "aliased": "    k = 0\n    for j in range(1, 3):\n        k += x * j\n    c = k\n"
               "    c *= 1.5\n    x = x + k\n    return sq(x) * c\n",
}
MODES = {
    "hessian": lambda f: srcad.hessian(f),
    "grad_grad": lambda f: srcad.grad(srcad.grad(f)),
    "jacfwd_grad": lambda f: srcad.jacfwd(srcad.grad(f)),
}
#: (autograd's makers form has no forward rule: jacfwd(grad) of it is refused, honestly)
CASES = [(r, b, m) for r, b, m in itertools.product(
    RULES, {**BODIES, **(BODIES_LONG if LONG else {})}, MODES)
    if LONG or (r, m) in (("template", "hessian"), ("makers", "hessian"),
                          ("template_g", "grad_grad"), ("template", "jacfwd_grad"))]


@pytest.mark.parametrize("rule,body,mode", CASES)
def test_second_order_through_a_rule_giving_a_zero_d_array(tmp_path, rule, body, mode):
    text = {**BODIES, **BODIES_LONG}[body]
    f = load(tmp_path, f"r_{rule}_{body}", "import numpy as np\n" + RULES[rule]
             + "\n\ndef f(x):\n" + text)
    twin = load(tmp_path, f"t_{rule}_{body}", TWIN + "\n\ndef f(x):\n" + text, (anp,))
    first = autograd.grad(twin)
    try:
        second = MODES[mode](f)
        for x in (0.7, -0.43):
            got = second(x)
            assert np.ndim(got) == 0, got
            assert np.isclose(got, autograd.grad(first)(x), rtol=1e-10, atol=1e-12)
            assert np.isclose(got, (first(x + 1e-6) - first(x - 1e-6)) / 2e-6, rtol=1e-6,
                              atol=1e-6)
    except srcad.SrcadError as e:
        assert rule == "makers" and mode == "jacfwd_grad" and "forward-mode rule" in str(e)
