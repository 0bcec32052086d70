"""Gradients of an array read in slices that cover it once, written into an empty array
(``srcad/transform/partition.py``): ``dg = np.empty(g.shape)``, then each slice's gradient
assigned, instead of ``scatter`` (zeros) and ``+=`` per slice, where the bounds provably
split the array (sums of multiples of ``len(...)`` and ``.shape[k]``, in order, from 0 to
the end).

A generated family: ways of cutting an array (ones that split it: in order, shuffled, from no
lower bound, with a constant added, two counts; and ones that do not: overlapping, a gap, a
piece read twice, negative bounds, a step, a bound of unknown sign) x where the reads are (the
differentiated function, a callee, a loop, a callee in a loop) x a vector or a matrix cut
along its rows, against autograd and central finite differences in grad and
value_and_grad; vjp, jvp and both Hessian modes on a subset; which form the code has."""

import importlib.util
import itertools

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample, sample_by
from srcad.check import numerical_grad

import srcad

RNG = np.random.default_rng(2020)

#: name -> (how the count is read, the slices, whether they split the array)
CUTS = {
    "quarters": ("h = y.shape[0]", ["0:h", "h:2 * h", "2 * h:3 * h", "3 * h:"], True),
    "no_lower": ("h = y.shape[0]", [":h", "h:2 * h", "2 * h:"], True),
    "shuffled": ("h = y.shape[0]", ["2 * h:", ":h", "3 * h // 3:2 * h"], False),
    "reordered": ("h = y.shape[0]", ["2 * h:", ":h", "h:2 * h"], True),
    "plus_one": ("h = len(y)", [":h + 1", "h + 1:2 * h + 1", "2 * h + 1:"], True),
    "two_counts": ("h = len(y)\n    m = y.shape[0]", [":h", "h:h + m", "h + m:"], True),
    "difference": ("h = len(y)", [":4 * h - 3 * h", "h:"], True),
    "overlap": ("h = y.shape[0]", [":2 * h", "h:3 * h", "3 * h:"], False),
    "gap": ("h = y.shape[0]", [":h", "2 * h:"], False),
    "twice": ("h = y.shape[0]", [":h", "h:", ":h"], False),
    "negative": ("h = y.shape[0]", [":-h", "-h:"], False),
    "negative_literal": ("h = y.shape[0]", [":-2", "-2:"], False),
    "stepped": ("h = y.shape[0]", [":h", "h::2", "h + 1::2"], False),
    "backwards": ("h = y.shape[0]", [":2 * h", "2 * h:h", "h:"], False),
    "unknown_sign": ("h = y.shape[0] - 5", [":h", "h:"], False),
}

FUNCS = ("np.sin({})", "np.tanh({}) * 2.5", "1.0 / (1.0 + np.exp(-{}))", "np.cos({}) ** 2",
         "np.exp(-{}) * 0.5")


def _split(cut):
    count, slices, _ = CUTS[cut]
    lines = [f"    {count}", "    total = 0.0"]
    for k, s in enumerate(slices):
        lines.append(f"    total = total + np.sum({FUNCS[k % len(FUNCS)].format(f'x[{s}]')})")
    return "def split(x, y):\n" + "\n".join(lines) + "\n    return total\n"


PLACES = {
    "top": "def f(x, y):\n    return split(x, y)\n",
    "callee": "def f(x, y):\n    return split(x * 1.5, y) * 2.0 + np.sum(x)\n",
    "loop": """
def f(x, y):
    total = 0.0
    for i in range(2):
        total = total + split(np.sin(x) + 0.1 * i, y)
        x = x * 0.5
    return total
""",
}

#: x's shape, for y of 3 numbers
SHAPES = {"vector": (12,), "matrix": (12, 2)}

CASES = list(itertools.product(CUTS, PLACES, SHAPES))
SMALL = sample([c for c in CASES if c[2] == "vector" and c[0] in (
    "quarters", "reordered", "two_counts", "overlap", "twice", "stepped")], 2)


def _text(cut, place):
    if place == "top":  # the reads in the differentiated function itself
        return _split(cut).replace("def split(x, y)", "def f(x, y)")
    return _split(cut) + "\n\n" + PLACES[place]


def _module(tmp_path, text, name):
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\n\n\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program(tmp_path, cut, place, tag):
    text = _text(cut, place)
    space = {"np": anp}
    exec(compile(text, "<autograd twin>", "exec"), space)  # the same program on autograd
    return _module(tmp_path, text, f"lstm20_{cut}_{place}_{tag}"), space["f"]


def _args(shape):
    return RNG.uniform(-1.0, 1.0, SHAPES[shape]), RNG.uniform(-1.0, 1.0, 3)


GRAD_CASES = sample_by(CASES, lambda c: c[0], 3)  # every cut; all with SRCAD_LONG_PROPERTIES=1


@pytest.mark.parametrize("cut, place, shape", GRAD_CASES,
                         ids=[f"{c}-{p}-{s}" for c, p, s in GRAD_CASES])
def test_grad_and_value_and_grad(tmp_path, cut, place, shape):
    module, twin = _program(tmp_path, cut, place, shape)
    x, y = _args(shape)
    got = srcad.grad(module.f)(x, y)
    value, again = srcad.value_and_grad(module.f)(x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    want = autograd.grad(twin)(x, y)
    for g in (got, again):
        assert np.shape(g) == np.shape(x)
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, numerical_grad(module.f, (x, y), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("cut, place, shape", SMALL, ids=[f"{c}-{p}-{s}" for c, p, s in SMALL])
def test_vjp_jvp_and_hessians(tmp_path, cut, place, shape):
    module, twin = _program(tmp_path, cut, place, f"second_{shape}")
    x, y = _args(shape)
    want = autograd.grad(twin)(x, y)
    value, pullback = srcad.vjp(module.f, x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], want, rtol=1e-10, atol=1e-12)
    t = RNG.standard_normal(np.shape(x))
    _, tangent = srcad.jvp(module.f, (x, y), (t, np.zeros_like(y)))
    np.testing.assert_allclose(tangent, np.sum(want * t), rtol=1e-10, atol=1e-12)
    hess = autograd.hessian(twin)(x, y)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.f, mode=mode)(x, y), hess,
                                   rtol=1e-8, atol=1e-10)
    grad = srcad.grad(module.f)
    for k in range(0, x.size, 5):  # columns of the Hessian by differences of the gradient
        e = np.zeros(x.size)
        e[k] = 1e-5
        column = (grad(x + e, y) - grad(x - e, y)) / 2e-5
        np.testing.assert_allclose(column, hess[:, k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cut", sorted(CUTS))
def test_form(tmp_path, cut):
    """Slices that split the array: its gradient is an empty array each slice's gradient is
    assigned into, no ``scatter``, no ``+=``; the others keep the zeros and the additions."""
    for place in ("top", "callee"):
        module, _ = _program(tmp_path, cut, place, "form")
        x, y = _args("vector")
        g = srcad.grad(module.f)
        g(x, y)
        code = srcad.source(g, x, y, callees=True)
        if CUTS[cut][2]:
            assert ".empty(x" in code and "scatter(" not in code, code
        else:
            assert "np.empty(" not in code, code


def test_hessian_reads_the_plain_form(tmp_path):
    """A derivative of the gradient reads code with the zeros (an empty array's values are
    never read, but the second derivative of code that writes into one would be harder to
    read): a Hessian in forward mode of the split function, and of a caller of it."""
    for place in ("top", "callee"):
        module, twin = _program(tmp_path, "quarters", place, "plain")
        x, y = _args("vector")
        np.testing.assert_allclose(srcad.hessian(module.f, mode="fwd")(x, y),
                                   autograd.hessian(twin)(x, y), rtol=1e-8, atol=1e-10)

