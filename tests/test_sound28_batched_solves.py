"""Sound28: SciPy's triangular, LU, Cholesky and Sylvester solves broadcast batch dimensions (SciPy
>= 1.16: ``solve_triangular(a, b)`` with ``a`` of shape (3, 4, 4) and ``b`` of shape (4, 2), or
``a`` (4, 4) and ``b`` (3, 4, 2); ``b`` 1-d is one vector against every matrix of the batch).

Found by JAX's linalg tests (testSolveTriangularBroadcast, testLuSolveBroadcast,
test_solve_sylvester_broadcast; through tools/jax_scipy_records.py): the gradient into the
argument that was broadcast kept the batch's shape (WRONG: a (3, 4, 4) gradient for a (4, 4)
matrix), and a batch of matrices against one vector crashed (the vector's batch read as a
matrix; ``np.outer`` flattening a batch). On main 32 of the 56 solve_triangular forms below
(every trans, lower, unit_diagonal) and 8 of the 12 cho_solve forms were WRONG or crashed, and
lu_solve's one factorisation against a stack of right-hand sides was WRONG. Now the gradients
are summed over what broadcasting added and a batch of vectors is solved as one-column matrices.

Checked against central differences along random directions, per argument (and, under LONG,
torch's autograd on the same triangular solves); a triangular and a Sylvester case by default
(the cho_solve and lu_solve families only under LONG: their first transform costs seconds).
"""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
import scipy.linalg

import srcad
from tests.sampling import LONG, sample

SHAPES = [((3, 4, 4), (4, 2)), ((4, 4), (3, 4, 2)), ((3, 4, 4), (4,)), ((2, 3, 3), (2, 3, 2)),
          ((2, 1, 3, 3), (4, 3, 2)), ((4, 4), (4,)), ((4, 4), (4, 3))]

TRI = """
import numpy as np
import scipy.linalg


def f(a, b):
    return np.sum(scipy.linalg.solve_triangular(a, b, trans=TRANS, lower=LOWER,
                                                unit_diagonal=UNIT) * W)
"""

CHO = """
import numpy as np
import scipy.linalg


def f(c, b):
    return np.sum(scipy.linalg.cho_solve((c, LOWER), b) * W)
"""

LU = """
import numpy as np
import scipy.linalg


def f(lu, b):
    return np.sum(scipy.linalg.lu_solve((lu, PIV), b, trans=TRANS) * W)
"""


def _module(tmp_path, text, name, **consts):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for k, v in consts.items():
        setattr(mod, k, v)
    return mod


def _along(f, xs, vs, h=1e-6):
    plus = f(*[x + h * v for x, v in zip(xs, vs)])
    minus = f(*[x - h * v for x, v in zip(xs, vs)])
    return (plus - minus) / (2 * h)


def _check(f, xs, seed):
    """Shapes, then each argument's gradient and the tangent along random directions against
    central differences."""
    grads = srcad.grad(f, wrt=(0, 1))(*xs)
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(np.shape(x)) for x in xs]
    for i, (g, x) in enumerate(zip(grads, xs)):
        assert np.shape(g) == np.shape(x)
        one = [v if j == i else np.zeros_like(v) for j, v in enumerate(vs)]
        assert np.isclose(np.sum(g * vs[i]), _along(f, xs, one), rtol=1e-6, atol=1e-7)
    _, tangent = srcad.jvp(f, tuple(xs), tuple(vs))
    assert np.isclose(tangent, _along(f, xs, vs), rtol=1e-6, atol=1e-7)
    return grads


TRI_CASES = sample(list(itertools.product(SHAPES, [0, 1], [False, True], [False, True])), 28)


@pytest.mark.parametrize("shapes, trans, lower, unit", TRI_CASES)
def test_solve_triangular_broadcast(shapes, trans, lower, unit, tmp_path):
    rng = np.random.default_rng(len(shapes[0]) * 7 + trans)
    a = rng.standard_normal(shapes[0]) + 4 * np.eye(shapes[0][-1])
    b = rng.standard_normal(shapes[1])
    out = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    mod = _module(tmp_path, TRI, f"tri28_{trans}{lower}{unit}", TRANS=trans, LOWER=lower,
                  UNIT=unit, W=rng.standard_normal(out.shape))
    grads = _check(mod.f, [a, b], 1)
    if LONG:
        torch = pytest.importorskip("torch")
        ta = torch.tensor(a, requires_grad=True)
        tb = torch.tensor(b, requires_grad=True)
        tri = ta.tril(-1 if unit else 0) if lower else ta.triu(1 if unit else 0)
        if unit:
            tri = tri + torch.eye(a.shape[-1], dtype=tri.dtype)
        if trans:
            tri, up = tri.transpose(-1, -2), lower
        else:
            up = not lower
        rhs = tb[..., None] if b.ndim == 1 else tb
        x = torch.linalg.solve_triangular(tri, rhs.expand(*torch.broadcast_shapes(
            tri.shape[:-2], rhs.shape[:-2]), *rhs.shape[-2:]), upper=up)
        x = x[..., 0] if b.ndim == 1 else x
        (x * torch.tensor(mod.W)).sum().backward()
        assert np.allclose(grads[0], ta.grad.numpy()) and np.allclose(grads[1], tb.grad.numpy())


# (cho_solve and lu_solve: the long run only; their first transform costs seconds)
CHO_CASES = list(itertools.product(SHAPES, [False, True])) if LONG else []


@pytest.mark.parametrize("shapes, lower", CHO_CASES)
def test_cho_solve_broadcast(shapes, lower, tmp_path):
    rng = np.random.default_rng(len(shapes[1]))
    k = rng.standard_normal(shapes[0])
    c = np.linalg.cholesky(k @ np.swapaxes(k, -1, -2) + 4 * np.eye(shapes[0][-1]))
    c = c if lower else np.swapaxes(c, -1, -2)
    b = rng.standard_normal(shapes[1])
    out = scipy.linalg.cho_solve((c, lower), b)
    mod = _module(tmp_path, CHO, f"cho28_{lower}", LOWER=lower, W=rng.standard_normal(out.shape))
    _check(mod.f, [c, b], 2)


LU_CASES = [(s, t) for s in SHAPES if len(s[0]) == 2 for t in (0, 1)] if LONG else []


@pytest.mark.parametrize("shapes, trans", LU_CASES)
def test_lu_solve_one_factorisation_many_right_hand_sides(shapes, trans, tmp_path):
    rng = np.random.default_rng(3)
    lu, piv = scipy.linalg.lu_factor(rng.standard_normal(shapes[0]))
    b = rng.standard_normal(shapes[1])
    out = scipy.linalg.lu_solve((lu, piv), b, trans=trans)
    mod = _module(tmp_path, LU, f"lu28_{trans}", PIV=piv, TRANS=trans,
                  W=rng.standard_normal(out.shape))
    _check(mod.f, [lu, b], 3)


SYLVESTER = """
import numpy as np
import scipy.linalg


def f(a, b, q):
    return np.sum(scipy.linalg.solve_sylvester(a, b, q) * W)
"""
SYLVESTER_SHAPES = sample([((3, 3), (4, 4), (2, 3, 4)), ((2, 3, 3), (4, 4), (3, 4)),
                           ((3, 3), (2, 4, 4), (3, 4)), ((2, 3, 3), (2, 4, 4), (2, 3, 4)),
                           ((3, 3), (4, 4), (3, 4))], 3)


@pytest.mark.parametrize("shapes", SYLVESTER_SHAPES)
def test_solve_sylvester_broadcast(shapes, tmp_path):
    """JAX's test_solve_sylvester_broadcast: on main the gradients into a, b and q all had the
    broadcast batch shape (3 of these 5 forms WRONG)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shapes[0]) + 3 * np.eye(shapes[0][-1])
    b = rng.standard_normal(shapes[1]) + 3 * np.eye(shapes[1][-1])
    q = rng.standard_normal(shapes[2])
    out = scipy.linalg.solve_sylvester(a, b, q)
    mod = _module(tmp_path, SYLVESTER, "syl28", W=rng.standard_normal(out.shape))
    xs = [a, b, q]
    grads = srcad.grad(mod.f, wrt=(0, 1, 2))(*xs)
    vs = [rng.standard_normal(np.shape(x)) for x in xs]
    for i, (g, x) in enumerate(zip(grads, xs)):
        assert np.shape(g) == np.shape(x)
        one = [v if j == i else np.zeros_like(v) for j, v in enumerate(vs)]
        assert np.isclose(np.sum(g * vs[i]), _along(mod.f, xs, one), rtol=1e-6, atol=1e-7)
    _, tangent = srcad.jvp(mod.f, tuple(xs), tuple(vs))
    assert np.isclose(tangent, _along(mod.f, xs, vs), rtol=1e-6, atol=1e-7)
