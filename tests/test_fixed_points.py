"""``srcad.misc.fixed_point(f, a, x0, distance, tol)`` (autograd.misc.fixed_points's name and
arguments): iterate ``f(a)`` from ``x0`` until two iterates are within ``tol``, differentiated
as computed (srcad reads it like the user's code: a function that makes the map, a ``while``
on a differentiated test). A family of maps (scalar and vector, contractions of different
rates) x first and second derivatives, against central finite differences of the value
returned, and against autograd's own fixed_point (its implicit-function derivative) at a
tolerance where the two agree.
"""

from __future__ import annotations

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from autograd.misc.fixed_points import fixed_point as autograd_fixed_point
from program_files import load

import srcad
from srcad.misc import fixed_point

#: (maker of the map, a, x0): the map's fixed point depends smoothly on a
MAPS = {
    "descent_sqrt": ("lambda x: x - 0.05 * (x * x - a)", 2.0, 10.0),
    "newton_sqrt": ("lambda x: 0.5 * (x + a / x)", 3.0, 5.0),
    "cos": ("lambda x: np.cos(a * x)", 0.7, 0.0),
    "vector": ("lambda x: np.tanh(np.array([[0.3, -0.2], [0.1, 0.4]]) @ x + a)",
               np.array([0.5, -0.3]), np.zeros(2)),
}


def _text(body, tol):
    return (f"def make(a):\n    return {body}\n\n\n"
            "def distance(x, y):\n    return np.sum(np.abs(x - y))\n\n\n"
            f"def f(a, x0):\n    return np.sum(fixed_point(make, a, x0, distance, {tol}))\n")


def _fd(f, a, x0, h=1e-6):
    if np.ndim(a) == 0:
        return (f(a + h, x0) - f(a - h, x0)) / (2 * h)
    return np.array([(f(a + h * e, x0) - f(a - h * e, x0)) / (2 * h) for e in np.eye(len(a))])


@pytest.mark.parametrize("name", list(MAPS))
@pytest.mark.parametrize("tol", [1e-4, 1e-12])
def test_the_derivative_of_the_iterates(tmp_path, name, tol):
    body, a, x0 = MAPS[name]
    text = "from srcad.misc import fixed_point\n\n\n" + _text(body, tol)
    f = load(tmp_path, f"fp_{name}_{tol:g}".replace("-", "m").replace(".", "_"), text,
             modules=(np,))
    value, g = srcad.value_and_grad(f)(a, x0)
    assert value == pytest.approx(f(a, x0), rel=1e-12)
    np.testing.assert_allclose(g, _fd(f, a, x0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", list(MAPS))
def test_agrees_with_the_implicit_derivative_at_a_tight_tolerance(tmp_path, name):
    body, a, x0 = MAPS[name]
    text = _text(body, 1e-13)
    f = load(tmp_path, f"fpi_{name}", "from srcad.misc import fixed_point\n\n\n" + text,
             modules=(np,))
    fa = load(tmp_path, f"fpa_{name}", text, modules=(anp,))
    fa.__globals__["fixed_point"] = autograd_fixed_point
    np.testing.assert_allclose(srcad.grad(f)(a, x0), autograd.grad(fa)(a, x0), rtol=1e-7,
                               atol=1e-9)


@pytest.mark.parametrize("name", ["descent_sqrt", "newton_sqrt", "cos"])
def test_second_derivatives(tmp_path, name):
    body, a, x0 = MAPS[name]
    f = load(tmp_path, f"fp2_{name}",
             "from srcad.misc import fixed_point\n\n\n" + _text(body, 1e-6), modules=(np,))
    dfdf = srcad.grad(srcad.grad(f))(a, x0)
    want = (srcad.grad(f)(a + 1e-5, x0) - srcad.grad(f)(a - 1e-5, x0)) / 2e-5
    assert dfdf == pytest.approx(want, rel=1e-4, abs=1e-6)
    assert srcad.hessian(f)(a, x0) == pytest.approx(dfdf, rel=1e-10)


def test_it_is_the_plain_iteration():
    assert fixed_point(lambda a: (lambda x: 0.5 * (x + a / x)), 2.0, 1.0,
                       lambda x, y: abs(x - y), 1e-14) == pytest.approx(np.sqrt(2.0))
