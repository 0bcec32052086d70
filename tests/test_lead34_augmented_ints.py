"""``y op= v`` where ``y`` may be an integer array, after session 34's fuzzer (outside34):

* a float ``v`` that is not differentiated (``z = np.ones(3, dtype=int); z *= 0.5``): NumPy
  raises (UFuncTypeError), srcad's ``z = z * 0.5`` computed in floats and returned a
  derivative for a function that raises. Refused at the line then, as a differentiated ``v``
  was already; since session 36 the derivative raises NumPy's own error there, as the plain
  run does (srcad.frontend.augmented_casts); an integer ``v`` into an integer array, and a
  float ``v`` into a float array, are differentiated as before;
* a Python number merged with float arrays (``total = 0`` then ``total += row`` in a loop over
  a matrix's rows): ``total`` is a number the first turn (rebound, not changed) and a float
  array after; it was refused as an array that may hold integers. Differentiated now, against
  central differences and autograd (whose boxes rebind ``+=``)."""

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

OPS = ["+=", "-=", "*="]
STARTS = ["0", "0.0", "1"]
SOURCES = ["for row in x:\n        {t} {op} row ** 2", "for i in range(len(x)):\n        "
           "{t} {op} np.sin(x[i]) * 0.5", "for row in x[1:]:\n        b = row * 1.5\n        "
           "{t} {op} b"]
CASES = [(s, o, src) for s in STARTS for o in OPS for src in SOURCES]
CHOSEN = CASES if LONG else CASES[::4]


def _text(start, op, source, numpy="numpy"):
    body = source.format(t="total", op=op)
    return (f"import {numpy} as np\n\n\ndef f(x):\n    total = {start}\n    {body}\n"
            "    return np.sum(total * x[0])\n")


@pytest.mark.parametrize("start, op, source", CHOSEN)
def test_a_number_then_float_arrays(load_module, start, op, source):
    f = load_module(f"acc_{abs(hash((start, op, source)))}", _text(start, op, source)).f
    twin = load_module(f"acc_twin_{abs(hash((start, op, source)))}",
                       _text(start, op, source, "autograd.numpy")).f
    x = np.array([[0.3, -1.2], [0.7, 0.4], [1.1, -0.5]])
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, central(f, (x,), 0), atol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)
    _, t = srcad.jvp(f, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(t, np.sum(g), rtol=1e-9, atol=1e-12)


FLOATS = ["0.5", "x0 * 0 + 0.25", "np.float64(2.0)", "2"]  # ("2": z /= 2, true division)
INTS = ["np.ones(3, dtype=int)", "np.arange(3)", "np.zeros(3, dtype=bool)"]


@pytest.mark.parametrize("made", INTS)
@pytest.mark.parametrize("value", FLOATS if LONG else FLOATS[::3])
@pytest.mark.parametrize("kind", ["grad", "jvp"])
def test_a_float_into_an_int_array_raises_as_numpy_does(load_module, made, value, kind):
    op = "/=" if value == "2" else "*="
    text = (f"import numpy as np\n\n\ndef f(x):\n    x0 = 3\n    z = {made}\n"
            f"    z {op} {value}\n    return np.sum(z) * x\n")
    f = load_module(f"int_{abs(hash((made, value)))}", text).f
    with pytest.raises(TypeError) as plain:  # NumPy's UFuncTypeError
        f(1.5)
    with pytest.raises(type(plain.value)) as caught:  # (refused at the line until session 36)
        srcad.grad(f)(1.5) if kind == "grad" else srcad.jvp(f, (1.5,), (1.0,))
    assert str(caught.value) == str(plain.value)


@pytest.mark.parametrize("made, value", [("np.ones(3, dtype=int)", "2"),
                                         ("np.arange(3)", "x0"),
                                         ("np.ones(3)", "0.5"),
                                         ("np.arange(3) * 1.0", "np.float64(2.0)")])
def test_what_numpy_allows_is_differentiated(load_module, made, value):
    text = (f"import numpy as np\n\n\ndef f(x):\n    x0 = 3\n    z = {made}\n"
            f"    z *= {value}\n    return np.sum(z * x * x)\n")
    f = load_module(f"ok_{abs(hash((made, value)))}", text).f
    twin = load_module(f"ok_twin_{abs(hash((made, value)))}", text.replace(
        "import numpy as np", "import autograd.numpy as np").replace(
        f"z *= {value}", f"z = z * {value}")).f
    g = srcad.grad(f)(1.5)
    assert np.isclose(g, central(f, (np.float64(1.5),), 0), atol=1e-6)
    assert np.isclose(g, autograd.grad(twin)(1.5), rtol=1e-12)
    assert anp is not None
