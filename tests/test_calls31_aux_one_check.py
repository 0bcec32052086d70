"""One pair check and one eager ``vjp`` for ``has_aux=True`` (``srcad/aux_calls.py``): the
check that ``f`` returned ``(value, aux)`` is one function (``aux_calls.check_pair``, naming
``f``'s file, line and name), whichever use runs it (``srcad.vjp`` running ``f``, the shim's
``keep_aux`` for a pair the split does not read, the plain form read in differentiated code);
``vjp``'s value, gradient and aux from one call is ``fast_calls.eager_vjp`` with or without
the aux (the first pullback of 1.0 hands the gradient made with the value over, later ones
make it again, another cotangent runs the vjp code), checked against central differences.
"""

from __future__ import annotations

import math

import pytest
from test_robustness import load_module

import srcad
from srcad import aux_calls, fast_calls, nested_aux, nested_vjp

TEXT = """import numpy as np
import srcad


def single(x):
    return np.sum(x * x)


def from_call(x):
    return single(x)


def outer(x):
    g, a = srcad.grad(single, has_aux=True)(x)
    return np.sum(g)
"""
USES = {  # how each use reaches the check: srcad.vjp's run, the shim, the plain form
    "vjp": lambda m, x: srcad.vjp(m.single, x, has_aux=True),
    "shim": lambda m, x: srcad.grad(m.from_call, has_aux=True)(x),
    "shim_vjp": lambda m, x: srcad.vjp(m.from_call, x, has_aux=True),
    "nested": lambda m, x: srcad.grad(m.outer)(x),
}
LINES = {"vjp": 5, "shim": 9, "shim_vjp": 9, "nested": 5}  # the def of the function named
NAMES = {"vjp": "single", "shim": "from_call", "shim_vjp": "from_call", "nested": "single"}


def test_the_check_is_one_function():
    assert nested_aux.check_pair is aux_calls.check_pair
    assert not hasattr(aux_calls, "_eager")


@pytest.mark.parametrize("use", USES)
def test_every_use_names_the_function(use, tmp_path):
    import numpy as np

    m = load_module(tmp_path, TEXT)
    with pytest.raises(srcad.SrcadError, match="must return a pair") as info:
        USES[use](m, np.array([0.3, -0.2]))
    err = info.value
    assert err.filename == m.__file__ and err.lineno == LINES[use]
    assert f"the function {NAMES[use]} must return a pair" in str(err)
    assert "it returned float64" in str(err)


def test_a_pair_passes_the_check():
    for out in ((1.0, None), [1.0, {"a": 2}]):
        assert aux_calls.check_pair(out, (None, None, "f")) is None
    with pytest.raises(srcad.SrcadError, match="of length 3"):
        aux_calls.check_pair((1.0, 2, 3), ("here.py", 4, "g"))


def _f(x):
    return math.sin(x) * x + x * x


def _f_aux(x):
    return math.sin(x) * x + x * x, x


@pytest.mark.parametrize("aux", [False, True])
def test_eager_vjp_with_and_without_the_aux(aux):
    """``eager_vjp`` made by hand from srcad's own codes for both forms: value, pullback and
    (with the aux) the very object ``f`` hands back; a failing ``make`` takes ``lazy``."""
    f = _f_aux if aux else _f
    mode = "value_and_grad_aux" if aux else "value_and_grad"
    vg = srcad.api._transform(f, 0, mode).function
    grad = srcad.api._transform(f, 0, "grad_aux" if aux else "grad").function
    first = "_first" if aux else ""
    transformed = srcad.api._transform(f, 0, "vjp" + first)
    calls = []

    def lazy(args):
        calls.append(args)
        return "lazy"

    vjp_of = fast_calls.eager_vjp(lambda: vg, transformed, (lambda x: grad(x)[0]) if aux
                                  else grad, lazy, f, 0, aux=aux)
    x, h = 0.7, 1e-6
    want = (_f(x + h) - _f(x - h)) / (2 * h)
    out = vjp_of((x,))
    assert len(out) == (3 if aux else 2) and not calls
    value, pullback = out[:2]
    assert value == _f(x)
    if aux:
        assert out[2] is x
    for _ in range(2):  # the gradient made with the value, then made again
        assert pullback(1.0) == pytest.approx(want, rel=1e-8)
    assert pullback(2.0) == pytest.approx(2 * want, rel=1e-8)
    assert nested_vjp.made_of(pullback)[3] is aux  # (what srcad reads: its cell, trees34)
    assert vjp_of(("not a number",)) == "lazy" and calls  # an error: the lazy path


@pytest.mark.parametrize("aux", [False, True])
def test_the_api_path_through_eager_vjp(aux):
    f = _f_aux if aux else _f
    x, h = 0.4, 1e-6
    want = (_f(x + h) - _f(x - h)) / (2 * h)
    for _ in range(4):  # the first calls make the codes, the later take the eager closure
        out = srcad.vjp(f, x, has_aux=aux)
        assert out[0] == _f(x)
        assert out[1](1.0)[0] == pytest.approx(want, rel=1e-8)
        assert out[1](1.0)[0] == pytest.approx(want, rel=1e-8)
        assert out[1](-1.5)[0] == pytest.approx(-1.5 * want, rel=1e-8)
        if aux:
            assert out[2] is x
