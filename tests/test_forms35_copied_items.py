"""(forms35) ``e[k] += v`` on a copy of the caller's dict or list whose item at ``k`` is a new
array: a shallow copy (``dict(d)``, ``d.copy()``, ``copy.copy(d)``, ``{**d}``, ``list(xs)``,
``xs[:]``, ...) shares the caller's items until one is rebound (``e["w"] = e["w"] * 1.0``),
after which ``e["w"] += v`` changes the new array only. At bcc0498f every case of the family
was refused ("changes the argument d in place"), and ``{**d}`` was refused as syntax; the
analysis now follows the writes at constant places through the list's versions
(:mod:`srcad.analysis.written_places`).

* a generated family: copy forms x how the item becomes new (a product, ``.copy()``, another
  array, in both arms of a branch, each step of a loop; items copied by the comprehension
  itself) x the operator, each differentiated (value, gradient in the dict or list and in
  ``x``, a jvp on a share) against central differences and autograd on a functional twin
  (``e[k] = e[k] + v``). The program reads the caller's ``d[k]`` after the write, so a write
  srcad missed would show in the gradient;
* where the item IS the caller's array (no rebinding, the other key rebound, one arm only of a
  branch, the item stored at a second place, an ``update``/``insert`` after the rebinding, a
  second name of the copy written), each form is refused, naming the line.
"""

from __future__ import annotations

import itertools
import uuid

import autograd
import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module
from twin_checks import central

import srcad
from srcad.errors import SrcadError

#: name -> (the copy in the program, in its autograd twin), for a dict d and a list xs
DICT_COPIES = {
    "dict": ("dict(d)", "dict(d)"), "method": ("d.copy()", "dict(d)"),
    "copy": ("copy.copy(d)", "dict(d)"), "spread": ("{**d}", "{**d}"),
    "spread_key": ('{**d, "c": 2.0}', '{**d, "c": 2.0}'),
    "comp": ("{k: v for k, v in d.items()}", "{k: v for k, v in d.items()}"),
}
LIST_COPIES = {
    "list": ("list(d)", "list(d)"), "method": ("d.copy()", "list(d)"),
    "copy": ("copy.copy(d)", "list(d)"), "slice": ("d[:]", "list(d)"),
    "comp": ("[v for v in d]", "[v for v in d]"),
}
#: name -> how the item at K becomes a new array before the write (the twin's the same)
REBINDS = {
    "mul": "e[K] = e[K] * 1.0",
    "copy": "e[K] = e[K].copy()",
    "other": "e[K] = np.cos(d[J])",
    "both_arms": "if x > 0:\n        e[K] = e[K] * 2.0\n    else:\n        e[K] = e[K] - 1.0",
}
#: name -> the augmented operator (the twin writes e[K] = e[K] op (v))
OPS = {"add": "+", "sub": "-", "mul": "*"}
ALL = [(c, r, o, kind) for kind, copies in (("dict", DICT_COPIES), ("list", LIST_COPIES))
       for c, r, o in itertools.product(copies, REBINDS, OPS)]
#: CI: each copy form, rebinding and operator once; the long run: all 132
CASES = ALL if LONG else [
    ("dict", "mul", "add", "dict"), ("method", "copy", "sub", "dict"),
    ("copy", "other", "mul", "dict"), ("spread", "both_arms", "add", "dict"),
    ("spread_key", "mul", "mul", "dict"), ("comp", "copy", "add", "dict"),
    ("list", "other", "add", "list"), ("slice", "mul", "sub", "list"),
    ("comp", "both_arms", "mul", "list")]


def _keys(kind):
    return ('"w"', '"b"') if kind == "dict" else ("0", "1")


def _program(tmp_path, copy, rebind, op, kind, loop=False):
    copies = DICT_COPIES if kind == "dict" else LIST_COPIES
    k, j = _keys(kind)
    write = f"e[K] {OPS[op]}= x * d[J]"
    twin_write = f"e[K] = e[K] {OPS[op]} (x * d[J])"
    body = (f"{REBINDS[rebind]}\n    {write}" if not loop else
            f"for i in range(2):\n        {REBINDS[rebind]}\n        {write}")
    twin_body = body.replace(write, twin_write).replace(".copy()", " * 1.0")
    end = "return np.sum(np.sin(e[K]) * e[J]) + np.sum(d[K] * d[J]) * x"

    def text(made, lines, numpy):
        return (f"import copy\nimport {numpy} as np\n\n\ndef f(d, x):\n    e = {made}\n"
                f"    {lines}\n    {end}\n").replace("K]", f"{k}]").replace("J]", f"{j}]")

    name = f"forms35_{kind}_{copy}_{rebind}_{op}_{uuid.uuid4().hex[:8]}"
    return (load_module(tmp_path, text(copies[copy][0], body, "numpy"), name).f,
            load_module(tmp_path, text(copies[copy][1], twin_body, "autograd.numpy"),
                        name + "_twin").f, text(copies[copy][0], body, "numpy"))


def _args(kind):
    w, b = np.array([0.7, 1.3, -0.4]), np.array([0.3, -1.1, 0.6])
    return ({"w": w, "b": b} if kind == "dict" else [w, b]), 0.8


def _fresh(d):
    return {k: v.copy() for k, v in d.items()} if isinstance(d, dict) else [v.copy() for v in d]


def _check(f, twin, text, kind, jvp=False):
    d, x = _args(kind)
    before = _fresh(d)
    value = f(_fresh(d), x)
    assert np.isclose(value, twin(_fresh(d), x)), text  # (the twin is the program)
    got_value, (gd, gx) = srcad.value_and_grad(f, wrt=(0, 1))(_fresh(d), x)
    assert np.isclose(got_value, value), text
    keys = ("w", "b") if kind == "dict" else (0, 1)
    for k in keys:
        def along(v, k=k):
            e = _fresh(d)
            e[k] = v
            return f(e, x)

        assert np.allclose(gd[k], central(along, (d[k].copy(),), 0), atol=1e-5), text
    assert np.isclose(gx, (f(_fresh(d), x + 1e-6) - f(_fresh(d), x - 1e-6)) / 2e-6,
                      atol=1e-5), text
    want = autograd.grad(twin, 0)(_fresh(d), x)
    for k in keys:
        assert np.allclose(gd[k], want[k], atol=1e-9), text
    assert np.isclose(gx, autograd.grad(twin, 1)(_fresh(d), x), atol=1e-9), text
    for k in keys:  # (srcad's code changes nothing of the caller's)
        assert np.array_equal(d[k], before[k]), text
    if jvp:
        _, tangent = srcad.jvp(lambda x: f(_fresh(d), x), (x,), (1.0,))
        assert np.isclose(tangent, gx, atol=1e-9), text


@pytest.mark.parametrize("copy, rebind, op, kind", CASES)
def test_copied_items(tmp_path, copy, rebind, op, kind):
    f, twin, text = _program(tmp_path, copy, rebind, op, kind)
    _check(f, twin, text, kind, jvp=(copy, rebind) == ("dict", "mul"))


@pytest.mark.parametrize("copy, kind", [("spread", "dict")] + (
    [("dict", "dict"), ("list", "list"), ("slice", "list")] if LONG else []))
def test_copied_items_in_a_loop(tmp_path, copy, kind):
    f, twin, text = _program(tmp_path, copy, "mul", "add", kind, loop=True)
    _check(f, twin, text, kind)


def test_comprehension_of_copies(tmp_path):
    """``{k: v.copy() for ...}`` and ``[v.copy() for ...]``: every item a new array, written
    into at once (forms35's first example: ``d = {k: v.copy() ...}; d["w"] += x * 2.0``)."""
    for kind, made, k in (("dict", "{k: v.copy() for k, v in d.items()}", '"w"'),
                          ("list", "[v.copy() for v in d]", "0")):
        text = (f"import numpy as np\n\n\ndef f(d, x):\n    d = {made}\n    d[{k}] += x * 2.0\n"
                f"    return np.sum(d[{k}] ** 2)\n")
        twin_text = text.replace(".copy()", " * 1.0").replace(
            f"d[{k}] += x * 2.0", f"d[{k}] = d[{k}] + x * 2.0").replace("numpy", "autograd.numpy")
        name = f"forms35_fresh_{kind}_{uuid.uuid4().hex[:8]}"
        _check(load_module(tmp_path, text, name).f,
               load_module(tmp_path, twin_text, name + "_twin").f, text, kind)


# ------------------------------------------------------------------------- still refused

#: the item written is (or may be) the caller's array: Python changes it
SHARED = {
    "none": "pass",
    "other_key": "e[J] = e[J] * 1.0",
    "one_arm": "if x > 0:\n        e[K] = e[K] * 1.0",
    "stored_twice": "e[K] = e[K] * 1.0\n    e[J] = e[K]",
    "taken_first": "t = e[K]\n    e[K] = t",
    "second_name": "e[K] = e[K] * 1.0\n    g = e\n    g[K] = d[K]",
}
REFUSED = [(c, s, kind) for kind, copies in (("dict", DICT_COPIES), ("list", LIST_COPIES))
           for c in copies for s in SHARED]
#: CI: each sharing once, over the copy forms; the long run: all 66
REFUSED_CASES = REFUSED if LONG else [
    ("dict", "none", "dict"), ("spread", "other_key", "dict"), ("method", "one_arm", "dict"),
    ("copy", "stored_twice", "list"), ("comp", "taken_first", "list"),
    ("slice", "second_name", "list")]


@pytest.mark.parametrize("copy, shared, kind", REFUSED_CASES)
def test_shared_items_refused(tmp_path, copy, shared, kind):
    copies = DICT_COPIES if kind == "dict" else LIST_COPIES
    k, j = _keys(kind)
    text = (f"import copy\nimport numpy as np\n\n\ndef f(d, x):\n    e = {copies[copy][0]}\n"
            f"    {SHARED[shared]}\n    e[K] += x * d[J]\n"
            f"    return np.sum(np.sin(e[K]) * e[J]) + np.sum(d[K] * d[J]) * x\n"
            ).replace("K]", f"{k}]").replace("J]", f"{j}]")
    f = load_module(tmp_path, text, f"forms35_shared_{uuid.uuid4().hex[:8]}").f
    d, x = _args(kind)
    with pytest.raises(SrcadError) as info:
        srcad.grad(f, wrt=(0, 1))(_fresh(d), x)
    message = str(info.value)
    assert ", line " in message and ("e[" in message or "g[" in message), message


@pytest.mark.parametrize("kind, method", [("dict", "e.update(d)"), ("list", "e.insert(0, d[1])")]
                         + ([("list", "e.reverse()"), ("dict", "e |= d")] if LONG else []))
def test_changed_in_place_after_rebinding_refused(tmp_path, kind, method):
    """A method changing the copy in place (or ``|=``) after the rebinding may put the
    caller's array back at the place written."""
    k, j = _keys(kind)
    text = (f"import numpy as np\n\n\ndef f(d, x):\n    e = {kind}(d)\n    e[{k}] = e[{k}] * 1.0\n"
            f"    {method}\n    e[{k}] += x * d[{j}]\n    return np.sum(e[{k}]) + np.sum(d[{k}])\n")
    f = load_module(tmp_path, text, f"forms35_method_{uuid.uuid4().hex[:8]}").f
    d, x = _args(kind)
    with pytest.raises(SrcadError, match="line [78]"):
        srcad.grad(f, wrt=(0, 1))(_fresh(d), x)


def test_refusal_hint_names_the_container_kind(tmp_path):
    """On a copy of the argument (``e = dict(d); e["w"] += x``) the hint is the rebinding
    alone. (``d["w"] += x`` on the argument itself: differentiated since state36, the
    caller's dict left as the plain run leaves it, tests/test_state36_written_state.py.)"""
    text = ("import numpy as np\n\n\ndef f(d, x):\n    d['w'] += x\n    return np.sum(d['w'])\n\n"
            "\ndef g(d, x):\n    e = dict(d)\n    e['w'] += x\n    return np.sum(e['w'])\n")
    module = load_module(tmp_path, text, f"forms35_hint_{uuid.uuid4().hex[:8]}")
    d, x = _args("dict")
    with pytest.raises(SrcadError, match=r"a copy of the dict still holds\)$") as info:
        srcad.grad(module.g, wrt=(0, 1))(_fresh(d), x)
    assert "list" not in str(info.value).splitlines()[-1]


def test_spread_of_a_list_raises_as_python_does(tmp_path):
    text = "def f(d, x):\n    e = {**d}\n    return e['w'] * x\n"
    f = load_module(tmp_path, text, f"forms35_spread_{uuid.uuid4().hex[:8]}").f
    with pytest.raises(TypeError):
        f([("w", 1.0)], 2.0)
    with pytest.raises(TypeError, match="not a mapping"):
        srcad.grad(f, wrt=1)([("w", 1.0)], 2.0)
    assert srcad.grad(f, wrt=1)({"w": 1.5}, 2.0) == 1.5


def test_spread_after_keys_refused(tmp_path):
    text = "def f(d, x):\n    e = {'c': x, **d}\n    return e['w'] * x\n"
    f = load_module(tmp_path, text, f"forms35_spread2_{uuid.uuid4().hex[:8]}").f
    with pytest.raises(SrcadError, match=r"line 2.*\n.*\n.*hint: copy the first dict"):
        srcad.grad(f, wrt=1)({"w": 1.5}, 2.0)
