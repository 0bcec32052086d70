"""``has_aux=True`` of a function returning pair displays, differentiated as the function itself
(``srcad/frontend/aux_pairs.py``, ``srcad/aux_calls.py``): ``grad``, ``value_and_grad`` and
``vjp`` give the gradient of the pairs' first items and the aux the function computes.

A generated family (a body x what the aux is x a number or an array argument x the API) is
checked against central differences (``twin_checks.central``) and autograd on a twin of the
same source (``autograd.grad(lambda v: f(v)[0])``), the aux against the function's own
(equal, and the same object where the function hands back one it was given); functions
returning pairs the form does not read keep the general form (a pair built elsewhere and a
return in a loop are read since calls31: tests/test_calls31_aux_loops.py), and refusals are as
before.
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

BODIES = {
    "straight": """
def f(x):
    y = np.sin(x) * x + np.exp(-x * x)
    loss = np.sum(y * y)
    return loss, {aux}
""",
    "branch": """
def f(x):
    y = np.tanh(x) * 2.0
    loss = np.sum(y * x)
    if np.sum(x) > 0.5:
        return loss * 3.0, ("early", {aux})
    return loss, {aux}
""",
    "branch_else": """
def f(x):
    y = np.cos(x) * x
    if np.sum(x) > 0.5:
        loss = np.sum(y ** 2)
        return loss, {aux}
    else:
        loss = np.sum(y * 3.0)
        return loss + 1.0, [{aux}, loss]
""",
    "nested": """
def f(x):
    y = x * 1.0
    loss = np.sum(y)
    if np.sum(x) > 0.5:
        y = np.sin(x) * 2.0
        loss = np.sum(y * x)
        if np.sum(x) > 0.6:
            return loss, ("inner", {aux})
    elif np.sum(x) < -5.0:
        raise ValueError("not reached")
    return loss * loss, {aux}
""",
    "loop": """
def f(x):
    total = 0.0
    y = x * 1.0
    for k in range(3):
        y = np.sin(y) + x
        total = total + np.sum(y * k)
    loss = total * 2.0
    return loss, {aux}
""",
}
AUX = {  # what the aux is: computed from the output's own values, or not
    "number": "np.sum(x) * 2.0",
    "array": "np.cos(x) + 1.0",
    "tuple": "(y, 'label', 3)",
    "dict": "{'y': y, 'n': 2, 'x': x}",
    "after": "loss * 0.5 + np.sum(y)",
    "own": "y",
    "param": "x",
    "none": "None",
}
ARGS = {"number": 0.7, "array": np.array([0.3, -0.2, 0.9])}
APIS = ("grad", "value_and_grad", "vjp")
CASES = list(itertools.product(BODIES, AUX, ARGS, APIS))


def _modules(tmp_path, body, aux, bodies=None, auxes=None):
    """``f`` of ``bodies[body]`` with ``auxes[aux]`` (this file's by default) loaded twice: on
    NumPy, and on autograd's NumPy (the second engine)."""
    text = (bodies or BODIES)[body].format(aux=(auxes or AUX)[aux])
    mine = load_module(tmp_path, "import numpy as np\n" + text)
    twin = load_module(tmp_path, "import autograd.numpy as np\n" + text)
    return mine.f, twin.f


def _same(a, b):
    """``a`` and ``b`` equal, recursively (arrays and numbers to rounding)."""
    assert type(a) is type(b) or isinstance(a, (float, np.floating)), (a, b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    elif isinstance(a, (np.ndarray, float, np.floating)):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
    else:
        assert a == b


def checked(f, twin, x, api):
    """``f``'s gradient and aux by ``api`` (grad, value_and_grad or vjp, has_aux=True),
    checked against autograd's gradient of ``twin`` (``f`` on autograd's NumPy), central
    differences and ``f``'s own aux; returns ``(gradient, aux, f's aux, autograd's)``."""
    value, want_aux = f(x)

    def first(v):
        return f(v)[0]

    want = autograd.grad(lambda v: twin(v)[0])(x)
    if api == "grad":
        g, got_aux = srcad.grad(f, has_aux=True)(x)
    elif api == "value_and_grad":
        (got_value, got_aux), g = srcad.value_and_grad(f, has_aux=True)(x)
        assert got_value == pytest.approx(value, rel=1e-14)
    else:  # the first call makes the code, later ones take the closures kept
        for _ in range(3):
            got_value, pullback, got_aux = srcad.vjp(f, x, has_aux=True)
            assert got_value == pytest.approx(value, rel=1e-14)
            g = pullback(1.0)[0]
            np.testing.assert_allclose(pullback(2.0)[0], 2.0 * np.asarray(g), rtol=1e-13)
            np.testing.assert_allclose(pullback(1.0)[0], g, rtol=1e-15)
            _same(got_aux, want_aux)
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
    if isinstance(x, np.ndarray):
        np.testing.assert_allclose(g, central(first, (x,), 0), rtol=1e-6, atol=1e-8)
    else:
        assert g == pytest.approx((first(x + 1e-6) - first(x - 1e-6)) / 2e-6, rel=1e-6)
    _same(got_aux, want_aux)
    return g, got_aux, want_aux, want


@pytest.mark.parametrize("body,aux,arg,api", sample(CASES, 3))
def test_has_aux_gradient_and_aux(body, aux, arg, api, tmp_path):
    f, twin = _modules(tmp_path, body, aux)
    x = ARGS[arg]
    g, got_aux, want_aux, want = checked(f, twin, x, api)
    if aux == "param":  # the object given, handed back (in a pair on some paths)
        assert any(a is x for a in (got_aux if isinstance(got_aux, (tuple, list)) else
                                    (got_aux,)))
    # a second call (the code made): the same
    again = srcad.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(again[0], want, rtol=1e-10, atol=1e-12)
    _same(again[1], want_aux)


def test_the_derivative_is_the_functions_own(tmp_path):
    """No shim, no box: the generated code of f returns the gradient and the aux (fails
    without srcad/frontend/aux_pairs.py: the shim's code calls keep_aux)."""
    f, _ = _modules(tmp_path, "branch", "own")
    for maker in (srcad.grad, srcad.value_and_grad):
        text = srcad.source(maker(f, has_aux=True), 0.7)
        assert "keep_aux" not in text and "_fwd(" not in text
        assert text.rstrip().splitlines()[-1].strip().startswith("return")


def test_a_view_as_aux_is_the_functions_view(tmp_path):
    m = load_module(tmp_path, "import numpy as np\n"
                    "def f(x):\n    v = np.broadcast_to(x[:1], (3,))\n"
                    "    return np.sum(x * x), v\n")
    x = np.array([0.5, 1.0, 2.0])
    g, aux = srcad.grad(m.f, has_aux=True)(x)
    assert not aux.flags.writeable and aux.base is not None  # as f(x)[1], not a copy
    assert g.flags.writeable
    np.testing.assert_allclose(g, 2 * x)


def test_float32_gradient_with_aux(tmp_path):
    m = load_module(tmp_path, "import numpy as np\n"
                    "def f(x):\n    y = x * x\n    return np.sum(y), y\n")
    x = np.array([0.5, 1.0], dtype=np.float32)
    g, aux = srcad.grad(m.f, has_aux=True)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)
    np.testing.assert_allclose(aux, x * x)
    (v, aux), g = srcad.value_and_grad(m.f, has_aux=True)(x)
    assert g.dtype == np.float32 and v == pytest.approx(float(np.sum(x * x)), rel=1e-6)


OTHERS = {  # pairs the form did not read before calls31 (read now but "falls_off": the
    # general form; test_calls31_aux_loops holds the new ones' code), the same answers
    "made_apart": "def f(x):\n    out = (np.sum(np.sin(x) * x), np.cos(x))\n    return out\n",
    "in_loop": "def f(x):\n    for k in range(2):\n        if k == 1:\n"
               "            return np.sum(np.sin(x) * x), np.cos(x)\n    return 0.0, x\n",
    "falls_off": "def f(x):\n    if np.sum(x) > -10.0:\n"
                 "        return np.sum(np.sin(x) * x), np.cos(x)\n",
}


@pytest.mark.parametrize("form", OTHERS)
@pytest.mark.parametrize("api", APIS)
def test_other_pairs_keep_the_general_form(form, api, tmp_path):
    sin_pair_checked(load_module(tmp_path, "import numpy as np\n" + OTHERS[form]).f, api)


def sin_pair_checked(f, api):
    """``f(x)`` is ``(np.sum(np.sin(x) * x), np.cos(x))`` however written: its gradient and
    aux by ``api`` (has_aux=True) against the closed form."""
    x = np.array([0.3, -0.2, 0.9])
    want = np.sin(x) + x * np.cos(x)
    if api == "grad":
        g, aux = srcad.grad(f, has_aux=True)(x)
    elif api == "value_and_grad":
        (_, aux), g = srcad.value_and_grad(f, has_aux=True)(x)
    else:
        _, pullback, aux = srcad.vjp(f, x, has_aux=True)
        g = pullback(1.0)[0]
    np.testing.assert_allclose(g, want, rtol=1e-12)
    np.testing.assert_allclose(aux, np.cos(x), rtol=1e-15)


REFUSED = {  # not a pair: refused as before, naming the function's file
    "single": "def f(x):\n    return np.sum(x * x)\n",
    "triple": "def f(x):\n    return np.sum(x * x), x, 1\n",
}


@pytest.mark.parametrize("form", REFUSED)
@pytest.mark.parametrize("api", APIS)
def test_what_is_not_a_pair_is_refused(form, api, tmp_path):
    m = load_module(tmp_path, "import numpy as np\n" + REFUSED[form])
    x = np.array([0.3, -0.2])
    with pytest.raises(srcad.SrcadError, match="must return a pair") as info:
        if api == "vjp":
            srcad.vjp(m.f, x, has_aux=True)
        else:
            getattr(srcad, api)(m.f, has_aux=True)(x)
    assert info.value.filename == m.__file__


def test_a_derivative_with_aux_called_in_differentiated_code(tmp_path):
    """``grad(f, has_aux=True)`` held in a module name and called in code srcad
    differentiates: read as the plain form (srcad/nested_aux.py), as before."""
    m = load_module(tmp_path, "import numpy as np\nimport srcad\n"
                    "def inner(w):\n    return np.sum(np.sin(w) * w), np.cos(w)\n"
                    "D = srcad.grad(inner, has_aux=True)\n"
                    "def outer(w):\n    g, a = D(w)\n    return np.sum(g * g) + np.sum(a)\n")
    w = np.array([0.3, -0.2, 0.9])
    np.testing.assert_allclose(srcad.grad(m.outer)(w), central(m.outer, (w,), 0), rtol=1e-6,
                               atol=1e-8)


MORE = """
import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class P:
    a: float
    b: float


def rec(p):
    y = math.sin(p.a) * p.b
    return y, p.a


def two(x, w):
    return x * w * w, (x, w)


def const(x):
    return 0.0, x


def inner(x):
    return math.sin(x) * x, math.cos(x)


def second(x):
    g, a = srcad.grad(inner, has_aux=True)(x)
    return g * a
"""


def test_records_several_wrt_and_a_second_derivative(tmp_path):
    m = load_module(tmp_path, "import srcad\n" + MORE)
    g, aux = srcad.grad(m.rec, has_aux=True)(m.P(0.3, 0.5))
    assert type(g) is m.P and aux == 0.3
    assert (g.a, g.b) == pytest.approx((np.cos(0.3) * 0.5, np.sin(0.3)), rel=1e-14)
    (v, aux), g = srcad.value_and_grad(m.two, wrt=(0, 1), has_aux=True)(0.7, 2)
    assert v == pytest.approx(2.8) and aux == (0.7, 2.0) and g == pytest.approx((4.0, 2.8))
    assert srcad.grad(m.const, has_aux=True)(0.7) == (0.0, 0.7)
    h = srcad.grad(m.second)(0.7)
    want = (m.second(0.7 + 1e-6) - m.second(0.7 - 1e-6)) / 2e-6
    assert h == pytest.approx(want, rel=1e-6)


def test_the_functions_effects_run_once_per_call(tmp_path, capsys):
    """``f``'s statements run once for the gradient and the aux (the shim ran ``f``'s forward
    part once too; ``vjp``'s kept closure takes value, aux and gradient from one run, where
    ``f`` then the pullback's forward sweep ran twice)."""
    m = load_module(tmp_path, "import math\n"
                    "def f(x):\n    print('run')\n    y = math.sin(x) * x\n"
                    "    return y, x * 2.0\n")
    for _ in range(3):
        assert srcad.grad(m.f, has_aux=True)(0.5)[1] == 1.0
        assert capsys.readouterr().out.count("run") == 1
        assert srcad.value_and_grad(m.f, has_aux=True)(0.5)[0][1] == 1.0
        assert capsys.readouterr().out.count("run") == 1
    srcad.vjp(m.f, 0.5, has_aux=True)[1](1.0)  # the first call makes the code
    capsys.readouterr()
    for _ in range(3):
        value, pullback, aux = srcad.vjp(m.f, 0.5, has_aux=True)
        assert pullback(1.0)[0] == pytest.approx(np.sin(0.5) + 0.5 * np.cos(0.5), rel=1e-14)
        assert aux == 1.0 and capsys.readouterr().out.count("run") == 1


def test_a_derivative_with_aux_differentiated_again_with_aux(tmp_path):
    """``grad(grad(f, has_aux=True), has_aux=True)``: the inner derivative read as its plain
    form (srcad/nested_aux.py), as before; ``vjp`` and ``jvp`` of it too."""
    m = load_module(tmp_path, "import math\n"
                    "def f(x):\n    return math.sin(x) * x, math.cos(x)\n")
    x, h = 0.7, 1e-6

    def first(v):
        return srcad.grad(m.f, has_aux=True)(v)[0]

    want = (first(x + h) - first(x - h)) / (2 * h)
    g2, aux = srcad.grad(srcad.grad(m.f, has_aux=True), has_aux=True)(x)
    assert g2 == pytest.approx(want, rel=1e-6) and aux == pytest.approx(np.cos(x), rel=1e-15)
    value, pullback, aux = srcad.vjp(srcad.grad(m.f, has_aux=True), x, has_aux=True)
    assert value == pytest.approx(first(x), rel=1e-15) and aux == pytest.approx(np.cos(x))
    assert pullback(1.0)[0] == pytest.approx(want, rel=1e-6)
    (value, aux), (tangent, aux_tangent) = srcad.jvp(srcad.grad(m.f, has_aux=True), (x,),
                                                      (1.0,))
    assert tangent == pytest.approx(want, rel=1e-6)
    assert aux_tangent == pytest.approx(-np.sin(x), rel=1e-9)
