"""Second derivatives of scalar programs with lists (issue 16, found by the random programs):
``srcad.grad(srcad.grad(f))`` of a program that copies a list (``list(v1)``, ``v1[:]``),
appends to the copy, sums a slice, walks ``zip(v1, reversed(v1))`` and swaps names in a loop
was refused INSIDE srcad's first derivative ("dt shares memory with ddy_1", naming the
generated file): the first derivative's gradients are floats, but its analysis saw them as
values of unknown kind, so ``dt += v`` looked like a write into an array another gradient
name holds. Two facts were lost: the items of ``list(range(...))`` (ints) and of srcad's
``add(dys, fill(v, ys))`` (those of its arguments), and, where ``f`` is a callee split in two
(a decorated function), the element kinds of the lists its backward part receives in its
context tuple (now ``__srcad_param_elems__``).

A generated family (list copies x walks x loops x wrappers; sampled by default, whole with
SRCAD_LONG_PROPERTIES=1): reverse-over-reverse and forward-over-reverse second derivatives
against central differences of srcad's first derivative and against autograd on the twin.
"""

import itertools
import uuid

import autograd
import pytest
from gen_programs import HELPERS
from sampling import sample_by
from test_robustness import load_module
from twin_checks import close

import srcad

_COPIES = ["v1", "list(v1)", "v1[:]"]
_WALKS = {
    "zip": ["    for a, b in zip(v4, reversed(v4)):", "        s = s + a * b * 0.25"],
    "slice": ["    s = s + sum(v4[1:]) * 2.0"],
}
_LOOPS = {  # inside the loop building the list
    "none": [],
    "swap": ["        n = 0", "        while n < 2:", "            n += 1",
             "            p, q = q, p", "            q = q * 0.5"],
}
_WRAPPERS = {
    "plain": "",
    "decorated": "@scaled(-2.0)\n",
}

def _program(copy, walk, loop, wrapper):
    lines = [f"{_WRAPPERS[wrapper]}def f(x, y):", "    p, q = y, x", "    v1 = []",
             "    for i in range(2):", *_LOOPS[loop], "        v1.append(p * p + q * x)",
             f"    v4 = {copy}", "    v4.append(x * y)", "    s = sum(v1) + len(v4)",
             *_WALKS[walk], "    return s * x + p * q + s"]
    return "\n".join(lines) + "\n"


CASES = sample_by(list(itertools.product(_COPIES, sorted(_WALKS), sorted(_LOOPS),
                                         sorted(_WRAPPERS), [(0, 0), (0, 1), (1, 0), (1, 1)])),
                  lambda c: (c[1], c[2]), 12)
ARGS = (0.7, 1.3)


def _load(tmp_path, text, numpy):
    header = f"import {numpy} as np\n" + HELPERS + "\n\n"  # with scaled
    return load_module(tmp_path, header + text, f"so_lists21_{uuid.uuid4().hex[:8]}").f


@pytest.mark.parametrize(("copy", "walk", "loop", "wrapper", "ij"), CASES)
def test_second_derivative_with_list_copies(tmp_path, copy, walk, loop, wrapper, ij):
    text = _program(copy, walk, loop, wrapper)
    f = _load(tmp_path, text, "numpy")
    twin = _load(tmp_path, text, "autograd.numpy")
    i, j = ij
    first = srcad.grad(f, wrt=i)
    want = autograd.grad(autograd.grad(twin, i), j)(*ARGS)
    h = 1e-6
    up, down = list(ARGS), list(ARGS)
    up[j] += h
    down[j] -= h
    central = (first(*up) - first(*down)) / (2 * h)
    assert close(central, want, 1e-5), (central, want)
    assert close(srcad.grad(first, wrt=j)(*ARGS), want, 1e-9), text
    tangent = tuple(1.0 if k == j else 0.0 for k in range(2))
    assert close(srcad.jvp(first, ARGS, tangent)[1], want, 1e-9), text


def test_hessian_of_the_found_program(tmp_path):
    """The program the random run found (a list named zeros_like, a swap in a while loop
    inside a for loop, a decorator), reduced."""
    text = ("@scaled(-2.0)\ndef f(t, dy):\n    t, dy = dy, t\n    zeros_like = []\n"
            "    for i1 in range(1):\n        n2 = 0\n        while n2 < 4:\n"
            "            n2 += 1\n            t, dy = dy, t\n            dy = dy * 0.5\n"
            "        zeros_like.append(t * t)\n    v3 = sum(zeros_like)\n"
            "    for dacc, v4 in zip(zeros_like, reversed(zeros_like)):\n"
            "        v3 = v3 + dacc * v4 * 0.25\n    return v3 + dy + v3\n")
    f = _load(tmp_path, text, "numpy")
    twin = _load(tmp_path, text, "autograd.numpy")
    for i, j in itertools.product(range(2), range(2)):
        want = autograd.grad(autograd.grad(twin, i), j)(*ARGS)
        assert close(srcad.grad(srcad.grad(f, wrt=i), wrt=j)(*ARGS), want, 1e-9), (i, j)


def test_refusal_inside_a_first_derivative_names_the_users_line(tmp_path):
    """A construct refused when srcad's first derivative is differentiated again (here
    ``ys.pop(0)`` on a list carrying a tangent: every argument varies under ``jvp``) is
    reported at the user's file and line, not at the line of the generated code."""
    text = ("def f(y, w, t):\n    ys = []\n    for i in range(2):\n"
            "        ys.append(t - 3.0)\n        ys.append(-np.exp(t))\n"
            "    g = ys.pop(0) + (y + 1.5)\n    return g * w + y * y\n")
    f = _load(tmp_path, text, "numpy")
    first = srcad.grad(f, wrt=1)
    assert close(first(*ARGS, 0.4), 0.4 - 3.0 + 0.7 + 1.5, 1e-12)
    with pytest.raises(srcad.MutationError) as info:
        srcad.jvp(first, (*ARGS, 0.4), (0.0, 1.0, 0.0))
    error = info.value
    assert error.filename == f.__code__.co_filename, str(error)
    assert error.lineno == f.__code__.co_firstlineno + 5, str(error)
    assert "ys.pop(0)" in str(error)


#: writes through views of a small array built from numbers, differentiated twice (the
#: random programs' second-order forms of ``v = y[1:3]; y += v.sum()``); the last was refused
#: at first order: ``np.array([a, b, a * b, 1.0])`` of numbers of unknown type with a float
#: among them is a float array (analysis/dtypes.py), not one that may hold integers
_VIEWS = [
    "    v = y[1:3]\n    y += v.sum()\n    return np.sum(y * y)\n",
    "    v = y[1:3]\n    y += v.sum() * a\n    w = y[::2]\n    y[0] = w.sum()\n"
    "    return np.sum(y ** 3)\n",
    "    for i in range(2):\n        v = y[1:3]\n        y += v.sum() * b\n"
    "    return np.sum(y * a)\n",
    "    v = y[1:3]\n    v *= a\n    return np.sum(y * y)\n",
]


@pytest.mark.parametrize("body", _VIEWS)
def test_second_order_through_views(tmp_path, body):
    text = "def f(a, b):\n    y = np.array([a, b, a * b, 1.0])\n" + body
    f = _load(tmp_path, text, "numpy")
    h = 1e-6
    for i, j in itertools.product(range(2), range(2)):
        first = srcad.grad(f, wrt=i)
        up, down = list(ARGS), list(ARGS)
        up[j] += h
        down[j] -= h
        if i == j:
            assert close(first(*ARGS), (f(*up) - f(*down)) / (2 * h), 1e-5)
        want = (first(*up) - first(*down)) / (2 * h)
        assert close(srcad.grad(first, wrt=j)(*ARGS), want, 1e-5), (i, j)
        tangent = tuple(1.0 if k == j else 0.0 for k in range(2))
        assert close(srcad.jvp(first, ARGS, tangent)[1], want, 1e-5), (i, j)
