"""srcad's run-time checks under the Numba backend (srcad/backend/numba_checks.py): the
construct they guard is refused at the user's line, naming it and what to write instead,
before Numba compiles anything; the Python backend differentiates the same family (checked
against central differences), and the rewrite the message suggests compiles under Numba and
agrees with the Python backend (1e-12; behind LONG: each is a compile of seconds).

Imports ``srcad``, ``srcad.backend.numba_backend`` (whether Numba is installed), ``sampling``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sampling import LONG

import srcad
from srcad.backend import numba_backend

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _repeat_one(x, n):
    xs = [x] * n
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def _repeat_pair(x, n):
    xs = [x, x * 2.0] * n
    return xs[0] * xs[3] + xs[1]


def _repeat_len(x, ys):
    zs = len(ys) * [x * 1.5]
    return zs[0] * zs[-1] + ys[0]


def _items_appended(w, n):
    ws = []
    for k in range(3):
        ws.append(w * (k + 1.0))
    for k in range(3):
        ws[k] += w * n
    return np.sum(ws[0] * ws[2])


def _items_subtracted(w, n):
    ws = []
    for k in range(2):
        ws.append(w + k)
    ws[1] -= w * w * n
    return np.sum(ws[0] * ws[1])


#: (function, arguments: the first differentiated, the construct's text)
FAMILY = [
    (_repeat_one, (1.5, 3), "xs = [x] * n"),
    (_repeat_pair, (0.7, 2), "xs = [x, x * 2.0] * n"),
    (_repeat_len, (1.25, [1.0, 2.0, 3.0]), "zs = len(ys) * [x * 1.5]"),
    (_items_appended, (np.array([1.0, -2.0]), 2.0), "ws[k] += w * n"),
    (_items_subtracted, (np.array([0.5, 1.5, -1.0]), 3.0), "ws[1] -= w * w * n"),
]


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    (at,) = [first + i for i, ln in enumerate(lines) if ln.strip() == text]
    return at


def _central(f, x, args, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = h
        out[i] = (f(x + e, *args) - f(x - e, *args)) / (2 * h)
    return out if out.shape else float(out)


@pytest.mark.parametrize("fn, args, text", FAMILY, ids=[f.__name__ for f, _, _ in FAMILY])
def test_python_backend_differentiates_the_family(fn, args, text):
    got = srcad.grad(fn)(*args)
    want = _central(fn, args[0], args[1:])
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6)


@needs_numba
@pytest.mark.parametrize("fn, args, text", FAMILY, ids=[f.__name__ for f, _, _ in FAMILY])
def test_numba_refuses_at_the_construct(fn, args, text):
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(fn, backend="numba")(*args)
    err = caught.value
    message = str(err)
    assert err.lineno == _line_of(fn, text), message  # the construct's line, not the def's
    assert text in message and "nested function" not in message
    assert "backend='python'" in message and "np." in message  # what to write instead


def _rewritten_repeat(x, n):  # the message's rewrite of _repeat_one
    xs = x * np.ones(n)
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def _rewritten_items(w, n):  # the message's rewrite of _items_appended
    ws = np.zeros((3, w.shape[0]))
    for k in range(3):
        ws[k] = w * (k + 1.0)
    for k in range(3):
        ws[k] += w * n
    return np.sum(ws[0] * ws[2])


@needs_numba
@pytest.mark.skipif(not LONG, reason="a Numba compile each (seconds): the long run")
@pytest.mark.parametrize("fn, original, args", [
    (_rewritten_repeat, _repeat_one, (1.5, 3)),
    (_rewritten_items, _items_appended, (np.array([1.0, -2.0]), 2.0)),
])
def test_the_suggested_rewrite_compiles(fn, original, args):
    want = srcad.grad(original)(*args)
    got = srcad.grad(fn, backend="numba")(*args)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.allclose(srcad.grad(fn)(*args), want, rtol=1e-12, atol=1e-12)
