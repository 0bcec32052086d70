"""Where the function raises, its derivative raises: a value nothing reads whose computation
may raise stays in the forward sweep (``srcad.rules.raising.may_raise``, the one predicate of
the SSA's dead-code pass and of the generated code's). ``m = t / n`` unused, ``n == 0`` on
Python numbers: Python raises ``ZeroDivisionError``; srcad's gradient returned. Each form of
a dead value that may raise (a division, a math domain, a subscript, a conversion, a
singular matrix, a reshape; an overflow is not a domain error and is not kept:
``test_an_overflow_is_not_a_domain_error``) at the top level, in a branch and in a loop, under
every transform (grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian): the exception
type of ``f`` itself where it raises, and where it does not, the value and the derivative
against central differences. Imports itertools, math, NumPy, pytest, srcad and the tests'
helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from program_files import module
from sampling import LONG

import srcad

#: form -> (a dead value reading y, x and the argument a; a raising, a not raising)
FORMS = {
    "division": ("y / a", 0, 4),
    "floor_division": ("x // a", 0.0 * 0, 3),
    "modulo": ("y % a", 0, 3),
    "math_log": ("math.log(a) * y", 0.0, 2.0),
    "math_sqrt": ("math.sqrt(a - 1.0) + x", 0.5, 2.0),
    "list_item": ("[x, y][a]", 5, 1),
    "dict_item": ("{'u': x, 'v': y}[a]", "w", "u"),
    "int": ("int(a) + x", "nan", "3"),
    "float": ("float(a) * y", "one", "1.5"),
    "power": ("a ** -1.0 * y", 0.0, 2.0),
    "inverse": ("np.linalg.inv(np.array([[a, 1.0], [1.0, 1.0]])) * y", 1.0, 2.0),
    "reshape": ("np.reshape(np.arange(a) * y, (2, 2))", 3, 4),
    "count": ("(x + y) / (a - 1)", 1, 3),
}
PLACES = {
    "top": "    m = {e}\n",
    "branch": "    if x > -10.0:\n        m = {e}\n",
    "loop": "    for i in range(2):\n        m = {e}\n",
}
TRANSFORMS = {
    "grad": lambda g, x: srcad.grad(g)(x),
    "value_and_grad": lambda g, x: srcad.value_and_grad(g)(x)[1],
    "vjp": lambda g, x: srcad.vjp(g, x)[1](1.0)[0],
    "jvp": lambda g, x: srcad.jvp(g, (x,), (1.0,))[1],
    "jacfwd": lambda g, x: srcad.jacfwd(g)(x),
    "jacrev": lambda g, x: srcad.jacrev(g)(x),
    "hessian": lambda g, x: srcad.hessian(g)(x),
}
CASES = list(itertools.product(FORMS, PLACES))
CASES = CASES if LONG else [("division", "branch"), ("math_log", "top"),
                            ("list_item", "loop"), ("inverse", "top")]
TEXT = """import math

import numpy as np

A = None


def f(x):
    a = A
    y = x * x + 1.0
{dead}    return y * 3.0 + x
"""


@pytest.mark.parametrize("form,place", CASES)
def test_a_dead_value_that_raises_raises_in_every_transform(tmp_path, form, place):
    expression, bad, good = FORMS[form]
    if expression.startswith("int") and bad == "nan":
        bad = float("nan")
    mod = module(tmp_path, f"dead_{form}_{place}", TEXT.format(
        dead=PLACES[place].format(e=expression)))
    x = 0.7
    mod.A = bad
    with pytest.raises(Exception) as raised:
        mod.f(x)
    kind = type(raised.value)
    for name, transform in TRANSFORMS.items():
        mod.A = bad
        with pytest.raises(kind):
            transform(mod.f, x)
        mod.A = good
        want = 6.0 * x + 1.0 if name != "hessian" else 6.0
        assert np.isclose(transform(mod.f, x), want, rtol=1e-9), name
    mod.A = good
    h = 1e-6
    assert np.isclose((mod.f(x + h) - mod.f(x - h)) / (2 * h), 6.0 * x + 1.0, rtol=1e-6)


def test_an_overflow_is_not_a_domain_error(tmp_path):
    """``a ** 2`` of a number raises OverflowError at 1e200 where ``a * a`` is inf: the
    function is defined there, so a dead ``a ** 2`` is not computed for its overflow (W1's
    discarded output) and every transform returns the derivative of the rest; a negative
    power (ZeroDivisionError at 0.0, a domain error) is kept (the "power" form above)."""
    mod = module(tmp_path, "dead_overflow", TEXT.format(dead="    m = a ** 2 + y\n"))
    mod.A = 1e200
    with pytest.raises(OverflowError):
        mod.f(0.7)
    for name, transform in TRANSFORMS.items():
        if name == "vjp":  # (its first call runs f itself for the value: it raises as f does)
            with pytest.raises(OverflowError):
                transform(mod.f, 0.7)
            continue
        want = 6.0 * 0.7 + 1.0 if name != "hessian" else 6.0
        assert np.isclose(transform(mod.f, 0.7), want, rtol=1e-9), name
