"""The result of a call ``g(*a, **kw)`` consumed at once (a for loop over it, ``sum``,
``list``, ``tuple``, a comprehension): lowering reads ``zip(..., strict=)`` and
``enumerate(..., start=)`` consumed at once as the list they yield, and took a call whose
only keyword is ``**kw`` for one of them (its keyword's name, None, matched the None of a
function that is neither), rewriting it into itself forever (a RecursionError: a class's
``super().__init__(*args, **kw)`` met it). A generated family of spreads x consumers x
callees, against central differences and autograd."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad

CALLEES = {
    "tuple": "def g(u, v, scale=1.0):\n    return (u * scale, np.sin(v), u * v)\n",
    "list": "def g(u, v, scale=1.0):\n    return [u * u * scale, v + u]\n",
}
SPREADS = {
    "args_kwargs": ("    a = (w, w * 2.0)\n    kw = {'scale': 0.5}\n", "g(*a, **kw)"),
    "kwargs_only": ("    kw = {'v': w * 3.0, 'scale': 2.0}\n", "g(w, **kw)"),
    "both_named": ("    kw = {'scale': 1.5}\n", "g(w, w + 1.0, **kw)"),
}
CONSUMERS = {
    "for": "    s = 0.0\n    for t in {C}:\n        s = s + t * t\n    return s\n",
    "sum": "    return sum({C}) * w\n",
    "list": "    items = list({C})\n    return items[0] * items[-1]\n",
    "comprehension": "    return sum([t * 2.0 for t in {C}])\n",
}
CASES = list(itertools.product(CALLEES, SPREADS, CONSUMERS))


@pytest.mark.parametrize(("callee", "spread", "consumer"), CASES,
                         ids=["-".join(c) for c in CASES])
def test_consumed_spread_calls(tmp_path, callee, spread, consumer):
    setup, call = SPREADS[spread]
    text = CALLEES[callee] + "\n\ndef f(w):\n" + setup + CONSUMERS[consumer].format(C=call)
    f, fa = load(tmp_path, f"sk_{callee}_{spread}_{consumer}", text, modules=(np, anp))
    for w in (0.7, -1.3):
        g = srcad.grad(f)(w)
        assert g == pytest.approx(float(numerical_grad(f, (w,))), rel=1e-6, abs=1e-8)
        assert g == pytest.approx(autograd.grad(fa)(w), rel=1e-10, abs=1e-12)
        assert srcad.jvp(f, (w,), (1.0,))[1] == pytest.approx(g, rel=1e-9, abs=1e-12)
