"""Two facts lstm33 gives the Python backend's generated code, each checked against central
differences and srcad's reference tape:

* a sum (mean, product, max, min) of an array of floats is NumPy's number, and so is
  arithmetic with it (``np.sum(np.exp(y)) + 2.0``): the gradient of ``np.log`` of it divides
  with Python's ``/`` (NumPy's operator on NumPy's number, ~20x cheaper than ``np.divide``
  on two numbers), where a Python float (``float(...)``, ``sum(...)``) keeps ``np.divide``
  (``/`` would raise ``ZeroDivisionError`` where NumPy gives inf);
* a shape guard between vectors (the ranks the code is made for) compares ``len``s, not
  ``shape`` tuples; between arrays of rank 2 it compares shapes ((3, 1) and (3, 4) have one
  length).

The family: reductions x forms x places (the top level, a loop, a callee), cheap by default,
every combination under SRCAD_LONG_PROPERTIES=1."""

import itertools
import linecache
import re
import warnings

import numpy as np
import pytest

import srcad
from srcad import tape
from tests.sampling import LONG
from tests.twin_checks import central

REDUCE = {"np.sum": "np.sum({})", "sum method": "({}).sum()", "np.mean": "np.mean({})",
          "np.max": "np.max({})", "min method": "({}).min()", "np.prod": "np.prod({})"}

FORMS = [
    # np.log of a sum: its gradient g / (the sum + 2.0)
    """
def f(x, w):
    y = np.tanh(x * w[0])
    return np.sum(y - np.log(R(np.exp(y)) + 2.0))
""",
    # in a loop's body, as lstm's
    """
def f(x, w):
    total = 0.0
    for t in range(len(w)):
        y = np.sin(x * w[t])
        total = total + np.sum(w[t] * (y - np.log(R(y * y) + 1.5)))
    return total
""",
    # arithmetic with NumPy's number is NumPy's number; arctan's gradient divides
    """
def f(x, w):
    s = -R(x * w[1]) * 0.5
    return np.arctan(s) + np.sum(x)
""",
    # in a callee called in a loop
    """
def part(v):
    return np.log(R(np.exp(v)) + 1.0) * 2.0

def f(x, w):
    total = 0.0
    for t in range(len(w)):
        total = total + part(x * w[t])
    return total
""",
]


def _form(rname, k):
    """Form ``k`` with ``rname``'s reduction written in it, as a module's function."""
    text = FORMS[k]
    while "R(" in text:  # R(...) -> the reduction of the balanced argument
        at = text.index("R(")
        depth, j = 0, at + 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        text = text[:at] + REDUCE[rname].format(text[at + 2:j]) + text[j + 1:]
    namespace, name = {"np": np}, f"<lstm33 form {k} {rname}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)  # its source
    exec(compile(text, name, "exec"), namespace)  # noqa: S102
    return namespace["f"]


CASES = [(rname, k) for rname in REDUCE for k in range(len(FORMS))]
CHEAP = [c for i, c in enumerate(CASES) if i % 5 == 0]


def _args(rng, rows=3):
    return rng.normal(size=4) * 0.5 + 1.0, rng.normal(size=(rows, 4)) * 0.5 + 1.0


def _check(f, x, w):
    got = srcad.grad(f)(x, w)
    np.testing.assert_allclose(got, central(f, (x, w), 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, tape.grad(f)(x, w), rtol=1e-10, atol=1e-12)
    return got


@pytest.mark.parametrize("case", CASES if LONG else CHEAP, ids=lambda c: f"{c[0]}-{c[1]}")
def test_family(case):
    rname, k = case
    f = _form(rname, k)
    rng = np.random.default_rng(k)
    for rows in ((2, 4) if LONG else (3,)):
        _check(f, *_args(rng, rows))


def _program(f):
    g = srcad.grad(f)
    g(*_args(np.random.default_rng(0)))
    return "\n".join(line for line in srcad.source(g).splitlines()
                     if not line.strip().startswith("#"))


def test_the_sums_quotient_is_pythons_operator():
    """np.sum's, .sum()'s and np.mean's arrays: NumPy's numbers, no np.divide left."""
    for rname in ("np.sum", "sum method", "np.mean"):
        for f in (_form(rname, 0), _form(rname, 1), _form(rname, 3)):
            text = _program(f)
            assert "np.divide(" not in text and " / " in text, text


def python_float(x, w):
    s = float(np.sum(x * w[0]))  # Python's float: its `/` raises on 0.0
    return np.log(s * s)


def python_sum(x, w):
    s = sum([x[0] * w[0, 0], x[1] * w[0, 1]])  # Python's sum of NumPy numbers: not known
    return np.log(s * s)


@pytest.mark.parametrize("f", [python_float, python_sum], ids=lambda f: f.__name__)
def test_a_python_number_keeps_numpys_division(f):
    """Where the divisor may be Python's float, ``np.divide`` stays, and at 0.0 the gradient
    is NumPy's inf or nan (``np.log(0.0)`` is -inf, no exception), not ``ZeroDivisionError``
    (what ``/`` would raise if the fact were assumed of every number; the tape raises)."""
    x, w = _args(np.random.default_rng(5))
    _check(f, x, w)
    assert "np.divide(" in _program(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert f(np.zeros(4), w) == -np.inf
        got = srcad.grad(f)(np.zeros(4), w)
    assert not np.isfinite(got).all(), got


def test_a_zero_numpy_sum_gives_numpys_inf():
    """The divisor NumPy's 0.0: ``/`` is NumPy's, inf or nan with a warning, no exception
    (as ``np.log``'s own -inf; the tape's Python division raises there)."""
    def f(x, w):
        return np.log(np.sum(x * x) * w[0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = srcad.grad(f)(np.zeros(4), np.ones((2, 4)))
    assert not np.isfinite(got).all(), got
    assert "np.divide(" not in _program(f)


# ---------------------------------------------------------------- guards by length


def _cell(a, b, c):
    return np.tanh(a * b) + c * a


def stepped(x, w, v):
    total = 0.0
    for t in range(len(w)):
        total = total + np.sum(_cell(x, w[t], v))
    return total


@pytest.mark.parametrize("shapes", list(itertools.product(
    [((4,), (3, 4), (4,)), ((4,), (3, 1), (4,)), ((1,), (3, 4), (4,)), ((4,), (3, 4), (1,))],
    [False])) + [((((3, 1), (2, 3, 4), (3, 4)), True)), ((((3, 4), (2, 3, 1), (3, 4)), True)),
                 ((((3, 4), (2, 3, 4), (3, 1)), True))],
    ids=lambda s: "x".join(str(d) for d in s[0]))
def test_guards_compare_lengths_of_vectors_only(shapes):
    """Vectors of length 1 and 4 broadcast (the guard false: unbroadcast), of one length not;
    rank-2 arrays of one length and other shapes ((3, 1) against (3, 4)) must not be called
    alike: their guard compares shapes."""
    (sx, sw, sv), rank2 = shapes
    rng = np.random.default_rng(len(sx) + sw[-1])
    x, w, v = rng.normal(size=sx), rng.normal(size=sw), rng.normal(size=sv)
    got = srcad.grad(stepped, wrt=(0, 1, 2))(x, w, v)
    for k, arg in enumerate((x, w, v)):
        np.testing.assert_allclose(got[k], central(stepped, (x, w, v), k), rtol=1e-5,
                                   atol=1e-7)
        np.testing.assert_allclose(got[k], tape.grad(stepped, wrt=k)(x, w, v), rtol=1e-10,
                                   atol=1e-12)
        assert got[k].shape == arg.shape
    g = srcad.grad(stepped, wrt=(0, 1, 2))
    g(x, w, v)
    text = srcad.source(g)
    guards = re.findall(r"alike\w* = (.*)", text)
    assert guards, text
    if rank2:
        assert all(".shape ==" in s and "len(" not in s for s in guards), text
    else:
        assert any(re.fullmatch(r"len\(\w+\) == len\(\w+\)( == len\(\w+\))*", s)
                   for s in guards), text
