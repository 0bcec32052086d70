"""``f(*xs)`` whose length srcad learns only when the code runs (round 16, issue 16).

Met in pierreablin/autoptim's preconditioning tutorial: the function differentiated,
``objective_converted(optim_vars, *args)``, calls ``precon_objective(*optim_vars, *args)``,
a function taking ``*precon_optim_vars_and_args``, which slices that tuple, spreads it into
another function, turns what comes back into a tuple with a helper and spreads that into the
loss. ``optim_vars`` is the list being differentiated: its length is part of the cache key but
not of what lowering sees, and the callee does not fix it. Refused before ("a call with a
starred argument whose length srcad cannot know"); now the call is written
``star_call(where, fn, args, kwargs)`` (srcad.runtime.spread_calls), whose *form*, made for
the number of items and the keywords met when the call runs, srcad differentiates like any
function of the user's, in both modes and to any order.

The family: callees taking ``*vs`` (items read by position, in a loop, with a keyword) x
where the spread list comes from (the list argument, a list a helper returns, the list and a
``*args`` parameter together) x lengths 1 to 3, against central finite differences and
autograd on the same text; value_and_grad; jvp; Hessians in both modes. Refusals: a callee
that changes what it is given, a method of a differentiated array spread into.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from sampling import sample
from srcad.check import numerical_grad

import srcad
from srcad.errors import MissingRuleError, MutationError

autograd = pytest.importorskip("autograd")

CALLEES = {
    "indexed": """
        def obj(*vs):
            return np.sum(np.sin(vs[0]) * vs[-1]) + sum(np.sum(v ** 2) for v in vs)
        """,
    "looped": """
        def obj(*vs):
            total = 0.0
            for i, v in enumerate(vs):
                total = total + (i + 1.0) * np.sum(np.tanh(v))
            return total * np.sum(vs[0])
        """,
    "keyword": """
        def obj(*vs, scale=1.0):
            return scale * sum(np.sum(np.exp(0.3 * v) * v) for v in vs)
        """,
}

#: how the function differentiated reaches the callee: (its body, extra arguments)
SPREADS = {
    "argument": ("return obj(*vs) * k", (0.75,)),
    "helper_list": ("ws = scaled(vs, k)\n    return obj(*ws)", (0.75,)),
    "with_varargs": ("return obj(*vs, *args)", (0.75, -1.25)),
    "keyword": ("return obj(*vs, scale=k)", (0.75,)),
}

HELPERS = """
def scaled(vs, k):
    return [k * v for v in vs]
"""


def _module(source, tmp_path, numpy_name, tag):
    path = tmp_path / f"spread16_{tag}_{abs(hash((source, numpy_name)))}.py"
    path.write_text(f"import {numpy_name} as np\n" + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source(callee, spread):
    body, extra = SPREADS[spread]
    head = "def f(vs, *args):" if spread == "with_varargs" else "def f(vs, k):"
    return textwrap.dedent(CALLEES[callee]) + HELPERS + f"\n{head}\n    {body}\n"


def _point(n):
    rng = np.random.default_rng(n)
    return [rng.uniform(-1.0, 1.0, 3) for _ in range(n)]


def _flat(tree):
    return np.concatenate([np.ravel(t) for t in tree])


def _fd(f, vs, extra):
    sizes = [v.size for v in vs]

    def of_flat(flat):
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        return f([p.reshape(v.shape) for p, v in zip(parts, vs)], *extra)

    return numerical_grad(of_flat, (_flat(vs),))


CASES = [(c, s, n) for c, s, n in itertools.product(CALLEES, SPREADS, (1, 2, 3))
         if (s == "keyword") == (c == "keyword") or (c == "keyword" and s != "with_varargs")]


@pytest.mark.parametrize("callee,spread,n", sample(CASES, 2))  # CI: every second case
def test_a_spread_of_the_length_met(callee, spread, n, tmp_path):
    source = _source(callee, spread)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    extra = SPREADS[spread][1]
    vs = _point(n)
    g = srcad.grad(m.f)(vs, *extra)
    assert isinstance(g, list) and len(g) == n
    np.testing.assert_allclose(_flat(g), _fd(m.f, vs, extra), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(_flat(g), _flat(autograd.grad(a.f)(vs, *extra)), rtol=1e-10,
                               atol=1e-12)
    value, g2 = srcad.value_and_grad(m.f)(vs, *extra)
    assert value == pytest.approx(m.f(vs, *extra), rel=1e-12)
    np.testing.assert_allclose(_flat(g2), _flat(g), rtol=1e-12)
    tangent = [np.cos(np.arange(3) + i) for i in range(n)]
    _, t = srcad.jvp(m.f, (vs, *extra), (tangent,), wrt=0)
    assert t == pytest.approx(float(_flat(g) @ _flat(tangent)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("callee", sorted(CALLEES))
def test_the_extra_arguments_gradient(callee, tmp_path):
    """The gradient with respect to a number spread beside the list."""
    spread = "keyword" if callee == "keyword" else "with_varargs"
    source = _source(callee, spread)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    extra = SPREADS[spread][1]
    vs = _point(2)
    got = srcad.grad(m.f, wrt=1)(vs, *extra)
    assert got == pytest.approx(autograd.grad(a.f, 1)(vs, *extra), rel=1e-10, abs=1e-12)
    assert got == pytest.approx(numerical_grad(m.f, (vs, *extra), 1), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("callee,spread", [("indexed", "argument"), ("looped", "helper_list"),
                                           ("keyword", "keyword"),
                                           ("indexed", "with_varargs")])
def test_hessians_in_both_modes(callee, spread, tmp_path):
    source = _source(callee, spread) + textwrap.dedent("""
        def h(x, *extra):
            return f([x[:2], x[2:4], x[4:]], *extra)
        """)
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    extra = SPREADS[spread][1]
    x = np.linspace(-0.7, 0.9, 6)
    expected = autograd.hessian(a.h)(x, *extra)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.h, mode=mode)(x, *extra), expected,
                                   rtol=1e-8, atol=1e-10)


PRECONDITIONED = """
def _as_tuple(v):
    if type(v) not in (list, tuple):
        return (v,)
    return v

def loss(beta, X, y, lam):
    return np.sum((np.dot(X, beta) - y) ** 2) + lam * np.sum(beta ** 2)

def precon_bwd(beta_p, X, y, lam):
    return beta_p / SCALE

def make(objective_function, n_args):
    def precon_objective(*vars_and_args):
        args = vars_and_args[-n_args:]
        optim_vars = _as_tuple(precon_bwd(*vars_and_args))
        return objective_function(*optim_vars, *args)

    def objective_converted(optim_vars, *args):
        return precon_objective(*optim_vars, *args)

    return objective_converted

converted = make(loss, 3)

def h(b, X, y, lam):
    return converted((b,), X, y, lam)
"""


def test_autoptims_preconditioned_objective(tmp_path):
    """The tutorial's chain: a ``*args`` function slicing its tuple, a helper's tuple spread
    into the loss; differentiated with respect to the list (and Hessians of a wrapper)."""
    source = "SCALE = np.array([1.0, 2.0, 4.0])\n" + PRECONDITIONED
    m = _module(source, tmp_path, "numpy", "np")
    a = _module(source, tmp_path, "autograd.numpy", "ag")
    rng = np.random.default_rng(3)
    X, y, b = rng.standard_normal((5, 3)), rng.standard_normal(5), rng.standard_normal(3)
    g = srcad.grad(m.converted)([b], X, y, 0.1)
    np.testing.assert_allclose(g[0], autograd.grad(a.converted)([b], X, y, 0.1)[0],
                               rtol=1e-10)
    np.testing.assert_allclose(g[0], numerical_grad(m.h, (b, X, y, 0.1), 0), rtol=1e-6)
    expected = autograd.hessian(a.h)(b, X, y, 0.1)
    for mode in ("fwd", "rev"):
        np.testing.assert_allclose(srcad.hessian(m.h, mode=mode)(b, X, y, 0.1), expected,
                                   rtol=1e-8, atol=1e-10)


def test_a_callee_changing_what_it_is_given_is_refused(tmp_path):
    source = textwrap.dedent("""
        def push(acc, *vs):
            acc.append(vs[0])
            return vs[0] * 2.0

        def f(vs):
            acc = []
            y = push(acc, *vs)
            return np.sum(y) + np.sum(acc[0])
        """)
    m = _module(source, tmp_path, "numpy", "np")
    with pytest.raises(MutationError) as info:
        srcad.grad(m.f)(_point(2))
    error = info.value
    assert error.lineno == 9 and "push(acc, *vs)" in error.construct
    assert "may change what it is given" in error.message and "push" in error.message
    assert "return new values" in error.hint


def test_a_method_of_a_differentiated_array_is_refused(tmp_path):
    """``x.reshape(*shape)`` with ``shape`` of unknown length: the function called holds
    ``x`` itself, whose gradient could not be followed."""
    source = textwrap.dedent("""
        def f(x, shape):
            return np.sum(np.sin(x.reshape(*shape)))
        """)
    m = _module(source, tmp_path, "numpy", "np")
    with pytest.raises(MissingRuleError) as info:
        srcad.grad(m.f)(np.arange(4.0), (2, 2))
    assert info.value.lineno == 4


def test_the_soundness_tables_former_refusal():
    """``twice(*xs)`` of a list argument into ``def twice(*args)`` (refused in
    tests/calls_soundness_cases.py before round 16): the gradient of the list."""
    import calls_soundness_cases as cc

    xs = [1.5, -2.0]
    assert srcad.grad(cc.splat_list_refused)(xs) == [2.0, 0.0]
    assert [float(v) for v in autograd.grad(lambda v: v[0] * 2.0)(xs)] == [2.0, 0.0]
