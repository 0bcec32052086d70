"""Lists changed in place by ``append``/``pop`` around branches and uses of the whole list:
found by the long property run (tests/test_properties.py) and kept as a generated family.

* ``if ys: v = ys.pop()``: the backward sweep must take the branch the forward took, though
  the pop has emptied the list since (it tested the list again, and popped an empty one);
* slices of such lists (``ys[::-1][:2]``), whose adjoint must be differentiable again;
* second derivatives of such code: srcad's own first derivative pops gradient lists after
  reading items of them, copies them (``cleared``, ``ys.copy()``) and passes them between a
  callee's parts; all of it must be differentiated again, in reverse and forward mode.

Each program is checked against plain Python (its value), central finite differences, the
reference tape (first order) and finite differences of srcad's first derivative (second).
"""

from __future__ import annotations

import itertools
import uuid

import numpy as np
import pytest
import srcad.tape
from sampling import sample
from srcad.check import numerical_grad

import srcad

#: how the list is filled (x, y: the arguments)
FILLS = [
    "    ys = []\n    for i in range(2):\n        ys.append(x * (i + 1.0) - y)\n",
    "    ys = [x * y]\n    ys.append(y - x)\n",
    "    ys = [x * y - 0.5]\n",  # one item: a pop empties it
    "    ys = []\n    for i in range(1):\n        ys.append(x + 0.25 - y)\n",
    "    ys = []\n    for i in range(0):\n        ys.append(x)\n",  # stays empty
    "    zs = [x, y * y]\n    ys = list(zs)\n    ys.append(x * 0.5)\n",
]
#: a branch on the list that changes it
BRANCHES = [
    "    v = ys.pop() if ys else y\n",
    "    v = y\n    if ys:\n        v = ys.pop() * x\n",
    "    v = x\n    if ys:\n        ys[0] = ys[0] * 2.0\n        v = v + ys.pop()\n",
    "    v = x * y\n    if not ys:\n        ys.append(v)\n    else:\n        v = v + ys.pop()\n",
    "    v = 0.5\n    if ys:\n        ys[0] *= (y + 2.0)\n",
]
#: what reads the list afterwards
USES = [
    "    return v + sum(ys)\n",
    "    s = sum(ys) * 0.5\n    for j, e in enumerate(ys):\n        s = s + e * (j + 1) * 0.5\n"
    "    return v * s\n",
    "    return v * (ys[0] if ys else 1.0) + len(ys)\n",
    "    s = v\n    for e, r in zip(ys, reversed(ys)):\n        s = s + e * r\n    return s\n",
    # slices of the list: their adjoint adds into a new list (added_at), differentiable again
    "    return v + sum(ys[::-1][:2]) * x + sum(ys[1:]) * 0.5\n",
]

CASES = list(itertools.product(range(len(FILLS)), range(len(BRANCHES)), range(len(USES))))
_counter = itertools.count()


def _load(tmp_path, case):
    from test_robustness import load_module

    fill, branch, use = case
    text = "def f(x, y):\n" + FILLS[fill] + BRANCHES[branch] + USES[use]
    name = f"list_branches_{next(_counter)}_{uuid.uuid4().hex[:8]}"
    return load_module(tmp_path, text, name).f, text


POINTS = [(0.7, -0.4), (1.3, 0.9)]


@pytest.mark.parametrize("case", CASES)
def test_first_order(tmp_path, case):
    f, text = _load(tmp_path, case)
    for x, y in POINTS:
        value, grad = srcad.value_and_grad(f, wrt=(0, 1))(x, y)
        assert np.isclose(value, f(x, y)), text
        expected = numerical_grad(f, (x, y), (0, 1))
        assert np.allclose(grad, expected, rtol=1e-6, atol=1e-8), text
        assert np.allclose(grad, srcad.tape.grad(f, wrt=(0, 1))(x, y), atol=1e-10), text
        _, tangent = srcad.jvp(f, (x, y), (0.3, -1.2))
        assert np.isclose(tangent, 0.3 * grad[0] - 1.2 * grad[1]), text


@pytest.mark.parametrize("case", sample(CASES, 2))  # CI: every second; the long run all
def test_second_order(tmp_path, case):
    f, text = _load(tmp_path, case)
    d1 = srcad.grad(f, wrt=0)
    for x, y in POINTS:
        expected = numerical_grad(d1, (x, y), (0, 1))
        rev = srcad.grad(d1, wrt=(0, 1))(x, y)
        assert np.allclose(rev, expected, rtol=1e-5, atol=1e-6), text
        fwd = srcad.jvp(d1, (x, y), (1.0, 0.0))[1]
        assert np.isclose(fwd, expected[0], rtol=1e-5, atol=1e-6), text


# ---------------------------------------------------------------- ys.pop(i)

#: a pop at an index, its result used or not: the list without the item (and the item read);
#: inside an expression it is refused (srcad reads ``v = ys.pop(i)`` and ``ys.pop(i)`` alone)
POPS = ["    ys.pop({i})\n", "    t = ys.pop({i})\n",
        "    t = ys.pop({i}) * y  # refused\n    v = v + t\n"]


@pytest.mark.parametrize("fill, pop, i", list(itertools.product(
    [0, 1, 3], range(len(POPS)), [0, 1, -1])))
def test_pop_at_an_index(tmp_path, fill, pop, i):
    """``ys.pop(i)`` on lists built in branches and loops: differentiated (it was refused),
    against finite differences in both modes; where Python raises (an index past the end),
    srcad's derivative raises the same."""
    from test_robustness import load_module

    text = ("def f(x, y):\n" + FILLS[fill] + "    v = x\n" + POPS[pop].format(i=i)
            + "    return v + ys[0] * 3.0 + sum(ys)\n")
    f = load_module(tmp_path, text, f"list_pop_at_{next(_counter)}_{uuid.uuid4().hex[:8]}").f
    if "# refused" in text:
        line = next(n + 1 for n, t in enumerate(text.splitlines()) if "# refused" in t)
        for make in (lambda: srcad.grad(f, wrt=(0, 1))(0.7, -0.4),
                     lambda: srcad.jvp(f, (0.7, -0.4), (0.0, 1.0))):
            with pytest.raises(srcad.MutationError) as info:
                make()
            assert info.value.lineno == line, text
            assert ".pop(i)" in info.value.message and "ys[:i] + ys[i + 1:]" in info.value.hint
        return
    try:
        f(0.7, -0.4)
    except IndexError:
        with pytest.raises(IndexError):
            srcad.grad(f, wrt=(0, 1))(0.7, -0.4)
        return
    grad = srcad.grad(f, wrt=(0, 1))(0.7, -0.4)
    expected = numerical_grad(f, (0.7, -0.4), (0, 1))
    assert np.allclose(grad, expected, rtol=1e-6, atol=1e-8), text
    _, tangent = srcad.jvp(f, (0.7, -0.4), (0.0, 1.0))
    assert np.isclose(tangent, expected[1], rtol=1e-6, atol=1e-8), text


# ---------------------------------------------------------------- a callee's backward part,
# differentiated again: its gradients updated in place (dx += ...) inside branches of a loop

_DECORATED = '''import functools


def triple(fn):
    @functools.wraps(fn)
    def w(*a, **k):
        return 3.0 * fn(*a, **k)
    return w


@triple
def f(x, y):
    n = 0
    while n < {n} and x < 2.0:
        n = n + 1
        x *= {factor}
        x, y = y, x
    return x * y + x
'''
FACTORS = ["float(min(x, y) if x > y and n > 0 else x)", "(y if x > 0.5 else 0.5)", "x",
           "(x + y if n > 1 else y * y)"]


@pytest.mark.parametrize("n, factor", list(itertools.product([0, 1, 3], FACTORS)))
def test_second_order_through_a_decorated_loop(tmp_path, n, factor):
    from test_robustness import load_module

    text = _DECORATED.format(n=n, factor=factor)
    f = load_module(tmp_path, text, f"decorated_loop_{next(_counter)}_{uuid.uuid4().hex[:8]}").f
    d1 = srcad.grad(f, wrt=0)
    for x, y in [(0.45, 0.8), (0.9, -0.6)]:
        assert np.isclose(d1(x, y), numerical_grad(f, (x, y), 0), rtol=1e-6), text
        expected = numerical_grad(d1, (x, y), (0, 1))
        assert np.allclose(srcad.grad(d1, wrt=(0, 1))(x, y), expected, rtol=1e-5,
                           atol=1e-6), text
        fwd = srcad.jvp(d1, (x, y), (0.0, 1.0))[1]
        assert np.isclose(fwd, expected[1], rtol=1e-5, atol=1e-6), text


# ---------------------------------------------------------------- a slice of a list of numbers
# is a list of numbers: `t = s; t += ...` on its sum is not a write into an array

SLICES = ["ys[1:]", "ys[:-1]", "ys[::2]", "ys[::-1][:2]", "ys[1:][::-1]"]


@pytest.mark.parametrize("part", SLICES)
def test_sum_of_a_slice_is_a_number(tmp_path, part):
    from test_robustness import load_module

    text = ("def f(x, y):\n    ys = []\n    for i in range(3):\n"
            "        ys.append(x * (i + 1.0) + y)\n"
            f"    s = sum({part}) * 2.0\n    t = x\n    n = 0\n    while n < 2:\n"
            "        n = n + 1\n        t = s\n        t += t * y\n    return t + s\n")
    f = load_module(tmp_path, text, f"list_slice_{next(_counter)}_{uuid.uuid4().hex[:8]}").f
    for x, y in POINTS:
        value, grad = srcad.value_and_grad(f, wrt=(0, 1))(x, y)
        assert np.isclose(value, f(x, y)), text
        assert np.allclose(grad, numerical_grad(f, (x, y), (0, 1)), rtol=1e-6), text
        assert np.allclose(grad, srcad.tape.grad(f, wrt=(0, 1))(x, y), atol=1e-10), text
        _, tangent = srcad.jvp(f, (x, y), (1.0, 0.0))
        assert np.isclose(tangent, grad[0]), text
