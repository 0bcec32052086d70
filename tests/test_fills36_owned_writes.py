"""Element-by-element fills in loops (session 36): ``out = np.zeros(n)``, then ``out[k] = v``
for each ``k``, was written ``out_2 = out_1.copy(); out_2[k] = v`` at every step (O(n²)
copying). Where the array is this function's own and nothing reads the old one afterwards
(``srcad.transform.owned_writes``) the forward sweep writes in place; where the old array IS
read (by the backward sweep before the loop or per step, through a row view, in a callee's
argument) the copy stays, or the program is refused.

Each program against central differences and PyTorch (the same source on tensors, each write
``y[i] = v`` made functional, ``y = y.clone(); y[i] = v`` with ``v`` computed first: Python's
meaning once srcad's alias checks pass), and the generated text checked for the copy kept or
gone; where the backward sweep owns the gradient, the written element's gradient is zeroed in
place (``transform.number_writes.cleared_in_place``); the Hessians (the plain form, read
again). Also float gradients added into in place where the gradient they were given is dead
(``transform.reverse._borrowed``), and ``np.mean``'s size read from a broadcast shape
(``transform.operand_sizes``)."""

import re

import numpy as np
import pytest
import torch

import srcad
from tests.sampling import LONG
from tests.twin_checks import central

FILL = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k]) * w[k]
    return np.sum(out * out)
"""
RECURRENCE = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    out[0] = x[0]
    for k in range(1, n):
        out[k] = out[k - 1] * w[k] + x[k]
    return np.sum(out * w)
"""
NESTED = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = x[i] * w[j] + np.sin(out[i, j - 1])
    return np.sum(out * out)
"""
# the element's gradient read, then zeroed in place, then used (tidy must not move the read
# past the zeroing: backend.tidy_values._written_into)
GRID = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = np.tanh(x[i] * w[j])
    return np.sum(out * out)
"""
ROWS_FILLED = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros((n, n))
    for k in range(n):
        out[k, :] = x[k] * w
    return np.sum(out * out)
"""
SUM_ONLY = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = np.sin(x[k] * w[k])
    return np.sum(out)
"""
# the old array read by the backward sweep of a statement before the loop
READ_BEFORE = """
def f(x, w):
    n = x.shape[0]
    out = x * 2.0
    s = np.sum(out * out)
    for k in range(n):
        out[k] = np.sin(x[k]) * out[k]
    return s + np.sum(out * w)
"""
# the old array read (and so saved) at every step
SAVED_PER_STEP = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n) + w
    s = 0.0
    for k in range(n):
        s = s + np.sum(out * out) * w[k]
        out[k] = x[k] * s
    return s
"""
# a row of the old array (a view) saved for the product's gradient
ROW_VIEW = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros((n, n)) + w
    for k in range(1, n):
        out[k] = out[k - 1] * x[k]
    return np.sum(out * w)
"""
# a return from inside the loop: the array as it was then
EARLY_RETURN = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = x[k] * w[k]
        if k == n - 2:
            return np.sum(out * out)
    return np.sum(out)
"""
# a callee writing the array it is given
CALLEE = """
def put(a, k, v):
    a[k] = v
    return a


def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out = put(out, k, x[k] * w[k])
    return np.sum(out * out)
"""
# a list holding the array, read after the loop
LISTED = """
def f(x, w):
    n = x.shape[0]
    out = np.zeros(n)
    kept = [out]
    for k in range(n):
        out[k] = x[k] * w[k]
    return np.sum(kept[0] * w)
"""
#: program -> whether the forward sweep writes its loop's array in place (None: refused, or
#: either way; the gradient is checked whatever it is). The recurrence's ``out[k - 1]`` is a
#: number, not a view, once ``np.zeros(n)`` is known to be a vector
PROGRAMS = {"fill": (FILL, True), "recurrence": (RECURRENCE, True), "nested": (NESTED, True),
            "grid": (GRID, True),
            "rows_filled": (ROWS_FILLED, True), "sum_only": (SUM_ONLY, True),
            "read_before": (READ_BEFORE, False), "saved_per_step": (SAVED_PER_STEP, False),
            "row_view": (ROW_VIEW, False), "early_return": (EARLY_RETURN, None),
            "callee": (CALLEE, None), "listed": (LISTED, None)}
#: programs whose backward sweep zeroes the written element of a gradient it owns in place
#: (transform.number_writes.cleared_in_place)
ZEROED_IN_PLACE = {"fill", "nested", "grid", "recurrence"}
SIZES = [3, 5, 8] if LONG else [4]
CASES = [(p, n) for p in PROGRAMS for n in SIZES]


def _torch_text(text):
    """The program on tensors, each write made on a copy (functional)."""
    text = re.sub(r"^(\s*)(\w+)\[(.*)\] = (.*)$",
                  r"\1value = \4\n\1\2 = \2.clone()\n\1\2[\3] = value", text, flags=re.M)
    text = text.replace("np.zeros(n)", "torch.zeros(n, dtype=torch.float64)")
    text = text.replace("np.zeros((n, n))", "torch.zeros((n, n), dtype=torch.float64)")
    return text.replace("np.", "torch.")


def _forward_part(source):
    """The generated text before its backward sweep."""
    return source.split("# backward")[0]


@pytest.mark.parametrize("program, n", CASES)
def test_fills_write_in_place_only_where_nothing_reads_the_old_array(load_module, program,
                                                                       n):
    text, in_place = PROGRAMS[program]
    f = load_module(f"fills_{program}", "import numpy as np\n" + text).f
    twin = load_module(f"fills_twin_{program}", "import torch\n" + _torch_text(text)).f
    rng = np.random.default_rng(n)
    x, w = rng.uniform(0.2, 0.9, n), rng.uniform(0.2, 0.9, n)
    df = srcad.grad(f, wrt=("x", "w"))
    try:
        gx, gw = df(x, w)
    except srcad.SrcadError:
        assert in_place is None, f"{program}: refused"
        return
    np.testing.assert_allclose(gx, central(f, (x, w), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw, central(f, (x, w), 1), rtol=1e-6, atol=1e-7)
    xs, ws = (torch.tensor(v, requires_grad=True) for v in (x, w))
    twin(xs, ws).backward()
    np.testing.assert_allclose(gx, xs.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, ws.grad.numpy(), rtol=1e-10, atol=1e-12)
    source = srcad.source(df)
    if in_place is not None:
        assert ("copy()" not in _forward_part(source)) == in_place, source
    if program in ZEROED_IN_PLACE:  # the backward sweep's dout[k] = 0.0, no cleared copy
        assert "cleared(" not in source and "] = 0.0" in source, source


# (transform.reverse._borrowed) a float gradient given as the gradient of the value the
# statement defines (``dw = db`` for ``b = w + 1``) is read by nobody after: ``dw += da``
# (or the terms folded into one statement), never ``dw = dw + da``
SCALAR_PAIRS = [("x + w", "w + 1.0"), ("x * w", "w - 2.0"), ("x - w", "w * w"),
                ("x / w", "np.sin(w)")]


@pytest.mark.parametrize("first, second", SCALAR_PAIRS if LONG else SCALAR_PAIRS[:2])
def test_a_float_gradient_taken_from_a_dead_one_is_added_into(load_module, first, second):
    import autograd
    import autograd.numpy as anp

    text = (f"def f(x, w):\n    a = {first}\n    b = {second}\n    return a * b\n")
    key = abs(hash((first, second)))
    f = load_module(f"pairs_{key}", "import numpy as np\n" + text).f
    twin = load_module(f"pairs_twin_{key}", "import autograd.numpy as np\n" + text).f
    x, w = 0.7, 1.3
    df = srcad.grad(f, wrt=("x", "w"))
    gx, gw = df(x, w)
    h = 1e-6
    assert abs(gx - (f(x + h, w) - f(x - h, w)) / (2 * h)) < 1e-6
    assert abs(gw - (f(x, w + h) - f(x, w - h)) / (2 * h)) < 1e-6
    assert abs(gw - autograd.grad(twin, 1)(x, w)) < 1e-12
    text = srcad.source(df)  # added into (dw += da, dw -= e), or one expression: never a copy
    assert "dw = dw " not in text and ("dw += " in text or "dw -= " in text or
                                       text.count("dw = ") == 1), text
    # read again at second order: the Hessian in both modes against autograd's
    want = autograd.hessian(lambda v: twin(v[0], v[1]))(anp.array([x, w]))
    for mode in ("fwd", "rev"):
        got = srcad.hessian(lambda v: f(v[0], v[1]), mode=mode)(np.array([x, w]))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


# (transform.operand_sizes) np.mean of an element-wise expression at the top level over
# arrays that broadcast: its size from the operands' broadcast shape, not the sum made for it
MEANS = ["np.mean(np.sin(x) * w + (x - 1.0) ** 2)", "np.mean(x * w - np.tanh(w))",
         "np.mean(np.exp(-x) + w) * 2.0", "np.mean(x / (w + 2.0) + x * x)"]


@pytest.mark.parametrize("expression", MEANS if LONG else MEANS[:2])
def test_a_mean_reads_the_broadcast_size_not_the_sum(load_module, expression):
    import autograd

    text = f"def f(x, w):\n    return {expression}\n"
    key = abs(hash(expression))
    f = load_module(f"means_{key}", "import numpy as np\n" + text).f
    twin = load_module(f"means_twin_{key}", "import autograd.numpy as np\n" + text).f
    rng = np.random.default_rng(len(expression))
    x, w = rng.uniform(0.2, 0.9, 4), rng.uniform(0.2, 0.9, (3, 1))
    df = srcad.grad(f, wrt=("x", "w"))
    gx, gw = df(x, w)
    np.testing.assert_allclose(gx, central(f, (x, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, central(f, (x, w), 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gx, autograd.grad(twin, 0)(x, w), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gw, autograd.grad(twin, 1)(x, w), rtol=1e-12, atol=1e-14)
    assert ").size" not in srcad.source(df)
    hess = srcad.hessian(f)(x, w)  # the code read again
    np.testing.assert_allclose(hess, autograd.hessian(twin, 0)(x, w), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("program", ["fill", "grid", "rows_filled"] if not LONG else sorted(
    ZEROED_IN_PLACE | {"rows_filled", "sum_only"}))
def test_the_fills_second_order_against_central_differences_of_the_gradient(load_module,
                                                                            program):
    """The Hessian (the code read again: its plain form keeps its copies, and the backward
    sweep's zeroing in place is read as a write) against central differences of the
    gradient, itself checked above."""
    f = load_module(f"fills_h_{program}", "import numpy as np\n" + PROGRAMS[program][0]).f
    rng = np.random.default_rng(7)
    x, w = rng.uniform(0.2, 0.9, 4), rng.uniform(0.2, 0.9, 4)
    hess = srcad.hessian(f)(x, w)
    gx, h = srcad.grad(f), 1e-6
    rows = [(gx(x + h * e, w) - gx(x - h * e, w)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(hess, np.array(rows), rtol=1e-5, atol=1e-6)
