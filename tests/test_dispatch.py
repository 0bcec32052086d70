"""The gradient function's own body: the first plain-scalar specialisation is compiled into it
(srcad.dispatch); every other call still finds its specialisation by the argument types."""

import math
import threading

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad


def poly(a, o):
    b = 5 - 3 * a
    d = 5 * b + 6
    return 3 * (2 * (7 * (2 * b + 3) + d**2)) - o


def trig(x, n=3):
    for _ in range(n):
        x = x * 0.9 + math.sin(x)
    return x


def fd(f, args, i):
    return numerical_grad(f, args, i)


def inlined(g):
    return g.__code__ is not g.__srcad_plain__


def test_first_scalar_specialisation_is_inlined_and_right():
    g = srcad.grad(poly, wrt=(0, 1))
    assert not inlined(g)
    da, do = g(1.5, 0.5)
    assert inlined(g)
    assert da == pytest.approx(fd(poly, (1.5, 0.5), 0), rel=1e-7)
    assert do == pytest.approx(-1.0)
    assert g(1.5, 0.5) == (da, do)  # the inlined path gives the same numbers


def test_other_types_take_the_lookup_and_agree():
    g = srcad.grad(poly, wrt=0)
    first = g(1.5, 0.5)
    assert g(np.float64(1.5), 0.5) == pytest.approx(first)
    assert g(1, 0) == pytest.approx(fd(poly, (1.0, 0.0), 0), rel=1e-7)
    assert g(1.5, 0.5) == first


def test_arrays_after_scalars():
    def square(x):
        return x * x * 3.0

    g = srcad.grad(square)
    assert g(2.0) == pytest.approx(12.0)
    assert inlined(g)
    with pytest.raises(srcad.SrcadError, match="scalar"):
        g(np.array([1.0, 2.0]))  # a vector output: refused through the lookup path
    assert g(2.0) == pytest.approx(12.0)


def test_loops_with_math_are_inlined():
    g = srcad.grad(trig)
    value = g(0.3)
    assert inlined(g)
    assert value == pytest.approx(fd(trig, (0.3,), 0), rel=1e-7)
    assert g(0.3, 5) == pytest.approx(fd(trig, (0.3, 5), 0), rel=1e-7)
    assert g(0.3, n=5) == pytest.approx(fd(trig, (0.3, 5), 0), rel=1e-7)


def test_value_and_grad_is_inlined():
    vg = srcad.value_and_grad(poly, wrt=(0, 1))
    value, (da, _) = vg(1.5, 0.5)
    assert inlined(vg)
    assert value == poly(1.5, 0.5)
    assert da == pytest.approx(fd(poly, (1.5, 0.5), 0), rel=1e-7)


def test_closure_variables_are_read_live():
    scale = 2.0

    def f(x):
        return scale * x * x

    g = srcad.grad(f)
    assert g(3.0) == pytest.approx(12.0)
    assert inlined(g)
    scale = 5.0
    assert g(3.0) == pytest.approx(30.0)
    assert scale == 5.0


def test_helpers_the_module_does_not_bind_are_not_inlined():
    # np.sum's gradient calls srcad's grad_sum, which the user's module does not define:
    # that code keeps the lookup path
    def f(x):
        return np.sum(x * x)

    g = srcad.grad(f)
    assert np.allclose(g(np.array([1.0, 2.0])), [2.0, 4.0])
    assert not inlined(g)


def sin_times(x):
    return math.sin(x) * x


def test_a_shadowed_helper_name_is_not_inlined():
    import types

    class FakeMath:  # the module's `math` is not the math module; srcad's code must not use it
        sin = staticmethod(math.sin)

    namespace = dict(globals(), math=FakeMath)
    h = types.FunctionType(sin_times.__code__, namespace, "sin_times")
    g = srcad.grad(h)
    assert g(0.5) == pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5), rel=1e-12)
    assert not inlined(g)  # its math.cos is srcad's cell, not the module's name


def test_clear_cache_puts_the_plain_body_back():
    g = srcad.grad(poly)
    g(1.5, 0.5)
    assert inlined(g)
    srcad.clear_cache()
    assert not inlined(g)
    assert g(1.5, 0.5) == pytest.approx(fd(poly, (1.5, 0.5), 0), rel=1e-7)
    assert inlined(g)


def test_source_of_the_inlined_function_is_the_generated_one():
    g = srcad.grad(poly)
    g(1.5, 0.5)
    text = srcad.source(g)
    assert text.startswith("def grad_poly(a, o):")
    assert "__srcad" not in text


def test_threads_share_one_gradient_function():
    g = srcad.grad(trig)
    expected = fd(trig, (0.4,), 0)
    results = []

    def work():
        results.extend(g(0.4) for _ in range(50))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 400
    assert all(r == pytest.approx(expected, rel=1e-7) for r in results)


def test_signature_and_name_are_the_users():
    import inspect

    g = srcad.grad(trig)
    g(0.1)
    assert g.__name__ == "trig"
    assert str(inspect.signature(g)) == "(x, n=3)"
    with pytest.raises(TypeError):
        g()


def test_errors_in_the_inlined_body_show_generated_lines():
    def f(x):
        return math.log(x) * 2.0

    g = srcad.grad(f)
    g(1.0)
    assert inlined(g)
    with pytest.raises(ValueError) as info:
        g(-1.0)  # math.log(-1): the error comes from the generated forward sweep
    import traceback

    text = "".join(traceback.format_exception(info.value))
    assert "math.log(x)" in text
