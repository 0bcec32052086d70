"""Second order through a recursive helper returning a list in one branch and an array in
another (issue 16, outside28; tools/jax_shim.py's ``_stack``, under ``vmap`` in JAX's
reading-group logistic regression: ``grad`` of ``value_and_grad(log_post)``). The backward
part pops from the gradient of the list it returns, which is its seed under another name
(``dresult_4 = dresult_7``) or an item of it: srcad copies that list first
(``srcad.backend.seed_copies``, with ``mutable``, which leaves an array or a number whole),
so the code read again for a second derivative changes no argument in place (refused before,
"changes the argument dy in place"), and the array branch is not turned into a list of rows.

Still refused (precisely), left for later: a list gradient a callee's backward part returns
(``douts = stack_bwd(...)``), popped by the caller's backward part, read again for a second
derivative ("changes douts in place after line 5 used it"): ``log_post`` below, where the
mapped function returns a number.

Against central differences and autograd."""

from __future__ import annotations

import numpy as np
import pytest
from sampling import LONG
from test_robustness import load_module

import srcad
from srcad.errors import MutationError

autograd = pytest.importorskip("autograd")
BODY = """
def stack(outs, axis):
    first = outs[0]
    if isinstance(first, tuple):
        return tuple(stack([o[k] for o in outs], axis) for k in range(len(first)))
    if isinstance(first, list):
        return [stack([o[k] for o in outs], axis) for k in range(len(first))]
    return np.stack(outs, axis=axis)

def mapped(fun, theta, xs):
    outs = []
    for i in range(len(xs)):
        outs.append(fun(theta, xs[i]))
    return stack(outs, 0)

def lik(theta, x):
    return -np.log1p(np.exp(-np.dot(theta, x)))

def pair(theta, x):
    return [np.sin(theta * x), np.dot(theta, x) ** 2]

X = np.array([[0.5, -1.0], [0.3, 0.8], [-0.7, 0.2]])

def log_post(theta):
    return np.sum(mapped(lik, theta, X)) - 0.05 * np.dot(theta, theta)

def of_lists(theta):
    s = mapped(pair, theta, X)
    return np.sum(s[0] ** 2) + np.sum(s[1] * s[0][:, 0])
"""
T, C = np.array([0.4, -0.3]), np.array([1.0, -2.0])


def _fd(f, x, h=1e-5):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


pytestmark = pytest.mark.skipif(not LONG, reason="seconds each (second order of a recursive "
                                "function): the long run (SRCAD_LONG_PROPERTIES=1)")


@pytest.mark.parametrize("name", ["of_lists"])
def test_second_order_through_a_recursive_stack(name, tmp_path):
    m = load_module(tmp_path, "import numpy as np\n" + BODY)
    f = getattr(m, name)
    vg = srcad.value_and_grad(f)

    def curvature(t):
        return np.dot(vg(t)[1], C)
    h = srcad.grad(curvature)(T)
    np.testing.assert_allclose(h, _fd(curvature, T), rtol=1e-6, atol=1e-8)
    a = load_module(tmp_path, "import autograd.numpy as np\n" + BODY)
    np.testing.assert_allclose(h, autograd.hessian(getattr(a, name))(T) @ C, rtol=1e-9,
                               atol=1e-11)
    if LONG:
        np.testing.assert_allclose(srcad.hessian(f)(T), autograd.hessian(getattr(a, name))(T),
                                   rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(srcad.grad(lambda t: vg(t)[0])(T), vg(T)[1], rtol=1e-12)


def test_popping_a_callees_list_gradient_stays_refused(tmp_path):
    m = load_module(tmp_path, "import numpy as np\n" + BODY)
    vg = srcad.value_and_grad(m.log_post)
    with pytest.raises(MutationError, match=r"line \d+: \.pop\(\) changes douts in place"):
        srcad.grad(lambda t: np.dot(vg(t)[1], C))(T)
