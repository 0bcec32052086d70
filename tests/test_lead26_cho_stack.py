"""scipy.linalg.cho_solve given the factors of a stack of matrices (SciPy's batched
cho_factor, whose lower flag is then an array): refused in both modes with a MissingRuleError
naming cho_solve (it crashed with NumPy's "truth value of an array" inside srcad's rule: sound26's
OpInfo round); one matrix still differentiated, against central differences.
Imports numpy, pytest, srcad, tests' helpers; scipy (skipped without it)."""

import numpy as np
import pytest

import srcad

scipy_linalg = pytest.importorskip("scipy.linalg")

from test_robustness import load_module  # noqa: E402

TEXT = """
import numpy as np
import scipy.linalg as sl


def f(A, b):
    return np.sum(sl.cho_solve(sl.cho_factor(A, lower=LOWER), b) ** 2)
"""


def _spd(shape, seed):
    a = np.random.default_rng(seed).normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(shape[-1])


def _central(f, a, b, h=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = (f(a + e, b) - f(a - e, b)) / (2 * h)
    return g


@pytest.mark.parametrize("lower", [False, True])
def test_a_stack_of_factors_is_refused_and_one_matrix_is_differentiated(lower, tmp_path):
    f = load_module(tmp_path, TEXT.replace("LOWER", str(lower)), f"cho26_{lower}").f
    stack, b = _spd((2, 3, 3), 1), np.random.default_rng(2).normal(size=(2, 3, 2))
    f(stack, b)  # SciPy itself takes the stack
    with pytest.raises(srcad.MissingRuleError, match="cho_solve"):
        srcad.grad(f)(stack, b)
    with pytest.raises(srcad.MissingRuleError, match="cho_solve"):
        srcad.jvp(f, (stack, b), (stack, b))
    one, b1 = _spd((3, 3), 3), np.random.default_rng(4).normal(size=(3, 2))
    g = srcad.grad(f)(one, b1)
    # the gradient of the function computed: the factor reads one triangle of A
    np.testing.assert_allclose(g, _central(f, one, b1), rtol=1e-5, atol=1e-7)
    t = np.random.default_rng(5).normal(size=(3, 3))
    _, tangent = srcad.jvp(f, (one, b1), (t, np.zeros_like(b1)))
    assert tangent == pytest.approx(float(np.sum(g * t)), rel=1e-7, abs=1e-9)
