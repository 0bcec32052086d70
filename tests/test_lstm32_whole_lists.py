"""Whole list gradients (srcad.transform.whole_lists): a list gradient made by
``zeros_like(xs)`` of a list of arrays or by a callee's backward part returning
``filled(...)`` (and copied only) holds an array of each item's shape, so the gradient of
``y, state = step(w, state, x)`` is the display ``[dy, list(dstate)]``, not ``items_at``
checking each entry. A generated family against central differences and srcad's reference
tape: the state's length and the loop's steps, and states the fact does not hold for (an
item read again after the loop: a store into the gradient; a callee reading the list whole,
which returns no ``filled``; an item gradient that may be a number, ``np.sum(xs)``), where
``items_at`` stays."""

import itertools

import numpy as np
import pytest

import srcad
from srcad import tape
from tests import program_files
from tests.sampling import sample_by
from tests.twin_checks import central

SPARSE_STEP = """
def step(w, state, x):
    new = []
    for i in range(len(state)):
        h = np.tanh(state[i] * w[i] + x)
        new.append(h)
        x = h
    return x * 2.0, new
"""

DENSE_STEP = """
def step(w, state, x):
    new = []
    i = 0
    for v in state:
        h = np.tanh(v * w[i] + x)
        new.append(h)
        x = h
        i = i + 1
    return x * 2.0, new
"""

LOOP = """
def f(w, s, seq):
    state = [s[i] for i in range(len(s))]
    total = 0.0
    for t in range(len(seq)):
        y, state = step(w, state, seq[t])
        total = total + np.sum(np.sin(y) * seq[t])
AFTER    return total
"""

# place: (callee, what follows the loop, whether the state's gradient is whole)
PLACES = {
    "whole": (SPARSE_STEP, "", True),
    "read_after": (SPARSE_STEP, "    total = total + np.sum(state[0] * state[-1])\n", False),
    "dense_callee": (DENSE_STEP, "", False),
    "summed_after": (SPARSE_STEP, "    total = total + np.sum(state) ** 2\n", False),
}


def _text(place):
    callee, after, _ = PLACES[place]
    return "import numpy as np\n\n" + callee + LOOP.replace("AFTER", after)


CASES = sample_by(itertools.product(PLACES, (1, 2, 3), (1, 3)), lambda c: c[0], 12)


@pytest.mark.parametrize("place,layers,steps", CASES)
def test_against_differences_and_tape(tmp_path, place, layers, steps):
    f = program_files.load(tmp_path, f"whole_{place}_{layers}_{steps}", _text(place))
    rng = np.random.default_rng(layers * 10 + steps)
    w, s = rng.normal(size=(layers, 4)) * 0.7, rng.normal(size=(layers, 4)) * 0.7
    seq = rng.normal(size=(steps, 4))
    g = srcad.grad(f, wrt=(0, 1))
    got = g(w, s, seq)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], central(f, (w, s, seq), k), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got[k], tape.grad(f, wrt=k)(w, s, seq), rtol=1e-10,
                                   atol=1e-12)
    text = srcad.source(g, callees=False)
    calls = [line for line in text.splitlines() if "step_bwd" in line]
    assert calls, text
    # the display where the state's gradient is whole, items_at checking it elsewhere
    assert all(("items_at(" in line) != PLACES[place][2] for line in calls), text
    assert all(("list(d" in line) == PLACES[place][2] for line in calls), text


def test_a_whole_list_is_a_new_list_sharing_the_arrays():
    """What the display gives the callee is what ``items_at`` gives: a new list (the callee
    pops from it) holding the same arrays, each of its item's shape."""
    from srcad.runtime.items import filled, items_at

    state = [np.ones(3), np.ones(2)]
    grad = filled([None, np.arange(2.0)], state)
    placed = items_at((np.ones(4), state), (1, 0), (grad, np.zeros(4)))
    assert placed[1] is not grad and all(a is b for a, b in zip(placed[1], grad))
    assert [a.shape for a in placed[1]] == [(3,), (2,)]


SEEDED = """
def g(w, state, x):
    for t in range(2):
        y, state = step(w, state, x)
        x = np.sin(y)
    return state


def f(w, s, seq):
    state = [s[i] for i in range(len(s))]
    state = g(w, state, seq[0])
    return np.sum(state) ** 2 + np.sum(state[0] * seq[-1])
"""


def test_a_seed_is_not_whole(tmp_path):
    """A callee returning its list (``return state``): the gradient its backward part starts
    from is the caller's (here ``np.sum(state)``'s, numbers), so the loop's ``items_at``
    checks it, though every assignment in the part makes a whole list."""
    f = program_files.load(tmp_path, "whole_seeded", "import numpy as np\n\n" + SPARSE_STEP
                           + SEEDED)
    rng = np.random.default_rng(5)
    w, s, seq = rng.normal(size=(2, 4)) * 0.7, rng.normal(size=(2, 4)) * 0.7, rng.normal(
        size=(3, 4))
    g = srcad.grad(f, wrt=(0, 1))
    got = g(w, s, seq)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], central(f, (w, s, seq), k), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got[k], tape.grad(f, wrt=k)(w, s, seq), rtol=1e-10,
                                   atol=1e-12)
    text = srcad.source(g)
    part = text[text.index("def g_bwd"):]
    part = part[:part.index("\ndef ")] if "\ndef " in part else part
    assert "items_at(" in part and "list(d" not in part, part
