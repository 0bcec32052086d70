"""Batched forward mode under the Numba backend: ``jacfwd`` / ``jacobian(mode="fwd")`` and
``jvp_batched`` with ``backend="numba"`` push all the directions through one compiled pass
(srcad/backend/numba_batched.py rewrites the batched forms; numba_batched_helpers.py: ``np.stack``
along an axis, ``@`` of stacks of matrices of any rank, an einsum of three operands as two of
two, each a matrix product where large). Each Jacobian is compared with the Python backend's
(1e-12) and central differences, and the batched code is checked to be the one that ran; the
helpers are compared with NumPy. A generated family (joins x products x outputs) is sampled
(one case by default; ht in small in the long run only: each compiles for a minute).

Imports ``srcad``, ``srcad.jacobians_batched`` and ``srcad.backend`` (numba_backend,
numba_batched_helpers, numba_helpers).
"""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG, sample

import srcad
from srcad import jacobians_batched
from srcad.backend import numba_backend
from srcad.errors import SrcadError

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")


def _rotation(a):
    c, s = np.cos(a[0]), np.sin(a[0])
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0 + a[1] * a[2]]])


def _pose(theta):
    rows = [theta[0:3], theta[3:6], np.array([theta[6], 0.0, 1.0]), theta[1:4]]
    return np.stack(rows)


def _chain(pose, bases, points, weights):
    absolutes = []
    for i in range(len(bases)):
        relative = bases[i] @ _rotation(pose[i])
        if i == 0:
            absolutes.append(relative)
        else:
            absolutes.append(absolutes[i - 1] @ relative)
    moved = np.einsum("bij,vj->vbi", np.stack(absolutes), points)
    return np.sum(moved * weights[:, :, None], axis=1)


def _skin(theta, bases, points, weights, picks):
    """ht in small (its callees' layout): rows of parameters stacked, a chain of rotations
    (``@`` of matrices and of the tangents' stacks), one einsum over the bones and points,
    points picked by index."""
    skinned = _chain(_pose(theta), bases, points, weights)
    return (skinned[picks] - 0.5).ravel()


def _args(rng):
    return (rng.normal(size=7), rng.normal(size=(4, 3, 3)) * 0.5, rng.normal(size=(5, 3)),
            rng.random((5, 4)), np.array([0, 2, 4, 1], dtype=np.int64))


def central(f, args, k, h=1e-6):
    """The Jacobian of ``f`` w.r.t. its argument ``k`` by central differences."""
    cols = []
    for i in range(args[k].size):
        e = np.zeros_like(args[k])
        e.flat[i] = h
        up, down = list(args), list(args)
        up[k], down[k] = args[k] + e, args[k] - e
        cols.append((f(*up) - f(*down)) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(cols[0]) + np.shape(args[k]))


def _batched_ran(f, index):
    made = jacobians_batched.batched(f, index, "numba")
    return made.why is None and any(callable(v) for v in made.made.values())


@needs_numba
@pytest.mark.skipif(not LONG, reason="a minute of Numba compiling: the long run only")
def test_skin_jacfwd_one_compiled_pass():
    rng = np.random.default_rng(22)
    args = _args(rng)
    got = srcad.jacfwd(_skin, backend="numba")(*args)
    assert _batched_ran(_skin, (0,))
    ref = srcad.jacfwd(_skin)(*args)
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(got, central(_skin, args, 0), rtol=1e-6, atol=1e-7)
    # jvp_batched: two directions (the Jacobian's columns 0 and 5), compiled the same way
    value, t = srcad.jvp_batched(_skin, args, (np.eye(7)[[0, 5]],), wrt=0, backend="numba")
    assert np.allclose(value, _skin(*args), rtol=1e-12, atol=1e-12)  # (@ and einsum: loops)
    assert np.allclose(t, ref[:, [0, 5]].T, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ a generated family


def _stack(x):
    return np.stack([x[0:2] * x[2], np.ones(2), x[1:3]])  # (3, 2)


def _concatenate(x):
    return np.concatenate((x[0:2][:, None] * x[1:3][None, :], x[1:3][:, None]), axis=1)[:, :2]


def _matmul(m, x, b):
    return np.stack([m * x[0], m * x[1]]) @ b  # (2, 3, 2) @ (2, 2)


def _einsum(m, x, b):
    return np.einsum("ij,kj,k->ik", m, b, x[0:2])  # three operands: two of two


def _sum(y):
    return np.sum(y * y, axis=0)


def _ravel(y):
    return y.ravel()[::2] - y.ravel()[1::2]


def f_stack_matmul_sum(x, b):
    return _sum(_matmul(_stack(x), x, b))


def f_stack_matmul_ravel(x, b):
    return _ravel(_matmul(_stack(x), x, b))


def f_stack_einsum_sum(x, b):
    return _sum(_einsum(_stack(x), x, b))


def f_stack_einsum_ravel(x, b):
    return _ravel(_einsum(_stack(x), x, b))


def f_concatenate_matmul_sum(x, b):
    return _sum(_matmul(_concatenate(x), x, b))


def f_concatenate_matmul_ravel(x, b):
    return _ravel(_matmul(_concatenate(x), x, b))


def f_concatenate_einsum_sum(x, b):
    return _sum(_einsum(_concatenate(x), x, b))


def f_concatenate_einsum_ravel(x, b):
    return _ravel(_einsum(_concatenate(x), x, b))


CASES = sample([f_stack_einsum_sum, f_stack_matmul_sum, f_stack_matmul_ravel,
                f_stack_einsum_ravel, f_concatenate_matmul_sum, f_concatenate_matmul_ravel,
                f_concatenate_einsum_sum, f_concatenate_einsum_ravel], 8)


@needs_numba
@pytest.mark.skipif(not LONG, reason="the long run's (13 s of compiles; stacks of matrices: "
                    "tests/test_numba23_*)")
@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_family_jacfwd(f):
    rng = np.random.default_rng(len(f.__name__))
    x, b = rng.normal(size=3), rng.normal(size=(2, 2))
    got = srcad.jacobian(f, wrt=(0, 1), mode="fwd", backend="numba")(x, b)
    assert _batched_ran(f, (0, 1))
    ref = srcad.jacobian(f, wrt=(0, 1), mode="fwd")(x, b)
    for g, r, k in zip(got, ref, (0, 1)):
        assert np.allclose(g, r, rtol=1e-12, atol=1e-12)
        assert np.allclose(g, central(f, (x, b), k), rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------ the helpers against NumPy


@needs_numba
def test_helpers_against_numpy():
    import numba

    from srcad.backend import numba_batched_helpers, numba_helpers

    stack1, matmul = numba_helpers.helper("stack_1"), numba_helpers.helper("matmul")
    einsum2, einsum3 = numba_helpers.helper("einsum2"), numba_helpers.helper("einsum3")

    @numba.njit
    def run(a, b, c, d, e, p, q):
        return (stack1([a, b]), matmul(c, d), matmul(e, c), einsum2("ij,jk->ki", p, q),
                einsum3("i,j,k->", a[0], a[1], b[0]))  # every pair a number: one loop nest

    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    c, d = rng.normal(size=(2, 1, 3, 4)), rng.normal(size=(5, 4, 2))
    n = 1 + int(numba_batched_helpers.MATRIX_PRODUCT ** (1 / 3))  # the matrix product's size
    p, q = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    e = rng.normal(size=(4, 3))
    got = run(a, b, c, d, e, p, q)
    want = (np.stack([a, b], axis=1), c @ d, e @ c, np.einsum("ij,jk->ki", p, q),
            np.einsum("i,j,k->", a[0], a[1], b[0]))
    assert np.array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:]):
        assert np.shape(g) == np.shape(w) and np.allclose(g, w, rtol=1e-12, atol=1e-10)
    with pytest.raises(ValueError, match="stacks of matrices"):
        run(a, b, rng.normal(size=(2, 2, 3, 4)), rng.normal(size=(3, 4, 2)), e, p, q)


def test_numba_failure_falls_back_to_columns():
    """Code Numba cannot compile for the arguments (found when it types them) is not run
    batched again: the column passes take the Jacobian."""
    made = jacobians_batched.Batched(_skin, (0,), "numba")
    made.made["key"] = fn = lambda *args: (_ for _ in ()).throw(SrcadError("no Numba form"))
    assert made.call(fn, (1.0,), (np.ones((1,)),)) is None
    assert made.made["key"] is jacobians_batched._NOT and "no Numba form" in str(made.why)
