"""Memory given back as the gradient goes (srcad/backend/free_early.py) and templates reading
values the forward sweep computed (srcad/transform/reuse.py): the gradients of a generated
family of programs (straight-line code, a branch at the top level, loops saving arrays, a
callee's context, loops of numbers, NumPy functions of numbers) checked against finite
differences and autograd, first and second order; the code freeing what it keeps (``del``
after a name's last read, a stack popped as the backward loop walks it) only where that
is exact, and the traced peak memory of a long chain of array operations."""

import importlib.util
import tracemalloc
import warnings

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(27)

PROGRAMS = {
    # straight-line arrays: each dead where last read
    "straight": '''
def f(x, w):
    t = x[:, None] * w[None, :]
    u = np.tanh(t) + t * t
    v = np.exp(-u) * x[:, None]
    s = np.sum(v, axis=1)
    return np.sum(s * s) + np.sum(u)
''',
    # a branch at the top level: names bound on one path are never deleted after it
    "branch": '''
def f(x, w):
    a = np.sin(x) * np.sum(w)
    if np.sum(x) > 0:
        b = a * a + x
        e = np.cos(b)
    else:
        b = np.cos(a) - x
        e = b * b
    c = b[:, None] * w[None, :]
    return np.sum(np.tanh(c)) + np.sum(a * x) + np.sum(e)
''',
    # arrays saved per iteration: the stack popped
    "loop": '''
def f(x, w):
    h = x
    total = 0.0
    for i in range(4):
        h = np.tanh(h * w[i % 2] + x)
        total = total + np.sum(h * h)
    return total + np.sum(w * w)
''',
    # a callee's context saved per iteration (an LSTM's cell)
    "callee": '''
def cell(h, x, w):
    z = np.tanh(h * w[0] + x * w[1])
    return z, z * h


def f(x, w):
    h = x
    total = 0.0
    for i in range(3):
        h, o = cell(h, x, w)
        total = total + np.sum(o * o)
    return total
''',
    # a NumPy function of a number and its derivative's: sin's is cos, computed already
    "numbers": '''
def f(x, w):
    theta = np.sqrt(np.sum(w * w) + 0.5)
    c = np.cos(theta)
    s = np.sin(theta)
    r = x * c + x[::-1] * s + np.exp(theta) * w[0]
    return np.sum(r * r) + np.sqrt(theta)
''',
    # a branch whose arm computes np.cos of a number the other arm needs the derivative of
    "numbers_branch": '''
def f(x, w):
    theta = np.sum(w * w) + 0.2
    if theta > 1.0:
        c = np.cos(theta)
        out = np.sum(x) * c
    else:
        out = np.sum(x * x) * np.sin(theta)
    return out + np.sin(theta) * w[1]
''',
}


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("free27")
    return {p: _module(folder, text, f"free27_{p}") for p, text in PROGRAMS.items()}


def _module(folder, text, name):
    path = folder / f"{name}.py"
    path.write_text("import numpy as np\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _autograd_f(text):
    space = {"np": anp}
    exec(compile(text, "<autograd twin>", "exec"), space)  # noqa: S102 (the same program)
    return space["f"]


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_gradients(modules, program):
    module, twin = modules[program], _autograd_f(PROGRAMS[program])
    for sign, scale in ((1.0, 1.3), (-1.0, 0.3)):  # both arms of the branches
        x, w = sign * (np.abs(RNG.standard_normal(3)) + 0.1), RNG.standard_normal(2) * scale
        got = srcad.grad(module.f, wrt=(0, 1))(x, w)
        for i in (0, 1):
            np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, w), rtol=1e-9,
                                       atol=1e-12)
            np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, w), i),
                                       rtol=1e-6, atol=1e-8)
    value, grads = srcad.value_and_grad(module.f, wrt=(0, 1))(x, w)
    assert value == pytest.approx(module.f(x, w), rel=1e-12)
    np.testing.assert_allclose(grads[0], got[0], rtol=1e-12)


@pytest.mark.parametrize("program", sample(["branch", "straight", "loop", "numbers"], 4))
def test_second_order(modules, program):
    x, w = np.abs(RNG.standard_normal(3)) + 0.1, RNG.standard_normal(2)
    np.testing.assert_allclose(srcad.hessian(modules[program].f)(x, w),
                               autograd.hessian(_autograd_f(PROGRAMS[program]))(x, w),
                               rtol=1e-8, atol=1e-10)


def _backward(code):
    """The backward sweep's code lines, without the comments quoting the user's lines."""
    lines = code.split("# backward")[1].splitlines()
    return "\n".join(line for line in lines if not line.strip().startswith("#"))


def test_what_the_code_frees(modules):
    x, w = np.ones(3), np.ones(2)
    code = {p: srcad.source(srcad.grad(m.f, wrt=(0, 1)), x, w) for p, m in modules.items()}
    assert "del dv, exp, t_5" in code["straight"]
    # two statements left before the return: no del (free_early._FEWEST), short code stays short
    assert "del du, t, tanh" not in code["straight"]
    assert "del dc, t_2, t_3" in code["branch"]  # a, after the if, has two statements left
    assert "del a" not in code["branch"]  # (free_early._FEWEST); b, bound in one arm, never
    assert "del b" not in code["branch"]
    assert "while stack:" in code["loop"] and "reversed(stack)" not in code["loop"]
    assert "while stack:" in code["callee"]
    backward = _backward(code["numbers"])
    assert "np.cos(" not in backward and "np.sin(" not in backward, code["numbers"]
    assert "np.divide(" not in backward and "dtheta / (2.0 * theta)" in backward
    # the if arm's cos(theta) is not read in the other arm's backward code, nor after the
    # if; the sin(theta) computed before the if is read in the arm
    branch = _backward(code["numbers_branch"])
    assert branch.count("np.cos(theta)") == 2 and "dtheta -= sum_2 * sin_1" in branch, branch


def test_a_loop_of_numbers_is_walked(tmp_path):
    text = '''
def g(a, b):
    s = a
    for i in range(5):
        s = s * np.sin(b + i) + a
    return s
'''
    module = _module(tmp_path, text, "free27_numbers_loop")
    code = srcad.source(srcad.grad(module.g, wrt=(0, 1)), 0.3, 0.7)
    assert "reversed(stack)" in code and "del " not in code
    got = srcad.grad(module.g, wrt=(0, 1))(0.3, 0.7)
    for i in (0, 1):
        assert got[i] == pytest.approx(numerical_grad(module.g, (0.3, 0.7), i), rel=1e-7)


def test_sqrt_at_zero_keeps_numpy_semantics(tmp_path):
    text = '''
def h(x, w):
    return np.sum(x) * np.sqrt(w * w)
'''
    module = _module(tmp_path, text, "free27_sqrt")
    x = np.ones(2)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got = srcad.grad(module.h, wrt=(0, 1))(x, 0.0)  # inf * 0: nan, as NumPy's divide
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[0], [0.0, 0.0])


def test_peak_memory_of_a_chain(tmp_path):
    text = '''
def chain(x):
    a = np.sin(x) * x
    b = np.exp(-a) + a
    c = np.tanh(b) * b
    d = np.cos(c) + c * x
    e = np.sqrt(d * d + 1.0)
    return np.sum(e)
'''
    module = _module(tmp_path, text, "free27_chain")
    x = RNG.standard_normal(50_000)
    g = srcad.grad(module.chain)
    g(x)
    tracemalloc.start()
    try:
        g(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # ten arrays of x's size (the function itself: six; before, sixteen)
    assert peak < 12 * x.nbytes, peak / x.nbytes
    np.testing.assert_allclose(g(x)[:5], numerical_grad(module.chain, (x[:5],), 0),
                               rtol=1e-6)
