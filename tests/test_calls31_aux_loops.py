"""``has_aux=True`` read in the function where a ``return`` sits in a ``for`` or ``while`` loop,
or the pair is built apart from the return (``r = (loss, aux)`` then ``return r``, in
branches or a loop), or the aux is a dict or list built in a loop
(``srcad/frontend/aux_pairs.py``: the split follows loops' merges as it follows ifs'). No shim:
the derivative is the function's own code, which returns the aux beside the gradient.

A generated family (a body x what the aux is x a number or an array argument x the API) is
checked against central differences (``twin_checks.central``) and autograd on a twin of the
same source, the aux against the function's own run (equal, the same object where the
function hands back one it was given), the code against the shim (``keep_aux`` absent);
the function's effects run once per call, in its order; what the split cannot read keeps the
general form (a pair read elsewhere, a return in a ``with``), with the same answers.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from test_calls30_aux import _modules, checked, sin_pair_checked
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")

BODIES = {
    "apart": """
def f(x):
    y = np.sin(x) * x + np.exp(-x * x)
    loss = np.sum(y * y)
    out = (loss, {aux})
    return out
""",
    "apart_branches": """
def f(x):
    y = np.tanh(x) * 2.0
    loss = np.sum(y * x)
    if np.sum(x) > 0.5:
        r = (loss * 3.0, ("early", {aux}))
    else:
        r = [loss + 1.0, {aux}]
    return r
""",
    "for_return": """
def f(x):
    y = x * 1.0
    loss = np.sum(y)
    for k in range(4):
        y = np.sin(y) + x * 0.5
        loss = np.sum(y * y) * (k + 1)
        if np.sum(y) > 0.4 * (k + 1):
            return loss, {aux}
    return loss * 2.0, {aux}
""",
    "while_return": """
def f(x):
    k = 0
    y = x * 1.0
    loss = np.sum(y)
    while k < 5:
        y = y * 1.1 + np.cos(y) * 0.1
        loss = np.sum(y * y)
        if k == 2:
            return loss, {aux}
        k += 1
    return loss, {aux}
""",
    "apart_in_loop": """
def f(x):
    y = x * 1.0
    for k in range(3):
        y = np.sin(y) + x
        loss = np.sum(y * k) + np.sum(y)
        out = (loss, {aux})
    return out
""",
    "nested_loops": """
def f(x):
    y = x * 1.0
    loss = np.sum(y)
    for i in range(3):
        for j in range(2):
            y = np.cos(y) * x + 0.1 * j
            loss = np.sum(y * y) + i
            if i == 1 and j == 1:
                return loss, {aux}
    return loss, {aux}
""",
    "for_else": """
def f(x):
    y = x * 1.0
    loss = np.sum(y)
    for k in range(3):
        y = np.sin(y) * 1.5
        loss = np.sum(y * x)
        if np.sum(y) > 100.0:
            break
    else:
        r = (loss * 2.0, {aux})
        return r
    return loss, {aux}
""",
    "dict_in_loop": """
def f(x):
    y = x * 1.0
    d = {{}}
    for k in range(3):
        y = np.sin(y) + x
        d[k] = y
    loss = np.sum(y * y)
    d["aux"] = {aux}
    return loss, d
""",
    "list_in_loop": """
def f(x):
    y = x * 1.0
    seen = []
    loss = 0.0
    for k in range(3):
        y = np.tanh(y) + x
        seen = seen + [y]
        loss = loss + np.sum(y)
        if np.sum(y) > 50.0:
            return loss, (seen, {aux})
    return loss, (seen, {aux})
""",
}
AUX = {  # what the aux is: computed from the output's own values, or not
    "number": "np.sum(x) * 2.0",
    "array": "np.cos(x) + 1.0",
    "tuple": "(y, 'label', 3)",
    "dict": "{'y': y, 'n': 2, 'x': x}",
    "after": "loss * 0.5 + np.sum(y)",
    "param": "x",
    "none": "None",
}
ARGS = {"number": 0.7, "array": np.array([0.3, -0.2, 0.9]), "low": -0.4}
APIS = ("grad", "value_and_grad", "vjp")
CASES = list(itertools.product(BODIES, AUX, ARGS, APIS))


def _holds(aux, x):
    """Whether ``x`` itself is in ``aux`` (not a copy of it)."""
    if aux is x:
        return True
    if isinstance(aux, dict):
        aux = list(aux.values())
    return isinstance(aux, (tuple, list)) and any(_holds(a, x) for a in aux)


@pytest.mark.parametrize("body,aux,arg,api", sample(CASES, 26))
def test_loops_and_pairs_apart_gradient_and_aux(body, aux, arg, api, tmp_path):
    f, twin = _modules(tmp_path, body, aux, BODIES, AUX)
    x = ARGS[arg]
    g, got_aux, want_aux, _ = checked(f, twin, x, api)
    assert _holds(got_aux, x) == _holds(want_aux, x)  # the object given, handed back
    # the function's own code, no shim (fails before aux_pairs followed loops and copies)
    text = srcad.source(srcad.grad(f, has_aux=True), x)
    assert "keep_aux" not in text and "_fwd(" not in text


def test_a_return_in_a_loop_taken_or_not(tmp_path):
    """Both paths of ``for_return`` are taken by the family's arguments (the tests above
    cannot pass by one path alone)."""
    f, _ = _modules(tmp_path, "for_return", "number", BODIES, AUX)
    early = load_module(tmp_path, "import numpy as np\n" + BODIES["for_return"].format(
        aux="'early'").replace("return loss * 2.0, 'early'", "return loss * 2.0, 'late'"))
    assert {early.f(ARGS[a])[1] for a in ARGS} == {"early", "late"}


def test_effects_run_once_in_their_order(tmp_path, capsys):
    m = load_module(tmp_path, "import math\n"
                    "def f(x):\n    y = x\n    for k in range(4):\n        print('k', k)\n"
                    "        y = math.sin(y) * x\n        if k == 2:\n"
                    "            r = (y, k)\n            print('pair')\n            return r\n"
                    "    return y, -1\n")
    want = "k 0\nk 1\nk 2\npair\n"
    m.f(0.5)
    assert capsys.readouterr().out == want
    g = srcad.grad(m.f, has_aux=True)
    for _ in range(2):
        got, aux = g(0.5)
        assert aux == 2 and capsys.readouterr().out == want
    h = 1e-6
    assert got == pytest.approx((m.f(0.5 + h)[0] - m.f(0.5 - h)[0]) / (2 * h), rel=1e-6)
    srcad.vjp(m.f, 0.5, has_aux=True)[1](1.0)  # the first call makes the code (f, then
    capsys.readouterr()  # the pullback's sweep: twice, as vjp without has_aux)
    for _ in range(3):
        value, pullback, aux = srcad.vjp(m.f, 0.5, has_aux=True)
        assert pullback(1.0)[0] == pytest.approx(got, rel=1e-14) and aux == 2
        assert capsys.readouterr().out == want


OTHERS = {  # pairs the split does not read: the general form (the shim), the same answers
    "read_elsewhere": "def f(x):\n    out = (np.sum(np.sin(x) * x), np.cos(x))\n"
                      "    n = len(out)\n    return out\n",
    "read_in_a_while_test": "def f(x):\n    r = (np.sum(np.sin(x) * x), np.cos(x))\n"
                            "    k = 0\n    while len(r) > 2 or k < 2:\n        k += 1\n"
                            "    return r\n",
    "in_with": "import contextlib\n"
               "def f(x):\n    with contextlib.nullcontext():\n"
               "        return np.sum(np.sin(x) * x), np.cos(x)\n",
    "from_a_call": "def g(x):\n    return np.sum(np.sin(x) * x), np.cos(x)\n"
                   "def f(x):\n    for k in range(2):\n        if k == 1:\n"
                   "            return g(x)\n    return g(x)\n",
}


@pytest.mark.parametrize("form", OTHERS)
@pytest.mark.parametrize("api", APIS)
def test_what_the_split_cannot_read_keeps_the_shim(form, api, tmp_path):
    sin_pair_checked(load_module(tmp_path, "import numpy as np\n" + OTHERS[form]).f, api)


def test_a_return_that_is_no_pair_in_a_loop_is_refused(tmp_path):
    """A loop's ``return`` of one value: not a pair, refused where it runs (the shim's
    check), naming the function's file; the path returning a pair is differentiated."""
    m = load_module(tmp_path, "import numpy as np\n"
                    "def f(x):\n    for k in range(3):\n        if np.sum(x) > 1.0:\n"
                    "            return np.sum(x * x)\n    return np.sum(x), x\n")
    d = srcad.grad(m.f, has_aux=True)
    with pytest.raises(srcad.SrcadError, match="must return a pair") as info:
        d(np.array([1.0, 2.0]))
    assert info.value.filename == m.__file__
    g, aux = d(np.array([0.1, 0.2]))
    np.testing.assert_allclose(g, [1.0, 1.0])


def test_unbound_pair_after_an_empty_loop_raises_as_python_does(tmp_path):
    m = load_module(tmp_path, "import math\n"
                    "def f(x, n):\n    for k in range(n):\n"
                    "        out = (math.sin(x) * k, k)\n    return out\n")
    with pytest.raises(UnboundLocalError):
        m.f(0.5, 0)
    with pytest.raises(UnboundLocalError):
        srcad.grad(m.f, has_aux=True)(0.5, 0)
    g, aux = srcad.grad(m.f, has_aux=True)(0.5, 3)
    assert aux == 2 and g == pytest.approx(2 * np.cos(0.5), rel=1e-14)
