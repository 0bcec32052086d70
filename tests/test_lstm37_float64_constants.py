"""Number literals meeting certainly-float64 arrays are written as float64 0-d constants
(session 37, #18: :mod:`srcad.backend.float_literals`, :mod:`srcad.analysis.doubles`), and
nowhere else: a float32, integer or complex argument, a NumPy or Python number, a list with
one such item, takes other code and gives exactly what the code without the constants gives
(value and gradient: the same type, dtype and bits), and the gradient is right (central
differences on float64, autograd on the same source).

The cache key tells float64 from float32 (``srcad.backend.keys``): without it, the float64
code (``one - t``) met a float32 array and gave float64 where the plain run keeps float32."""

import re

import autograd
import numpy as np
import pytest

import srcad
from srcad.backend import float_literals
from srcad.runtime.float_constants import CONSTANTS
from tests.sampling import LONG
from tests.twin_checks import central

SOURCE = """import numpy as np


def sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def cell(w, h, c):
    g = sig(w * h)
    c = c * g + (1 - g) * np.tanh(h)
    return 2.0 * g * np.tanh(c) - h / 2, c


def gate(x, w):
    return np.sum(sig(x * w) * (2 - np.tanh(x)) * 0.5)


def layers(w, state):
    hs = [state[i] for i in range(len(state))]
    total = 0.0
    for t in range(3):
        h, c = cell(w, hs[0], hs[1])
        hs = [h, c]
        total = total + np.sum(1.0 - h * 0.5)
    return total


def listed(w, state):
    ys = [w, w * 2.0]
    ys.append(state[0])  # of the argument's dtype: float32 in the float32 case
    t = ys[2]
    return np.sum((1.0 - t) * w / 2)
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    import importlib.util
    import sys

    folder = tmp_path_factory.mktemp("lstm37")
    out = []
    for name, numpy in (("lstm37_np", "numpy"), ("lstm37_ag", "autograd.numpy")):
        path = folder / f"{name}.py"
        path.write_text(SOURCE.replace("import numpy as np", f"import {numpy} as np"))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        out.append(module)
    return out


def _values(rank, dtype, rng, n=3):
    shape = (n,) * rank
    x = rng.standard_normal(shape) * 0.8
    if dtype == "int":
        return np.asarray(np.round(x * 3), dtype=np.int64)
    if dtype == "f64 number":
        return np.float64(x.ravel()[0]) if rank == 0 else x
    if dtype == "float":
        return float(x.ravel()[0]) if rank == 0 else x
    return np.asarray(x, dtype=dtype)


CONSTANT = re.compile(r"\b(one|two|half)\b")
DTYPES = ["float64", "float32", "int", "f64 number", "float"]
CASES = [(name, dtype, rank) for name in ("gate", "layers", "listed")
         for dtype in DTYPES for rank in (0, 1, 2)
         if not (name != "gate" and rank == 0) and not (name != "gate" and dtype in (
             "f64 number", "float")) and not (dtype == "int" and name == "layers")]


def _unchanged(fdef, arrays, spelled, helpers):
    return fdef

#: by default: each dtype once, each rank, each function (a float32 list, an int beside float64)
DEFAULT = [("gate", "float64", 1), ("gate", "float32", 1), ("gate", "int", 2),
           ("gate", "f64 number", 0), ("gate", "float", 1), ("gate", "float64", 0),
           ("layers", "float32", 2), ("listed", "float64", 1), ("listed", "int", 1)]
assert set(DEFAULT) <= set(CASES)


def _run(f, args, constants):
    """value_and_grad of ``f`` in its first argument, made with or without the constants."""
    saved = float_literals.write
    if not constants:
        float_literals.write = _unchanged
    srcad.clear_cache()
    try:
        grad = srcad.value_and_grad(f, wrt=0)
        return grad(*args), srcad.source(grad, *args)
    finally:
        float_literals.write = saved
        srcad.clear_cache()


def _same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray) or isinstance(a, np.generic):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, dtype, rank", CASES if LONG else DEFAULT)
def test_constants_only_where_float64_and_the_plain_run_exactly(mods, name, dtype, rank):
    m, twin = mods
    rng = np.random.default_rng(hash((name, dtype, rank)) % 2**32)
    w = _values(rank, dtype if dtype != "int" else "float64", rng)
    if name == "gate":
        args = (w, _values(rank, dtype, rng))
    else:
        args = (w, [_values(rank, dtype, rng), _values(rank, dtype, rng)])
    f = getattr(m, name)
    (value, g), text = _run(f, args, True)
    (value0, g0), text0 = _run(f, args, False)
    _same(value, value0)  # the same type, dtype and bits as the code without them
    _same(g, g0)
    _same(value, f(*args))  # and as the plain run
    written = rank > 0 and dtype != "float32"
    if name == "listed" and dtype != "float64":  # the list holds an int or float32 array
        assert "1.0 - t" in text
    if rank or dtype not in ("float64", "int"):  # (a 0-d array: either, the same result)
        assert bool(CONSTANT.search(text)) == written, text  # (int: the float64 array w's)
    assert not CONSTANT.search(text0)
    # the gradient: central differences (float64 copies) and autograd on the same source
    as64 = [np.asarray(a, np.float64) if not isinstance(a, list) else
            [np.asarray(i, np.float64) for i in a] for a in args]
    want = autograd.grad(getattr(twin, name), 0)(*as64)
    tol = 1e-9 if np.asarray(g).dtype == np.float64 else 2e-3
    np.testing.assert_allclose(np.asarray(g, np.float64), want, rtol=tol, atol=tol)
    if isinstance(args[0], np.ndarray) and args[0].ndim:
        fd = central(lambda x: getattr(m, name)(x, *as64[1:]), [as64[0]], 0)
        np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-7)


def test_a_float32_call_after_a_float64_one_takes_other_code(mods):
    """The key: float64 first (code with ``one``), then float32: float32 as the plain run."""
    m, _ = mods
    x = np.array([0.3, -0.7, 1.1])
    grad = srcad.value_and_grad(m.gate, wrt=0)
    value, g = grad(x, x)
    assert CONSTANT.search(srcad.source(grad, x, x))
    x32 = x.astype(np.float32)
    value32, g32 = grad(x32, x32)
    plain = m.gate(x32, x32)
    assert type(value32) is type(plain) and value32.dtype == plain.dtype == np.float32
    assert value32 == plain and g32.dtype == np.float32
    assert not CONSTANT.search(srcad.source(grad, x32, x32))
    listed = srcad.grad(m.listed, wrt=0)
    state64 = [x, x]
    state32 = [x32, x32]
    listed(x, state64)
    want = m.listed(x, state32)  # float32 item: (1.0 - t) is float32, w float64
    got = srcad.value_and_grad(m.listed, wrt=0)(x, state32)[0]
    assert type(got) is type(want) and got.dtype == want.dtype and got == want


def test_a_number_result_stays_a_number(mods):
    """A float64 0-d constant never turns a NumPy number into a 0-d array."""
    m, _ = mods
    s = np.float64(0.4)
    value, g = srcad.value_and_grad(m.gate, wrt=0)(s, s)
    assert type(value) is type(m.gate(s, s)) and type(g) is np.float64
    x = np.array([0.3, -0.7])
    value, g = srcad.value_and_grad(m.gate, wrt=0)(x, x)
    assert type(value) is np.float64 and g.shape == (2,)


def test_the_constants_are_read_only_float64():
    for value, name in ((1.0, "one"), (2.0, "two"), (0.5, "half")):
        c = CONSTANTS[name]
        assert c.dtype == np.float64 and c.ndim == 0 and c == value
        assert not c.flags.writeable


def test_the_dtype_of_what_a_list_holds_is_in_the_key(mods):
    """A list of float64 arrays and one of float32 arrays: other code, each its plain run's."""
    m, _ = mods
    w = np.array([0.2, 0.5])
    grad = srcad.value_and_grad(m.layers, wrt=0)
    for dtype in (np.float64, np.float32, np.float64):
        state = [w.astype(dtype), (w * 2).astype(dtype)]
        value, _ = grad(w.astype(dtype), state)
        want = m.layers(w.astype(dtype), state)
        assert type(value) is type(want) and np.asarray(value).dtype == np.asarray(want).dtype
        assert value == want
