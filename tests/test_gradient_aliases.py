"""A gradient that starts as another array (``dy = x`` where ``np.sum(y * x)``'s gradient
``1.0 * x`` simplifies to ``x``) and is then changed in place (``dy[1:3] += g`` for a read of
``y[1:3]``) must be a copy: the generated code wrote into the caller's argument (and gave a
wrong gradient wherever that argument was read again). The family: a value read whole in a
product with an argument (or an argument's function) and in a basic index, in several orders,
vectors and matrices, in a loop; checked against central differences and autograd, and the
arguments unchanged after each call (grad, value_and_grad, vjp, jvp, Hessians both modes)."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import srcad
from tests.sampling import sample

PRODUCTS = {  # the whole value y times something whose gradient is a name
    "y_times_x": "np.sum(y * x)",
    "x_times_y": "np.sum(x * y)",
    "dot": "np.dot(y.ravel(), x.ravel())",
    "times_w": "np.sum(y * w)",
}
READS = {  # a basic index of y read in a statement of its own (vector, matrix)
    "slice": ("y[1:3]", "y[1:3]"),
    "int": ("y[2]", "y[2, 1:]"),
    "step": ("y[::2]", "y[::2, 0]"),
    "two": ("y[0:2] + y[1:3]", "y[0:2] + y[1:3]"),
}
MAKE = {  # how y is made from x
    "affine": "x * 2.0 + 1.0",
    "sin": "np.sin(x)",
    "copy": "x * 1.0",
}
CASES = sample(list(itertools.product(PRODUCTS, READS, MAKE, ("vector", "matrix"))), 3)


def _source(product, read, make, loop, use):
    v = "np.sum(v)" if use == "sum" else "np.sum(v ** 2)"
    body = f"    y = {make}\n    v = {read}\n"
    if loop:
        body += "    s = 0.0\n    for k in range(2):\n"
        body += f"        s = s + {product} + (k + 1.0) * {v}\n"
        body += "    return s\n"
    else:
        body += f"    return {product} + {v}\n"
    return "def f(x, w):\n" + body


def _build(text, np_module):
    scope = {"np": np_module}
    exec(compile(text, "<gradient_aliases>", "exec"), scope)  # noqa: S102
    return scope["f"]


def _case(product, read, make, shape, loop, tmp_path, use="sum"):
    text = _source(PRODUCTS[product], READS[read][0] if shape == "vector" else READS[read][1],
                   MAKE[make], loop, use)
    path = tmp_path / f"alias_{product}_{read}_{make}_{shape}_{int(loop)}_{use}.py"
    path.write_text("import numpy as np\n\n\n" + text)
    scope = {}
    exec(compile(path.read_text(), str(path), "exec"), scope)  # noqa: S102
    return scope["f"], _build(text, anp)


def _args(shape):
    rng = np.random.default_rng(7)
    n = (4,) if shape == "vector" else (4, 3)
    return rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("use", ["sum", "square"])
@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("product, read, make, shape", CASES)
def test_a_gradient_aliasing_an_argument_is_copied(product, read, make, shape, loop, use,
                                                   tmp_path):
    f, af = _case(product, read, make, shape, loop, tmp_path, use)
    x, w = _args(shape)
    x0, w0 = x.copy(), w.copy()
    gx, gw = srcad.grad(f, wrt=(0, 1))(x, w)
    assert np.array_equal(x, x0) and np.array_equal(w, w0), "the gradient changed an argument"
    ax, aw = autograd.grad(af, (0, 1))(x0, w0)
    np.testing.assert_allclose(gx, ax, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, aw, rtol=1e-10, atol=1e-12)
    eps, fd = 1e-6, np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        fd.flat[i] = (f(x0 + e, w0) - f(x0 - e, w0)) / (2 * eps)
    np.testing.assert_allclose(gx, fd, rtol=1e-5, atol=1e-6)
    value, (vx, vw) = srcad.value_and_grad(f, wrt=(0, 1))(x, w)
    assert np.array_equal(x, x0) and value == pytest.approx(af(x0, w0))
    u = np.ones_like(x)
    _, tangent = srcad.jvp(f, (x, w), (u, np.zeros_like(w)))
    assert np.array_equal(x, x0)
    assert tangent == pytest.approx(float(np.sum(ax * u)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_hessians_of_the_form(mode, tmp_path):
    f, af = _case("y_times_x", "slice", "sin", "vector", False, tmp_path)
    x, w = _args("vector")
    x0 = x.copy()
    H = srcad.hessian(lambda x: f(x, w), mode=mode)(x)
    assert np.array_equal(x, x0)
    np.testing.assert_allclose(H, autograd.hessian(lambda x: af(x, w))(x0), rtol=1e-9,
                               atol=1e-12)


# ``b[idx] = c[view]`` copies the numbers of ``c``'s view into ``b``: ``b`` and ``c`` share no
# memory after it, so writing into ``c`` later (and reading ``b``) is differentiated, not
# refused (found by the long run of the random array programs)
TARGETS = {"fancy": "[[-1, 1, 3]]", "slice": "[0:3]", "step": "[::2]", "int": "[2]"}
SOURCES = {"view": "c[1:4]", "step": "c[::2]", "item": "c[1]"}
WRITES = {"item": "c[0] = b[1] * x[0]", "slice": "c[1:3] += b[0:2]", "whole": "c *= 2.0"}


def _copy_in_source(target, source, write):
    return f"""import numpy as np


def f(x):
    b = x.copy()
    c = np.sin(x) + 0.0
    b{TARGETS[target]} = {SOURCES[source]}
    {WRITES[write]}
    return np.sum(b * c) + np.sum(b ** 2)
"""


COPY_INS = sample([c for c in itertools.product(TARGETS, SOURCES, WRITES)
                   if not (c[0] == "int" and c[1] != "item")
                   and not (c[0] != "int" and c[1] == "item")], 2)


@pytest.mark.parametrize("target, source, write", COPY_INS)
def test_a_view_copied_into_another_array_is_not_shared(target, source, write, tmp_path):
    path = tmp_path / f"copy_in_{target}_{source}_{write}.py"
    path.write_text(_copy_in_source(target, source, write))
    scope = {}
    exec(compile(path.read_text(), str(path), "exec"), scope)  # noqa: S102
    f = scope["f"]
    x = np.array([0.3, -1.1, 0.8, 1.7, -0.4, 0.9])
    x0 = x.copy()
    g = srcad.grad(f)(x)
    assert np.array_equal(x, x0)
    fd = np.array([(f(x0 + 1e-6 * e) - f(x0 - 1e-6 * e)) / 2e-6 for e in np.eye(x.size)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
