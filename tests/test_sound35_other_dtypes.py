"""Integer, boolean and object arrays share one specialisation (session 35, item 3): the
analysis asks only whether an array certainly holds floats, and the code computes with the
dtypes it is given, so values and derivatives agree with the plain run for each dtype, in
any order of calls. What differed was which discarded values may raise: an array not known to
hold floats was taken as an integer array, so a discarded ``-a``, ``a - a`` or ``np.sign(a)``
of a boolean array (TypeError), ``np.sin(a)``, ``np.exp(a)`` or ``np.sqrt(a)`` of an object
array (NumPy looks for an ``int.sin`` method) went, and grad returned where ``f`` raises.
Kept now (:func:`srcad.rules.raising._other_loops`); checked at the top and in a callee, the
dtypes in alternation, against ``f``'s own exception and, where ``f`` returns, central
differences and autograd."""

import autograd
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

DISCARDED = ["-a", "a - a", "np.sign(a)", "np.sin(a)", "np.exp(a)", "np.sqrt(a)", "a // 2",
             "np.maximum(a, 1)"]
ARRAYS = {"int": np.array([1, 2, 3]), "bool": np.array([True, False, True]),
          "object": np.array([1, 2, 3], dtype=object)}
WHERE = ["top", "callee"]
CASES = [(d, w) for d in DISCARDED for w in WHERE]
CHOSEN = CASES if LONG else CASES[::3]


def _text(discarded, where, numpy="numpy"):
    line = f"_m = {discarded}"
    if where == "top":
        return (f"import {numpy} as np\n\n\ndef f(x, a):\n    {line}\n"
                "    return np.sum(x ** 2) * 1.5\n")
    return (f"import {numpy} as np\n\n\ndef h(a, x):\n    {line}\n    return x * 1.5\n\n\n"
            "def f(x, a):\n    return np.sum(h(a, x ** 2))\n")


@pytest.mark.parametrize("discarded, where", CHOSEN)
def test_dtypes_in_alternation(load_module, discarded, where):
    key = abs(hash((discarded, where)))
    f = load_module(f"dtypes_{key}", _text(discarded, where)).f
    twin = load_module(f"dtypes_twin_{key}", _text(discarded, where, "autograd.numpy")).f
    x = np.array([0.4, -1.3])
    for name in ("int", "bool", "object", "int", "bool"):
        a = ARRAYS[name]
        try:
            f(x, a)
        except Exception as plain:  # f raises: so does every transform, with its exception
            with pytest.raises(type(plain)):
                srcad.grad(f)(x, a)
            with pytest.raises(type(plain)):
                srcad.jvp(f, (x, a), (np.ones_like(x),), wrt=0)
            continue
        g = srcad.grad(f)(x, a)
        np.testing.assert_allclose(g, central(f, (x, a), 0), atol=1e-6)
        np.testing.assert_allclose(g, autograd.grad(twin)(x, a), rtol=1e-12)
        _, t = srcad.jvp(f, (x, a), (np.ones_like(x),), wrt=0)
        np.testing.assert_allclose(t, np.sum(g), rtol=1e-12)
