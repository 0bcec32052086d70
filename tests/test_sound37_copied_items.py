"""A container's item changed in place (``e[1] += x[0]``) in a copy of a dict (``e =
dict(d)``, ``d.copy()``, ``{**d}``) whose array item went in by a write srcad reads as the only
way to that object (``d.setdefault(1, np.ones(2))``, ``d[k] = np.ones(2)`` in a loop), the
original read afterwards (``d[1]``): a WRONG gradient on 1768c050 and earlier (``[0.9, 3.3]``
for ``[-0.5, 3.9]``): NumPy changes the array both dicts hold, srcad's reading the copy's
alone. The memory analysis leaves such a new object out of the places of the list it goes
into (reachable through that list alone: ``_Places._stored``); a copy of the list holds it
too, so ``items_apart`` counts it now (``Aliases.sole``). Refused, or where srcad can tell
the item is a number differentiated: a gradient srcad gives against central differences
(writes in an ``if``'s arm and lists, right before, are kept as guards).

Generated: ways in x copies x in-place operators: 3 by default (failing on 1768c050), 30
under SRCAD_LONG_PROPERTIES=1 (12 failing on 1768c050). And session 36's false refusal, a
float item of a copied dict changed by ``op=`` (``e = dict(d); e['s'] += np.sum(x)``): copies
x operators x items against central differences and autograd, 3 by default, 27 long (all
refused on 1768c050); an array item stays refused."""

import itertools

import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

#: how the array item gets into d (d starts {0: x[0] * 1.0} or [x[0] * 1.0, 0.0, 0.0])
WAYS = {"setdefault": ("dict", "d.setdefault(1, np.ones(2))"),
        "loop": ("dict", "for k in range(1, 3):\n        d[k] = np.ones(2)"),
        "branch": ("dict", "if x[1] < 5.0:\n        d[1] = np.ones(2)\n    else:\n"
                           "        d[1] = np.zeros(2)"),
        "list_loop": ("list", "for k in range(1, 3):\n        d[k] = np.ones(2)"),
        "list_branch": ("list", "if x[1] < 5.0:\n        d[1] = np.full(2, 2.0)")}
COPIES = {"dict": ["dict(d)", "d.copy()", "{**d}"], "list": ["list(d)", "d.copy()", "d[:]"]}
CHANGES = ["e[1] += x[0]", "e[1] *= x[0]"]
CASES = [(way, copy, change) for way, change in itertools.product(WAYS, CHANGES)
         for copy in COPIES[WAYS[way][0]]]
CHOSEN = CASES if LONG else [("setdefault", "dict(d)", "e[1] += x[0]"),
                             ("loop", "d.copy()", "e[1] *= x[0]"),
                             ("setdefault", "{**d}", "e[1] *= x[0]")]


def _text(way, copy, change):
    kind, put = WAYS[way]
    start = "{0: x[0] * 1.0}" if kind == "dict" else "[x[0] * 1.0, 0.0, 0.0]"
    return (f"import numpy as np\n\n\ndef f(x):\n    d = {start}\n    {put}\n    e = {copy}\n"
            f"    {change}\n    return np.sum(e[1] * x) + np.sum(d[1] * x[1])\n")


@pytest.mark.parametrize("way, copy, change", CHOSEN)
def test_item_of_a_copy_changed_in_place(load_module, way, copy, change):
    f = load_module(f"copied37_{abs(hash((way, copy, change)))}", _text(way, copy, change)).f
    x = np.array([0.3, -0.7])
    want = central(f, (x,), 0)
    try:
        got = srcad.grad(f)(x)
    except srcad.SrcadError as error:
        assert error.lineno is not None and "in place" in str(error)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# ---- a float item of a copied dict, changed by op= (session 36's false refusal) -------------

#: a copy of d = {"s": <number>, "t": 2.0}, its "s" changed by op=, both read after
FLOAT_COPIES = ["dict(d)", "d.copy()", "{**d}"]
FLOAT_OPS = ["e['s'] += np.sum(x)", "e['s'] *= x[1]", "e['s'] -= x[0] * 2.0"]
FLOAT_ITEMS = ["np.sum(x) * 1.0", "x[0] * 1.0", "np.sum(x * x) + 0.5"]
FLOAT_CASES = list(itertools.product(FLOAT_COPIES, FLOAT_OPS, FLOAT_ITEMS))
FLOAT_CHOSEN = FLOAT_CASES if LONG else FLOAT_CASES[::13]


def _float_text(copy, op, item, numpy="numpy"):
    return (f"import {numpy} as np\n\n\ndef f(x):\n    d = {{'s': {item}, 't': 2.0}}\n"
            f"    e = {copy}\n    {op}\n    return np.sum(x * e['s']) + d['s'] * e['t']\n")


@pytest.mark.parametrize("copy, op, item", FLOAT_CHOSEN)
def test_float_item_of_a_copied_dict(load_module, copy, op, item):
    """Refused on 1768c050 ("the item may be an array"): a string key's item was of no known
    kind, and ``dict(d)``/``{**d}`` were not read as copies holding ``d``'s items."""
    import autograd

    key = abs(hash((copy, op, item)))
    f = load_module(f"floats37_{key}", _float_text(copy, op, item)).f
    twin = load_module(f"floats37_twin_{key}", _float_text(copy, op, item, "autograd.numpy")).f
    x = np.array([0.3, -0.7])
    got = srcad.grad(f)(x)
    np.testing.assert_allclose(got, central(f, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, autograd.grad(twin)(x), rtol=1e-12, atol=1e-14)


def test_array_item_of_a_copied_dict_still_refused():
    def f(x):
        d = {"s": np.ones(2), "t": 2.0}
        e = dict(d)
        e["s"] += x
        return np.sum(x * e["s"]) + np.sum(d["s"]) * e["t"]

    with pytest.raises(srcad.SrcadError, match="in place"):
        srcad.grad(f)(np.array([0.3, -0.7]))
