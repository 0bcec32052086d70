"""A sum over axes that broadcasts against a larger array, at the top level of code that only
runs (srcad/transform/reverse_rules.py, ``Rules.among_largest``): its gradient unbroadcasts
against the array itself, ``unbroadcast(g, s)``, not a ``s_shape = s.shape`` kept for it, while
an array as large as the function's (a product, an outer broadcast) keeps only its shape so
that it is freed once the forward sweep is done with it (srcad/backend/free_early.py). The
gradients are checked against central differences and autograd."""

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(28)

PROGRAMS = {
    # a log-softmax: log = np.log(np.sum(e, axis=1, keepdims=True)) is a sum's function
    "log_softmax": ('''
def f(x, w):
    z = x * w[None, :]
    shifted = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(shifted)
    log = np.log(np.sum(e, axis=1, keepdims=True))
    out = shifted - log
    return np.sum(out * out) + np.sum(w * w)
''', ("log",), ()),
    # rows' sums scaled (0.5 * s), against a large n x k product
    "scaled_rows": ('''
def f(x, w):
    t = x[:, None] * w[None, :]
    u = np.tanh(t)
    s = 0.5 * np.sum(u * u, axis=1)
    v = s[:, None] + u
    return np.sum(np.sin(v)) + np.sum(s)
''', ("s", "t_4"), ()),
    # products as large as the function's arrays: only their shapes are kept
    "large": ('''
def f(x, w):
    a = np.sin(x)[:, :, None] * w[None, None, :]
    b = np.cos(x)[:, :, None] * w[None, None, :]
    c = a + np.sum(b, axis=2)[:, :, None]
    return np.sum(np.tanh(c))
''', (), ("a",)),
}


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_sum_kept_as_itself_large_array_as_shape(key, tmp_path):
    text, kept, shapes = PROGRAMS[key]
    path = tmp_path / f"kept28_{key}.py"
    path.write_text("import numpy as np\n" + text)
    spec = importlib.util.spec_from_file_location(f"kept28_{key}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.f
    x, w = RNG.normal(size=(5, 3)), RNG.normal(size=3)
    grad = srcad.grad(f, wrt=(0, 1))
    got = grad(x, w)
    aspace = {"np": anp}
    exec(text, aspace)  # noqa: S102
    want = autograd.grad(aspace["f"], (0, 1))(x, w)
    for i, (g, a) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, a, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, numerical_grad(f, (x, w), i), rtol=1e-6, atol=1e-8)
    source = srcad.source(grad, x, w)
    for n in kept:
        assert f"{n}_shape" not in source, source
    for n in shapes:
        assert f"{n}_shape = {n}.shape" in source, source
