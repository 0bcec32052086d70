"""``has_aux=True`` with the pair built apart, then its aux's object changed in place before
the return: ``r = (loss, y)``, ``y[0] = 5.0``, ``return r``. Python returns the changed
``y``; the split of the pair (``frontend/aux_pairs``) took the aux where the pair was built
(``aux = y``), and the write, whose new value nothing else read, was dropped: the aux came
back unchanged (``[0.3, 0.9]`` where Python gives ``[5.0, 0.9]``; found by probes of the
session 32 fuzzer's ``aux`` check). The returned aux is read at the return now
(``analysis/alias``): such a write is refused as any write into a value read afterwards, and
a rebinding (``y = y * 2.0``) or a change of another object keeps the aux exact.

A generated family: the aux an array, a list or a dict; a change after the pair (an item
written, an augmented assignment, ``out=``, ``append``/``pop``, a key added, a rebinding, or
none); the pair built apart, in branches, in a loop, or written in the return (the control).
Each: srcad's value and aux equal to the plain run's, its gradient to central differences and
autograd's (of the loss, computed before the change), or a ``SrcadError`` naming the file and
line. Imports itertools, NumPy, autograd, pytest, srcad and the tests' helpers."""

from __future__ import annotations

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from program_files import load
from sampling import sample_by
from twin_checks import central, close

import srcad

HOLDS = {
    "array": ("y = x * 1.0", ["y[0] = 5.0", "y += 1.0", "np.sin(y, out=y)", "y *= y",
                              "z = y + 1.0", "y = y * 2.0"]),
    "list": ("y = [x * 1.0, 2.0]", ["y.append(3.0)", "y[1] = 4.0", "y.pop()", "z = y[0]",
                                    "y = y + [1.0]"]),
    "dict": ("y = {'a': x * 1.0}", ["y['b'] = 1.0", "z = y['a']", "y = {'c': 1.0}"]),
}
SHAPES = {
    "apart": "    r = (loss, y)\n    {change}\n    return r\n",
    "branch": "    if np.sum(x) > 0.5:\n        r = (loss, y)\n    else:\n"
              "        r = (loss * 2.0, y)\n    {change}\n    return r\n",
    "loop": "    for k in range(2):\n        r = (loss * (k + 1), y)\n    {change}\n"
            "    return r\n",
    "direct": "    {change}\n    return loss, y\n",
}
CASES = sample_by([(h, c, s) for h, (_, changes) in HOLDS.items() for c in changes
                   for s in SHAPES], lambda case: case[1], 4)


def _same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k])
                                                                      for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return np.shape(a) == np.shape(b) and np.array_equal(a, b)


@pytest.mark.parametrize("hold,change,shape", CASES)
def test_an_aux_changed_after_its_pair(tmp_path, hold, change, shape):
    made = HOLDS[hold][0]
    head = f"def f(x):\n    loss = np.sum(np.sin(x) * x)\n    {made}\n"
    text = head + SHAPES[shape].format(change=change)
    key = f"{hold}_{shape}_{abs(hash(change)) % 10 ** 6}"
    f = load(tmp_path, f"a_{key}", "import numpy as np\n\n\n" + text)
    twin = load(tmp_path, f"t_{key}", head + SHAPES[shape].format(change="pass")
                .replace("return r\n", "return r[0]\n").replace("return loss, y", "return loss"),
                (anp,))
    x = np.array([0.3, 0.9, 0.4])
    plain, plain_aux = f(x.copy())
    try:
        (value, aux), g = srcad.value_and_grad(f, has_aux=True)(x.copy())
    except srcad.SrcadError as e:
        assert not change.startswith(("y =", "z =")), str(e)  # nothing written: exact
        assert f"a_{key}.py" in str(e) and "line" in str(e), str(e)
        return
    assert close(value, plain, 1e-12)
    assert _same(aux, plain_aux), (aux, plain_aux)
    want = central(lambda y: f(y.copy())[0], [x], 0)
    assert close(g, want, 1e-6)
    assert close(g, autograd.grad(twin)(x), 1e-10)
    g2, aux2 = srcad.grad(f, has_aux=True)(x.copy())
    assert close(g2, g, 1e-12) and _same(aux2, plain_aux)


def test_the_family_covers_each_change():
    changes = {c for _, cs in HOLDS.values() for c in cs}
    assert {c for _, c, _ in CASES} == changes
    assert len(list(itertools.product(SHAPES, changes))) >= len(CASES)
