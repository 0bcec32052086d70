"""Small callees written into their callers (``srcad/backend/inline.py``), a divisor's gradient
from the quotient where the numerator is a nonzero literal (``literal=`` of the division
rules), a callee part's context keeping an operand's shape instead of the array
(``reverse_rules.unshape_kept``), and repeated arithmetic on numbers computed once
(``srcad/transform/same_numbers.py``).

A generated family: small callee bodies (each a form one of the mechanisms reads) x where
they are called (straight, twice in one expression, nested, in a loop, from a callee that is
itself split, from a callee in a loop) x argument shapes (one shape, a row broadcast, Python
numbers), against autograd and central finite differences in grad and value_and_grad; vjp,
jvp and both Hessian modes on a subset; which form the generated code has."""

import importlib.util
import itertools
import re

import autograd
import autograd.numpy as anp
import numpy as np
import program_files
import pytest
from sampling import sample_by
from srcad.check import numerical_grad
from twin_checks import vjp_jvp_and_hessians

import srcad

RNG = np.random.default_rng(1919)

#: callee bodies, in a and b (``SCALE`` is a global of the module)
BODIES = {
    "sigmoid": "return 1.0 / (1.0 + np.exp(-a)) * b",
    "int_numerator": "return 3 / (1.0 + a * a) + b",
    "negative_numerator": "return -2.5 / (2.0 + np.cos(a * b))",
    "zero_numerator": "return 0.0 / (1.0 + a * a) + a * b",
    "variable_numerator": "return b / (1.5 + a * a)",
    "shaped": "u = a * b\n    v = u + b\n    return v * np.cos(u) + 1.0 / (2.0 + u * u)",
    "module_global": "return SCALE * np.tanh(a) * b",
    "rebinds": "a = a * 2.0 + b\n    a = np.sin(a)\n    return a * b",
}

PLACES = {
    "straight": """
def f(x, y):
    return np.sum(piece(x, y) * y)
""",
    "twice": """
def f(x, y):
    return np.sum(piece(x, y) + piece(np.sin(x), y) * 2.0)
""",
    "nested": """
def f(x, y):
    return np.sum(piece(piece(x, y), y))
""",
    "loop": """
def f(x, y):
    total = 0.0
    for i in range(3):
        total = total + np.sum(piece(x, y))
        x = x * 0.5 + 0.1 * np.sin(x)
    return total
""",
    "outer_callee": """
def outer(a, b):
    return piece(a, b) * a + piece(b, a)


def f(x, y):
    return np.sum(outer(x, y))
""",
    "outer_in_loop": """
def outer(a, b):
    return piece(a, b) * a


def f(x, y):
    total = 0.0
    for i in range(2):
        total = total + np.sum(outer(x, y))
        x = np.cos(x) + 0.2
    return total
""",
}

SHAPES = {"alike": ((3, 4), (3, 4)), "row": ((3, 4), (4,)), "number": (None, None)}

CASES = list(itertools.product(BODIES, PLACES, SHAPES))
SMALL = [(b, p, s) for b, p, s in CASES if b in ("sigmoid", "shaped", "rebinds")
         and p in ("twice", "outer_in_loop") and s != "row"]


def _text(body, place):
    return f"SCALE = 1.7\n\n\ndef piece(a, b):\n    {BODIES[body]}\n\n{PLACES[place]}"


def _module(tmp_path, text, name):
    return program_files.module(tmp_path, name, "import numpy as np\n" + text)


def _twin(text):
    return program_files.twin(text, anp)


def _program(tmp_path, body, place, tag):
    text = _text(body, place)
    return _module(tmp_path, text, f"lstm19_{body}_{place}_{tag}"), _twin(text)


def _args(shapes):
    if shapes == "number":
        return 0.37, -0.81
    return tuple(RNG.uniform(-1.0, 1.0, s) for s in SHAPES[shapes])


#: CI: every body once, a third of the rest (tests/sampling.py); the long run all
RUN = sample_by(CASES, lambda c: c[0], 1)


@pytest.mark.parametrize("body, place, shapes", RUN,
                         ids=[f"{b}-{p}-{s}" for b, p, s in RUN])
def test_grad_and_value_and_grad(tmp_path, body, place, shapes):
    module, twin = _program(tmp_path, body, place, shapes)
    x, y = _args(shapes)
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    value, again = srcad.value_and_grad(module.f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    for i, arg in enumerate((x, y)):
        want = autograd.grad(twin, i)(x, y)
        for g in (got[i], again[i]):
            assert np.shape(g) == np.shape(arg)
            np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i),
                                   rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("body, place, shapes", SMALL,
                         ids=[f"{b}-{p}-{s}" for b, p, s in SMALL])
def test_vjp_jvp_and_hessians(tmp_path, body, place, shapes):
    module, twin = _program(tmp_path, body, place, f"second_{shapes}")
    x, y = _args(shapes)
    hess = vjp_jvp_and_hessians(module.f, twin, x, y, RNG)
    grad = srcad.grad(module.f)
    size = np.size(x)
    flat = np.reshape(hess, (size, size))
    for k in range(size):  # the Hessian by finite differences of srcad's gradient
        e = np.zeros(size)
        e[k] = 1e-5
        e = e.reshape(np.shape(x)) if shapes != "number" else 1e-5
        column = (np.asarray(grad(x + e, y)) - np.asarray(grad(x - e, y))) / 2e-5
        np.testing.assert_allclose(np.ravel(column), flat[:, k], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("place", sorted(PLACES))
def test_small_callees_are_written_in(tmp_path, place):
    """``piece``'s parts are straight-line and small: no call of them is left in the code
    that calls them in a loop or in a callee's part, and its statements there carry comments
    naming it; the differentiated function's own code outside its loops (which runs once a
    call) keeps the calls, which read better."""
    module, _ = _program(tmp_path, "sigmoid", place, "form")
    x, y = _args("alike")
    g = srcad.grad(module.f, wrt=(0, 1))
    g(x, y)
    code = srcad.source(g, x, y)
    callers = code.split("\ndef piece_fwd")[0]
    top = code.split("\ndef ")[0]
    written_in = "for " in top or "def outer" in PLACES[place]
    if written_in:
        assert "piece_fwd(" not in callers and not re.search(r"piece_bwd(_into)?\(", callers), code
        assert "# piece, line" in code, code
    else:
        assert "piece_fwd(" in top and re.search(r"piece_bwd(_into)?\(", top), code


def test_divisor_not_kept(tmp_path):
    """``1.0 / (1.0 + e)``: the divisor's gradient is read from the quotient, so the divisor
    is not kept (nor named: tidy writes it into the quotient's expression)."""
    module, _ = _program(tmp_path, "sigmoid", "loop", "kept")
    g = srcad.grad(module.f)
    x, y = _args("alike")
    g(x, y)
    code = srcad.source(g, x, y)
    assert "= one / (one + " in code, code  # (float64 arrays: srcad.backend.float_literals)


def test_not_written_in_across_modules(tmp_path):
    """A callee of another module reads its own globals: its parts stay calls (its ``xnp``
    means nothing in the caller's module), and the gradient is right."""
    other = _module(tmp_path, "import numpy as xnp\n\n\ndef piece(a, b):\n"
                    "    return 1.0 / (1.0 + xnp.exp(-a)) * b\n", "lstm19_other")
    text = "def f(x, y):\n    return np.sum(piece(x, y) * y)\n"
    path = tmp_path / "lstm19_caller.py"
    path.write_text("import numpy as np\n" + text)
    spec = importlib.util.spec_from_file_location("lstm19_caller", path)
    module = importlib.util.module_from_spec(spec)
    module.piece = other.piece
    spec.loader.exec_module(module)
    x, y = _args("alike")
    g = srcad.grad(module.f, wrt=(0, 1))
    got = g(x, y)
    code = srcad.source(g, x, y)
    assert "piece_fwd(" in code.split("\ndef piece_fwd")[0], code
    twin = _twin("def piece(a, b):\n    return 1.0 / (1.0 + np.exp(-a)) * b\n\n" + text)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-10)


def test_a_closure_callee_is_called(tmp_path):
    """A callee reading its closure keeps its parts as calls (their cells are its own)."""
    module = _module(tmp_path, '''
def make(scale):
    def piece(a, b):
        return scale / (1.0 + np.exp(-a)) * b
    return piece


piece = make(1.3)


def f(x, y):
    return np.sum(piece(x, y) * y)
''', "lstm19_closure")
    x, y = _args("row")
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i), rtol=1e-6,
                                   atol=1e-8)


def test_two_results_and_a_literal_argument(tmp_path):
    """A callee returning a tuple, called with a literal argument and unpacked."""
    text = '''
def piece(a, b):
    return a * b, 2.0 / (1.0 + a * a) * b


def f(x, y):
    u, v = piece(x, 0.5)
    p, q = piece(v, y)
    return np.sum(u * p + q * v)
'''
    module, twin = _module(tmp_path, text, "lstm19_pairs"), _twin(text)
    for shapes in ("alike", "number"):
        x, y = _args(shapes)
        got = srcad.grad(module.f, wrt=(0, 1))(x, y)
        for i in (0, 1):
            np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9,
                                       atol=1e-12)
            np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i),
                                       rtol=1e-6, atol=1e-8)


#: programs repeating arithmetic on numbers (indices, counts, active numbers)
NUMBERS = {
    "indices": """
def f(x, y):
    total = 0.0
    for i in range(0, len(x) - 1, 2):
        total = total + x[i + 1] * y[i] + np.sin(x[i + 1]) * y[i + 1]
    return total
""",
    "halves": """
def f(x, y):
    k = len(x) // 2
    total = np.sum(x[:len(x) // 2] * y[len(y) // 2:])
    if k > 1:
        total = total + x[k // 2] * y[len(x) // 2 // 2]
    return total + np.sum(x[k:] * y[:len(y) // 2])
""",
    "active": """
def f(x, y):
    a = np.sum(x) * 2.0
    b = np.sum(x) * 2.0
    c = a * y[0] + 1.0
    d = a * y[0] + 1.0
    return np.sin(b) * c + d * d + np.sum(y) / (1.0 + a * a)
""",
    "branches": """
def f(x, y):
    n = len(x)
    total = 0.0
    for i in range(n - 1):
        if i % 2 == 0:
            j = i + 1
            total = total + x[j] * y[i]
        else:
            total = total + x[i + 1] * np.cos(y[i])
        total = total + x[i + 1] * 0.5
    return total
""",
}


@pytest.mark.parametrize("name", sorted(NUMBERS))
def test_repeated_arithmetic_on_numbers(tmp_path, name):
    text = NUMBERS[name]
    module, twin = _module(tmp_path, text, f"lstm19_numbers_{name}"), _twin(text)
    x, y = RNG.uniform(-1.0, 1.0, 6), RNG.uniform(-1.0, 1.0, 6)
    g = srcad.grad(module.f, wrt=(0, 1))
    got = g(x, y)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(x, y), rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i), rtol=1e-6,
                                   atol=1e-8)
    hess = autograd.hessian(twin, 0)(x, y)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(module.f, mode=mode)(x, y), hess,
                                   rtol=1e-8, atol=1e-10)
    code = srcad.source(g, x, y)
    if name == "indices":
        assert code.split("# backward")[0].count("i + 1") == 1, code


def test_lstm_cell_form(tmp_path):
    """The LSTM cell's sigmoid, three times a cell: no call of its parts is left, and their
    contexts are flattened into the cell's."""
    text = '''
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def cell(w, b, hidden, c, inp):
    gates = np.concatenate((inp, hidden, inp, hidden)) * w + b
    h = hidden.shape[0]
    forget = sigmoid(gates[0:h])
    ingate = sigmoid(gates[h:2 * h])
    outgate = sigmoid(gates[2 * h:3 * h])
    change = np.tanh(gates[3 * h:])
    c = c * forget + ingate * change
    return outgate * np.tanh(c), c


def f(w, b, hidden, c, xs):
    total = 0.0
    for t in range(len(xs)):
        hidden, c = cell(w, b, hidden, c, xs[t])
        total = total + np.sum(hidden * xs[t])
    return total
'''
    module, twin = _module(tmp_path, text, "lstm19_cell"), _twin(text)
    n = 3
    args = (RNG.normal(size=4 * n), RNG.normal(size=4 * n), RNG.normal(size=n),
            RNG.normal(size=n), RNG.normal(size=(4, n)))
    g = srcad.grad(module.f, wrt=(0, 1, 2, 3))
    got = g(*args)
    for i in range(4):
        np.testing.assert_allclose(got[i], autograd.grad(twin, i)(*args), rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, args, i), rtol=1e-6,
                                   atol=1e-8)
    code = srcad.source(g, *args)
    assert "sigmoid_fwd(" not in code and "sigmoid_bwd(" not in code, code
    # the sigmoids' contexts are items of the cell's own (inline.flatten), not tuples in it
    assert "_ctx = (" not in code.split("def cell_fwd")[1], code
