"""The public API's contract: decorator forms, wrapped metadata, wrt forms, return shapes."""

import inspect
import math

import pytest

import srcad


def model(x, w=2.0, *, bias=0.5):
    """A documented model."""
    return math.sin(x) * w + bias * x


def test_decorator_forms():
    @srcad.grad
    def f(x):
        return x * x

    @srcad.grad(wrt="w")
    def h(x, w):
        return x * w

    assert f(3.0) == 6.0
    assert h(3.0, 5.0) == 3.0


def test_metadata_and_signature_are_kept():
    g = srcad.grad(model)
    assert g.__name__ == "model" and g.__qualname__ == "model"
    assert g.__doc__ == "A documented model."
    assert g.__wrapped__ is model
    assert inspect.signature(g) == inspect.signature(model)


def test_defaults_keywords_and_kwonly():
    g = srcad.grad(model, wrt=("x", "w"))
    expected = (math.cos(1.0) * 2.0 + 0.5, math.sin(1.0))
    assert g(1.0) == pytest.approx(expected)
    assert g(1.0, 2.0, bias=0.5) == pytest.approx(expected)
    assert g(x=1.0) == pytest.approx(expected)
    assert srcad.grad(model, wrt="bias")(1.0, bias=3.0) == pytest.approx(1.0)


def test_single_wrt_gives_one_value_tuple_gives_tuple():
    assert isinstance(srcad.grad(model, wrt=0)(1.0), float)
    single = srcad.grad(model, wrt=(0,))(1.0)
    assert isinstance(single, tuple) and len(single) == 1
    assert srcad.grad(model, wrt=[0, 1])(1.0) == pytest.approx(
        srcad.grad(model, wrt=(0, 1))(1.0))


def test_negative_position():
    assert srcad.grad(model, wrt=-2)(1.0, 2.0) == pytest.approx(math.sin(1.0))  # w
    assert srcad.grad(model, wrt=-1)(1.0, 2.0) == 1.0  # bias, the last parameter


def test_value_and_grad():
    value, grad = srcad.value_and_grad(model)(1.0)
    assert value == model(1.0)
    assert grad == pytest.approx(math.cos(1.0) * 2.0 + 0.5)


def test_vjp_defaults_to_all_positional_arguments():
    value, pullback = srcad.vjp(model, 1.0, 3.0)
    assert value == model(1.0, 3.0)
    assert pullback(2.0) == pytest.approx((2 * (math.cos(1.0) * 3.0 + 0.5),
                                           2 * math.sin(1.0)))
    _, single = srcad.vjp(model, 1.0, wrt=0)
    assert single(1.0) == pytest.approx(math.cos(1.0) * 2.0 + 0.5)


def test_method_decorated_in_a_class():
    class Model:
        scale = 3.0

        @srcad.grad(wrt="x")
        def loss(self, x):
            return self.scale * x * x

    assert Model().loss(2.0) == 12.0


def test_source_and_ssa_are_text():
    g = srcad.grad(model)
    g(1.0)
    assert srcad.source(g).startswith("def grad_model(x, w, *, bias):")
    assert "def model(x, w, bias):" in srcad.ssa(model)
    with pytest.raises(TypeError):
        srcad.source(model)


def test_clear_cache_makes_code_again():
    g = srcad.grad(model)
    first = g(1.0)
    srcad.clear_cache()
    assert g(1.0) == first
