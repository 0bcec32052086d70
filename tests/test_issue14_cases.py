"""Every concrete case listed under "What was seen" in issue 14, written as the issue wrote it.

Each is checked the way the issue's "Done when" asks: the value Python gives, and the gradient
by central finite differences (``srcad.check.numerical_grad``), or a SrcadError naming a line
of the function. ``EXPECT`` says which of the two each case gives today, so a case that starts
being refused (or, worse, wrong) fails here. The larger families around each class live in the
files listed in docs/how-it-works.md ("Issue 14, case by case").
"""

from __future__ import annotations

import functools
import inspect
import linecache
import sys

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad

# ---------------------------------------------------------------- defaulting to "constant"


def twice(*args):
    return args[0] * 2.0


def star_args(x):
    return twice(x * x)


def r_(x):
    return np.sum(np.r_[x, x] ** 2)


def c_(x):
    return np.sum(np.c_[x, x * 2.0] ** 2)


def linspace(x):
    return np.sum(np.linspace(x, 3.4, 5) ** 2)


def einsum_sublist(x):
    A = np.outer(x, x + 1.0)
    return np.sum(np.einsum(A, (0, 1), (1, 0)) * np.arange(9.0).reshape(3, 3))


def multiply_out(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return np.sum(y * x)


def cumsum_out(x):
    y = np.zeros(3)
    np.cumsum(x, out=y)
    return np.sum(y ** 2)


def add_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 2, 2], x)
    return np.sum(y ** 2)


def copyto(x):
    y = np.zeros(3)
    np.copyto(y, x * x)
    return np.sum(y * x)


def put(x):
    y = np.zeros(3)
    np.put(y, [0, 2], x[:2] * 3.0)
    return np.sum(y ** 2)


def list_insert(x):
    L = [x, 2.0]
    L.insert(0, x * x)
    return L[0] * L[1] + L[2]


MODULE_LIST = []


def append_global(x):
    MODULE_LIST.append(x * x)
    return MODULE_LIST[-1] * 2.0


def exp_out(x):
    y = x.copy()
    np.exp(y, out=y)
    return np.sum(y)


# ---------------------------------------------------------------- writes the analysis does not see


def view_write(x):
    a = x * 1.0
    b = a[:2]
    b[0] = 5.0
    return np.sum(a * x)


def view_augment(x):
    a = x * 1.0
    b = a[1:]
    b += x[:2]
    return np.sum(a * x)


def reshape_write(x):
    a = x * 1.0
    b = a.reshape(3)
    b[1] = 2.0
    return np.sum(a * x)


def transpose_write(x):
    a = x * 1.0
    b = a.T
    b[2] = x[0]
    return np.sum(a * x)


def fancy_set(x):
    y = np.zeros(3)
    idx = [0, 2, 2]
    y[idx] = x
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def fancy_augment(x):
    y = np.zeros(3)
    idx = [0, 2, 2]
    y[idx] += x
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def sort_then_read(x):
    b = x * 1.0
    b.sort()
    return b[0] * x[1]


def array_mutated_while_iterated(x):
    b = x * 1.0
    s = 0.0
    for e in b:
        b *= 2.0
        s = s + e
    return s


def list_appended_while_iterated(x):
    L = [x[0], x[1]]
    s = 0.0
    for e in L:
        if len(L) < 4:
            L.append(e * 2.0)
        s = s + e * e
    return s


# ---------------------------------------------------------------- stale or skipped facts


def triple(fn):
    @functools.wraps(fn)
    def w(t):
        return 3.0 * fn(t)
    return w


def plus_one(fn):
    @functools.wraps(fn)
    def w(t):
        return fn(t) + 1.0
    return w


@triple
def decorated(x):
    return x * x


@plus_one
@triple
def stacked(x):
    return x * x


def inner(t):
    return t ** 3


def nested_grad(x):
    g = srcad.grad(inner)
    return g(x)


def max_in_loop(x):
    L = []
    for i in range(4):
        L.append(max(i, x) * x)
    return L[0] + 2.0 * L[1] + 3.0 * L[2] + 4.0 * L[3]


def slice_object(x):
    xs = [x[0], x[1], x[2]]
    s = slice(None, -1)
    y = xs[s]
    return y[0] * 2.0 + y[1]


def std_of_scalar(x):
    return np.std(x) + x


# ---------------------------------------------------------------- crashes


def abs_item(x):
    return abs(x[1]) * 2.0 + abs(np.sum(x))


def early(x, n):
    if n < 0:
        return x
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            x = x * 1.1
    return x


def early_return_helper(x):
    return early(x, 3) + early(x, -1)


def inner_list(params):
    return params[0] * params[1]


def mid(params):
    return inner_list(params) * 2.0


def through_two_calls(x):
    return mid([x, x * x])


k = 5.0


def uses_k(k):
    return k * k


def global_named_like_param(x):
    return uses_k(x) + k * x


def einsum_ellipsis(x):
    A = np.outer(x, x)
    return np.sum(np.einsum("...i,i->...", A, x))


def einsum_size_one(x):
    A = x.reshape(1, 3)
    return np.sum(np.einsum("ij,kj->ik", A, np.ones((1, 3))) ** 2)


def concatenate_scalars(x):
    return np.concatenate([np.atleast_1d(x[0] * 2.0), np.atleast_1d(x[1])])


X3 = np.array([0.7, -1.3, 0.4])

#: name -> (function, arguments (x first), "exact" or "refused")
EXPECT = {
    "star_args": (star_args, (3.0,), "exact"),
    "r_": (r_, (X3,), "exact"),
    "c_": (c_, (X3,), "exact"),
    "linspace": (linspace, (0.6,), "exact"),
    "einsum_sublist": (einsum_sublist, (X3,), "exact"),
    "multiply_out": (multiply_out, (X3,), "exact"),
    "cumsum_out": (cumsum_out, (X3,), "exact"),
    "add_at": (add_at, (X3,), "exact"),
    "copyto": (copyto, (X3,), "exact"),
    "put": (put, (X3,), "refused"),
    "list_insert": (list_insert, (0.8,), "exact"),
    "append_global": (append_global, (0.8,), "refused"),
    "exp_out": (exp_out, (X3,), "exact"),
    "view_write": (view_write, (X3,), "exact"),  # writes through views (forms20)
    "view_augment": (view_augment, (X3,), "exact"),
    "reshape_write": (reshape_write, (X3,), "refused"),
    "transpose_write": (transpose_write, (X3,), "refused"),
    "fancy_set": (fancy_set, (X3,), "exact"),
    "fancy_augment": (fancy_augment, (X3,), "exact"),
    "sort_then_read": (sort_then_read, (X3,), "exact"),
    "array_mutated_while_iterated": (array_mutated_while_iterated, (X3,), "refused"),
    "list_appended_while_iterated": (list_appended_while_iterated, (X3,), "refused"),
    "decorated": (decorated, (1.0,), "exact"),
    "stacked": (stacked, (1.0,), "exact"),
    "nested_grad": (nested_grad, (0.3,), "exact"),
    "max_in_loop": (max_in_loop, (1.7,), "exact"),
    "slice_object": (slice_object, (X3,), "exact"),
    "std_of_scalar": (std_of_scalar, (0.4,), "exact"),
    "abs_item": (abs_item, (X3,), "exact"),
    "early_return_helper": (early_return_helper, (0.9,), "exact"),
    "through_two_calls": (through_two_calls, (0.9,), "exact"),
    "global_named_like_param": (global_named_like_param, (0.9,), "exact"),
    "einsum_ellipsis": (einsum_ellipsis, (X3,), "exact"),
    "einsum_size_one": (einsum_size_one, (X3,), "exact"),
}


def _lines(f):
    lines, first = inspect.getsourcelines(inspect.unwrap(f))
    return range(first, first + len(lines))


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def outcome(f, args):
    """"exact", or "refused" (a SrcadError at a line of ``f``); an assertion otherwise."""
    MODULE_LIST.clear()
    want = f(*_copy(args))
    MODULE_LIST.clear()
    try:
        value, grad = srcad.value_and_grad(f)(*_copy(args))
    except srcad.SrcadError as e:
        assert e.lineno in _lines(f) or e.lineno in _lines(inner_list) or \
            e.lineno in _lines(early), e
        assert e.hint, e  # says what to write instead
        return "refused"
    np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)

    def fresh(*a):
        MODULE_LIST.clear()
        return f(*a)

    fd = numerical_grad(fresh, _copy(args), 0)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    return "exact"


@pytest.mark.parametrize("name", EXPECT)
def test_case(name):
    f, args, expect = EXPECT[name]
    assert outcome(f, args) == expect


def test_the_issue_figures():
    """The numbers the issue quotes, besides finite differences."""
    assert srcad.grad(star_args)(3.0) == pytest.approx(12.0)
    assert srcad.value_and_grad(decorated)(1.0) == pytest.approx((3.0, 6.0))
    assert srcad.grad(nested_grad)(0.3) == pytest.approx(6 * 0.3)
    assert srcad.grad(std_of_scalar)(0.4) == pytest.approx(1.0)
    # repeated indices [0, 2, 2]: the overwritten element gets nothing, += applies once
    np.testing.assert_allclose(srcad.grad(fancy_set)(X3), [1.0, 0.0, 3.0])
    np.testing.assert_allclose(srcad.grad(fancy_augment)(X3), [1.0, 0.0, 3.0])


# ---------------------------------------------------------------- changed between calls

C = 3.0
GA = np.array([1.0, 2.0, 3.0])


def reads_c(x):
    return np.sum(C * x * x)


def reads_ga(x):
    return np.sum(GA * x)


def with_default(x, a=2.0):
    return a * x * x


def with_kwdefault(x, *, a=2.0):
    return a * x * x


def test_globals_and_defaults_changed_between_calls():
    global C, GA
    df = srcad.grad(reads_c)
    assert df(1.5) == pytest.approx(9.0)
    try:
        C = np.array([1.0, 2.0, 3.0])
        assert df(1.5) == pytest.approx(2 * 1.5 * 6.0)
        GA = np.array([5.0, 6.0, 7.0])
        np.testing.assert_allclose(srcad.grad(reads_ga)(X3), GA)
        GA = GA * 2.0  # rebound
        np.testing.assert_allclose(srcad.grad(reads_ga)(X3), GA)
    finally:
        C, GA = 3.0, np.array([1.0, 2.0, 3.0])
    for f in (with_default, with_kwdefault):
        dg = srcad.grad(f)
        assert dg(1.0) == pytest.approx(4.0)
        old = (f.__defaults__, f.__kwdefaults__)
        try:
            if f.__defaults__:
                f.__defaults__ = (5.0,)
            else:
                f.__kwdefaults__ = {"a": 5.0}
            assert dg(1.0) == pytest.approx(10.0)
        finally:
            f.__defaults__, f.__kwdefaults__ = old


# ---------------------------------------------------------------- forward mode

_PRODUCTS = {
    "dot": lambda a: np.dot(a, a), "inner": lambda a: np.inner(a, a),
    "matmul": lambda a: a @ a, "vdot": lambda a: np.vdot(a, a),
    "outer": lambda a: np.sum(np.outer(a, a) * np.arange(9.0).reshape(3, 3)),
    "einsum": lambda a: np.einsum("i,i->", a, a),
    "tensordot": lambda a: np.tensordot(a, a, axes=1),
}


def dot_self(a):
    return np.dot(a, a)


def outer_self(a):
    return np.outer(a, a) * np.arange(9.0).reshape(3, 3)


def plus_ones(x):
    return x + np.ones(4)


def test_forward_mode_cases():
    da = np.array([0.3, -0.2, 1.1])
    _, t = srcad.jvp(dot_self, (X3,), (da,))
    assert t == pytest.approx(2 * np.dot(X3, da))
    np.testing.assert_allclose(srcad.jacfwd(outer_self)(X3), srcad.jacrev(outer_self)(X3),
                               atol=1e-12)
    value, t = srcad.jvp(plus_ones, (2.0,), (1.0,))
    assert np.shape(t) == (4,) and np.all(t == 1.0)
    rows = srcad.vjp(lambda a: np.vstack([a, a * 2.0]), X3)[1](np.ones((2, 3)))[0]
    assert isinstance(rows, np.ndarray) and rows.shape == (3,)
    np.testing.assert_allclose(rows, 3.0)
    cols = srcad.vjp(lambda a: np.hstack([a, a]), X3)[1](np.ones(6))[0]
    assert isinstance(cols, np.ndarray) and cols.shape == (3,)
    _, t = srcad.jvp(concatenate_scalars, (X3,), (da,))
    np.testing.assert_allclose(t, [2 * da[0], da[1]])


@pytest.mark.parametrize("name", _PRODUCTS)
def test_same_array_on_both_sides(name):
    f = _PRODUCTS[name]
    da = np.array([0.3, -0.2, 1.1])
    _, t = srcad.jvp(f, (X3,), (da,))
    fd = numerical_grad(f, (X3,), 0)
    assert t == pytest.approx(np.dot(fd, da), rel=1e-6)


# ---------------------------------------------------------------- try: except refused everywhere

_TRY = {  # where a try stands; the body of f(x), the try on its second line
    "top": "y = x\ntry:\n    y = x * 2.0\nfinally:\n    y = x * 3.0\nreturn y",
    "loop": "s = 0.0\nfor i in range(3):\n    try:\n        s = s + x * i\n    finally:\n"
            "        s = s * 1.0\nreturn s",
    "branch": "y = x\nif x > 0:\n    try:\n        return x * 2.0\n    finally:\n"
              "        pass\nreturn y",
    "while_except": "i = 0\nwhile i < 2:\n    try:\n        x = x * 2.0\n    except "
                    "ValueError:\n        break\n    i += 1\nreturn x",
    "nested_def": "def inner(z):\n    try:\n        return z * z\n    finally:\n        pass\n"
                  "return inner(x)",
    "callee": "return helper(x) * x",
    "neutral_with": "y = x\nwith np.errstate(all='ignore'):\n    try:\n        y = x * 2.0\n"
                    "    except ValueError:\n        pass\nreturn y",
}
if sys.version_info >= (3, 11):
    _TRY["except_star"] = "y = x\ntry:\n    y = x * 2.0\nexcept* ValueError:\n    y = x\nreturn y"
#: the try/finally ones (no except): differentiated since forms17, the body then the finally
#: block (tests/test_forms17_try_finally.py); the derivative at 0.7
_FINALLY = {"top": 3.0, "loop": 3.0, "branch": 2.0, "nested_def": 1.4, "callee": 2.8}


@pytest.fixture(scope="module")
def try_module(tmp_path_factory):
    from test_robustness import load_module

    text = "import numpy as np\n\n\ndef helper(x):\n    try:\n        return x * 2.0\n" \
        "    finally:\n        pass\n\n\n"
    for name, body in _TRY.items():
        text += f"def {name}(x):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
        text += "\n\n"
    return load_module(tmp_path_factory.mktemp("try"), text)


@pytest.mark.parametrize("where", [w for w in _TRY if w not in _FINALLY])
def test_a_try_except_is_refused_at_its_line(try_module, where):
    """try/except, wherever it stands (a loop, a value-neutral with, except*), is refused at
    the try's line, in both modes."""
    f = getattr(try_module, where)
    for run in (lambda: srcad.grad(f)(0.7), lambda: srcad.jvp(f, (0.7,), (1.0,))):
        with pytest.raises(srcad.SrcadError, match="try") as info:
            run()
        lines, first = inspect.getsourcelines(f)
        assert lines[info.value.lineno - first].lstrip().startswith("try:")
        assert "finally" in info.value.hint


@pytest.mark.parametrize("where", list(_FINALLY))
def test_a_try_finally_is_differentiated(try_module, where):
    """try/finally without except, wherever it stands (a loop, a branch, a nested def, a
    callee): the body, then the finally block, in both modes."""
    f = getattr(try_module, where)
    assert srcad.grad(f)(0.7) == pytest.approx(_FINALLY[where], rel=1e-12)
    assert srcad.grad(f)(0.7) == pytest.approx(float(numerical_grad(f, (0.7,))), rel=1e-6)
    assert srcad.jvp(f, (0.7,), (1.0,))[1] == pytest.approx(_FINALLY[where], rel=1e-12)


# ---------------------------------------------------------------- names and leaks


def test_function_names_that_are_not_identifiers():
    def f(x):
        return x * x

    for name in ("f-1", "class", "3d"):
        f.__name__ = f.__qualname__ = name
        assert srcad.grad(f)(1.5) == pytest.approx(3.0)


def leaky(x):
    return x * x + 1.0


def test_the_same_gradient_made_again_reuses_its_transform():
    srcad.grad(leaky)(1.0)
    before = len(linecache.cache)
    for _ in range(50):
        srcad.grad(leaky)(1.0)
    assert len(linecache.cache) == before
    srcad.clear_cache()
    assert len(linecache.cache) <= before


if __name__ == "__main__":
    for name, (f, args, _) in EXPECT.items():
        try:
            print(name, outcome(f, args))
        except Exception as e:  # noqa: BLE001
            print(name, "FAIL", type(e).__name__, str(e)[:300])
    sys.exit(0)
