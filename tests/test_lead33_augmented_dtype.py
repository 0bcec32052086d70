"""``y += v`` of a differentiated ``v`` into an array that may hold integers: NumPy adds in
place and raises (UFuncTypeError: no float into an int array); srcad refused where it could
not tell the array holds floats, at the line, and since session 36 raises NumPy's own error
where the plain run does (srcad.frontend.augmented_casts); where it can (made by
np.zeros, a float product, astype(float)) the write is differentiated, against central
differences and autograd on the functional twin."""

import autograd
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

OPS = ["+=", "-=", "*=", "/="]
MADE_INT = ["np.zeros(3, dtype=int)", "np.arange(3)", "np.ones(3, dtype=np.int64) * 2",
            "np.array([1, 2, 3])", "np.zeros(3, dtype=bool)"]
MADE_FLOAT = ["np.zeros(3)", "np.arange(3) * 1.0", "np.array([1, 2, 3]).astype(float)",
              "np.ones(3)", "np.array([1.0, 2.0, 3.0])"]
TRANSFORMS = ["grad", "jvp", "hessian"] if LONG else ["grad", "jvp"]


def _text(made, op, numpy="np"):
    return (f"import numpy as {numpy}\n\ndef f(x):\n    a = {made}\n    a {op} x * x\n"
            f"    return (a * x).sum()\n").replace("np.", f"{numpy}.")


def _run(kind, f, x):
    if kind == "grad":
        return srcad.grad(f)(x)
    if kind == "jvp":
        return srcad.jvp(f, (x,), (1.0,))[1]
    return srcad.hessian(f)(x)


@pytest.mark.parametrize("kind", TRANSFORMS)
@pytest.mark.parametrize("op", OPS if LONG else OPS[:2])
@pytest.mark.parametrize("made", MADE_INT if LONG else MADE_INT[:3])
def test_into_an_int_array_raises_as_numpy_does(load_module, made, op, kind):
    """Refused at the line until session 36; now the derivative raises NumPy's own error
    where the plain run does (the run-time cast, srcad.frontend.augmented_casts)."""
    text = _text(made, op)
    f = load_module(f"aug_int_{abs(hash((made, op)))}", text).f
    with pytest.raises(TypeError) as plain:  # NumPy's own UFuncTypeError is a TypeError
        f(np.float64(1.3))
    with pytest.raises(type(plain.value)) as caught:
        _run(kind, f, 1.3)
    assert str(caught.value) == str(plain.value)


@pytest.mark.parametrize("op", OPS if LONG else OPS[:2])
@pytest.mark.parametrize("made", MADE_FLOAT if LONG else MADE_FLOAT[:3])
def test_into_a_float_array_differentiated(load_module, made, op):
    text = _text(made, op)
    f = load_module(f"aug_float_{abs(hash((made, op)))}", text).f
    twin = load_module(f"aug_float_twin_{abs(hash((made, op)))}",
                       _text(made, op, "anp").replace(f"a {op} x * x",
                                                      f"a = a {op[0]} (x * x)")
                       .replace("import numpy as anp", "import autograd.numpy as anp")).f
    x = 1.3
    g = srcad.grad(f)(x)
    assert np.isclose(g, central(lambda v: f(v[0]), (np.array([x]),), 0)[0], atol=1e-5)
    assert np.isclose(g, autograd.grad(twin)(x), atol=1e-9)
    assert np.isclose(srcad.jvp(f, (x,), (1.0,))[1], g, atol=1e-9)
