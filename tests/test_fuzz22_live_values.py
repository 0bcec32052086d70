"""A function value made in the differentiated code from a global that the code reads live (a
float, an array): ``make(K)(x)``, ``h = make(K); h(x)``, ``functools.partial(lin, c=K)(x)``,
``lambda u, c=K: ...`` and ``def g(u, c=K)`` inside the function, the same in a callee, a partial
passed to a helper. Python computes ``K`` when the call runs; srcad built the function when it
made the code and kept the value ``K`` had then, so after ``K = 0.875`` the derivative (and
``value_and_grad``'s value) stayed those of the old ``K`` (found by tests/test_properties_python
.py, seeds 144, 227, 348: a WRONG gradient after a global changed). Each case: the same
derivative called before and after the global is rebound, against central differences and
autograd on the same source (autograd.numpy), in reverse and forward mode. Imports NumPy,
autograd and srcad."""

import autograd
import numpy as np
import pytest
from class_families import module_of
from twin_checks import central, close

import srcad

SOURCE = """\
import functools

import numpy as np

K = 1.25


def lin(u, c):
    return u * c


def make(c):
    def inner(u):
        return np.sin(u) * c
    return inner


def apply(fn, u):
    return fn(u) + u


def helper(x):
    return make(K)(x)


def f(x):
    return np.sum(BODY)
"""

BODIES = {
    "made": "make(K)(x)",
    "partial_keyword": "functools.partial(lin, c=K)(x)",
    "partial_positional": "functools.partial(lin, K)(x)",
    "lambda_default": "(lambda u, c=K: u * c)(x)",
    "in_callee": "helper(x)",
    "partial_passed": "apply(functools.partial(lin, c=K), x)",
    "partial_mapped": "sum(map(functools.partial(lin, c=K), [x, x * x]))",
}

#: statement forms (a body of several lines) for the same construction held in a name
STATEMENTS = {
    "held": "    h = make(K)\n    return np.sum(h(x) + h(x * x))\n",
    "nested_default": "    def g(u, c=K):\n        return u * c\n    return np.sum(g(x))\n",
    "partial_listed": "    fs = [functools.partial(lin, c=K), np.sin]\n"
                      "    return np.sum(sum(fn(x) for fn in fs))\n",
    "lambda_named": "    g = lambda u, c=K: np.tanh(u) * c\n    return np.sum(g(x))\n",
}

VALUES = {"float": (1.25, 0.875), "array": (np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.2, -1.0]))}


def _source(case):
    if case in BODIES:
        return SOURCE.replace("BODY", BODIES[case])
    return SOURCE.replace("    return np.sum(BODY)\n", STATEMENTS[case])


@pytest.mark.parametrize("kind", sorted(VALUES))
@pytest.mark.parametrize("case", sorted(BODIES) + sorted(STATEMENTS))
def test_global_rebound_between_calls(tmp_path, case, kind):
    text = _source(case)
    mod = module_of(tmp_path, text, f"live_{case}_{kind}", "")
    twin = module_of(tmp_path, text, f"live_{case}_{kind}_ag", "", numpy="autograd.numpy")
    x = np.array([0.3, -0.7, 1.1])
    t = np.array([1.0, 0.5, -0.25])
    made = srcad.value_and_grad(mod.f)
    for value in VALUES[kind]:
        mod.K = twin.K = value
        v, g = made(x)
        want = autograd.grad(twin.f)(x)
        assert close(v, mod.f(x), 1e-12), (case, kind, v, mod.f(x))
        assert close(g, want, 1e-10), (case, kind, g, want)
        assert close(g, central(mod.f, [x], 0), 1e-6)
        _, tangent = srcad.jvp(mod.f, (x,), (t,))
        assert close(tangent, np.dot(want, t), 1e-10), (case, kind, tangent)
