"""``y op= v`` keeps ``y``'s dtype or raises where NumPy raises (session 35, the fuzzer's two
open classes; :mod:`srcad.frontend.augmented_casts`):

* an item of a list, a dict or a nested list that is an integer or boolean array, and a float
  ``v`` (or any true division): Python's in-place operation raises (UFuncTypeError), srcad's
  ``ys[k] = ys[k] op v`` computed in floats and every transform returned. Each transform
  raises NumPy's own error now; a Python number in a dict (``d["n"] += np.sum(x)``) and float
  arrays are differentiated as before (central differences and autograd);
* a float32, float16 or complex64 array and a float64 ``v`` (a NumPy scalar or array): NumPy
  keeps the target's dtype, srcad's ``z = z * s`` was float64, so the value differed at the
  target's rounding. The value is the plain run's now, bit for bit, and the gradient is the
  float64 twin's (central differences, autograd) to the target's precision."""

import dataclasses

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

CONTAINERS = {
    "list": ("z = [np.{make}(2, dtype={dtype}) for _ in range(2)]", "z[1]"),
    "appended": ("z = []\n    for _ in range(2):\n        z.append(np.{make}(2, dtype={dtype}))",
                 "z[0]"),
    "dict": ("z = {{'a': np.{make}(2, dtype={dtype}), 'b': 1.0}}", "z['a']"),
    "nested": ("z = [[np.{make}(2, dtype={dtype}) for _ in range(2)] for _ in range(2)]",
               "z[1][0]"),
    "zero_d": ("z = [np.{make}_like(0) for _ in range(2)]", "z[1]"),
}
#: (operator, value): each raises on an integer or boolean item
RAISING = [("+=", "x * 0.5"), ("-=", "np.sum(x)"), ("*=", "0.5"), ("/=", "2"),
           ("//=", "2.0"), ("*=", "np.float64(x[0])")]
TRANSFORMS = ["grad", "vjp", "jvp", "hessian"]
CASES = [(c, op, v, t) for c in CONTAINERS for op, v in RAISING for t in TRANSFORMS]
CHOSEN = CASES if LONG else CASES[::11]  # (every container, operator and transform)


def _text(container, dtype, op, value, numpy="numpy", make="ones"):
    build, item = CONTAINERS[container]
    build = build.format(make=make, dtype=dtype)
    return (f"import {numpy} as np\n\n\ndef f(x):\n    {build}\n    {item} {op} {value}\n"
            "    return np.sum(x ** 3) + np.sum(x) * 0.5\n")


def _run(kind, f, x):
    if kind == "grad":
        return srcad.grad(f)(x)
    if kind == "vjp":
        return srcad.vjp(f, x)[1](1.0)
    if kind == "jvp":
        return srcad.jvp(f, (x,), (np.ones_like(x),))
    return srcad.hessian(f)(x)


@pytest.mark.parametrize("container, op, value, kind", CHOSEN)
def test_an_int_item_raises_as_numpy_does(load_module, container, op, value, kind):
    dtype = "bool" if op == "+=" and container == "list" else "int"
    f = load_module(f"item_{abs(hash((container, op, value)))}",
                    _text(container, dtype, op, value)).f
    x = np.array([0.4, -1.3])
    with pytest.raises(TypeError) as plain:  # NumPy's UFuncTypeError
        f(x)
    with pytest.raises(type(plain.value)) as caught:
        _run(kind, f, x)
    assert str(caught.value) == str(plain.value)


FLOAT_VALUES = [("+=", "x * x"), ("*=", "x"), ("-=", "np.sum(x) * 0.5"), ("/=", "1.5 + x")]


@pytest.mark.parametrize("container", list(CONTAINERS)[:4] if LONG else ["list", "nested"])
@pytest.mark.parametrize("op, value", FLOAT_VALUES if LONG else FLOAT_VALUES[::2])
def test_float_items_differentiated(load_module, container, op, value):
    build, item = CONTAINERS[container]
    body = (f"    {build.format(make='ones', dtype='float')}\n    {item} {op} {value}\n"
            f"    return np.sum({item} * x) + np.sum(x ** 2)\n")
    key = abs(hash((container, op, value)))
    f = load_module(f"fitem_{key}", f"import numpy as np\n\n\ndef f(x):\n{body}").f
    twin = load_module(f"fitem_twin_{key}", "import autograd.numpy as np\n\n\ndef f(x):\n"
                       + body.replace(f"{item} {op} {value}",
                                      f"{item} = {item} {op[:-1]} ({value})")).f
    x = np.array([0.4, -1.3])
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, central(f, (x,), 0), atol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(twin)(x), rtol=1e-10, atol=1e-12)


def test_a_number_in_a_dict_differentiated():
    def f(x):
        d = {"n": 0}
        d["n"] += np.sum(x)
        return d["n"] ** 2

    def twin(x):
        return anp.sum(x) ** 2

    x = np.array([0.4, -1.3])
    g = srcad.grad(f)(x)
    np.testing.assert_allclose(g, central(f, (x,), 0), atol=1e-6)
    np.testing.assert_allclose(g, autograd.grad(twin)(x), rtol=1e-12)


NARROW = ["float32", "float16", "complex64"]
SHAPES = [  # (the line, how the value is read): a name, an item written in place, an item
    ("z {op} np.sum(x) * 0.7", "z"),
    ("z {op} x[::-1]", "z"),
    ("zs = [z]\n    zs[0] {op} np.sum(x * x)", "zs[0]"),
    ("z[1] {op} np.sum(x)", "z"),
]
NARROW_CASES = [(d, op, s) for d in NARROW for op in ("*=", "+=", "-=", "/=")
                for s in range(len(SHAPES))]
NARROW_CHOSEN = NARROW_CASES if LONG else NARROW_CASES[::7]  # (every dtype, operator, form)


@pytest.mark.parametrize("dtype, op, shape", NARROW_CHOSEN)
def test_a_narrow_array_keeps_its_dtype(load_module, dtype, op, shape):
    line, read = SHAPES[shape]
    line = line.format(op=op)
    real = "np.real" if dtype.startswith("complex") else ""

    def text(numpy, dt):
        return (f"import {numpy} as np\n\n\ndef f(x):\n    z = np.ones(2, dtype=np.{dt}) * 1.3\n"
                f"    {line}\n    return {real}(np.sum({read} * x))\n")

    key = abs(hash((dtype, op, shape)))
    f = load_module(f"narrow_{key}", text("numpy", dtype)).f
    wide = load_module(f"wide_{key}", text("numpy", "complex128" if real else "float64")).f
    x = np.array([0.4, -1.3])
    value, g = srcad.value_and_grad(f)(x)
    assert value == f(x)  # bit for bit: the value is the plain run's
    tol = {"float32": 1e-5, "float16": 5e-3, "complex64": 1e-5}[dtype]
    np.testing.assert_allclose(g, central(wide, (x,), 0), rtol=tol, atol=tol)
    primal, tangent = srcad.jvp(f, (x,), (np.ones_like(x),))
    assert primal == f(x)
    np.testing.assert_allclose(tangent, np.sum(g), rtol=tol, atol=tol)


def test_the_float64_twin_has_no_cast():
    """Where ``y`` is certainly float64 and ``v`` real, or ``y`` holds floats and ``v`` is a
    Python number, the line is written as before."""
    def f(x):
        z = np.ones(2)
        z *= np.sum(x)
        w = np.zeros_like(z)
        w += z * x
        return np.sum(w)

    def g(x):  # a float argument's copy times a Python number: NumPy keeps its dtype
        y = x.copy()
        y *= 2.0
        y -= 1
        return np.sum(y * x)

    for h in (f, g):
        text = srcad.source(srcad.grad(h), np.array([0.4, -1.3]))
        assert "kept_dtype" not in text, text


def test_a_float32_argument_is_cast():
    def f(x, z):
        y = z.copy()
        y *= np.sum(x)
        return np.sum(y * x)

    x, z = np.array([0.4, -1.3]), np.array([1.1, 0.7], dtype=np.float32)
    value, g = srcad.value_and_grad(f)(x, z)
    assert value == f(x, z)
    np.testing.assert_allclose(g, central(f, (x, z.astype(float)), 0), rtol=1e-5)


@dataclasses.dataclass
class _Record:
    a: np.ndarray
    w: float


def test_a_record_field():
    """A record's field is a name to srcad: a float32 field keeps its dtype; an int field and
    a float ``v`` raises NumPy's own error, as the plain run does."""
    def f(x):
        r = _Record(np.ones(2, dtype=np.float32), 1.0)
        r.a *= np.sum(x)
        return np.sum(r.a * x) * r.w

    def g(x, r):
        s = _Record(r.a.copy(), r.w)
        s.a += x
        return np.sum(x ** 2)

    x = np.array([0.31, 1.237])
    value, grad = srcad.value_and_grad(f)(x)
    assert value == f(x)
    wide = np.sum(np.ones(2) * np.sum(x) * x)  # d/dx of sum(x) * sum(x): 2 sum(x) each
    np.testing.assert_allclose(grad, [2 * np.sum(x)] * 2, rtol=1e-6)
    np.testing.assert_allclose(value, wide, rtol=1e-6)
    r = _Record(np.zeros(2, dtype=int), 1.0)
    with pytest.raises(TypeError) as plain:
        g(x, r)
    with pytest.raises(type(plain.value)) as caught:  # (refused, lead34's, until session 36)
        srcad.grad(g)(x, r)
    assert str(caught.value) == str(plain.value)
