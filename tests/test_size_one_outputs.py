"""Outputs that are arrays of one element (shape ``(1,)``, ``(1, 1)``, ...).

``grad`` takes them as numbers, as autograd does: the gradient starts from ones of the
output's shape (it started from the number 1.0, and rules that index or split their gradient,
``np.array([...])``'s and ``np.stack``'s, crashed). A Jacobian keeps the output's axes
(``output shape + input shape``, as JAX's): it had dropped them, taking such an output as a
number. Checked against autograd and finite differences over a family of such outputs.
"""

import numpy as np
import pytest
from srcad.check import numerical_grad
from test_robustness import load_module

import srcad

autograd = pytest.importorskip("autograd")
anp = autograd.numpy


def _family(xp):
    """Functions of a vector ``x`` (and a number ``s``) whose output has one element."""
    return {
        "array_display": lambda x, s: xp.array([xp.sum(x * x) * s]),
        "stack": lambda x, s: xp.stack([xp.sin(x[0]) * s]),
        "slice": lambda x, s: (x * s)[:1] ** 2,
        "reshape": lambda x, s: xp.reshape(xp.sum(xp.exp(x)) + s, (1, 1)),
        "keepdims": lambda x, s: xp.sum(x * s, keepdims=True),
        "matmul": lambda x, s: xp.dot(xp.reshape(x, (1, -1)), x * s),
        "concat": lambda x, s: xp.concatenate([x[:1] * s, xp.zeros(0)]),
    }


THEIRS = _family(anp)  # autograd's, written with its NumPy
NAMES = sorted(THEIRS)
POINTS = [(np.array([0.3]), 1.5), (np.array([0.7, -1.1, 0.4]), -0.6)]


def _module_functions(tmp_path):
    """The family written to a file: srcad reads functions' source."""
    text = "import numpy as np\n\n\n" + "".join(
        f"def {name}(x, s):\n    return {_BODIES[name]}\n\n\n" for name in NAMES)
    module = load_module(tmp_path, text, "size_one")
    return {name: getattr(module, name) for name in NAMES}


_BODIES = {
    "array_display": "np.array([np.sum(x * x) * s])",
    "stack": "np.stack([np.sin(x[0]) * s])",
    "slice": "(x * s)[:1] ** 2",
    "reshape": "np.reshape(np.sum(np.exp(x)) + s, (1, 1))",
    "keepdims": "np.sum(x * s, keepdims=True)",
    "matmul": "np.dot(np.reshape(x, (1, -1)), x * s)",
    "concat": "np.concatenate([x[:1] * s, np.zeros(0)])",
}


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    return _module_functions(tmp_path_factory.mktemp("size_one"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("point", range(len(POINTS)))
def test_grad_of_an_output_of_one_element(functions, name, point):
    f = functions[name]
    x, s = POINTS[point]
    value, (gx, gs) = srcad.value_and_grad(f, wrt=(0, 1))(x, s)
    np.testing.assert_allclose(value, f(x, s), rtol=1e-15)
    ax, as_ = autograd.grad(THEIRS[name], (0, 1))(x, s)
    np.testing.assert_allclose(gx, ax, rtol=1e-12, atol=1e-15)
    assert np.shape(gx) == np.shape(x)
    assert gs == pytest.approx(as_, rel=1e-12, abs=1e-15)
    scalar = lambda x, s: float(np.sum(f(x, s)))  # noqa: E731
    np.testing.assert_allclose(gx, numerical_grad(scalar, (x, s), 0), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", ["rev", "fwd"])
@pytest.mark.parametrize("point", range(len(POINTS)))
def test_jacobian_keeps_the_output_axes(functions, name, mode, point):
    f = functions[name]
    x, s = POINTS[point]
    out_shape = np.shape(f(x, s))
    jac = srcad.jacobian(f, wrt=0, mode=mode)(x, s)
    assert np.shape(jac) == out_shape + x.shape
    theirs = autograd.jacobian(THEIRS[name], 0)(x, s)
    np.testing.assert_allclose(jac, theirs, rtol=1e-12, atol=1e-15)
    # and a second call (the cached route) gives the same
    np.testing.assert_allclose(srcad.jacobian(f, wrt=0, mode=mode)(x, s), jac, rtol=0)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_of_a_gradient_of_one_element_is_square(n, mode):
    def f(x):
        return np.sum(np.sin(x) * x)

    x = np.linspace(0.2, 0.9, n)
    jac = srcad.jacobian(srcad.grad(f), mode=mode)(x)
    assert jac.shape == (n, n)
    np.testing.assert_allclose(jac, srcad.hessian(f)(x), rtol=1e-12)
    np.testing.assert_allclose(jac, autograd.hessian(lambda v: anp.sum(anp.sin(v) * v))(x),
                               rtol=1e-12)
