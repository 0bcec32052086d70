"""A nested ``def`` calling itself by a name the enclosing function binds again (sound24).

``frontend/recursive_defs.py`` made each call of ``rec`` inside its own body a call of the
lifted function, that body itself. Python's call finds the name's *current* value: after
``g = rec`` and a second ``def rec`` (or ``rec = other``), ``g(...)`` runs the first body
whose call of ``rec`` runs the second one. srcad gave ``d(w0**3 * w1)`` for ``10 * w0 * w1``,
silently. Now a name bound more than once in the enclosing function (assignment, second
``def``, walrus, ``nonlocal`` in a function inside) keeps the refusal; bound once it is
differentiated as before. Generated family (how the name is bound again) x (where), checked
against central differences: the refusal where bound again, the derivative where not.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robustness import load_module

import srcad
from srcad.errors import SrcadError

NP = "import numpy as np\n"
W = np.array([0.3, -0.4, 0.7])

REBIND = {  # a second binding of go in the enclosing function (None: bound once)
    "none": None,
    "def": "    def go(x, n):\n        return x * 10.0\n",
    "lambda": "    go = lambda x, n: x * 10.0\n",
    "walrus": "    _ = [(go := (lambda x, n: x * 10.0)) for _k in range(1)]\n",
    "nonlocal": "    def setter():\n        nonlocal go\n        go = lambda x, n: x * 10.0\n"
                "    setter()\n",
}
WHERE = {"after-alias": True, "before-def": False}
TEXT = """
def f(w):
{before}    def go(x, n):
        if n == 0:
            return x
        return go(x * w[0], n - 1)
    g2 = go
{after}    return g2(w[1], 3) + w[2] * w[2]
"""


def _text(rebind, after):
    body = REBIND[rebind] or ""
    return TEXT.format(before="" if after else body, after=body if after else "")


@pytest.mark.parametrize("rebind,where", [
    c for c in itertools.product(REBIND, WHERE) if c[0] != "none" or c[1] == "after-alias"])
def test_a_nested_def_whose_name_is_bound_again(rebind, where, tmp_path):
    m = load_module(tmp_path, NP + _text(rebind, WHERE[where]))
    fd = np.array([(m.f(W + 1e-6 * e) - m.f(W - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    if REBIND[rebind] is None:
        np.testing.assert_allclose(srcad.grad(m.f)(W.copy()), fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(srcad.hessian(m.f)(W.copy())[0, 0],
                                   6 * W[0] * W[1], rtol=1e-9)
        return
    with pytest.raises(SrcadError) as e:  # (def, lambda, nonlocal after: the new refusal)
        srcad.grad(m.f)(W.copy())
    if rebind in ("def", "lambda"):
        assert "binds more than once" in str(e.value)
