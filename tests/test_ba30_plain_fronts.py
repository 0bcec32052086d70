"""``jacfwd`` called again with numbers and arrays (srcad.jacobians_batched
.plain_front: the call compiled for the arguments' plain key, the code's read tests written
out, the tangents kept by shape, the blocks cut from one batched pass) and the batched
element-wise tangent of one array tested instead of broadcast: each call of a sequence that
changes sizes, ranks, dtypes, which arrays share a shape, number types and a global the code
reads gives what autograd's ``jacobian`` and central differences give, on the first call
(the general way) and the next (the front), with one to four outputs or a number out,
broadcasting, indexing, a branch, a loop and a user callee (tests/ba30_functions.py). The
blocks are the caller's: writing into them leaves the next call's whole."""

import importlib.util
import pathlib

import autograd
import autograd.numpy as anp
import ba30_functions as fs
import numpy as np
import pytest
from sampling import LONG
from twin_checks import central

import srcad
from srcad import jacobians, jacobians_batched

_SPEC = importlib.util.spec_from_file_location(
    "ba30_functions_autograd", pathlib.Path(fs.__file__))
twins = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(twins)
twins.np = anp  # the same functions over autograd's numpy: the second engine

RNG = np.random.default_rng(30)


def _u(*shape):
    return RNG.uniform(0.3, 0.9, shape) if shape else float(RNG.uniform(0.3, 0.9))


#: per function: its wrt, then argument tuples called in turn (sizes, ranks, which arrays share
#: a shape, number types, float32 change between calls of one Jacobian)
CASES = {
    "two_out": ((0, 1, 2), [(_u(3), _u(3), _u()), (_u(4), _u(4), _u()),
                            (_u(2), _u(1), np.float64(_u())), (_u(3), _u(3), _u())]),
    "shifted": ((0, 2), [(_u(3), _u(3), _u()), (_u(1), _u(3), _u()), (_u(4), _u(4), _u()),
                         (_u(1), _u(2), _u()), (_u(2), _u(2), _u())]),
    "branchy": ((0, 1, 2), [(_u(3), _u(3), 0.5), (_u(3), _u(3), 5.0), (_u(2), _u(4), 0.1),
                            (_u(2), _u(4), 9.0)]),
    "loopy": ((0, 1, 2), [(_u(3), _u(3), _u()), (_u(2), _u(2), _u()), (_u(3), _u(1), _u()),
                          (_u(2, 2), _u(2, 2), _u())]),
    "called": ((0, 1, 2), [(_u(7), _u(3), _u(), _u(2)), (_u(7), _u(3), 0.7, _u(2)),
                           (_u(7), _u(3), _u(), _u(2).astype(np.float32)),
                           (_u(7), _u(3), _u(), _u(1))]),
    "four_out": ((0, 1, 2), [(_u(2, 2), _u(2), _u()), (_u(1, 2), _u(2), _u()),
                             (_u(2, 2), _u(2), _u()), (_u(2, 1), _u(1), _u())]),
    "matrix_only": ((0,), [(_u(2, 2),), (_u(3, 3),), (_u(2, 2),)]),
    "ranged": ((0, 1, 2), [(_u(3), _u(2), _u()), (_u(2), _u(4), _u()), (_u(3), _u(3), _u())]),
    "summed_shift": ((0, 2), [(_u(3), _u(3), _u()), (_u(1), _u(3), _u()), (_u(1), _u(4), _u()),
                              (_u(4), _u(4), _u())]),
    "number_out": ((0, 1), [(_u(3), _u(3), _u()), (_u(4), _u(1), _u()), (_u(3), _u(3), 2.0)]),
}
if LONG:  # more points of the same layouts
    for _, calls in CASES.values():
        calls.extend([tuple(RNG.uniform(0.3, 0.9, np.shape(a)) if np.ndim(a) else float(
            RNG.uniform(0.3, 0.9)) for a in args) for args in calls for _ in range(3)])


def _central(f, args, k):
    """Central differences of each output element along argument ``k`` (a number made a
    0-d array), shaped ``output + argument``."""
    args = [np.asarray(a, dtype=float) for a in args]
    out = np.shape(f(*args))
    if not out:
        return central(lambda *a: float(f(*a)), args, k)
    cols = [central(lambda *a, i=i: float(np.asarray(f(*a))[i]), args, k)
            for i in np.ndindex(*out)]
    return np.reshape(np.stack(cols), out + np.shape(args[k]))


def _check(got, f, twin, args, wrt):
    floats = tuple(np.asarray(a, dtype=float) if np.ndim(a) else float(a) for a in args)
    tol = 1e-4 if any(getattr(a, "dtype", None) == np.float32 for a in args) else 1e-9
    for k, g in zip(wrt, got):
        want = autograd.jacobian(twin, k)(*floats)
        assert np.shape(g) == np.shape(want), (np.shape(g), np.shape(want))
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol)
        np.testing.assert_allclose(g, _central(f, floats, k), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_plain_front_sequence(name, monkeypatch):
    wrt, calls = CASES[name]
    f, twin = getattr(fs, name), getattr(twins, name)
    taken, general = [], []
    cut = jacobians_batched._blocks
    monkeypatch.setattr(jacobians_batched, "_blocks", lambda *a: taken.append(1) or cut(*a))
    whole = jacobians._Jacobian.__call__
    monkeypatch.setattr(jacobians._Jacobian, "__call__",
                        lambda self, *a: general.append(1) or whole(self, *a))
    jac = srcad.jacfwd(f, wrt=wrt)
    made = 0
    for args in calls + calls[:1]:
        for _ in range(2):  # the second call of these types takes the front
            got = jac(*args)
            made += 1
            _check(got, f, twin, args, wrt)
            for g in got:
                if np.ndim(g):
                    g[...] = np.nan  # the caller's: the next call's blocks are whole
    # (the front ran, its cuts written for the first call's shapes at least twice: what
    # this family tests; other shapes' blocks by _blocks, test_plain_front_other_shapes)
    assert made - len(general) >= 3 and made - len(general) - len(taken) >= 2


def test_plain_front_other_shapes(monkeypatch):
    """The front made for one call's shapes, called with others of the same ranks: the
    tangents and the cuts of their plan (``_blocks``), as right as the first shapes'."""
    taken = []
    cut = jacobians_batched._blocks
    monkeypatch.setattr(jacobians_batched, "_blocks", lambda *a: taken.append(1) or cut(*a))
    for name in ("two_out", "four_out", "loopy", "number_out"):
        wrt, calls = CASES[name]
        f, twin = getattr(fs, name), getattr(twins, name)
        jac = srcad.jacfwd(f, wrt=wrt)
        first = calls[0]
        jac(*first), jac(*first)  # the front, for these shapes
        for args in calls[1:]:
            _check(jac(*args), f, twin, args, wrt)
    assert len(taken) >= 4


def test_plain_front_after_a_global_is_rebound():
    """A global the code reads (``SCALE``) and a callee (``helper``) rebound between calls:
    the front's read tests fail and the code is made again."""
    jac = srcad.jacfwd(fs.shifted, wrt=(0, 2))
    args = (_u(3), _u(3), _u())
    base = fs.SCALE
    try:
        for scale in (base, base[::-1].copy(), base * 3.0, base):
            fs.SCALE = twins.SCALE = scale
            for _ in range(2):
                _check(jac(*args), fs.shifted, twins.shifted, args, (0, 2))
    finally:
        fs.SCALE = twins.SCALE = base
    jac = srcad.jacfwd(fs.called, wrt=(0, 1, 2))
    args = (_u(7), _u(3), _u(), _u(2))
    first = fs.helper
    try:
        for step in range(4):
            fs.helper = first if step % 2 == 0 else (lambda u, v: np.cos(u) * v * v)
            twins.helper = first if step % 2 == 0 else (lambda u, v: anp.cos(u) * v * v)
            for _ in range(2):
                _check(jac(*args), fs.called, twins.called, args, (0, 1, 2))
    finally:
        fs.helper = twins.helper = first


@pytest.mark.parametrize("name, shape", [
    (name, shape) for name in ("shifted", "summed_shift") for shape in [(1,), (3,)]] + [
    ("matrix_shift", shape) for shape in [(1,), (3,), (1, 3), (2, 1), (2, 3)]])
def test_one_array_tangent_broadcast_only_where_needed(name, shape):
    """``x - c`` with ``x`` of ``c``'s shape or smaller (broadcast): the batched code tests
    the shapes (x's tangent whole, or broadcast to the result's) and what follows (a sum,
    an index) sees the result's shape; the Jacobian equals autograd's and central
    differences'."""
    c = RNG.uniform(0.3, 0.9, (2, 3) if len(shape) == 2 else (3,))
    x = RNG.uniform(0.3, 0.9, shape)
    f = getattr(fs, name, _matrix_shift)
    twin = getattr(twins, name, _matrix_shift)
    jac = srcad.jacfwd(f, wrt=(0, 2))
    for _ in range(2):
        _check(jac(x, c, 0.7), f, twin, (x, c, 0.7), (0, 2))


def _matrix_shift(x, c, s):
    d = x - c
    return d[-1] * s + d[0]  # (a row of the result: whole only at its shape)


@pytest.mark.parametrize("name, wrt", [("two_out", 1), ("loopy", 0), ("number_out", 0),
                                       ("called", 0), ("matrix_only", 0)])
def test_plain_front_one_wrt(name, wrt):
    """One ``wrt`` position among several arguments: the Jacobian itself, not a tuple."""
    f, twin = getattr(fs, name), getattr(twins, name)
    jac = srcad.jacfwd(f, wrt=wrt)
    for args in CASES[name][1][:2]:
        for _ in range(2):
            got = jac(*args)
            assert not isinstance(got, tuple)
            _check((got,), f, twin, args, (wrt,))
