"""The generated text of small functions a NumPy user writes reads as a careful person would
write it by hand, and the gradients stay exact: each text property is asserted beside central
differences (tests/twin_checks.central) and the tape (:mod:`srcad.tape`), over a generated
family (a few sizes and scales by default, more under ``SRCAD_LONG_PROPERTIES=1``)."""

import math

import numpy as np
import pytest
from sampling import LONG
from twin_checks import central, close

import srcad
from srcad import tape


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def sigmoid_np(x):
    return 1.0 / (1.0 + np.exp(-x))


def helper_times(x):
    return sigmoid(x) * x


def helper_times_np(x):
    return np.sum(sigmoid_np(x) * x)


def two_terms(x, y):
    return math.sin(x) * math.exp(y) + math.log(x * y)


def min_max(x, y):
    return max(x, y) * min(x, y)


def augmented(x):
    y = x
    y += 2.0
    y *= x
    return y


def _check(f, args, wrt):
    ours = srcad.grad(f, wrt=wrt)(*args)
    ours = ours if isinstance(wrt, tuple) else (ours,)
    ks = wrt if isinstance(wrt, tuple) else (wrt,)
    theirs = tape.grad(f, wrt=wrt)(*args)
    theirs = theirs if isinstance(wrt, tuple) else (theirs,)
    for k, got, other in zip(ks, ours, theirs):
        arrays = [np.asarray(a, float) for a in args]
        want = central(lambda *a: f(*[float(v) if np.ndim(v) == 0 and np.ndim(args[i]) == 0
                                       else v for i, v in enumerate(a)]), arrays, k)
        assert close(got, want, 1e-6), (f.__name__, args, got, want)
        assert close(got, other, 1e-12), (f.__name__, args, got, other)


POINTS = [0.3, 0.7, 1.3, 2.1, 0.45, 1.9] if LONG else [0.3, 1.3]


@pytest.mark.parametrize("x", POINTS)
def test_a_sum_merges_across_a_callees_pullback(x):
    """``dx = v * 1.0``, ``dx_part = g_bwd(...)``, ``dx += dx_part`` is ``dx = v + dx_part``:
    the copy was only there for the in-place add."""
    g = srcad.grad(helper_times)
    _check(helper_times, (x,), 0)
    text = srcad.source(g, x)
    assert "* 1.0" not in text and "dx +=" not in text
    _check(two_terms, (x, x + 0.5), (0, 1))
    assert "dx +=" not in srcad.source(srcad.grad(two_terms, wrt=(0, 1)), x, x + 0.5)
    _check(min_max, (x, 1.0 - x), (0, 1))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8] if LONG else [1, 3])
def test_a_merged_sum_of_arrays_changes_no_forward_value(n):
    x = np.linspace(-1.0, 1.0, n) + 0.1
    value, grad = srcad.value_and_grad(helper_times_np)(x)
    assert value == helper_times_np(x)
    assert close(grad, central(helper_times_np, (x,), 0), 1e-6)
    assert close(grad, tape.grad(helper_times_np)(x), 1e-12)
    assert "* 1.0" not in srcad.source(srcad.grad(helper_times_np), x)


@pytest.mark.parametrize("x", POINTS)
def test_no_line_comment_is_left_without_its_code(x):
    """``# line 5: y += 2.0`` whose code went (``y`` is ``x + 2.0``, read as it is) is not
    printed right before the ``return``."""
    text = srcad.source(srcad.grad(augmented), x)
    lines = text.splitlines()
    for k, line in enumerate(lines[:-1]):
        if line.strip().startswith("# line"):
            assert not lines[k + 1].strip().startswith("return"), text
    _check(augmented, (x,), 0)


def skip_negatives(xs):
    s = 0.0
    for v in xs:
        if v < 0:
            continue
        s += v * v
    return s


def grow_until(x):
    s = x
    for _ in range(10):
        s = s * 1.1
        if s > 5.0:
            break
    return s


def rows_skipped(m):
    s = 0.0
    for row in m:
        if row < 0.0:  # a row of two: an ambiguous truth, the user's function raises
            continue
        s += np.sum(row)
    return s


VECTORS = [np.array(v) for v in ([1.0, -2.0, 3.0], [-0.5], [0.2, 0.4], [-1.0, -2.0, 0.5, 2.5],
                                 [3.0, -0.1, 0.0, 1.5, -4.0])]


@pytest.mark.parametrize("xs", VECTORS if LONG else VECTORS[::2], ids=str)
def test_a_continue_flag_is_the_test_itself(xs):
    """``if t_1: skip_1 = True else: skip_1 = False`` is ``skip_1 = t_1`` (read only by
    ``not``)."""
    _check(skip_negatives, (xs,), 0)
    text = srcad.source(srcad.grad(skip_negatives), xs)
    assert "skip_1 = True" not in text and "skip_1 = False" not in text


@pytest.mark.parametrize("x", POINTS + [4.9, 6.0])
def test_a_break_flag_is_not_carried_round_the_loop(x):
    """The desugared ``break``'s ``broke`` (``False`` at the top of every iteration) is not
    written: ``broke_1 = s_1 > 5.0 ... if broke_1: break``."""
    _check(grow_until, (x,), 0)
    text = srcad.source(srcad.grad(grow_until), x)
    assert "broke = " not in text and "broke_1 = True" not in text


def test_an_ambiguous_test_still_raises():
    m = np.array([[1.0, -2.0], [3.0, 4.0]])
    with pytest.raises(ValueError):
        rows_skipped(m)
    with pytest.raises(ValueError):
        srcad.grad(rows_skipped)(m)


def newton(a):
    y = a
    for _ in range(5):
        y = 0.5 * (y + a / y)
    return y


@pytest.mark.parametrize("a", [2.0, 0.5, 9.0, 3.3] if LONG else [2.0, 0.5])
def test_a_sum_merges_across_an_add_into_an_unshared_gradient(a):
    """``dy = dt_1; da += dt_1 / y; dy = dy - dt_1 * t / y`` is ``da += dt_1 / y; dy = dt_1 -
    dt_1 * t / y``: ``da`` (``0.0``, then only added to, read where returned) shares its
    value with no other name."""
    _check(newton, (a,), 0)
    text = srcad.source(srcad.grad(newton), a)
    assert not any(line.strip() == "dy = dt_1" for line in text.splitlines()), text


def cos_line(x):
    return math.cos(x) * 2.0 - 3.0 * x


def cubic(x):
    return 3.0 * x ** 3 - 2.0 * x + 1.0


def log_cos_cos(x):
    return np.sum(np.log(np.cos(np.cos(x))) * x)


@pytest.mark.parametrize("x", POINTS)
def test_no_sum_of_a_negated_product(x):
    """``a + -b * c`` is ``a - b * c`` and ``-(-a * b)`` is ``a * b``, in both modes."""
    _check(cos_line, (x,), 0)
    _check(cubic, (x,), 0)
    texts = [srcad.source(srcad.grad(cos_line), x),
             srcad.api.jvp_source(cubic, x), srcad.api.jvp_source(cos_line, x)]
    v = np.array([x, x / 2, -x])
    assert close(srcad.grad(log_cos_cos)(v), central(log_cos_cos, (v,), 0), 1e-6)
    assert close(srcad.grad(log_cos_cos)(v), tape.grad(log_cos_cos)(v), 1e-12)
    texts.append(srcad.source(srcad.grad(log_cos_cos), v))
    _, tangent = srcad.jvp(cubic, (x,), (1.0,))
    assert close(tangent, 9.0 * x ** 2 - 2.0, 1e-12)
    for text in texts:
        assert "+ -" not in text and "-(-" not in text, text


def first_negative(x):
    for i in range(len(x)):
        if x[i] < 0:
            return x[i] * 2.0
    return np.sum(x)


def absolute(x):
    if x < 0:
        return -x
    return x


@pytest.mark.parametrize("xs", VECTORS if LONG else VECTORS[::2], ids=str)
def test_a_test_used_once_is_written_into_its_if(xs):
    """``t_3 = not returned`` then ``if t_3:`` is ``if not returned:``; ``t = x < 0.0``
    then the backward sweep's ``if t:`` is ``if x < 0.0:``."""
    _check(first_negative, (xs,), 0)
    text = srcad.source(srcad.grad(first_negative), xs)
    assert "if not returned:" in text and "= not returned" not in text, text
    for x in (-1.5, 0.7):
        _check(absolute, (x,), 0)
    assert "if x < 0.0:" in srcad.source(srcad.grad(absolute), 0.7)
    with pytest.raises(ValueError):  # an array's truth still raises
        srcad.grad(absolute)(np.array([1.0, -1.0]))


def products_of_items(x):
    return np.sum(np.array([x[0] * x[1], np.sin(x[0]), x[1] ** 2]) * np.array([1.0, 2.0, 3.0]))


def cross_like(a, b):
    return a[1] * b[2] - a[2] * b[1] + np.cos(a[1]) * b[2]


@pytest.mark.parametrize("scale", [0.3, 1.7, -0.9, 2.5] if LONG else [0.3, -0.9])
def test_an_item_read_twice_is_read_once(scale):
    """``t = x[0]`` ... ``t_3 = x[0]`` (nothing between changing ``x``) is ``t``."""
    x = np.array([1.0, 2.0]) * scale
    _check(products_of_items, (x,), 0)
    text = srcad.source(srcad.grad(products_of_items), x)
    assert sum(line.strip().endswith("= x[0]") for line in text.splitlines()) == 1, text
    a, b = np.array([0.5, 1.0, -2.0]) * scale, np.array([1.5, -0.5, 2.0])
    _check(cross_like, (a, b), (0, 1))
