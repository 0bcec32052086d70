"""The Numba backend (``backend="numba"``): a generated family of loop and branch functions of a
float and a 1-D array, each gradient compared with the Python backend (to 1e-12) and with
central finite differences; the benchmark's W2/W3 loops; and the refusals, which come before
Numba compiles anything. Skipped where numba is not installed (``pip install "srcad[numba]"``),
but for the test of that refusal."""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from sampling import sample

import srcad
from srcad.backend import numba_backend
from srcad.errors import SrcadError

needs_numba = pytest.mark.skipif(not numba_backend.available(), reason="numba not installed")

LOOPS = {
    "for": ("for i in range(len(y)):", "    v = y[i]", []),
    "down": ("for i in range(len(y) - 1, -1, -1):", "    v = y[i]", []),
    "while": ("while i < len(y) and abs(s) < 4.0:", "    v = y[i]", ["    i += 1"]),
    "nested": ("for j in range(2):\n    for i in range(len(y)):", "        v = y[i] * (j + 1)",
               []),
}

BRANCHES = {
    "plain": ["s = {a}"],
    "on value": ["if v > x:", "    s = {a}", "else:", "    s = {b}"],
    "on state": ["if s > 0.3:", "    s = {a}", "elif v < 0.0:", "    s = {b}", "else:",
                 "    s = s + 0.5 * v"],
}

UPDATES = [
    ("s * 0.9 + math.sin(v * x)", "s - math.exp(x * v) * 0.1"),
    ("math.tanh(s + v * x)", "s + v * v * x"),
    ("s * math.cos(x) + v / (1.0 + x * x)", "max(s, v) * x + math.sqrt(1.0 + v * v)"),
]


def _function(name, loop, branch, update):
    head, first, tail = LOOPS[loop]
    pad = "        " if loop == "nested" else "    "
    body = [pad + line.format(a=update[0], b=update[1]) for line in BRANCHES[branch]]
    lines = [f"def {name}(x, y):", "    s = 0.25", "    i = 0"]
    lines += ["    " + line for line in head.split("\n")]
    lines += ["    " + first] + ["    " + line for line in body]
    lines += ["    " + line for line in tail]
    lines.append("    return s * x + s")
    return "\n".join(lines)


CASES = [(f"f_{k}", loop, branch, update) for k, (loop, branch, update) in enumerate(
    itertools.product(LOOPS, BRANCHES, UPDATES))]


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    """The family written to a module (srcad reads source) and imported."""
    path = tmp_path_factory.mktemp("numba_family") / "numba_family.py"
    path.write_text("import math\n\n\n" + "\n\n\n".join(
        _function(*case) for case in CASES) + "\n")
    spec = importlib.util.spec_from_file_location("numba_family", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["numba_family"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("numba_family", None)


def _fd(f, x, y, h=1e-6):
    dx = (f(x + h, y) - f(x - h, y)) / (2 * h)
    dy = np.zeros_like(y)
    for k in range(len(y)):
        e = np.zeros_like(y)
        e[k] = h
        dy[k] = (f(x, y + e) - f(x, y - e)) / (2 * h)
    return dx, dy


def _close(a, b, tol):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


@needs_numba
@pytest.mark.parametrize("case", sample(CASES, 2), ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_family_matches_python_backend_and_finite_differences(family, case):
    f = getattr(family, case[0])
    rng = np.random.default_rng(int(case[0][2:]))  # f_<k>: a fixed seed per case
    fast = srcad.value_and_grad(f, wrt=("x", "y"), backend="numba")
    slow = srcad.value_and_grad(f, wrt=("x", "y"))
    for _ in range(3):
        x, y = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=5)
        value, (dx, dy) = fast(x, y)
        ref_value, (ref_dx, ref_dy) = slow(x, y)
        assert math.isclose(value, f(x, y), rel_tol=1e-12, abs_tol=1e-12)
        assert _close(dx, ref_dx, 1e-12) and _close(dy, ref_dy, 1e-12)
        fd_dx, fd_dy = _fd(f, x, y)
        assert _close(dx, fd_dx, 1e-5) and _close(dy, fd_dy, 1e-5)
    text = srcad.source(srcad.grad(f, wrt=("x", "y"), backend="numba"), x, y)
    assert "reversed(" not in text and ".append((" not in text  # one stack per value


def _workloads():
    """benchmarks/workloads.py (W2 and W3, and their hand-written gradients), imported by path."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "workloads.py"
    spec = importlib.util.spec_from_file_location("srcad_benchmark_workloads", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


WORKLOADS = _workloads()
w2, w3 = WORKLOADS.w2, WORKLOADS.w3


@needs_numba
@pytest.mark.parametrize("x", [0.3, -1.2, 2.5])
def test_benchmark_loops(x):
    for f, hand in ((w2, WORKLOADS.w2_grad), (w3, WORKLOADS.w3_grad)):
        got = srcad.grad(f, backend="numba")(x)
        assert math.isclose(got, srcad.grad(f)(x), rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(got, hand(x), rel_tol=1e-10, abs_tol=1e-12)
        h = 1e-6
        assert math.isclose(got, (f(x + h) - f(x - h)) / (2 * h), rel_tol=1e-6, abs_tol=1e-8)
    assert math.isclose(srcad.grad(w3, backend="numba")(x), math.exp(x), rel_tol=1e-9)


@needs_numba
def test_decorator_and_integer_argument():
    @srcad.grad(backend="numba")
    def g(x, n=20):
        for _ in range(n):
            x = x * 0.5 + math.sin(x)
        return x

    assert math.isclose(g(0.7), srcad.grad(g.__wrapped__)(0.7), rel_tol=1e-12)
    assert math.isclose(g(0.7, 5), srcad.grad(g.__wrapped__)(0.7, 5), rel_tol=1e-12)


GLOBAL_SCALE = 2.0


def _uses_global(x):
    return x * GLOBAL_SCALE


def _calls_user_function(x):
    return _uses_global(x) + 1.0


def _recursive(x, k):
    if k <= 0:
        return x
    return x * _recursive(x, k - 1)


def _calls_recursive(x):
    return _recursive(x, 3) + x


def _uses_linalg(x):
    return np.linalg.norm(x)


def _builds_mixed_list(x):
    items = [x, 1]
    return items[0] * x


@needs_numba
@pytest.mark.parametrize("f, arg, words", [
    # (read by the function itself, a global number is passed at each call: compiled)
    (_calls_user_function, 1.0, "global value 'GLOBAL_SCALE'"),  # in the callee
    (_calls_recursive, 1.0, "a recursive call"),
    (_uses_linalg, np.ones(3), "numpy.linalg"),
    (_builds_mixed_list, 1.0, "a list display"),
])
def test_refused_before_compiling(f, arg, words):
    with pytest.raises(SrcadError, match=words) as info:
        srcad.grad(f, backend="numba")(arg)
    assert info.value.filename == __file__ and info.value.lineno is not None
    assert "backend='python'" in str(info.value)


@needs_numba
def test_refused_options():
    with pytest.raises(SrcadError, match="unknown backend"):
        srcad.grad(w3, backend="jax")
    with pytest.raises(SrcadError, match="has_aux"):
        srcad.grad(w3, has_aux=True, backend="numba")


def test_without_numba(monkeypatch):
    monkeypatch.setattr(numba_backend, "available", lambda: False)
    with pytest.raises(SrcadError, match=r"srcad\[numba\]"):
        srcad.grad(w3, backend="numba")


def _sum_of_sines(x, y):
    s = 0.0
    for i in range(len(y)):
        s = s + math.sin(y[i] * x)
    return s


@needs_numba
def test_other_dtypes_and_ranks():
    g = srcad.grad(_sum_of_sines, wrt=("x", "y"), backend="numba")
    reference = srcad.grad(_sum_of_sines, wrt=("x", "y"))
    y = np.linspace(-1.0, 1.0, 4)
    for args in [(0.3, y), (0.3, y.astype(np.float32)), (2, y)]:
        (dx, dy), (ref_dx, ref_dy) = g(*args), reference(*args)
        assert math.isclose(dx, ref_dx, rel_tol=1e-12) and _close(dy, ref_dy, 1e-12)
        assert dy.dtype == ref_dy.dtype
    with pytest.raises(SrcadError, match="Numba could not compile"):  # a row is no number
        g(0.3, np.ones((2, 2)))


def _domain_sqrt(x):
    return math.sqrt(x - 2.0) * x


def _domain_log(x):
    s = 0.0
    for k in range(3):
        s = s + math.log(x - k)
    return s


def _range_exp(x):
    return math.exp(x * 1000.0)


def _power_fraction(x):
    return (x - 3.0) ** 0.5


def _power_zero(x):
    return (x - x) ** -1.5


@needs_numba
@pytest.mark.parametrize("f, arg", [(_domain_sqrt, 1.0), (_domain_log, 1.5), (_range_exp, 2.0),
                                    (_power_fraction, 1.0), (_power_zero, 1.0)])
def test_python_float_errors_are_kept(f, arg):
    """Where Python raises (math domain and range errors, ``**``), the Numba gradient raises
    the same kind of error instead of returning nan or inf."""
    try:
        srcad.grad(f)(arg)
    except srcad.SrcadError:  # ** of a negative float is complex: the Python backend refuses
        expected = ValueError  # its gradient (check_real), Numba's ** raises
    except (ValueError, OverflowError, ZeroDivisionError, TypeError) as exc:
        expected = type(exc)
    else:
        pytest.fail("the Python backend returned a gradient")
    with pytest.raises(expected if expected is not TypeError else ValueError):
        srcad.grad(f, backend="numba")(arg)


def _power_both(x, y):
    return x ** y + 2.0 ** x


@needs_numba
@pytest.mark.parametrize("x, y", [(1.5, 2.0), (0.0, 2.0), (-2.0, 2.0)])
def test_differentiated_exponent(x, y):
    """``d/dy x ** y`` takes ``log(x)`` (srcad's log_base): as the Python backend's where the
    base is not negative; at a negative base, where a real function has no derivative in
    its exponent, both give nan there (as NumPy, autograd and JAX)."""
    numba_grad = srcad.grad(_power_both, wrt=(0, 1), backend="numba")
    expected = srcad.grad(_power_both, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(numba_grad(x, y), expected, rtol=1e-12, atol=1e-12)
    if x < 0:
        assert np.isnan(expected[1]) and np.isfinite(expected[0])
        return
    h = 1e-6
    fd_y = (_power_both(x, y + h) - _power_both(x, y - h)) / (2 * h)
    assert abs(expected[1] - fd_y) < 1e-6


@needs_numba
@pytest.mark.parametrize("x", [0.4, -1.3])
def test_derivative_of_a_numba_gradient(x):
    """A Numba gradient differentiated again (by the Python backend) reads its Python code."""
    def f(x):
        s = x
        for _ in range(5):
            s = math.sin(s) * x + s * 0.5
        return s

    inner = srcad.grad(f, backend="numba")
    second = srcad.grad(inner)(x)
    assert math.isclose(second, srcad.grad(srcad.grad(f))(x), rel_tol=1e-12, abs_tol=1e-12)
    h = 1e-5
    assert math.isclose(second, (inner(x + h) - inner(x - h)) / (2 * h), rel_tol=1e-6,
                        abs_tol=1e-8)
    with pytest.raises(SrcadError, match="derivative of a derivative"):
        srcad.grad(inner, backend="numba")


# ---------------------------------------------------------------- values kept, math hoisted


def _carried_sine(x):
    for _ in range(5):
        x = x * 0.999 + math.sin(x) * x
    return x


def _carried_while(x):
    k = 0
    while x < 3.0 and k < 50:
        x = x + math.exp(-x) * 0.5
        k += 1
    return x


def _carried_branch(x, y):
    for i in range(len(y)):
        if y[i] > 0.0:
            x = math.cos(x * y[i]) + x
        else:
            x = x * math.sqrt(1.0 + y[i] * y[i])
    return x


@needs_numba
@pytest.mark.parametrize("f", [_carried_sine, _carried_while, _carried_branch, w2])
def test_value_of_a_loop_carried_result(f):
    """value_and_grad returns the function's value, not the value the backward code restored
    into the same name (the Numba backend reads its stacks with plain assignments)."""
    rng = np.random.default_rng(7)
    for _ in range(3):
        args = (float(rng.uniform(-1.0, 1.0)),)
        if f is _carried_branch:
            args += (rng.uniform(-1.0, 1.0, size=4),)
        value, grad = srcad.value_and_grad(f, backend="numba")(*args)
        ref_value, ref_grad = srcad.value_and_grad(f)(*args)
        assert value == f(*args) == ref_value
        assert _close(grad, ref_grad, 1e-12)
        h = 1e-6
        fd = (f(args[0] + h, *args[1:]) - f(args[0] - h, *args[1:])) / (2 * h)
        assert math.isclose(grad, fd, rel_tol=1e-5, abs_tol=1e-7)


@needs_numba
def test_math_of_saved_values_is_computed_forward():
    """W2's backward sweep needs cos of each step's x: the forward code computes and saves it,
    the backward loop reads it (and x itself is no longer saved)."""
    text = srcad.source(srcad.grad(w2, backend="numba"), 0.5)
    forward, backward = text.split("# backward")
    assert "cos_apart(x_1)" in forward and "cos(" not in backward
    assert "saved_x_1" not in text
    assert "np.empty(len(range(n)))" in forward and ".append(" not in forward  # preallocated


@needs_numba
def test_cosine_taken_apart_is_pythons():
    """The hoisted cosine (cos(x + 0.0), kept from fusing with the forward's sine) gives
    math.cos's number everywhere, -0.0, subnormals and huge values included, and raises where
    math.cos does."""
    from srcad.backend import numba_helpers

    cos_apart = numba_helpers.helper("math.cos_apart")
    rng = np.random.default_rng(3)
    values = [0.0, -0.0, 5e-324, -5e-324, 1e300, -1e300, 1e22, math.pi, -math.pi / 2, 7,
              -3, True, *rng.standard_normal(50) * 10.0 ** rng.integers(-8, 9, 50)]
    for v in values:
        assert cos_apart(v) == math.cos(v), v
    assert math.isnan(cos_apart(math.nan))
    for v in (math.inf, -math.inf):
        with pytest.raises(ValueError):
            cos_apart(v)
        with pytest.raises(ValueError):
            math.cos(v)


def _counted_loops(x, n=7):
    s = x
    for _ in range(n):  # a break: the pushes are not counted in advance
        s = s * 0.9 + math.sin(s)
        if s > 1.9:
            break
    for i in range(1, n, 3):  # a step, and a continue
        if i % 2 == 0:
            continue
        s = s * 0.9 + math.sin(s * i)
    for _ in range(n - 9):  # empty for n < 10
        s = math.cos(s)
    return s * x


@needs_numba
@pytest.mark.parametrize("x, n", [(0.3, 7), (1.5, 30), (0.4, 12), (0.2, 0), (0.6, -2)])
def test_preallocated_stacks_match_python_backend(x, n):
    got = srcad.grad(_counted_loops, backend="numba")(x, n)
    assert math.isclose(got, srcad.grad(_counted_loops)(x, n), rel_tol=1e-12, abs_tol=1e-12)


def _indexes_past_the_end(x, y):
    s = x
    for i in range(len(y) + 1):  # y[len(y)]: IndexError in Python
        s = math.sin(s) * y[i]
    return s


@needs_numba
def test_bounds_checked_where_the_user_indexes(monkeypatch):
    """Only code that indexes nothing but srcad's own stacks is compiled without bounds checks
    (its indices are in range by construction); the user's indexing raises IndexError, as in
    Python."""
    flags = []
    jit = numba_backend.jit

    def recording(*args, **kwargs):
        flags.append(kwargs.get("boundscheck", True))
        return jit(*args, **kwargs)

    monkeypatch.setattr(numba_backend, "jit", recording)
    srcad.clear_cache()  # made again, not taken from srcad's cache
    assert srcad.grad(_counted_loops, backend="numba")(0.3, 12) == srcad.grad(
        _counted_loops)(0.3, 12)
    with pytest.raises(IndexError):
        _indexes_past_the_end(0.3, np.ones(3))
    with pytest.raises(IndexError):
        srcad.grad(_indexes_past_the_end, backend="numba")(0.3, np.ones(3))
    assert flags == [False, True]


@needs_numba
def test_gradient_calls_the_compiled_code_directly():
    g = srcad.grad(w3, backend="numba")
    assert g(0.5) == srcad.grad(w3)(0.5)
    assert g.__srcad_inlined__ is not None  # the entry point, behind the float check
    assert math.isclose(g(1), math.exp(1.0), rel_tol=1e-9)  # an int: through the lookup
    srcad.clear_cache()
    assert g.__srcad_inlined__ is None
    assert g(0.25) == srcad.grad(w3)(0.25)


def _sin_of_infinity(x):
    return math.sin(x) * x


def _floor_far(x):
    return (x - math.floor(x)) * x


@needs_numba
def test_math_that_raises_in_python_raises_under_numba():
    with pytest.raises(ValueError):
        srcad.grad(_sin_of_infinity)(math.inf)
    with pytest.raises(ValueError):
        srcad.grad(_sin_of_infinity, backend="numba")(math.inf)
    g = srcad.grad(_floor_far, backend="numba")
    assert g(2.75) == srcad.grad(_floor_far)(2.75)
    srcad.grad(_floor_far)(1e300)  # exact in Python; past int64 under Numba: refused
    with pytest.raises(OverflowError, match="int64"):
        g(1e300)


# ---------------------------------------------------------------- arrays of rank 2


def _elements(x, a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s = s * 0.9 + math.sin(a[i, j] * x)
    return s


def _rows_feed_back(x, a):
    s = x
    for i in range(a.shape[0]):
        s = s + np.sum(a[i] * s) * 0.1
    return s


def _row_dot(x, a):
    s = 0.0
    for i in range(a.shape[0]):
        row = np.tanh(a[i] * x)
        s = s + np.dot(row, row)
    return s


def _rows_while_branch(x, a):
    s = 0.5
    i = 0
    while i < a.shape[0] and s < 10.0:
        if a[i, 0] > 0.0:
            s = s + np.sum(np.exp(a[i] * x))
        else:
            s = s * math.cos(a[i, 1] + x)
        i += 1
    return s


def _row_slices(x, a):
    s = 0.0
    for i in range(a.shape[0]):
        s = s + np.sum(a[i, 1:] * a[i, :-1]) * x
    return s


def _fd_matrix(f, x, a, h=1e-6):
    dx = (f(x + h, a) - f(x - h, a)) / (2 * h)
    da = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[index] = h
        da[index] = (f(x, a + e) - f(x, a - e)) / (2 * h)
    return dx, da


@needs_numba
@pytest.mark.parametrize("shape", [(3, 4), (2, 2), (5, 3)])
@pytest.mark.parametrize("f", [_elements, _rows_feed_back, _row_dot, _rows_while_branch,
                               _row_slices])
def test_matrices_match_python_backend_and_finite_differences(f, shape):
    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    fast = srcad.grad(f, wrt=(0, 1), backend="numba")
    slow = srcad.grad(f, wrt=(0, 1))
    for _ in range(2):
        x, a = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=shape)
        (dx, da), (ref_dx, ref_da) = fast(x, a), slow(x, a)
        assert _close(dx, ref_dx, 1e-12) and _close(da, ref_da, 1e-12)
        fd_dx, fd_da = _fd_matrix(f, x, a)
        assert _close(dx, fd_dx, 1e-5) and _close(da, fd_da, 1e-5)


def _sum_over_axis(x, a):
    s = 0.0
    for _ in range(a.shape[0]):
        s = s + np.sum(a * x, axis=(0, 1))  # one int axis is compiled (test_numba_axes)
    return s


def _matrix_dot(x, a):
    return np.sum(np.dot(a, a) * x)


@needs_numba
def test_matrix_product_of_known_ranks():
    """``np.dot`` of two matrices: its gradient is written with ``@`` (the rule's templates
    for these ranks), which Numba compiles."""
    rng = np.random.default_rng(7)
    fast = srcad.grad(_matrix_dot, wrt=(0, 1), backend="numba")
    x, a = 0.5, rng.uniform(-1.0, 1.0, size=(3, 3))
    (dx, da), (ref_dx, ref_da) = fast(x, a), srcad.grad(_matrix_dot, wrt=(0, 1))(x, a)
    assert _close(dx, ref_dx, 1e-12) and _close(da, ref_da, 1e-12)
    fd_dx, fd_da = _fd_matrix(_matrix_dot, x, a)
    assert _close(dx, fd_dx, 1e-5) and _close(da, fd_da, 1e-5)


@needs_numba
@pytest.mark.parametrize("f, words, shape", [(_sum_over_axis, "could not compile", (2, 2)),
                                             (_matrix_dot, "could not compile", (2, 2, 2))])
def test_matrix_operations_without_a_numba_gradient_are_refused(f, words, shape):
    with pytest.raises(SrcadError, match=words) as info:
        srcad.grad(f, wrt=(0, 1), backend="numba")(0.5, np.ones(shape))
    assert "backend='python'" in str(info.value)


# ---------------------------------------------------------------- vjp and jvp


def _writes_rows(x, y):
    out = np.zeros_like(y)
    s = x
    for i in range(len(y)):
        s = math.sin(s + y[i])
        out[i] = s * x
    return out


@needs_numba
@pytest.mark.parametrize("case", CASES[::5], ids=lambda c: c[0])
def test_vjp_and_jvp_of_the_family(family, case):
    f = getattr(family, case[0])
    rng = np.random.default_rng(100 + int(case[0][2:]))
    for _ in range(2):
        x, y = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=5)
        tx, ty = float(rng.normal()), rng.normal(size=5)
        value, tangent = srcad.jvp(f, (x, y), (tx, ty), backend="numba")
        ref_value, ref_tangent = srcad.jvp(f, (x, y), (tx, ty))
        assert value == ref_value and _close(tangent, ref_tangent, 1e-12)
        h = 1e-6
        fd = (f(x + h * tx, y + h * ty) - f(x - h * tx, y - h * ty)) / (2 * h)
        assert _close(tangent, fd, 1e-5)
        dy = float(rng.normal())
        value, pullback = srcad.vjp(f, x, y, backend="numba")
        (gx, gy), (ref_gx, ref_gy) = pullback(dy), srcad.vjp(f, x, y)[1](dy)
        assert value == ref_value
        assert _close(gx, ref_gx, 1e-12) and _close(gy, ref_gy, 1e-12)
        assert _close(gx * tx + np.dot(gy, ty), dy * fd, 1e-5)  # <vjp, t> = <dy, jvp>


@needs_numba
def test_vjp_and_jvp_of_an_array_function():
    rng = np.random.default_rng(3)
    for _ in range(3):
        x, y = float(rng.uniform(-1.0, 1.0)), rng.uniform(-1.0, 1.0, size=4)
        tx, ty, dy = float(rng.normal()), rng.normal(size=4), rng.normal(size=4)
        value, tangent = srcad.jvp(_writes_rows, (x, y), (tx, ty), backend="numba")
        ref_value, ref_tangent = srcad.jvp(_writes_rows, (x, y), (tx, ty))
        assert _close(value, ref_value, 0.0) and _close(tangent, ref_tangent, 1e-12)
        h = 1e-6
        fd = (_writes_rows(x + h * tx, y + h * ty) - _writes_rows(x - h * tx, y - h * ty)) / (
            2 * h)
        assert _close(tangent, fd, 1e-5)
        _, pullback = srcad.vjp(_writes_rows, x, y, backend="numba")
        (gx, gy), (ref_gx, ref_gy) = pullback(dy), srcad.vjp(_writes_rows, x, y)[1](dy)
        assert _close(gx, ref_gx, 1e-12) and _close(gy, ref_gy, 1e-12)
        assert _close(gx * tx + np.dot(gy, ty), np.dot(dy, fd), 1e-5)


@needs_numba
def test_vjp_and_jvp_refusals():
    with pytest.raises(SrcadError, match="has_aux"):
        srcad.vjp(w3, 0.5, has_aux=True, backend="numba")
    with pytest.raises(SrcadError, match="global value 'GLOBAL_SCALE'"):  # in the callee
        srcad.jvp(_calls_user_function, (1.0,), (1.0,), backend="numba")
    with pytest.raises(SrcadError, match="unknown backend"):
        srcad.jvp(w3, (1.0,), (1.0,), backend="jax")
