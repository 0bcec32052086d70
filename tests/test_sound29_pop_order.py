"""An item of a list read to make the next item (sound29's mutant fuzzer, tools/mutant_programs.py,
on tangent's ``numpy_sinh`` with ``L = [a]; for j in range(2): L.append(np.sin(L[-1]))``): the
gradient was wrong. The backward sweep of ``L.append(t_1)`` pops ``t_1``'s gradient off the
list's (``dt_1 = dL.pop()``) and that of ``t = L[-1]`` adds into the last item
(``dL[-1] += dt``); tidying wrote the pop into the statement after it,
``dL[-1] += dL.pop() * 2.0``, where Python reads ``dL[-1]`` (the item being popped) before it
pops. An acting value (a pop, a call srcad does not know to be pure) now moves into no
statement that reads a name it reads or whose method it calls
(``srcad.backend.tidy_values._inline_temps``).

A generated family: lists grown in a loop or line by line, each new item made from an item
read by a negative, a first or a loop index, the items summed, read with distinct weights or
summed in a loop, of numbers and of arrays; srcad's gradient against srcad.tape's and central
differences, and its jvp.
Cheap by default (one case), every case under ``SRCAD_LONG_PROPERTIES=1``. Imports NumPy,
srcad, and the tests' program_files, sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import load
from sampling import LONG

import srcad
from srcad import tape

READS = ["L[-1]", "L[-2]", "L[0]", "L[j]", "L[len(L) - 1]"]
MAKES = ["np.sin({r})", "{r} * 2.0", "{r} * L[0]", "{r} + x"]
SHAPES = ["loop", "lines", "pop"]
KINDS = ["number", "array"]

#: how the items are read at the end (a gradient known to be nonzero, or built in a loop)
READOUTS = {
    "sum": "    t = sum(L)",
    "items": "    t = L[0] + 2.0 * L[1] + 3.0 * L[-1] + 4.0 * L[-2]",
    "loop": "    t = 0.0\n    for k in range(len(L)):\n        t = t + (k + 1.0) * L[k]",
}

TEMPLATE = """\
import numpy as np


def f(x):
    L = [x, x * 1.5]
{grow}
{readout}
    return np.sum(t)
"""


def program(read, make, shape, readout="sum"):
    item = make.format(r=read)
    if shape == "loop":
        grow = f"    for j in range(3):\n        L.append({item})"
    elif shape == "lines":
        grow = "\n".join(f"    j = {j}\n    L.append({item})" for j in range(3))
    else:  # items appended and popped: the pop's gradient goes back onto the list's
        grow = (f"    for j in range(3):\n        L.append({item})\n"
                f"        L.append(L.pop() * 0.5)")
    return TEMPLATE.format(grow=grow, readout=READOUTS[readout])


CASES = list(itertools.product(READS, MAKES, SHAPES, READOUTS, KINDS))
#: CI's one case (the fuzzer's); the long run adds the family
FIRST = [("L[-1]", "np.sin({r})", "lines", "sum", "number")]


def _point(kind):
    return 0.7 if kind == "number" else np.array([0.7, -0.3, 1.1])


def _central(f, x, v, h=1e-6):
    return (f(x + h * v) - f(x - h * v)) / (2 * h)


@pytest.mark.parametrize("read,make,shape,readout,kind", FIRST + (CASES if LONG else []))
def test_item_read_to_make_the_next(tmp_path, read, make, shape, readout, kind):
    f = load(tmp_path, "grown", program(read, make, shape, readout))
    x = _point(kind)
    g = srcad.grad(f)(x)
    want = tape.grad(f)(x)
    assert np.allclose(g, want, rtol=1e-10, atol=1e-12)
    v = 1.0 if kind == "number" else np.array([0.3, -1.2, 0.8])
    assert np.isclose(np.sum(g * v), _central(f, x, v), rtol=1e-6, atol=1e-8)
    _, tangent = srcad.jvp(f, (x,), (v,))
    assert np.isclose(tangent, np.sum(want * v), rtol=1e-10, atol=1e-12)


def test_the_pop_stays_a_statement_of_its_own():
    """The printed backward sweep pops before it reads the item (the shrunk case)."""
    def f(a):
        L = [a]
        L.append(L[-1] * 2.0)
        return 3.0 * L[0] + L[1]

    assert srcad.grad(f)(0.7) == pytest.approx(5.0)
    text = srcad.source(srcad.grad(f), 0.7)
    assert "dL.pop()" in text and "+= dL.pop()" not in text.replace(" ", " ")
