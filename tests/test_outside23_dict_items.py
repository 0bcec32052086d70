"""``c[k] += v`` on a dict whose item is an array, as on a list (issue 16, outside23 item 4).

Python takes the item out, changes the array in place (``__iadd__``) and puts it back. The
alias analysis tells a dict display's places apart by their constant keys, as it does a list
display's by their indices: the write is exact when no other place, name or list holds the
array, and refused at the line otherwise. A generated family (container x operator x what the
other place holds x where the write is) is checked against central differences and autograd
on the same source; the programs whose arrays are shared are refused.
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

W0 = np.array([0.3, -0.2])
X0 = np.array([0.5, 1.0, -1.5])

CONTAINERS = {  # the display, the first place, the second place
    "dict": ('{{"a": {0}, "b": {1}}}', '"a"', '"b"'),
    "list": ("[{0}, {1}]", "0", "1"),
    "dict_int": ("{{3: {0}, 7: {1}}}", "3", "7"),
}
OPS = ("+=", "-=", "*=")
OTHERS = ("x * 2.0", "np.cos(x) * w[1]", "x")  # what the second place holds
WHERE = ("straight", "loop", "branch")


def _text(container, op, other, where):
    display, a, b = CONTAINERS[container]
    write = f"c[{a}] {op} x * w[1] + 0.5"
    body = {"straight": f"    {write}\n",
            "loop": f"    for i in range(2):\n        {write}\n        c[{b}] = c[{b}] * w[0]\n",
            "branch": f"    if w[0] > 0:\n        {write}\n    else:\n        c[{b}] = -c[{b}]\n",
            }[where]
    return (f"def f(w, x):\n    c = {display.format('x * w[0]', other)}\n" + body
            + f"    return np.sum(c[{a}] ** 2) + np.sum(np.sin(c[{b}]) * w[1])\n")


CASES = list(itertools.product(CONTAINERS, OPS, OTHERS, WHERE))


@pytest.mark.parametrize("container,op,other,where", sample(CASES, 5))
def test_an_array_item_changed_in_place(container, op, other, where, tmp_path):
    text = _text(container, op, other, where)
    m = load_module(tmp_path, NP + text)
    a = load_module(tmp_path, AG + text)
    value, g = srcad.value_and_grad(m.f)(W0, X0)
    assert value == pytest.approx(m.f(W0, X0), rel=1e-12)
    np.testing.assert_allclose(g, central(m.f, (W0, X0), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, autograd.grad(a.f)(W0, X0), rtol=1e-10, atol=1e-12)
    _, tangent = srcad.jvp(m.f, (W0, X0), (np.array([1.0, -2.0]), np.zeros(3)))
    assert tangent == pytest.approx(g[0] - 2 * g[1], rel=1e-9, abs=1e-12)


SHARED = {  # the array at c["a"] is also reachable another way after the write
    "two places": ('    t = x * w[0]\n    c = {"a": t, "b": t}\n', 'c["b"]', 'c["a"] may'),
    "a name": ('    t = x * w[0]\n    c = {"a": t, "b": x}\n', "t", "and t may hold it"),
    "an argument": ('    c = {"a": x, "b": x * 2.0}\n', 'c["a"]', "the argument x"),
    "copied in": ('    c = {"a": x * w[0], "b": x}\n    c["b"] = c["a"]\n', 'c["b"]',
                  "c may hold it"),
    "a list": ('    c = {"a": x * w[0], "b": x}\n    e = [c["a"]]\n', "e[0]", "e may hold it"),
    "same dict": ('    c = {"a": x * w[0], "b": x}\n    d = c\n', 'd["a"]', "same object"),
}


@pytest.mark.parametrize("shared", sorted(SHARED))
def test_a_shared_array_is_refused_at_the_line(shared, tmp_path):
    """Python changes the array everywhere it is held: srcad's functional write would not."""
    make, read, said = SHARED[shared]
    text = "def f(w, x):\n" + make + '    c["a"] += x * w[1]\n' + \
        f"    return np.sum({read} ** 2)\n"
    m = load_module(tmp_path, NP + text)
    with pytest.raises(srcad.SrcadError) as err:
        srcad.grad(m.f)(W0, X0.copy())
    message = str(err.value)
    assert f"{m.__file__}, line " in message and 'c["a"] += x * w[1]' in message
    assert said.split(" may")[0] in message or "argument x" in message


def test_a_key_not_known_when_the_code_is_made_reads_any_place(tmp_path):
    """``c[k]`` with ``k`` an argument: any place; with both places fresh, still exact."""
    text = ('def f(w, x, k):\n    c = {"a": x * w[0], "b": x * 2.0}\n    c[k] += x * w[1]\n'
            '    return np.sum(c["a"] ** 2) + np.sum(c["b"] * w[0])\n')
    m = load_module(tmp_path, NP + text)
    for k in ("a", "b"):
        g = srcad.grad(m.f)(W0, X0, k)
        np.testing.assert_allclose(g, central(m.f, (W0, X0, k), 0), rtol=1e-6, atol=1e-8)
