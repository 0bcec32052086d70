"""The Numba backend's sums written into arrays nothing else holds (srcad/backend/numba_update.py)
and elementwise temporaries joined into a branch that reads them (numba_chains).

``owned`` is checked on small functions (each condition broken once: the name is not owned);
the join into a branch on small blocks; then, compiled, loops that update the arrays they
carry (``v = v + h * a``, and their tangents) with and without an alias that would see a
write in place, in forward mode against the Python backend (1e-12) and central differences.

Imports ``srcad`` and ``srcad.backend`` (numba_backend, numba_update, numba_chains).
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import srcad
from srcad.backend import numba_backend, numba_chains, numba_update

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

HELPERS = {"add": "add", "scatter": "scatter", "zeros_float": "zeros_float"}


def _owned(source):
    fdef = ast.parse(textwrap.dedent(source)).body[0]
    return numba_update.owned(fdef, HELPERS, lambda ident: ident == "np")


OWNED = """
def f(x, h, n):
    v = np.array([1.0, 2.0])
    dv = zeros_float(v)
    w = v
    for i in range(n):
        a = g(x) * w
        w = w + h * a
        dv = add(dv, a * h)
        t = w[0] * 2.0
    s = w[1] + dv[0]
    return s
"""


def test_owned():
    found = _owned(OWNED)
    assert found["w"] is True and found["v"] is False and found["dv"] is True


def test_item_reads_handed_on():
    """An item read of the name that handed the array over (a row's view, were it of rank
    2) makes the write in place rank 1 only, as the name's own would."""
    found = _owned("""
    def f(x, h):
        m = np.zeros((2, 2))
        r = m[0]
        w = m
        w = w + h * x
        return r * 2.0
    """)
    assert found["m"] is True and found["w"] is True


NOT_OWNED = {  # each breaks one condition of ``w`` being owned
    "passed to a callee": "        q = g(w, x)\n",
    "kept in a tuple": "        q = (w, x)\n",
    "a slice read": "        q = w[1:] * 2.0\n",
    "an item read by a name": "        q = w[i] * 2.0\n",
    "handed on and read": "        q = w\n        r = q[0] + w[0]\n",
    "returned": "        return w\n",
    "source read after the hand-over": "        r = v[0]\n",
}


@pytest.mark.parametrize("case", sorted(NOT_OWNED))
def test_not_owned(case):
    source = OWNED.replace("        t = w[0] * 2.0\n", NOT_OWNED[case])
    assert "w" not in _owned(source)


@pytest.mark.parametrize("store", ["w = x", "w = x[1:]", "w = np.asarray(v)",
                                   "w, u = v, v", "w += 1.0\n    global w"])
def test_not_owned_stores(store):
    source = OWNED.replace("    w = v\n", f"    {store}\n")
    assert "w" not in _owned(source)


def _joined(source):
    fdef = ast.parse(textwrap.dedent(source)).body[0]
    numba_chains.join_all(fdef, HELPERS, lambda h: ast.Name(id=f"numba_{h}", ctx=ast.Load()))
    return ast.unparse(fdef)


def test_negation_joined_into_branch():
    text = _joined("""
    def f(p, y, c, h):
        t = -p
        u = y * 2.0
        if c:
            y = y + h * t
        return y, u
    """)
    assert "t = " not in text and "y = y + h * -p" in text


@pytest.mark.parametrize("body", [
    "    t = p + q\n    if c:\n        y = y + h * t\n",  # two leaves: p + q may raise
    "    t = -p\n    if c:\n        p = y\n        y = y + h * t\n",  # a leaf rebound first
    "    t = -p\n    if t[0] > 0:\n        y = y + h * t\n",  # read by the test
    "    t = -p\n    if c:\n        y = y + h * t\n    else:\n        y = y - t\n",  # twice
])
def test_not_joined_into_branch(body):
    text = _joined("def f(p, q, y, c, h):\n" + body + "    return y\n")
    assert "t = " in text


def flight(x, h):
    """A loop carrying arrays it updates (``v``) and one it hands on while an alias of an
    earlier value is read afterwards (``first``)."""
    v = np.array([0.5, 1.0]) * x[0]
    p = np.array([0.0, 2.0])
    first = p
    for _ in range(4):
        a = -(x * p)
        p_new = p + h * v
        v = v + h * a
        p = p_new
    return np.sum(p * v) + first[1] * x[1]


def aliased(x, h):
    """``v`` handed to ``kept``, read after ``v`` is updated: no write in place."""
    v = x * 2.0
    kept = v
    for _ in range(3):
        v = v + h * v
    return np.sum(v * kept)


@needs_numba
@pytest.mark.parametrize("fn", [flight, aliased])
def test_against_python(fn):
    """Forward mode (where the tangents' updates are written in place: ``flight``'s ``v``,
    ``dv``, ``dp``; not ``p``, whose first value is read after the loop, nor ``aliased``'s)
    against the Python backend and central differences."""
    x, h, e = np.array([0.3, -0.7]), 0.25, np.array([0.6, 0.8])
    want = srcad.jvp(fn, (x, h), (e,), wrt=(0,))
    value, tangent = srcad.jvp(fn, (x, h), (e,), wrt=(0,), backend="numba")
    assert np.isclose(value, want[0], rtol=1e-12) and np.isclose(value, fn(x, h), rtol=1e-12)
    assert np.isclose(tangent, want[1], rtol=1e-12, atol=1e-12)
    step = 1e-6
    central = (fn(x + step * e, h) - fn(x - step * e, h)) / (2 * step)
    assert np.isclose(tangent, central, rtol=1e-6, atol=1e-8)
