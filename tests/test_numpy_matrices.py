"""The rules of ``srcad/rules/numpy_matrices.py`` beyond the generated tables: against PyTorch
(a second engine, where installed) on a family of shapes each, and the run-time refusals
(a rank-deficient ``lstsq``, a quantile method without a rule, a function of complex
eigenvectors' phases), which name the user's file and line.

The generated checks (finite differences, forward against reverse, second order, Dask, the
array API) are in tests/test_forward_rules.py's table and the tests built on it.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcad

try:
    import torch
except ImportError:  # PyTorch is optional: its comparisons skip
    torch = None

RNG = np.random.default_rng(17)


def _cov(m):
    return np.sum(np.sin(np.cov(m)))


def _corrcoef(m):
    return np.sum(np.sin(np.corrcoef(m)))


def _power3(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, 3)))


def _power_inverse(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, -2)))


def _lstsq(a, b):
    return np.sum(np.sin(np.linalg.lstsq(a, b)[0]))


def _multi_dot(a, b):
    return np.sum(np.sin(np.linalg.multi_dot([a, b, a.T])))


def _t_cov(m):
    return torch.sum(torch.sin(torch.cov(m)))


def _t_corrcoef(m):
    return torch.sum(torch.sin(torch.corrcoef(m)))


def _t_power3(a):
    return torch.sum(torch.sin(torch.linalg.matrix_power(a, 3)))


def _t_power_inverse(a):
    return torch.sum(torch.sin(torch.linalg.matrix_power(a, -2)))


def _t_lstsq(a, b):
    return torch.sum(torch.sin(torch.linalg.pinv(a) @ b))


def _t_multi_dot(a, b):
    return torch.sum(torch.sin(torch.linalg.multi_dot([a, b, a.T])))


#: name -> (srcad's function, PyTorch's, argument shapes per member of the family)
FAMILY = {
    "cov": (_cov, "_t_cov", [[(2, 5)], [(3, 4)], [(4, 7)]]),
    "corrcoef": (_corrcoef, "_t_corrcoef", [[(2, 5)], [(3, 6)]]),
    "matrix_power": (_power3, "_t_power3", [[(2, 2)], [(3, 3)], [(2, 4, 4)]]),
    "matrix_power_inverse": (_power_inverse, "_t_power_inverse", [[(3, 3)], [(4, 4)]]),
    "lstsq": (_lstsq, "_t_lstsq", [[(5, 3), (5,)], [(6, 2), (6, 3)], [(2, 4), (2,)]]),
    "multi_dot": (_multi_dot, "_t_multi_dot", [[(2, 3), (3, 3)], [(4, 2), (2, 2)]]),
}
CASES = [(name, i) for name, (_, _, shapes) in FAMILY.items() for i in range(len(shapes))]


def _args(name, i):
    shapes = FAMILY[name][2][i]
    args = [RNG.normal(size=s) for s in shapes]
    if name.startswith("matrix_power"):
        args[0] = args[0] * 0.4 + 2.0 * np.eye(shapes[0][-1])  # well conditioned
    return args


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize(("name", "i"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_against_pytorch(name, i):
    f, tf, _ = FAMILY[name]
    args = _args(name, i)
    ours = srcad.grad(f, wrt=tuple(range(len(args))))(*args)
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in args]
    globals()[tf](*tensors).backward()
    for g, t in zip(ours, tensors):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-9, atol=1e-11)


# ---------------------------------------------------------------- run-time refusals
def _rank_deficient(a, b):
    x = np.linalg.lstsq(a, b)[0]
    return np.sum(x ** 2)


def _nearest(a):
    return np.quantile(a, 0.3, method="nearest")


def _phases(a):
    u = np.linalg.svd(a)[0]
    return np.sum(np.real(u))


REFUSALS = [
    (_rank_deficient, (np.ones((3, 2)), np.arange(3.0)), "rank-deficient",
     "x = np.linalg.lstsq(a, b)[0]"),
    (_nearest, (RNG.normal(size=5),), "method='nearest'",
     "return np.quantile(a, 0.3, method=\"nearest\")"),
    (_phases, (RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)),), "phases",
     "u = np.linalg.svd(a)[0]"),
]


@pytest.mark.parametrize(("f", "args", "message", "line"), REFUSALS,
                         ids=[r[0].__name__ for r in REFUSALS])
def test_run_time_refusals_name_the_users_line(f, args, message, line):
    with pytest.raises(srcad.MissingRuleError, match=message) as info:
        srcad.grad(f)(*args)
    err = info.value
    assert err.filename == __file__
    assert err.lineno == f.__code__.co_firstlineno + 1
    assert line in err.construct


def test_full_rank_lstsq_is_not_refused():
    a = RNG.normal(size=(4, 2))
    g = srcad.grad(_rank_deficient)(a, np.arange(4.0))
    assert g.shape == a.shape


def _third(a, b):
    return np.sum(np.linalg.multi_dot([a, b, a]) ** 2)


def test_a_third_derivative_of_multi_dot_is_refused():
    """multi_dot's second-order helpers have no derivative at their point (a third one)."""
    a, b = RNG.normal(size=(2, 2)), RNG.normal(size=(2, 2))
    h = srcad.hessian(_third)(a, b)  # second order: exact
    assert np.shape(h) == (2, 2, 2, 2)

    def third(x):
        return np.sum(srcad.hessian(_third)(x, b))

    with pytest.raises(srcad.MissingRuleError, match="multi_dot_hvp|multi_dot_d2"):
        srcad.grad(third)(a)
