"""``c[i] += v`` into a list whose items may be arrays (issue 16, found by the random programs):
an array item is changed in place (any other name or place holding it sees that), a number is
rebound. srcad now tells the places of every list display apart (``[x, 2.0 * x, y]``: each
place holds what its item may be) and follows ``c[i] += v`` as the item put back at its own
place, so the write is differentiated when no other place and no other name read afterwards
may hold the item, whatever the index (a loop's ``i`` too), and ``list(v)`` of a vector holds
numbers. It stays refused when the item may be an argument, an array another name reads
later, or an object at two places.

A generated family (items x writes x operators; sampled by default, whole with
SRCAD_LONG_PROPERTIES=1): each program is differentiated to central differences and to
autograd on its twin (autograd's ``+=`` on an item rebinds, which is what Python does when
nobody else holds the item), or refused at the write's line when the rule above says so.
"""

import itertools
import uuid

import autograd
import numpy as np
import pytest
from sampling import sample_by
from test_robustness import load_module
from twin_checks import central, close

import srcad

X = np.array([0.7, -1.2, 1.9])
Y = np.array([0.4, 1.1, -0.8])

#: item of the list display -> (its expression, whether a write into it is refused)
_ITEMS = {"arg": ("x", True), "new": ("2.0 * x", False), "new2": ("np.sin(y)", False),
          "named": ("a", False), "number": ("np.sum(x) * 0.5", False)}
_OPS = ["+=", "-=", "*="]


def _program(items, write, op, later):
    """The text of ``f(x, y)`` and the line of its write."""
    lines = ["def f(x, y):", "    a = x * y",
             f"    c = [{', '.join(_ITEMS[k][0] for k in items)}]"]
    if write == "loop":
        lines += [f"    for i in range({len(items)}):",
                  f"        c[i] {op} np.cos(y) * (i + 1.0)"]
    else:
        lines.append(f"    c[{write}] {op} np.cos(x) * 0.5")
    tail = " + np.sum(a * a)" if later else ""
    lines.append(f"    return np.sum(c[0] * c[1]) + np.sum(c[-1]){tail}")
    return "\n".join(lines) + "\n", len(lines) - 1


def _refused(items, write, later):
    """The rule: a written place may hold an argument, ``a`` read later, or ``a`` twice."""
    written = items if write == "loop" else [items[write]]
    return any(_ITEMS[k][1] or k == "named" and (later or items.count("named") > 1)
               for k in written)


def _cases():
    out = []
    for n in (2, 3):
        for items in itertools.product(sorted(_ITEMS), repeat=n):
            for j, write in enumerate([*range(n), "loop"]):
                later = (len(out) + j) % 2 == 0
                op = _OPS[(len(out) + 2 * j) % 3]
                out.append((items, write, op, later))
    return out


CASES = sample_by(_cases(), lambda c: (_refused(c[0], c[1], c[3]), c[1] == "loop", c[2]), 13)


def _on_copies(f):
    """``f`` on copies of its arguments (a refused program may write into them)."""
    def run(*args):
        return f(*[v.copy() for v in args])
    return run


def _load(tmp_path, text, header):
    return load_module(tmp_path, header + "\n\n" + text, f"items21_{uuid.uuid4().hex[:8]}").f


@pytest.mark.parametrize(("items", "write", "op", "later"), CASES)
def test_item_augment_family(tmp_path, items, write, op, later):
    text, line = _program(list(items), write, op, later)
    f = _load(tmp_path, text, "import numpy as np")
    if _refused(list(items), write, later):
        with pytest.raises(srcad.MutationError) as info:
            srcad.grad(f, wrt=(0, 1))(X.copy(), Y.copy())
        assert info.value.lineno == line + 2, str(info.value)  # (the header's 2 lines)
        return
    got = srcad.grad(f, wrt=(0, 1))(X.copy(), Y.copy())
    spelled = text.replace(f"] {op} ", f"] = c[{'i' if write == 'loop' else write}] {op[0]} ")
    twin = _load(tmp_path, spelled, "import autograd.numpy as np")  # (a plain array += box)
    for k in (0, 1):
        assert close(got[k], central(_on_copies(f), [X, Y], k), 1e-5), (k, text)
        assert close(got[k], autograd.grad(twin, k)(X, Y), 1e-9), (k, text)


def _grad_or_error(tmp_path, text):
    f = _load(tmp_path, text, "import numpy as np")
    return f, srcad.grad(f, wrt=(0, 1))(X.copy(), Y.copy())


@pytest.mark.parametrize("body", [
    # list(v) of a vector holds NumPy scalars: += rebinds
    "    c = list(x)\n    c[1] += np.sum(y)\n    return c[0] * c[1] + c[2]\n",
    # a loop's index over a display of new arrays, items reading each other
    "    c = [2.0 * x, 3.0 * y]\n    for i in range(2):\n        c[i] += c[1 - i] * x\n"
    "    return np.sum(c[0] * c[1])\n",
    # built in two branches, then written in a loop
    "    if np.sum(x) > 0:\n        c = [2.0 * x, 3.0 * y]\n    else:\n"
    "        c = [3.0 * y, 2.0 * x]\n    for i in range(2):\n        c[i] *= x\n"
    "    return np.sum(c[0] + c[1] * c[0])\n",
    # a named new array, not read after the write
    "    a = np.exp(x)\n    c = [a, y]\n    c[0] += y\n    return np.sum(c[0] * c[1])\n",
])
def test_sound_item_writes(tmp_path, body):
    f, got = _grad_or_error(tmp_path, "def f(x, y):\n" + body)
    for k in (0, 1):
        assert close(got[k], central(_on_copies(f), [X, Y], k), 1e-5)


@pytest.mark.parametrize("body", [
    "    a = 2.0 * x\n    c = [a, a]\n    for i in range(2):\n        c[i] += y\n",  # twice
    "    c = [2.0 * x, 3.0 * y]\n    d = c[0]\n    for i in range(2):\n        c[i] += x\n"
    "    c = [d, c[1]]\n",  # another name for an item, read after
    "    c = [2.0 * x, 3.0 * y]\n    c[1] = c[0]\n    for i in range(2):\n        c[i] += x\n",
    "    c = [2.0 * x, 3.0 * y]\n    c.append(c[0])\n    for i in range(2):\n        c[i] += x\n",
    "    c = [2.0 * x, 3.0 * y]\n    d = list(c)\n    for i in range(2):\n        c[i] += x\n"
    "    c = [d[0], c[1]]\n",  # a copy of the list read after
    "    c = [2.0 * x, 3.0 * y]\n    d = c\n    for i in range(2):\n        c[i] += x\n"
    "    c = [d[0], c[1]]\n",  # another name for the list
    "    c = [x, 3.0 * y]\n    for i in range(2):\n        c[i] += y\n",  # an argument
    "    m = np.outer(x, y)\n    c = list(m)\n    c[1] += y\n    c = [m[1], c[0]]\n",  # rows
])
def test_unsound_item_writes_are_refused(tmp_path, body):
    text = "def f(x, y):\n" + body + "    return np.sum(c[0] * c[1])\n"
    with pytest.raises(srcad.MutationError, match="in place"):
        _grad_or_error(tmp_path, text)
