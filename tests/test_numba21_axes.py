"""The Numba backend's gradients of reductions along an axis (``numba_axes``: ``grad_sum`` and
``grad_extremum`` spread a gradient back along the axis reduced; along the last axis the loop
over the axis is the inner one).

A generated family: ``np.sum``, ``np.max`` and ``np.min`` of a product along each axis of a
matrix and of a rank-3 array (0, the middle one, the last, -1), with and without
``keepdims``, in straight-line code and in a loop; each gradient compared with the Python
backend (1e-12), autograd (1e-12) and central differences, the arguments unchanged. Then ties
in ``max`` along the last axis (the gradient shared among the equal elements, as the Python
backend shares it), and the helpers themselves against NumPy bit for bit along every axis
(the spread of ``grad_sum`` is ``g`` repeated: exact). Skipped where numba is not
installed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sampling import sample
from twin_checks import central, close

import srcad
from srcad.backend import numba_backend

pytestmark = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

#: (shape, axis): every axis of a matrix and of a rank-3 array, the last also as -1
AXES = [((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 0), ((2, 3, 4), 1),
        ((2, 3, 4), 2), ((2, 3, 4), -1)]
OPS = ("sum", "max", "min")
CONTEXTS = {
    "straight": ["r = np.{op}(x * w, axis={axis}, keepdims={keep})",
                 "return np.sum(np.sin(r) * r) + 0.5 * np.sum(r * r)"],
    "loop": ["acc = 0.0", "for i in range(3):",
             "    r = np.{op}(x * (w + 0.1 * i), axis={axis}, keepdims={keep})",
             "    acc = acc + np.sum(np.sin(r) * r)", "return acc"],
}
CASES = [(op, shape, axis, keep, context) for op, (shape, axis), keep, context
         in itertools.product(OPS, AXES, (False, True), CONTEXTS)]
SAMPLED = sample(CASES, 28)


def _name(case):
    op, shape, axis, keep, context = case
    return f"{op}-{'x'.join(map(str, shape))}-ax{axis}-{'keep' if keep else 'drop'}-{context}"


def _module(case, numpy="numpy"):
    op, _, axis, keep, context = case
    body = [line.format(op=op, axis=axis, keep=keep) for line in CONTEXTS[context]]
    return "\n".join([f"import {numpy} as np", "", "", "def f(x, w):"]
                     + ["    " + line for line in body]) + "\n"


@pytest.fixture(scope="module")
def load(load_module):
    """Writes a program to a module of its own (srcad reads source) and imports it."""
    return load_module


def _program(load, case, numpy="numpy"):
    name = "numba21_" + _name(case).replace("-", "_") + ("_ag" if numpy != "numpy" else "")
    return load(name, _module(case, numpy)).f




@pytest.mark.parametrize("case", SAMPLED, ids=_name)
def test_family_matches_python_autograd_and_differences(load, case):
    import autograd

    f = _program(load, case)
    fast = srcad.value_and_grad(f, wrt=("x", "w"), backend="numba")
    slow = srcad.value_and_grad(f, wrt=("x", "w"))
    ag = autograd.grad(_program(load, case, "autograd.numpy"), argnum=(0, 1))
    rng = np.random.default_rng(CASES.index(case))
    shape = case[1]
    x, w = rng.uniform(-1.0, 1.0, size=shape), rng.uniform(0.3, 1.2, size=shape)
    x0, w0 = x.copy(), w.copy()
    value, (dx, dw) = fast(x, w)
    ref_value, (ref_dx, ref_dw) = slow(x, w)
    assert np.isclose(value, ref_value, rtol=1e-12, atol=1e-12)
    assert close(dx, ref_dx, 1e-12) and close(dw, ref_dw, 1e-12)
    ag_dx, ag_dw = ag(x, w)
    assert close(dx, ag_dx, 1e-12) and close(dw, ag_dw, 1e-12)
    assert close(dx, central(f, (x, w), 0), 1e-6) and close(dw, central(f, (x, w), 1), 1e-6)
    assert np.array_equal(x, x0) and np.array_equal(w, w0)


TIES = '''import numpy as np


def f(x, c):
    m = np.max(x * x, axis=-1)
    return np.sum(m * c)
'''


def test_ties_along_the_last_axis_share_the_gradient(load):
    """Two and three equal largest elements in a row: each gets its share, as the Python
    backend gives it (no differences: the function has no derivative there)."""
    f = load("numba21_ties", TIES).f
    x = np.array([[1.0, -1.0, 0.5], [0.2, 2.0, 2.0], [3.0, -3.0, 3.0], [0.1, 0.3, 0.2]])
    c = np.array([1.0, 2.0, 3.0, 4.0])
    got = srcad.grad(f, backend="numba")(x, c)
    assert np.array_equal(got, srcad.grad(f)(x, c))
    assert got[2, 0] == got[2, 1] * -1 == got[2, 2] and got[1, 1] == got[1, 2] != 0.0


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_helpers_against_numpy_along_every_axis(shape):
    """``grad_sum`` along an axis is ``g`` repeated along it, ``grad_extremum`` (no ties) ``g``
    where the extremum is and 0 elsewhere: bit for bit, along every axis (the last one by the
    inner loop), with and without ``keepdims``."""
    import numba

    from srcad.backend.numba_axes import grad_extremum
    from srcad.backend.numba_helpers import grad_sum

    @numba.njit
    def spread(g, a, axis, keep):
        return grad_sum(g, a, axis, keep)

    @numba.njit
    def spread_max(g, a, ans, axis, keep):
        return grad_extremum(g, a, ans, axis, keep)

    rng = np.random.default_rng(len(shape))
    a = rng.normal(size=shape)
    for axis in range(-1, len(shape)):
        for keep in (False, True):
            g = rng.normal(size=np.sum(a, axis=axis, keepdims=keep).shape)
            want = np.broadcast_to(g if keep else np.expand_dims(g, axis), shape)
            assert np.array_equal(spread(g, a, axis, keep), want)
            top = np.max(a, axis=axis, keepdims=keep)
            hit = a == (top if keep else np.expand_dims(top, axis))
            assert np.array_equal(spread_max(g, a, top, axis, keep), np.where(hit, want, 0.0))
