"""Robustness: srcad never gives a wrong gradient, never touches what it is given, and keeps
working under threads, redefinition, NaN and deep recursion.

The first part holds regression tests for the bugs found by the property tests
(`tests/test_properties.py`) and by hand; each is described, with a minimal repro, in
`notes/robustness-findings.md`. A test marked ``xfail(strict=True)`` fails today because srcad
gives a wrong answer (or crashes): when the bug is fixed the test passes, strict mode turns that
into a failure, and the marker must be removed (and, for bugs that `gen_programs.KNOWN_BUGS`
lists, the entry removed there too). Expected values are worked out by hand or by finite
differences, never copied from srcad's output.
"""

from __future__ import annotations

import builtins
import gc
import importlib.util
import inspect
import io
import itertools
import math
import os
import sys
import threading
import uuid
import weakref

import numpy as np
import pytest
import srcad.tape
from srcad.check import numerical_grad

import srcad

_counter = itertools.count()


def load_module(directory, text, name=None):
    """Write `text` as a module in `directory`, import it (its functions then have source)."""
    name = name or f"robust_{next(_counter)}_{uuid.uuid4().hex[:8]}"
    path = directory / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def xfail_bug(number, what):
    """A known srcad bug (numbered as in notes/robustness-findings.md)."""
    return pytest.mark.xfail(strict=True, reason=f"finding {number}: {what}")


# =============================================================================================
# Regression tests for bugs found
# =============================================================================================

# --- found by the property tests -------------------------------------------------------------


def swap_in_loop(x, y):
    for _ in range(3):
        x, y = y, x
    return x * x + 3.0 * y  # three swaps: y0 ** 2 + 3 x0


def swap_with_temporary(x, y):
    for _ in range(2):
        t = x
        x = y
        y = t
    return x * x + 3.0 * y  # two swaps: x0 ** 2 + 3 y0


def test_swap_in_loop_value_and_gradient():
    value, grads = srcad.value_and_grad(swap_in_loop, wrt=(0, 1))(1.0, 2.0)
    assert value == swap_in_loop(1.0, 2.0) == 7.0
    assert grads == pytest.approx((3.0, 4.0))


def test_swap_through_a_temporary_in_loop():
    value, grads = srcad.value_and_grad(swap_with_temporary, wrt=(0, 1))(1.0, 2.0)
    assert value == swap_with_temporary(1.0, 2.0) == 7.0
    assert grads == pytest.approx((2.0, 3.0))


def test_swap_in_loop_forward_mode():
    value, tangent = srcad.jvp(swap_in_loop, (1.0, 2.0), (0.0, 1.0))
    assert value == 7.0
    assert tangent == pytest.approx(4.0)


def loop_with_break(x):
    s = 0.0
    for _ in range(1):
        if x > 3.0:
            break
        s = s + x * x * x
    return s


def test_hessian_of_loop_with_break():
    assert srcad.hessian(loop_with_break)(0.5) == pytest.approx(6 * 0.5)
    assert srcad.hvp(loop_with_break, (0.5,), 1.0) == pytest.approx(6 * 0.5)


def test_reverse_over_reverse_of_loop_with_break():
    assert srcad.hessian(loop_with_break, mode="rev")(0.5) == pytest.approx(6 * 0.5)


def _sin_sum(a):
    s = 0.0
    for j in range(2):
        s = s + math.sin(a + j)
    return s


def calls_loop_helper(x):
    return _sin_sum(x) * 1.0


def test_second_derivative_through_helper_with_loop():
    expected = -math.sin(0.8) - math.sin(1.8)
    assert srcad.grad(srcad.grad(calls_loop_helper))(0.8) == pytest.approx(expected)


def test_forward_over_reverse_through_helper_with_loop():
    expected = -math.sin(0.8) - math.sin(1.8)
    assert srcad.hessian(calls_loop_helper)(0.8) == pytest.approx(expected)


def _square(a):
    return a * a


def call_in_branch(x):
    if x > 1.0:
        y = _square(x)
    else:
        y = x * 3.0
    return y * x


def test_second_derivative_with_call_in_branch_not_taken():
    assert srcad.grad(srcad.grad(call_in_branch))(0.5) == pytest.approx(6.0)  # 3 x ** 2


def _sine(a):
    return math.sin(a)


def call_in_nested_branch(x):
    if x > 0.0:
        if x > 3.0:
            x = _sine(x)
    return x * x


def test_second_derivative_with_call_in_nested_branch_not_taken():
    assert srcad.grad(srcad.grad(call_in_nested_branch))(0.5) == pytest.approx(2.0)


def appends_constants_and_values(x):
    v1 = []
    for i in range(2):
        v1.append(i + 1)
        v1.append(x)
    return sum(v1) * x  # (3 + 2 x) x


def test_second_derivative_with_constants_appended_in_a_loop():
    assert srcad.grad(appends_constants_and_values)(0.5) == pytest.approx(5.0)
    assert srcad.hessian(appends_constants_and_values)(0.5) == pytest.approx(4.0)
    assert srcad.grad(srcad.grad(appends_constants_and_values))(0.5) == pytest.approx(4.0)


def test_forward_over_reverse_with_call_in_nested_branch():
    assert srcad.hessian(call_in_nested_branch)(0.5) == pytest.approx(2.0)
    expected = 2 * (math.cos(4.0) ** 2 - math.sin(4.0) ** 2)  # (sin x ** 2)''
    assert srcad.hessian(call_in_nested_branch)(4.0) == pytest.approx(expected)


def test_second_derivative_with_call_in_branch_taken():
    assert srcad.grad(srcad.grad(call_in_branch))(2.0) == pytest.approx(12.0)  # x ** 3


def returns_parameter(x):
    return x


def returns_parameter_after_dead_loop(x):
    for _ in range(2):
        v = x  # noqa: F841 - dead
    return x


def test_gradient_of_identity():
    assert srcad.grad(returns_parameter)(3.0) == 1.0
    assert srcad.value_and_grad(returns_parameter)(3.0) == (3.0, 1.0)


def test_gradient_of_parameter_returned_after_dead_loop():
    assert srcad.grad(returns_parameter_after_dead_loop)(3.0) == 1.0


def power_zero(x):
    return x ** 0


def test_power_zero_at_zero():
    assert srcad.grad(power_zero)(0.0) == 0.0
    assert srcad.jvp(power_zero, (0.0,), (1.0,)) == (1.0, 0.0)


def power_zero_sum(x):
    return np.sum(x ** 0)


def test_power_zero_at_zero_on_arrays():
    assert np.array_equal(srcad.grad(power_zero_sum)(np.zeros(2)), np.zeros(2))


def copies_in_loop(x, y):
    for _ in range(2):
        y = x
        x = x
    return y * 1.0  # x


def copies_back_and_forth_in_loop(x, y):
    for _ in range(2):
        x = y
        y = x
    return x * 1.0 + y * 10.0  # 11 y


@pytest.mark.parametrize(("func", "expected"), [(copies_in_loop, (1.0, 0.0)),
                                                (copies_back_and_forth_in_loop, (0.0, 11.0))])
def test_copies_between_loop_variables(func, expected):
    assert srcad.grad(func, wrt=(0, 1))(0.5, 2.0) == expected


def for_else_without_break(x):
    for _ in range(2):
        x = x * 2.0
    else:
        x = x * 1.5
    return x  # 6 x


def while_else_without_break(x):
    n = 0
    while n < 2:
        n += 1
    else:
        x = x * 1.5
    return x * x  # 2.25 x ** 2


@pytest.mark.parametrize(("func", "value", "grad"), [
    (for_else_without_break, 12.0, 6.0),
    (while_else_without_break, 9.0, 9.0),
])
def test_loop_else_without_break(func, value, grad):
    assert func(2.0) == value
    assert srcad.value_and_grad(func)(2.0) == (value, grad)
    assert srcad.jvp(func, (2.0,), (1.0,)) == (value, grad)


def slices_a_list(x):
    ys = [x, x * 2.0, x * 3.0]
    zs = ys[1:]
    return zs[0] * zs[1]  # 6 x ** 2


def slices_a_list_argument(xs):
    return xs[1:][0] * 3.0


def reverses_a_list_by_slicing(x):
    ys = [x, x * 2.0]
    rs = ys[::-1]
    return rs[0] * 10.0 + rs[1]  # 21 x


def slices_a_tuple(x):
    ys = (x, x * 2.0, x * 3.0)
    zs = ys[1:]
    return zs[0] * zs[1]  # 6 x ** 2


@pytest.mark.parametrize(("func", "arg", "expected"), [
    (slices_a_list, 1.5, 12 * 1.5),
    (slices_a_tuple, 1.5, 12 * 1.5),
    (reverses_a_list_by_slicing, 1.5, 21.0),
    (slices_a_list_argument, [1.0, 2.0, 3.0], [0.0, 3.0, 0.0]),
])
def test_slices_of_lists(func, arg, expected):
    assert srcad.grad(func)(arg) == pytest.approx(expected)


def test_slices_of_arrays():
    assert np.allclose(srcad.grad(slices_a_list_argument)(np.array([1.0, 2.0, 3.0])),
                       [0.0, 3.0, 0.0])


def zips_with_reversed(x):
    ys = [x, x * 2.0]
    s = 0.0
    for v, w in zip(ys, reversed(ys)):
        s = s + v * w
    return s  # 4 x ** 2


def loops_over_reversed(x):
    ys = [x, x * 2.0]
    s = 0.0
    for v in reversed(ys):
        s = s * 0.5 + v
    return s  # 2 x


def test_zip_with_reversed():
    assert srcad.grad(zips_with_reversed)(1.5) == pytest.approx(8 * 1.5)


def test_zip_with_reversed_forward_mode():
    assert srcad.jvp(zips_with_reversed, (1.5,), (1.0,))[1] == pytest.approx(8 * 1.5)


def test_loop_over_reversed():
    assert srcad.grad(loops_over_reversed)(1.5) == pytest.approx(2.0)


# --- found by hand --------------------------------------------------------------------------


def list_extend(x):
    ys = [x]
    ys.extend([x * 2.0, x * 3.0])
    return sum(ys)  # 6 x


def list_insert(x):
    ys = [x]
    ys.insert(0, x * 2.0)
    return ys[0] * 10.0 + ys[1]  # 21 x


def list_reverse(x):
    ys = [x, x * 2.0]
    ys.reverse()
    return ys[0] * 10.0 + ys[1]  # 21 x


def list_sort(x, y):
    ys = [x, y]
    ys.sort()
    return ys[0] * 10.0 + ys[1]


def list_remove(x):
    ys = [x, x * 2.0]
    ys.remove(x)
    return ys[0] * 3.0  # 6 x


def list_clear(x):
    ys = [x]
    ys.clear()
    ys.append(x * 2.0)
    return ys[0]  # 2 x


@pytest.mark.parametrize(("func", "args"), [
    (list_extend, (1.5,)), (list_insert, (1.5,)), (list_reverse, (1.5,)),
    (list_sort, (1.5, 0.5)), (list_remove, (1.5,)), (list_clear, (1.5,)),
], ids=["extend", "insert", "reverse", "sort", "remove", "clear"])
def test_effect_only_list_methods(func, args):
    expected = numerical_grad(func, args, 0)
    try:
        got = srcad.grad(func)(*args)
    except srcad.SrcadError:
        return  # refusing the method is fine; a wrong number is not
    assert got == pytest.approx(expected, rel=1e-7)


def list_alias_write(x):
    ys = [x, x * 2.0]
    zs = ys
    zs[0] = x * 5.0
    return ys[0]  # 5 x: ys and zs are one list


def test_list_written_through_an_alias():
    assert list_alias_write(1.5) == 7.5
    try:
        got = srcad.grad(list_alias_write)(1.5)
    except srcad.SrcadError:
        return
    assert got == pytest.approx(5.0)


def list_concatenation(x):
    ys = [x] + [x * 2.0]
    return ys[1] * 5.0  # 10 x


def list_repetition(x):
    ys = [x] * 3
    return sum(ys)  # 3 x


@pytest.mark.parametrize(("func", "expected"), [(list_concatenation, 10.0),
                                                (list_repetition, 3.0)])
def test_list_concatenation_and_repetition(func, expected):
    try:
        got = srcad.grad(func)(1.5)
    except srcad.SrcadError:
        return
    assert got == pytest.approx(expected)



def sum_with_start(x, y):
    return sum([x, y], x)  # 2 x + y


def test_forward_mode_of_sum_with_start():
    assert srcad.grad(sum_with_start, wrt=(0, 1))(0.3, 0.7) == pytest.approx((2.0, 1.0))
    _, tangent = srcad.jvp(sum_with_start, (0.3, 0.7), (1.0, 1.0))
    assert tangent == pytest.approx(3.0)


HELPER_MODULE = """
SCALE = 2.0


def helper(a):
    return a * a


def cube(a):
    return a * a * a


def f(x):
    return helper(x) * SCALE
"""


def test_rebinding_a_helper_is_seen_by_an_existing_transform(tmp_path):
    mod = load_module(tmp_path, HELPER_MODULE)
    g = srcad.grad(mod.f)
    assert g(1.5) == pytest.approx(2 * 1.5 * 2.0)
    mod.helper = mod.cube  # globals are live (docs/supported-python.md): calls too
    assert mod.f(1.5) == pytest.approx(1.5 ** 3 * 2.0)
    assert g(1.5) == pytest.approx(3 * 1.5 ** 2 * 2.0)


def test_rebinding_a_helper_is_seen_by_a_new_transform(tmp_path):
    mod = load_module(tmp_path, HELPER_MODULE)
    assert srcad.grad(mod.f)(1.5) == pytest.approx(2 * 1.5 * 2.0)
    mod.helper = mod.cube
    assert srcad.grad(mod.f)(1.5) == pytest.approx(3 * 1.5 ** 2 * 2.0)


def test_rebinding_a_global_constant_is_seen(tmp_path):
    mod = load_module(tmp_path, HELPER_MODULE)
    g = srcad.grad(mod.f)
    assert g(1.5) == pytest.approx(2 * 1.5 * 2.0)
    mod.SCALE = 5.0
    assert g(1.5) == pytest.approx(2 * 1.5 * 5.0)


def test_clear_cache_refreshes_forward_mode(tmp_path):
    mod = load_module(tmp_path, HELPER_MODULE)
    assert srcad.jvp(mod.f, (1.5,), (1.0,))[1] == pytest.approx(2 * 1.5 * 2.0)
    mod.helper = mod.cube
    srcad.clear_cache()
    value, tangent = srcad.jvp(mod.f, (1.5,), (1.0,))
    assert value == pytest.approx(1.5 ** 3 * 2.0)
    assert tangent == pytest.approx(3 * 1.5 ** 2 * 2.0)


def test_clear_cache_refreshes_reverse_mode(tmp_path):
    mod = load_module(tmp_path, HELPER_MODULE)
    g = srcad.grad(mod.f)
    assert g(1.5) == pytest.approx(2 * 1.5 * 2.0)
    mod.helper = mod.cube
    srcad.clear_cache()
    assert g(1.5) == pytest.approx(3 * 1.5 ** 2 * 2.0)


@pytest.mark.parametrize("prefix", ["mathtools", "numpy_extras", "srcadlike"])
def test_helper_module_named_like_a_library(tmp_path, prefix):
    helpers = load_module(tmp_path, "def square(a):\n    return a * a\n",
                          name=f"{prefix}_{uuid.uuid4().hex[:8]}")
    user = load_module(tmp_path, f"from {helpers.__name__} import square\n\n\n"
                                 "def f(x):\n    return square(x) + x\n")
    assert srcad.grad(user.f)(2.0) == pytest.approx(5.0)


TWO_LAMBDAS = "double, cube = (lambda x: x * 2.0), (lambda x: x ** 3)\n"


def test_lambdas_sharing_a_line(tmp_path):
    """Finding 10 (fixed): srcad used to differentiate the first lambda of a line for both.
    Each must now give its own gradient or be refused."""
    mod = load_module(tmp_path, TWO_LAMBDAS)
    for func, expected in [(mod.double, 2.0), (mod.cube, 12.0)]:
        try:
            got = srcad.grad(func)(2.0)
        except srcad.SrcadError:
            continue  # refusing to guess which lambda is meant is fine
        assert got == pytest.approx(expected)


def step_times(x):
    return (x > 0) * x


def test_gradient_through_a_bool_factor_is_a_float():
    g = srcad.grad(step_times)(1.5)
    assert g == 1.0
    assert not isinstance(g, (bool, np.bool_))
    assert srcad.grad(step_times)(-1.5) == 0.0


def with_assert(x):
    assert x > 0, "x must be positive"
    return x * 2.0


def test_assert_is_kept_in_the_forward_sweep():
    assert srcad.grad(with_assert)(1.5) == 2.0
    with pytest.raises(AssertionError, match="positive"):
        srcad.grad(with_assert)(-1.5)


def iterates_dict(x, weights):
    total = 0.0
    for key in weights:
        total = total + weights[key] * x
    return total


def test_loop_over_dict_keys():
    weights = {"a": 2.0, "b": 3.0}
    try:
        g = srcad.grad(iterates_dict)(1.5, weights)
    except srcad.SrcadError:
        return  # refusing is acceptable; a KeyError is not
    assert g == pytest.approx(5.0)


def max_of_two(x, y):
    return max(x, y) * 2.0


def min_of_two(x, y):
    return min(x, y) * 2.0


@pytest.mark.parametrize("func", [max_of_two, min_of_two])
def test_max_min_with_nan_follow_pythons_choice(func):
    nan = float("nan")
    assert func(1.0, nan) == 2.0  # Python keeps the first argument: nan compares false
    assert srcad.grad(func, wrt=(0, 1))(1.0, nan) == (2.0, 0.0)


def sqrt_of(x):
    return math.sqrt(x)


def np_sqrt_of(x):
    return np.sum(np.sqrt(x))


def test_sqrt_at_zero_follows_the_documented_convention():
    """docs/supported-python.md: on Python floats the derivative's division by 0 raises, as
    Python's own division does; on arrays NumPy gives inf (finding 15)."""
    with pytest.raises(ZeroDivisionError):
        srcad.grad(sqrt_of)(0.0)
    with np.errstate(divide="ignore"):
        assert srcad.grad(np_sqrt_of)(np.array([0.0, 4.0]))[0] == math.inf


def aliased_inplace_add(x):
    y = x
    y += 1.0  # on an array: x changes too
    return np.sum(x * y)


def test_inplace_add_through_an_alias():
    x = np.array([1.0, 2.0])
    expected_value = aliased_inplace_add(x.copy())  # sum((x + 1) ** 2) = 13
    assert expected_value == 13.0
    try:
        value, grad = srcad.value_and_grad(aliased_inplace_add)(x.copy())
    except srcad.SrcadError:
        return  # refusing the aliasing is acceptable
    assert value == expected_value
    assert np.allclose(grad, 2 * (x + 1))


def _long_sum_source(n):
    terms = " + ".join(f"x * {k % 7 + 1}" for k in range(n))
    return f"def f(x):\n    return {terms}\n", sum(k % 7 + 1 for k in range(n))


def test_long_expression(tmp_path):
    text, expected = _long_sum_source(400)
    mod = load_module(tmp_path, text)
    assert srcad.grad(mod.f)(1.0) == pytest.approx(expected)
    assert srcad.jvp(mod.f, (1.0,), (1.0,))[1] == pytest.approx(expected)


def test_moderately_long_expression(tmp_path):
    text, expected = _long_sum_source(200)
    mod = load_module(tmp_path, text)
    assert srcad.grad(mod.f)(1.0) == pytest.approx(expected)


STALE_SOURCE = "def f(x):\n    return x * 2.0\n"
EDITED_SOURCE = "def f(x):\n    return x * 5.0\n"


def test_source_edited_after_import(tmp_path):
    mod = load_module(tmp_path, STALE_SOURCE)
    path = tmp_path / f"{mod.__name__}.py"
    path.write_text(EDITED_SOURCE)
    os.utime(path, (1, 1))  # a different mtime, so linecache re-reads the file
    assert mod.f(1.0) == 2.0  # the code that runs
    try:
        g = srcad.grad(mod.f)(1.0)
    except srcad.SrcadError:
        return  # detecting the mismatch and refusing is the fix
    assert g == 2.0


@pytest.mark.parametrize("use", ["jvp", "callee"])
def test_transformed_functions_can_be_freed(tmp_path, use):
    """Finding 19: the jvp and callee caches keep their entries on the function itself, so a
    module's functions are freed with it (a weak-keyed dict kept them alive: the generated
    code's globals are the module, which holds the function)."""
    mod = load_module(tmp_path, "def h(a):\n    return a * a\n\n\n"
                                "def f(x):\n    return h(x) * x\n")
    if use == "jvp":
        srcad.jvp(mod.f, (1.0,), (1.0,))
        ref = weakref.ref(mod.f)
    else:
        srcad.grad(mod.f)(1.0)
        ref = weakref.ref(mod.h)
    del sys.modules[mod.__name__]
    del mod
    gc.collect()
    assert ref() is None


def test_grad_alone_does_not_keep_the_function_alive(tmp_path):
    mod = load_module(tmp_path, "def f(x):\n    return x * x\n")
    assert srcad.grad(mod.f)(1.0) == 2.0
    ref = weakref.ref(mod.f)
    del sys.modules[mod.__name__]
    del mod
    gc.collect()
    assert ref() is None


def test_a_function_writing_into_its_argument_is_freed(tmp_path):
    """(session 36) srcad.written_state keeps a writer's State on the function (a cycle the
    collector frees), not as a weak key's value holding the key."""
    mod = load_module(tmp_path, "import numpy as np\n\n\ndef f(x, s):\n"
                      "    s['m'] = np.sum(x) * 0.5\n    return np.sum(x * x)\n")
    state = {}
    np.testing.assert_allclose(srcad.grad(mod.f)(np.ones(3), state), 2.0 * np.ones(3))
    assert state["m"] == 1.5
    ref = weakref.ref(mod.f)
    del sys.modules[mod.__name__]
    del mod
    gc.collect()
    assert ref() is None


def tanh_of_pair(x, y):
    return np.sum(np.tanh(np.array([x, y])))


def test_hvp_when_forward_mode_lacks_a_rule():
    expected = -2 * math.tanh(0.3) * (1 - math.tanh(0.3) ** 2)  # d2/dx2 tanh(x)
    h = srcad.hessian(tanh_of_pair, wrt=(0, 1))(0.3, 0.7)  # falls back, and works
    assert h[0][0] == pytest.approx(expected)
    assert srcad.hvp(tanh_of_pair, (0.3, 0.7), 1.0) == pytest.approx(expected)


def _triple(x):
    return x * 3.0


srcad.extend.defvjp(_triple, "x", x="g * 3.0")  # a reverse rule only


def uses_triple(x):
    return _triple(x) + x


def test_forward_mode_hint_names_a_real_api():
    assert srcad.grad(uses_triple)(1.0) == 4.0
    with pytest.raises(srcad.MissingRuleError) as info:
        srcad.jvp(uses_triple, (1.0,), (1.0,))
    if "jvp=" in (info.value.hint or ""):
        assert "jvp" in inspect.signature(srcad.extend.defvjp).parameters


# =============================================================================================
# srcad never mutates what it is given
# =============================================================================================


def writes_into_copy(x, w):
    y = x.copy()
    y[0] = w * 2.0
    return np.sum(y * x)


def adds_into_copy(x):
    y = x.copy()
    y += x
    return np.sum(y * y)


def appends_to_copy(xs):
    ys = list(xs)
    ys.append(2.0)
    return sum(ys) * xs[0]


def reads_only(x, w):
    return np.sum(np.sin(x) * w) + np.sum(np.cos(x) * x)


@pytest.mark.parametrize("call", ["grad", "value_and_grad", "vjp", "jvp", "hessian"])
@pytest.mark.parametrize(("func", "make_args", "wrt"), [
    (writes_into_copy, lambda: (np.array([1.0, 2.0, 3.0]), 1.5), (0, 1)),
    (adds_into_copy, lambda: (np.array([1.0, -2.0]),), (0,)),
    (reads_only, lambda: (np.array([0.5, 1.5]), np.array([2.0, 3.0])), (0, 1)),
], ids=["write-into-copy", "add-into-copy", "reads-only"])
def test_arguments_are_not_mutated(func, make_args, wrt, call):
    args = make_args()
    before = [np.array(a, copy=True) for a in args]
    if call == "grad":
        srcad.grad(func, wrt=wrt)(*args)
    elif call == "value_and_grad":
        srcad.value_and_grad(func, wrt=wrt)(*args)
    elif call == "vjp":
        srcad.vjp(func, *args)[1](1.0)
    elif call == "jvp":
        srcad.jvp(func, args, tuple(np.ones_like(a) for a in args))
    else:
        srcad.hessian(func, wrt=wrt[0])(*args)
    for a, b in zip(args, before):
        assert np.array_equal(a, b)


def test_array_arguments_gradients_are_right_after_copy_and_write():
    x = np.array([1.0, 2.0, 3.0])
    grads = srcad.grad(writes_into_copy, wrt=(0, 1))(x, 1.5)
    expected = numerical_grad(writes_into_copy, (x.copy(), 1.5), wrt=(0, 1))
    assert np.allclose(grads[0], expected[0]) and grads[1] == pytest.approx(expected[1])
    assert np.allclose(srcad.grad(adds_into_copy)(x), 8 * x)  # sum((2x) ** 2)


def test_list_argument_is_not_mutated():
    xs = [1.0, 2.0]
    grads = srcad.grad(appends_to_copy)(xs)
    assert xs == [1.0, 2.0]
    assert grads == pytest.approx([1.0 + (1.0 + 2.0 + 2.0), 1.0])


def identity_sum(x):
    return np.sum(x)


def mean_of(x):
    return np.mean(x)


def test_gradient_arrays_are_not_the_arguments():
    x = np.array([1.0, 2.0])
    g = srcad.grad(identity_sum)(x)
    assert g is not x and not np.shares_memory(g, x)
    assert np.array_equal(g, [1.0, 1.0])


@pytest.mark.parametrize("func", [identity_sum, mean_of])
def test_gradient_arrays_are_writable(func):
    x = np.array([1.0, 2.0])
    g = srcad.grad(func)(x)
    g *= 2.0  # in-place scaling, as in gradient clipping
    g[0] = 42.0
    assert g[1] != 42.0
    assert np.array_equal(x, [1.0, 2.0])


# =============================================================================================
# srcad writes no files and leaves no names behind
# =============================================================================================

FRESH_MODULE = """
import math

import numpy as np


def helper(a, n):
    s = 0.0
    for j in range(n):
        s = s + math.sin(a * (j + 1))
    return s


def rec(a, n):
    if n <= 0:
        return a
    return rec(math.cos(a), n - 1)


def f(x, y):
    total = 0.0
    for i in range(3):
        if x > y:
            total = total + helper(x, 2) * y
        else:
            total = total + rec(y, 2) * x
    return total + np.sum(np.tanh(np.array([x, y])))
"""


def _exercise(mod):
    """Every public transformation, on a fresh module."""
    srcad.grad(mod.f, wrt=(0, 1))(0.3, 0.7)
    srcad.value_and_grad(mod.f)(0.9, 0.2)
    srcad.vjp(mod.f, 0.3, 0.7)[1](1.0)
    srcad.jvp(mod.f, (0.3, 0.7), (1.0, 0.5))
    srcad.hessian(mod.f, wrt=(0, 1))(0.3, 0.7)
    srcad.source(srcad.grad(mod.f))
    srcad.ssa(mod.f)
    srcad.check.check_grads(mod.f, 0.3, 0.7)


def _refuse_writes(monkeypatch):
    real_open, real_os_open = builtins.open, os.open

    def guarded_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+"):
            raise AssertionError(f"srcad opened {file!r} for writing")
        return real_open(file, mode, *args, **kwargs)

    def guarded_os_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND):
            raise AssertionError(f"srcad opened {path!r} for writing")
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(os, "open", guarded_os_open)


def _listing(*directories):
    return {d: sorted(p.relative_to(d) for p in d.rglob("*")) for d in directories}


def test_no_files_are_written(tmp_path, monkeypatch):
    mod = load_module(tmp_path, FRESH_MODULE)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    before = _listing(tmp_path)
    _refuse_writes(monkeypatch)
    _exercise(mod)
    monkeypatch.undo()
    assert _listing(tmp_path) == before


def test_no_names_are_left_in_the_users_module(tmp_path):
    mod = load_module(tmp_path, FRESH_MODULE)
    before = dict(vars(mod))
    _exercise(mod)
    after = vars(mod)
    assert set(after) == set(before)
    assert all(after[k] is before[k] for k in before)


# =============================================================================================
# Hygiene: user names that look like srcad's generated names
# =============================================================================================


def generated_looking_names(x, dx, stack):
    d_x = x * 2.0
    dy = dx * x
    t = math.sin(d_x)
    t_1 = t * dy
    stack_1 = [t, t_1]
    n_iter = 0
    result = 0.0
    returned = 1.5
    broke = 0.5
    skip = stack * 1.0
    sign = -1.0
    add = 2.0
    unbroadcast = 0.25
    zeros_like = 3.0
    ctx = x
    y_ctx = dx
    grad_f = 1.5
    while n_iter < 3:
        n_iter += 1
        result = result + t_1 * sign + add * ctx * y_ctx + sum(stack_1) * unbroadcast
        if result > 50.0:
            break
        if result < -50.0:
            continue
        stack_1.append(result * 0.1)
    return abs(result) * zeros_like + returned * broke * skip * grad_f


def shadows_np_and_math(x, y):
    np = 3.0  # noqa: F811 - the point of the test
    math = 2.0  # noqa: F811
    value = x * np + y * math
    return abs(value) + min(value, x * y)


@pytest.mark.parametrize(("func", "args"), [
    (generated_looking_names, (0.3, 0.7, 1.1)),
    (generated_looking_names, (-0.9, 0.4, 0.2)),
    (shadows_np_and_math, (0.3, 0.7)),
    (shadows_np_and_math, (-0.8, 0.2)),
])
def test_user_names_like_generated_ones(func, args):
    wrt = tuple(range(len(args)))
    expected = numerical_grad(func, args, wrt)
    assert srcad.grad(func, wrt=wrt)(*args) == pytest.approx(expected, rel=1e-7, abs=1e-8)
    assert srcad.tape.grad(func, wrt=wrt)(*args) == pytest.approx(expected, rel=1e-7, abs=1e-8)
    direction = (1.0, -0.5, 0.25)[: len(args)]
    _, tangent = srcad.jvp(func, args, direction)
    assert tangent == pytest.approx(sum(e * v for e, v in zip(expected, direction)), rel=1e-7)


SHADOWING_GLOBALS = """
import math


def sign(v):
    return 42.0


def add(a, b):
    return a - b


def unbroadcast(v, like):
    return 0.0


def zeros_like(v):
    return 7.0


def f(x, y):
    z = abs(x) * y + math.sin(x)
    if z > 0:
        z = z + add(x, y) * sign(y)
    return z + unbroadcast(x, y) + zeros_like(y)
"""


def test_user_globals_named_like_srcad_helpers(tmp_path):
    mod = load_module(tmp_path, SHADOWING_GLOBALS)
    for args in [(0.3, 0.7), (-0.6, 0.4), (0.5, -1.2)]:
        expected = numerical_grad(mod.f, args, (0, 1))
        assert srcad.grad(mod.f, wrt=(0, 1))(*args) == pytest.approx(expected, rel=1e-7)


# =============================================================================================
# NaN, inf, and conventions at kinks
# =============================================================================================


def square_sum(x):
    return np.sum(x * x)


def exp_sum(x):
    return np.sum(np.exp(x))


def sin_sum(x):
    return np.sum(np.sin(x))


def scalar_square(x):
    return x * x


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("func", "x"), [
    (square_sum, np.array([np.nan, 1.0, -2.0])),
    (exp_sum, np.array([np.inf, 0.0, -np.inf])),
    (sin_sum, np.array([np.inf, 0.0, np.nan])),
    (scalar_square, math.nan),
    (scalar_square, math.inf),
], ids=["nan-square", "inf-exp", "inf-sin", "nan-scalar", "inf-scalar"])
def test_nan_and_inf_propagate_like_numpy(func, x):
    """The gradient is what NumPy's arithmetic gives on the analytic formula: NaN stays NaN,
    inf stays inf, and finite entries stay right (no crash, no silent zero)."""
    formulas = {square_sum: lambda v: 2 * v, exp_sum: np.exp, sin_sum: np.cos,
                scalar_square: lambda v: 2 * v}
    with np.errstate(all="ignore"):
        expected = formulas[func](np.asarray(x, dtype=float))
        got = np.asarray(srcad.grad(func)(x), dtype=float)
        _, tangent = srcad.jvp(func, (x,), (np.ones_like(x) if np.ndim(x) else 1.0,))
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(np.sum(expected), tangent, equal_nan=True)


def scale_by(x, w):
    return x * w


def test_nan_in_a_factor_that_does_not_matter():
    assert srcad.grad(scale_by, wrt=0)(math.nan, 2.0) == 2.0  # d(x w)/dx = w


def absolute(x):
    return abs(x)


def np_absolute(x):
    return np.sum(np.abs(x))


def test_abs_at_zero_is_zero_like_torch():
    torch = pytest.importorskip("torch")
    t = torch.zeros((), dtype=torch.float64, requires_grad=True)
    torch.abs(t).backward()
    assert srcad.grad(absolute)(0.0) == float(t.grad) == 0.0
    assert srcad.grad(absolute)(-0.0) == 0.0
    assert np.array_equal(srcad.grad(np_absolute)(np.zeros(3)), np.zeros(3))
    assert srcad.jvp(absolute, (0.0,), (1.0,))[1] == 0.0


def test_min_max_ties_go_to_the_first_argument():
    """docs/supported-python.md: on a tie, all of the gradient to the first argument."""
    assert srcad.grad(max_of_two, wrt=(0, 1))(1.0, 1.0) == (2.0, 0.0)
    assert srcad.grad(min_of_two, wrt=(0, 1))(1.0, 1.0) == (2.0, 0.0)
    # forward mode takes the same piece
    assert srcad.jvp(max_of_two, (1.0, 1.0), (1.0, 0.0))[1] == 2.0
    assert srcad.jvp(max_of_two, (1.0, 1.0), (0.0, 1.0))[1] == 0.0


def np_sqrt_sum(x):
    return np.sum(np.sqrt(x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_numpy_sqrt_at_zero_is_inf_like_torch():
    torch = pytest.importorskip("torch")
    t = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    torch.sqrt(t).sum().backward()
    assert np.array_equal(srcad.grad(np_sqrt_sum)(np.zeros(2)), t.grad.numpy())


# =============================================================================================
# Threads
# =============================================================================================

THREADED_MODULE = """
import math


def h1(a, n):
    s = 0.0
    for j in range(n):
        s = s + math.sin(a * (j + 1))
    return s


def h2(a):
    if a > 0:
        return h1(a, 3) * a
    return h2(-a + 0.5)


def f(x, y):
    total = 0.0
    for i in range(3):
        total = total + h2(x * y + i) * h1(y, 2)
    return total
"""

N_THREADS = 16


def _run_threads(work):
    barrier = threading.Barrier(N_THREADS)
    results = [None] * N_THREADS

    def run(k):
        barrier.wait()
        try:
            results[k] = work(k)
        except Exception as exc:  # reported below, with the thread's number
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k,)) for k in range(N_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_threads_share_one_transform(tmp_path, monkeypatch):
    mod = load_module(tmp_path, THREADED_MODULE)
    expected = numerical_grad(mod.f, (0.3, 0.7), (0, 1))
    calls = []
    real = srcad.pipeline.adjoint

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(srcad.pipeline, "adjoint", counting)
    g = srcad.grad(mod.f, wrt=(0, 1))
    results = _run_threads(lambda k: g(0.3, 0.7))
    for k, r in enumerate(results):
        assert not isinstance(r, Exception), f"thread {k}: {r!r}"
        assert r == pytest.approx(expected, rel=1e-7), f"thread {k}"
    assert len(calls) == 1  # one transformation, whichever thread made it


def test_threads_forward_mode(tmp_path):
    mod = load_module(tmp_path, THREADED_MODULE)
    expected = numerical_grad(mod.f, (0.3, 0.7), (0, 1))
    results = _run_threads(lambda k: srcad.jvp(mod.f, (0.3, 0.7), (1.0, 0.0))[1])
    for k, r in enumerate(results):
        assert not isinstance(r, Exception), f"thread {k}: {r!r}"
        assert r == pytest.approx(expected[0], rel=1e-7), f"thread {k}"


def test_threads_each_transforming(tmp_path):
    """Each thread makes its own transform of the same (fresh) function, at once. (Finding 20,
    fixed: this used to raise SystemError from CPython's ast module now and then.)"""
    failures = []
    for trial in range(8):
        mod = load_module(tmp_path, THREADED_MODULE)
        expected = numerical_grad(mod.f, (0.3, 0.7), (0, 1))
        results = _run_threads(lambda k, mod=mod: srcad.grad(mod.f, wrt=(0, 1))(0.3, 0.7))
        for k, r in enumerate(results):
            if isinstance(r, Exception) or r != pytest.approx(expected, rel=1e-7):
                failures.append((trial, k, r))
    assert not failures, failures[:3]


# =============================================================================================
# Redefinition, the cache, recursion
# =============================================================================================


def test_redefining_a_function_gives_a_fresh_transform(tmp_path):
    first = load_module(tmp_path, "def f(x):\n    return x * x\n", name="redefined_a")
    assert srcad.grad(first.f)(3.0) == 6.0
    namespace = vars(first)
    path = tmp_path / "redefined_b.py"
    path.write_text("def f(x):\n    return x * x * x\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - redefine f
    assert first.f(3.0) == 27.0
    assert srcad.grad(first.f)(3.0) == 27.0  # 3 x ** 2, from the new definition


def test_clear_cache_regenerates(monkeypatch):
    calls = []
    real = srcad.pipeline.adjoint

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(srcad.pipeline, "adjoint", counting)
    srcad.clear_cache()  # an earlier test's grad(scalar_square) would be reused
    g = srcad.grad(scalar_square)
    assert g(3.0) == 6.0 and g(4.0) == 8.0
    assert len(calls) == 1
    srcad.clear_cache()
    assert g(3.0) == 6.0
    assert len(calls) == 2


def recurses(x, n):
    if n == 0:
        return x
    return recurses(x * 1.0001, n - 1)


def recurses_forever(x):
    return recurses_forever(x * 0.5) + x


def test_deep_recursion_is_pythons_recursion_error():
    limit = sys.getrecursionlimit()
    assert srcad.grad(recurses)(1.0, 50) == pytest.approx(1.0001 ** 50)
    with pytest.raises(RecursionError):
        srcad.grad(recurses)(1.0, limit + 100)
    with pytest.raises(RecursionError):
        srcad.jvp(recurses, (1.0, limit + 100), (1.0, 0.0))
    with pytest.raises(RecursionError):
        srcad.grad(recurses_forever)(1.0)
    # srcad is still usable afterwards
    assert srcad.grad(recurses)(1.0, 3) == pytest.approx(1.0001 ** 3)


def _square(x):
    return x * x


def _cube(x):
    return x * x * x


def test_a_function_carrying_another_ones_cache_entries_does_not_use_them():
    """functools.wraps copies __dict__, where the callee cache keeps its entries: a function
    that received another one's entries must not answer with them."""
    def uses_square(x):
        return _square(x) * 2.0

    def uses_cube(x):
        return _cube(x) * 2.0

    assert srcad.grad(uses_square)(2.0) == 8.0  # caches _square's split on _square
    saved = dict(_cube.__dict__)
    _cube.__dict__.update(_square.__dict__)  # what functools.wraps(_square)(_cube) does
    try:
        assert srcad.grad(uses_cube)(2.0) == 24.0
    finally:
        _cube.__dict__.clear()
        _cube.__dict__.update(saved)
