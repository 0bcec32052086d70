"""``f(*xs, *args)``: a spread of unknown length beside one whose items srcad knows (round 11).

Found in a wrapper of ``scipy.optimize.minimize`` (pierreablin/autoptim): the objective of
several arrays is called as ``objective_function(*optim_vars, *args)`` from the function
differentiated, ``def objective_converted(optim_vars, *args)``, where ``optim_vars`` is the list
being differentiated and ``args`` the extra arguments (a ``*args`` parameter, whose length the
call fixes). Refused before ("a call with a starred argument whose length srcad cannot know"):
the callee fixes the total count, but :mod:`srcad.frontend.spread_lengths` gave up on any second
spread. Now a second spread whose items srcad knows (a ``*args`` parameter, a tuple built in
the function, a constant tuple) counts as that many arguments.

The family: spread orders x what the known spread is x callees, differentiated with respect
to the list, against central finite differences and autograd on the same text, with
value_and_grad, jvp and Hessians in both modes. A callee with defaults (two counts are valid
Python) is differentiated when the call runs (round 16); a wrong length at run time is refused.
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

#: callees taking four values in all
CALLEES = {
    "plain": """
        def obj(a, b, c, d):
            return np.sum((a * c - b) ** 2) + np.sum(d) * np.sum(np.sin(a))
        """,
    "star_unpacked": """
        def obj(a, *rest):
            b, c, d = rest
            return np.sum(np.tanh(a * b) * c) + d ** 2 * np.sum(a)
        """,
}

#: how the caller passes two of the four values it knows: (signature, call, extra arguments)
CALLS = {
    "varargs_after": ("def f(vs, *args):", "obj(*vs, *args)", (1.5, 0.25)),
    "varargs_before": ("def f(vs, *args):", "obj(*args, *vs)", (1.5, 0.25)),
    "tuple_built": ("def f(vs, k):", "obj(*vs, *(k, 2.0 * k))", (0.75,)),
    "named_tuple_local": ("def f(vs, k):\n    extra = (k, 0.5)", "obj(*vs, *extra)", (0.75,)),
    "constant": ("def f(vs):", "obj(*vs, *CONSTANT)", ()),
}

POINT = [np.array([0.3, -0.8, 1.1]), np.array([0.5, 0.2, -0.4])]


def _module(source, tmp_path, numpy_name, tag):
    path = tmp_path / f"spread11_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n\nCONSTANT = (1.25, -0.5)\n"
                    + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source(callee, call):
    head, expression, _ = CALLS[call]
    return textwrap.dedent(CALLEES[callee]) + f"\n{head}\n    return {expression}\n"


def _flat(tree):
    return np.concatenate([np.ravel(t) for t in tree])


def _fd(f, vs, extra):
    sizes = [v.size for v in vs]

    def of_flat(flat):
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        return f([p.reshape(v.shape) for p, v in zip(parts, vs)], *extra)

    return numerical_grad(of_flat, (_flat(vs),))


@pytest.mark.parametrize("callee,call", list(itertools.product(CALLEES, CALLS)))
def test_two_spreads(callee, call, tmp_path):
    if callee == "star_unpacked" and call == "varargs_before":
        pytest.skip("the callee's first parameter is a number there: another function")
    source = _source(callee, call)
    f = _module(source, tmp_path, "numpy", "np").f
    extra = CALLS[call][2]
    vs = [v.copy() for v in POINT]
    g = srcad.grad(f)(vs, *extra)
    assert isinstance(g, list) and len(g) == 2
    np.testing.assert_allclose(_flat(g), _fd(f, vs, extra), rtol=1e-6, atol=1e-8)
    ag = _module(source, tmp_path, "autograd.numpy", "ag").f
    np.testing.assert_allclose(_flat(g), _flat(autograd.grad(ag)(vs, *extra)), rtol=1e-10,
                               atol=1e-12)
    value, g2 = srcad.value_and_grad(f)(vs, *extra)
    assert value == pytest.approx(f(vs, *extra), rel=1e-12)
    np.testing.assert_allclose(_flat(g2), _flat(g), rtol=1e-12)
    tangent = [np.cos(np.arange(3) + 0.5), np.sin(np.arange(3) - 0.25)]
    _, t = srcad.jvp(f, (vs, *extra), (tangent,), wrt=0)
    assert t == pytest.approx(float(_flat(g) @ _flat(tangent)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("call", ["varargs_after", "tuple_built", "constant"])
def test_hessians_in_both_modes(call, tmp_path):
    """The Hessian in the first array, the second held: both modes against autograd's."""
    source = _source("plain", call) + textwrap.dedent("""
        def h(a, b, *extra):
            return f([a, b], *extra)
        """)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    extra = CALLS[call][2]
    expected = autograd.hessian(a.h)(POINT[0], POINT[1], *extra)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.h, mode=mode)(POINT[0], POINT[1], *extra),
                                   expected, rtol=1e-8, atol=1e-10)


def test_the_wrapper_form(tmp_path):
    """autoptim's shape: the objective held by a closure, the arrays a list, the extra
    arguments a ``*args`` tuple passed on."""
    source = """
        def make(objective_function):
            def objective_converted(optim_vars, *args):
                return objective_function(*optim_vars, *args)
            return objective_converted

        def loss(means, variances, x):
            tmp = np.zeros(x.size)
            for m, v in zip(means, variances):
                tmp = tmp + np.exp(-(x - m) ** 2 / (2 * v ** 2)) / v
            return -np.sum(np.log(tmp))

        converted = make(loss)
        """
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    x = np.linspace(-2.0, 3.0, 7)
    vs = [np.array([-1.0, 0.5, 2.0]), np.array([1.0, 3.0, 0.7])]
    g = srcad.grad(m.converted)(vs, x)
    np.testing.assert_allclose(_flat(g), _flat(autograd.grad(a.converted)(vs, x)), rtol=1e-10)
    np.testing.assert_allclose(_flat(g), _fd(m.converted, vs, (x,)), rtol=1e-6, atol=1e-8)


def test_a_callee_with_defaults_is_taken_when_the_code_runs(tmp_path):
    """Two counts are valid Python: the length is not fixed where the code is made (refused
    before round 16); the call is differentiated when it runs (srcad.runtime.spread_calls)."""
    source = """
        def obj(a, b, c, d=1.0):
            return np.sum(a * b) * c * d

        def f(vs, *args):
            return obj(*vs, *args)
        """
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    for extra in ((2.0,), (2.0, 0.5)):
        g = srcad.grad(m.f)(POINT, *extra)
        np.testing.assert_allclose(_flat(g), _fd(m.f, POINT, extra), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(_flat(g), _flat(autograd.grad(a.f)(POINT, *extra)),
                                   rtol=1e-10)


def test_a_wrong_length_is_refused_at_the_call(tmp_path):
    m = _module(_source("plain", "varargs_after"), tmp_path, "numpy", "np")
    with pytest.raises(UnsupportedSyntaxError) as info:
        srcad.grad(m.f)(POINT + [np.ones(3)], 1.5, 0.25)
    assert "of length 3" in info.value.message and "takes 2 items" in info.value.message
    assert info.value.hint == "pass 2 items"
    assert "obj(*vs, *args)" in info.value.construct
