"""Round 29: the autograd internals the example shim gives libraries built on autograd
(``tools/autograd_internals.py``: ``vspace``, ``autograd.core``'s ``make_vjp``/``make_jvp`` of a
function at a point, ``wrap_util.unary_to_nary``), as ceviche makes its Jacobians and POPCORN
its value-and-gradient with them. Checked against autograd's own internals and central
differences: the basis in autograd's order (complex items: real unit, then imaginary), a
Jacobian built the way ceviche builds it, a vjp of a function returning a tuple."""

import importlib.util
import pathlib

import numpy as np
import pytest

autograd = pytest.importorskip("autograd")
from autograd.core import make_vjp as ag_make_vjp  # noqa: E402
from autograd.extend import vspace as ag_vspace  # noqa: E402

PATH = pathlib.Path(__file__).resolve().parents[1] / "tools" / "autograd_internals.py"
SPEC = importlib.util.spec_from_file_location("autograd_internals", PATH)
internals = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(internals)


@pytest.mark.parametrize("value", [np.array([1.5, -2.0, 0.25]), np.ones((2, 2)),
                                   np.array([1 + 2j, 3 - 1j]), 2.5],
                         ids=["vector", "matrix", "complex", "float"])
def test_vspace_as_autograds(value):
    ours, theirs = internals.vspace(value), ag_vspace(value)
    assert ours.shape == theirs.shape and ours.size == theirs.size
    for a, b in zip(ours.standard_basis(), theirs.standard_basis(), strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(ours.zeros(), theirs.zeros())
    assert np.array_equal(ours.ones(), theirs.ones())


def f(a, x):
    return np.sin(a * x) * x[0]


@internals.unary_to_nary
def jacobian_by_rows(fun, x):  # ceviche's jacobian_reverse
    vjp, ans = internals.make_vjp(fun, x)
    rows = [vjp(b) for b in internals.vspace(ans).standard_basis()]
    return np.reshape(np.stack(rows), np.shape(ans) + np.shape(x))


def test_jacobian_made_from_vjps_against_autograd_and_differences():
    x = np.array([0.3, -1.2, 2.0])
    got = jacobian_by_rows(f, 1)(1.5, x)
    assert np.allclose(got, autograd.jacobian(f, 1)(1.5, x), rtol=1e-12, atol=1e-14)
    step = 1e-6
    central = np.stack([(f(1.5, x + step * e) - f(1.5, x - step * e)) / (2 * step)
                        for e in np.eye(3)], axis=1)
    assert np.allclose(got, central, rtol=1e-6, atol=1e-8)
    value, tangent = internals.make_jvp(lambda z: f(1.5, z), x)(np.array([1.0, 0.0, 0.0]))
    assert np.allclose(value, f(1.5, x)) and np.allclose(tangent, got[:, 0])


def test_vjp_of_a_tuple_as_autograds():  # POPCORN's value_and_output_and_grad
    data = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.1]])

    def g(w):
        pred = np.tanh(data @ w)
        return np.sum(pred ** 2), pred

    w = np.array([0.3, -0.2])
    vjp, (ans, aux) = internals.make_vjp(lambda v: tuple(g(v)), w)
    ag_vjp, (ag_ans, ag_aux) = ag_make_vjp(lambda v: autograd.builtins.tuple(g(v)), w)
    cotangent = (1.0, np.zeros(3))
    assert np.allclose(ans, ag_ans) and np.allclose(aux, ag_aux)
    assert np.allclose(vjp(cotangent), ag_vjp(cotangent), rtol=1e-12, atol=1e-14)
