"""Shape guards (``srcad/transform/guards.py``): an element-wise operation's ``unbroadcast``
is left out where its array operands have one shape when the code runs (``dA = g * b if
alike else unbroadcast(g * b, a)``, ``alike`` computed once per block by the forward sweep).
A generated family: element-wise expressions x operand shapes (alike, broadcast along rows,
columns, an outer product, a 0-d and a size-1 operand) x where they run (straight, a loop, a
callee, a callee in a loop), against autograd and central finite differences, in grad and
value_and_grad, every gradient of its argument's shape and dtype; vjp, jvp and both Hessian
modes on a subset; which form the generated code has."""

import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import program_files
import pytest
from sampling import sample_by
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(1818)

#: element-wise expressions of a and b
EXPRS = {
    "mul": "a * b",
    "add_sub": "a + b - a * b",
    "div": "a / (1.5 + b * b)",
    "pow": "(a * a + 1.0) ** (0.5 * b)",
    "ufuncs": "np.logaddexp(a, b) + np.arctan2(a, b * b + 1.0)",
    "chain": "np.tanh(a * b + a) * np.exp(-b) + 2.0 * a",
}

#: the shapes of x and y (a and b are made from them element-wise)
SHAPES = {
    "alike": ((3, 4), (3, 4)),
    "row": ((3, 4), (4,)),
    "column": ((3, 1), (3, 4)),
    "outer": ((3, 1), (1, 4)),
    "zero_d": ((), (3,)),
    "size_one": ((1,), (3,)),
}

PLACES = {
    "straight": '''
def f(x, y):
    a = np.sin(x) + x
    b = np.cos(y) * y
    j = {expr}
    return np.sum(np.tanh(j) * j)
''',
    "loop": '''
def f(x, y):
    total = 0.0
    for i in range(3):
        a = np.sin(x * (i + 1.0)) + x
        b = np.cos(y) * y
        j = {expr}
        total = total + np.sum(np.tanh(j) * j)
        y = y + 0.1 * b
    return total
''',
    "callee": '''
def piece(a, b):
    return {expr}


def f(x, y):
    return np.sum(piece(np.sin(x), y) * 1.5) + np.sum(piece(x, np.cos(y)) ** 2)
''',
    "callee_in_loop": '''
def piece(a, b):
    j = {expr}
    return np.tanh(j) * j


def f(x, y):
    total = 0.0
    for i in range(2):
        total = total + np.sum(piece(x, y))
        x = x * 0.5 + 0.1 * np.sin(x)
    return total
''',
}

CASES = list(itertools.product(EXPRS, SHAPES, PLACES))
SMALL = [(e, s, p) for e, s, p in CASES if e in ("mul", "chain")
         and s in ("alike", "row", "size_one") and p in ("loop", "callee")]


def _module(tmp_path, text, name):
    return program_files.module(tmp_path, name, "import numpy as np\n" + text)


def _twin(text):
    return program_files.twin(text, anp)


def _program(tmp_path, expr, place, tag):
    text = PLACES[place].format(expr=EXPRS[expr])
    return _module(tmp_path, text, f"guards_{expr}_{place}_{tag}"), _twin(text)


def _array(shape):
    return np.array(RNG.standard_normal(shape))


#: CI: every expression once, a third of the rest (tests/sampling.py); the long run all
RUN = sample_by(CASES, lambda c: c[0], 1)


@pytest.mark.parametrize("expr, shapes, place", RUN,
                         ids=[f"{e}-{s}-{p}" for e, s, p in RUN])
def test_grad_and_value_and_grad(tmp_path, expr, shapes, place):
    module, twin = _program(tmp_path, expr, place, shapes)
    x, y = (_array(s) for s in SHAPES[shapes])
    x0, y0 = x.copy(), y.copy()
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    value, again = srcad.value_and_grad(module.f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    for i, arg in enumerate((x, y)):
        want = autograd.grad(twin, i)(x, y)
        for g in (got[i], again[i]):
            assert np.shape(g) == arg.shape  # summed back to the operand's shape
            np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i),
                                   rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, x0)  # the arguments are not written into
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("expr, place", list(itertools.product(EXPRS, PLACES)))
def test_the_same_code_serves_every_shape(tmp_path, expr, place):
    """The code is made for ranks, not sizes: made for arrays alike, it runs on arrays that
    broadcast (the guard is false there) and the other way round, still right."""
    module, twin = _program(tmp_path, expr, place, "reuse")
    g = srcad.grad(module.f, wrt=(0, 1))
    for shapes in ("alike", "column", "outer", "alike"):  # rank 2 each: one specialisation
        x, y = (_array(s) for s in SHAPES[shapes])
        got = g(x, y)
        for i in (0, 1):
            np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9,
                                       atol=1e-12)


@pytest.mark.parametrize("place", sorted(PLACES))
def test_which_form(tmp_path, place, monkeypatch, capsys):
    """Every part's code that runs many times a call (SRCAD_DEBUG's print: a callee's split
    parts too, a loop's body) guards its element-wise operations' unbroadcast calls; arrays
    of a static shape class need none; the function's own top level runs once a call: plain
    unbroadcast calls there; and where the operands' classes hold arguments of different
    shapes (here x and y, and the loop's values keep their shapes) the guard is false at
    every call: plain unbroadcast calls too (shapes17)."""
    monkeypatch.setattr(srcad.pipeline.switches, "DEBUG", True)
    module, _ = _program(tmp_path, "mul", place, "form")
    x, y = (_array(s) for s in SHAPES["row"])
    srcad.grad(module.f, wrt=(0, 1))(x, y)
    code = capsys.readouterr().err
    if place in ("straight", "loop"):
        assert "alike" not in code, code
    else:
        assert " if alike" in code and "alike = " in code and ".shape == " in code, code
    assert "unbroadcast" in code, code


def test_a_static_class_needs_no_guard(tmp_path):
    module = _module(tmp_path, '''
def f(x):
    a = np.sin(x) * x
    return np.sum(a * np.exp(x))
''', "guards_static")
    g = srcad.grad(module.f)
    x = _array((3, 2))
    np.testing.assert_allclose(g(x), autograd.grad(_twin('''
def f(x):
    a = np.sin(x) * x
    return np.sum(a * np.exp(x))
'''))(x), rtol=1e-12)
    code = srcad.source(g, x)
    assert "alike" not in code and "unbroadcast" not in code, code


def test_gradient_of_a_gradient(tmp_path):
    """A derivative of a gradient reads its code: the guards there are differentiated too
    (a boolean and a branch), and right."""
    module, twin = _program(tmp_path, "chain", "straight", "second")
    x, y = (_array(s) for s in SHAPES["alike"])
    gg = srcad.grad(lambda u, v: np.sum(srcad.grad(module.f)(u, v) ** 2), wrt=(0, 1))
    want = autograd.grad(lambda u, v: anp.sum(autograd.grad(twin)(u, v) ** 2), (0, 1))(x, y)
    for got, w in zip(gg(x, y), want):
        np.testing.assert_allclose(got, w, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("expr, shapes, place", SMALL, ids=[f"{e}-{s}-{p}" for e, s, p in SMALL])
def test_vjp_jvp_and_hessians(tmp_path, expr, shapes, place):
    module, twin = _program(tmp_path, expr, place, f"second_{shapes}")
    x, y = (_array(s) for s in SHAPES[shapes])
    want = autograd.grad(twin, 0)(x, y)
    value, pullback = srcad.vjp(module.f, x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], want, rtol=1e-9, atol=1e-12)
    t = RNG.standard_normal(x.shape)
    _, tangent = srcad.jvp(module.f, (x, y), (t, np.zeros_like(y)))
    np.testing.assert_allclose(tangent, np.sum(want * t), rtol=1e-9, atol=1e-12)
    hess = autograd.hessian(twin, 0)(x, y)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.f, mode=mode)(x, y), hess,
                                   rtol=1e-8, atol=1e-10)
    grad, flat = srcad.grad(module.f), hess.reshape(x.size, x.size)
    for k in range(x.size):  # the Hessian by finite differences of srcad's gradient
        e = np.zeros(x.size)
        e[k] = 1e-5
        e = e.reshape(x.shape)
        column = (grad(x + e, y) - grad(x - e, y)) / 2e-5
        np.testing.assert_allclose(column.ravel(), flat[:, k], rtol=1e-5, atol=1e-6)


def test_a_size_one_result_and_a_vjp_cotangent(tmp_path):
    """The returned value itself element-wise of two arrays: grad's seed for a result of size
    one, and vjp's cotangent, reach each operand summed to its shape (or not, when alike)."""
    module = _module(tmp_path, '''
def f(x, y):
    return x * y + x
''', "guards_returned")
    for xs, ys in (((1,), (1,)), ((1,), (1, 1)), ((1, 1), (1,))):
        x, y = _array(xs), _array(ys)
        got = srcad.grad(module.f, wrt=(0, 1))(x, y)
        assert got[0].shape == xs and got[1].shape == ys
        np.testing.assert_allclose(got[0].ravel(), (y + 1.0).ravel(), rtol=1e-12)
        np.testing.assert_allclose(got[1].ravel(), x.ravel(), rtol=1e-12)
    x, y = _array((2, 3)), _array((3,))
    value, pullback = srcad.vjp(module.f, x, y)
    ct = RNG.standard_normal((2, 3))
    dx, dy = pullback(ct)
    np.testing.assert_allclose(dx, ct * (y + 1.0), rtol=1e-12)
    np.testing.assert_allclose(dy, np.sum(ct * x, axis=0), rtol=1e-12)
    x2 = _array((3,))
    value, pullback = srcad.vjp(module.f, x2, y)
    dx, dy = pullback(ct[0])
    np.testing.assert_allclose(dx, ct[0] * (y + 1.0), rtol=1e-12)
    np.testing.assert_allclose(dy, ct[0] * x2, rtol=1e-12)
