"""Values the backward sweep reads again instead of saving them
(:mod:`srcad.transform.reads_again`): an item or slice of an array nothing changes, read with a
``for`` loop's index, int arithmetic of such indices, a branch's flag comparing such an item.
Exactness first: each program below has a value that might change between the forward read
and the backward read (an array written in the loop or after it, a list's item, an index
rebound by the loop, an object's attribute, a global) and must keep it saved; each is checked
against central differences and autograd on a twin (the same text, with the writes written
as new arrays). With the predicate loosened to "any item read or comparison" (every operand
taken as available, every array as stable), ``flag_rebound``, ``flag_written``, ``flag_list``
and ``list_item`` give wrong gradients (the default cases; the others under
SRCAD_LONG_PROPERTIES=1). Items taken as unable to fail (``backend/tidy_bounds.py``): a read
past the end and an array's truth still raise as the function does (both fail with the
range taken from any expression holding ``len(x)`` and any fact taken as a number).

Generated: sources (an argument, a new array, an array written after the loop, a list) x
reads (``y[i]``, ``y[i + 1]``, ``y[i:i + 2]``, a row's item in a nested loop) x with or without
a branch on the read; two cases by default, all 24 under SRCAD_LONG_PROPERTIES=1."""

import itertools

import autograd
import numpy as np
import pytest

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

# name -> (the program, its autograd twin or None for the same text, whether a stack stays)
PROGRAMS = {
    "brief_h": ("""
def f(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.5:
            s = s + x[i] ** 2
        else:
            s = s - np.sin(x[i])
    return s
""", None, False),
    "nested_rows": ("""
def f(x):
    s = 0.0
    w = np.array([0.5, -1.0, 2.0])
    for i in range(2):
        for j in range(3):
            s = s + np.sin(x[i, j] * w[j]) * x[i, j]
    return s
""", None, True),
    "slice_and_shift": ("""
def f(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + np.sum(np.tanh(x[i:i + 2])) * x[i + 1]
    return s
""", None, True),
    "flag_rebound": ("""
def f(x):
    s = 0.0
    k = 0
    for i in range(len(x)):
        if x[k] > 0.5:
            s = s + x[i] ** 2
        else:
            s = s + np.sin(x[i])
        k = (k + 1) % 2
    return s
""", None, True),
    "flag_written": ("""
def f(x):
    y = x * 0.0 + 0.6
    s = 0.0
    for i in range(len(x)):
        if y[i] > 0.5:
            s = s + x[i] ** 2
        else:
            s = s + np.sin(x[i])
        y[(i + 1) % 3] = 0.0
    return s
""", """
def f(x):
    s = 0.0
    for i in range(len(x)):
        if i == 0:
            s = s + x[i] ** 2
        else:
            s = s + np.sin(x[i])
    return s
""", True),
    "flag_list": ("""
def f(x):
    ys = [1.0, 1.0, 1.0]
    s = 0.0
    for i in range(len(x)):
        if ys[i] > 0.5:
            s = s + x[i] ** 2
        else:
            s = s + np.sin(x[i])
        ys[(i + 1) % 3] = 0.0
    return s
""", """
def f(x):
    s = 0.0
    for i in range(len(x)):
        if i == 0:
            s = s + x[i] ** 2
        else:
            s = s + np.sin(x[i])
    return s
""", True),
    "list_item": ("""
def f(x):
    ys = [x[0], x[1], x[2]]
    s = 0.0
    for i in range(3):
        s = s + ys[i] ** 2
        ys[i] = 2.0 * ys[i]
    return s + ys[0]
""", """
def f(x):
    return np.sum(x ** 2) + 2.0 * x[0]
""", True),
    "written_in_loop": ("""
def f(x):
    y = x * 1.0
    s = 0.0
    for i in range(len(x)):
        s = s + y[i] ** 2 * y[0]
        y[0] = y[0] + 0.5
    return s
""", """
def f(x):
    s = 0.0
    for i in range(len(x)):
        y0 = x[0] + 0.5 * i
        yi = y0 if i == 0 else x[i]
        s = s + yi ** 2 * y0
    return s
""", True),
    "written_after": ("""
def f(x):
    y = x * 1.0
    s = 0.0
    for i in range(len(x)):
        s = s + np.sin(y[i]) * y[i]
    y[1] = 2.0 * y[0]
    return s + y[1] * y[2]
""", """
def f(x):
    s = 0.0
    for i in range(len(x)):
        s = s + np.sin(x[i]) * x[i]
    return s + 2.0 * x[0] * x[2]
""", True),
    "view_written": ("""
def f(x):
    y = x * 1.0
    v = y[1:]
    s = 0.0
    for i in range(len(x)):
        s = s + y[i] ** 3
        v[0] = 0.25
    return s
""", """
def f(x):
    return x[0] ** 3 + x[1] ** 3 * 0.0 + 0.25 ** 3 + x[2] ** 3
""", True),
    "global_read": ("""
G = np.array([1.0, 2.0, 3.0])


def f(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * G[i] ** 2 * x[i]
    return s
""", None, None),
}
X = np.array([0.7, 1.3, -0.4])
X2 = np.array([[0.7, 1.3, -0.4], [0.2, -0.9, 1.1]])


def _module(load_module, name, text):
    return load_module(f"reads_again_{name}", "import numpy as np\n" + text)


def _twin(load_module, name, text):
    return load_module(f"reads_again_twin_{name}", "import autograd.numpy as np\n" + text).f


#: by default the brief's program and the four a loosened predicate gets wrong (~0.4 s each)
DEFAULT = ["brief_h", "flag_list", "flag_rebound", "flag_written", "list_item"]


@pytest.mark.parametrize("name", sorted(PROGRAMS) if LONG else DEFAULT)
def test_gradient_exact(load_module, name):
    text, twin, stays = PROGRAMS[name]
    f = _module(load_module, name, text).f
    x = X2 if name == "nested_rows" else X
    grad = srcad.grad(f)
    got = grad(x.copy())
    np.testing.assert_allclose(got, central(f, (x,), 0), rtol=1e-6, atol=1e-7)
    want = autograd.grad(_twin(load_module, name, twin or text))(x)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    text = srcad.source(grad)
    if stays is not None:
        assert ("stack" in text) == stays, text
    if name == "brief_h":  # the items and the flag read again, as a person writes them
        backward = text.split("# backward")[1]
        assert "reversed(range(" in backward and "if x[i] > 0.5:" in backward
        assert "dx[i] += 2.0 * x[i]" in backward and "np.cos(x[i])" in backward


# ---------------------------------------------------------------- the generated family

SOURCES = {  # how y is made; its twin's y; a write after the loop (program, twin)
    "arg": ("y = x", "y = x", "", ""),
    "new": ("y = x * 1.5", "y = x * 1.5", "", ""),
    "written": ("y = x * 1.5", "y = x * 1.5", "y[0] = 3.0 * y[1]",
                "y = np.concatenate([3.0 * y[1:2], y[1:]])"),
    "list": ("y = [x[0], x[1], x[2]]", "y = [x[0], x[1], x[2]]", "y[0] = 3.0 * y[1]",
             "y = [3.0 * y[1], y[1], y[2]]"),
}
READS = {  # the loop's range, the value read
    "item": ("range(3)", "y[i]"),
    "shifted": ("range(2)", "y[i + 1]"),
    "slice": ("range(2)", "np.sum(y[i:i + 2])"),
}
BRANCHES = ["none", "flag"]
CASES = list(itertools.product(SOURCES, READS, BRANCHES))
CHOSEN = CASES if LONG else [("list", "item", "flag"), ("new", "shifted", "flag")]


def _family_text(source, read, branch, twin=False):
    make, twin_make, write, twin_write = SOURCES[source]
    span, value = READS[read]
    if source == "list" and read == "slice":
        value = "(y[i] + y[i + 1])"
    step = f"s = s + np.sin({value}) * {value}"
    if branch == "flag":
        step = (f"if {value} > 0.5:\n            {step}\n        else:\n"
                f"            s = s - {value} ** 2")
    lines = ["def f(x):", f"    {twin_make if twin else make}", "    s = 0.0",
             f"    for i in {span}:", f"        {step}"]
    if write:
        lines.append(f"    {twin_write if twin else write}")
    lines.append("    return s + y[0] * x[2]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("source, read, branch", CHOSEN)
def test_family(load_module, source, read, branch):
    key = f"{source}_{read}_{branch}"
    f = _module(load_module, f"family_{key}", _family_text(source, read, branch)).f
    twin = _twin(load_module, f"family_{key}", _family_text(source, read, branch, True))
    got = srcad.grad(f)(X.copy())
    np.testing.assert_allclose(got, central(f, (X,), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, autograd.grad(twin)(X), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- where the function raises

RAISING = {  # a discarded forward value whose read fails: the gradient raises as f does
    "past_the_end": ("""
def f(x):
    s = 0.0
    for i in range(len(x) + 1):
        s = s + np.sin(x[i]) * 0.0
    return np.sum(x ** 2)
""", IndexError, X),
    "row_truth": ("""
def f(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.5:
            s = s + np.sum(x[i]) * 0.0
    return np.sum(x ** 2)
""", ValueError, X2),
}


@pytest.mark.parametrize("name", sorted(RAISING))
def test_raises_where_the_function_does(load_module, name):
    """An item read is taken as unable to fail only inside ``range(len(x))`` and its
    compared truth only for a number (``backend/tidy_bounds.py``)."""
    text, error, x = RAISING[name]
    f = _module(load_module, f"raising_{name}", text).f
    with pytest.raises(error):
        f(x)
    with pytest.raises(error):
        srcad.grad(f)(x)
