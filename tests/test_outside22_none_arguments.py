"""``None`` given to the function differentiated and passed on to a helper that replaces it
(round 22: the class round 21 left).

``def h(X, o): if o is None: return X * 2.0`` / ``return o``, called as ``K = h(X * t[0], obj)``
with ``obj`` a parameter given ``None``, then ``K[:, 0] += t[1]``: the helper's copy was made
for an ``o`` srcad did not know, so ``K`` might be the object given and the write was refused
("the item may be an array ... and K may hold it too"). A ``None`` argument is now fixed for the
specialisation (``frontend/lower_callees.classes_of``: its type is in the cache key and names
its one value), so the parameter reads as the constant ``None``, the helper's copy is made for
``None`` as for a literal ``None`` passed, and ``if o is None`` takes its one way.

The family: how the helper replaces ``None`` (``if ... return``, an ``if`` rebinding, a
ternary) x the write on the result (a column ``+=``, a row ``*=``), gradient, tangent and
Hessians in both modes (forward mode refused the write until it was told the arguments' ranks),
against central differences and autograd on the same text (the writes as new values for
autograd); the same function given an array for ``obj`` is made again (its write into the
caller's array refused), not run with the code made for ``None``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_robustness import load_module
from twin_checks import central

import srcad

autograd = pytest.importorskip("autograd")
NP, AG = "import numpy as np\n", "import autograd.numpy as np\n"

HELPERS = {
    "return": "def h(X, o):\n    if o is None:\n        return X * 2.0\n    return o\n",
    "rebind": "def h(X, o):\n    if o is None:\n        o = X * 2.0\n    return o\n",
    "ternary": "def h(X, o):\n    return X * 2.0 if o is None else o\n",
}
WRITES = {  # (in place, as a new value for autograd)
    "column": ("K[:, 0] += t[1]", "K = K + t[1] * (np.arange(K.shape[1]) == 0)"),
    "row": ("K[1] *= t[1]", "K = K * (1.0 + (t[1] - 1.0) * (np.arange(K.shape[0]) == 1))[:, None]"),
}
CASES = list(itertools.product(HELPERS, WRITES))
T0 = np.array([0.5, 0.2])
X0 = np.random.RandomState(3).randn(3, 3)


def _text(helper, write, twin):
    return (HELPERS[helper] + "\ndef f(t, X, obj):\n    K = h(X * t[0], obj)\n"
            f"    {WRITES[write][twin]}\n    return np.sum(K ** 2) + np.sum(K[:, 0])\n")


@pytest.mark.parametrize("helper,write", sample(CASES, 2))
def test_none_passed_on_to_a_helper_that_replaces_it(helper, write, tmp_path):
    m = load_module(tmp_path, NP + _text(helper, write, 0))
    a = load_module(tmp_path, AG + _text(helper, write, 1))
    value, g = srcad.value_and_grad(m.f)(T0, X0, None)
    assert value == pytest.approx(m.f(T0, X0, None), rel=1e-12)
    np.testing.assert_allclose(g, autograd.grad(a.f)(T0, X0, None), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, central(lambda t: m.f(t, X0, None), (T0,), 0), rtol=1e-6,
                               atol=1e-8)
    want = autograd.hessian(a.f)(T0, X0, None)
    for mode in ("rev", "fwd"):
        hess = srcad.hessian(m.f, mode=mode)(T0, X0, None)
        np.testing.assert_allclose(hess, want, rtol=1e-8, atol=1e-10)
    v = np.array([0.3, -1.1])
    _, tangent = srcad.jvp(m.f, (T0, X0, None), (v,), wrt=(0,))
    np.testing.assert_allclose(tangent, g @ v, rtol=1e-10, atol=1e-12)


def test_an_array_for_the_same_parameter_gets_its_own_code(tmp_path):
    """The code made for ``None`` is not used for an array: the helper then returns the
    caller's array, which the write would change (Python's caller sees it): refused."""
    m = load_module(tmp_path, NP + _text("return", "column", 0))
    g = srcad.grad(m.f)
    np.testing.assert_allclose(g(T0, X0, None), central(lambda t: m.f(t, X0, None), (T0,), 0),
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(srcad.SrcadError, match="changes the argument obj in place"):
        g(T0, X0, np.ones((3, 3)))
