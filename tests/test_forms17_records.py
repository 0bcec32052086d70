"""Numbers recorded into a list the caller passed (issue 16, forms17).

``history.append(float(loss))`` on a list argument was refused as a write into an argument.
srcad now reads it as a side effect done once (:mod:`srcad.frontend.recorded_lists`) when the
function uses the list only to append to, the list is not ``wrt``, and what is appended is a
value the caller can only read (a number, a NumPy scalar, a copy made in the call); the rest is
refused: an array appended whole, a list read back in the function, a function of yours
appending to its argument, the list as ``wrt``.

Generated family: what is appended × where (the top, a loop, a branch, two lists), against
central finite differences and autograd (on the function without the record: the list is
never read); the records the derivative leaves are Python's (one run of the function:
grad, value_and_grad, jvp); Hessians in both modes on samples (they record once per run
of each sweep that computes the values: at least once).
"""

from __future__ import annotations

import numpy as np
import pytest
from program_files import load
from srcad.check import numerical_grad

import srcad
from srcad.errors import MutationError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: what is appended (``{v}``: the value computed there)
VALUES = {
    "float": "float(np.sum({v}))",
    "item": "np.sum({v}).item()",
    "scalar": "np.sum({v})",
    "copy": "({v} * 1.0).copy()",
    "np_copy": "np.copy({v})",
    "tuple": "(len(x), float(np.sum({v})))",
    "text": "f'loss={{float(np.sum({v})):.3f}}'",
}
#: where the appends stand; ``{A}``: an append of ``{v}`` (here ``y``)
PLACES = {
    "top": "    y = np.sum(np.sin(x) * x)\n    {A}\n    return y * y\n",
    "loop": ("    s = x * 1.0\n    for i in range(3):\n        s = np.tanh(s) + x * 0.5\n"
             "        {A}\n    return np.sum(s * s)\n"),
    "branch": ("    y = x * x\n    if np.sum(x) > 0:\n        {A}\n        y = y * 2.0\n"
               "    return np.sum(y ** 1.5)\n"),
}


def _text(value, place):
    var = {"top": "y", "loop": "s", "branch": "y"}[place]
    append = "history.append(" + VALUES[value].format(v=var) + ")"
    body = PLACES[place].replace("{A}", append)
    return "def f(x, history):\n" + body


X = np.array([0.3, 0.7, 1.1])


def _pair(tmp_path, value, place):
    text = _text(value, place)
    f = load(tmp_path, f"r17_{value}_{place}", text, modules=(np,))
    # autograd on the same function without the record (its boxes have no .item()/.copy()):
    # the list is never read, so the mathematics is the same
    plain = "\n".join(line for line in text.splitlines() if "history.append" not in line)
    fa = load(tmp_path, f"r17a_{value}_{place}", plain.replace(
        "        y = y * 2.0", "        y = y * 2.0") + "\n", modules=(anp,))
    return f, fa


def _same_records(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray)
            np.testing.assert_allclose(a, b, rtol=1e-14)
        elif isinstance(b, tuple):
            assert a[0] == b[0] and a[1] == pytest.approx(b[1], rel=1e-14)
        else:
            assert type(a) is type(b) and (a == b if isinstance(b, str) else
                                           a == pytest.approx(b, rel=1e-14))


@pytest.mark.parametrize("value,place", [(v, p) for v in VALUES for p in PLACES])
def test_records_into_a_list_passed(tmp_path, value, place):
    f, fa = _pair(tmp_path, value, place)
    want = []
    f(X, want)
    got = []
    g = srcad.grad(f)(X, got)
    _same_records(got, want)
    np.testing.assert_allclose(g, numerical_grad(lambda z: f(z, []), (X,)), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(g, autograd.grad(fa)(X, []), rtol=1e-10, atol=1e-12)
    got = []
    value_, g2 = srcad.value_and_grad(f)(X, got)
    _same_records(got, want)
    assert value_ == pytest.approx(f(X, []), rel=1e-12)
    np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)
    got = []
    t = np.array([0.4, -0.1, 0.6])
    _, tangent = srcad.jvp(f, (X, got), (t,), wrt=0)
    _same_records(got, want)
    assert tangent == pytest.approx(float(np.dot(g, t)), rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("value,place", [("float", "top"), ("copy", "loop"),
                                         ("scalar", "branch")])
def test_hessians_record_and_agree(tmp_path, value, place):
    f, fa = _pair(tmp_path, value, place)
    want = autograd.hessian(fa)(X, [])
    once = []
    f(X, once)
    for mode in ("fwd", "rev"):
        got = []
        np.testing.assert_allclose(srcad.hessian(f, mode=mode)(X, got), want, rtol=1e-8,
                                   atol=1e-10)
        assert len(got) >= len(once) and len(got) % len(once) == 0


def test_two_lists_and_the_generated_code(tmp_path):
    text = ("def f(x, losses, steps):\n    loss = np.sum(x * x)\n"
            "    losses.append(float(loss))\n    steps.append(len(x))\n    return loss\n")
    f = load(tmp_path, "r17_two", text, modules=(np,))
    losses, steps = [], []
    np.testing.assert_allclose(srcad.grad(f)(X, losses, steps), 2.0 * X)
    assert losses == [pytest.approx(float(np.sum(X * X)))] and steps == [3]
    src = srcad.source(srcad.grad(f), X, [], [])
    assert "losses.append(" in src and "= no_gradient(loss)" in src and "recorded(float(" in src


REFUSED = {
    "array_whole": ("    y = x * 2.0\n    history.append(y)\n    return np.sum(y)\n", 3,
                    "value of type ndarray", "v.copy()"),
}
# "read_back" (history.append(float(x[0])); return x[1] * history[-1]) and a record made by a
# function called (log(history, loss)): differentiated since state36 (srcad.written_state,
# the plain run records once), test_recorded_through_a_function_called below


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_records(tmp_path, case):
    body, line, words, hint = REFUSED[case]
    f = load(tmp_path, f"r17_no_{case}", "def f(x, history):\n" + body, modules=(np,))
    with pytest.raises(MutationError) as info:
        srcad.grad(f)(X, [])
    assert info.value.lineno == line
    assert words in info.value.message and hint in info.value.hint


def test_recorded_through_a_function_called(tmp_path):
    text = ("def log(history, v):\n    history.append(float(v))\n\n\n"
            "def f(x, history):\n    loss = np.sum(x * x)\n    log(history, loss)\n"
            "    return loss\n\n\n"
            "def g(x, history):\n    history.append(float(x[0]))\n    return x[1] * history[-1]\n")
    made = load(tmp_path, "r17_callee", text, modules=(np,))
    for f, want in ((made, 2.0 * X), (made.__globals__["g"], np.array([X[1], X[0], 0.0]))):
        got, plain = [], []
        np.testing.assert_allclose(srcad.grad(f)(X, got), want, rtol=1e-12)
        f(X, plain)
        assert got == plain  # recorded once, as the plain run does


def test_refused_as_wrt(tmp_path):
    f = load(tmp_path, "r17_no_wrt", _text("float", "top"), modules=(np,))
    with pytest.raises(MutationError) as info:
        srcad.grad(f, wrt=1)(X, [1.0])
    assert info.value.lineno == 3 and "wrt" in info.value.message


ALIASED = {
    "second_argument": ("def f(x, history, other):\n    history.append(float(x[0]))\n"
                        "    return x[1] * other[-1]\n", lambda h: (h, h)),
    "inside_argument": ("def f(x, history, box):\n    history.append(float(x[0]))\n"
                        "    return x[1] * box['log'][-1]\n", lambda h: (h, {"log": h})),
    "global": ("LOG = []\n\n\ndef f(x, history):\n    history.append(float(x[0] * x[2]))\n"
               "    return x[1] * LOG[-1]\n", None),
}


@pytest.mark.parametrize("case", list(ALIASED))
def test_refused_when_the_list_is_reached_otherwise(tmp_path, case):
    """The list appended to, reached through another argument or a global the function
    reads: the function would read what it appends (a value carrying no derivative)."""
    text, args = ALIASED[case]
    f = load(tmp_path, f"r17_alias_{case}", text, modules=(np,))
    history = [1.0] if args else f.__globals__["LOG"]
    history.append(1.0)
    given = args(history) if args else (history,)
    with pytest.raises(MutationError) as info:
        srcad.grad(f)(X, *given)
    assert info.value.lineno == (4 if case == "global" else 1)
    assert "also reached" in info.value.message and "alone" in info.value.hint
    if args:  # the same function given another list: differentiated
        other = args([5.0])[1:] if case != "second_argument" else ([5.0],)
        np.testing.assert_allclose(srcad.grad(f)(X, [], *other), [0.0, 5.0, 0.0])
