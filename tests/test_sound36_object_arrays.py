"""Arrays of strings or Python objects made in the function (session 35's leftover, session
36): the code is made for an array's kind, not its dtype, and the dead-code passes took every
array as one of numbers, so a discarded ``o + 1``, ``o * o``, ``np.add(o, 1.0)`` of
``np.array(['a', 'b'], dtype=object)``, ``np.array([None, None])`` or ``np.array(['a'])``
(NumPy raises ``TypeError``) was dropped and grad returned where ``f`` raises. Now only arrays
certainly of numbers (:mod:`srcad.analysis.number_values`) take part in operations taken as
not raising. Generated: makers x discarded operations x places (the top, a callee, a loop's
body), the plain run's exception against ``grad``'s, ``jvp``'s and ``hessian``'s; where ``f``
returns (an object array of numbers, ``list * 2``), the gradient against central differences
and autograd."""

import autograd
import numpy as np
import pytest

import srcad
from tests.sampling import LONG, sample_by
from tests.twin_checks import central

MAKERS = ["np.array(['a', 'b'], dtype=object)", "np.array([None, None])", "np.array(['a', 'b'])",
          "np.empty(2, dtype=object)", "np.full(2, 'a')", "np.array([1.0, 2.0], dtype=object)",
          "np.array([[1.0], [2.0, 3.0]], dtype=object)"]
DISCARDED = ["o + 1", "o * o", "-o", "np.add(o, 1.0)", "o / 2.0", "np.sum(o)", "o[0] + 1",
             "o * 2"]
WHERE = ["top", "callee", "loop"]
CASES = [(m, d, w) for m in MAKERS for d in DISCARDED for w in WHERE]
CHOSEN = sample_by(CASES, lambda c: c[0], 8) if not LONG else CASES


def _text(maker, discarded, where, numpy="numpy"):
    line = f"_m = {discarded}"
    if where == "top":
        return (f"import {numpy} as np\n\n\ndef f(x):\n    o = {maker}\n    {line}\n"
                "    return np.sum(x ** 2) * 1.5\n")
    if where == "loop":
        return (f"import {numpy} as np\n\n\ndef f(x):\n    o = {maker}\n    s = 0.0\n"
                f"    for k in range(2):\n        {line}\n        s = s + x[k] ** 2\n"
                "    return s * 1.5\n")
    return (f"import {numpy} as np\n\n\ndef h(o, x):\n    {line}\n    return x * 1.5\n\n\n"
            f"def f(x):\n    return np.sum(h({maker}, x ** 2))\n")


@pytest.mark.parametrize("maker, discarded, where", CHOSEN)
def test_discarded_operation_of_other_arrays(load_module, maker, discarded, where):
    key = abs(hash((maker, discarded, where)))
    f = load_module(f"objects_{key}", _text(maker, discarded, where)).f
    x = np.array([0.4, -1.3])
    try:
        f(x.copy())
    except Exception as plain:  # f raises: so does every transform, with its exception
        with pytest.raises(type(plain)):
            srcad.grad(f)(x)
        with pytest.raises(type(plain)):
            srcad.jvp(f, (x,), (np.ones_like(x),))
        with pytest.raises(type(plain)):
            srcad.hessian(f)(x)
        return
    twin = load_module(f"objects_twin_{key}", _text(  # (its discarded line: not autograd's)
        maker, "0", where, "autograd.numpy")).f
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, central(f, (x,), 0), atol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(twin)(x), rtol=1e-12)
    _, t = srcad.jvp(f, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(t, np.sum(g), rtol=1e-12)


def test_string_array_argument(load_module):
    """An array of strings given (not differentiated) is not taken as one of numbers."""
    f = load_module("objects_argument", "import numpy as np\n\n\ndef f(x, labels):\n"
                    "    _m = labels + 1\n    return np.sum(x ** 2)\n").f
    x, labels = np.array([0.4, -1.3]), np.array(["a", "b"])
    with pytest.raises(TypeError):
        f(x, labels)
    with pytest.raises(TypeError):
        srcad.grad(f)(x, labels)


def test_numbers_still_dropped(load_module):
    """Discarded arithmetic of float and integer arrays made in the function still goes."""
    f = load_module("objects_numbers", "import numpy as np\n\n\ndef f(x):\n"
                    "    i = np.arange(3)\n    _m = i * 2 + 1\n    _n = x * 3.0 - 1.0\n"
                    "    return np.sum(x ** 2)\n").f
    text = srcad.source(srcad.grad(f))
    assert "_m" not in text and "_n" not in text, text
