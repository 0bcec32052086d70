"""Second order through decorator wrappers (``*args``/``**kwargs``, a named parameter before
``*rest``) around functions with nested branches, in both Hessian modes, against finite
differences.

The generated backward part of a function whose result's kind the analysis cannot tell (it
calls a ``*args`` or ``**kwargs`` helper) bound its seed, the caller's cotangent, to a
gradient by a copy (``dx_4 = dresult_6``) and then added into it in place (``dx += v``): right
for the float it is, but that code differentiated again could not tell it from a write into
the caller's array, and ``hessian(f, mode="rev")`` refused the program ("f_bwd(...) changes
the argument dy in place", found by the long property run, 2026-12-03). A gradient that may
hold the caller's object (the seed, what a callee's backward part returns, a copy of either)
is now added to by ``dx = dx + v``.

A wrapper without ``functools.wraps`` (``shifted``) takes ``*args`` itself: ``hessian(f,
mode="rev")`` read a shim calling ``grad(f)`` (srcad's code) and refused it ("w_called is a
function made by srcad"); it is now the Hessian of the gradient made for that many arguments.
"""

from __future__ import annotations

import pathlib
import tempfile
from types import SimpleNamespace

import numpy as np
import pytest
from gen_programs import HELPERS, load
from srcad.check import numerical_grad

import srcad

# the wrappers and helpers are the random programs' own (gen_programs.HELPERS), written to a
# module with the two programs below: srcad reads their source
_PROGRAMS = '''
def branches(x, y):  # the long run's program: returns from nested branches
    if not ((x + x) > x):
        if not (h_poly(b=x, a=x) > x):
            return x ** 3
    elif (y + y) <= y or x < -0.5:
        x = x + min(x, x)
        if not (y >= x):
            return h_poly(b=h_star(), a=(x + x)) - x
    else:
        x = x * 0.5
    return x


def loop(x, y):  # a loop with a return inside a branch
    s = x
    for _ in range(2):
        if s > y:
            s = h_kw(s, scale=0.9) * s
            if s > 2.0:
                return s
        else:
            s = s + math.sin(y) * x
    return s * y
'''
_MODULE = load(SimpleNamespace(source=HELPERS + "\n\n" + _PROGRAMS),
               pathlib.Path(tempfile.mkdtemp(prefix="so_wrappers_")))
squash, triple, scaled, shifted = _MODULE.squash, _MODULE.triple, _MODULE.scaled, _MODULE.shifted
branches, loop = _MODULE.branches, _MODULE.loop


WRAPPERS = {
    "squash": squash,
    "triple": triple,
    "scaled": scaled(0.5),
    "shifted": shifted,
    "triple_squash": lambda fn: triple(squash(fn)),
    "scaled_shifted": lambda fn: scaled(0.5)(shifted(fn)),
}
INNER = {"branches": branches, "loop": loop}
CASES = [
    ("squash", "branches", (0.5, 0.2)),  # the long run's case
    ("squash", "branches", (-0.9, 0.3)),
    ("triple", "branches", (0.3, -0.4)),
    ("scaled", "loop", (0.8, 0.3)),
    ("shifted", "loop", (-0.2, 0.4)),
    ("triple_squash", "loop", (1.3, 0.1)),
    ("scaled_shifted", "branches", (-0.3, 0.6)),
]


def _hessian_fd(f, x, h=1e-4):
    """Central second differences: an error of about h**2 * f'''' plus rounding."""
    x = np.array(x, dtype=float)
    n = len(x)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            total = 0.0
            for si, sj, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                v = x.copy()
                v[i] += si * h
                v[j] += sj * h
                total += sign * f(*v)
            out[i, j] = total / (4 * h * h)
    return out


@pytest.mark.parametrize("wrapper, inner, point", CASES,
                         ids=[f"{w}-{i}-{k}" for k, (w, i, _) in enumerate(CASES)])
def test_second_order_through_wrappers(wrapper, inner, point):
    f = WRAPPERS[wrapper](INNER[inner])
    fd = np.array(numerical_grad(f, point, (0, 1)))
    assert np.allclose(srcad.grad(f, wrt=(0, 1))(*point), fd, rtol=1e-6, atol=1e-8)
    expected = _hessian_fd(f, point)
    for mode in ("fwd", "rev"):
        got = np.array(srcad.hessian(f, wrt=(0, 1), mode=mode)(*point), dtype=float)
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (mode, got, expected)
