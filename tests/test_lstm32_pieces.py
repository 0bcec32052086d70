"""The gradient of ``np.concatenate`` of a tuple display read by that join only, in the
display's own block, is given to the display's items as the slices themselves (``dinp =
dy[:n1]``), with no list ``dt = [dy[:n1], ...]`` read back as ``dt[0]``
(srcad.transform.joins.read_once). A generated family, against central differences and
srcad's reference tape: items repeated (lstm's ``(inp, hidden, inp, hidden)``), parameters and
computed arrays, along axes 0, 1 and -1, and displays the fact does not hold for (read twice,
joined in a loop or a branch inside the display's block), where the list stays."""

import itertools
import re

import numpy as np
import pytest

import srcad
from srcad import tape
from tests import program_files
from tests.sampling import sample_by
from tests.twin_checks import central

ITEMS = [("a", "b"), ("p", "q", "p"), ("a", "q", "a", "q"), ("q", "b", "p")]
AXES = [0, 1, -1]

# each place: the statements after ``t = (...)``, reading it; does the fact hold there?
PLACES = {
    "once": ("""    y = np.concatenate(t, axis=AX)
    total = np.sum(np.sin(y) * y)
""", True),
    "read_before": ("""    z = t[0] * 2.0
    y = np.concatenate(t, axis=AX)
    total = np.sum(np.sin(y) * y) + np.sum(z * z)
""", False),
    "joined_twice": ("""    y = np.concatenate(t, axis=AX)
    y2 = np.concatenate(t, axis=AX)
    total = np.sum(np.sin(y) * y) + np.sum(np.cos(y2))
""", False),
    "in_loop": ("""    total = 0.0
    for k in range(3):
        y = np.concatenate(t, axis=AX)
        total = total + np.sum(np.sin(y * (k + 1.0)) * y)
""", False),
    "in_branch": ("""    total = np.sum(a * a)
    if total > 0.5:
        y = np.concatenate(t, axis=AX)
        total = total + np.sum(np.sin(y) * y)
""", False),
}


def _text(items, axis, place):
    body = PLACES[place][0].replace("AX", str(axis))
    return (f"import numpy as np\n\n\ndef f(a, b):\n    p = np.sin(a)\n    q = a * b\n"
            f"    t = ({', '.join(items)},)\n{body}    return total\n")


# by default one case a place (the first) and a few more; every case under LONG
CASES = sample_by(itertools.product(PLACES, range(len(ITEMS)), AXES), lambda c: c[0], 4)


@pytest.mark.parametrize("place,which,axis", CASES)
def test_against_differences_and_tape(tmp_path, place, which, axis):
    items = ITEMS[which]
    f = program_files.load(tmp_path, f"pieces_{place}_{which}_{axis}", _text(
        items, axis, place))
    rng = np.random.default_rng(which * 7 + axis % 3)
    shape = (3,) if axis == 0 else (2, 3)
    a, b = rng.normal(size=shape), rng.normal(size=shape)
    g = srcad.grad(f, wrt=(0, 1))
    got = g(a, b)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], central(f, (a, b), k), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got[k], tape.grad(f, wrt=k)(a, b), rtol=1e-10, atol=1e-12)
    text = srcad.source(g, callees=False)
    # the list of slices (``dt = [dy[:n], dy[n:]]``, ``dt = add(dt, [...])``) only where the
    # fact fails
    listed = re.search(r"= (add\(\w+, )?\[d\w+\[", text)
    assert bool(listed) != PLACES[place][1], text
