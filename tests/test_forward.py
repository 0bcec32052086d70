"""Forward mode, Jacobians and Hessians."""

import inspect
import math
import pathlib
import sys

import numpy as np
import pytest
from corpus import ALL
from srcad.check import numerical_grad

import srcad

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "examples"))
import seed_graphs  # noqa: E402

ITEMS = [(case, args) for case in ALL for args in case.inputs]


def _indices(case):
    params = list(inspect.signature(case.func).parameters)
    wrt = case.wrt if isinstance(case.wrt, tuple) else (case.wrt,)
    return tuple(w if isinstance(w, int) else params.index(w) for w in wrt)


@pytest.mark.parametrize(("case", "args"), ITEMS,
                         ids=[f"{c.func.__name__}-{i}" for i, (c, _) in enumerate(ITEMS)])
def test_forward_and_reverse_agree(case, args):
    """The dot-product test: <grad f, v> (reverse) == J v (forward), and both == FD."""
    idx = _indices(case)
    rng = np.random.default_rng(len(case.func.__name__))
    v = tuple(float(t) for t in rng.uniform(-1, 1, len(idx)))
    value, tangent = srcad.jvp(case.func, args, v, wrt=idx)
    assert value == pytest.approx(case.func(*args), rel=1e-12, abs=1e-12)
    grads = srcad.grad(case.func, wrt=idx)(*args)
    assert tangent == pytest.approx(sum(g * t for g, t in zip(grads, v)), rel=1e-9, abs=1e-9)
    along = numerical_grad(lambda s: case.func(*_shift(args, idx, v, s)), (0.0,), 0)
    assert tangent == pytest.approx(along, rel=1e-6, abs=1e-6)


def _shift(args, idx, v, s):
    out = list(args)
    for i, t in zip(idx, v):
        out[i] = out[i] + s * t
    return out


def test_forward_source_is_readable():
    text = srcad.api.jvp_source(seed_graphs.f, 2.0, 1.0)
    assert text.splitlines()[0] == "def jvp_f(x, w, dx, dw):"
    assert "return y, dy" in text


def test_hessian_of_the_seed_graph_is_analytic():
    # g = 6 d**2 + 42 b + ... with d = 31 - 15 a, so d2g/da2 = 6 * 2 * 15**2; o enters linearly
    h = srcad.hessian(seed_graphs.g, wrt=(0, 1))(2.0, 1.0)
    assert np.allclose(np.array(h), [[2700.0, 0.0], [0.0, 0.0]])
    h_rev = srcad.hessian(seed_graphs.g, wrt=(0, 1), mode="rev")(2.0, 1.0)
    assert np.allclose(np.array(h_rev), np.array(h))


def loop_and_branch(x, w):
    y = math.sin(x) * w
    while y < 3.0:
        y = y * 1.5 + x
    if y > 5.0:
        y = y - x * x
    return y * w


def test_hessian_of_loop_and_branch_matches_finite_differences():
    args = (0.7, 2.0)
    h = np.array(srcad.hessian(loop_and_branch, wrt=(0, 1))(*args))
    grad = srcad.grad(loop_and_branch, wrt=(0, 1))
    for j in range(2):
        column = numerical_grad(lambda *a, j=j: grad(*a)[j], args, (0, 1))
        assert np.allclose(h[:, j], column, rtol=1e-6)
    assert np.allclose(h, h.T, rtol=1e-10)


def test_hvp_matches_hessian_times_vector():
    args = (0.7, 2.0)
    h = np.array(srcad.hessian(loop_and_branch, wrt=0)(*args))
    assert srcad.hvp(loop_and_branch, args, 1.5) == pytest.approx(float(h) * 1.5)


def test_jacobian_modes_agree_on_a_scalar_function():
    jr = srcad.jacobian(seed_graphs.f, wrt=(0, 1), mode="rev")(2.0, 1.0)
    jf = srcad.jacfwd(seed_graphs.f, wrt=(0, 1))(2.0, 1.0)
    assert jr == pytest.approx((2.0, 5.0)) and jf == pytest.approx((2.0, 5.0))


def test_jvp_tangent_count_is_checked():
    with pytest.raises(srcad.WrtError):
        srcad.jvp(seed_graphs.f, (2.0, 1.0), (1.0,))


# A list of constants sliced, then made to carry a tangent by an append: the slice's tangent is
# a zero shaped like it (forward mode built `None[:]` and crashed).
_CONSTANT_LISTS = ["[2, 2]", "[2.0, 3.0, 4.0]", "list(range(3))", "[1] * 2"]
_SLICES = ["[:]", "[1:]", "[::-1]", "[:2]"]


@pytest.mark.parametrize("made", _CONSTANT_LISTS)
@pytest.mark.parametrize("cut", _SLICES)
def test_tangent_of_a_slice_of_a_constant_list(tmp_path, made, cut):
    from srcad.check import numerical_grad
    from test_robustness import load_module

    text = (f"def f(y):\n    t = {made}\n    v = t{cut}\n    v.append(2.0 * y)\n"
            f"    v[0] = v[0] * y\n    return sum(v)\n")
    f = load_module(tmp_path, text).f
    value, tangent = srcad.jvp(f, (0.7,), (1.0,))
    assert value == pytest.approx(f(0.7))
    expected = numerical_grad(f, (0.7,))
    expected = expected[0] if isinstance(expected, tuple) else expected
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)
    assert tangent == pytest.approx(srcad.grad(f)(0.7))
