"""A shape the backward sweep reads only where a shape guard is false (``unbroadcast_to(g,
a_shape)`` in ``g if alike else unbroadcast_to(g, a_shape)``) is kept beside the guard, as
``a_shape = None if alike else a.shape`` (``ShapeGuards.guard_only_shapes``,
``deferred_shapes``): no tuple per call or iteration where the shapes agree. A small family
(a cell called in a loop, a loop body, each with operands alike and broadcast at run time, so
both sides of each guard run) against autograd and central finite differences, and the form
of the generated code."""

import importlib.util

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

CELL = '''
def cell(w, b, h, c):
    g = w * h + b
    f = 1.0 / (1.0 + np.exp(-g))
    c = c * f + np.tanh(g) * h
    return f * np.tanh(c), c


def run(w, b, h, c):
    total = 0.0
    for _ in range(3):
        h, c = cell(w, b, h, c)
        total = total + np.sum(h * h) + np.sum(c)
    return total
'''

LOOP = '''
def run(w, b, h, c):
    total = 0.0
    for _ in range(3):
        g = w * h + b
        c = c * np.tanh(g) + g
        h = np.sin(c) * w
        total = total + np.sum(h * c)
    return total
'''

#: shapes of w, b, h, c: alike, then broadcast (operands of one operation unlike at run time)
SHAPES = {"alike": ((4,), (4,), (4,), (4,)),
          "broadcast": ((4,), (1,), (4,), (4,)),
          "rows": ((3, 4), (4,), (3, 4), (3, 4))}


def _make(text, np_module, tmp_path=None):
    if tmp_path is None:  # autograd's twin: no source needed
        namespace = {"np": np_module}
        exec(compile(text, "<perf24 family>", "exec"), namespace)  # noqa: S102
        return namespace["run"]
    name = f"perf24_{abs(hash(text))}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("text", [CELL, LOOP], ids=["cell_in_loop", "loop_body"])
def test_gradients_with_shapes_kept_beside_guards(tmp_path, text, shapes):
    rng = np.random.default_rng(24)
    args = [rng.normal(size=s) * 0.5 for s in SHAPES[shapes]]
    run = _make(text, np, tmp_path)
    grad = srcad.grad(run, wrt=(0, 1, 2, 3))
    got = grad(*args)
    want = autograd.grad(_make(text, anp), argnum=(0, 1, 2, 3))(*args)
    fd = numerical_grad(run, args, wrt=(0, 1, 2, 3))
    for i, (g, w, d) in enumerate(zip(got, want, fd)):
        assert g.shape == args[i].shape
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, d, rtol=1e-5, atol=1e-6)


def test_the_cell_keeps_no_shape_where_its_guard_holds(tmp_path):
    run = _make(CELL, np, tmp_path)
    grad = srcad.grad(run, wrt=(0, 1, 2, 3))
    args = [np.ones(4)] * 4
    grad(*args)
    text = srcad.source(grad, *args)
    kept = [line.strip() for line in text.splitlines() if "_shape = " in line]
    assert kept and all(" = None if alike" in line for line in kept), kept


SPLIT = '''
def part(w, h):
    g = np.concatenate((h, h)) * w
    n = h.shape[0]
    return np.tanh(g[0:n]) * np.sin(g[n:]){extra}


def run(w, h):
    total = 0.0
    for _ in range(2):
        h = part(w, h)
        total = total + np.sum(h * h)
    for k in range(2):
        g = np.concatenate((h, h)) * (w + k)
        n = h.shape[0]
        h = np.cos(g[0:n]) * np.sin(g[n:]){extra}
        total = total + np.sum(h)
    return total
'''


@pytest.mark.parametrize("extra", ["", " + g[1:n + 1]"], ids=["shape_only", "read_again"])
def test_an_array_split_into_slices_keeps_its_shape_only(tmp_path, extra):
    """An array read in slices that cover it (its gradient ``np.empty`` filled piece by
    piece) is kept as its shape where nothing else reads it, in a callee's part and in a
    loop; itself where the backward sweep reads it again."""
    text = SPLIT.format(extra=extra)
    run = _make(text, np, tmp_path)
    rng = np.random.default_rng(5)
    args = [rng.normal(size=8) * 0.5, rng.normal(size=4) * 0.5]
    grad = srcad.grad(run, wrt=(0, 1))
    got = grad(*args)
    want = autograd.grad(_make(text, anp), argnum=(0, 1))(*args)
    fd = numerical_grad(run, args, wrt=(0, 1))
    for g, w, d in zip(got, want, fd):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, d, rtol=1e-5, atol=1e-6)
    code = srcad.source(grad, *args)
    assert (code.count("np.empty(g_shape)"), code.count("np.empty(g_1_shape)")) == (
        (1, 1) if extra == "" else (0, 0)), code
