"""``f(x, *s)`` with ``s`` of a length srcad cannot know, where the callee fixes it (round 9).

Found in a textbook's notebook (jkitchin/pycse, ``21-machine-learning``): ``def model(x,
*pars): b1, w10, ... = pars`` called as ``model(X, *pars)`` from ``resid(pars)``, ``pars`` the
array being differentiated; refused before ("a call with a starred argument whose length srcad
cannot know"). The callee fixes the length (no ``*args`` and no defaults: its positional
parameters; ``*args`` unpacked once into fixed names: that many more), so srcad reads the items
by position after a run-time check (:mod:`srcad.frontend.spread_lengths`).

The family: callee shapes x where the spread sits among the arguments x what is spread (an
array argument, a list argument, a slice, a local array, a tuple argument), differentiated with
respect to what is spread; against central finite differences and autograd on the same text,
with value_and_grad, jvp and Hessians in both modes. Refusals: a length other than the callee
takes, a dict spread (both at run time, at the call's line), a callee with defaults (at
transformation time, as before).
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from srcad.check import numerical_grad

import srcad
from srcad.errors import UnsupportedSyntaxError

autograd = pytest.importorskip("autograd")

#: callees taking three items from the spread (``lead`` values before it, ``tail`` after)
CALLEES = {
    "plain": """
        def model(x, a, b, c):
            return a * np.tanh(b * x + c)
        """,
    "star_unpacked": """
        def model(x, *pars):
            a, b, c = pars
            return a * np.tanh(b * x + c)
        """,
    "star_list_target": """
        def model(x, *pars):
            [a, b, c] = pars
            s = np.sin(a) * b
            return s * x + c ** 2
        """,
    "lead_then_star": """
        def model(x, a, *rest):
            b, c = rest
            return np.exp(a * 0.1) * x + b * np.cos(c * x)
        """,
}

CALLEES = {name: textwrap.dedent(text) for name, text in CALLEES.items()}

#: how the caller spreads its parameter ``p`` (three items) into ``model``
CALLS = {
    "array": ("def f(p):", "model(X, *p)"),
    "list": ("def f(p):", "model(X, *p)"),
    "slice": ("def f(p):", "model(X, *p[1:])"),
    "local": ("def f(p):", "model(X, *(2.0 * p))"),
    "tuple": ("def f(p):", "model(X, *p)"),
}

POINTS = {
    "array": np.array([0.7, -0.4, 1.1]),
    "list": [0.7, -0.4, 1.1],
    "slice": np.array([9.0, 0.7, -0.4, 1.1]),
    "local": np.array([0.35, -0.2, 0.55]),
    "tuple": (0.7, -0.4, 1.1),
}


def _module(source, tmp_path, numpy_name, tag):
    path = tmp_path / f"spread9_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n\nX = np.linspace(-1.0, 1.0, 5)\n"
                    + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(module, text):
    """The line of ``module``'s file holding ``text``."""
    with open(module.__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def _source(callee, call):
    head, expression = CALLS[call]
    return CALLEES[callee] + f"\n{head}\n    return np.sum({expression} ** 2)\n"


def _flat(g):
    return np.asarray(g, dtype=float).ravel()


@pytest.mark.parametrize("callee,call", list(itertools.product(CALLEES, CALLS)))
def test_spread_of_a_fixed_length(callee, call, tmp_path):
    source = _source(callee, call)
    f = _module(source, tmp_path, "numpy", "np").f
    x = POINTS[call]
    g = srcad.grad(f)(x)
    assert type(g) is type(x) or isinstance(x, np.ndarray)
    as_array = np.asarray(x, dtype=float)
    numeric = numerical_grad(lambda v: f(type(x)(v) if not isinstance(x, np.ndarray) else v),
                             (as_array,))
    np.testing.assert_allclose(_flat(g), _flat(numeric), rtol=1e-6, atol=1e-8)
    ag = _module(source, tmp_path, "autograd.numpy", "ag").f
    np.testing.assert_allclose(_flat(g), _flat(autograd.grad(ag)(x)), rtol=1e-10, atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(_flat(g2), _flat(g), rtol=1e-12)
    if isinstance(x, np.ndarray):
        u = np.cos(np.arange(x.size) + 0.5)
        _, t = srcad.jvp(f, (x,), (u,))
        assert t == pytest.approx(float(np.sum(g * u)), rel=1e-9, abs=1e-12)
        expected = autograd.hessian(ag)(x)
        for mode in ("fwd", "rev"):
            np.testing.assert_allclose(srcad.hessian(f, mode=mode)(x), expected, rtol=1e-8,
                                       atol=1e-10)


def test_the_notebook_form(tmp_path):
    """pycse's form: ten items unpacked in the callee, the residual's Jacobian and the sum of
    squares' Hessian (its ``least_squares`` fit and the Hessian at the optimum)."""
    source = """
        def model(x, *pars):
            b1, w10, w00, b00, w11, w01, b01, w12, w02, b02 = pars
            return (b1 + w10 * np.tanh(w00 * x + b00) + w11 * np.tanh(w01 * x + b01)
                    + w12 * np.tanh(w02 * x + b02))

        def resid(pars):
            return (X + 1.5) ** (1.0 / 3.0) - model(X, *pars)

        def f(params):
            return np.sum(resid(params) ** 2)
        """
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    x = np.linspace(-0.5, 0.6, 10)
    np.testing.assert_allclose(srcad.jacobian(m.resid)(x), autograd.jacobian(a.resid)(x),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(srcad.grad(m.f)(x), numerical_grad(m.f, (x,)), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(srcad.hessian(m.f)(x), autograd.hessian(a.f)(x), rtol=1e-8,
                               atol=1e-10)


def test_generated_code_reads_the_items(tmp_path):
    m = _module(CALLEES["plain"] + "\ndef f(p):\n    return model(2.0, *p)\n", tmp_path,
                "numpy", "np")
    g = srcad.grad(m.f)
    np.testing.assert_allclose(g(np.array([0.5, 0.2, -0.1])), numerical_grad(
        m.f, (np.array([0.5, 0.2, -0.1]),)), rtol=1e-6)
    text = srcad.source(g)
    assert "star_call" not in text


@pytest.mark.parametrize("given", [np.array([0.7, -0.4]), np.array([0.7, -0.4, 1.1, 2.0])])
def test_another_length_is_refused_at_the_call(given, tmp_path):
    m = _module(_source("star_unpacked", "array"), tmp_path, "numpy", "np")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(given)
    error = info.value
    assert error.lineno == _line(m, "model(X, *p)") and "model(X, *p)" in error.construct
    assert f"of length {given.size}" in error.message and "takes 3 items" in error.message
    assert error.hint == "pass 3 items"


def test_a_dict_spread_is_refused_at_the_call(tmp_path):
    source = CALLEES["plain"] + textwrap.dedent("""
        def f(p):
            d = {"a": p, "b": p, "c": p}
            return model(X[0], *d)
        """)
    m = _module(source, tmp_path, "numpy", "np")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(0.5)
    assert "a starred argument that is a dict" in info.value.message
    assert "f(x, *list(s))" in info.value.hint
    assert info.value.lineno == _line(m, "model(X[0], *d)")


RUN_TIME_LENGTHS = {
    # two or three items are both valid Python: the length is not fixed where the code is made
    "defaults": """
        def model(x, a, b, c=1.0):
            return a * np.tanh(b * x + c)
        """,
    "star_read_otherwise": """
        def model(x, *pars):
            return sum(pars) * x
        """,
    # Python takes any length when the unpacking does not run
    "unpacking_may_be_skipped": """
        def model(x, *pars):
            if x is None:
                return 0.0
            a, b = pars
            return a * np.sin(b * x)
        """,
}


@pytest.mark.parametrize("callee", sorted(RUN_TIME_LENGTHS))
@pytest.mark.parametrize("n", [2, 3])
def test_a_length_the_callee_does_not_fix_is_taken_when_the_code_runs(callee, n, tmp_path):
    """``model(X, *p)`` whose callee does not fix the length (refused where the code was made
    before round 16): the call is differentiated when it runs, for the length met
    (srcad.runtime.spread_calls), against finite differences and autograd."""
    if callee == "unpacking_may_be_skipped" and n == 3:
        pytest.skip("three items: Python's own ValueError")
    source = textwrap.dedent(RUN_TIME_LENGTHS[callee]) + (
        "\ndef f(p):\n    return np.sum(model(X, *p) ** 2)\n")
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    p = np.array([0.5, 0.2, -0.3])[:n]
    g = srcad.grad(m.f)(p)
    np.testing.assert_allclose(g, numerical_grad(m.f, (p,)), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g, autograd.grad(a.f)(p), rtol=1e-10, atol=1e-12)
    assert "star_call" in srcad.source(srcad.grad(m.f), p)


def test_a_callee_given_another_arity_is_made_again(tmp_path):
    m = _module(CALLEES["plain"] + "\ndef f(p):\n    return np.sum(model(X, *p))\n", tmp_path,
                "numpy", "np")
    g = srcad.grad(m.f)
    p3 = np.array([0.5, 0.2, -0.1])
    np.testing.assert_allclose(g(p3), numerical_grad(m.f, (p3,)), rtol=1e-6)
    other = _module("def model(x, a, b):\n    return a * np.sin(b * x)\n", tmp_path, "numpy",
                    "other")
    m.model = other.model
    p2 = np.array([0.5, 0.2])
    np.testing.assert_allclose(g(p2), numerical_grad(m.f, (p2,)), rtol=1e-6, atol=1e-9)
