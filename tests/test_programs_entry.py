"""The constructs public example programs stopped at (issue 16, measured by
tools/example_programs.py): each differentiated and checked against finite differences and a
second engine (srcad's reference tape, which runs the same Python, or autograd), or refused
with a SrcadError naming the line.

* a function taking ``**kwargs`` (with or without ``*args``) differentiated directly: one
  derivative per call shape (positional count, keywords given);
* a nested ``def`` calling a function held in a closure variable of its enclosing function;
* a generator reading its enclosing function's variables, looped over;
* ``zip(*unpack(p))`` with ``unpack`` returning tuple displays of one length;
* a function passed straight to the differentiated function (``grad(apply, wrt=1)(np.sin,
  x)``): one code per function passed, never another function's;
* a method whose multi-line docstring dedenting changes is not taken for an edited file.
"""

import functools
import importlib
import linecache
import sys
import textwrap

import numpy as np
import programs_cases as pc
import pytest
from srcad.check import numerical_grad

import srcad
from srcad import tape
from srcad.errors import SourceUnavailableError, UnsupportedSyntaxError
from srcad.frontend import entry


def _close(a, b, rel=1e-6, abs_=1e-8):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_close(x, y, rel, abs_) for x, y in zip(a, b))
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rel,
                       atol=abs_)


def _fd(func, args, kwargs, wrt):
    return numerical_grad(lambda *a: func(*a, **kwargs), args, wrt)


# ---------------------------------------------------------------- **kwargs, *args targets

POINTS = [0.3, -0.7, 1.1]
KEYWORD_CALLS = [
    (pc.keyword_scaled, (), {}),
    (pc.keyword_scaled, (), {"gain": 2.0}),
    (pc.keyword_scaled, (1.5,), {"gain": 2.0, "shift": 0.5}),
    (pc.keyword_scaled, (), {"scale": 3.0, "shift": -1.0}),
    (pc.star_and_keywords, (), {}),
    (pc.star_and_keywords, (0.4,), {}),
    (pc.star_and_keywords, (0.4, -1.2), {"weight": 0.5}),
    (pc.star_and_keywords, (0.4, -1.2, 2.0), {"weight": 3.0}),
]
KEYWORD_FAMILY = [(f, (x,) + rest, kw) for f, rest, kw in KEYWORD_CALLS for x in POINTS]


@pytest.mark.parametrize(("func", "args", "kwargs"), KEYWORD_FAMILY,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(KEYWORD_FAMILY)])
def test_keyword_parameters_differentiated_directly(func, args, kwargs):
    # the tape names no *args item: it runs the function through one naming them all
    named = entry.star_shim(func, len(args), entry.star_keys(func, kwargs))
    for wrt in range(len(args)):
        ours = srcad.grad(func, wrt=wrt)(*args, **kwargs)
        assert _close(ours, _fd(func, args, kwargs, wrt))
        assert _close(ours, tape.grad(named, wrt=wrt)(*args, **kwargs), 1e-10, 1e-12)
    value, both = srcad.value_and_grad(func, wrt=0)(*args, **kwargs)
    assert value == pytest.approx(func(*args, **kwargs), rel=1e-12)


def test_one_derivative_serves_every_call_shape():
    """The same derivative called with other keywords and counts: each shape its own code."""
    g = srcad.grad(pc.star_and_keywords)
    for rest, kw in [((), {}), ((0.4,), {"weight": 2.0}), ((), {"weight": 2.0}), ((0.4,), {}),
                     ((0.4, 1.0), {"weight": -1.0}), ((), {})]:
        args = (0.9,) + rest
        assert _close(g(*args, **kw), _fd(pc.star_and_keywords, args, kw, 0))


@pytest.mark.parametrize("x", [np.array([0.2, -0.4, 1.3]), np.array([1.0, 2.0, 3.0])])
def test_flat_wrapper_with_star_args(x):
    """autograd's flatten_func: ``def flat_func(flat, *args, **kwargs)`` made by a helper."""
    flat = pc.make_flat(pc.loss)
    t = np.array([0.1, 0.2, 0.3])
    for kw in ({}, {"power": 3.0}):
        ours = srcad.grad(flat)(x, t, **kw)
        assert _close(ours, _fd(flat, (x, t), kw, 0))
        assert _close(ours, tape.grad(pc.loss)(x, t, **kw), 1e-10, 1e-12)


def test_keyword_that_is_not_a_name_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="not a Python name"):
        srcad.grad(pc.keyword_scaled)(0.5, **{"not a name": 1.0})


# ---------------------------------------------------------------- closures, generators


HELD = [pc.sample, np.multiply, lambda p, n: np.sin(p) * n, functools.partial(np.power)]


@pytest.mark.parametrize("held", HELD, ids=["function", "ufunc", "lambda", "partial"])
@pytest.mark.parametrize("scale", [1.0, -0.6])
def test_nested_def_calls_function_held_in_closure(held, scale):
    elbo = pc.build_closure_caller(held)
    v = np.array([0.5, 1.5]) * scale
    for wrt in (0, 1):
        args = (v, 0.8)
        ours = srcad.grad(elbo, wrt=wrt)(*args)
        assert _close(ours, numerical_grad(elbo, args, wrt))
        assert _close(ours, tape.grad(elbo, wrt=wrt)(*args), 1e-10, 1e-12)


SHAPES = [[(2, 3), (3, 1)], [(2, 2)], [(2, 4), (4, 3), (3, 2)]]


@pytest.mark.parametrize("shapes", SHAPES, ids=["two", "one", "three"])
@pytest.mark.parametrize("act", [np.tanh, np.sin], ids=["tanh", "sin"])
def test_generator_reading_enclosing_variables(shapes, act):
    predict = pc.make_network(shapes, act)
    size = sum((m + 1) * n for m, n in shapes)
    w = np.linspace(-1.0, 1.0, size)
    x = np.linspace(-0.5, 0.7, 4 * shapes[0][0]).reshape((4, shapes[0][0]))
    ours = srcad.grad(predict)(w, x)
    assert _close(ours, numerical_grad(predict, (w, x), 0), 1e-5, 1e-7)
    assert _close(ours, tape.grad(predict)(w, x), 1e-10, 1e-12)


def test_generator_sees_rebound_closure_variable():
    """The generator keeps its enclosing function's cells: a later rebinding is seen."""

    def make():
        scale = 1.0

        def gen(x):
            yield x * scale

        def total(x):
            return sum(gen(x))

        def rescale(s):
            nonlocal scale
            scale = s

        return total, rescale

    total, rescale = make()
    g = srcad.grad(total)
    assert g(0.5) == pytest.approx(1.0)
    rescale(3.0)
    assert g(0.5) == pytest.approx(3.0)


# ---------------------------------------------------------------- f(*g(x))


@pytest.mark.parametrize("scale", [1.0, 0.7, -1.3])
def test_zip_of_a_function_returning_a_tuple(scale):
    p = np.linspace(0.1, 1.5, 6) * scale
    ours = srcad.grad(pc.zipped_unpack)(p)
    assert _close(ours, numerical_grad(pc.zipped_unpack, (p,), 0))
    assert _close(ours, tape.grad(pc.zipped_unpack)(p), 1e-10, 1e-12)


def test_returns_of_several_lengths_refused():
    with pytest.raises(UnsupportedSyntaxError, match="length srcad cannot know"):
        srcad.grad(pc.zipped_uneven)(np.linspace(0.1, 1.5, 6))


# ---------------------------------------------------------------- functions passed in

FUNCTIONS = [np.sin, np.tanh, np.exp, pc.cube, lambda t: t ** 3 - t,
             functools.partial(np.power, 2.0)]
FN_IDS = ["sin", "tanh", "exp", "user", "lambda", "partial"]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=FN_IDS)
@pytest.mark.parametrize("x", [0.4, -0.9, 1.3])
def test_function_passed_to_the_differentiated_function(fn, x):
    ours = srcad.grad(pc.apply, wrt=1)(fn, x)
    assert ours == pytest.approx(numerical_grad(pc.apply, (fn, x), 1), rel=1e-6, abs=1e-8)
    # the tape rebinds the module's names only, not a function passed: autograd instead
    autograd = pytest.importorskip("autograd")
    theirs = _autograd_twin(fn)
    assert ours == pytest.approx(autograd.grad(pc.apply, 1)(theirs, x), rel=1e-10, abs=1e-12)
    args = (fn, x, 0.6)
    both = srcad.grad(pc.apply_twice, wrt=(1, 2))(*args)
    assert _close(both, tuple(numerical_grad(pc.apply_twice, args, w) for w in (1, 2)))


def test_one_derivative_never_runs_another_functions_code():
    """The same derivative called with function after function, in turn and again: each
    call's gradient is its own function's (the code is keyed on the function itself)."""
    g = srcad.grad(pc.apply, wrt=1)
    x = np.array([0.3, -0.5])
    vjp_of = {}
    for fn in FUNCTIONS * 2:
        assert g(fn, 0.7) == pytest.approx(numerical_grad(pc.apply, (fn, 0.7), 1), rel=1e-6)
        _, pullback = srcad.vjp(pc.apply, fn, x, wrt=1)
        got = pullback(np.ones(2))
        want = numerical_grad(lambda y, f=fn: np.sum(pc.apply(f, y)), (x,), 0)
        assert _close(got, want)
        vjp_of.setdefault(id(fn), got)
        assert _close(vjp_of[id(fn)], got, 1e-12, 0)


@pytest.mark.parametrize("fn", FUNCTIONS[:4], ids=FN_IDS[:4])
def test_second_derivative_through_function_passed(fn):
    x = 0.45
    d1 = srcad.grad(pc.apply, wrt=1)
    assert srcad.hessian(pc.apply, wrt=1)(fn, x) == pytest.approx(
        numerical_grad(d1, (fn, x), 1), rel=1e-5, abs=1e-6)


def test_derivative_passed_as_the_function():
    d = srcad.grad(pc.cube)
    assert srcad.grad(pc.apply, wrt=1)(d, 0.5) == pytest.approx(
        numerical_grad(pc.apply, (d, 0.5), 1), rel=1e-6)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=FN_IDS)
@pytest.mark.parametrize("x", [0.4, -0.9, np.array([0.3, 1.1])])
def test_forward_mode_with_function_passed(fn, x):
    """Forward mode makes the code for the function passed too: the tangent agrees with
    reverse mode, finite differences and autograd."""
    v = np.ones_like(x) if np.ndim(x) else 1.0
    value, tangent = srcad.jvp(pc.apply, (fn, x), (v,), wrt=1)
    assert _close(value, pc.apply(fn, x))
    fd = numerical_grad(lambda y: float(np.sum(pc.apply(fn, y))), (x,), 0)
    assert _close(tangent, fd, 1e-6, 1e-8)  # elementwise: the tangent of ones is the gradient
    autograd = pytest.importorskip("autograd")
    theirs = autograd.elementwise_grad(pc.apply, 1)(_autograd_twin(fn), x)
    assert _close(tangent, theirs, 1e-10, 1e-12)


def test_forward_mode_never_runs_another_functions_code():
    for fn in FUNCTIONS * 2:
        _, tangent = srcad.jvp(pc.apply, (fn, 0.7), (1.0,), wrt=1)
        assert tangent == pytest.approx(numerical_grad(pc.apply, (fn, 0.7), 1), rel=1e-6)


@pytest.mark.parametrize("x", [0.5, -1.3, 2.0])
def test_forward_mode_over_a_derivative_passed(x):
    """A derivative passed in and called in code differentiated in forward mode (apply(f, x)
    is f(x) * x): the tangent needs cube's second derivative (forward mode over derivatives
    called in code landed with issue 16)."""
    d = srcad.grad(pc.cube)
    value, tangent = srcad.jvp(pc.apply, (d, x), (1.0,), wrt=1)
    assert value == pytest.approx(3 * x ** 3, rel=1e-12)
    assert tangent == pytest.approx(9 * x * x, rel=1e-9)  # d/dx (3 x^2 * x)
    assert tangent == pytest.approx(numerical_grad(lambda t: d(t) * t, (x,), 0), rel=1e-6)


def _autograd_twin(fn):
    """The same function for autograd: NumPy's through autograd.numpy."""
    anp = pytest.importorskip("autograd.numpy")
    if isinstance(fn, functools.partial):
        return functools.partial(_autograd_twin(fn.func), *fn.args, **fn.keywords)
    if isinstance(fn, np.ufunc):
        return getattr(anp, fn.__name__)
    return fn  # plain arithmetic: autograd's boxes run it as it is


# ---------------------------------------------------------------- the edit check


def test_method_with_multiline_docstring_is_not_taken_for_edited():
    m = pc.Fitted()
    for x in (0.3, -1.1):
        assert srcad.grad(m.energy)(x) == pytest.approx(2.0 * np.sinh(x), rel=1e-12)


def test_edited_function_with_docstring_still_refused(tmp_path, monkeypatch):
    path = tmp_path / "edited_module_for_srcad.py"
    text = textwrap.dedent('''
        def f(x):
            """Doc.

                An indented line.
            """
            return x * 2.0
        ''')
    path.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_module_for_srcad")
    try:
        path.write_text(text.replace("x * 2.0", "x * 30.0"))
        linecache.checkcache(str(path))
        with pytest.raises(SourceUnavailableError, match="has changed"):
            srcad.grad(module.f)(1.0)
    finally:
        sys.modules.pop("edited_module_for_srcad", None)


# ---------------------------------------------------------------- outputs of shape (1,)


@pytest.mark.parametrize("x", [np.array([0.4]), np.array([-1.2]), np.array([2.0])])
def test_output_of_shape_one_through_a_callee(x):
    """grad of a function whose output has shape (1,): the seed reaches the callee's backward
    part as ones of that shape (bayesian_optimization's acquisition function crashed)."""
    ours = srcad.grad(pc.size_one_output)(x)
    assert _close(ours, numerical_grad(lambda y: float(pc.size_one_output(y)[0]), (x,), 0))
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def twin(y):  # the same function for autograd (its numpy)
        y2 = anp.atleast_2d(y)
        mean, std = anp.sum(y2, axis=1) * 0.5, anp.sum(y2 ** 2, axis=1) + 1.0
        return -(0.25 - (mean - 0.25) * anp.tanh(mean * std) + std * anp.exp(-mean))[0]

    assert _close(ours, autograd.grad(twin)(x), 1e-10, 1e-12)


# ---------------------------------------------------------------- f(*shape) of a parameter's method


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(3,), (2, 2)], ids=["vector", "matrix"])
def test_star_call_of_a_method_of_a_parameter(seed, shape):
    """``rs.randn(*mean.shape)`` with ``rs`` a parameter of a callee (the variational
    autoencoder's sampler): the method is called on the object, its result a constant."""
    mean = np.linspace(-0.5, 0.8, int(np.prod(shape))).reshape(shape)
    log_std = mean * 0.3
    for wrt in (0, 1):
        ours = srcad.grad(pc.noisy_loss, wrt=wrt)(mean, log_std, seed)
        want = numerical_grad(pc.noisy_loss, (mean, log_std, seed), wrt)
        assert _close(ours, want, 1e-5, 1e-7)
        assert _close(ours, tape.grad(pc.noisy_loss, wrt=wrt)(mean, log_std, seed), 1e-10,
                      1e-12)


class _Scaled:
    def __init__(self, k):
        self.k = k

    def act(self, t):
        return np.sin(t) * self.k


def test_bound_methods_passed_in_are_keyed_on_object_and_function():
    """``obj.act`` is a new bound method at each access: the same object and function find
    the same code; another object (another k, read live) gets the right gradient too."""
    g = srcad.grad(pc.apply, wrt=1)
    cache = srcad.api._transform(pc.apply, 1, "grad")._cache
    before = len(cache)
    a, b = _Scaled(2.0), _Scaled(-3.0)
    for obj in (a, b, a, b):
        got = g(obj.act, 0.6)
        assert got == pytest.approx(numerical_grad(pc.apply, (obj.act, 0.6), 1), rel=1e-6)
    a.k = 5.0  # read when the code runs
    assert g(a.act, 0.6) == pytest.approx(numerical_grad(pc.apply, (a.act, 0.6), 1), rel=1e-6)
    assert len(cache) - before <= 2  # one code per (object, function), not one per access
