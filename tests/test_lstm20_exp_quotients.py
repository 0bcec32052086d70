"""Quotients ``a / (c + exp(u))`` with number literals ``a`` (not 0) and ``c``, differentiated
as one operation (``srcad/transform/exp_quotients.py``): ``u``'s gradient is read from the
quotient, ``-g * y * (1 - (c / a) * y)``, and ``exp(u)`` is not kept.

A generated family: numerators x added constants (one, zero, negative, integers) x the sum's
order x what is exponentiated x where (the differentiated function, a callee, a loop) x
arrays or Python numbers (``math.exp``), against autograd and central finite differences in
grad and value_and_grad; vjp, jvp and both Hessian modes on a subset; forms that are not one
(``exp(u)`` or the divisor read again, a numerator or constant that is a variable, a
difference) keep ``exp(u)`` and stay right; the form of the code."""

import importlib.util
import itertools
import re

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad
from twin_checks import vjp_jvp_and_hessians

import srcad

RNG = np.random.default_rng(2021)

NUMERATORS = ("1.0", "3", "-2.5")
CONSTANTS = ("1.0", "2", "0.0", "-0.25")
ORDERS = {"c_first": "{a} / ({c} + {exp}({u}))", "exp_first": "{a} / ({exp}({u}) + {c})"}
INNER = ("-a", "a * b", "a")

#: forms that are not one: (body, fused)
OTHERS = {
    "exp_read_again": ("e = {exp}(-a)\n    return 1.0 / (1.0 + e) + e * b", False),
    "divisor_read_again": ("d = 1.0 + {exp}(-a)\n    return 2.0 / d * b + d", False),
    "variable_numerator": ("return b / (1.0 + {exp}(-a))", False),
    "variable_constant": ("return 1.0 / (b * b + {exp}(-a))", False),
    "difference": ("return 1.0 / ({exp}(a) - 0.25) * b", False),
    "zero_numerator": ("return 0.0 / (1.0 + {exp}(a)) + a * b", False),
    "two_quotients": ("return 1.0 / (1.0 + {exp}(-a)) * (2.0 / (0.5 + {exp}(a * b)))", True),
}

PLACES = {
    "top": "def f(x, y):\n    return total(piece(x, y))\n",
    "loop": """
def f(x, y):
    s = 0.0
    for i in range(2):
        s = s + total(piece(x, y))
        x = x * 0.5 + 0.1
    return s
""",
}

BODIES = {f"{a}|{c}|{order}|{u}": (f"return {ORDERS[order].format(a=a, c=c, exp='{exp}', u=u)}"
                                   " * b", True)
          for a, c, order, u in itertools.product(NUMERATORS, CONSTANTS, ORDERS, INNER)}
BODIES.update(OTHERS)

KINDS = ("array", "number")
CASES = list(dict.fromkeys(sample(list(itertools.product(BODIES, PLACES, KINDS)), 5) + [
    (body, place, kind) for body in OTHERS for place in PLACES for kind in KINDS]))
SMALL = [(b, p, k) for b, p, k in CASES if b in (
    "1.0|1.0|c_first|-a", "-2.5|-0.25|exp_first|a * b", "3|0.0|c_first|a",
    "two_quotients", "exp_read_again") and p == "loop"]


def _text(body, kind):
    exp = "np.exp" if kind == "array" else "math.exp"
    tot = "np.sum(v)" if kind == "array" else "v"
    return (f"def piece(a, b):\n    {BODIES[body][0].format(exp=exp)}\n\n\n"
            f"def total(v):\n    return {tot}\n\n\n")


def _program(tmp_path, body, place, kind, tag):
    text = _text(body, kind) + PLACES[place]
    name = f"lstm20q_{abs(hash((body, place, kind, tag)))}"
    path = tmp_path / f"{name}.py"
    path.write_text("import math\n\nimport numpy as np\n\n\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    space = {"np": anp, "math": anp}  # the same program on autograd
    exec(compile(text, "<autograd twin>", "exec"), space)
    return module, space["f"]


def _args(kind):
    if kind == "number":
        return float(RNG.uniform(-1.0, 1.0)), float(RNG.uniform(-1.0, 1.0))
    return RNG.uniform(-1.0, 1.0, (3, 4)), RNG.uniform(-1.0, 1.0, (3, 4))


@pytest.mark.parametrize("body, place, kind", CASES, ids=[f"{b}-{p}-{k}" for b, p, k in CASES])
def test_grad_and_value_and_grad(tmp_path, body, place, kind):
    module, twin = _program(tmp_path, body, place, kind, "grad")
    x, y = _args(kind)
    got = srcad.grad(module.f, wrt=(0, 1))(x, y)
    value, again = srcad.value_and_grad(module.f, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(value, module.f(x, y), rtol=1e-12)
    for i, arg in enumerate((x, y)):
        want = autograd.grad(twin, i)(x, y)
        for g in (got[i], again[i]):
            assert np.shape(g) == np.shape(arg)
            np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got[i], numerical_grad(module.f, (x, y), i), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("body, place, kind", SMALL, ids=[f"{b}-{p}-{k}" for b, p, k in SMALL])
def test_vjp_jvp_and_hessians(tmp_path, body, place, kind):
    module, twin = _program(tmp_path, body, place, kind, "second")
    x, y = _args(kind)
    vjp_jvp_and_hessians(module.f, twin, x, y, RNG)


@pytest.mark.parametrize("body", ["1.0|1.0|c_first|-a", "3|2|exp_first|a * b",
                                  "-2.5|-0.25|c_first|a", "1.0|0.0|exp_first|-a",
                                  *OTHERS])
def test_form(tmp_path, body):
    """A quotient of the form keeps no ``exp(u)`` for the backward sweep (it is written into
    the quotient's expression); the others keep it where their gradient reads it."""
    module, _ = _program(tmp_path, body, "top", "array", "form")
    x, y = _args("array")
    g = srcad.grad(module.f, wrt=(0, 1))
    g(x, y)
    code = srcad.source(g, x, y, callees=True)
    kept = re.search(r"^ *\w+ = np\.exp\(", code, re.M) is not None
    assert kept != BODIES[body][1], code
    if body == "1.0|1.0|c_first|-a":
        assert "* (one - " in code, code  # (float64: srcad.backend.float_literals)


def test_logistic_at_the_extremes(tmp_path):
    """``1 / (1 + exp(-x))`` where ``exp(-x)`` overflows or underflows: the gradient from the
    quotient is 0 or the tiny number it should be, never nan."""
    module, _ = _program(tmp_path, "1.0|1.0|c_first|-a", "top", "array", "extremes")
    x = np.array([-800.0, -40.0, 0.0, 40.0, 800.0])
    y = np.ones_like(x)
    with np.errstate(over="ignore"):
        got = srcad.grad(module.f)(x, y)
        s = 1.0 / (1.0 + np.exp(-x))
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, s * (1.0 - s), rtol=1e-12, atol=1e-300)

